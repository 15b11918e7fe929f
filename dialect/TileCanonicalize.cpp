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

/// `x / broadcast(s)` → `x * broadcast(1 / s)`: one division per element of
/// the small tile instead of one per element of the large one (a row
/// statistic broadcast along a row, say). Like the reciprocal a kernel
/// would otherwise compute by hand, the result may differ from the
/// quotient by one rounding.
struct DivideByBroadcast : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getRhs().getDefiningOp<BroadcastOp>();
    if (!broadcast)
      return failure();
    auto small = cast<RankedTensorType>(broadcast.getSrc().getType());
    auto large = cast<RankedTensorType>(broadcast.getType());
    if (small.getNumElements() >= large.getNumElements())
      return failure();
    Location loc = op.getLoc();
    auto floatType = cast<FloatType>(small.getElementType());
    Value one = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(small, FloatAttr::get(floatType, 1.0)));
    Value reciprocal = arith::DivFOp::create(
        rewriter, loc, one, broadcast.getSrc(), op.getFastmathAttr());
    Value spread = BroadcastOp::create(rewriter, loc, large, reciprocal);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), spread,
                                               op.getFastmathAttr());
    return success();
  }
};

} // namespace

void TileDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<DivideByBroadcast>(getContext());
}
