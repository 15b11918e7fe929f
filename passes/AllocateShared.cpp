//===- AllocateShared.cpp - size per-kernel shared memory ----------------===//

#include "passes/Passes.h"
#include "passes/SharedMemory.h"

#include "dialect/TargetInfo.h"
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

SmallVector<int64_t>
mlir::tile::getScratchArrayOffsets(ArrayRef<Type> elementTypes,
                                   int64_t numElements, int64_t &totalBytes) {
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (Type type : elementTypes) {
    // 8-byte starts keep every array aligned for its element type.
    offset = llvm::alignTo(offset, 8);
    offsets.push_back(offset);
    offset += numElements * getScratchElementBytes(type);
  }
  totalBytes = offset;
  return offsets;
}

SortNetwork mlir::tile::getSortNetwork(Operation *op) {
  auto sort = cast<SortOp>(op);
  auto keys = cast<RankedTensorType>(sort.getKeys().getType());
  FailureOr<Distribution> dist = getDistribution(keys);
  if (failed(dist))
    return SortNetwork::Scratch;
  unsigned bd = dist->tileDims[sort.getDim()];
  int64_t warps = dist->blocked.getWarpsPerCTA()[bd];
  int64_t warpSpan = int64_t(dist->blocked.getSizePerThread()[bd]) *
                     dist->blocked.getThreadsPerWarp()[bd];
  // Each warp holds the whole dimension once: no warps along it, or warps
  // that only replicate a dimension its lanes already cover.
  if (warps == 1 ? !dist->wraps(bd)
                 : keys.getDimSize(sort.getDim()) == warpSpan)
    return SortNetwork::Warp;
  // Warps spread over the dimension and nothing is replicated along it,
  // and the unrolled network stays moderate: at most 528 element-steps per
  // thread, a 2048-key sort with eight keys per thread (about 5k PTX
  // instructions for 64-bit keys, 9 of its 66 stages across warps). The
  // scratch network loops instead, but pays a barrier and a chain of
  // dependent shared-memory round trips in every stage.
  int64_t extent = keys.getDimSize(sort.getDim());
  int64_t levels = llvm::Log2_64(extent) - llvm::Log2_64(sort.getRuns());
  int64_t steps =
      levels * (levels + 1) / 2 + levels * llvm::Log2_64(sort.getRuns());
  if (warps > 1 && !dist->wraps(bd) && dist->numElements() * steps <= 528)
    return SortNetwork::Exchange;
  return SortNetwork::Scratch;
}

std::optional<DotStaging> mlir::tile::getDotStaging(Operation *op) {
  auto dot = cast<DotOp>(op);
  auto acc = cast<RankedTensorType>(dot.getResult().getType());
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(acc.getEncoding());
  if (!mma)
    return std::nullopt;
  DotStaging s;
  s.m = acc.getDimSize(0);
  s.n = acc.getDimSize(1);
  s.k = cast<RankedTensorType>(dot.getA().getType()).getDimSize(1);
  // The instruction's K covers 32 bytes of each operand row.
  s.elementBytes = 32 / mma.getInstrShape()[2];
  s.rowBytes = s.k * s.elementBytes;
  s.swizzleBytes = getSwizzleBytes(s.rowBytes);
  // Each operand starts on a swizzle-pattern boundary (1024 bytes).
  s.offsetB = llvm::alignTo(s.m * s.rowBytes, 1024);
  s.totalBytes = s.offsetB + s.n * s.rowBytes;
  return s;
}

int64_t mlir::tile::getStageBytes(Type type) {
  auto buffer = cast<SharedBufferType>(type);
  ArrayRef<int64_t> shape = buffer.getShape();
  return llvm::alignTo(shape[1] * shape[2] *
                           getScratchElementBytes(buffer.getElementType()),
                       1024);
}

int64_t mlir::tile::getSharedBufferBytes(Type type) {
  auto buffer = cast<SharedBufferType>(type);
  if (buffer.getShape().size() == 3)
    return buffer.getShape()[0] * getStageBytes(buffer);
  return llvm::alignTo(buffer.getShape()[0] *
                           getScratchElementBytes(buffer.getElementType()),
                       16);
}

/// Whether dot operand `v` is read in place from a buffer stage.
static bool isReadInPlace(Value v) {
  if (auto transpose = v.getDefiningOp<TransposeOp>())
    v = transpose.getSrc();
  return v.getDefiningOp<LoadStageOp>() != nullptr;
}

bool mlir::tile::scansTotalsByLine(int64_t lines, int64_t chunks, int64_t reps,
                                   int64_t threads) {
  // Every thread reads `chunks` totals per line it holds, against `reps`
  // prefixes after one more barrier; a few lines (a 1-D tile's one) would
  // leave the scanning to a few threads while the others wait.
  return reps > 1 && chunks >= 16 && lines >= 32 && lines <= threads;
}

int64_t mlir::tile::getScratchBytes(Operation *op) {
  if (auto dot = dyn_cast<DotOp>(op)) {
    std::optional<DotStaging> staging = getDotStaging(op);
    if (!staging || (isReadInPlace(dot.getA()) && isReadInPlace(dot.getB())))
      return 0;
    // A is staged at 0 and B at offsetB: with B read in place (a ring of
    // K or V rows), only A's rows take scratch.
    if (isReadInPlace(dot.getB()))
      return staging->offsetB;
    return staging->totalBytes;
  }
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
    return getPaddedScratchElements(rows * warps, kPartialScratchPeriod) *
           getScratchElementBytes(src.getElementType());
  }
  if (auto scan = dyn_cast<ScanOp>(op)) {
    // One partial per (row, repetition, warp) along the scanned dimension.
    auto src = cast<RankedTensorType>(scan.getSrc().getType());
    FailureOr<Distribution> dist = getDistribution(src);
    if (failed(dist))
      return 0;
    unsigned bd = dist->tileDims[scan.getDim()];
    int64_t chunks = dist->perThread[bd] /
                     dist->blocked.getSizePerThread()[bd] *
                     dist->blocked.getWarpsPerCTA()[bd];
    if (chunks == 1)
      return 0;
    int64_t rows = src.getNumElements() / src.getDimSize(scan.getDim());
    int64_t reps = dist->perThread[bd] / dist->blocked.getSizePerThread()[bd];
    int64_t threads = 32;
    for (int64_t w : dist->blocked.getWarpsPerCTA())
      threads *= w;
    // Line by line, the line's total takes one more slot.
    int64_t slots =
        scansTotalsByLine(rows, chunks, reps, threads) ? chunks + 1 : chunks;
    return getPaddedScratchElements(rows * slots, kPartialScratchPeriod) *
           getScratchElementBytes(src.getElementType());
  }
  if (auto sort = dyn_cast<SortOp>(op)) {
    SortNetwork network = getSortNetwork(sort);
    if (network == SortNetwork::Warp)
      return 0;
    SmallVector<Type> types;
    for (Value v : sort->getOperands())
      types.push_back(cast<RankedTensorType>(v.getType()).getElementType());
    int64_t total = 0;
    getScratchArrayOffsets(
        types,
        cast<RankedTensorType>(sort.getKeys().getType()).getNumElements(),
        total);
    return network == SortNetwork::Exchange ? 2 * total : total;
  }
  if (auto histogram = dyn_cast<HistogramOp>(op))
    return cast<RankedTensorType>(histogram.getResult().getType())
               .getNumElements() *
           4;
  if (auto scatter = dyn_cast<ScatterOp>(op)) {
    auto dest = cast<RankedTensorType>(scatter.getDest().getType());
    return dest.getNumElements() *
           getScratchElementBytes(dest.getElementType());
  }
  if (auto atomic = dyn_cast<AtomicOp>(op)) {
    // Owner election tags, then the previous values.
    auto value = cast<RankedTensorType>(atomic.getValue().getType());
    int64_t total = 0;
    getScratchArrayOffsets(
        {IntegerType::get(op->getContext(), 32), value.getElementType()},
        value.getNumElements(), total);
    return total;
  }
  if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
    auto src = cast<RankedTensorType>(convert.getSrc().getType());
    // Tensor memory is read straight into registers (tcgen05.ld).
    if (isTensorMemoryLayout(src.getEncoding()))
      return 0;
    return getPaddedScratchElements(src.getNumElements(),
                                    getConvertScratchPeriod(src)) *
           getScratchElementBytes(src.getElementType());
  }
  return 0;
}

int64_t mlir::tile::getPaddedScratchElements(int64_t numElements,
                                             int64_t period) {
  if (period == 0)
    return numElements;
  // The last element, numElements - 1, lands at numElements - 1 plus its
  // padding.
  return numElements ? numElements + (numElements - 1) / period : 0;
}

int64_t mlir::tile::getConvertScratchPeriod(RankedTensorType type) {
  // Rows of one element: lanes walk the array itself, no columns.
  if (type.getRank() < 2)
    return 0;
  int64_t last = type.getShape().back();
  return llvm::isPowerOf2_64(last) && last >= 32 ? last : 32;
}

bool mlir::tile::hasTcgen05Dot(Operation *func) {
  WalkResult result = func->walk([](DotOp dot) {
    return isTensorMemoryLayout(
               cast<RankedTensorType>(dot.getResult().getType()).getEncoding())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

namespace {
/// The most dynamic shared memory one CTA may use on `target` (the
/// opt-in limit), or 0 when the target is not known.
int64_t getSharedMemoryLimit(StringRef target) {
  std::optional<TargetInfo> info = TargetInfo::get(target);
  return info ? info->getMaxSharedBytes() : 0;
}

struct AllocateSharedPass
    : public tile::impl::TileAllocateSharedBase<AllocateSharedPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef target;
    if (auto attr =
            module->getAttrOfType<StringAttr>(TileDialect::kTargetAttrName))
      target = attr.getValue();
    int64_t limit = getSharedMemoryLimit(target);
    WalkResult result = module.walk([&](func::FuncOp func) {
      if (!isKernel(func))
        return WalkResult::advance();
      int64_t bytes = 0;
      func.walk(
          [&](Operation *op) { bytes = std::max(bytes, getScratchBytes(op)); });
      // 16-byte granules keep vector accesses to scratch aligned.
      bytes = llvm::alignTo(bytes, 16);
      // Named buffers follow the scratch area, each 16-byte aligned;
      // swizzled ones start on a 1024-byte swizzle period.
      func.walk([&](AllocSharedOp alloc) {
        SharedBufferType type = alloc.getResult().getType();
        if (type.getSwizzle())
          bytes = llvm::alignTo(bytes, 1024);
        alloc.setOffsetAttr(Builder(alloc).getI64IntegerAttr(bytes));
        bytes += getSharedBufferBytes(type);
      });
      if (hasTcgen05Dot(func))
        bytes = llvm::alignTo(bytes, 16) + kTcgen05WordsBytes;
      func->setAttr(TileDialect::kSharedBytesAttrName,
                    Builder(func).getI64IntegerAttr(bytes));
      if (limit && bytes > limit) {
        func.emitError() << "kernel '" << func.getSymName() << "' needs "
                         << bytes << " bytes of shared memory; " << target
                         << " allows " << limit
                         << " per program: use smaller tiles or fewer "
                            "pipeline stages (num-stages)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
