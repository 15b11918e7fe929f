//===- TileLayouts.cpp - static layout arithmetic ------------------------===//

#include "dialect/TileLayouts.h"
#include "dialect/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

int64_t Distribution::numElements() const {
  int64_t n = 1;
  for (int64_t p : perThread)
    n *= p;
  return n;
}

int64_t Distribution::ctaTile(unsigned d) const {
  return int64_t(blocked.getSizePerThread()[d]) *
         blocked.getThreadsPerWarp()[d] * blocked.getWarpsPerCTA()[d];
}

// Elements are numbered with the layout's fastest dimension varying fastest,
// so the `size` consecutive elements of a thread along it are neighbours in
// the list and can be moved with one vector access.
SmallVector<int64_t> Distribution::localIndex(int64_t e) const {
  SmallVector<int64_t> local(blockedRank(), 0);
  for (unsigned d : blocked.getOrder()) {
    local[d] = e % perThread[d];
    e /= perThread[d];
  }
  return local;
}

int64_t Distribution::elementOf(ArrayRef<int64_t> local) const {
  int64_t e = 0;
  for (unsigned d : llvm::reverse(blocked.getOrder()))
    e = e * perThread[d] + local[d];
  return e;
}

SmallVector<int64_t> Distribution::offsets(int64_t e) const {
  SmallVector<int64_t> local = localIndex(e);
  SmallVector<int64_t> result(blockedRank());
  for (unsigned d = 0; d < blockedRank(); ++d) {
    int64_t size = blocked.getSizePerThread()[d];
    result[d] = (local[d] / size) * ctaTile(d) + local[d] % size;
  }
  return result;
}

unsigned Distribution::laneStride(unsigned d) const {
  unsigned stride = 1;
  for (unsigned o : blocked.getOrder()) {
    if (o == d)
      return stride;
    stride *= blocked.getThreadsPerWarp()[o];
  }
  llvm_unreachable("dimension not in order");
}

unsigned Distribution::warpStride(unsigned d) const {
  unsigned stride = 1;
  for (unsigned o : blocked.getOrder()) {
    if (o == d)
      return stride;
    stride *= blocked.getWarpsPerCTA()[o];
  }
  llvm_unreachable("dimension not in order");
}

static FailureOr<Distribution> distribute(Attribute layout,
                                          ArrayRef<int64_t> shape) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout)) {
    if (blocked.getLayoutRank() != shape.size())
      return failure();
    Distribution dist;
    dist.blocked = blocked;
    dist.blockedShape.assign(shape.begin(), shape.end());
    for (unsigned d = 0; d < shape.size(); ++d) {
      if (!llvm::isPowerOf2_64(shape[d]))
        return failure();
      int64_t size = blocked.getSizePerThread()[d];
      int64_t reps = std::max<int64_t>(1, shape[d] / dist.ctaTile(d));
      dist.perThread.push_back(size * reps);
      dist.tileDims.push_back(d);
    }
    return dist;
  }
  if (auto mma = dyn_cast<MmaLayoutAttr>(layout)) {
    BlockedLayoutAttr blocked = getMmaBlockedEquivalent(mma);
    if (!blocked)
      return failure();
    return distribute(blocked, shape);
  }
  if (auto slice = dyn_cast<SliceLayoutAttr>(layout)) {
    SmallVector<int64_t> parentShape(shape);
    if (slice.getDim() > parentShape.size())
      return failure();
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    FailureOr<Distribution> dist = distribute(slice.getParent(), parentShape);
    if (failed(dist))
      return failure();
    unsigned blockedDim = dist->tileDims[slice.getDim()];
    dist->perThread[blockedDim] = 1;
    dist->tileDims.erase(dist->tileDims.begin() + slice.getDim());
    return dist;
  }
  return failure();
}

FailureOr<Distribution> mlir::tile::getDistribution(RankedTensorType type) {
  if (!type.getEncoding())
    return failure();
  return distribute(type.getEncoding(), type.getShape());
}

Distribution mlir::tile::getReducedDistribution(const Distribution &src,
                                                unsigned dim) {
  Distribution result = src;
  unsigned blockedDim = src.tileDims[dim];
  result.perThread[blockedDim] = 1;
  result.blockedShape[blockedDim] = 1;
  result.tileDims.erase(result.tileDims.begin() + dim);
  return result;
}

BlockedLayoutAttr mlir::tile::getDefaultLayout(MLIRContext *context,
                                               ArrayRef<int64_t> shape,
                                               unsigned elementBits,
                                               unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> size(rank, 1), threads(rank, 1), warps(rank, 1), order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);

  // Up to 16 bytes per thread along the contiguous dimension, but never so
  // many that threads sit idle on a small tile.
  int64_t numElements = 1;
  for (int64_t extent : shape)
    numElements *= extent;
  int64_t perThreadCap =
      std::max<int64_t>(1, numElements / (int64_t(numWarps) * 32));
  unsigned vectorElems = std::max(1u, 128u / std::max(1u, elementBits));
  size[rank - 1] = std::min<int64_t>(
      {vectorElems, std::max<int64_t>(1, shape[rank - 1]), perThreadCap});

  // Lanes: fastest dimension first, never more than the extent allows;
  // surplus lanes replicate along the fastest dimension.
  unsigned lanesLeft = 32;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / size[d]);
    unsigned take = std::min<int64_t>(lanesLeft, room);
    threads[d] = take;
    lanesLeft /= take;
  }
  threads[order.front()] *= lanesLeft;

  // Warps: slowest dimension first, so reductions along the fast dimension
  // stay inside a warp whenever the shape allows.
  unsigned warpsLeft = numWarps;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t room =
        std::max<int64_t>(1, shape[d] / (int64_t(size[d]) * threads[d]));
    unsigned take = std::min<int64_t>(warpsLeft, room);
    warps[d] = take;
    warpsLeft /= take;
  }
  warps[0] *= warpsLeft;
  return BlockedLayoutAttr::get(context, size, threads, warps, order);
}

BlockedLayoutAttr mlir::tile::getMmaBlockedEquivalent(MmaLayoutAttr mma) {
  if (mma.getVersion() != 2 && mma.getVersion() != 3)
    return {};
  return BlockedLayoutAttr::get(mma.getContext(), {1, 2}, {8, 4},
                                mma.getWarpsPerCTA(), {1, 0});
}

bool mlir::tile::isTensorMemoryLayout(Attribute layout) {
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(layout);
  return mma && mma.getVersion() == 5;
}

BlockedLayoutAttr mlir::tile::getTmemLoadLayout(MmaLayoutAttr mma) {
  if (mma.getVersion() != 5 || mma.getWarpsPerCTA()[0] != 4)
    return {};
  unsigned columnWarps = mma.getWarpsPerCTA()[1];
  unsigned columns = mma.getInstrShape()[1] / columnWarps;
  if (!columns || !llvm::isPowerOf2_32(columns))
    return {};
  // Order [0, 1]: warp ids run along rows first, so w % 4 is the lane
  // quarter and w / 4 the column block.
  return BlockedLayoutAttr::get(mma.getContext(), {1, columns}, {32, 1},
                                {4, columnWarps}, {0, 1});
}

Attribute mlir::tile::getTransposedLayout(Attribute layout) {
  if (auto mma = dyn_cast<MmaLayoutAttr>(layout))
    layout = getMmaBlockedEquivalent(mma);
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!blocked || blocked.getLayoutRank() != 2)
    return {};
  auto swap = [](ArrayRef<unsigned> v) {
    return SmallVector<unsigned>{v[1], v[0]};
  };
  SmallVector<unsigned> order;
  for (unsigned d : blocked.getOrder())
    order.push_back(1 - d);
  return BlockedLayoutAttr::get(
      blocked.getContext(), swap(blocked.getSizePerThread()),
      swap(blocked.getThreadsPerWarp()), swap(blocked.getWarpsPerCTA()), order);
}

unsigned mlir::tile::getSwizzleBytes(int64_t rowBytes) {
  if (rowBytes >= 128)
    return 128;
  if (rowBytes >= 64)
    return 64;
  if (rowBytes >= 32)
    return 32;
  return 0;
}

bool mlir::tile::isElementwiseArith(Operation *op) {
  return op->getDialect() &&
         op->getDialect()->getNamespace() ==
             arith::ArithDialect::getDialectNamespace() &&
         op->getNumResults() == 1 && op->getNumRegions() == 0 &&
         isa<RankedTensorType>(op->getResult(0).getType()) &&
         !isa<arith::ConstantOp>(op);
}

/// isRematerializable, looking at most `depth` ops up: expressions deeper
/// than an index compared with a bound are not worth rebuilding, and the
/// bound keeps shared subexpressions from making the walk exponential.
static bool isRematerializableWithin(Value value, unsigned depth) {
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0)
    return false;
  if (isa<SplatOp, IotaOp, arith::ConstantOp>(def))
    return true;
  if (isa<BroadcastOp, ExpandDimsOp, ConvertLayoutOp>(def))
    return isRematerializableWithin(def->getOperand(0), depth - 1);
  if (isElementwiseArith(def))
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return !isa<RankedTensorType>(operand.getType()) ||
             isRematerializableWithin(operand, depth - 1);
    });
  return false;
}

bool mlir::tile::isRematerializable(Value value) {
  return isRematerializableWithin(value, /*depth=*/8);
}

/// isReloadable, looking at most `depth` ops up.
static bool isReloadableWithin(Value value, unsigned depth) {
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0 || !value.hasOneUse())
    return false;
  auto blocked = [](Value v) {
    return isa<BlockedLayoutAttr>(
        cast<RankedTensorType>(v.getType()).getEncoding());
  };
  auto rebuildableMask = [](Value mask) {
    return !mask || isRematerializable(mask);
  };
  // A row read into a slice layout (to broadcast it) can be read again
  // into another slice.
  auto blockedOrSlice = [&](Value v) {
    return blocked(v) || isa<SliceLayoutAttr>(
                             cast<RankedTensorType>(v.getType()).getEncoding());
  };
  if (auto load = dyn_cast<LoadOp>(def))
    return blockedOrSlice(value) && rebuildableMask(load.getMask());
  if (auto load = dyn_cast<LoadSharedOp>(def))
    return blockedOrSlice(value) && rebuildableMask(load.getMask());
  if (!isElementwiseArith(def))
    return false;
  bool loads = false;
  for (Value operand : def->getOperands()) {
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    if (isReloadableWithin(operand, depth - 1))
      loads = true;
    else if (!isRematerializableWithin(operand, depth - 1))
      return false;
  }
  return loads;
}

bool mlir::tile::isReloadable(Value value) {
  return isReloadableWithin(value, /*depth=*/4);
}
