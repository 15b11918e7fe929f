//===- RegisterLowering.cpp - tiles held in registers --------------------===//
//
// Ops whose data stays in the registers of the threads that hold it (splat,
// iota, broadcast, expand_dims, element-wise math) map element lists to
// element lists at compile time. Reductions combine inside a thread, then
// across lanes with butterfly shuffles, then across warps through shared
// scratch. Layout conversions go through shared scratch.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"
#include "passes/SharedMemory.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

FailureOr<Distribution> requireDistribution(Operation *op, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  // Tensor-memory tiles are the tcgen05 patterns' (Tcgen05Lowering.cpp),
  // which say what is wrong with them.
  if (isTensorMemoryLayout(tensor.getEncoding()))
    return failure();
  FailureOr<Distribution> dist = getDistribution(tensor);
  if (failed(dist))
    op->emitOpError("tile ")
        << type
        << " has no register layout the lowering handles; run "
           "tile-assign-layouts first";
  return dist;
}

struct SplatLowering : public OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Distribution> dist =
        requireDistribution(op, op.getResult().getType());
    if (failed(dist))
      return failure();
    SmallVector<Value> values(dist->numElements(), adaptor.getSrc().front());
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct ConstantLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return op.emitOpError("only splat tile constants can be lowered");
    FailureOr<Distribution> dist = requireDistribution(op, type);
    if (failed(dist))
      return failure();
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    SmallVector<Value> values(dist->numElements(), scalar);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct IotaLowering : public OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    FailureOr<Distribution> dist = requireDistribution(op, type);
    if (failed(dist))
      return failure();
    Location loc = op.getLoc();
    ThreadPosition pos = getThreadPosition(rewriter, loc, *dist);
    Type elementType = type.getElementType();
    SmallVector<Value> values;
    for (int64_t e = 0; e < dist->numElements(); ++e) {
      Value coord = getElementCoords(rewriter, loc, *dist, pos, e)[0];
      unsigned bits = elementType.getIntOrFloatBitWidth();
      if (bits > 32)
        coord = LLVM::ZExtOp::create(rewriter, loc, elementType, coord);
      else if (bits < 32)
        coord = LLVM::TruncOp::create(rewriter, loc, elementType, coord);
      values.push_back(coord);
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// Maps each result element to the source element holding the same value,
/// dropping the local index along `unitDims` (set to 0).
SmallVector<Value> gatherElements(const Distribution &resultDist,
                                  const Distribution &srcDist,
                                  ArrayRef<unsigned> unitBlockedDims,
                                  ValueRange src) {
  SmallVector<Value> values;
  for (int64_t e = 0; e < resultDist.numElements(); ++e) {
    SmallVector<int64_t> local = resultDist.localIndex(e);
    for (unsigned d : unitBlockedDims)
      local[d] = 0;
    values.push_back(src[srcDist.elementOf(local)]);
  }
  return values;
}

/// An expand_dims, or a broadcast along a new dimension: the operand holds
/// the slice along `dim` of the result's layout, and each result element
/// takes the operand element at its position without that dimension.
LogicalResult lowerInsertDim(Operation *op, Value srcValue, Value resultValue,
                             unsigned dim, ValueRange src,
                             ConversionPatternRewriter &rewriter) {
  auto srcType = cast<RankedTensorType>(srcValue.getType());
  auto slice = dyn_cast_or_null<SliceLayoutAttr>(srcType.getEncoding());
  if (!slice || slice.getDim() != dim)
    return op->emitOpError("operand must have the slice layout of the "
                           "result; run tile-assign-layouts first");
  FailureOr<Distribution> srcDist = requireDistribution(op, srcType);
  FailureOr<Distribution> resultDist =
      requireDistribution(op, resultValue.getType());
  if (failed(srcDist) || failed(resultDist))
    return failure();
  rewriter.replaceOpWithMultiple(
      op, {gatherElements(*resultDist, *srcDist, {resultDist->tileDims[dim]},
                          src)});
  return success();
}

struct BroadcastLowering : public OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Along a new dimension: as an expand_dims.
    if (std::optional<uint32_t> along = op.getAlong())
      return lowerInsertDim(op, op.getSrc(), op.getResult(), *along,
                            adaptor.getSrc(), rewriter);
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    FailureOr<Distribution> src = requireDistribution(op, srcType);
    FailureOr<Distribution> result =
        requireDistribution(op, op.getResult().getType());
    if (failed(src) || failed(result))
      return failure();
    if (srcType.getEncoding() !=
        cast<RankedTensorType>(op.getResult().getType()).getEncoding())
      return op.emitOpError("operand and result layouts must match");
    SmallVector<unsigned> unitDims;
    for (auto [tileDim, blockedDim] : llvm::enumerate(src->tileDims))
      if (srcType.getDimSize(tileDim) == 1)
        unitDims.push_back(blockedDim);
    rewriter.replaceOpWithMultiple(
        op, {gatherElements(*result, *src, unitDims, adaptor.getSrc())});
    return success();
  }
};

struct ExpandDimsLowering : public OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerInsertDim(op, op.getSrc(), op.getResult(), op.getDim(),
                          adaptor.getSrc(), rewriter);
  }
};

struct ConvertLayoutLowering : public OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    FailureOr<Distribution> src = requireDistribution(op, srcType);
    FailureOr<Distribution> dst =
        requireDistribution(op, op.getResult().getType());
    if (failed(src) || failed(dst))
      return failure();
    Location loc = op.getLoc();
    ValueRange values = adaptor.getSrc();
    Type elementType = values.front().getType();
    // Every thread writes what it holds at its row-major place (padded, so
    // that lanes walking down a column do not share a bank), then reads
    // what it must hold. Replicas write identical values.
    const int64_t period = getConvertScratchPeriod(srcType);
    ctaBarrier(rewriter, loc);
    ThreadPosition srcPos = getThreadPosition(rewriter, loc, *src);
    for (int64_t e = 0; e < src->numElements(); ++e) {
      Value index = linearize(rewriter, loc,
                              getElementCoords(rewriter, loc, *src, srcPos, e),
                              srcType.getShape());
      storeScratch(rewriter, loc, op, values[e],
                   padScratchIndex(rewriter, loc, index, period));
    }
    ctaBarrier(rewriter, loc);
    ThreadPosition dstPos = getThreadPosition(rewriter, loc, *dst);
    SmallVector<Value> results;
    for (int64_t e = 0; e < dst->numElements(); ++e) {
      Value index = linearize(rewriter, loc,
                              getElementCoords(rewriter, loc, *dst, dstPos, e),
                              srcType.getShape());
      results.push_back(
          loadScratch(rewriter, loc, op, elementType,
                      padScratchIndex(rewriter, loc, index, period)));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

bool isIdempotent(CombineKind kind) {
  return kind == CombineKind::Max || kind == CombineKind::Min ||
         kind == CombineKind::And || kind == CombineKind::Or;
}

struct ReduceLowering : public OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    FailureOr<Distribution> src = requireDistribution(op, srcType);
    if (failed(src))
      return failure();
    unsigned dim = op.getDim();
    unsigned bd = src->tileDims[dim];
    CombineKind kind = op.getKind();
    if (srcType.getElementType().isInteger(1))
      return op.emitOpError("reductions of i1 tiles are not supported; "
                            "extend to i32 first");
    Location loc = op.getLoc();
    Distribution result = getReducedDistribution(*src, dim);
    SmallVector<Value> values(adaptor.getSrc());
    BlockedLayoutAttr blocked = src->blocked;

    // 0. A tile narrower than the CTA along the dimension has replicas
    // there (coordinates past the extent wrap onto owned elements). Max,
    // min, and, or do not mind; the other kinds take the identity in place
    // of a replica, so that each element counts once. -0.0 for float sums
    // keeps a sum of -0s at -0.
    if (src->wraps(bd) && !isIdempotent(kind)) {
      Type type = values.front().getType();
      Value identity =
          kind == CombineKind::Add && isa<FloatType>(type)
              ? arith::ConstantOp::create(
                    rewriter, loc,
                    rewriter.getFloatAttr(
                        type, llvm::APFloat::getZero(
                                  cast<FloatType>(type).getFloatSemantics(),
                                  /*Negative=*/true)))
                    .getResult()
              : getIdentity(rewriter, loc, kind, type);
      ThreadPosition pos = getThreadPosition(rewriter, loc, *src);
      for (auto [e, value] : llvm::enumerate(values)) {
        Value coord = pos.base[bd];
        if (int64_t offset = src->offsets(e)[bd])
          coord = LLVM::AddOp::create(rewriter, loc, coord,
                                      i32Const(rewriter, loc, offset));
        Value owned = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::ult, coord,
            i32Const(rewriter, loc, src->blockedShape[bd]));
        value = arith::SelectOp::create(rewriter, loc, owned, value, identity);
      }
    }

    // 1. Inside the thread.
    SmallVector<Value> partial;
    for (int64_t r = 0; r < result.numElements(); ++r) {
      SmallVector<int64_t> local = result.localIndex(r);
      Value acc;
      for (int64_t k = 0; k < src->perThread[bd]; ++k) {
        local[bd] = k;
        Value v = values[src->elementOf(local)];
        acc = acc ? combineValues(rewriter, loc, kind, acc, v) : v;
      }
      partial.push_back(acc);
    }
    // 2. Across the lanes spread along the dimension.
    unsigned lanes = blocked.getThreadsPerWarp()[bd];
    unsigned laneStride = src->laneStride(bd);
    for (Value &acc : partial)
      for (unsigned m = laneStride; m < laneStride * lanes; m *= 2)
        acc = combineValues(rewriter, loc, kind, acc,
                            shuffleXor(rewriter, loc, acc, m));
    // 3. Across warps, through scratch: [warp][row], padded, so that the
    // lanes of a warp, which hold different rows, store to different banks.
    unsigned warps = blocked.getWarpsPerCTA()[bd];
    if (warps > 1) {
      SmallVector<int64_t> resultShape(srcType.getShape());
      resultShape.erase(resultShape.begin() + dim);
      int64_t numRows = 1;
      for (int64_t extent : resultShape)
        numRows *= extent;
      ThreadPosition pos = getThreadPosition(rewriter, loc, result);
      auto slot = [&](Value row, Value warp) {
        Value index = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, warp,
                                i32Const(rewriter, loc, numRows)),
            row);
        return padScratchIndex(rewriter, loc, index, kPartialScratchPeriod);
      };
      SmallVector<Value> rows;
      for (int64_t r = 0; r < result.numElements(); ++r)
        rows.push_back(linearize(
            rewriter, loc, getElementCoords(rewriter, loc, result, pos, r),
            resultShape));
      ctaBarrier(rewriter, loc);
      for (auto [row, acc] : llvm::zip(rows, partial))
        storeScratch(rewriter, loc, op, acc, slot(row, pos.warpIndex[bd]));
      ctaBarrier(rewriter, loc);
      for (auto [row, acc] : llvm::zip(rows, partial)) {
        acc = loadScratch(rewriter, loc, op, acc.getType(),
                          slot(row, i32Const(rewriter, loc, 0)));
        for (unsigned w = 1; w < warps; ++w)
          acc =
              combineValues(rewriter, loc, kind, acc,
                            loadScratch(rewriter, loc, op, acc.getType(),
                                        slot(row, i32Const(rewriter, loc, w))));
      }
    }
    rewriter.replaceOpWithMultiple(op, {partial});
    return success();
  }
};

/// arith/math ops on tiles apply to each held element.
struct ElementwiseLowering : public ConversionPattern {
  ElementwiseLowering(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0 ||
        op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertType(type, resultTypes)))
      return op->emitOpError("cannot lower tile type ") << type;
    SmallVector<Value> results;
    for (auto [e, resultType] : llvm::enumerate(resultTypes)) {
      SmallVector<Value> scalarOperands;
      for (ValueRange operand : operands)
        scalarOperands.push_back(operand.size() == 1 ? operand[0] : operand[e]);
      OperationState state(op->getLoc(), op->getName(), scalarOperands,
                           {resultType}, op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};
} // namespace

void mlir::tile::populateRegisterOpPatterns(TileTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<SplatLowering, ConstantLowering, IotaLowering, BroadcastLowering,
               ExpandDimsLowering, ConvertLayoutLowering, ReduceLowering>(
      converter, context);
  patterns.add<ElementwiseLowering>(converter, context);
}
