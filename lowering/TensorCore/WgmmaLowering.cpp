//===- WgmmaLowering.cpp - tile.dot on wgmma (sm_90a) ---------------------===//
//
// A dot whose accumulator has a `#tile.mma<version = 3, warps = [W, 1],
// instr = [64, N, k]>` layout runs on the warpgroup instruction
// `wgmma.mma_async` (m64nNk16 for 16-bit operands, m64nNk32 for fp8), with
// both operands read from shared memory through matrix descriptors:
//
//  1. the operands are read in place from the buffer stage they were
//     copied into (tile.load_stage, see AsyncCopyLowering.cpp), or staged
//     from registers as for mma.sync (OperandStaging.h): either way K-major
//     rows of 32, 64 or 128 bytes in the matching swizzle pattern, which is
//     exactly the layout a K-major descriptor with that swizzle mode
//     describes (8-row groups 8·rowBytes apart), A's rows permuted (see
//     getWgmmaStagedRow) so that the rows the accumulator layout gives a
//     warpgroup form its m64 blocks;
//  2. after staging from registers, a proxy fence makes the generic-proxy
//     stores visible to the tensor cores and a barrier waits for every
//     thread's stores (tile.async_wait does both for copied stages);
//  3. each warpgroup issues, per m64 block and K step, one wgmma whose
//     descriptors advance 32 bytes along the swizzled rows; the group is
//     committed and waited for before the accumulator is read, unless the
//     dot is `async`: then a tile.dot_wait waits (wgmma.wait_group N), so
//     that the next iteration's dot is issued while this one runs.
//
// The accumulator fragment of wgmma (warp q of a warpgroup: rows 16q +
// lane/4 (+8), columns 8s + 2·(lane%4) (+1)) is the blocked layout of
// getMmaBlockedEquivalent with rows renamed, so the epilogue reads it in
// registers.
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"
#include "lowering/TensorCore/OperandStaging.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The constant part of a K-major shared-memory matrix descriptor for rows
/// of `s`: leading byte offset 16 (unused when swizzled), stride byte
/// offset between 8-row groups, swizzle mode (1: 128 B, 2: 64 B, 3: 32 B).
uint64_t descriptorBits(const DotStaging &s) {
  uint64_t stride = 8 * s.rowBytes;
  uint64_t mode = s.swizzleBytes == 128  ? 1
                  : s.swizzleBytes == 64 ? 2
                  : s.swizzleBytes == 32 ? 3
                                         : 0;
  return (uint64_t(16 >> 4) << 16) | ((stride >> 4) << 32) | (mode << 62);
}

/// The descriptor of the rows starting `byteOffset` bytes into scratch:
/// the shared address (>> 4) in bits 0-13 over the constant bits.
Value makeDescriptor(OpBuilder &b, Location loc, Value scratchBase,
                     int64_t byteOffset, uint64_t bits) {
  Value addr =
      LLVM::AddOp::create(b, loc, scratchBase, i32Const(b, loc, byteOffset));
  Value field = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, addr, i32Const(b, loc, 4)),
      i32Const(b, loc, 0x3FFF));
  Value wide = LLVM::ZExtOp::create(b, loc, b.getI64Type(), field);
  return LLVM::OrOp::create(b, loc, wide, i64Const(b, loc, int64_t(bits)));
}

NVVM::WGMMATypes getWgmmaType(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(element))
    return NVVM::WGMMATypes::e5m2;
  if (element.isF16())
    return NVVM::WGMMATypes::f16;
  return NVVM::WGMMATypes::bf16;
}

struct DotWgmmaLowering : public OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto accType = cast<RankedTensorType>(op.getResult().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(accType.getEncoding());
    if (!mma || mma.getVersion() != 3)
      return failure();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    Type element = aType.getElementType();
    std::optional<DotStaging> s = getDotStaging(op);
    int64_t warps = mma.getWarpsPerCTA()[0];
    ArrayRef<unsigned> instr = mma.getInstrShape();
    int64_t k = instr[2];
    if (mma.getWarpsPerCTA()[1] != 1 || warps % 4 != 0 ||
        s->m % (16 * warps) != 0 || instr[0] != 64 || instr[1] != s->n ||
        s->n % 8 != 0 || s->n > 256 || s->k % k != 0 ||
        s->elementBytes * k != 32 || s->rowBytes > 128 ||
        s->swizzleBytes != s->rowBytes || !accType.getElementType().isF32())
      return op.emitOpError("does not fit wgmma m64n")
             << s->n << "k" << k << " over " << warps
             << " warps (needs M a multiple of 16 per warp, N <= 256, K rows "
                "of 32-128 bytes, f32 accumulation)";

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto c = [&](int64_t v) { return i32Const(b, loc, v); };
    // Operands loaded into buffer stages are read in place; others are
    // staged from registers (the barrier first protects scratch an earlier
    // op may still be reading).
    FailureOr<OperandRows> aRows =
        getOperandRows(rewriter, loc, op, op.getA(), 0, *s, 0, warps);
    FailureOr<OperandRows> bRows =
        getOperandRows(rewriter, loc, op, op.getB(), 1, *s, s->offsetB, 0);
    if (failed(aRows) || failed(bRows))
      return failure();
    if (!aRows->inPlace || !bRows->inPlace) {
      ctaBarrier(b, loc);
      auto permute = [&](OpBuilder &b, Location loc, Value r) {
        return getWgmmaStagedRow(b, loc, r, warps);
      };
      if ((!aRows->inPlace &&
           failed(stageOperand(b, loc, op, aType, adaptor.getA(), /*rowDim=*/0,
                               0, *s, permute))) ||
          (!bRows->inPlace &&
           failed(stageOperand(b, loc, op, bType, adaptor.getB(), /*rowDim=*/1,
                               s->offsetB, *s))))
        return failure();
      // The tensor cores read shared memory through the async proxy.
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      ctaBarrier(b, loc);
    }

    FailureOr<Distribution> accDist = getDistribution(accType);
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value group = LLVM::LShrOp::create(b, loc, tid, c(7));
    Value aStart =
        LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), aRows->base);
    Value bBase = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), bRows->base);
    // This warpgroup's first m64 block starts at row 64·group.
    Value aBase = LLVM::AddOp::create(
        b, loc, aStart,
        LLVM::MulOp::create(b, loc, group, c(64 * s->rowBytes)));
    uint64_t bits = descriptorBits(*s);

    int64_t groups = warps / 4;
    int64_t blocks = s->m / (64 * groups);
    int64_t perRow = accDist->perThread[1];
    int64_t regs = s->n / 2;
    Type f32 = b.getF32Type();
    Type accStruct = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(regs, f32));
    NVVM::WGMMATypes type = getWgmmaType(element);
    SmallVector<Value> acc(adaptor.getAcc().begin(), adaptor.getAcc().end());
    // Accumulator register i of block j: n8 block i/4, row half (i%4)/2,
    // column i%2; as an element of the blocked form, row index 2j + half.
    auto elementOf = [&](int64_t j, int64_t i) {
      return (2 * j + (i % 4) / 2) * perRow + 2 * (i / 4) + i % 2;
    };

    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    SmallVector<Value> results;
    for (int64_t j = 0; j < blocks; ++j) {
      Value d = LLVM::UndefOp::create(b, loc, accStruct);
      for (int64_t i = 0; i < regs; ++i)
        d = LLVM::InsertValueOp::create(b, loc, d, acc[elementOf(j, i)], i);
      for (int64_t ks = 0; ks < s->k / k; ++ks) {
        Value descA = makeDescriptor(
            b, loc, aBase, 64 * groups * j * s->rowBytes + 32 * ks, bits);
        Value descB = makeDescriptor(b, loc, bBase, 32 * ks, bits);
        d = NVVM::WgmmaMmaAsyncOp::create(
            b, loc, accStruct, d, descA, descB,
            NVVM::MMAShapeAttr::get(b.getContext(), 64, s->n, k), type, type,
            NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            NVVM::MMALayout::row, NVVM::MMALayout::col,
            /*satfinite=*/nullptr);
      }
      results.push_back(d);
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // An async dot leaves its group running; a tile.dot_wait waits.
    if (!op.getAsync())
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    for (auto [j, d] : llvm::enumerate(results))
      for (int64_t i = 0; i < regs; ++i)
        acc[elementOf(j, i)] = LLVM::ExtractValueOp::create(b, loc, d, i);
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

/// wgmma.wait_group on targets with wgmma; elsewhere dots are synchronous
/// and the value is passed through.
struct DotWaitLowering : public OpConversionPattern<DotWaitOp> {
  DotWaitLowering(TypeConverter &converter, MLIRContext *context,
                  StringRef target)
      : OpConversionPattern(converter, context),
        hasWgmma(TargetInfo::get(target)->hasWgmma()) {}

  LogicalResult
  matchAndRewrite(DotWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (hasWgmma)
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, op.getLoc(),
                                         op.getPending());
    rewriter.replaceOpWithMultiple(op, {adaptor.getValue()});
    return success();
  }

  bool hasWgmma;
};

} // namespace

void mlir::tile::populateWgmmaPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       StringRef target) {
  patterns.add<DotWgmmaLowering>(converter, patterns.getContext());
  patterns.add<DotWaitLowering>(converter, patterns.getContext(), target);
}
