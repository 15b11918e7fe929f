//===- PipelineLoads.cpp - issue a loop's loads iterations ahead ---------===//
//
// Software pipelining of the global loads that feed tensor-core dots: in an
// scf.for whose body loads tiles at offsets computed from the induction
// variable, the loads of iteration i + (S - 1) are issued at the top of
// iteration i (S = num-stages), so their memory latency overlaps the dots
// of the iterations in between. The loaded tiles travel as loop-carried
// values (a register queue of S - 1 tiles per load); a prologue issues the
// first S - 1 iterations' loads before the loop.
//
// Loads past the loop's last iteration are issued too. That is safe: a
// tile.load is bounds-checked against its view, so at worst it reads
// memory the loop would not have read, never outside the view (and the
// usual K loop runs past the view's extent, where nothing is read).
//
// Only loads whose values reach a tile.dot in the same body are moved (the
// loops that keep tensor cores waiting), and only in bodies that write no
// memory: a load moved ahead of a store to the same view would read stale
// data. The offsets, mask and padding of a moved load may depend on the
// induction variable through side-effect-free ops of the body, which are
// recomputed for the prefetched iteration; a load that depends on another
// loop-carried value stays where it is.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINELOADS
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether anything in `op` (or nested in it) may write memory.
bool mayWrite(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
      if (effects.hasEffect<MemoryEffects::Write>())
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Unknown effects: only ops that declare recursive effects (regions)
    // are looked into; anything else may write.
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

/// Whether a value of `load` reaches a tile.dot inside `body`.
bool feedsDot(LoadOp load, Block *body) {
  SmallVector<Value> work = {load.getResult()};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *inBody = body->findAncestorOpInBlock(*user);
      if (!inBody || !seen.insert(user).second)
        continue;
      if (isa<DotOp>(user))
        return true;
      llvm::append_range(work, user->getResults());
    }
  }
  return false;
}

/// The side-effect-free ops of `body` that `load`'s operands are computed
/// with from the induction variable `iv` and values defined outside the
/// loop, in block order; failure when an operand depends on anything else.
FailureOr<SmallVector<Operation *>> getAddressSlice(LoadOp load,
                                                    scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  SetVector<Operation *> slice;
  SmallVector<Value> work(load->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == iv || loop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() || !isMemoryEffectFree(def) ||
        def->getNumRegions() != 0)
      return failure();
    if (slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// `lb + n·step` (or `iv + n·step`) in the induction variable's type.
Value advance(OpBuilder &b, Location loc, Value base, Value step, int64_t n) {
  if (n == 0)
    return base;
  Value count =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(step.getType(), n));
  Value offset = arith::MulIOp::create(b, loc, step, count);
  return arith::AddIOp::create(b, loc, base, offset);
}

/// The value of `load` for induction value `ivValue`: its address slice
/// and the load itself, cloned at `b`'s insertion point.
Value cloneLoadAt(OpBuilder &b, LoadOp load, ArrayRef<Operation *> slice,
                  Value iv, Value ivValue) {
  IRMapping map;
  map.map(iv, ivValue);
  for (Operation *op : slice)
    b.clone(*op, map);
  return b.clone(*load, map)->getResult(0);
}

void pipelineLoop(scf::ForOp loop, unsigned numStages) {
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator())
    if (mayWrite(&op))
      return;
  SmallVector<std::pair<LoadOp, SmallVector<Operation *>>> loads;
  for (LoadOp load : body->getOps<LoadOp>()) {
    if (!feedsDot(load, body))
      continue;
    FailureOr<SmallVector<Operation *>> slice = getAddressSlice(load, loop);
    if (succeeded(slice))
      loads.push_back({load, std::move(*slice)});
  }
  if (loads.empty())
    return;

  // Prologue: iterations 0 .. ahead-1, per load.
  int64_t ahead = numStages - 1;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value iv = loop.getInductionVar();
  SmallVector<Value> inits;
  for (auto &[load, slice] : loads)
    for (int64_t i = 0; i < ahead; ++i)
      inits.push_back(cloneLoadAt(
          b, load, slice, iv,
          advance(b, loc, loop.getLowerBound(), loop.getStep(), i)));

  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  auto yields = [&](OpBuilder &b, Location loc,
                    ArrayRef<BlockArgument> queue) -> SmallVector<Value> {
    Block *newBody = queue.front().getOwner();
    Value newIv = newBody->getArgument(0);
    b.setInsertionPointToStart(newBody);
    Value next = advance(b, loc, newIv, loop.getStep(), ahead);
    SmallVector<Value> result;
    for (auto [index, entry] : llvm::enumerate(loads)) {
      auto &[load, slice] = entry;
      for (int64_t i = 1; i < ahead; ++i)
        result.push_back(queue[index * ahead + i]);
      result.push_back(cloneLoadAt(b, load, slice, iv, next));
    }
    return result;
  };
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false, yields);
  if (failed(replaced))
    return;
  auto newLoop = cast<scf::ForOp>(*replaced);
  // The loop's own loads become the head of each queue.
  unsigned first = newLoop.getNumRegionIterArgs() - inits.size();
  for (auto [index, entry] : llvm::enumerate(loads)) {
    LoadOp load = entry.first;
    load.getResult().replaceAllUsesWith(
        newLoop.getRegionIterArgs()[first + index * ahead]);
    load.erase();
  }
  // The address computations the moved loads leave unused.
  SetVector<Operation *> unused;
  for (auto &entry : loads)
    unused.insert(entry.second.begin(), entry.second.end());
  SmallVector<Operation *> ordered = unused.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : llvm::reverse(ordered))
    if (op->use_empty())
      op->erase();
}

struct PipelineLoadsPass
    : public tile::impl::TilePipelineLoadsBase<PipelineLoadsPass> {
  using TilePipelineLoadsBase::TilePipelineLoadsBase;
  void runOnOperation() override {
    if (numStages < 2)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](func::FuncOp func) {
      if (isKernel(func))
        func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    });
    for (scf::ForOp loop : loops)
      pipelineLoop(loop, numStages);
  }
};
} // namespace
