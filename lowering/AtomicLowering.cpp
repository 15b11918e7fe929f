//===- AtomicLowering.cpp - global atomics and fences --------------------===//
//
// tile.atomic: a tile element may be held by several threads (replicated
// layouts), but its read-modify-write must happen once: the holder whose
// coordinate does not wrap (isElementOwner, known without communication)
// performs the atomic, and the previous value travels back to every
// holder through scratch. tile.fence is a GPU-scope membar.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "passes/SharedMemory.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

FailureOr<LLVM::AtomicBinOp> getAtomicBinOp(CombineKind kind, Type type) {
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case CombineKind::Add:
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case CombineKind::Max:
    return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case CombineKind::Min:
    return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  case CombineKind::Exch:
    return LLVM::AtomicBinOp::xchg;
  case CombineKind::And:
  case CombineKind::Or:
  case CombineKind::Xor:
    if (isFloat)
      return failure();
    return kind == CombineKind::And  ? LLVM::AtomicBinOp::_and
           : kind == CombineKind::Or ? LLVM::AtomicBinOp::_or
                                     : LLVM::AtomicBinOp::_xor;
  case CombineKind::Mul:
    return failure();
  }
  return failure();
}

struct AtomicLowering : public OpConversionPattern<AtomicOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AtomicOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto valueType = cast<RankedTensorType>(op.getValue().getType());
    FailureOr<Distribution> dist = getLaidOutDistribution(op, valueType);
    if (failed(dist) ||
        failed(requireLayoutOf(op, op.getIndices(), valueType,
                               "indices must have the layout of the value")))
      return failure();
    Type elementType = adaptor.getValue().front().getType();
    FailureOr<LLVM::AtomicBinOp> binOp =
        getAtomicBinOp(op.getKind(), elementType);
    if (failed(binOp) || elementType.isInteger(1))
      return op.emitOpError("has no atomic form for ")
             << stringifyCombineKind(op.getKind()) << " on " << elementType;

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    unsigned rank = op.getIndices().size();
    ValueRange view = adaptor.getView();
    Value base = view[0];
    ValueRange sizes = view.slice(1, rank),
               strides = view.slice(1 + rank, rank);
    int64_t numElements = valueType.getNumElements();
    int64_t perThread = dist->numElements();
    int64_t total = 0;
    SmallVector<int64_t> offsets =
        getScratchArrayOffsets({i32, elementType}, numElements, total);
    Value resultStart =
        i32Const(b, loc, offsets[1] / getScratchElementBytes(elementType));

    // The barrier also orders the CTA's earlier accesses (and a fence
    // before this op) ahead of the atomics.
    ctaBarrier(b, loc);
    ThreadPosition pos = getThreadPosition(b, loc, *dist);
    SmallVector<Value> slots;
    for (int64_t e = 0; e < perThread; ++e)
      slots.push_back(linearize(b, loc, getElementCoords(b, loc, *dist, pos, e),
                                valueType.getShape()));
    for (int64_t e = 0; e < perThread; ++e) {
      // The one holder whose coordinate does not wrap performs it.
      Value owner = isElementOwner(b, loc, *dist, pos, e);
      auto ownerIf = scf::IfOp::create(b, loc, owner, /*withElse=*/false);
      OpBuilder ob = OpBuilder::atBlockBegin(&ownerIf.getThenRegion().front());
      SmallVector<Value> coords;
      Value inBounds;
      for (unsigned d = 0; d < rank; ++d) {
        Value coord =
            getViewCoord(ob, loc, adaptor.getIndices()[d][e], Value());
        coords.push_back(coord);
        // Unsigned compare also rejects negative coordinates.
        Value inside = LLVM::ICmpOp::create(ob, loc, LLVM::ICmpPredicate::ult,
                                            coord, sizes[d]);
        inBounds =
            inBounds ? LLVM::AndOp::create(ob, loc, inBounds, inside) : inside;
      }
      Value resultSlot = LLVM::AddOp::create(ob, loc, resultStart, slots[e]);
      // Skipped elements read back zero.
      storeScratch(ob, loc, op,
                   getIdentity(ob, loc, CombineKind::Exch, elementType),
                   resultSlot);
      auto boundsIf = scf::IfOp::create(ob, loc, inBounds, /*withElse=*/false);
      OpBuilder ib = OpBuilder::atBlockBegin(&boundsIf.getThenRegion().front());
      Value address =
          getViewElementAddress(ib, loc, base, elementType, strides, coords);
      Value old = LLVM::AtomicRMWOp::create(ib, loc, *binOp, address,
                                            adaptor.getValue()[e],
                                            LLVM::AtomicOrdering::monotonic);
      storeScratch(ib, loc, op, old, resultSlot);
    }
    ctaBarrier(b, loc);
    SmallVector<Value> results;
    for (Value slot : slots)
      results.push_back(
          loadScratch(b, loc, op, elementType,
                      LLVM::AddOp::create(b, loc, resultStart, slot)));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct FenceLowering : public OpConversionPattern<FenceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The barriers make the fence cover the whole program: accesses of
    // every thread before it are released by each thread's fence, and each
    // thread's later accesses follow every fence. Release/acquire at GPU
    // scope is what a hand-off needs; a sequentially consistent membar.gl
    // costs more.
    Location loc = op.getLoc();
    ctaBarrier(rewriter, loc);
    LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel,
                          "device");
    ctaBarrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateAtomicPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<AtomicLowering, FenceLowering>(converter, patterns.getContext());
}
