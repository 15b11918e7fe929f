//===- TileCanonicalize.cpp - idioms kernel authors need not write
//---------===//
//
// Canonicalizations the tile dialect adds to ops of other dialects on
// tiles, so that kernel text can say what it computes and still get the
// fast form.
//
//===----------------------------------------------------------------------===//

#include "dialect/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `x / broadcast(s)` → `x * broadcast(1 / s)`, and `x / splat(s)` →
/// `x * splat(1 / s)`: one division per element of the small tile (or one
/// for the scalar) instead of one per element of the large one (a row
/// statistic spread along a row, say). Like the reciprocal a kernel would
/// otherwise compute by hand, the result may differ from the quotient by
/// one rounding.
struct DivideByBroadcast : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type large = op.getType();
    Value spread;
    if (auto splat = op.getRhs().getDefiningOp<SplatOp>()) {
      // Right after the scalar is made, as a kernel would write it: a
      // splat made before a loop keeps the reciprocal out of it.
      Value scalar = splat.getSrc();
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfterValue(scalar);
      Value one = arith::ConstantOp::create(
          rewriter, loc, rewriter.getFloatAttr(scalar.getType(), 1.0));
      Value reciprocal = arith::DivFOp::create(rewriter, loc, one, scalar,
                                               op.getFastmathAttr());
      rewriter.setInsertionPoint(splat);
      spread = SplatOp::create(rewriter, loc, large, reciprocal);
    } else if (auto broadcast = op.getRhs().getDefiningOp<BroadcastOp>()) {
      auto small = cast<RankedTensorType>(broadcast.getSrc().getType());
      if (small.getNumElements() >=
          cast<RankedTensorType>(large).getNumElements())
        return failure();
      auto floatType = cast<FloatType>(small.getElementType());
      Value one = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(small, FloatAttr::get(floatType, 1.0)));
      Value reciprocal = arith::DivFOp::create(
          rewriter, loc, one, broadcast.getSrc(), op.getFastmathAttr());
      spread = BroadcastOp::create(rewriter, loc, large, reciprocal,
                                   broadcast.getAlongAttr());
    } else {
      return failure();
    }
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), spread,
                                               op.getFastmathAttr());
    return success();
  }
};

/// Broadcast chains collapse to one op:
///   broadcast(splat s)                 -> splat s
///   broadcast(expand_dims x at d)      -> broadcast x along d
///   broadcast(broadcast x)             -> broadcast x
///   broadcast(broadcast x along d)     -> broadcast x along d
/// (with an expand_dims or a broadcast along d, when the outer broadcast
/// grows only dimension d). Layouts stay valid: an expand_dims operand
/// already holds the slice of the layout its broadcast keeps.
struct CollapseBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    Value src = op.getSrc();
    Type type = op.getType();
    if (auto splat = src.getDefiningOp<SplatOp>()) {
      rewriter.replaceOpWithNewOp<SplatOp>(op, type, splat.getSrc());
      return success();
    }
    if (op.getAlong())
      return failure();
    // Whether the broadcast grows no dimension of `made` but `along`.
    auto growsOnly = [&](Type made, unsigned along) {
      ArrayRef<int64_t> from = cast<RankedTensorType>(made).getShape();
      ArrayRef<int64_t> to = cast<RankedTensorType>(type).getShape();
      for (unsigned d = 0; d < from.size(); ++d)
        if (d != along && from[d] != to[d])
          return false;
      return true;
    };
    if (auto expand = src.getDefiningOp<ExpandDimsOp>()) {
      if (!growsOnly(expand.getType(), expand.getDim()))
        return failure();
      rewriter.replaceOpWithNewOp<BroadcastOp>(
          op, type, expand.getSrc(),
          rewriter.getI32IntegerAttr(expand.getDim()));
      return success();
    }
    auto inner = src.getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    // Two broadcasts of unit dimensions compose; after one along a new
    // dimension, the outer one may grow only that dimension.
    if (std::optional<uint32_t> along = inner.getAlong();
        along && !growsOnly(inner.getType(), *along))
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, type, inner.getSrc(),
                                             inner.getAlongAttr());
    return success();
  }
};

} // namespace

void TileDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<DivideByBroadcast, CollapseBroadcasts>(getContext());
}
