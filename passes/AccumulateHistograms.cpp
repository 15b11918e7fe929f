//===- AccumulateHistograms.cpp - bins that stay in shared memory ---------===//
//
// A loop that sums a tile.histogram per iteration into a loop-carried tile
// of bins pays, every iteration, for zeroing the histogram's scratch, a
// barrier, the adds, a barrier and reading every bin back into registers.
// The sum is the histogram of all iterations' elements, so the bins can
// stay in a shared buffer for the whole loop instead: it is set to the
// initial bins once, each iteration only adds (tile.histogram_add, no
// barrier), and the bins are read back once after the loop.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEACCUMULATEHISTOGRAMS
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A loop-carried sum of histograms: iteration argument `index` of `loop`
/// is used only by `sum` (= it + `histogram`), which only the yield takes
/// as the next value; both ops run on every iteration (the loop body's own
/// block).
struct HistogramSum {
  scf::ForOp loop;
  unsigned index;
  HistogramOp histogram;
  arith::AddIOp sum;
};

std::optional<HistogramSum> matchHistogramSum(scf::ForOp loop, unsigned index) {
  BlockArgument carried = loop.getRegionIterArg(index);
  auto type = dyn_cast<RankedTensorType>(carried.getType());
  if (!type || type.getRank() != 1 || !type.getElementType().isInteger(32) ||
      !carried.hasOneUse())
    return std::nullopt;
  auto sum = dyn_cast<arith::AddIOp>(*carried.getUsers().begin());
  if (!sum || sum->getBlock() != loop.getBody() || !sum->hasOneUse())
    return std::nullopt;
  Value other = sum.getLhs() == carried ? sum.getRhs() : sum.getLhs();
  auto histogram = other.getDefiningOp<HistogramOp>();
  if (!histogram || histogram->getBlock() != loop.getBody() ||
      !histogram->hasOneUse())
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  OpOperand &next = yield->getOpOperand(index);
  if (next.get() != sum.getResult() || *sum->getUsers().begin() != yield)
    return std::nullopt;
  return HistogramSum{loop, index, histogram, sum};
}

/// Moves the sum into a shared buffer: a barrier (earlier readers of the
/// buffer, when the loop itself runs in a loop), the initial bins stored,
/// a barrier, the adds in the loop, a barrier, the bins loaded.
void accumulateInShared(HistogramSum match, OpBuilder &entry) {
  scf::ForOp loop = match.loop;
  Location loc = match.histogram.getLoc();
  auto bins = cast<RankedTensorType>(match.histogram.getResult().getType());
  auto bufferType = SharedBufferType::get(loop.getContext(), bins.getShape(),
                                          bins.getElementType(), Attribute());
  Value buffer = AllocSharedOp::create(entry, loc, bufferType, IntegerAttr());

  OpBuilder b(loop);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  BarrierOp::create(b, loc);
  StoreSharedOp::create(b, loc, loop.getInitArgs()[match.index], buffer, zero,
                        Value(), Value());
  BarrierOp::create(b, loc);

  b.setInsertionPoint(match.histogram);
  HistogramAddOp::create(b, loc, match.histogram.getSrc(),
                         match.histogram.getMask(), buffer);
  // The carried value now passes through unchanged; canonicalization drops
  // it.
  match.sum.getResult().replaceAllUsesWith(loop.getRegionIterArg(match.index));
  match.sum.erase();
  match.histogram.erase();

  b.setInsertionPointAfter(loop);
  BarrierOp::create(b, loc);
  Value total =
      LoadSharedOp::create(b, loc, bins, buffer, zero, Value(), TypedAttr());
  loop.getResult(match.index).replaceAllUsesWith(total);
}

struct TileAccumulateHistograms
    : public tile::impl::TileAccumulateHistogramsBase<
          TileAccumulateHistograms> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (func.isExternal())
        return;
      SmallVector<HistogramSum> matches;
      func.walk([&](scf::ForOp loop) {
        for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
          if (std::optional<HistogramSum> match = matchHistogramSum(loop, i))
            matches.push_back(*match);
      });
      OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
      for (HistogramSum &match : matches)
        accumulateInShared(match, entry);
    });
  }
};

} // namespace
