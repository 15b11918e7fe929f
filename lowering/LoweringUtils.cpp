//===- LoweringUtils.cpp - helpers for per-thread code -------------------===//

#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

FailureOr<Distribution>
mlir::tile::getLaidOutDistribution(Operation *op, RankedTensorType type) {
  FailureOr<Distribution> dist = getDistribution(type);
  if (failed(dist))
    return op->emitOpError(
        "tile has no register layout; run tile-assign-layouts first");
  return dist;
}

LogicalResult mlir::tile::requireLayoutOf(Operation *op, ValueRange tiles,
                                          RankedTensorType type,
                                          const Twine &message) {
  for (Value tile : tiles)
    if (cast<RankedTensorType>(tile.getType()).getEncoding() !=
        type.getEncoding())
      return op->emitOpError(message);
  return success();
}

Value mlir::tile::i32Const(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(value));
}

Value mlir::tile::i64Const(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(value));
}

/// Splits `index` into per-dimension indices of extents `sizes`, walking
/// the dimensions in `order` (fastest first).
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value index,
                                      ArrayRef<unsigned> sizes,
                                      ArrayRef<unsigned> order) {
  SmallVector<Value> result(sizes.size());
  Value rest = index;
  for (unsigned d : order) {
    // Extents are powers of two: masks and shifts instead of div/rem.
    unsigned size = sizes[d];
    result[d] = size == 1 ? i32Const(b, loc, 0)
                          : LLVM::AndOp::create(b, loc, rest,
                                                i32Const(b, loc, size - 1))
                                .getResult();
    if (size > 1)
      rest = LLVM::LShrOp::create(b, loc, rest,
                                  i32Const(b, loc, llvm::Log2_32(size)));
  }
  return result;
}

ThreadPosition mlir::tile::getThreadPosition(OpBuilder &b, Location loc,
                                             const Distribution &dist) {
  ThreadPosition pos;
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  pos.lane = LLVM::AndOp::create(b, loc, tid, i32Const(b, loc, 31));
  pos.warp = LLVM::LShrOp::create(b, loc, tid, i32Const(b, loc, 5));
  BlockedLayoutAttr blocked = dist.blocked;
  SmallVector<Value> laneIndex = delinearize(
      b, loc, pos.lane, blocked.getThreadsPerWarp(), blocked.getOrder());
  pos.warpIndex = delinearize(b, loc, pos.warp, blocked.getWarpsPerCTA(),
                              blocked.getOrder());
  for (unsigned d = 0; d < dist.blockedRank(); ++d) {
    int64_t size = blocked.getSizePerThread()[d];
    int64_t warpSpan = size * blocked.getThreadsPerWarp()[d];
    Value fromLane =
        LLVM::MulOp::create(b, loc, laneIndex[d], i32Const(b, loc, size));
    Value fromWarp = LLVM::MulOp::create(b, loc, pos.warpIndex[d],
                                         i32Const(b, loc, warpSpan));
    pos.base.push_back(LLVM::AddOp::create(b, loc, fromLane, fromWarp));
  }
  return pos;
}

SmallVector<Value> mlir::tile::getElementCoords(OpBuilder &b, Location loc,
                                                const Distribution &dist,
                                                const ThreadPosition &pos,
                                                int64_t e) {
  SmallVector<int64_t> offsets = dist.offsets(e);
  SmallVector<Value> coords;
  for (unsigned d : dist.tileDims) {
    Value coord = pos.base[d];
    if (offsets[d] != 0)
      coord = LLVM::AddOp::create(b, loc, coord, i32Const(b, loc, offsets[d]));
    // Replicated layouts wrap around the (power-of-two) tile extent.
    if (dist.wraps(d))
      coord = LLVM::AndOp::create(b, loc, coord,
                                  i32Const(b, loc, dist.blockedShape[d] - 1));
    coords.push_back(coord);
  }
  return coords;
}

Value mlir::tile::isElementOwner(OpBuilder &b, Location loc,
                                 const Distribution &dist,
                                 const ThreadPosition &pos, int64_t e) {
  // A blocked layout covers [0, ctaTile) once per dimension; where the
  // tile is narrower, the thread whose coordinate does not wrap owns it.
  Value owner =
      LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  SmallVector<int64_t> offsets = dist.offsets(e);
  for (unsigned d = 0; d < dist.blockedRank(); ++d) {
    if (!dist.wraps(d))
      continue;
    Value coord = pos.base[d];
    if (offsets[d] != 0)
      coord = LLVM::AddOp::create(b, loc, coord, i32Const(b, loc, offsets[d]));
    owner = LLVM::AndOp::create(
        b, loc, owner,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, coord,
                             i32Const(b, loc, dist.blockedShape[d])));
  }
  return owner;
}

Value mlir::tile::linearize(OpBuilder &b, Location loc, ValueRange coords,
                            ArrayRef<int64_t> shape) {
  Value index = i32Const(b, loc, 0);
  for (auto [coord, extent] : llvm::zip(coords, shape)) {
    index = LLVM::MulOp::create(b, loc, index, i32Const(b, loc, extent));
    index = LLVM::AddOp::create(b, loc, index, coord);
  }
  return index;
}

Value mlir::tile::combineValues(OpBuilder &b, Location loc, CombineKind kind,
                                Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case CombineKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::Mul:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MaxSIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MinSIOp::create(b, loc, lhs, rhs).getResult();
  case CombineKind::And:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case CombineKind::Or:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case CombineKind::Xor:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  case CombineKind::Exch:
    return rhs;
  }
  llvm_unreachable("unknown combine kind");
}

Value mlir::tile::shuffle(OpBuilder &b, Location loc, Value v,
                          NVVM::ShflKind kind, Value lane, unsigned clamp) {
  Type type = v.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Value fullMask = i32Const(b, loc, -1);
  Value clampValue = i32Const(b, loc, clamp);
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), fullMask, x, lane,
                                clampValue, kind, UnitAttr());
  };
  if (type.isF32() || type.isInteger(32))
    return shfl(v);
  if (bits == 64) {
    // Two 32-bit halves.
    Value asInt = LLVM::BitcastOp::create(b, loc, b.getI64Type(), v);
    Value lo = LLVM::TruncOp::create(b, loc, b.getI32Type(), asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, b.getI32Type(),
        LLVM::LShrOp::create(b, loc, asInt, i64Const(b, loc, 32)));
    lo = LLVM::ZExtOp::create(b, loc, b.getI64Type(), shfl(lo));
    hi = LLVM::ZExtOp::create(b, loc, b.getI64Type(), shfl(hi));
    Value joined = LLVM::OrOp::create(
        b, loc, lo, LLVM::ShlOp::create(b, loc, hi, i64Const(b, loc, 32)));
    return LLVM::BitcastOp::create(b, loc, type, joined);
  }
  // Narrow types travel in the low bits of an i32.
  Type narrowInt = b.getIntegerType(bits);
  Value asInt =
      isa<FloatType>(type) ? LLVM::BitcastOp::create(b, loc, narrowInt, v) : v;
  Value wide = LLVM::ZExtOp::create(b, loc, b.getI32Type(), asInt);
  Value back = LLVM::TruncOp::create(b, loc, narrowInt, shfl(wide));
  return isa<FloatType>(type) ? LLVM::BitcastOp::create(b, loc, type, back)
                              : back;
}

Value mlir::tile::shuffleXor(OpBuilder &b, Location loc, Value v,
                             unsigned mask) {
  return shuffle(b, loc, v, NVVM::ShflKind::bfly, i32Const(b, loc, mask), 0x1f);
}

Value mlir::tile::getIdentity(OpBuilder &b, Location loc, CombineKind kind,
                              Type type) {
  auto constant = [&](Attribute attr) -> Value {
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
  };
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    switch (kind) {
    case CombineKind::Mul:
      return constant(b.getFloatAttr(type, 1.0));
    case CombineKind::Max:
      return constant(
          b.getFloatAttr(type, llvm::APFloat::getInf(sem, /*Negative=*/true)));
    case CombineKind::Min:
      return constant(b.getFloatAttr(type, llvm::APFloat::getInf(sem)));
    default:
      return constant(b.getFloatAttr(type, 0.0));
    }
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  switch (kind) {
  case CombineKind::Mul:
    return constant(b.getIntegerAttr(type, 1));
  case CombineKind::Max:
    return constant(
        b.getIntegerAttr(type, llvm::APInt::getSignedMinValue(bits)));
  case CombineKind::Min:
    return constant(
        b.getIntegerAttr(type, llvm::APInt::getSignedMaxValue(bits)));
  case CombineKind::And:
    return constant(b.getIntegerAttr(type, llvm::APInt::getAllOnes(bits)));
  default:
    return constant(b.getIntegerAttr(type, 0));
  }
}

Value mlir::tile::getViewCoord(OpBuilder &b, Location loc, Value offset,
                               Value local) {
  Type i64 = b.getI64Type();
  Value coord = LLVM::SExtOp::create(b, loc, i64, offset);
  if (!local)
    return coord;
  return LLVM::AddOp::create(b, loc, coord,
                             LLVM::ZExtOp::create(b, loc, i64, local));
}

Value mlir::tile::getViewElementAddress(OpBuilder &b, Location loc, Value ptr,
                                        Type elementType, ValueRange strides,
                                        ValueRange coords) {
  assert(strides.size() == coords.size() && "one coordinate per stride");
  Value linear;
  for (auto [coord, stride] : llvm::zip_equal(coords, strides)) {
    Value term = LLVM::MulOp::create(b, loc, coord, stride);
    linear =
        linear ? LLVM::AddOp::create(b, loc, linear, term).getResult() : term;
  }
  if (!linear)
    return ptr;
  return LLVM::GEPOp::create(b, loc, ptr.getType(), elementType, ptr,
                             ValueRange{linear});
}

void mlir::tile::ctaBarrier(OpBuilder &b, Location loc) {
  NVVM::Barrier0Op::create(b, loc);
}

Value mlir::tile::isIndexInBounds(OpBuilder &b, Location loc, Value index,
                                  int64_t bound, Value mask) {
  Type type = index.getType();
  // Every value of a narrow index lies below a bound past its range (i8
  // values into 256 bins); the bound as a constant of that type would wrap.
  unsigned width = type.getIntOrFloatBitWidth();
  if (width < 63 && bound >= (int64_t(1) << width))
    return mask ? mask
                : LLVM::ConstantOp::create(b, loc, b.getI1Type(),
                                           b.getBoolAttr(true))
                      .getResult();
  Value inside = LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::ult, index,
      LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, bound)));
  return mask ? LLVM::AndOp::create(b, loc, inside, mask).getResult() : inside;
}

Value mlir::tile::indexAsI32(OpBuilder &b, Location loc, Value index) {
  unsigned width = index.getType().getIntOrFloatBitWidth();
  if (width > 32)
    return LLVM::TruncOp::create(b, loc, b.getI32Type(), index);
  if (width < 32)
    return LLVM::ZExtOp::create(b, loc, b.getI32Type(), index);
  return index;
}

static Type scratchType(OpBuilder &b, Type type) {
  return type.isInteger(1) ? b.getI8Type() : type;
}

Value mlir::tile::getScratchAddress(OpBuilder &b, Location loc, Operation *from,
                                    Type elementType, Value index) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptrType, kSharedMemorySymbol);
  return LLVM::GEPOp::create(b, loc, ptrType, scratchType(b, elementType), base,
                             ValueRange{index});
}

Value mlir::tile::padScratchIndex(OpBuilder &b, Location loc, Value index,
                                  int64_t period) {
  if (period == 0)
    return index;
  assert(llvm::isPowerOf2_64(period) && "padding period must be 2^n");
  Value pad = LLVM::LShrOp::create(b, loc, index,
                                   i32Const(b, loc, llvm::Log2_64(period)));
  return LLVM::AddOp::create(b, loc, index, pad);
}

void mlir::tile::storeScratch(OpBuilder &b, Location loc, Operation *from,
                              Value value, Value index) {
  Value addr = getScratchAddress(b, loc, from, value.getType(), index);
  if (value.getType().isInteger(1))
    value = LLVM::ZExtOp::create(b, loc, b.getI8Type(), value);
  LLVM::StoreOp::create(b, loc, value, addr);
}

Value mlir::tile::loadScratch(OpBuilder &b, Location loc, Operation *from,
                              Type type, Value index) {
  Value addr = getScratchAddress(b, loc, from, type, index);
  Value value = LLVM::LoadOp::create(b, loc, scratchType(b, type), addr);
  if (type.isInteger(1))
    value = LLVM::TruncOp::create(b, loc, type, value);
  return value;
}
