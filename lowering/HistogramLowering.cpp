//===- HistogramLowering.cpp - counting through shared atomics -----------===//
//
// The bins live in shared scratch: threads zero the bins they hold in the
// result layout, add their counted elements with shared-memory atomics,
// and read their bins back after a barrier. Skewed data (float keys share
// few exponent digits) makes lanes hit the same bin, so each warp first
// groups its lanes by bin (match.any) and one lane per group adds the
// group's size.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct HistogramLowering : public OpConversionPattern<HistogramOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(HistogramOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    FailureOr<Distribution> src = getDistribution(srcType);
    FailureOr<Distribution> result = getDistribution(resultType);
    if (failed(src) || failed(result))
      return op.emitOpError("tile has no register layout; run "
                            "tile-assign-layouts first");
    if (op.getMask() &&
        cast<RankedTensorType>(op.getMask().getType()).getEncoding() !=
            srcType.getEncoding())
      return op.emitOpError("mask must have the layout of the values");

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    int64_t bins = resultType.getNumElements();
    ValueRange values = adaptor.getSrc();
    ValueRange mask = adaptor.getMask();

    ctaBarrier(b, loc);
    ThreadPosition resultPos = getThreadPosition(b, loc, *result);
    SmallVector<Value> binOf;
    for (int64_t e = 0; e < result->numElements(); ++e) {
      binOf.push_back(getElementCoords(b, loc, *result, resultPos, e)[0]);
      storeScratch(b, loc, op, i32Const(b, loc, 0), binOf.back());
    }
    ctaBarrier(b, loc);
    Value allLanes = i32Const(b, loc, -1);
    Value lanesBelow = NVVM::LaneMaskLtOp::create(b, loc, i32);
    for (auto [e, value] : llvm::enumerate(values)) {
      Type type = value.getType();
      // Unsigned compare also rejects negative values.
      Value counted = LLVM::ICmpOp::create(
          b, loc, LLVM::ICmpPredicate::ult, value,
          LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, bins)));
      if (!mask.empty())
        counted = LLVM::AndOp::create(b, loc, counted, mask[e]);
      Value bin = value;
      if (type.getIntOrFloatBitWidth() > 32)
        bin = LLVM::TruncOp::create(b, loc, i32, value);
      else if (type.getIntOrFloatBitWidth() < 32)
        bin = LLVM::ZExtOp::create(b, loc, i32, value);
      // Uncounted lanes match one another under -1 (never a bin) and add
      // nothing. The whole warp runs the match: it stays outside the `if`.
      Value tag = LLVM::SelectOp::create(b, loc, counted, bin, allLanes);
      Value peers = NVVM::MatchSyncOp::create(b, loc, i32, allLanes, tag,
                                              NVVM::MatchSyncKind::any);
      Value lowerPeers = LLVM::AndOp::create(b, loc, peers, lanesBelow);
      Value leader = LLVM::AndOp::create(
          b, loc, counted,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, lowerPeers,
                               i32Const(b, loc, 0)));
      auto ifOp = scf::IfOp::create(b, loc, leader, /*withElse=*/false);
      OpBuilder tb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      Value addr = getScratchAddress(tb, loc, op, i32, bin);
      Value size = LLVM::CtPopOp::create(tb, loc, i32, peers);
      LLVM::AtomicRMWOp::create(tb, loc, LLVM::AtomicBinOp::add, addr, size,
                                LLVM::AtomicOrdering::monotonic);
    }
    ctaBarrier(b, loc);
    SmallVector<Value> counts;
    for (Value bin : binOf)
      counts.push_back(loadScratch(b, loc, op, i32, bin));
    rewriter.replaceOpWithMultiple(op, {counts});
    return success();
  }
};
} // namespace

void mlir::tile::populateHistogramPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<HistogramLowering>(converter, patterns.getContext());
}
