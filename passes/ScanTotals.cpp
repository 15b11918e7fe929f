//===- ScanTotals.cpp - reductions taken from scans of the same tile -----===//
//
// A compaction scans a predicate for its elements' positions and reduces it
// for their count, and each of the two crosses the program's threads. The
// scan's per-warp totals already meet in shared memory, where every thread
// can sum them: the reduction becomes the scan's `total`, and its own
// shuffles, scratch and barriers go away.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESCANTOTALS
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether a scan of the reduction's operand can give its result: the
/// combine does not depend on its order (the scan combines in another
/// order than the reduction), and the operand's blocked layout covers the
/// program along the dimension (a narrower tile has replicas, scanned as
/// separate segments, each with its own total).
bool totalFromScan(ReduceOp reduce) {
  auto type = cast<RankedTensorType>(reduce.getSrc().getType());
  Type element = type.getElementType();
  CombineKind kind = reduce.getKind();
  bool orderFree = (isa<IntegerType>(element) && !element.isInteger(1)) ||
                   kind == CombineKind::Max || kind == CombineKind::Min;
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(type.getEncoding());
  if (!orderFree || !blocked)
    return false;
  unsigned dim = reduce.getDim();
  int64_t covered = blocked.getSizePerThread()[dim] *
                    blocked.getThreadsPerWarp()[dim] *
                    blocked.getWarpsPerCTA()[dim];
  return covered <= type.getDimSize(dim);
}

struct TileScanTotals : public tile::impl::TileScanTotalsBase<TileScanTotals> {
  void runOnOperation() override {
    SmallVector<std::pair<ReduceOp, ScanOp>> pairs;
    llvm::DenseSet<Operation *> taken;
    getOperation().walk([&](ReduceOp reduce) {
      if (!totalFromScan(reduce))
        return;
      for (Operation *user : reduce.getSrc().getUsers()) {
        auto scan = dyn_cast<ScanOp>(user);
        if (!scan || scan.getTotal() || taken.contains(scan) ||
            scan->getBlock() != reduce->getBlock() ||
            scan.getKind() != reduce.getKind() ||
            scan.getDim() != reduce.getDim())
          continue;
        taken.insert(scan);
        pairs.push_back({reduce, scan});
        return;
      }
    });
    for (auto [reduce, scan] : pairs) {
      // Where the earlier of the two was: the operand is defined before
      // both, and the uses of each come after it.
      Operation *first =
          scan->isBeforeInBlock(reduce) ? scan.getOperation() : reduce;
      OpBuilder b(first);
      auto fused = ScanOp::create(
          b, scan.getLoc(), scan.getResult().getType(),
          reduce.getResult().getType(), scan.getKindAttr(), scan.getSrc(),
          scan.getDimAttr(), scan.getReverseAttr(), scan.getExclusiveAttr());
      scan.getResult().replaceAllUsesWith(fused.getResult());
      reduce.getResult().replaceAllUsesWith(fused.getTotal());
      scan.erase();
      reduce.erase();
    }
  }
};

} // namespace
