//===- AssignLayouts.cpp - choose a thread layout for every tile ---------===//

#include "passes/Passes.h"

#include "dialect/TargetInfo.h"

#include "dialect/TileLayouts.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

RankedTensorType withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

bool needsLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && !tensor.getEncoding();
}

/// Splits `numWarps` between the M and N extents of a dot's M×N tile so
/// that each warp's share is a whole number of m16n8 fragments and the
/// warp reads the fewest operand rows (M/wm + N/wn); ties go to more warps
/// along M. None when the tile is too small for the warps.
std::optional<std::pair<unsigned, unsigned>>
chooseMmaWarps(int64_t m, int64_t n, unsigned numWarps) {
  std::optional<std::pair<unsigned, unsigned>> best;
  int64_t bestCost = 0;
  for (unsigned wm = 1; wm <= numWarps; wm *= 2) {
    unsigned wn = numWarps / wm;
    if (m % (16 * wm) != 0 || n % (8 * wn) != 0)
      continue;
    int64_t cost = m / wm + n / wn;
    if (!best || cost <= bestCost) {
      best = {wm, wn};
      bestCost = cost;
    }
  }
  return best;
}

/// The instruction shape (M, N, K) of the mma.sync a dot of `elementType`
/// operands uses on `target`: m16n8k16 for 16-bit types; m16n8k8 for f32
/// (multiplied as tf32); m16n8k32 for fp8 where the target multiplies fp8
/// (sm_89 and later), otherwise m16n8k16 on operands widened to bf16.
SmallVector<unsigned> getMmaSyncInstr(Type elementType, StringRef target) {
  if (elementType.isF32())
    return {16, 8, 8};
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(elementType);
  std::optional<TargetInfo> info = TargetInfo::get(target);
  if (fp8 && info && info->hasFp8MmaSync())
    return {16, 8, 32};
  return {16, 8, 16};
}

class LayoutAssigner {
public:
  LayoutAssigner(func::FuncOp func, unsigned numWarps, StringRef target)
      : func(func), numWarps(numWarps), target(target) {}

  LogicalResult run() {
    if (failed(chooseAccumulatorLayouts()) || failed(checkCtaPair()))
      return failure();
    WalkResult result = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      return failed(visit(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

private:
  Attribute defaultLayout(Type type) {
    auto tensor = cast<RankedTensorType>(type);
    unsigned bits =
        std::max(8u, tensor.getElementType().getIntOrFloatBitWidth());
    return getDefaultLayout(func.getContext(), tensor.getShape(), bits,
                            numWarps);
  }

  /// Makes `operand` of `op` carry exactly `type`, converting if needed.
  void convertOperand(OpOperand &operand, Type type) {
    if (operand.get().getType() == type)
      return;
    OpBuilder builder(operand.getOwner());
    Value converted = ConvertLayoutOp::create(
        builder, operand.getOwner()->getLoc(), type, operand.get());
    operand.set(converted);
  }

  /// Counting pairs each value with its mask bit in the same thread.
  template <typename HistogramLike>
  void alignMaskWithValues(HistogramLike histogram) {
    if (Value mask = histogram.getMask())
      convertOperand(histogram.getMaskMutable()[0],
                     withLayout(mask.getType(), layoutOf(histogram.getSrc())));
  }

  void setLayout(Value value, Attribute layout) {
    value.setType(withLayout(value.getType(), layout));
  }

  void setDefault(Value value) {
    auto it = preferred.find(value);
    setLayout(value, it != preferred.end() ? it->second
                                           : defaultLayout(value.getType()));
  }

  /// The accumulator layout of every dot, and the layout the initial value
  /// of a loop-carried accumulator is created in (so that the loop carries
  /// the accumulator in registers without converting it each iteration).
  LogicalResult chooseAccumulatorLayouts() {
    WalkResult result = func.walk([&](DotOp dot) {
      auto acc = cast<RankedTensorType>(dot.getAcc().getType());
      auto a = cast<RankedTensorType>(dot.getA().getType());
      if (MmaLayoutAttr tcgen05 = chooseTcgen05Layout(dot, acc, a)) {
        hasTensorMemoryAccumulator = true;
        recordAccumulatorLayout(dot, tcgen05);
        return WalkResult::advance();
      }
      if (MmaLayoutAttr wgmma = chooseWgmmaLayout(acc, a)) {
        recordAccumulatorLayout(dot, wgmma);
        return WalkResult::advance();
      }
      auto warps =
          chooseMmaWarps(acc.getDimSize(0), acc.getDimSize(1), numWarps);
      if (!warps) {
        dot.emitOpError() << "a " << acc.getDimSize(0) << "x"
                          << acc.getDimSize(1) << " accumulator cannot be "
                          << "split over " << numWarps
                          << " warps in m16n8 fragments; use M a multiple "
                             "of 16 and N of 8 per warp, or fewer warps";
        return WalkResult::interrupt();
      }
      recordAccumulatorLayout(
          dot, MmaLayoutAttr::get(func.getContext(), 2,
                                  {warps->first, warps->second},
                                  getMmaSyncInstr(a.getElementType(), target)));
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// A kernel that asks for CTA pairs must have got a tcgen05 accumulator:
  /// pairs exist only for the fifth-generation tensor cores.
  LogicalResult checkCtaPair() {
    if (!tile::isCtaPair(func) || hasTensorMemoryAccumulator)
      return success();
    std::optional<TargetInfo> info = TargetInfo::get(target);
    if (!info || !info->hasTcgen05())
      return func.emitError() << "tile.cta_pair needs a target with tcgen05 "
                                 "(sm_100a), not '"
                              << target << "'";
    return func.emitError()
           << "tile.cta_pair needs a GEMM-shaped dot that runs on tcgen05 "
              "(M = 128 rows, a zero accumulator carried by its K loop)";
  }

  /// On sm_90a, the warpgroup instruction wgmma (version 3) when the dot
  /// fits it: every warpgroup of four warps takes whole m64 row blocks and
  /// the full N (at most 256, a multiple of 8) of each, and a staged operand
  /// row (K elements) spans one swizzle pattern of 32, 64 or 128 bytes.
  MmaLayoutAttr chooseWgmmaLayout(RankedTensorType acc, RankedTensorType a) {
    std::optional<TargetInfo> info = TargetInfo::get(target);
    if (!info || !info->hasWgmma() || numWarps % 4 != 0)
      return {};
    Type element = a.getElementType();
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(element);
    if (!fp8 && !element.isBF16() && !element.isF16())
      return {};
    int64_t m = acc.getDimSize(0), n = acc.getDimSize(1);
    int64_t k = a.getDimSize(1), rowBytes = k * (fp8 ? 1 : 2);
    unsigned instrK = fp8 ? 32 : 16;
    if (m % (16 * int64_t(numWarps)) != 0 || n % 8 != 0 || n > 256 ||
        k % instrK != 0 || !llvm::isPowerOf2_64(rowBytes) || rowBytes < 32 ||
        rowBytes > 128)
      return {};
    return MmaLayoutAttr::get(func.getContext(), 3, {numWarps, 1},
                              {64, unsigned(n), instrK});
  }

  /// On sm_100a, tcgen05 (version 5, accumulator in tensor memory) for the
  /// one GEMM-shaped dot of a kernel it fits: M = 128 rows on the lanes of
  /// tensor memory, N a multiple of 16 up to 256 split over the warps in
  /// blocks of a power of two columns (the tcgen05.ld layout), 16-bit or
  /// fp8 operand rows of 32-128 bytes, f32 accumulation, and the
  /// accumulator a zero-initialized value carried by an scf.for through
  /// this dot alone, with operands loaded in the loop, so that
  /// tile-pipeline-loads can stage both operands and make the dot async
  /// (unpipelined, the lowering runs it synchronously). Only one such
  /// accumulator per kernel: they all start at tensor-memory column 0.
  MmaLayoutAttr chooseTcgen05Layout(DotOp dot, RankedTensorType acc,
                                    RankedTensorType a) {
    std::optional<TargetInfo> info = TargetInfo::get(target);
    if (!info || !info->hasTcgen05() || numWarps % 4 != 0 ||
        hasTensorMemoryAccumulator)
      return {};
    Type element = a.getElementType();
    bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(element);
    if (!fp8 && !element.isBF16() && !element.isF16())
      return {};
    if (!acc.getElementType().isF32() ||
        cast<RankedTensorType>(dot.getB().getType()).getElementType() !=
            element)
      return {};
    int64_t m = acc.getDimSize(0), n = acc.getDimSize(1);
    int64_t k = a.getDimSize(1), rowBytes = k * (fp8 ? 1 : 2);
    unsigned instrK = fp8 ? 32 : 16;
    unsigned columnWarps = numWarps / 4;
    if (m != 128 || n % 16 != 0 || n > 256 || n % columnWarps != 0 ||
        !llvm::isPowerOf2_64(n / columnWarps) || k % instrK != 0 ||
        !llvm::isPowerOf2_64(rowBytes) || rowBytes < 32 || rowBytes > 128)
      return {};
    // The accumulator: a loop-carried value, zero before the loop, used by
    // this dot only, whose result goes back to the loop and nowhere else.
    auto arg = dyn_cast<BlockArgument>(dot.getAcc());
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                    : scf::ForOp();
    if (!loop || arg.getArgNumber() == 0 || !arg.hasOneUse() ||
        dot->getParentOp() != loop || !dot.getResult().hasOneUse())
      return {};
    unsigned index = arg.getArgNumber() - 1;
    auto yield = dyn_cast<scf::YieldOp>(*dot.getResult().getUsers().begin());
    if (!yield || yield.getOperand(index) != dot.getResult() ||
        !matchPattern(loop.getInitArgs()[index], m_AnyZeroFloat()))
      return {};
    // Both operands come from loads of this loop (B through a transpose).
    auto loaded = [&](Value v) {
      if (auto transpose = v.getDefiningOp<TransposeOp>())
        v = transpose.getSrc();
      auto load = v.getDefiningOp<LoadOp>();
      return load && load->getParentOp() == loop;
    };
    if (!loaded(dot.getA()) || !loaded(dot.getB()))
      return {};
    // A CTA pair's instruction covers both programs' rows (cta_group::2).
    return MmaLayoutAttr::get(
        func.getContext(), 5, {4, columnWarps},
        {tile::isCtaPair(func) ? 256u : 128u, unsigned(n), instrK});
  }

  /// Gives `dot` the accumulator layout `layout`, and follows its
  /// accumulator back through loop-carried arguments to the value that
  /// starts it, which is then created in that layout.
  void recordAccumulatorLayout(DotOp dot, MmaLayoutAttr layout) {
    dotLayouts[dot] = layout;
    Value init = dot.getAcc();
    while (auto arg = dyn_cast<BlockArgument>(init)) {
      auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!forOp || arg.getArgNumber() == 0)
        break;
      init = forOp.getInitArgs()[arg.getArgNumber() - 1];
    }
    if (!isa<BlockArgument>(init))
      preferred.try_emplace(init, layout);
  }

  LogicalResult visit(Operation *op) {
    if (isa<func::FuncOp>(op))
      return success();
    // A tensor-memory accumulator is read into registers (tcgen05.ld)
    // before anything but dots and the loop carrying it uses it.
    if (hasTensorMemoryAccumulator &&
        !isa<DotOp, scf::ForOp, scf::YieldOp, ConvertLayoutOp>(op))
      for (OpOperand &operand : op->getOpOperands()) {
        auto tensor = dyn_cast<RankedTensorType>(operand.get().getType());
        if (tensor && isTensorMemoryLayout(tensor.getEncoding()))
          convertOperand(
              operand, withLayout(tensor, getTmemLoadLayout(cast<MmaLayoutAttr>(
                                              tensor.getEncoding()))));
      }
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return visitFor(forOp);
    if (auto yield = dyn_cast<scf::YieldOp>(op))
      return visitYield(yield);
    if (isa<scf::IfOp>(op))
      return success(); // Result types come from the yields.
    if (isa<scf::WhileOp>(op) && llvm::any_of(op->getResultTypes(), [](Type t) {
          return isa<RankedTensorType>(t);
        }))
      return op->emitOpError("carrying tiles through scf.while is not "
                             "supported yet; use scf.for");

    if (auto store = dyn_cast<StoreOp>(op))
      return visitStore(store);
    if (auto store = dyn_cast<StoreSharedOp>(op))
      return visitStore(store);
    if (auto store = dyn_cast<ScatterStoreOp>(op)) {
      // Each thread writes the elements it holds: indices and mask travel
      // with them.
      Attribute layout = layoutOf(store.getValue());
      for (OpOperand &index : store.getIndicesMutable())
        convertOperand(index, withLayout(index.get().getType(), layout));
      if (Value mask = store.getMask())
        convertOperand(store.getMaskMutable()[0],
                       withLayout(mask.getType(), layout));
      return success();
    }
    if (auto histogram = dyn_cast<HistogramAddOp>(op)) {
      alignMaskWithValues(histogram);
      return success();
    }
    if (llvm::none_of(op->getResultTypes(), needsLayout))
      return success();

    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      return visitConstant(constant);
    if (auto scatter = dyn_cast<ScatterOp>(op))
      return visitScatter(scatter);
    if (auto histogram = dyn_cast<HistogramOp>(op)) {
      alignMaskWithValues(histogram);
      setDefault(histogram.getResult());
      return success();
    }
    if (auto load = dyn_cast<LoadOp>(op))
      return visitLoad(load);
    if (auto load = dyn_cast<LoadSharedOp>(op))
      return visitLoad(load);
    if (auto dot = dyn_cast<DotOp>(op)) {
      Attribute layout = dotLayouts.lookup(dot);
      setLayout(dot.getResult(), layout);
      convertOperand(dot.getAccMutable(),
                     withLayout(dot.getAcc().getType(), layout));
      return success();
    }
    if (auto transpose = dyn_cast<TransposeOp>(op))
      return visitTranspose(transpose);
    // A stage read in place by dots: its registers are never used.
    if (auto gather = dyn_cast<GatherOp>(op)) {
      // Each thread reads the elements it holds: indices travel with them.
      setDefault(gather.getResult());
      Attribute layout = layoutOf(gather.getResult());
      for (OpOperand &index : gather.getIndicesMutable())
        convertOperand(index, withLayout(index.get().getType(), layout));
      return success();
    }
    if (isa<IotaOp, SplatOp, LoadStageOp>(op)) {
      for (Value result : op->getResults())
        setDefault(result);
      return success();
    }
    if (auto reduce = dyn_cast<ReduceOp>(op))
      return visitReduce(reduce);
    if (auto expand = dyn_cast<ExpandDimsOp>(op))
      return visitInsertDim(expand.getSrcMutable(), expand.getResult(),
                            expand.getDim());
    if (auto broadcast = dyn_cast<BroadcastOp>(op);
        broadcast && broadcast.getAlong())
      return visitInsertDim(broadcast.getSrcMutable(), broadcast.getResult(),
                            *broadcast.getAlong());
    if (isa<BroadcastOp, ScanOp, SortOp, AtomicOp, ConvertLayoutOp, DotWaitOp>(
            op) ||
        op->getDialect()->getNamespace() == "arith" ||
        op->getDialect()->getNamespace() == "math")
      return visitFollowOperands(op);
    return op->emitOpError("cannot assign a tile layout to its results");
  }

  /// Whether the innermost stride of `view` is 1 or not known: rows are
  /// then (taken to be) contiguous, as the default layouts assume.
  static bool mayHaveContiguousRows(Value view) {
    auto make = view.getDefiningOp<MakeViewOp>();
    APInt stride;
    return !make || make.getStrides().empty() ||
           !matchPattern(make.getStrides().back(), m_ConstantInt(&stride)) ||
           stride.isOne();
  }

  /// Stores (to views or shared buffers) keep the value's layout; masks
  /// are read element by element alongside the values. A tile whose
  /// threads hold runs down a column (a transposed tile) is first converted
  /// to the default layout for a store to a global view with contiguous
  /// rows: otherwise each element is a store of its own to a different row.
  template <typename StoreT> LogicalResult visitStore(StoreT store) {
    auto type = cast<RankedTensorType>(store.getValue().getType());
    auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(type.getEncoding());
    if (auto global = dyn_cast<StoreOp>(store.getOperation());
        global && blocked && type.getRank() >= 2 &&
        blocked.getOrder().front() != type.getRank() - 1 &&
        blocked.getSizePerThread()[blocked.getOrder().front()] > 1 &&
        mayHaveContiguousRows(global.getView()))
      convertOperand(store.getValueMutable(),
                     withLayout(type, defaultLayout(type)));
    if (Value mask = store.getMask())
      convertOperand(store.getMaskMutable()[0],
                     withLayout(mask.getType(), layoutOf(store.getValue())));
    return success();
  }

  /// Whether `value` is a 16-bit load's tile widened (arith.extf of a
  /// global or shared load) of the shape `shape`.
  static bool isWidenedNarrowLoad(Value value, ArrayRef<int64_t> shape) {
    auto ext = value.getDefiningOp<arith::ExtFOp>();
    if (!ext)
      return false;
    Operation *load = ext.getIn().getDefiningOp();
    auto narrow = dyn_cast<RankedTensorType>(ext.getIn().getType());
    return load && isa<LoadOp, LoadSharedOp>(load) && narrow &&
           narrow.getShape() == shape &&
           narrow.getElementType().getIntOrFloatBitWidth() == 16;
  }

  /// Whether the tile `root`, followed at most `depth` element-wise ops or
  /// scans down, is combined with a widened 16-bit load's tile of its
  /// shape.
  static bool meetsWidenedNarrowLoad(Value root, ArrayRef<int64_t> shape,
                                     unsigned depth) {
    if (depth == 0)
      return false;
    for (Operation *user : root.getUsers()) {
      bool elementwise =
          isElementwiseArith(user) ||
          (user->getDialect() && user->getDialect()->getNamespace() == "math" &&
           user->getNumResults() == 1);
      if (!elementwise && !isa<ScanOp>(user))
        continue;
      if (elementwise && llvm::any_of(user->getOperands(), [&](Value other) {
            return other != root && isWidenedNarrowLoad(other, shape);
          }))
        return true;
      auto result = dyn_cast<RankedTensorType>(user->getResult(0).getType());
      if (result && result.getShape() == shape &&
          meetsWidenedNarrowLoad(user->getResult(0), shape, depth - 1))
        return true;
    }
    return false;
  }

  /// A load of 32-bit elements whose tile (through element-wise ops and
  /// scans) meets a widened 16-bit load's tile of the same shape takes that
  /// tile's layout, eight consecutive elements a thread (two 16-byte
  /// vectors, still coalesced): otherwise every tile computed from it
  /// converts through shared memory where the two meet.
  void narrowPartnerLayout(Value result) {
    auto type = cast<RankedTensorType>(result.getType());
    if (preferred.count(result) || type.getRank() < 2 ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementType().getIntOrFloatBitWidth() != 32 ||
        !meetsWidenedNarrowLoad(result, type.getShape(), /*depth=*/6))
      return;
    setLayout(result, getDefaultLayout(func.getContext(), type.getShape(),
                                       /*bits=*/16, numWarps));
  }

  /// Loads produce the default layout; the mask follows it.
  template <typename LoadT> LogicalResult visitLoad(LoadT load) {
    setDefault(load.getResult());
    narrowPartnerLayout(load.getResult());
    if (Value mask = load.getMask())
      convertOperand(load.getMaskMutable()[0],
                     withLayout(mask.getType(), layoutOf(load.getResult())));
    return success();
  }

  /// What converting `value` to another layout moves: nothing for a tile
  /// every thread rebuilds itself, one row or column for a broadcast along
  /// a dimension (canonicalization converts its operand instead), the
  /// whole tile otherwise.
  static int moveCost(Value value) {
    if (isRematerializable(value))
      return 0;
    auto broadcast = value.getDefiningOp<BroadcastOp>();
    if (broadcast && broadcast.getAlong())
      return 1;
    return 2;
  }

  /// Element-wise style ops: results take the layout of the operand that
  /// is most expensive to move (the first of equals); other operands are
  /// converted to it.
  LogicalResult visitFollowOperands(Operation *op) {
    Attribute layout;
    int bestCost = -1;
    for (Value operand : op->getOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(operand.getType());
      if (!tensor || !tensor.getEncoding())
        continue;
      int cost = moveCost(operand);
      if (cost > bestCost) {
        layout = tensor.getEncoding();
        bestCost = cost;
      }
    }
    if (isa<BroadcastOp>(op) && layout) {
      // Keep a broadcast's layout only if it suits the result shape.
      auto blocked = dyn_cast<BlockedLayoutAttr>(layout);
      if (!blocked)
        layout = {};
    }
    auto scan = dyn_cast<ScanOp>(op);
    for (Value result : op->getResults()) {
      if (!isa<RankedTensorType>(result.getType()) ||
          (scan && result == scan.getTotal()))
        continue;
      setLayout(result, layout ? layout : defaultLayout(result.getType()));
    }
    // A scan's total (of a tile of rank 2 or more) is the slice of its
    // layout along the scanned dimension, as a reduction's result.
    if (scan && scan.getTotal() &&
        isa<RankedTensorType>(scan.getTotal().getType()))
      setLayout(scan.getTotal(),
                SliceLayoutAttr::get(func.getContext(), scan.getDim(),
                                     layoutOf(scan.getResult())));
    Attribute resultLayout =
        cast<RankedTensorType>(op->getResult(0).getType()).getEncoding();
    for (OpOperand &operand : op->getOpOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!tensor || isa<ConvertLayoutOp>(op))
        continue;
      if (isa<AtomicOp>(op) || isa<SortOp>(op) || isa<ScanOp>(op) ||
          isa<BroadcastOp>(op) ||
          tensor.getShape() ==
              cast<RankedTensorType>(op->getResult(0).getType()).getShape())
        convertOperand(operand, withLayout(tensor, resultLayout));
    }
    return success();
  }

  static Attribute layoutOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getEncoding();
  }

  /// The result keeps the destination's layout; indices and mask travel
  /// with the source elements they belong to.
  LogicalResult visitScatter(ScatterOp scatter) {
    Attribute srcLayout = layoutOf(scatter.getSrc());
    convertOperand(scatter.getIndicesMutable(),
                   withLayout(scatter.getIndices().getType(), srcLayout));
    if (Value mask = scatter.getMask())
      convertOperand(scatter.getMaskMutable()[0],
                     withLayout(mask.getType(), srcLayout));
    setLayout(scatter.getResult(), layoutOf(scatter.getDest()));
    return success();
  }

  /// The attribute of a tile constant carries the tile type: retype both.
  LogicalResult visitConstant(arith::ConstantOp constant) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense)
      return constant.emitOpError("tile constants must be dense elements");
    Attribute layout = preferred.lookup(constant.getResult());
    auto type = withLayout(constant.getType(),
                           layout ? layout : defaultLayout(constant.getType()));
    constant.setValueAttr(
        DenseElementsAttr::getFromRawBuffer(type, dense.getRawData()));
    constant.getResult().setType(type);
    return success();
  }

  /// The result holds the operand's registers with the dimensions
  /// swapped; an operand whose layout has no transposed form is first
  /// converted to the default.
  LogicalResult visitTranspose(TransposeOp transpose) {
    auto src = cast<RankedTensorType>(transpose.getSrc().getType());
    Attribute layout = getTransposedLayout(src.getEncoding());
    if (!layout) {
      convertOperand(transpose.getSrcMutable(),
                     withLayout(src, defaultLayout(src)));
      layout = getTransposedLayout(layoutOf(transpose.getSrc()));
    }
    setLayout(transpose.getResult(), layout);
    return success();
  }

  LogicalResult visitReduce(ReduceOp reduce) {
    auto src = cast<RankedTensorType>(reduce.getSrc().getType());
    if (!isa<BlockedLayoutAttr, SliceLayoutAttr, MmaLayoutAttr>(
            src.getEncoding())) {
      convertOperand(reduce.getSrcMutable(),
                     withLayout(src, defaultLayout(src)));
      src = cast<RankedTensorType>(reduce.getSrc().getType());
    }
    if (isa<RankedTensorType>(reduce.getResult().getType()))
      setLayout(reduce.getResult(),
                SliceLayoutAttr::get(func.getContext(), reduce.getDim(),
                                     src.getEncoding()));
    return success();
  }

  /// An expand_dims, or a broadcast along a new dimension: the operand
  /// holds the slice along `dim` of the result's layout, so a reduction's
  /// result comes back to its operand's layout without moving.
  LogicalResult visitInsertDim(OpOperand &srcOperand, Value result,
                               unsigned dim) {
    auto src = cast<RankedTensorType>(srcOperand.get().getType());
    auto slice = dyn_cast<SliceLayoutAttr>(src.getEncoding());
    if (slice && slice.getDim() == dim) {
      setLayout(result, slice.getParent());
      return success();
    }
    Attribute parent = defaultLayout(result.getType());
    convertOperand(
        srcOperand,
        withLayout(src, SliceLayoutAttr::get(func.getContext(), dim, parent)));
    setLayout(result, parent);
    return success();
  }

  /// Loop-carried tiles keep the layout of their initial value, except a
  /// tile each iteration replaces with the result of a dot in registers:
  /// that one is carried in the dot's accumulator layout (the initial value
  /// converted once before the loop), rather than converted out of it at
  /// every yield and, for the dot's next use, back.
  LogicalResult visitFor(scf::ForOp forOp) {
    auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
    for (auto [index, init, arg, result] :
         llvm::enumerate(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                         forOp.getResults())) {
      auto initType = dyn_cast<RankedTensorType>(init.getType());
      if (!initType)
        continue;
      Type carried = initType;
      if (auto dot = yield.getOperand(index).getDefiningOp<DotOp>()) {
        Attribute layout = dotLayouts.lookup(dot);
        if (layout && !isTensorMemoryLayout(layout) &&
            layout != initType.getEncoding()) {
          carried = withLayout(initType, layout);
          convertOperand(forOp.getInitArgsMutable()[index], carried);
        }
      }
      arg.setType(carried);
      result.setType(carried);
    }
    return success();
  }

  LogicalResult visitYield(scf::YieldOp yield) {
    Operation *parent = yield->getParentOp();
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool isThen = yield->getParentRegion() == &ifOp.getThenRegion();
      for (auto [operand, result] :
           llvm::zip(yield->getOpOperands(), ifOp.getResults())) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          continue;
        if (isThen)
          result.setType(operand.get().getType());
        else
          convertOperand(operand, result.getType());
      }
      return success();
    }
    if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
      for (auto [operand, result] :
           llvm::zip(yield->getOpOperands(), forOp.getResults()))
        if (isa<RankedTensorType>(operand.get().getType()))
          convertOperand(operand, result.getType());
      return success();
    }
    return success();
  }

  func::FuncOp func;
  unsigned numWarps;
  StringRef target;
  DenseMap<Operation *, Attribute> dotLayouts;
  bool hasTensorMemoryAccumulator = false;
  DenseMap<Value, Attribute> preferred;
};

struct AssignLayoutsPass
    : public tile::impl::TileAssignLayoutsBase<AssignLayoutsPass> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isKernel(func))
        continue;
      unsigned warps = func->hasAttr(TileDialect::kNumWarpsAttrName)
                           ? getNumWarps(func)
                           : unsigned(defaultNumWarps);
      func->setAttr(TileDialect::kNumWarpsAttrName,
                    Builder(func).getI32IntegerAttr(warps));
      if (failed(LayoutAssigner(func, warps, target).run()))
        return signalPassFailure();
    }
    getOperation()->setAttr(TileDialect::kTargetAttrName,
                            StringAttr::get(&getContext(), target));
  }
};
} // namespace
