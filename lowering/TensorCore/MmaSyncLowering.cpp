//===- MmaSyncLowering.cpp - tile.dot on mma.sync -------------------------===//
//
// A dot whose accumulator has a `#tile.mma<version = 2>` layout runs on the
// warp-level tensor-core instruction `mma.sync` (m16n8k16 for 16-bit
// operands, m16n8k32 for fp8 from sm_89 on):
//
//  1. every thread stores the operand elements it holds into scratch: A as
//     M rows of K, B transposed as N rows of K, 16-byte vectors wherever
//     the layout gives a thread consecutive K elements, each row's 16-byte
//     chunks XOR-swizzled (the TMA/wgmma 32/64/128-byte modes) so that the
//     eight rows one `ldmatrix` phase reads sit in distinct banks;
//     A 16-bit B whose threads hold runs along N (a tile computed row by
//     row) is instead stored as K rows of N, in vectors too;
//  2. after a barrier, each warp reads its fragments with `ldmatrix` (no
//     transposition: both operands are K-contiguous, which is also what
//     fp8 fragments need; `ldmatrix.trans` for B in K rows of N, staged so
//     or read in place from a ring) and issues one `mma.sync` per m16n8
//     fragment and K step;
//  3. the accumulator stays in registers: the mma layout is the blocked
//     layout its fragments form (see getMmaBlockedEquivalent), so the
//     epilogue, reductions and stores read it without conversion.
//
// fp8 operands on sm_80, which has no fp8 mma.sync, are widened to bf16 as
// they are staged (exactly: every e4m3/e5m2 value is a bf16 value). f32
// operands are multiplied as tf32 on m16n8k8, rounded to nearest as they
// are staged: 32 bytes of K per step as for the other types, and the
// ldmatrix fragments of 16-bit pairs are the tf32 fragments' words.
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"
#include "lowering/TensorCore/OperandStaging.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"
#include "dialect/TileLayouts.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `ldmatrix` of `num` 8×8 b16 matrices (one 16-byte row per lane) from
/// the per-lane address `addr`, transposed with `trans`; the registers as
/// i32s.
SmallVector<Value> loadMatrices(OpBuilder &b, Location loc, Value addr,
                                unsigned num, bool trans = false) {
  Type i32 = b.getI32Type();
  Type resultType = num == 1 ? i32
                             : LLVM::LLVMStructType::getLiteral(
                                   b.getContext(), SmallVector<Type>(num, i32));
  Value loaded = NVVM::LdMatrixOp::create(
      b, loc, resultType, addr, num,
      trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
      NVVM::LdStMatrixEltType::B16);
  if (num == 1)
    return {loaded};
  SmallVector<Value> regs;
  for (unsigned i = 0; i < num; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, i));
  return regs;
}

/// One mma.sync: D = A·B + C on m16n8k`k` fragments. fp8 shapes, which
/// the NVVM dialect's op does not accept yet, call the NVPTX intrinsic
/// directly.
Value createMma(OpBuilder &b, Location loc, Type accStruct, ValueRange a,
                ValueRange bRegs, ValueRange c, int64_t k,
                NVVM::MMATypes ptxType) {
  if (ptxType == NVVM::MMATypes::e4m3 || ptxType == NVVM::MMATypes::e5m2) {
    std::string name =
        llvm::formatv("llvm.nvvm.mma.m16n8k32.row.col.f32.{0}.{0}.f32",
                      NVVM::stringifyMMATypes(ptxType));
    SmallVector<Value> args(a.begin(), a.end());
    args.append(bRegs.begin(), bRegs.end());
    args.append(c.begin(), c.end());
    return LLVM::CallIntrinsicOp::create(b, loc, accStruct,
                                         b.getStringAttr(name), args)
        .getResult(0);
  }
  return NVVM::MmaOp::create(
      b, loc, accStruct, a, bRegs, c, ArrayRef<int64_t>{16, 8, k}, std::nullopt,
      std::nullopt, std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
}

/// Whether the K x N tile `type` gives each thread runs of at least two
/// consecutive N elements (N the layout's fastest dimension), N a power of
/// two of at least 8: rows of N then stage as vectors.
bool holdsRunsAlongN(RankedTensorType type) {
  FailureOr<Distribution> dist = getDistribution(type);
  if (failed(dist) || dist->tileDims.size() != 2 || dist->blockedRank() != 2)
    return false;
  unsigned nBlocked = dist->tileDims[1];
  int64_t n = type.getDimSize(1);
  return dist->blocked.getOrder()[0] == nBlocked &&
         dist->blocked.getSizePerThread()[nBlocked] >= 2 &&
         llvm::isPowerOf2_64(n) && n >= 8;
}

struct DotMmaSyncLowering : public OpConversionPattern<DotOp> {
  DotMmaSyncLowering(TypeConverter &converter, MLIRContext *context,
                     StringRef target)
      : OpConversionPattern(converter, context), target(target.str()) {}

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto accType = cast<RankedTensorType>(op.getResult().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(accType.getEncoding());
    if (!mma || mma.getVersion() != 2)
      return failure();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    Type element = aType.getElementType();
    if (!accType.getElementType().isF32() ||
        !(element.isBF16() || element.isF16() || element.isF32() ||
          isFp8(element)))
      return op.emitOpError("mma.sync lowering supports bf16, f16, f32 "
                            "(tf32) and fp8 operands with f32 accumulation, "
                            "got ")
             << element << " -> " << accType.getElementType();
    ArrayRef<unsigned> instr = mma.getInstrShape();
    if (instr[0] != 16 || instr[1] != 8 ||
        (instr[2] != 8 && instr[2] != 16 && instr[2] != 32))
      return op.emitOpError("mma.sync instruction shape must be m16n8k8, "
                            "m16n8k16 or m16n8k32");
    if ((instr[2] == 8) != element.isF32())
      return op.emitOpError("m16n8k8 is the instruction of f32 (tf32) "
                            "operands, and f32 operands need it");
    bool fp8Mma = instr[2] == 32;
    if (fp8Mma &&
        (!isFp8(element) || !TargetInfo::get(target)->hasFp8MmaSync()))
      return op.emitOpError("m16n8k32 needs fp8 operands and sm_89 or later; "
                            "target is ")
             << target;
    std::optional<DotStaging> s = getDotStaging(op);
    unsigned wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
    if (s->m % (16 * wm) || s->n % (8 * wn) || s->k % instr[2])
      return op.emitOpError("a ")
             << s->m << "x" << s->n << "x" << s->k
             << " dot does not split into m16n8k" << instr[2]
             << " steps over warps " << wm << "x" << wn;
    if (!llvm::isPowerOf2_64(s->rowBytes))
      return op.emitOpError("K must be a power of two, got ") << s->k;

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    // 1. Operands loaded into buffer stages are read in place; the others
    //    are staged (the barrier first protects scratch that an earlier op
    //    may still be reading).
    FailureOr<OperandRows> aRows =
        getOperandRows(rewriter, loc, op, op.getA(), 0, *s, 0, 0);
    FailureOr<OperandRows> bRows =
        getOperandRows(rewriter, loc, op, op.getB(), 1, *s, s->offsetB, 0,
                       /*allowKRows=*/!isFp8(element));
    if (failed(aRows) || failed(bRows))
      return failure();
    // A 16-bit B operand whose threads hold runs along N (a tile computed
    // row by row) is staged as K rows of N, in vectors, and read with
    // ldmatrix.trans, rather than transposed into N rows of K element by
    // element.
    if (!bRows->inPlace && s->elementBytes == 2 &&
        (element.isBF16() || element.isF16()) && holdsRunsAlongN(bType)) {
      DotStaging kRows = *s;
      kRows.m = s->k;
      kRows.k = s->n;
      kRows.rowBytes = s->n * 2;
      kRows.swizzleBytes = getSwizzleBytes(kRows.rowBytes);
      bRows->kRows = true;
      bRows->kRowsLayout = kRows;
    }
    if (!aRows->inPlace || !bRows->inPlace) {
      ctaBarrier(b, loc);
      if ((!aRows->inPlace &&
           failed(stageOperand(b, loc, op, aType, adaptor.getA(), /*rowDim=*/0,
                               0, *s))) ||
          (!bRows->inPlace &&
           failed(stageOperand(b, loc, op, bType, adaptor.getB(),
                               /*rowDim=*/bRows->kRows ? 0 : 1, s->offsetB,
                               bRows->kRows ? bRows->kRowsLayout : *s))))
        return failure();
      ctaBarrier(b, loc);
    }

    // 2. Per-lane fragment rows. Rows of one m16 fragment are 8·wm apart
    //    (see getMmaBlockedEquivalent); the swizzle phase of a lane's row
    //    is the same for every fragment, as fragments start 8-row aligned.
    FailureOr<Distribution> accDist = getDistribution(accType);
    ThreadPosition pos = getThreadPosition(b, loc, *accDist);
    Value lane = pos.lane;
    auto c = [&](int64_t v) { return i32Const(b, loc, v); };
    Value r8 = LLVM::AndOp::create(b, loc, lane, c(7));
    Value matrix = LLVM::LShrOp::create(b, loc, lane, c(3)); // 0..3
    Value low = LLVM::AndOp::create(b, loc, matrix, c(1));
    Value high = LLVM::LShrOp::create(b, loc, matrix, c(1));
    // A: matrices (rows 0-7, k 0-15B), (rows 8-15, ..), (rows 0-7, k 16-31B),
    // (rows 8-15, ..).
    Value rowA = LLVM::AddOp::create(
        b, loc,
        LLVM::AddOp::create(
            b, loc, LLVM::MulOp::create(b, loc, pos.warpIndex[0], c(8)), r8),
        LLVM::MulOp::create(b, loc, low, c(8 * wm)));
    // B (x4 over two n8 blocks): (block 0, k 0-15B), (block 0, k 16-31B),
    // (block 1, k 0-15B), (block 1, k 16-31B).
    Value rowB = LLVM::AddOp::create(
        b, loc,
        LLVM::AddOp::create(
            b, loc, LLVM::MulOp::create(b, loc, pos.warpIndex[1], c(8)), r8),
        LLVM::MulOp::create(b, loc, high, c(8 * wn)));
    int64_t mFrags = s->m / (16 * wm), nFrags = s->n / (8 * wn);
    int64_t kSteps = s->k / instr[2];
    int64_t perRow = accDist->perThread[1];

    SmallVector<Value> acc(adaptor.getAcc().begin(), adaptor.getAcc().end());
    Type f32 = b.getF32Type();
    Type accStruct = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes ptxType =
        fp8Mma            ? (isa<Float8E5M2Type>(element) ? NVVM::MMATypes::e5m2
                                                          : NVVM::MMATypes::e4m3)
        : element.isF16() ? NVVM::MMATypes::f16
        : element.isF32() ? NVVM::MMATypes::tf32
                          : NVVM::MMATypes::bf16;
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      // 32 bytes of K per step: chunks 2ks and 2ks+1.
      SmallVector<SmallVector<Value>> aFrags, bFrags;
      for (int64_t mi = 0; mi < mFrags; ++mi) {
        Value row = LLVM::AddOp::create(b, loc, rowA, c(16 * wm * mi));
        Value col = LLVM::MulOp::create(
            b, loc, LLVM::AddOp::create(b, loc, high, c(2 * ks)),
            c(16 / s->elementBytes));
        aFrags.push_back(loadMatrices(
            b, loc,
            sharedByte(b, loc, aRows->base, stagedOffset(b, loc, *s, row, col)),
            4));
      }
      for (int64_t nj = 0; nj < nFrags; nj += 2) {
        unsigned num = nj + 1 < nFrags ? 4 : 2;
        if (bRows->kRows) {
          // B as K rows of N (a stage of V): the same four matrices, read
          // transposed from rows k (16ks + 8·low + lane % 8) at the first
          // column of n block nj + high.
          Value kRow = LLVM::AddOp::create(
              b, loc, LLVM::AddOp::create(b, loc, r8, c(16 * ks)),
              LLVM::MulOp::create(b, loc, low, c(8)));
          Value nCol = LLVM::MulOp::create(
              b, loc,
              LLVM::AddOp::create(
                  b, loc, pos.warpIndex[1],
                  LLVM::MulOp::create(
                      b, loc, LLVM::AddOp::create(b, loc, high, c(nj)), c(wn))),
              c(8));
          SmallVector<Value> regs = loadMatrices(
              b, loc,
              sharedByte(b, loc, bRows->base,
                         stagedOffset(b, loc, bRows->kRowsLayout, kRow, nCol)),
              num, /*trans=*/true);
          bFrags.push_back({regs[0], regs[1]});
          if (num == 4)
            bFrags.push_back({regs[2], regs[3]});
          continue;
        }
        Value row = LLVM::AddOp::create(b, loc, rowB, c(8 * wn * nj));
        Value col = LLVM::MulOp::create(
            b, loc, LLVM::AddOp::create(b, loc, low, c(2 * ks)),
            c(16 / s->elementBytes));
        SmallVector<Value> regs = loadMatrices(
            b, loc,
            sharedByte(b, loc, bRows->base, stagedOffset(b, loc, *s, row, col)),
            num);
        bFrags.push_back({regs[0], regs[1]});
        if (num == 4)
          bFrags.push_back({regs[2], regs[3]});
      }
      for (int64_t mi = 0; mi < mFrags; ++mi) {
        for (int64_t nj = 0; nj < nFrags; ++nj) {
          // Fragment registers: rows 2mi, 2mi+1 of the thread's rows,
          // columns 2nj, 2nj+1 of its columns.
          int64_t idx[4] = {2 * mi * perRow + 2 * nj,
                            2 * mi * perRow + 2 * nj + 1,
                            (2 * mi + 1) * perRow + 2 * nj,
                            (2 * mi + 1) * perRow + 2 * nj + 1};
          SmallVector<Value> cRegs;
          for (int64_t i : idx)
            cRegs.push_back(acc[i]);
          Value d = createMma(b, loc, accStruct, aFrags[mi], bFrags[nj], cRegs,
                              instr[2], ptxType);
          for (auto [q, i] : llvm::enumerate(idx))
            acc[i] = LLVM::ExtractValueOp::create(b, loc, d, q);
        }
      }
    }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }

  std::string target;
};

/// The transposed tile is the same registers (its layout swaps the
/// dimensions, so the element order is unchanged).
struct TransposeLowering : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = cast<RankedTensorType>(op.getSrc().getType());
    auto result = cast<RankedTensorType>(op.getResult().getType());
    if (result.getEncoding() != getTransposedLayout(src.getEncoding()))
      return op.emitOpError("result layout must be the operand's with its "
                            "dimensions swapped; run tile-assign-layouts");
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

} // namespace

void mlir::tile::populateMmaSyncPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         StringRef target) {
  patterns.add<DotMmaSyncLowering>(converter, patterns.getContext(), target);
  patterns.add<TransposeLowering>(converter, patterns.getContext());
}
