//===- Interpreter.cpp - run tile kernels on the CPU ----------------------===//
//
// A tree-walking interpreter over the tile IR of one kernel. Values are
// whole tiles (row-major arrays); floats are held as doubles rounded to
// their type after every operation, integers as int64 sign-extended from
// their width (i1 as 0/1), pointers as host addresses.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/Interpreter.h"
#include "tools/cpu-driver/ProgramRunner.h"

#include "dialect/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::tile;
using namespace tilec::cpu::detail;

namespace tilec::cpu {

void MemoryMap::add(uint64_t base, uint64_t bytes, bool written) {
  ranges[base] = Range{bytes, std::vector<bool>(bytes, written)};
}

const MemoryMap::Range *MemoryMap::find(uint64_t addr, uint64_t bytes,
                                        uint64_t &base) const {
  auto it = ranges.upper_bound(addr);
  if (it == ranges.begin())
    return nullptr;
  --it;
  if (addr < it->first || addr + bytes < addr ||
      addr + bytes > it->first + it->second.bytes)
    return nullptr;
  base = it->first;
  return &it->second;
}

bool MemoryMap::contains(uint64_t addr, uint64_t bytes) const {
  uint64_t base;
  return find(addr, bytes, base) != nullptr;
}

bool MemoryMap::written(uint64_t addr, uint64_t bytes) const {
  uint64_t base;
  const Range *range = find(addr, bytes, base);
  if (!range)
    return false;
  for (uint64_t b = addr - base, e = b + bytes; b < e; ++b)
    if (!range->written[b])
      return false;
  return true;
}

void MemoryMap::markWritten(uint64_t addr, uint64_t bytes) {
  uint64_t base;
  Range *range = const_cast<Range *>(find(addr, bytes, base));
  if (!range)
    return;
  std::fill(range->written.begin() + (addr - base),
            range->written.begin() + (addr - base + bytes), true);
}

namespace detail {

bool ProgramRunner::fail(Operation *op, const Twine &message) {
  llvm::raw_string_ostream os(error);
  os << op->getLoc() << ": program (" << pid[0] << ", " << pid[1] << ", "
     << pid[2] << "): '" << op->getName() << "': " << message;
  return false;
}

bool ProgramRunner::runBlock(Block &block, ArrayRef<RtValue> args,
                             SmallVectorImpl<RtValue> &yielded) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    set(arg, value);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      yielded.clear();
      for (Value operand : op.getOperands())
        yielded.push_back(env.find(operand)->second);
      return true;
    }
    if (!runOp(&op))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

bool ProgramRunner::runControlFlow(Operation *op, bool &handled) {
  handled = true;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = scalarInt(loop.getLowerBound());
    int64_t ub = scalarInt(loop.getUpperBound());
    int64_t step = scalarInt(loop.getStep());
    if (step <= 0)
      return fail(op, "loop step " + Twine(step) + " is not positive");
    Type ivType = loop.getInductionVar().getType();
    unsigned w = intWidth(ivType);
    bool isUnsigned = loop.getUnsignedCmp();
    SmallVector<RtValue> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(env.find(init)->second);
    SmallVector<RtValue> args, yielded;
    for (int64_t iv = lb; isUnsigned ? zext(iv, w) < zext(ub, w) : iv < ub;
         iv = normalize(iv + step, w)) {
      Tile ivTile;
      ivTile.i = {iv};
      args.clear();
      args.push_back(ivTile);
      args.append(carried.begin(), carried.end());
      if (!runBlock(*loop.getBody(), args, yielded))
        return false;
      carried.assign(yielded.begin(), yielded.end());
      // An overflowing induction variable ends the loop as the hardware's
      // would not; loops of these kernels never wrap.
      if (iv > std::numeric_limits<int64_t>::max() - step)
        break;
    }
    for (auto [result, value] : llvm::zip(loop.getResults(), carried))
      set(result, value);
    return true;
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    bool cond = scalarInt(branch.getCondition());
    Region &region = cond ? branch.getThenRegion() : branch.getElseRegion();
    SmallVector<RtValue> yielded;
    if (!region.empty() && !runBlock(region.front(), {}, yielded))
      return false;
    for (auto [result, value] : llvm::zip(branch.getResults(), yielded))
      set(result, value);
    return true;
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    SmallVector<RtValue> carried;
    for (Value init : loop.getInits())
      carried.push_back(env.find(init)->second);
    SmallVector<RtValue> yielded;
    for (int64_t iterations = 0;; ++iterations) {
      if (iterations > (int64_t(1) << 32))
        return fail(op, "while loop does not end");
      if (!runBlock(loop.getBefore().front(), carried, yielded))
        return false;
      auto condition =
          cast<scf::ConditionOp>(loop.getBefore().front().getTerminator());
      bool go = std::get<Tile>(yielded[0]).i[0];
      SmallVector<RtValue> forwarded(yielded.begin() + 1, yielded.end());
      if (!go) {
        for (auto [result, value] : llvm::zip(loop.getResults(), forwarded))
          set(result, value);
        (void)condition;
        return true;
      }
      if (!runBlock(loop.getAfter().front(), forwarded, yielded))
        return false;
      carried.assign(yielded.begin(), yielded.end());
    }
  }
  handled = false;
  return true;
}

bool ProgramRunner::runOp(Operation *op) {
  bool handled = false;
  if (!runArith(op, handled))
    return false;
  if (handled)
    return true;
  if (!runControlFlow(op, handled))
    return false;
  if (handled)
    return true;
  if (!runMemoryOp(op, handled))
    return false;
  if (handled)
    return true;
  if (!runTileOp(op, handled))
    return false;
  if (handled)
    return true;
  return fail(op, "op not supported by the interpreter");
}

} // namespace detail

std::string runKernel(func::FuncOp kernel, Grid grid, void *const *params,
                      MemoryMap &memory) {
  // Arguments, decoded by the kernel's signature.
  SmallVector<RtValue> args;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    const void *p = params[index];
    Tile t;
    if (isa<PtrType>(type)) {
      uint64_t addr;
      std::memcpy(&addr, p, 8);
      t.i = {int64_t(addr)};
    } else if (auto ft = dyn_cast<FloatType>(type)) {
      t.f = {loadFloat(static_cast<const uint8_t *>(p), ft)};
    } else if (type.isIntOrIndex()) {
      t.i = {loadInt(static_cast<const uint8_t *>(p), type)};
    } else {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << kernel.getLoc() << ": argument " << index << " of type " << type
         << " is not interpreted";
      return message;
    }
    args.push_back(std::move(t));
  }
  for (uint32_t z = 0; z < grid.z; ++z)
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        ProgramRunner runner(memory, grid, x, y, z);
        if (!runner.runKernel(kernel, args))
          return runner.error;
      }
  return "";
}

} // namespace tilec::cpu
