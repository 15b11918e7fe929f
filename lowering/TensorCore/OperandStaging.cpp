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
  Type stagedType = s.elementBytes == 1 ? Type(b.getI8Type())
                    : widen             ? Type(b.getBF16Type())
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
      run.push_back(widen ? widenFp8ToBF16(b, loc, v, e5m2) : v);
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
