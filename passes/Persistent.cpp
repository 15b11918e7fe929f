//===- Persistent.cpp - one wave of programs looping over tiles ----------===//
//
// A kernel written for a grid of tiles (one program per tile) becomes a
// loop over those tiles in each of a few programs. Launch overhead and
// the ramp of each program's pipeline are then paid once per SM instead
// of once per tile, and tile-pipeline-loads can keep a ring running from
// one tile into the next.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelParams.h"
#include "passes/Passes.h"
#include "passes/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPERSISTENT
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `op` must run once per tile: it touches memory, asks for the
/// program id, or uses a value that runs once per tile.
bool isPerTile(Operation *op, const DenseSet<Operation *> &perTile) {
  if (isa<ProgramIdOp>(op) || !isMemoryEffectFree(op))
    return true;
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && perTile.contains(def))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

void makePersistent(func::FuncOp func, int64_t group) {
  Block &body = func.getBody().front();
  Type i32Type = IntegerType::get(func.getContext(), 32);
  SmallVector<Value> counts =
      appendKernelParams(func, {{i32Type, "tiles_x"}, {i32Type, "tiles_y"}});
  Value tilesX = counts[0], tilesY = counts[1];
  // The grid the source was written for is the tile grid, the same for
  // every tile.
  func.walk([&](NumProgramsOp count) {
    OpBuilder b(count);
    GridDim dim = count.getDim();
    Value replacement = dim == GridDim::X ? tilesX
                        : dim == GridDim::Y
                            ? tilesY
                            : arith::ConstantOp::create(b, count.getLoc(),
                                                        b.getI32IntegerAttr(1))
                                  .getResult();
    count.replaceAllUsesWith(replacement);
    count.erase();
  });
  DenseSet<Operation *> perTile;
  SmallVector<Operation *> moved;
  for (Operation &op : body.without_terminator())
    if (isPerTile(&op, perTile)) {
      perTile.insert(&op);
      moved.push_back(&op);
    }

  Location loc = func.getLoc();
  OpBuilder b(body.getTerminator());
  auto i32 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value tiles = arith::MulIOp::create(b, loc, tilesX, tilesY);
  auto loop =
      scf::ForOp::create(b, loc, ProgramIdOp::create(b, loc, GridDim::X), tiles,
                         NumProgramsOp::create(b, loc, GridDim::X));
  loop->setAttr(TileDialect::kPersistentLoopAttrName, b.getUnitAttr());
  for (Operation *op : moved)
    op->moveBefore(loop.getBody()->getTerminator());

  // Tile t of group g = t / (G * tiles_x) lies in row first + (t mod
  // rows) and column (t mod (G * tiles_x)) / rows, where first = g * G
  // and rows = min(G, tiles_y - first) (the last group may be short).
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value groupRows = i32(group);
  Value perGroup = arith::MulIOp::create(b, loc, groupRows, tilesX);
  Value first = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, t, perGroup), groupRows);
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tilesY, first), groupRows);
  Value within = arith::RemUIOp::create(b, loc, t, perGroup);
  Value tileY = arith::AddIOp::create(
      b, loc, first, arith::RemUIOp::create(b, loc, within, rows));
  Value tileX = arith::DivUIOp::create(b, loc, within, rows);
  Value zero = i32(0);
  loop.getBody()->walk([&](ProgramIdOp id) {
    GridDim dim = id.getDim();
    id.replaceAllUsesWith(dim == GridDim::X   ? tileX
                          : dim == GridDim::Y ? tileY
                                              : zero);
    id.erase();
  });
}

struct PersistentPass : public tile::impl::TilePersistentBase<PersistentPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      auto group =
          func->getAttrOfType<IntegerAttr>(TileDialect::kPersistentAttrName);
      if (!group || !isKernel(func) || func.isExternal())
        return;
      bool done = false;
      func.walk([&](scf::ForOp loop) {
        done |= loop->hasAttr(TileDialect::kPersistentLoopAttrName);
      });
      if (done)
        return;
      // tcgen05 rings wait on commit counts per tile (see the pass
      // description): such kernels keep one program per tile.
      if (hasTcgen05Dot(func)) {
        func->removeAttr(TileDialect::kPersistentAttrName);
        return;
      }
      makePersistent(func, group.getInt());
    });
  }
};
} // namespace
