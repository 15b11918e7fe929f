//===- OperandStaging.cpp - tensor-core operands in shared memory ---------===//

#include "lowering/TensorCore/OperandStaging.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// An fp8 value (held as i8) as the bf16 with the same value.
Value mlir::tile::widenFp8ToBF16(OpBuilder &b, Location loc, Value byte,
                                 bool e5m2) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return i32Const(b, loc, v); };
  Value x = LLVM::ZExtOp::create(b, loc, i32, byte);
  Value sign = LLVM::ShlOp::create(
      b, loc, LLVM::AndOp::create(b, loc, x, c(0x80)), c(24));
  Value f32;
  if (e5m2) {
    // e5m2 is the upper byte of an f16.
    Value half = LLVM::TruncOp::create(b, loc, b.getI16Type(),
                                       LLVM::ShlOp::create(b, loc, x, c(8)));
    f32 = LLVM::FPExtOp::create(
        b, loc, b.getF32Type(),
        LLVM::BitcastOp::create(b, loc, b.getF16Type(), half));
  } else {
    // e4m3fn: bias 7, no infinities, S.1111.111 is NaN.
    Value exp = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, x, c(3)), c(0xF));
    Value man = LLVM::AndOp::create(b, loc, x, c(7));
    Value normal = LLVM::OrOp::create(
        b, loc,
        LLVM::OrOp::create(
            b, loc, sign,
            LLVM::ShlOp::create(
                b, loc, LLVM::AddOp::create(b, loc, exp, c(120)), c(23))),
        LLVM::ShlOp::create(b, loc, man, c(20)));
    // Subnormals: man · 2^-9, exactly representable.
    Value subMagnitude = LLVM::FMulOp::create(
        b, loc, LLVM::UIToFPOp::create(b, loc, b.getF32Type(), man),
        LLVM::ConstantOp::create(b, loc, b.getF32Type(),
                                 b.getF32FloatAttr(1.0f / 512.0f)));
    Value subnormal = LLVM::OrOp::create(
        b, loc, LLVM::BitcastOp::create(b, loc, i32, subMagnitude), sign);
    Value isSub =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, exp, c(0));
    Value bits = LLVM::SelectOp::create(b, loc, isSub, subnormal, normal);
    Value isNaN =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                             LLVM::AndOp::create(b, loc, x, c(0x7F)), c(0x7F));
    bits = LLVM::SelectOp::create(b, loc, isNaN, c(0x7FC00000), bits);
    f32 = LLVM::BitcastOp::create(b, loc, b.getF32Type(), bits);
  }
  return LLVM::FPTruncOp::create(b, loc, b.getBF16Type(), f32);
}

/// Byte offset, within an operand's staged rows, of column `col` (in
/// elements) of row `row`, under the staging's swizzle.
Value mlir::tile::stagedOffset(OpBuilder &b, Location loc, const DotStaging &s,
                               Value row, Value col) {
  Value byte =
      LLVM::MulOp::create(b, loc, col, i32Const(b, loc, s.elementBytes));
  Value chunk = LLVM::LShrOp::create(b, loc, byte, i32Const(b, loc, 4));
  Value inChunk = LLVM::AndOp::create(b, loc, byte, i32Const(b, loc, 15));
  if (s.swizzleBytes >= 32) {
    int64_t phases = s.swizzleBytes / 16, rowsPerPhase = 128 / s.swizzleBytes;
    Value phase = LLVM::AndOp::create(
        b, loc,
        LLVM::LShrOp::create(b, loc, row,
                             i32Const(b, loc, llvm::Log2_64(rowsPerPhase))),
        i32Const(b, loc, phases - 1));
    chunk = LLVM::XOrOp::create(b, loc, chunk, phase);
  }
  Value rowStart =
      LLVM::MulOp::create(b, loc, row, i32Const(b, loc, s.rowBytes));
  return LLVM::AddOp::create(
      b, loc, rowStart,
      LLVM::AddOp::create(
          b, loc, LLVM::ShlOp::create(b, loc, chunk, i32Const(b, loc, 4)),
          inChunk));
}

Value mlir::tile::scratchByte(OpBuilder &b, Location loc, int64_t base,
                              Value offset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value start = LLVM::AddressOfOp::create(b, loc, ptrType, kSharedMemorySymbol);
  Value at = LLVM::AddOp::create(b, loc, offset, i32Const(b, loc, base));
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), start,
                             ValueRange{at});
}

Value mlir::tile::sharedByte(OpBuilder &b, Location loc, Value base,
                             Value offset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                             ValueRange{offset});
}

/// Stores the elements of one operand tile into its staged rows. `rowDim`
/// is the tile dimension that indexes staged rows, the other one is K.
LogicalResult mlir::tile::stageOperand(OpBuilder &b, Location loc,
                                       Operation *op, RankedTensorType type,
                                       ValueRange values, unsigned rowDim,
                                       int64_t base, const DotStaging &s,
                                       RowMap rowMap) {
  FailureOr<Distribution> dist = getDistribution(type);
  if (failed(dist))
    return op->emitOpError("dot operand ")
           << type << " has no register layout; run tile-assign-layouts";
  unsigned kDim = 1 - rowDim;
  unsigned kBlocked = dist->tileDims[kDim];
  bool widen = isFp8(type.getElementType()) && s.elementBytes == 2;
  bool e5m2 = isa<Float8E5M2Type>(type.getElementType());
  // Consecutive elements of a thread along K go out as one vector of up to
  // 16 bytes when K is the layout's fastest dimension.
  int64_t vec = 1;
  if (dist->blocked.getOrder()[0] == kBlocked)
    vec = std::min<int64_t>(dist->blocked.getSizePerThread()[kBlocked],
                            16 / s.elementBytes);
  vec = std::max<int64_t>(1, vec);
  // f32 operands go to the tensor cores as tf32, rounded to nearest.
  bool tf32 = type.getElementType().isF32();
  Type stagedType = s.elementBytes == 1 ? Type(b.getI8Type())
                    : widen             ? Type(b.getBF16Type())
                    : tf32              ? Type(b.getI32Type())
                                        : values.front().getType();
  ThreadPosition pos = getThreadPosition(b, loc, *dist);
  for (int64_t e = 0; e < dist->numElements(); e += vec) {
    SmallVector<Value> coords = getElementCoords(b, loc, *dist, pos, e);
    Value row = rowMap ? rowMap(b, loc, coords[rowDim]) : coords[rowDim];
    Value offset = stagedOffset(b, loc, s, row, coords[kDim]);
    Value addr = scratchByte(b, loc, base, offset);
    SmallVector<Value> run;
    for (int64_t i = 0; i < vec; ++i) {
      Value v = values[e + i];
      if (widen)
        v = widenFp8ToBF16(b, loc, v, e5m2);
      else if (tf32)
        v = NVVM::ConvertFloatToTF32Op::create(b, loc, b.getI32Type(), v,
                                               NVVM::FPRoundingMode::RNA,
                                               NVVM::SaturationMode::NONE,
                                               /*relu=*/false);
      run.push_back(v);
    }
    if (vec == 1) {
      LLVM::StoreOp::create(b, loc, run[0], addr);
      continue;
    }
    auto vecType = VectorType::get({vec}, stagedType);
    Value packed = LLVM::UndefOp::create(b, loc, vecType);
    for (auto [i, v] : llvm::enumerate(run))
      packed =
          LLVM::InsertElementOp::create(b, loc, packed, v, i32Const(b, loc, i));
    LLVM::StoreOp::create(b, loc, packed, addr, vec * s.elementBytes);
  }
  return success();
}

Value mlir::tile::getWgmmaStagedRow(OpBuilder &b, Location loc, Value r,
                                    int64_t warps) {
  // Under the accumulator's blocked form, warp w of W holds rows
  // g + 8w + 8W·t (g = lane/4); wgmma gives warp q of warpgroup G rows
  // 16q + g + 8h of each m64 block it issues. Block j of warpgroup G (of
  // `groups`) takes t = 2j + h, so r = g + 8w + 8W(2j + h) with w = 4G + q
  // is staged at row 64(G + groups·j) + 16q + 8h + g.
  auto c = [&](int64_t v) { return i32Const(b, loc, v); };
  int64_t groups = warps / 4;
  Value g = LLVM::AndOp::create(b, loc, r, c(7));
  Value w = LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, r, c(3)),
                                c(warps - 1));
  Value t = LLVM::LShrOp::create(b, loc, r, c(3 + llvm::Log2_64(warps)));
  Value group = LLVM::LShrOp::create(b, loc, w, c(2));
  Value q = LLVM::AndOp::create(b, loc, w, c(3));
  Value h = LLVM::AndOp::create(b, loc, t, c(1));
  Value j = LLVM::LShrOp::create(b, loc, t, c(1));
  Value block = LLVM::AddOp::create(b, loc, group,
                                    LLVM::MulOp::create(b, loc, j, c(groups)));
  Value row = LLVM::MulOp::create(b, loc, block, c(64));
  row = LLVM::AddOp::create(b, loc, row, LLVM::MulOp::create(b, loc, q, c(16)));
  row = LLVM::AddOp::create(b, loc, row, LLVM::MulOp::create(b, loc, h, c(8)));
  return LLVM::AddOp::create(b, loc, row, g);
}

DotStaging mlir::tile::getStageLayout(SharedBufferType type) {
  ArrayRef<int64_t> shape = type.getShape();
  DotStaging s;
  s.m = shape[1];
  s.n = 0;
  s.k = shape[2];
  s.elementBytes = getScratchElementBytes(type.getElementType());
  s.rowBytes = s.k * s.elementBytes;
  s.swizzleBytes = cast<SwizzleAttr>(type.getSwizzle()).getBytes();
  s.offsetB = 0;
  s.totalBytes = getStageBytes(type);
  return s;
}

FailureOr<OperandRows>
mlir::tile::getOperandRows(ConversionPatternRewriter &rewriter, Location loc,
                           Operation *dot, Value operand, unsigned index,
                           const DotStaging &s, int64_t scratchOffset,
                           unsigned wgmmaWarps, bool allowKRows) {
  Value source = operand;
  if (index == 1)
    if (auto transpose = source.getDefiningOp<TransposeOp>())
      source = transpose.getSrc();
  auto load = source.getDefiningOp<LoadStageOp>();
  if (load && index == 1 && source == operand) {
    // B held as K rows of N elements.
    SharedBufferType type = load.getBuffer().getType();
    DotStaging stage = getStageLayout(type);
    if (!allowKRows)
      return dot->emitOpError("operand 1 is read from a stage of K rows (")
             << type << "), which only mma.sync reads (ldmatrix.trans)";
    if (stage.elementBytes != 2 || stage.m != s.k ||
        stage.k * stage.elementBytes != s.n * s.elementBytes ||
        cast<SwizzleAttr>(type.getSwizzle()).getWgmmaWarps() != 0)
      return dot->emitOpError("operand 1 is read from a buffer laid out as ")
             << type << ", not as " << s.k << " rows of " << s.n
             << " 16-bit elements";
    Value buffer = rewriter.getRemappedValue(load.getBuffer());
    Value stageIndex = rewriter.getRemappedValue(load.getStage());
    if (!buffer || !stageIndex)
      return dot->emitOpError("operand 1: stage not lowered");
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value offset = LLVM::MulOp::create(
        rewriter, loc, stageIndex, i32Const(rewriter, loc, stage.totalBytes));
    Value at = LLVM::GEPOp::create(rewriter, loc, ptrType, rewriter.getI8Type(),
                                   buffer, ValueRange{offset});
    OperandRows rows{at, true};
    rows.kRows = true;
    rows.kRowsLayout = stage;
    return rows;
  }
  if (!load) {
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value start =
        LLVM::AddressOfOp::create(rewriter, loc, ptrType, kSharedMemorySymbol);
    Value at =
        LLVM::GEPOp::create(rewriter, loc, ptrType, rewriter.getI8Type(), start,
                            ValueRange{i32Const(rewriter, loc, scratchOffset)});
    return OperandRows{at, false};
  }
  SharedBufferType type = load.getBuffer().getType();
  DotStaging stage = getStageLayout(type);
  auto swizzle = cast<SwizzleAttr>(type.getSwizzle());
  unsigned wantWarps = index == 0 ? wgmmaWarps : 0;
  if (stage.elementBytes != s.elementBytes || stage.rowBytes != s.rowBytes ||
      stage.swizzleBytes != s.swizzleBytes ||
      swizzle.getWgmmaWarps() != wantWarps)
    return dot->emitOpError("operand ")
           << index << " is read from a buffer laid out as " << type
           << ", not as this dot reads it (" << s.rowBytes << "-byte rows, "
           << s.swizzleBytes << "-byte swizzle"
           << (wantWarps ? ", wgmma rows" : "") << ")";
  Value buffer = rewriter.getRemappedValue(load.getBuffer());
  Value stageIndex = rewriter.getRemappedValue(load.getStage());
  if (!buffer || !stageIndex)
    return dot->emitOpError("operand ") << index << ": stage not lowered";
  auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
  Value offset = LLVM::MulOp::create(rewriter, loc, stageIndex,
                                     i32Const(rewriter, loc, stage.totalBytes));
  Value at = LLVM::GEPOp::create(rewriter, loc, ptrType, rewriter.getI8Type(),
                                 buffer, ValueRange{offset});
  return OperandRows{at, true};
}
