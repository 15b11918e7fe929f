//===- ProgramRunner.h - run one program of a launch ------------*- C++ -*-===//
//
// Internal to the interpreter (Interpreter.h is its interface): the state
// of one program and the member functions that run its ops, one group of
// ops a file: arith and math (InterpretArith.cpp), shared and global
// memory (InterpretMemoryOps.cpp), the other tile ops (InterpretTileOps.cpp)
// and control flow (Interpreter.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_CPU_DRIVER_PROGRAMRUNNER_H
#define TILEC_TOOLS_CPU_DRIVER_PROGRAMRUNNER_H

#include "tools/cpu-driver/Interpreter.h"
#include "tools/cpu-driver/InterpreterValues.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tilec::cpu::detail {

/// A ring copy issued into stage `stage` of `buffer`: the data it read,
/// which lands when a wait retires its group.
struct PendingCopy {
  SharedBuffer *buffer;
  int64_t stage;
  Tile data;
};

/// A tile.load_stage's stage, with the copies issued into it by then: the
/// dots read the stage in place, so no copy may be issued into it before
/// they run.
struct StageRead {
  SharedBuffer *buffer;
  int64_t stage;
  uint64_t issuedCopies;
};

/// Runs one program of a launch, to completion.
class ProgramRunner {
public:
  ProgramRunner(MemoryMap &memory, Grid grid, uint32_t x, uint32_t y,
                uint32_t z)
      : memory(memory), grid(grid), pid{x, y, z} {}

  /// Runs the kernel's body on its arguments; false with `error` set on a
  /// failure.
  bool runKernel(mlir::func::FuncOp kernel, llvm::ArrayRef<RtValue> args) {
    llvm::SmallVector<RtValue> results;
    return runBlock(kernel.getBody().front(), args, results);
  }

  std::string error;

private:
  MemoryMap &memory;
  Grid grid;
  uint32_t pid[3];
  llvm::DenseMap<mlir::Value, RtValue> env;
  std::vector<std::unique_ptr<SharedBuffer>> sharedBuffers;
  std::vector<PendingCopy> uncommitted;
  std::vector<std::vector<PendingCopy>> groups; // oldest first
  llvm::DenseMap<mlir::Value, StageRead> stageReads;

  /// Sets `error` to `message`, located at `op` and this program; returns
  /// false.
  bool fail(mlir::Operation *op, const llvm::Twine &message);

  const Tile &tile(mlir::Value v) {
    return std::get<Tile>(env.find(v)->second);
  }
  int64_t scalarInt(mlir::Value v) { return tile(v).i.at(0); }
  double scalarFloat(mlir::Value v) { return tile(v).f.at(0); }
  const View &view(mlir::Value v) {
    return std::get<View>(env.find(v)->second);
  }
  SharedBuffer &shared(mlir::Value v) {
    return *std::get<SharedBuffer *>(env.find(v)->second);
  }
  void set(mlir::Value v, RtValue value) { env[v] = std::move(value); }

  int64_t resolve(mlir::OpFoldResult ofr) {
    if (auto attr = llvm::dyn_cast<mlir::Attribute>(ofr))
      return llvm::cast<mlir::IntegerAttr>(attr).getInt();
    return scalarInt(llvm::cast<mlir::Value>(ofr));
  }

  static Tile makeTile(mlir::Type type) {
    Tile t;
    if (auto shaped = llvm::dyn_cast<mlir::RankedTensorType>(type))
      t.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    int64_t n = t.size();
    if (llvm::isa<mlir::FloatType>(elementOf(type)))
      t.f.assign(n, 0.0);
    else
      t.i.assign(n, 0);
    return t;
  }

  bool runBlock(mlir::Block &block, llvm::ArrayRef<RtValue> args,
                llvm::SmallVectorImpl<RtValue> &yielded);

  // The groups of ops, tried in turn by runOp: each sets `handled` to
  // whether `op` is of its group, and returns false on a failure.
  bool runOp(mlir::Operation *op);
  bool runArith(mlir::Operation *op, bool &handled);
  bool runControlFlow(mlir::Operation *op, bool &handled);
  bool runMemoryOp(mlir::Operation *op, bool &handled);
  bool runTileOp(mlir::Operation *op, bool &handled);

  // Memory accesses and ring waits (InterpretMemoryOps.cpp).
  bool checked(mlir::Operation *op, uint64_t addr, unsigned bytes);
  /// Fails unless every byte of the access has been written.
  bool initialized(mlir::Operation *op, uint64_t addr, unsigned bytes);
  /// Reads element `coords` of `v` into `out[k]`; coordinates outside the
  /// view read `pad`.
  bool readView(mlir::Operation *op, const View &v,
                llvm::ArrayRef<int64_t> coords, Tile &out, int64_t k,
                bool padded, double padF, int64_t padI);
  /// The address of element `coords` of `v`, or 0 outside its extents.
  uint64_t addressOf(const View &v, llvm::ArrayRef<int64_t> coords);
  bool writeView(mlir::Operation *op, const View &v,
                 llvm::ArrayRef<int64_t> coords, const Tile &value, int64_t k);
  void padding(std::optional<mlir::TypedAttr> attr, double &f, int64_t &i);
  /// Gathers `result` from `v` at the coordinates in `indices` (one tile per
  /// view dimension); out of bounds reads zero.
  bool gather(mlir::Operation *op, const View &v,
              llvm::ArrayRef<const Tile *> indices, Tile &result);
  bool completeGroups(unsigned pending);
};

} // namespace tilec::cpu::detail

#endif // TILEC_TOOLS_CPU_DRIVER_PROGRAMRUNNER_H
