//===- ScatterLowering.cpp - placing elements at computed positions ------===//
//
// The destination tile is staged in shared scratch, the selected source
// elements overwrite their positions there, and the result is read back in
// the destination's layout.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct ScatterLowering : public OpConversionPattern<ScatterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto destType = cast<RankedTensorType>(op.getDest().getType());
    FailureOr<Distribution> src = getLaidOutDistribution(op, srcType);
    if (failed(src))
      return failure();
    FailureOr<Distribution> dest = getLaidOutDistribution(op, destType);
    if (failed(dest))
      return failure();
    SmallVector<Value, 2> indexed = {op.getIndices()};
    if (Value mask = op.getMask())
      indexed.push_back(mask);
    if (failed(requireLayoutOf(
            op, indexed, srcType,
            "indices and mask must have the layout of the source")))
      return failure();

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    int64_t size = destType.getNumElements();
    ValueRange values = adaptor.getSrc();
    ValueRange indices = adaptor.getIndices();
    ValueRange mask = adaptor.getMask();
    Type elementType = adaptor.getDest().front().getType();

    ctaBarrier(b, loc);
    ThreadPosition destPos = getThreadPosition(b, loc, *dest);
    SmallVector<Value> places;
    for (auto [e, value] : llvm::enumerate(adaptor.getDest())) {
      places.push_back(getElementCoords(b, loc, *dest, destPos, e)[0]);
      storeScratch(b, loc, op, value, places.back());
    }
    ctaBarrier(b, loc);
    for (auto [e, value] : llvm::enumerate(values)) {
      Value inside = isIndexInBounds(b, loc, indices[e], size,
                                     mask.empty() ? Value() : mask[e]);
      auto ifOp = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
      OpBuilder tb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      storeScratch(tb, loc, op, value, indexAsI32(tb, loc, indices[e]));
    }
    ctaBarrier(b, loc);
    SmallVector<Value> results;
    for (Value place : places)
      results.push_back(loadScratch(b, loc, op, elementType, place));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};
} // namespace

void mlir::tile::populateScatterPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ScatterLowering>(converter, patterns.getContext());
}
