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
#include "passes/SharedMemory.h"

#include "dialect/TileLayouts.h"
#include "mlir/IR/Matchers.h"

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

/// Erases the ops of `slices` nothing uses any more.
void eraseUnused(ArrayRef<SmallVector<Operation *>> slices) {
  SetVector<Operation *> unused;
  for (const SmallVector<Operation *> &slice : slices)
    unused.insert(slice.begin(), slice.end());
  SmallVector<Operation *> ordered = unused.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : llvm::reverse(ordered))
    if (op->use_empty())
      op->erase();
}

/// Issues `loads` (with their address slices) `numStages - 1` iterations
/// ahead, their tiles carried by the loop; returns the loop that replaces
/// `loop` (or `loop` itself when nothing changed).
scf::ForOp queueInRegisters(scf::ForOp loop, ArrayRef<LoadOp> candidates,
                            unsigned numStages) {
  SmallVector<std::pair<LoadOp, SmallVector<Operation *>>> loads;
  for (LoadOp load : candidates) {
    FailureOr<SmallVector<Operation *>> slice = getAddressSlice(load, loop);
    if (succeeded(slice))
      loads.push_back({load, std::move(*slice)});
  }
  if (loads.empty())
    return loop;
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
    return loop;
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
  SmallVector<SmallVector<Operation *>> slices;
  for (auto &entry : loads)
    slices.push_back(entry.second);
  eraseUnused(slices);
  return newLoop;
}

/// A load whose tile is one operand of one dot and can be copied straight
/// into the rows that dot reads (see OperandStaging.h): A as M rows of K,
/// or B loaded as N rows of K and transposed.
struct StagedLoad {
  LoadOp load;
  SharedBufferType bufferType; // of one stage, with the stage count to set
  SmallVector<Operation *> slice;
};

/// The staged buffer type `load` would be copied into for `numStages`
/// stages, or null when the load does not qualify.
SharedBufferType getStagedType(LoadOp load, int64_t numStages) {
  if (load.getMask() || !load.getResult().hasOneUse())
    return {};
  if (auto pad = load.getPaddingAttr())
    if (!matchPattern(pad, m_Zero()) && !matchPattern(pad, m_AnyZeroFloat()))
      return {};
  Operation *user = *load.getResult().getUsers().begin();
  Value operand = load.getResult();
  unsigned index = 0;
  if (auto transpose = dyn_cast<TransposeOp>(user)) {
    if (!transpose.getResult().hasOneUse())
      return {};
    operand = transpose.getResult();
    user = *operand.getUsers().begin();
    index = 1;
  }
  auto dot = dyn_cast<DotOp>(user);
  if (!dot || dot->getOperand(index) != operand || dot.getA() == dot.getB())
    return {};
  std::optional<DotStaging> s = getDotStaging(dot);
  auto tile = cast<RankedTensorType>(load.getResult().getType());
  Type element = tile.getElementType();
  // Operands widened on the way (fp8 on sm_80) cannot be copied as bytes.
  if (!s || getScratchElementBytes(element) != s->elementBytes ||
      s->rowBytes % 16 != 0 || tile.getRank() != 2 ||
      tile.getDimSize(0) != (index == 0 ? s->m : s->n) ||
      tile.getDimSize(1) != s->k)
    return {};
  auto mma = cast<MmaLayoutAttr>(
      cast<RankedTensorType>(dot.getResult().getType()).getEncoding());
  unsigned wgmmaWarps =
      index == 0 && mma.getVersion() == 3 ? mma.getWarpsPerCTA()[0] : 0;
  MLIRContext *context = load.getContext();
  return SharedBufferType::get(
      context, {numStages, tile.getDimSize(0), tile.getDimSize(1)}, element,
      SwizzleAttr::get(context, s->swizzleBytes, wgmmaWarps));
}

/// The dots of `loop` that can run asynchronously (wgmma) under a ring of
/// `stages` stages holding `loads`: both operands read in place from the
/// ring, the accumulator carried by the loop and nothing else reading it.
/// All of the loop's ring-fed dots, or none.
template <typename StagedLoads>
SmallVector<DotOp> getAsyncCandidates(scf::ForOp loop, const StagedLoads &loads,
                                      int64_t stages) {
  if (stages < 3)
    return {};
  DenseSet<Operation *> staged;
  for (const auto &entry : loads)
    staged.insert(entry.load);
  auto isStaged = [&](Value v) {
    if (auto transpose = v.getDefiningOp<TransposeOp>())
      v = transpose.getSrc();
    return staged.contains(v.getDefiningOp());
  };
  SmallVector<DotOp> dots;
  for (DotOp dot : loop.getBody()->getOps<DotOp>()) {
    if (!isStaged(dot.getA()) && !isStaged(dot.getB()))
      continue;
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(
        cast<RankedTensorType>(dot.getResult().getType()).getEncoding());
    auto acc = dyn_cast<BlockArgument>(dot.getAcc());
    if (!mma || mma.getVersion() != 3 || !isStaged(dot.getA()) ||
        !isStaged(dot.getB()) || !acc || acc.getOwner() != loop.getBody() ||
        !acc.hasOneUse() || !dot.getResult().hasOneUse() ||
        !isa<scf::YieldOp>(*dot.getResult().getUsers().begin()))
      return {};
    dots.push_back(dot);
  }
  return dots;
}

/// Marks `dots` async: each iteration waits only for the previous
/// iteration's dot (pending 1) and the loop's result for all of them.
void makeDotsAsync(scf::ForOp loop, ArrayRef<DotOp> dots) {
  for (DotOp dot : dots) {
    dot.setAsync(true);
    OpOperand &yielded = *dot.getResult().getUses().begin();
    unsigned index = yielded.getOperandNumber();
    OpBuilder b(dot->getContext());
    b.setInsertionPointAfter(dot);
    yielded.set(DotWaitOp::create(b, dot.getLoc(), dot.getResult(), 1));
    b.setInsertionPointAfter(loop);
    Value result = loop.getResult(index);
    auto done = DotWaitOp::create(b, dot.getLoc(), result, 0);
    result.replaceAllUsesExcept(done, done);
  }
}

/// Copies the tiles of `candidates` asynchronously into rings of S staged
/// shared buffers, L iterations ahead of the dots that read them in place,
/// L = S - 1, or S - 2 when the dots run async (wgmma: the dot of the
/// previous iteration may still read its stage):
///
///   prologue: copy iterations 0 .. L-1 into stages 0 .. L-1, one group
///             per iteration
///   iteration i: wait until the group of iteration i has landed (L-1
///             newer ones may still be in flight; the wait's barrier also
///             means every thread is done with the stage read at i - 1,
///             or at i - 2 with async dots), copy iteration i + L into
///             stage (i + L) % S, read stage i % S; an async dot is
///             followed by a wait for the previous iteration's
///   after the loop: wait for every copy group and every dot.
void stageInSharedMemory(scf::ForOp loop, ArrayRef<LoadOp> candidates,
                         int64_t numStages) {
  SmallVector<StagedLoad> loads;
  int64_t stageBytes = 0;
  for (LoadOp load : candidates) {
    SharedBufferType type = getStagedType(load, numStages);
    FailureOr<SmallVector<Operation *>> slice = getAddressSlice(load, loop);
    if (!type || failed(slice) || !loop.isDefinedOutsideOfLoop(load.getView()))
      continue;
    stageBytes += getStageBytes(type);
    loads.push_back({load, type, std::move(*slice)});
  }
  if (loads.empty())
    return;
  // Fewer stages when the ring would crowd shared memory (160 KiB fits
  // sm_80's 164 KiB and leaves room for the epilogue's scratch).
  constexpr int64_t kRingBudget = 160 * 1024;
  int64_t stages = std::min<int64_t>(numStages, kRingBudget / stageBytes);
  if (stages < 2)
    return;
  MLIRContext *context = loop.getContext();
  for (StagedLoad &staged : loads) {
    SmallVector<int64_t> shape(staged.bufferType.getShape());
    shape[0] = stages;
    staged.bufferType = SharedBufferType::get(
        context, shape, staged.bufferType.getElementType(),
        staged.bufferType.getSwizzle());
  }

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value iv = loop.getInductionVar();
  Type i32 = b.getI32Type();
  auto constant = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  auto copyAt = [&](OpBuilder &b, StagedLoad &staged, Value buffer,
                    Value ivValue, Value stage) {
    IRMapping map;
    map.map(iv, ivValue);
    for (Operation *op : staged.slice)
      b.clone(*op, map);
    SmallVector<Value> offsets;
    for (Value offset : staged.load.getOffsets())
      offsets.push_back(map.lookupOrDefault(offset));
    AsyncCopyOp::create(b, loc, staged.load.getView(), offsets, buffer, stage);
  };

  SmallVector<Value> buffers;
  for (const StagedLoad &staged : loads)
    buffers.push_back(
        AllocSharedOp::create(b, loc, staged.bufferType, IntegerAttr()));
  // With async dots one more stage is still being read by the dot of the
  // previous iteration, so copies run one iteration less far ahead.
  SmallVector<DotOp> dots = getAsyncCandidates(loop, loads, stages);
  int64_t lead = stages - 1 - (dots.empty() ? 0 : 1);
  for (int64_t i = 0; i < lead; ++i) {
    Value ivValue = advance(b, loc, loop.getLowerBound(), loop.getStep(), i);
    for (auto [staged, buffer] : llvm::zip(loads, buffers))
      copyAt(b, staged, buffer, ivValue, constant(b, i));
    AsyncCommitOp::create(b, loc);
  }

  b.setInsertionPointToStart(loop.getBody());
  Value iteration = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value read = arith::RemUIOp::create(b, loc, iteration, constant(b, stages));
  Value write = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, iteration, constant(b, lead)),
      constant(b, stages));
  AsyncWaitOp::create(b, loc, lead - 1);
  Value ahead = advance(b, loc, iv, loop.getStep(), lead);
  for (auto [staged, buffer] : llvm::zip(loads, buffers))
    copyAt(b, staged, buffer, ahead, write);
  AsyncCommitOp::create(b, loc);
  for (auto [staged, buffer] : llvm::zip(loads, buffers)) {
    OpBuilder at(staged.load);
    Value tile =
        LoadStageOp::create(at, loc, staged.load.getType(), buffer, read);
    staged.load.getResult().replaceAllUsesWith(tile);
    staged.load.erase();
  }
  b.setInsertionPointAfter(loop);
  AsyncWaitOp::create(b, loc, 0);
  makeDotsAsync(loop, dots);
  SmallVector<SmallVector<Operation *>> slices;
  for (StagedLoad &staged : loads)
    slices.push_back(staged.slice);
  eraseUnused(slices);
}

void pipelineLoop(scf::ForOp loop, unsigned numStages, unsigned registerAhead) {
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator())
    if (mayWrite(&op))
      return;
  SmallVector<LoadOp> staged, queued;
  for (LoadOp load : body->getOps<LoadOp>()) {
    if (!feedsDot(load, body))
      continue;
    if (getStagedType(load, numStages))
      staged.push_back(load);
    else
      queued.push_back(load);
  }
  loop = queueInRegisters(loop, queued,
                          std::min<unsigned>(numStages, registerAhead + 1));
  stageInSharedMemory(loop, staged, numStages);
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
      pipelineLoop(loop, numStages, registerAhead);
  }
};
} // namespace
