//===- ClusterLowering.cpp - clusters and shared buffers -----------------===//
//
// Programs of a thread-block cluster cooperate through shared buffers:
// tile.alloc_shared is a pointer into the kernel's dynamic shared memory at
// the offset tile-allocate-shared chose; tile.store_shared moves each
// element to its row-major place, through mapa and st.shared::cluster when
// the buffer is another program's; tile.load_shared reads this program's
// buffer; tile.cluster_barrier is barrier.cluster.arrive (release) plus
// barrier.cluster.wait (acquire). Accesses are per element and predicated
// on the mask and the buffer's end. Targets without clusters (sm_80) run
// every program as a cluster of one: size 1, rank 0, a CTA barrier, and
// stores to this program's buffer.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Buffer indices of the elements of `tile` placed at `offset` in a rank-1
/// buffer of `size` elements, and whether each is accessed (in bounds and,
/// with a mask, selected).
struct SharedPlaces {
  SmallVector<Value> index;
  SmallVector<Value> active;
};

/// With `owned`, only one of the threads holding a replicated element
/// accesses it (stores: replicas writing the same address race, even with
/// the same value).
SharedPlaces placeInBuffer(OpBuilder &b, Location loc, const Distribution &dist,
                           RankedTensorType tile, Value offset, int64_t size,
                           ValueRange mask, bool owned = false) {
  SharedPlaces places;
  ThreadPosition pos = getThreadPosition(b, loc, dist);
  for (int64_t e = 0; e < dist.numElements(); ++e) {
    Value linear = linearize(b, loc, getElementCoords(b, loc, dist, pos, e),
                             tile.getShape());
    Value index = LLVM::AddOp::create(b, loc, linear, offset);
    places.index.push_back(index);
    // Unsigned: a negative offset is out of bounds too.
    Value active = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, index,
                                        i32Const(b, loc, size));
    if (!mask.empty())
      active = LLVM::AndOp::create(b, loc, active, mask[e]);
    if (owned)
      active = LLVM::AndOp::create(b, loc, active,
                                   isElementOwner(b, loc, dist, pos, e));
    places.active.push_back(active);
  }
  return places;
}

/// The distribution of the accessed tile, after checking that it has one
/// and that the mask (if any) shares its layout.
FailureOr<Distribution>
getAccessDistribution(Operation *op, RankedTensorType tile, Value mask) {
  FailureOr<Distribution> dist = getLaidOutDistribution(op, tile);
  if (succeeded(dist) && mask &&
      failed(requireLayoutOf(op, mask, tile,
                             "mask must have the layout of the tile")))
    return failure();
  return dist;
}

Value elementAddress(OpBuilder &b, Location loc, Value base, Type element,
                     Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), element, base,
                             ValueRange{index});
}

/// Patterns that lower differently where the target has no clusters.
template <typename Op>
struct ClusterAwarePattern : public OpConversionPattern<Op> {
  ClusterAwarePattern(TileTypeConverter &converter, bool hasClusters)
      : OpConversionPattern<Op>(converter, &converter.getContext()),
        hasClusters(hasClusters) {}
  bool hasClusters;
};

struct AllocSharedLowering : public OpConversionPattern<AllocSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllocSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError("has no offset; run tile-allocate-shared first");
    Location loc = op.getLoc();
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value base =
        LLVM::AddressOfOp::create(rewriter, loc, ptrType, kSharedMemorySymbol);
    Value at = LLVM::GEPOp::create(
        rewriter, loc, ptrType, rewriter.getI8Type(), base,
        ValueRange{i32Const(rewriter, loc, int64_t(*op.getOffset()))});
    rewriter.replaceOp(op, at);
    return success();
  }
};

struct StoreSharedLowering : public ClusterAwarePattern<StoreSharedOp> {
  using ClusterAwarePattern::ClusterAwarePattern;
  LogicalResult
  matchAndRewrite(StoreSharedOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = cast<RankedTensorType>(op.getValue().getType());
    FailureOr<Distribution> dist =
        getAccessDistribution(op, tile, op.getMask());
    if (failed(dist))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SharedBufferType bufferType = op.getBuffer().getType();
    Type element = getTypeConverter()->convertType(tile.getElementType());
    Value base = adaptor.getBuffer().front();
    if (!adaptor.getRank().empty() && hasClusters) {
      // The same offset in the shared window of program `rank`.
      auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
      base = NVVM::MapaOp::create(b, loc, clusterPtr, base,
                                  adaptor.getRank().front());
    }
    SharedPlaces places =
        placeInBuffer(b, loc, *dist, tile, adaptor.getOffset().front(),
                      bufferType.getShape()[0], adaptor.getMask(),
                      /*owned=*/true);
    ValueRange values = adaptor.getValue();
    for (int64_t e = 0; e < dist->numElements(); ++e) {
      scf::IfOp::create(
          b, loc, places.active[e], [&](OpBuilder &tb, Location l) {
            LLVM::StoreOp::create(
                tb, l, values[e],
                elementAddress(tb, l, base, element, places.index[e]));
            scf::YieldOp::create(tb, l);
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct LoadSharedLowering : public OpConversionPattern<LoadSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadSharedOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = cast<RankedTensorType>(op.getResult().getType());
    FailureOr<Distribution> dist =
        getAccessDistribution(op, tile, op.getMask());
    if (failed(dist))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type element = getTypeConverter()->convertType(tile.getElementType());
    Attribute padAttr = op.getPaddingAttr()
                            ? op.getPaddingAttr()
                            : b.getZeroAttr(tile.getElementType());
    Value pad =
        LLVM::ConstantOp::create(b, loc, element, cast<TypedAttr>(padAttr));
    Value base = adaptor.getBuffer().front();
    SharedPlaces places = placeInBuffer(
        b, loc, *dist, tile, adaptor.getOffset().front(),
        op.getBuffer().getType().getShape()[0], adaptor.getMask());
    SmallVector<Value> results;
    for (int64_t e = 0; e < dist->numElements(); ++e) {
      auto ifOp = scf::IfOp::create(
          b, loc, places.active[e],
          [&](OpBuilder &tb, Location l) {
            Value v = LLVM::LoadOp::create(
                tb, l, element,
                elementAddress(tb, l, base, element, places.index[e]));
            scf::YieldOp::create(tb, l, v);
          },
          [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, pad); });
      results.push_back(ifOp.getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct ClusterBarrierLowering : public ClusterAwarePattern<ClusterBarrierOp> {
  using ClusterAwarePattern::ClusterAwarePattern;
  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!hasClusters) {
      ctaBarrier(rewriter, loc);
    } else {
      // Every warp of every program executes it: the aligned forms apply.
      NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
      NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A special register, or `single` (the value for a cluster of one).
template <typename TileOp, typename RegisterOp, int64_t single>
struct ClusterQueryLowering : public ClusterAwarePattern<TileOp> {
  using ClusterAwarePattern<TileOp>::ClusterAwarePattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!this->hasClusters)
      rewriter.replaceOp(op, i32Const(rewriter, op.getLoc(), single));
    else
      rewriter.replaceOpWithNewOp<RegisterOp>(op, rewriter.getI32Type());
    return success();
  }
};
} // namespace

void mlir::tile::populateClusterPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         StringRef target) {
  bool hasClusters = TargetInfo::get(target)->hasClusters();
  patterns.add<AllocSharedLowering, LoadSharedLowering>(converter,
                                                        patterns.getContext());
  patterns.add<StoreSharedLowering, ClusterBarrierLowering,
               ClusterQueryLowering<ClusterSizeOp, NVVM::ClusterDim, 1>,
               ClusterQueryLowering<ClusterRankOp, NVVM::ClusterId, 0>>(
      converter, hasClusters);
}
