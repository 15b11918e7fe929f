//===- HistogramLowering.cpp - counting through shared atomics -----------===//
//
// tile.histogram: the bins live in shared scratch: threads zero the bins
// they hold in the result layout, add each counted element with a
// `red.shared.add.u32` predicated on it being counted (in range and under
// the mask), and read their bins back after a barrier.
// tile.histogram_add: the same adds into a buffer of tile.alloc_shared,
// without the zeroing, the read-back or any barrier.
//
// No warp aggregation: grouping a warp's lanes by bin with match.any
// before the adds (one add per group) cost more than the address conflicts
// it saves. On the H200, top-k's radix passes (1024 rows of 131072, k =
// 256) took 932 us with plain adds against 1536 us with match.any, and
// 927 against 1062 us on a constant row, where all 32 lanes of every add
// hit one bin. Passes that count few of their elements (later radix
// digits) issue adds on few lanes and pay almost nothing.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `red.shared.add.u32 [addr], value` on the lanes where `pred` holds: a
/// predicated instruction, not a branch, so that ptxas keeps the adds of
/// consecutive elements together.
void addToSharedIf(OpBuilder &b, Location loc, Value pred, Value addr,
                   Value value) {
  Value flag = LLVM::ZExtOp::create(b, loc, b.getI32Type(), pred);
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, ValueRange{flag, addr, value},
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $0, 0;\n\t"
      "@p red.shared.add.u32 [$1], $2;\n\t}",
      "r,r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

/// Counting needs the values in registers and each mask bit in the thread
/// of its value; reports what is missing on `op`.
LogicalResult checkCountedLayouts(Operation *op, Value src, Value mask) {
  auto srcType = cast<RankedTensorType>(src.getType());
  if (failed(getLaidOutDistribution(op, srcType)))
    return failure();
  if (mask)
    return requireLayoutOf(op, mask, srcType,
                           "mask must have the layout of the values");
  return success();
}

/// One predicated shared add per element of `values` in `[0, bins)` whose
/// `mask` bit (when there is a mask) is set, at the address `addressOf`
/// gives its bin (an i32 shared-window address).
void addCounts(OpBuilder &b, Location loc, ValueRange values, ValueRange mask,
               int64_t bins, function_ref<Value(Value)> addressOf) {
  Value one = i32Const(b, loc, 1);
  for (auto [e, value] : llvm::enumerate(values)) {
    Value counted =
        isIndexInBounds(b, loc, value, bins, mask.empty() ? Value() : mask[e]);
    Value safeBin = LLVM::SelectOp::create(
        b, loc, counted, indexAsI32(b, loc, value), i32Const(b, loc, 0));
    addToSharedIf(b, loc, counted, addressOf(safeBin), one);
  }
}

struct HistogramLowering : public OpConversionPattern<HistogramOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(HistogramOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    if (failed(checkCountedLayouts(op, op.getSrc(), op.getMask())))
      return failure();
    FailureOr<Distribution> result = getLaidOutDistribution(op, resultType);
    if (failed(result))
      return failure();

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    int64_t bins = resultType.getNumElements();

    ctaBarrier(b, loc);
    ThreadPosition resultPos = getThreadPosition(b, loc, *result);
    SmallVector<Value> binOf;
    for (int64_t e = 0; e < result->numElements(); ++e) {
      binOf.push_back(getElementCoords(b, loc, *result, resultPos, e)[0]);
      storeScratch(b, loc, op, i32Const(b, loc, 0), binOf.back());
    }
    ctaBarrier(b, loc);
    addCounts(b, loc, adaptor.getSrc(), adaptor.getMask(), bins,
              [&](Value bin) {
                return LLVM::PtrToIntOp::create(
                    b, loc, i32, getScratchAddress(b, loc, op, i32, bin));
              });
    ctaBarrier(b, loc);
    SmallVector<Value> counts;
    for (Value bin : binOf)
      counts.push_back(loadScratch(b, loc, op, i32, bin));
    rewriter.replaceOpWithMultiple(op, {counts});
    return success();
  }
};
/// The adds alone, into the op's buffer: the bins and the barriers around
/// them belong to whoever made the buffer.
struct HistogramAddLowering : public OpConversionPattern<HistogramAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(HistogramAddOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkCountedLayouts(op, op.getSrc(), op.getMask())))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    Value base = adaptor.getBuffer().front();
    addCounts(b, loc, adaptor.getSrc(), adaptor.getMask(),
              op.getBuffer().getType().getShape()[0], [&](Value bin) {
                Value at = LLVM::GEPOp::create(b, loc, base.getType(), i32,
                                               base, ValueRange{bin});
                return LLVM::PtrToIntOp::create(b, loc, i32, at);
              });
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateHistogramPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<HistogramLowering, HistogramAddLowering>(converter,
                                                        patterns.getContext());
}
