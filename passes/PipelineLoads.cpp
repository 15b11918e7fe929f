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
// memory the loads may read: a load moved ahead of a store to the same
// view would read stale data. The one write allowed is a tile.store
// through a kernel argument marked tile.noalias that no load of the body
// reads through (the caller promised no other argument overlaps it). The
// offsets, mask and padding of a moved load may depend on the induction
// variable through side-effect-free ops of the body, which are recomputed for
// the prefetched iteration; a load that depends on another loop-carried value
// stays where it is.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/SharedMemory.h"

#include "dialect/TargetInfo.h"
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

/// The kernel argument `view`'s pointer derives from (through
/// tile.addptr), or null when it is not one.
BlockArgument getRootArgument(Value view) {
  auto make = view.getDefiningOp<MakeViewOp>();
  if (!make)
    return {};
  Value ptr = make.getPtr();
  while (auto add = ptr.getDefiningOp<AddPtrOp>())
    ptr = add.getPtr();
  auto arg = dyn_cast<BlockArgument>(ptr);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front())
    return {};
  return arg;
}

/// The view `op` writes through when it is a tile.store, tile.scatter_store
/// or tile.atomic; null otherwise.
Value getWrittenView(Operation *op) {
  if (auto store = dyn_cast<StoreOp>(op))
    return store.getView();
  if (auto scatter = dyn_cast<ScatterStoreOp>(op))
    return scatter.getView();
  if (auto atomic = dyn_cast<AtomicOp>(op))
    return atomic.getView();
  return {};
}

/// Whether the writes of `op` (an op of `body`, or ops nested in it)
/// provably miss every load of `body`: each goes to a shared buffer, or is
/// a tile.store, tile.scatter_store or tile.atomic through a tile.noalias
/// kernel argument that no load or gather of the body reads through.
bool writesApartFromLoads(Operation *op, Block *body) {
  DenseSet<BlockArgument> read;
  bool readUnknown = false;
  body->walk([&](Operation *nested) {
    Value view;
    if (auto load = dyn_cast<LoadOp>(nested))
      view = load.getView();
    else if (auto gather = dyn_cast<GatherOp>(nested))
      view = gather.getView();
    else
      return;
    if (BlockArgument from = getRootArgument(view))
      read.insert(from);
    else
      readUnknown = true;
  });
  if (readUnknown)
    return false;
  WalkResult result = op->walk([&](Operation *nested) {
    // Shared buffers are never the global memory loads read.
    if (isa<HistogramAddOp, StoreSharedOp>(nested))
      return WalkResult::advance();
    Value view = getWrittenView(nested);
    if (!view) {
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested))
        return effects.hasEffect<MemoryEffects::Write>()
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    }
    BlockArgument root = getRootArgument(view);
    if (!root || read.contains(root))
      return WalkResult::interrupt();
    auto func = cast<func::FuncOp>(root.getOwner()->getParentOp());
    return func.getArgAttr(root.getArgNumber(), TileDialect::kNoAliasAttrName)
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Whether a value of `load` reaches a tile.dot inside `body`.
bool feedsDot(Operation *load, Block *body) {
  SmallVector<Value> work(load->getResults());
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

/// Whether `op` at most reads memory (a tile.load or tile.gather of an
/// index table, say).
bool onlyReads(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && !effects.hasEffect<MemoryEffects::Write>() &&
         !effects.hasEffect<MemoryEffects::Allocate>() &&
         !effects.hasEffect<MemoryEffects::Free>();
}

/// The side-effect-free ops of `body` that `load`'s operands are computed
/// with from the induction variable `iv` and values defined outside the
/// loop, in block order; failure when an operand depends on anything else.
/// With `allowReads`, ops that read memory (page-table gathers) may be
/// part of it: the loop body writes nothing, so reading ahead is safe.
FailureOr<SmallVector<Operation *>>
getAddressSlice(Operation *load, scf::ForOp loop, bool allowReads = false) {
  Value iv = loop.getInductionVar();
  SetVector<Operation *> slice;
  SmallVector<Value> work(load->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == iv || loop.isDefinedOutsideOfLoop(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != loop.getBody() ||
        !(isMemoryEffectFree(def) || (allowReads && onlyReads(def))) ||
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
  // The new loop keeps the loop's attributes; a tile.load_ahead is spent.
  auto newLoop = cast<scf::ForOp>(*replaced);
  newLoop->removeAttr(TileDialect::kLoadAheadAttrName);
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
  /// B of a CTA pair's dot: each program stages half of the rows (see
  /// isPairedDot).
  bool paired = false;
  /// The same for every program of the kernel's cluster (tile.multicast):
  /// each copies 1/m of the boxes and multicasts them to the others.
  bool shared = false;
};

/// Whether `dot` runs on a CTA pair: a tcgen05 instruction of M = 256 over
/// the two programs' 128-row tiles (tile-assign-layouts, tile.cta_pair).
bool isPairedDot(DotOp dot) {
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(
      cast<RankedTensorType>(dot.getResult().getType()).getEncoding());
  return mma && mma.getVersion() == 5 && mma.getInstrShape()[0] == 256;
}

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
  // The programs of a CTA pair each hold half of B's rows.
  int64_t rows = tile.getDimSize(0);
  if (index == 1 && isPairedDot(dot))
    rows /= 2;
  MLIRContext *context = load.getContext();
  return SharedBufferType::get(
      context, {numStages, rows, tile.getDimSize(1)}, element,
      SwizzleAttr::get(context, s->swizzleBytes, wgmmaWarps));
}

/// Whether `dot`'s accumulator is a tcgen05 one (in tensor memory): its
/// async form completes on mbarriers (tile.dot_commit), not wait groups.
bool isTcgen05Dot(DotOp dot) {
  return isTensorMemoryLayout(
      cast<RankedTensorType>(dot.getResult().getType()).getEncoding());
}

/// The dots of `loop` that can run asynchronously (wgmma, tcgen05) under a
/// ring of `stages` stages holding `loads`: both operands read in place from
/// the ring, the accumulator carried by the loop and nothing else reading
/// it. All of the loop's ring-fed dots, or none. wgmma needs three stages
/// (one being filled, one read by the running dot, one by the previous
/// dot, which dot_wait pending 1 may leave running); tcgen05 two, since a
/// stage is refilled only after the barrier its readers commit to.
template <typename StagedLoads>
SmallVector<DotOp> getAsyncCandidates(scf::ForOp loop, const StagedLoads &loads,
                                      int64_t stages) {
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
    bool asyncVersion = (mma && mma.getVersion() == 3 && stages >= 3) ||
                        (mma && mma.getVersion() == 5 && stages >= 2);
    if (!asyncVersion || !isStaged(dot.getA()) || !isStaged(dot.getB()) ||
        !acc || acc.getOwner() != loop.getBody() || !acc.hasOneUse() ||
        !dot.getResult().hasOneUse() ||
        !isa<scf::YieldOp>(*dot.getResult().getUsers().begin()))
      return {};
    dots.push_back(dot);
  }
  // One kind of completion per loop.
  if (!dots.empty() && !llvm::all_equal(llvm::map_range(dots, isTcgen05Dot)))
    return {};
  return dots;
}

/// Marks `dots` async: each iteration waits only for the previous
/// iteration's dot (pending 1) and the loop's result for all of them.
/// tcgen05 dots instead commit to mbarrier `read` of `consumed` after the
/// iteration's dots; the ring's waits on those barriers (waitForDots) guard
/// the stages and the accumulator.
void makeDotsAsync(scf::ForOp loop, ArrayRef<DotOp> dots, Value consumed,
                   Value read, Value commitMask) {
  if (consumed) {
    for (DotOp dot : dots)
      dot.setAsync(true);
    DotOp last = *llvm::max_element(
        dots, [](DotOp a, DotOp b) { return a->isBeforeInBlock(b); });
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    DotCommitOp::create(b, loop.getLoc(), consumed, read, commitMask);
    return;
  }
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

/// The ring a loop's staged loads are copied into.
struct Ring {
  SmallVector<StagedLoad> loads;
  int64_t stages = 0;
  /// The async dots of the loop (see getAsyncCandidates).
  SmallVector<DotOp> dots;
  /// Iterations the copies run ahead of the dots: S - 1, or S - 2 when the
  /// dots run async on wgmma (the dot of the previous iteration may still
  /// read its stage); S - 1 for tcgen05 dots, whose stage is refilled once
  /// their commit says they are done with it.
  int64_t lead = 0;
  /// With tcgen05 dots: S mbarriers, one per stage, on which the dots that
  /// read the stage commit (tile.dot_commit).
  Value consumed;
  /// The persistent loop (tile-persistent) the ring's loop sits in, whose
  /// iterations (tiles) the ring runs across; null otherwise.
  scf::ForOp outer;
  /// With the dots of a CTA pair: this program's rank in the pair (i32)
  /// and whether it is the even one (i1), which waits for both programs'
  /// copies and issues the dots; null otherwise.
  Value rank, leader;
  /// Programs (or pairs) that share the `shared` loads (tile.multicast).
  int64_t multicast = 1;
  /// With shared loads: the programs this one's copies of them land in
  /// (i32 mask of cluster ranks) and which of the m parts it copies.
  Value copyMask, part;
  /// The programs whose consumed barriers each commit reaches (CTA pairs,
  /// multicast); null: this program's own.
  Value commitMask;
  /// Per load (empty: none), a tensor map that lands a whole stage in
  /// wgmma order with one box (getStageMapType), or null.
  SmallVector<Value> stageMaps;
};

/// Runs `body` at `b`'s insertion point, inside a branch taken by the pair
/// leader only when `leader` is set.
void forLeader(OpBuilder &b, Location loc, Value leader,
               function_ref<void(OpBuilder &)> body) {
  if (!leader)
    return body(b);
  auto branch = scf::IfOp::create(b, loc, TypeRange(), leader,
                                  /*withElseRegion=*/false);
  OpBuilder inside = OpBuilder::atBlockTerminator(branch.thenBlock());
  body(inside);
}

/// The persistent loop around `loop` that a ring of `loads` in it can run
/// across: `loop` sits in its body (or in a branch there: the ring's TMA
/// and cp.async versions), and the loop's bounds and the loads' views are
/// set before it (the same for every tile).
scf::ForOp getPersistentLoop(scf::ForOp loop, ArrayRef<LoadOp> loads) {
  Operation *parent = loop->getParentOp();
  if (isa<scf::IfOp>(parent))
    parent = parent->getParentOp();
  auto outer = dyn_cast<scf::ForOp>(parent);
  if (!outer || !outer->hasAttr(TileDialect::kPersistentLoopAttrName))
    return {};
  SmallVector<Value> invariant = {loop.getLowerBound(), loop.getUpperBound(),
                                  loop.getStep()};
  for (LoadOp load : loads)
    invariant.push_back(load.getView());
  for (Value v : invariant)
    if (!outer.isDefinedOutsideOfLoop(v))
      return {};
  return outer;
}

/// The ring of `loop` for the staged loads among `candidates`, or failure
/// when none qualifies or the ring would not fit.
FailureOr<Ring> planRing(scf::ForOp loop, ArrayRef<LoadOp> candidates,
                         int64_t numStages, int64_t ringBytes) {
  Ring ring;
  int64_t stageBytes = 0;
  for (LoadOp load : candidates) {
    SharedBufferType type = getStagedType(load, numStages);
    FailureOr<SmallVector<Operation *>> slice = getAddressSlice(load, loop);
    if (!type || failed(slice) || !loop.isDefinedOutsideOfLoop(load.getView()))
      continue;
    // Loads that would leave no room for two stages stay where they are
    // (in program order: the earlier loads, which the first dots wait
    // for, take the ring).
    int64_t bytes = getStageBytes(type);
    if (2 * (stageBytes + bytes) > ringBytes)
      continue;
    stageBytes += bytes;
    bool paired = type.getShape()[1] !=
                  cast<RankedTensorType>(load.getType()).getDimSize(0);
    ring.loads.push_back({load, type, std::move(*slice), paired});
  }
  if (ring.loads.empty())
    return failure();
  // Fewer stages when the ring would crowd shared memory.
  ring.stages = std::min<int64_t>(numStages, ringBytes / stageBytes);
  if (ring.stages < 2)
    return failure();
  MLIRContext *context = loop.getContext();
  for (StagedLoad &staged : ring.loads) {
    SmallVector<int64_t> shape(staged.bufferType.getShape());
    shape[0] = ring.stages;
    staged.bufferType = SharedBufferType::get(
        context, shape, staged.bufferType.getElementType(),
        staged.bufferType.getSwizzle());
  }
  ring.dots = getAsyncCandidates(loop, ring.loads, ring.stages);
  bool tcgen05 = !ring.dots.empty() && isTcgen05Dot(ring.dots.front());
  bool wgmma = !ring.dots.empty() && !tcgen05;
  ring.lead = ring.stages - 1 - (wgmma ? 1 : 0);
  // tcgen05 rings count commits per tile; tile-persistent leaves their
  // kernels alone.
  if (!tcgen05) {
    SmallVector<LoadOp> loads;
    for (const StagedLoad &staged : ring.loads)
      loads.push_back(staged.load);
    ring.outer = getPersistentLoop(loop, loads);
  }
  return ring;
}

} // namespace

bool mlir::tile::isTensorMappable(Value view) {
  auto make = view.getDefiningOp<MakeViewOp>();
  if (!make || make.getSizes().size() != 2)
    return false;
  auto func = make->getParentOfType<func::FuncOp>();
  auto isParamOrConstant = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg)
      return arg.getOwner() == &func.getBody().front();
    return matchPattern(v, m_Constant());
  };
  return isParamOrConstant(make.getPtr()) &&
         llvm::all_of(make.getSizes(), isParamOrConstant) &&
         llvm::all_of(make.getStrides(), isParamOrConstant) &&
         matchPattern(make.getStrides().back(), m_One());
}

namespace {

/// The tensor-map type TMA copies `staged`'s stages with: boxes of whole
/// rows (eight rows when they are staged in wgmma order, 1/`multicast` of
/// them when the load is shared), or null when the rows do not fill
/// exactly one swizzle span.
TensorMapType getTensorMapType(const StagedLoad &staged, int64_t multicast) {
  SharedBufferType type = staged.bufferType;
  auto swizzle = cast<SwizzleAttr>(type.getSwizzle());
  int64_t rows = type.getShape()[1], cols = type.getShape()[2];
  int64_t rowBytes = cols * getScratchElementBytes(type.getElementType());
  if (swizzle.getBytes() < 32 || rowBytes != swizzle.getBytes())
    return {};
  int64_t boxRows = swizzle.getWgmmaWarps() ? 8 : std::min<int64_t>(rows, 256);
  // A shared load's m parts: boxes of whole swizzle atoms (8 rows), or in
  // wgmma order the 8-row boxes, every m-th to each part (the copies place
  // each box where that order puts its rows).
  if (staged.shared && swizzle.getWgmmaWarps()) {
    if ((rows / boxRows) % multicast != 0)
      return {};
  } else if (staged.shared) {
    boxRows = rows / multicast;
    if (rows % multicast != 0 || boxRows % 8 != 0 || boxRows > 256)
      return {};
  }
  if (rows % boxRows != 0)
    return {};
  MLIRContext *context = type.getContext();
  return TensorMapType::get(
      context, {boxRows, cols}, type.getElementType(),
      SwizzleAttr::get(context, swizzle.getBytes(), /*wgmmaWarps=*/0));
}

Value i32Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

/// The tensor-map type that lands a whole stage of `staged` in wgmma order
/// with one box, or null when its rows are not staged in that order or the
/// load is shared (each program copies some of its 8-row boxes). The
/// TMA unit moves one such box much faster than the sixteen 8-row boxes of
/// a 128-row stage.
TensorMapType getStageMapType(const StagedLoad &staged) {
  SharedBufferType type = staged.bufferType;
  auto swizzle = cast<SwizzleAttr>(type.getSwizzle());
  int64_t rows = type.getShape()[1], cols = type.getShape()[2];
  unsigned warps = swizzle.getWgmmaWarps();
  if (warps == 0 || staged.shared || staged.paired ||
      rows % (16 * warps) != 0 || rows > 256)
    return {};
  return TensorMapType::get(type.getContext(), {rows, cols},
                            type.getElementType(), swizzle);
}

/// Copies load `i` of `ring` at `offsets` into `stage` of `buffer` through
/// `map` (its part of the boxes, to every program, when it is shared), or,
/// with a stage map, in one box through that when the stage starts at a
/// multiple of 16W rows and ends inside the view; the last, partial tile
/// of rows still moves in boxes through `map`, whose bounds zero the rows
/// past the view.
void createStageCopy(OpBuilder &b, Location loc, const Ring &ring, size_t i,
                     Value map, ValueRange offsets, Value buffer, Value stage,
                     Value barriers, UnitAttr leader) {
  const StagedLoad &staged = ring.loads[i];
  Value stageMap = ring.stageMaps.empty() ? Value() : ring.stageMaps[i];
  auto copy = [&](OpBuilder &b, Value through) {
    if (staged.shared)
      TmaCopyOp::create(b, loc, through, offsets, buffer, stage, barriers,
                        stage, ring.copyMask, ring.part,
                        b.getI64IntegerAttr(ring.multicast), leader);
    else
      TmaCopyOp::create(b, loc, through, offsets, buffer, stage, barriers,
                        stage, Value(), Value(), IntegerAttr(), leader);
  };
  if (!stageMap)
    return copy(b, map);
  LoadOp load = staged.load;
  auto view = load.getView().getDefiningOp<MakeViewOp>();
  int64_t rows = staged.bufferType.getShape()[1];
  int64_t block =
      16 * cast<SwizzleAttr>(staged.bufferType.getSwizzle()).getWgmmaWarps();
  Value row0 = offsets[0];
  Value zero = i32Constant(b, loc, 0);
  auto both = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y);
  };
  Value whole = both(
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row0, zero),
           arith::CmpIOp::create(
               b, loc, arith::CmpIPredicate::eq,
               arith::RemSIOp::create(b, loc, row0, i32Constant(b, loc, block)),
               zero)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, row0,
                            arith::SubIOp::create(b, loc, view.getSizes()[0],
                                                  i32Constant(b, loc, rows))));
  auto branch = scf::IfOp::create(b, loc, TypeRange(), whole,
                                  /*withElseRegion=*/true);
  OpBuilder inside = OpBuilder::atBlockTerminator(branch.thenBlock());
  copy(inside, stageMap);
  inside.setInsertionPoint(branch.elseBlock()->getTerminator());
  copy(inside, map);
}

/// The offsets of `staged`'s load for induction value `ivValue`, its
/// address slice cloned at `b`'s insertion point.
SmallVector<Value> cloneOffsetsAt(OpBuilder &b, StagedLoad &staged, Value iv,
                                  Value ivValue,
                                  const IRMapping &outside = {}) {
  IRMapping map = outside;
  map.map(iv, ivValue);
  for (Operation *op : staged.slice)
    b.clone(*op, map);
  SmallVector<Value> offsets;
  for (Value offset : staged.load.getOffsets())
    offsets.push_back(map.lookupOrDefault(offset));
  return offsets;
}

/// The number of iterations of `loop` (0 when it runs none), after it.
Value getTripCount(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  Value one = i32Constant(b, loc, 1);
  Value span =
      arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound());
  Value trips = arith::DivSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, span,
                            arith::SubIOp::create(b, loc, loop.getStep(), one)),
      loop.getStep());
  return arith::MaxSIOp::create(b, loc, trips, i32Constant(b, loc, 0));
}

/// The iterations the ring of `loop` ran in the tiles before this one of
/// its persistent loop `outer` (the loop's trip count plus `extra` per
/// tile), at the top of the outer loop's body.
Value getRingBase(scf::ForOp outer, scf::ForOp loop, int64_t extra) {
  OpBuilder b = OpBuilder::atBlockBegin(outer.getBody());
  Location loc = outer.getLoc();
  Value tile = arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, outer.getInductionVar(),
                            outer.getLowerBound()),
      outer.getStep());
  Value perTile = arith::AddIOp::create(b, loc, getTripCount(b, loop),
                                        i32Constant(b, loc, extra));
  return arith::MulIOp::create(b, loc, tile, perTile);
}

/// With tcgen05 dots, waits until the dot of iteration `j - S` (and every
/// earlier one) has finished: iteration d commits to barrier d % S, whose
/// phase d / S then completes. For j < S (no such dot) the wait is on
/// parity 1 of a barrier still in its first phase, which holds at once.
void waitForDots(OpBuilder &b, Location loc, const Ring &ring, Value j) {
  Value stages = i32Constant(b, loc, ring.stages);
  Value one = i32Constant(b, loc, 1);
  Value phase = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::DivUIOp::create(b, loc, j, stages),
                            one),
      one);
  MBarrierWaitOp::create(b, loc, ring.consumed,
                         arith::RemUIOp::create(b, loc, j, stages), phase);
}

/// Replaces the ring's loads by reads of stage `read`, makes its dots
/// async and erases what the moved loads leave unused.
void finishRing(scf::ForOp loop, Ring &ring, ArrayRef<Value> buffers,
                Value read) {
  for (auto [staged, buffer] : llvm::zip(ring.loads, buffers)) {
    OpBuilder at(staged.load);
    Value tile = LoadStageOp::create(
        at, staged.load.getLoc(), staged.load.getType(), buffer, read,
        staged.paired ? at.getUnitAttr() : UnitAttr());
    staged.load.getResult().replaceAllUsesWith(tile);
    staged.load.erase();
  }
  makeDotsAsync(loop, ring.dots, ring.consumed, read, ring.commitMask);
  SmallVector<SmallVector<Operation *>> slices;
  for (StagedLoad &staged : ring.loads)
    slices.push_back(staged.slice);
  eraseUnused(slices);
}

/// The iteration number `(iv - lb) / step` at the top of `loop`'s body.
Value getIterationNumber(OpBuilder &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  return arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getInductionVar(),
                            loop.getLowerBound()),
      loop.getStep());
}

/// At `b`'s insertion point, the top of `loop`'s body: waits until the
/// copies of this iteration i have landed (phase (i / S) % 2 of barrier
/// i % S of `full`, S = `stages`); returns i and the stage i % S it reads.
/// With `base`, i counts from there (the ring's iterations of earlier
/// tiles).
std::pair<Value, Value> waitForStage(OpBuilder &b, scf::ForOp loop, Value full,
                                     int64_t stages, Value base = {},
                                     Value leader = {}) {
  Location loc = loop.getLoc();
  Value count = i32Constant(b, loc, stages);
  Value iteration = getIterationNumber(b, loop);
  if (base)
    iteration = arith::AddIOp::create(b, loc, base, iteration);
  Value read = arith::RemUIOp::create(b, loc, iteration, count);
  Value phase = arith::AndIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, iteration, count),
      i32Constant(b, loc, 1));
  // Only a pair's leader waits: its barriers count both programs' copies.
  forLeader(b, loc, leader, [&](OpBuilder &b) {
    MBarrierWaitOp::create(b, loc, full, read, phase);
  });
  return {iteration, read};
}

/// Runs `copies` only where `ivValue`, the induction value of the
/// iteration they fill, is before the end of `loop` (else `otherwise`).
/// The iterations past the end are read by nobody: at the end of the
/// whole range their copies read nothing (outside the view), but a loop
/// over part of the range (tile-split-k) would read the next part's data.
void ifBeforeEnd(OpBuilder &b, Location loc, scf::ForOp loop, Value ivValue,
                 function_ref<void(OpBuilder &)> copies,
                 function_ref<void(OpBuilder &)> otherwise = {}) {
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        ivValue, loop.getUpperBound());
  auto branch = scf::IfOp::create(b, loc, TypeRange(), inRange,
                                  /*withElseRegion=*/bool(otherwise));
  OpBuilder inside = OpBuilder::atBlockTerminator(branch.thenBlock());
  copies(inside);
  if (otherwise) {
    OpBuilder other = OpBuilder::atBlockTerminator(branch.elseBlock());
    otherwise(other);
  }
}

/// Copies the ring's tiles with cp.async, L = ring.lead iterations ahead
/// of the dots that read them in place:
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
///
/// With tcgen05 dots (L = S - 1), iteration i instead ends with its dots,
/// their tile.dot_commit onto consumed barrier i % S, a wait for the
/// commit of iteration i - 1 and then the copy into the stage that
/// iteration read; after the loop, a wait for the last commit.
void emitCpAsyncRing(scf::ForOp loop, Ring &ring, ArrayRef<Value> buffers) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value iv = loop.getInductionVar();
  // In a persistent loop, threads may still read the previous tile's
  // stages that the prologue refills.
  if (ring.outer)
    BarrierOp::create(b, loc);
  for (int64_t i = 0; i < ring.lead; ++i) {
    Value ivValue = advance(b, loc, loop.getLowerBound(), loop.getStep(), i);
    ifBeforeEnd(b, loc, loop, ivValue, [&](OpBuilder &b) {
      for (auto [staged, buffer] : llvm::zip(ring.loads, buffers))
        AsyncCopyOp::create(b, loc, staged.load.getView(),
                            cloneOffsetsAt(b, staged, iv, ivValue), buffer,
                            i32Constant(b, loc, i));
    });
    AsyncCommitOp::create(b, loc);
  }

  b.setInsertionPointToStart(loop.getBody());
  Value iteration = getIterationNumber(b, loop);
  Value stages = i32Constant(b, loc, ring.stages);
  Value read = arith::RemUIOp::create(b, loc, iteration, stages);
  Value write = arith::RemUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, iteration,
                            i32Constant(b, loc, ring.lead)),
      stages);
  AsyncWaitOp::create(b, loc, ring.lead - 1);
  // tcgen05: the refill comes after this iteration's dots are issued, so
  // that the tensor cores have them queued while it waits for the dot of
  // iteration i - 1, the last to read stage (i + L) % S.
  if (ring.consumed) {
    b.setInsertionPoint(loop.getBody()->getTerminator());
    waitForDots(b, loc, ring,
                arith::AddIOp::create(b, loc, iteration,
                                      i32Constant(b, loc, ring.lead)));
  }
  Value ahead = advance(b, loc, iv, loop.getStep(), ring.lead);
  ifBeforeEnd(b, loc, loop, ahead, [&](OpBuilder &b) {
    for (auto [staged, buffer] : llvm::zip(ring.loads, buffers))
      AsyncCopyOp::create(b, loc, staged.load.getView(),
                          cloneOffsetsAt(b, staged, iv, ahead), buffer, write);
  });
  AsyncCommitOp::create(b, loc);
  b.setInsertionPointAfter(loop);
  AsyncWaitOp::create(b, loc, 0);
  // tcgen05: the last dot, and with it the accumulator, is complete.
  if (ring.consumed)
    waitForDots(b, loc, ring,
                arith::AddIOp::create(b, loc, getTripCount(b, loop),
                                      i32Constant(b, loc, ring.lead)));
  finishRing(loop, ring, buffers, read);
}

/// Copies the ring's tiles with TMA, L = ring.lead iterations ahead, each
/// stage's copies counted by its own mbarrier:
///
///   prologue: for iterations 0 .. L-1, announce the stage's bytes on its
///             barrier and start its copies
///   iteration i: wait for phase (i / S) % 2 of barrier i % S; a barrier
///             of all threads (none still reads stage (i + L) % S: it was
///             last read at i - 1, or at i - 2 by an async dot that the
///             previous iteration's dot_wait completed), then announce and
///             copy iteration i + L into stage (i + L) % S
///   after the loop: wait for the L copies still in flight, so that no
///             copy lands after the program has moved on.
///
/// With tcgen05 dots the copies move after the dots, behind a wait on the
/// consumed barriers, as in emitCpAsyncRing.
///
/// With the dots of a CTA pair (ring.leader), both programs copy their own
/// A rows and their half of B's rows (rank·N/2 on), every copy counting
/// on the leader's barrier of the stage; the leader alone announces the
/// bytes of both and waits for them, and the dots' commits arrive on both
/// programs' consumed barriers, which each waits on before refilling its
/// own stage.
///
/// With shared loads (tile.multicast: m programs, or pairs, of a cluster
/// along y read the same tile), each program copies part `ring.part` of
/// the tile's boxes into the stage of all of them (ring.copyMask); every
/// program still receives and announces its whole stage. Its consumed
/// barriers count the commits of all m issuers, whose dots read what this
/// program copies, so that no stage is refilled while any of them reads it.
void emitTmaRing(scf::ForOp loop, Ring &ring, ArrayRef<Value> buffers,
                 ArrayRef<Value> maps, Value barriers) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Value iv = loop.getInductionVar();
  int64_t stageBytes = 0;
  for (const StagedLoad &staged : ring.loads)
    stageBytes += getStageBytes(staged.bufferType);
  UnitAttr toLeader = ring.leader ? b.getUnitAttr() : UnitAttr();
  auto copyStage = [&](OpBuilder &b, Value ivValue, Value stage) {
    forLeader(b, loc, ring.leader, [&](OpBuilder &b) {
      MBarrierExpectOp::create(b, loc, barriers, stage,
                               ring.leader ? 2 * stageBytes : stageBytes);
    });
    for (auto [i, staged, buffer, map] :
         llvm::enumerate(ring.loads, buffers, maps)) {
      SmallVector<Value> offsets = cloneOffsetsAt(b, staged, iv, ivValue);
      if (staged.paired)
        offsets[0] = arith::AddIOp::create(
            b, loc, offsets[0],
            arith::MulIOp::create(
                b, loc, ring.rank,
                i32Constant(b, loc, staged.bufferType.getShape()[1])));
      createStageCopy(b, loc, ring, i, map, offsets, buffer, stage, barriers,
                      toLeader);
    }
  };
  // A stage past the loop's end is filled by nothing: its phase completes
  // on the arrival alone. (Every program of a pair or cluster runs the
  // same iterations, so they agree on which stages those are.)
  auto copyIteration = [&](OpBuilder &b, Value ivValue, Value stage) {
    ifBeforeEnd(
        b, loc, loop, ivValue,
        [&](OpBuilder &b) { copyStage(b, ivValue, stage); },
        [&](OpBuilder &b) {
          forLeader(b, loc, ring.leader, [&](OpBuilder &b) {
            MBarrierExpectOp::create(b, loc, barriers, stage, 0);
          });
        });
  };
  Value stages = i32Constant(b, loc, ring.stages);
  Value one = i32Constant(b, loc, 1);
  // In a persistent loop the ring's iterations count on from the previous
  // tile's, each tile taking its trip count plus the L copies past its end
  // (so that barrier phases stay in step), and no thread may still read a
  // stage the prologue refills.
  Value base;
  if (ring.outer) {
    base = getRingBase(ring.outer, loop, ring.lead);
    BarrierOp::create(b, loc);
  }
  for (int64_t i = 0; i < ring.lead; ++i) {
    Value stage = i32Constant(b, loc, i);
    if (base)
      stage = arith::RemUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, base, stage), stages);
    copyIteration(b, advance(b, loc, loop.getLowerBound(), loop.getStep(), i),
                  stage);
  }

  b.setInsertionPointToStart(loop.getBody());
  auto [iteration, read] =
      waitForStage(b, loop, barriers, ring.stages, base, ring.leader);
  BarrierOp::create(b, loc);
  // tcgen05: the refill comes after this iteration's dots are issued (see
  // emitCpAsyncRing).
  if (ring.consumed) {
    b.setInsertionPoint(loop.getBody()->getTerminator());
    waitForDots(b, loc, ring,
                arith::AddIOp::create(b, loc, iteration,
                                      i32Constant(b, loc, ring.lead)));
  }
  Value write = arith::RemUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, iteration,
                            i32Constant(b, loc, ring.lead)),
      stages);
  copyIteration(b, advance(b, loc, iv, loop.getStep(), ring.lead), write);

  // The copies of iterations n .. n + L - 1 (n the trip count) are still
  // in flight after the loop.
  b.setInsertionPointAfter(loop);
  Value trips = getTripCount(b, loop);
  // tcgen05: the last dot, and with it the accumulator, is complete.
  if (ring.consumed)
    waitForDots(
        b, loc, ring,
        arith::AddIOp::create(b, loc, trips, i32Constant(b, loc, ring.lead)));
  Value last = base ? arith::AddIOp::create(b, loc, base, trips) : trips;
  forLeader(b, loc, ring.leader, [&](OpBuilder &b) {
    for (int64_t j = 0; j < ring.lead; ++j) {
      Value it = arith::AddIOp::create(b, loc, last, i32Constant(b, loc, j));
      MBarrierWaitOp::create(
          b, loc, barriers, arith::RemUIOp::create(b, loc, it, stages),
          arith::AndIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, it, stages), one));
    }
  });
  finishRing(loop, ring, buffers, read);
}

/// The ops of persistent loop `outer`'s body that the offsets of `ring`'s
/// copies depend on (the tile's coordinates, say), in order; failure when
/// one of them is not a plain computation that a producer can repeat.
FailureOr<SmallVector<Operation *>> getTileInputs(const Ring &ring,
                                                  scf::ForOp outer) {
  SetVector<Operation *> inputs;
  SmallVector<Value> pending;
  for (StagedLoad staged : ring.loads) {
    llvm::append_range(pending, staged.load.getOffsets());
    for (Operation *op : staged.slice)
      llvm::append_range(pending, op->getOperands());
  }
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != outer.getBody() || !inputs.insert(def))
      continue;
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return failure();
    llvm::append_range(pending, def->getOperands());
  }
  SmallVector<Operation *> ordered(inputs.begin(), inputs.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Register budgets of a warp-specialized kernel of `consumerWarps` warps
/// plus a producer warpgroup: none while the block has at most 256 threads
/// (each may then hold 255 registers), else the producer's 40 and what is
/// left for each consumer, in setmaxnreg's multiples of 8.
std::optional<std::pair<int64_t, int64_t>>
getSpecializedRegisters(int64_t consumerWarps) {
  constexpr int64_t kFileRegisters = 65536, kProducerRegisters = 40;
  int64_t consumers = 32 * consumerWarps;
  if (consumers + 128 <= 256)
    return std::nullopt;
  int64_t left = (kFileRegisters - 128 * kProducerRegisters) / consumers;
  return std::make_pair(kProducerRegisters,
                        std::min<int64_t>(256, left / 8 * 8));
}

/// Feeds the TMA ring of `loop` (the then-branch of `version`, at the top
/// level of its kernel) from a producer warp:
///
///   tile.warp_specialize {
///     if aligned: for each iteration i: wait until the consumers released
///       stage i % S (phase ((i / S) + 1) % 2 of empty barrier i % S, which
///       holds at once while i < S), announce its bytes on full barrier
///       i % S and copy iteration i into it
///   } consumers {
///     version (then: iteration i waits for phase (i / S) % 2 of full
///       barrier i % S, runs its dots and releases the stage the retired
///       dot read: i - 1's after a dot_wait pending 1, i's for synchronous
///       dots) and the rest of the kernel
///   }
///
/// Every consumer thread arrives, so the empty barriers count the consumer
/// threads; the producer issues exactly the loop's iterations, so nothing
/// is in flight after it.
///
/// With tcgen05 dots the stages are released by the dots themselves: the
/// tile.dot_commit of iteration i arrives on consumed barrier i % S once
/// its dots are done, and the producer waits on that barrier instead of an
/// empty one (the same phase). Since only the dots' issuing thread then
/// gates the refills, the consumers pass a barrier of their own after each
/// wait, so that none falls two phases of a full barrier behind; after the
/// loop they wait for the last commit, which completes the accumulator.
///
/// With shared loads (tile.multicast on a wgmma ring: m programs of a
/// cluster along y read the same tile), each producer copies part `rank`
/// of a shared load's boxes into the stages of all m programs, and every
/// program still announces its whole stage on its own full barrier. A
/// stage may be refilled only once the consumers of every program are
/// done with it: each consumer warp releases it on the empty barrier of
/// every program of the cluster (`across m`: lane l on program l's), whose
/// count is then the consumer warps of all m programs. The last iteration's
/// stage is released after the loop too, and the producer, before it leaves,
/// waits until the last S iterations are released: after that no program writes
/// this one's stages or arrives on its barriers. A cluster barrier after the
/// barriers' init keeps any copy or arrival from reaching a barrier not yet
/// initialized.
///
/// In a persistent loop the producer walks the same tiles, recomputing
/// what the copies' offsets need of each (getTileInputs), and iteration i
/// counts on from the earlier tiles' trip counts: the producer fills the
/// next tile's first stages while the consumers finish the last one, and
/// the stage of a tile's last dot is released after the next tile's first.
void emitWarpSpecializedRing(scf::ForOp loop, Ring &ring,
                             ArrayRef<Value> buffers, ArrayRef<Value> maps,
                             Value full, scf::IfOp version) {
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  Operation *anchor = ring.outer ? ring.outer.getOperation() : version;
  auto func = cast<func::FuncOp>(anchor->getParentOp());
  int64_t consumerWarps = getNumWarps(func);
  OpBuilder b(anchor);
  Value empty = ring.consumed;
  if (!empty) {
    empty = AllocSharedOp::create(b, loc,
                                  SharedBufferType::get(context, {ring.stages},
                                                        b.getI64Type(),
                                                        Attribute()),
                                  IntegerAttr());
    // One arrival per consumer thread; with multicast one per consumer
    // warp of every program of the cluster (`across m`).
    MBarrierInitOp::create(b, loc, empty,
                           ring.multicast > 1 ? consumerWarps * ring.multicast
                                              : 32 * consumerWarps);
  }
  // Multicast: every barrier of the cluster is initialized before any
  // program copies into another's stages or releases another's.
  if (ring.multicast > 1)
    ClusterBarrierOp::create(b, loc);

  Value stages = i32Constant(b, loc, ring.stages);
  Value one = i32Constant(b, loc, 1);
  Value zero = i32Constant(b, loc, 0);
  std::optional<std::pair<int64_t, int64_t>> registers =
      getSpecializedRegisters(consumerWarps);
  auto specialize = WarpSpecializeOp::create(
      b, loc, b.getI32IntegerAttr(4),
      registers ? b.getI32IntegerAttr(registers->first) : IntegerAttr(),
      registers ? b.getI32IntegerAttr(registers->second) : IntegerAttr());
  if (registers) {
    // The block's cap, which setmaxnreg then redistributes.
    int64_t cap = 65536 / (32 * consumerWarps + 128) / 8 * 8;
    auto current =
        func->getAttrOfType<IntegerAttr>(TileDialect::kMaxRegistersAttrName);
    if (!current || current.getInt() > cap)
      func->setAttr(TileDialect::kMaxRegistersAttrName,
                    b.getI32IntegerAttr(cap));
  }
  Block *producer = b.createBlock(&specialize.getProducer());
  Block *consumers = b.createBlock(&specialize.getConsumers());
  // The consumers take the rest of the kernel.
  Operation *end = anchor->getBlock()->getTerminator();
  consumers->getOperations().splice(consumers->end(),
                                    anchor->getBlock()->getOperations(),
                                    anchor->getIterator(), end->getIterator());

  int64_t stageBytes = 0;
  for (const StagedLoad &staged : ring.loads)
    stageBytes += getStageBytes(staged.bufferType);

  b.setInsertionPointToStart(producer);
  auto aligned = scf::IfOp::create(b, loc, TypeRange(), version.getCondition(),
                                   /*withElseRegion=*/false);
  b.setInsertionPointToStart(aligned.thenBlock());
  IRMapping tileInputs;
  Value producerBase, consumerBase;
  if (scf::ForOp outer = ring.outer) {
    auto tiles = scf::ForOp::create(b, loc, outer.getLowerBound(),
                                    outer.getUpperBound(), outer.getStep());
    b.setInsertionPointToStart(tiles.getBody());
    tileInputs.map(outer.getInductionVar(), tiles.getInductionVar());
    FailureOr<SmallVector<Operation *>> inputs = getTileInputs(ring, outer);
    assert(succeeded(inputs) && "canSpecialize checked the tile's inputs");
    for (Operation *op : *inputs)
      b.clone(*op, tileInputs);
    consumerBase = getRingBase(outer, loop, 0);
    producerBase = getRingBase(tiles, loop, 0);
  }
  auto copies = scf::ForOp::create(b, loc, loop.getLowerBound(),
                                   loop.getUpperBound(), loop.getStep());
  b.setInsertionPointToStart(copies.getBody());
  Value iv = copies.getInductionVar();
  Value iteration = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  if (producerBase)
    iteration = arith::AddIOp::create(b, loc, producerBase, iteration);
  Value stage = arith::RemUIOp::create(b, loc, iteration, stages);
  Value released = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, iteration, stages), one),
      one);
  MBarrierWaitOp::create(b, loc, empty, stage, released);
  MBarrierExpectOp::create(b, loc, full, stage, stageBytes);
  for (auto [i, staged, buffer, map] :
       llvm::enumerate(ring.loads, buffers, maps)) {
    SmallVector<Value> offsets =
        cloneOffsetsAt(b, staged, loop.getInductionVar(), iv, tileInputs);
    createStageCopy(b, loc, ring, i, map, offsets, buffer, stage, full,
                    UnitAttr());
  }
  // Multicast: the program may leave only once no other program will
  // write its stages or arrive on its barriers: the consumers of all of
  // them have released the last S iterations (the same waits as for
  // iterations n .. n + S - 1, those before 0 holding at once).
  if (ring.multicast > 1) {
    b.setInsertionPointAfter(copies);
    Value trips = getTripCount(b, copies);
    for (int64_t j = 0; j < ring.stages; ++j) {
      Value it = arith::AddIOp::create(b, loc, trips, i32Constant(b, loc, j));
      MBarrierWaitOp::create(
          b, loc, empty, arith::RemUIOp::create(b, loc, it, stages),
          arith::AndIOp::create(
              b, loc,
              arith::AddIOp::create(
                  b, loc, arith::DivUIOp::create(b, loc, it, stages), one),
              one));
    }
  }

  b.setInsertionPointToStart(loop.getBody());
  auto [consumed, read] =
      waitForStage(b, loop, full, ring.stages, consumerBase);
  bool asyncDots = !ring.dots.empty();
  if (ring.consumed)
    BarrierOp::create(b, loc);
  finishRing(loop, ring, buffers, read);
  if (ring.consumed) {
    // The dot of the last iteration, n - 1, completes the accumulator:
    // waitForDots(j) waits for iteration j - S.
    b.setInsertionPointAfter(loop);
    waitForDots(b, loc, ring,
                arith::AddIOp::create(b, loc, getTripCount(b, loop),
                                      i32Constant(b, loc, ring.stages - 1)));
    return;
  }
  // With multicast each consumer warp releases the stage in every program
  // of the cluster (lane l in program l's), so that every program's empty
  // barrier hears from every warp of the cluster.
  IntegerAttr across =
      ring.multicast > 1 ? b.getI64IntegerAttr(ring.multicast) : IntegerAttr();
  b.setInsertionPoint(loop.getBody()->getTerminator());
  if (!asyncDots) {
    MBarrierArriveOp::create(b, loc, empty, read, across);
    return;
  }
  if (across) {
    // The last iteration's stage, released after the loop's final
    // dot_wait, so that the producers' last waits complete.
    Operation *after = loop;
    while (isa_and_nonnull<DotWaitOp>(after->getNextNode()))
      after = after->getNextNode();
    OpBuilder tail(after->getContext());
    tail.setInsertionPointAfter(after);
    Value trips = getTripCount(tail, loop);
    auto ran = scf::IfOp::create(
        tail, loc, TypeRange(),
        arith::CmpIOp::create(tail, loc, arith::CmpIPredicate::ugt, trips,
                              zero),
        /*withElseRegion=*/false);
    tail.setInsertionPointToStart(ran.thenBlock());
    Value last = arith::RemUIOp::create(
        tail, loc, arith::SubIOp::create(tail, loc, trips, one), stages);
    MBarrierArriveOp::create(tail, loc, empty, last, across);
  }
  // After this iteration's dot_wait pending 1, the previous iteration's dot
  // is done with its stage.
  auto hasPrevious = scf::IfOp::create(
      b, loc, TypeRange(),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, consumed, zero),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(hasPrevious.thenBlock());
  Value previous = arith::RemUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, consumed,
                            arith::SubIOp::create(b, loc, stages, one)),
      stages);
  MBarrierArriveOp::create(b, loc, empty, previous, across);
}

/// Whether `func` already holds a warp specialization (of another ring).
bool hasWarpSpecialization(func::FuncOp func) {
  bool found = false;
  func.walk([&](WarpSpecializeOp) { found = true; });
  return found;
}

/// Whether the TMA version `version` of a ring's loop can take a producer
/// warp: it sits in its kernel's body, which holds no other
/// specialization. (Rings of CTA pairs and multicast groups, which are not
/// versioned, never get here.)
bool canSpecialize(scf::IfOp version, Ring &ring) {
  Operation *anchor = ring.outer ? ring.outer.getOperation() : version;
  auto func = dyn_cast<func::FuncOp>(anchor->getParentOp());
  if (!func || (ring.outer && failed(getTileInputs(ring, ring.outer))))
    return false;
  return !hasWarpSpecialization(func);
}

/// Whether `values` are the same for every program of a cluster (which
/// lies along grid y): none depends on the program's y coordinate or
/// cluster rank, or on an enclosing loop whose bounds do.
bool isUniformOverCluster(SmallVector<Value> pending) {
  DenseSet<Value> seen;
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // An enclosing loop's induction variable varies as its bounds do.
      // Kernel parameters are the same for every program.
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<func::FuncOp>(owner))
        continue;
      auto outer = dyn_cast<scf::ForOp>(owner);
      if (!outer || arg != outer.getInductionVar())
        return false;
      pending.append(
          {outer.getLowerBound(), outer.getUpperBound(), outer.getStep()});
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (auto id = dyn_cast<ProgramIdOp>(def); id && id.getDim() == GridDim::Y)
      return false;
    if (isa<ClusterRankOp>(def) || !isMemoryEffectFree(def))
      return false;
    llvm::append_range(pending, def->getOperands());
  }
  return true;
}

/// Whether the programs of a cluster (a CTA pair, a multicast group) run
/// `loop` for the same iterations and copy the same B rows of a pair in it.
bool isUniformOverCluster(scf::ForOp loop, MutableArrayRef<StagedLoad> loads) {
  SmallVector<Value> values = {loop.getLowerBound(), loop.getUpperBound(),
                               loop.getStep()};
  for (StagedLoad &staged : loads)
    if (staged.paired)
      llvm::append_range(values, staged.load.getOffsets());
  return isUniformOverCluster(std::move(values));
}

/// Stages the dot operands `candidates` loads in shared memory: a ring of
/// buffers filled asynchronously ahead of the dots. With `tma`, when every
/// staged view can be described by a tensor map, the loop is versioned on
/// tile.view_aligned: TMA copies when the views are 16-byte aligned (what
/// tensor maps need), cp.async (with its element-wise fallback) otherwise,
/// both into the same buffers.
void stageInSharedMemory(scf::ForOp loop, ArrayRef<LoadOp> candidates,
                         int64_t numStages, int64_t ringBytes, bool tma,
                         bool specialize, bool stageBox) {
  FailureOr<Ring> ring = planRing(loop, candidates, numStages, ringBytes);
  if (failed(ring))
    return;
  bool paired = llvm::any_of(ring->dots, isPairedDot);
  bool tcgen05 = !ring->dots.empty() && isTcgen05Dot(ring->dots.front());
  // tile.multicast: the loads that are the same for every program of the
  // cluster are shared by tcgen05 rings, whose consumed barriers can count
  // the other programs' dots, and by warp-specialized wgmma rings, whose
  // consumers release each stage on the "empty" barriers of every program
  // of the cluster (emitWarpSpecializedRing).
  auto func = loop->getParentOfType<func::FuncOp>();
  bool wgmmaShared = !tcgen05 && !ring->dots.empty() && tma && specialize &&
                     !ring->outer && loop->getParentOp() == func &&
                     !hasWarpSpecialization(func);
  bool multicast = false;
  if ((tcgen05 || wgmmaShared) && getMulticast(func) > 1) {
    ring->multicast = getMulticast(func);
    for (StagedLoad &staged : ring->loads) {
      staged.shared =
          isUniformOverCluster(SmallVector<Value>(staged.load.getOffsets()));
      multicast |= staged.shared;
    }
    // Nothing shared: the ring is this program's own (its consumed
    // barriers count its own commits only).
    if (!multicast)
      ring->multicast = 1;
  }
  // The tensor maps of the ring's loads (boxes of 1/m of the rows for
  // shared ones); whether every load has one.
  SmallVector<TensorMapType> mapTypes;
  auto planMaps = [&] {
    mapTypes.clear();
    for (StagedLoad &staged : ring->loads) {
      TensorMapType type = getTensorMapType(staged, ring->multicast);
      if (tma && type && isTensorMappable(staged.load.getView()))
        mapTypes.push_back(type);
    }
    return mapTypes.size() == ring->loads.size();
  };
  bool allMapped = planMaps();
  // The ring of a CTA pair or a multicast group runs on TMA alone (the
  // leader's barriers count the other program's copies; copies land in
  // other programs), with every program of the cluster copying the same B
  // rows for the same iterations; otherwise the dot stays unpipelined (a
  // pair's) or copies nothing for others, which the pass reports.
  bool clustered = paired || (multicast && tcgen05);
  if (clustered && (!allMapped || !isUniformOverCluster(loop, ring->loads)))
    return;
  // A wgmma ring shares its loads only in its TMA version's producer, all
  // of whose copies must map; the programs of the cluster agree on the
  // version (it tests kernel parameters alone).
  if (multicast && !tcgen05 &&
      (!allMapped || !isUniformOverCluster(loop, ring->loads))) {
    multicast = false;
    ring->multicast = 1;
    for (StagedLoad &staged : ring->loads)
      staged.shared = false;
    allMapped = planMaps();
  }
  Location loc = loop.getLoc();
  // Buffers, barriers and tensor maps are set up once, before a persistent
  // loop the ring runs across.
  OpBuilder b(ring->outer ? ring->outer.getOperation() : loop.getOperation());
  SmallVector<Value> buffers;
  for (const StagedLoad &staged : ring->loads)
    buffers.push_back(
        AllocSharedOp::create(b, loc, staged.bufferType, IntegerAttr()));
  MLIRContext *context = loop.getContext();
  auto barrierBuffer = [&](int64_t arrivals) -> Value {
    Value barriers = AllocSharedOp::create(
        b, loc,
        SharedBufferType::get(context, {ring->stages}, b.getI64Type(),
                              Attribute()),
        IntegerAttr());
    MBarrierInitOp::create(b, loc, barriers, arrivals);
    return barriers;
  };
  // Consumed barriers: one tcgen05.commit per phase of each of the m
  // programs (pair leaders) whose dots read the stage's copies.
  if (tcgen05)
    ring->consumed = barrierBuffer(ring->multicast);
  if (!allMapped)
    return emitCpAsyncRing(loop, *ring, buffers);

  SmallVector<Value> maps, views, stageMaps;
  for (auto [staged, type] : llvm::zip(ring->loads, mapTypes)) {
    views.push_back(staged.load.getView());
    maps.push_back(MakeTensorMapOp::create(b, loc, type, views.back()));
    TensorMapType stageType =
        stageBox ? getStageMapType(staged) : TensorMapType();
    stageMaps.push_back(
        stageType ? MakeTensorMapOp::create(b, loc, stageType, views.back())
                  : Value());
  }
  // Full barriers: one arrival per phase, thread 0's (the leader's)
  // expect_tx.
  Value barriers = barrierBuffer(1);
  if (clustered) {
    // The cluster's programs lie along y, a pair's two next to each other:
    // rank = pair index · 2 + rank in the pair.
    Value rank = ClusterRankOp::create(b, loc);
    int64_t pairSize = paired ? 2 : 1;
    if (paired) {
      ring->rank = arith::AndIOp::create(b, loc, rank, i32Constant(b, loc, 1));
      ring->leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           ring->rank, i32Constant(b, loc, 0));
    }
    int64_t programs = pairSize * ring->multicast;
    if (multicast) {
      // Part j goes to the programs of the same rank in each pair.
      int64_t sameRank = 0;
      for (int64_t j = 0; j < ring->multicast; ++j)
        sameRank |= int64_t(1) << (j * pairSize);
      ring->part =
          arith::DivUIOp::create(b, loc, rank, i32Constant(b, loc, pairSize));
      ring->copyMask = i32Constant(b, loc, sameRank);
      if (paired)
        ring->copyMask =
            arith::ShLIOp::create(b, loc, ring->copyMask, ring->rank);
      // Every program copies into stages some issuer of the cluster reads.
      ring->commitMask = i32Constant(b, loc, (int64_t(1) << programs) - 1);
    } else {
      // The pair's two programs: 3 << (rank & ~1).
      ring->commitMask = arith::ShLIOp::create(
          b, loc, i32Constant(b, loc, 3),
          arith::AndIOp::create(b, loc, rank, i32Constant(b, loc, ~1)));
    }
    // Every barrier of the cluster is initialized before any program
    // copies or commits to another's.
    ClusterBarrierOp::create(b, loc);
    ring->stageMaps = stageMaps;
    return emitTmaRing(loop, *ring, buffers, maps, barriers);
  }
  Value aligned = ViewAlignedOp::create(b, loc, views);
  b.setInsertionPoint(loop);
  auto version = scf::IfOp::create(b, loc, loop.getResultTypes(), aligned,
                                   /*withElseRegion=*/true);
  // Both versions start as copies of the loop, whose staged loads sit at
  // the same positions of the body.
  SmallVector<int64_t> positions;
  for (const StagedLoad &staged : ring->loads)
    positions.push_back(std::distance(loop.getBody()->begin(),
                                      staged.load->getIterator()));
  auto cloneInto = [&](Block *block) {
    OpBuilder inside = OpBuilder::atBlockBegin(block);
    auto copy = cast<scf::ForOp>(inside.clone(*loop));
    scf::YieldOp::create(inside, loc, copy.getResults());
    SmallVector<LoadOp> loads;
    for (int64_t position : positions)
      loads.push_back(
          cast<LoadOp>(*std::next(copy.getBody()->begin(), position)));
    FailureOr<Ring> copyRing = planRing(copy, loads, numStages, ringBytes);
    assert(succeeded(copyRing) &&
           copyRing->loads.size() == ring->loads.size() &&
           "a copy of the loop stages as the loop does");
    copyRing->consumed = ring->consumed;
    return std::make_pair(copy, std::move(*copyRing));
  };
  if (version.thenBlock()->mightHaveTerminator())
    version.thenBlock()->getTerminator()->erase();
  if (version.elseBlock()->mightHaveTerminator())
    version.elseBlock()->getTerminator()->erase();
  auto [tmaLoop, tmaRing] = cloneInto(version.thenBlock());
  auto [copyLoop, copyRing] = cloneInto(version.elseBlock());
  loop.replaceAllUsesWith(version.getResults());
  loop.erase();
  emitCpAsyncRing(copyLoop, copyRing, buffers);
  if (multicast) {
    // Program `rank` of the cluster copies part `rank` of each shared
    // load's boxes into the stages of all of them.
    tmaRing.multicast = ring->multicast;
    for (auto [staged, planned] : llvm::zip(tmaRing.loads, ring->loads))
      staged.shared = planned.shared;
    b.setInsertionPoint(version);
    tmaRing.part = ClusterRankOp::create(b, loc);
    tmaRing.copyMask = i32Constant(b, loc, (int64_t(1) << ring->multicast) - 1);
    assert(canSpecialize(version, tmaRing) && "checked by wgmmaShared");
  }
  tmaRing.stageMaps = stageMaps;
  if (specialize && canSpecialize(version, tmaRing))
    emitWarpSpecializedRing(tmaLoop, tmaRing, buffers, maps, barriers, version);
  else
    emitTmaRing(tmaLoop, tmaRing, buffers, maps, barriers);
}

//===----------------------------------------------------------------------===//
// Gathers staged through cp.async rings
//===----------------------------------------------------------------------===//

/// The staged buffer type of `gather` (a tile.gather of a rank-2 view) for
/// `numStages` stages when its tile is one operand of one mma.sync-or-
/// later dot, laid out as that dot reads it: A as M rows of K, B gathered
/// as N rows of K and transposed, or B gathered as K rows of N (the rows
/// of V in attention: the tile as it lies in memory), which mma.sync reads
/// with ldmatrix.trans; null when it does not qualify.
SharedBufferType getGatherStagedType(GatherOp gather, int64_t numStages) {
  if (gather.getIndices().size() != 2 || !gather.getResult().hasOneUse() ||
      gather.getIndices()[0].getType() != gather.getIndices()[1].getType())
    return {};
  Operation *user = *gather.getResult().getUsers().begin();
  Value operand = gather.getResult();
  bool transposed = false;
  if (auto transpose = dyn_cast<TransposeOp>(user)) {
    if (!transpose.getResult().hasOneUse())
      return {};
    operand = transpose.getResult();
    user = *operand.getUsers().begin();
    transposed = true;
  }
  auto dot = dyn_cast<DotOp>(user);
  if (!dot || dot.getA() == dot.getB() || dot.getAcc() == operand)
    return {};
  unsigned index = dot.getA() == operand ? 0 : 1;
  if (transposed && index != 1)
    return {};
  std::optional<DotStaging> s = getDotStaging(dot);
  auto tile = cast<RankedTensorType>(gather.getResult().getType());
  Type element = tile.getElementType();
  if (!s || getScratchElementBytes(element) != s->elementBytes ||
      tile.getRank() != 2)
    return {};
  MLIRContext *context = gather.getContext();
  auto mma = cast<MmaLayoutAttr>(
      cast<RankedTensorType>(dot.getResult().getType()).getEncoding());
  if (index == 1 && !transposed) {
    // K rows of N: only mma.sync's ldmatrix.trans reads them, 16-bit.
    int64_t rowBytes = s->n * s->elementBytes;
    if (mma.getVersion() != 2 || s->elementBytes != 2 ||
        tile.getDimSize(0) != s->k || tile.getDimSize(1) != s->n ||
        rowBytes % 16 != 0 || !llvm::isPowerOf2_64(rowBytes))
      return {};
    return SharedBufferType::get(
        context, {numStages, s->k, s->n}, element,
        SwizzleAttr::get(context, getSwizzleBytes(rowBytes), 0));
  }
  if (s->rowBytes % 16 != 0 ||
      tile.getDimSize(0) != (index == 0 ? s->m : s->n) ||
      tile.getDimSize(1) != s->k)
    return {};
  unsigned wgmmaWarps =
      index == 0 && mma.getVersion() == 3 ? mma.getWarpsPerCTA()[0] : 0;
  return SharedBufferType::get(
      context, {numStages, tile.getDimSize(0), tile.getDimSize(1)}, element,
      SwizzleAttr::get(context, s->swizzleBytes, wgmmaWarps));
}

/// One tile copied into a ring: a staged tile.load (as tile.async_copy) or
/// tile.gather (as tile.async_gather), with the body's ops its offsets or
/// indices are computed with.
struct StagedCopy {
  Operation *op;
  SharedBufferType bufferType;
  SmallVector<Operation *> slice;
};

/// The ops of the address slices of `copies`, in block order.
SmallVector<Operation *> getSlicesUnion(ArrayRef<StagedCopy> copies) {
  SetVector<Operation *> ops;
  for (const StagedCopy &staged : copies)
    ops.insert(staged.slice.begin(), staged.slice.end());
  SmallVector<Operation *> ordered = ops.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Clones `ops` (in order) at `b`'s insertion point through `map`, but for
/// those whose results `map` already holds.
void cloneUnmapped(OpBuilder &b, ArrayRef<Operation *> ops, IRMapping &map) {
  for (Operation *op : ops)
    if (!map.contains(op->getResult(0)))
      b.clone(*op, map);
}

/// Starts the copy of `staged` into stage `stage` of `buffer`, its offsets
/// or indices taken through `map` (its slice cloned there).
void emitCopy(OpBuilder &b, Location loc, const StagedCopy &staged,
              const IRMapping &map, Value buffer, Value stage) {
  SmallVector<Value> operands;
  if (auto load = dyn_cast<LoadOp>(staged.op)) {
    for (Value offset : load.getOffsets())
      operands.push_back(map.lookupOrDefault(offset));
    AsyncCopyOp::create(b, loc, load.getView(), operands, buffer, stage);
    return;
  }
  auto gather = cast<GatherOp>(staged.op);
  for (Value index : gather.getIndices())
    operands.push_back(map.lookupOrDefault(index));
  AsyncGatherOp::create(b, loc, gather.getView(), operands, buffer, stage);
}

/// Stages the dot operands that `gathers` (and the staged `loads` of the
/// same loop) produce in one cp.async ring, so that the copies of the next
/// iterations are in flight, without holding registers, while an
/// iteration computes. The dots stay synchronous (mma.sync), so copies
/// run L = S - 1 iterations ahead:
///
///   prologue: copy iterations 0 .. L-1 into stages 0 .. L-1, one group
///             per iteration
///   iteration i: compute the indices of iteration i + L, wait until the
///             group of iteration i has landed (its barrier also means
///             that no thread still reads stage (i + L) % S, last read at
///             i - 1), copy iteration i + L into that stage, read stage
///             i % S
///   after the loop: wait for every copy group.
///
/// Index-table reads in the indices (the page table of paged attention)
/// run one iteration further ahead: iteration i reads the table entries of
/// iteration i + L + 1 and carries them to the next iteration, so that a
/// copy never waits for the table read it depends on. The prologue reads
/// the entries of iterations 0 .. L, all before its first copy.
///
/// Copies past the last iteration are bounds-checked by their views (a
/// gather's rows outside the view are zero-filled without being read).
/// Returns whether the loop was changed.
bool stageGathersInSharedMemory(scf::ForOp loop, ArrayRef<GatherOp> gathers,
                                ArrayRef<LoadOp> loads, int64_t numStages,
                                int64_t ringBytes) {
  SmallVector<StagedCopy> copies;
  int64_t stageBytes = 0;
  bool anyGather = false;
  for (GatherOp gather : gathers) {
    SharedBufferType type = getGatherStagedType(gather, numStages);
    FailureOr<SmallVector<Operation *>> slice =
        getAddressSlice(gather, loop, /*allowReads=*/true);
    if (!type || failed(slice) ||
        !loop.isDefinedOutsideOfLoop(gather.getView()))
      continue;
    anyGather = true;
    stageBytes += getStageBytes(type);
    copies.push_back({gather, type, std::move(*slice)});
  }
  if (!anyGather)
    return false;
  for (LoadOp load : loads) {
    SharedBufferType type = getStagedType(load, numStages);
    FailureOr<SmallVector<Operation *>> slice =
        getAddressSlice(load, loop, /*allowReads=*/true);
    if (!type || failed(slice) || !loop.isDefinedOutsideOfLoop(load.getView()))
      continue;
    stageBytes += getStageBytes(type);
    copies.push_back({load, type, std::move(*slice)});
  }
  int64_t stages = std::min<int64_t>(numStages, ringBytes / stageBytes);
  if (stages < 2)
    return false;
  int64_t lead = stages - 1;

  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  OpBuilder b(loop);
  Value iv = loop.getInductionVar();
  SmallVector<Value> buffers;
  for (StagedCopy &staged : copies) {
    SmallVector<int64_t> shape(staged.bufferType.getShape());
    shape[0] = stages;
    staged.bufferType = SharedBufferType::get(
        context, shape, staged.bufferType.getElementType(),
        staged.bufferType.getSwizzle());
    buffers.push_back(
        AllocSharedOp::create(b, loc, staged.bufferType, IntegerAttr()));
  }
  // The slices' index-table reads and what they are computed from (the
  // page of each token, say): `early`, cloned one iteration ahead of the
  // rest of the slices.
  SmallVector<Operation *> slices = getSlicesUnion(copies);
  SetVector<Operation *> early;
  for (Operation *op : llvm::reverse(slices)) {
    bool needed = !isMemoryEffectFree(op) ||
                  llvm::any_of(op->getUsers(), [&](Operation *user) {
                    return early.contains(user);
                  });
    if (needed)
      early.insert(op);
  }
  SmallVector<Operation *> earlyOps(early.begin(), early.end());
  llvm::sort(earlyOps,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  SmallVector<Value> reads;
  for (Operation *op : earlyOps)
    if (!isMemoryEffectFree(op))
      llvm::append_range(reads, op->getResults());

  // Prologue: the index-table reads of iterations 0 .. L (L + 1 without
  // any), then the copies of iterations 0 .. L - 1.
  SmallVector<IRMapping> maps;
  int64_t readAhead = reads.empty() ? lead : lead + 1;
  for (int64_t i = 0; i < readAhead; ++i) {
    maps.emplace_back();
    maps.back().map(iv,
                    advance(b, loc, loop.getLowerBound(), loop.getStep(), i));
    cloneUnmapped(b, earlyOps, maps.back());
  }
  for (int64_t i = 0; i < lead; ++i) {
    cloneUnmapped(b, slices, maps[i]);
    for (auto [staged, buffer] : llvm::zip(copies, buffers))
      emitCopy(b, loc, staged, maps[i], buffer, i32Constant(b, loc, i));
    AsyncCommitOp::create(b, loc);
  }
  // The reads of iteration L enter the loop as carried values, yielded
  // (below) by each iteration for the next.
  SmallVector<Value> readQueue;
  if (!reads.empty()) {
    SmallVector<Value> inits;
    for (Value read : reads)
      inits.push_back(maps[lead].lookup(read));
    IRRewriter rewriter(context);
    rewriter.setInsertionPoint(loop);
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> queue) {
          return SmallVector<Value>(queue.begin(), queue.end());
        });
    // An scf.for always takes more yields; the prologue is already out.
    assert(succeeded(replaced) && "scf.for takes additional yields");
    loop = cast<scf::ForOp>(*replaced);
    iv = loop.getInductionVar();
    ArrayRef<BlockArgument> args = loop.getRegionIterArgs();
    readQueue.assign(args.end() - reads.size(), args.end());
  }

  b.setInsertionPointToStart(loop.getBody());
  Value iteration = getIterationNumber(b, loop);
  Value stageCount = i32Constant(b, loc, stages);
  Value read = arith::RemUIOp::create(b, loc, iteration, stageCount);
  Value write = arith::RemUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, iteration, i32Constant(b, loc, lead)),
      stageCount);
  Value ahead = advance(b, loc, iv, loop.getStep(), lead);
  IRMapping map;
  map.map(iv, ahead);
  if (!reads.empty()) {
    // The table entries of iteration i + L + 1, for the next iteration.
    IRMapping further;
    further.map(iv, advance(b, loc, iv, loop.getStep(), lead + 1));
    cloneUnmapped(b, earlyOps, further);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    unsigned first = yield.getNumOperands() - reads.size();
    for (auto [index, value] : llvm::enumerate(reads)) {
      yield.setOperand(first + index, further.lookup(value));
      map.map(value, readQueue[index]);
    }
  }
  // Without a queue the copies' indices come first, so that an index-table
  // read is in flight during the wait; the wait then comes right before
  // the copies.
  cloneUnmapped(b, slices, map);
  AsyncWaitOp::create(b, loc, lead - 1);
  for (auto [staged, buffer] : llvm::zip(copies, buffers))
    emitCopy(b, loc, staged, map, buffer, write);
  AsyncCommitOp::create(b, loc);
  b.setInsertionPointAfter(loop);
  AsyncWaitOp::create(b, loc, 0);

  // The dots read the stage of the iteration in place.
  for (auto [staged, buffer] : llvm::zip(copies, buffers)) {
    OpBuilder at(staged.op);
    Value tile =
        LoadStageOp::create(at, staged.op->getLoc(),
                            staged.op->getResult(0).getType(), buffer, read);
    staged.op->getResult(0).replaceAllUsesWith(tile);
    staged.op->erase();
  }
  eraseUnused({slices});
  return true;
}

void pipelineLoop(scf::ForOp loop, unsigned numStages, int64_t ringBytes,
                  unsigned registerAhead, bool tma, bool specialize,
                  bool stageBox) {
  // A loop's own tile.load_ahead queues all of its loads in registers.
  int64_t loadAhead = 0;
  if (auto attr =
          loop->getAttrOfType<IntegerAttr>(TileDialect::kLoadAheadAttrName))
    loadAhead = attr.getInt();
  // A kernel's tile.num_stages of 1 leaves its other loops alone.
  if (numStages < 2 && loadAhead == 0)
    return;
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (mayWrite(&op) && !writesApartFromLoads(&op, body)) {
      if (loadAhead > 0)
        loop.emitWarning() << "'" << TileDialect::kLoadAheadAttrName
                           << "' ignored: the loop writes memory its loads "
                              "may read";
      return;
    }
  }
  if (loadAhead > 0) {
    SmallVector<LoadOp> loads(body->getOps<LoadOp>());
    scf::ForOp queued = queueInRegisters(loop, loads, loadAhead + 1);
    if (queued == loop)
      loop.emitWarning() << "'" << TileDialect::kLoadAheadAttrName
                         << "' ignored: no load's offsets follow the "
                            "induction variable";
    return;
  }
  SmallVector<LoadOp> staged, queued;
  for (LoadOp load : body->getOps<LoadOp>()) {
    if (!feedsDot(load, body))
      continue;
    if (getStagedType(load, numStages))
      staged.push_back(load);
    else
      queued.push_back(load);
  }
  SmallVector<GatherOp> gathers;
  for (GatherOp gather : body->getOps<GatherOp>())
    if (getGatherStagedType(gather, numStages))
      gathers.push_back(gather);
  // Index-table loads that a staged gather's indices read stay put: the
  // gather ring reads them ahead itself (a queued load would make the
  // indices loop-carried, which the ring cannot clone).
  DenseSet<Operation *> indexReads;
  for (GatherOp gather : gathers)
    if (FailureOr<SmallVector<Operation *>> slice =
            getAddressSlice(gather, loop, /*allowReads=*/true);
        succeeded(slice))
      indexReads.insert(slice->begin(), slice->end());
  llvm::erase_if(queued,
                 [&](LoadOp load) { return indexReads.contains(load); });
  loop = queueInRegisters(loop, queued,
                          std::min<unsigned>(numStages, registerAhead + 1));
  // Gathers of dot operands take the loop's ring (cp.async: a TMA box
  // cannot follow an index table row by row).
  if (!gathers.empty() &&
      stageGathersInSharedMemory(loop, gathers, staged, numStages, ringBytes))
    return;
  stageInSharedMemory(loop, staged, numStages, ringBytes, tma, specialize,
                      stageBox);
}

struct PipelineLoadsPass
    : public tile::impl::TilePipelineLoadsBase<PipelineLoadsPass> {
  using TilePipelineLoadsBase::TilePipelineLoadsBase;
  void runOnOperation() override {
    // Staging reads every offset and view extent as an operand.
    materializeIndexLists(getOperation());
    bool tma = false;
    // Rings take what the target's shared memory holds less 32 KiB for the
    // epilogue's scratch; without a target, what fits sm_80's 164 KiB.
    int64_t ringBytes = 160 * 1024;
    int64_t maxShared = 164 * 1024;
    if (!target.empty()) {
      std::optional<TargetInfo> info = TargetInfo::get(target);
      if (!info) {
        getOperation().emitError() << "unknown target '" << target << "'";
        return signalPassFailure();
      }
      tma = info->hasTma();
      maxShared = info->getMaxSharedBytes();
      ringBytes = std::max(ringBytes, maxShared - 32 * 1024);
    }
    struct Plan {
      scf::ForOp loop;
      unsigned stages;
      bool specialize;
      int64_t ringBytes;
    };
    SmallVector<Plan> loops;
    getOperation().walk([&](func::FuncOp func) {
      if (!isKernel(func))
        return;
      // A kernel's own stage count (a template parameter, say) wins.
      unsigned stages = numStages;
      if (auto attr =
              func->getAttrOfType<IntegerAttr>(TileDialect::kNumStagesAttrName))
        stages = attr.getInt();
      bool specialize = warpSpecialize;
      if (auto attr = func->getAttrOfType<BoolAttr>(
              TileDialect::kWarpSpecializeAttrName))
        specialize = attr.getValue();
      // A kernel whose other shared memory (dot operands staged from
      // registers, layout conversions) exceeds what the rings leave keeps
      // that much out of them, on every target.
      int64_t kernelRingBytes = ringBytes;
      if (auto attr = func->getAttrOfType<IntegerAttr>(
              TileDialect::kSharedReserveAttrName))
        kernelRingBytes =
            std::min<int64_t>(ringBytes, maxShared - attr.getInt());
      // Buffers the kernel already has (a staged epilogue's, say) stay out
      // of the rings, and so does the scratch of its other ops (dots are
      // left out: their operands are about to be read in place), with
      // 2 KiB for barriers and alignment.
      int64_t allocated = 0, scratch = 0;
      func.walk([&](Operation *op) {
        if (auto alloc = dyn_cast<AllocSharedOp>(op))
          allocated += getSharedBufferBytes(alloc.getResult().getType());
        else if (!isa<DotOp>(op))
          scratch = std::max(scratch, getScratchBytes(op));
      });
      if (allocated > 0)
        kernelRingBytes = std::min<int64_t>(
            kernelRingBytes, maxShared - allocated - scratch - 2048);
      func.walk([&](scf::ForOp loop) {
        loops.push_back({loop, stages, specialize, kernelRingBytes});
      });
    });
    for (const Plan &plan : loops)
      pipelineLoop(plan.loop, plan.stages, plan.ringBytes, registerAhead, tma,
                   plan.specialize, wgmmaStageBox);
    // A CTA pair's dot runs only as the TMA ring's async dot.
    WalkResult unpaired =
        getOperation().walk([](DotOp dot) {
          if (!isPairedDot(dot) || dot.getAsync())
            return WalkResult::advance();
          dot.emitOpError()
              << "of a CTA pair (tile.cta_pair) must be pipelined with TMA: "
                 "num-stages of 2 or more, both operands loaded in its K loop "
                 "from views a tensor map describes, and the loop's bounds and "
                 "B's offsets the same for both programs of the pair (not "
                 "depending on tile.program_id y)";
          return WalkResult::interrupt();
        });
    if (unpaired.wasInterrupted())
      return signalPassFailure();
    // tile.multicast asks for an operand shared by the cluster. Without
    // TMA (tma=false, or a target without it) nothing can be, and each
    // program of the cluster loads its own tiles, as the source says.
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!tma || !isKernel(func) || getMulticast(func) == 1)
        continue;
      WalkResult shared = func.walk([](TmaCopyOp copy) {
        return copy.getMulticast() ? WalkResult::interrupt()
                                   : WalkResult::advance();
      });
      if (shared.wasInterrupted())
        continue;
      func.emitError()
          << "tile.multicast: no operand is shared by the cluster; it needs "
             "a tcgen05 dot pipelined with TMA, or a wgmma dot in a "
             "warp-specialized TMA ring at the top of its kernel (not "
             "persistent), whose K loop loads an operand "
             "that is the same for every program of the cluster (not "
             "depending on tile.program_id y), with loop bounds that are "
             "too, in parts of whole 8-row boxes";
      return signalPassFailure();
    }
  }
};
} // namespace
