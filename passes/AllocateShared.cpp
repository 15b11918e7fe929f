//===- AllocateShared.cpp - size per-kernel shared memory ----------------===//

#include "passes/Passes.h"
#include "passes/SharedMemory.h"

#include "dialect/TileLayouts.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

int64_t mlir::tile::getScratchElementBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

int64_t mlir::tile::getScratchBytes(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    auto src = cast<RankedTensorType>(reduce.getSrc().getType());
    FailureOr<Distribution> dist = getDistribution(src);
    if (failed(dist))
      return 0;
    unsigned blockedDim = dist->tileDims[reduce.getDim()];
    int64_t warps = dist->blocked.getWarpsPerCTA()[blockedDim];
    if (warps == 1)
      return 0;
    int64_t rows = src.getNumElements() / src.getDimSize(reduce.getDim());
    return rows * warps * getScratchElementBytes(src.getElementType());
  }
  if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
    auto src = cast<RankedTensorType>(convert.getSrc().getType());
    return src.getNumElements() * getScratchElementBytes(src.getElementType());
  }
  return 0;
}

namespace {
struct AllocateSharedPass
    : public tile::impl::TileAllocateSharedBase<AllocateSharedPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      if (!isKernel(func))
        return;
      int64_t bytes = 0;
      func.walk([&](Operation *op) {
        bytes = std::max(bytes, getScratchBytes(op));
      });
      // 16-byte granules keep vector accesses to scratch aligned.
      bytes = llvm::alignTo(bytes, 16);
      func->setAttr(TileDialect::kSharedBytesAttrName,
                    Builder(func).getI64IntegerAttr(bytes));
    });
  }
};
} // namespace
