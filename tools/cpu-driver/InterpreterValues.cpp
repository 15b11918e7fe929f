//===- InterpreterValues.cpp - the interpreter's values -------------------===//
//
// Integer normalization, float rounding, element loads and stores,
// row-major indexing and the combine kinds, for every group of ops of the
// interpreter.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/InterpreterValues.h"

#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::tile;

namespace tilec::cpu::detail {

unsigned intWidth(Type type) {
  type = elementOf(type);
  if (auto it = dyn_cast<IntegerType>(type))
    return it.getWidth();
  return 64; // index, pointers
}

int64_t normalize(int64_t v, unsigned width) {
  if (width >= 64)
    return v;
  if (width == 1)
    return v & 1;
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (u >> (width - 1))
    u |= ~mask;
  return int64_t(u);
}

uint64_t zext(int64_t v, unsigned width) {
  if (width >= 64)
    return uint64_t(v);
  return uint64_t(v) & ((uint64_t(1) << width) - 1);
}

static float bf16Round(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7fffffff) > 0x7f800000) // NaN stays NaN
    return x;
  bits += 0x7fff + ((bits >> 16) & 1);
  bits &= 0xffff0000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

double roundTo(double x, Type type) {
  if (type.isF64())
    return x;
  if (type.isF32())
    return double(float(x));
  if (type.isBF16())
    return double(bf16Round(float(x)));
  auto ft = cast<FloatType>(type);
  llvm::APFloat value(x);
  bool lost;
  value.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

double tf32(double x, bool truncate) {
  float f = float(x);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000) == 0x7f800000) // inf and NaN stay
    return x;
  if (!truncate)
    bits += 0x1000; // half of the dropped 13 bits: ties away from zero
  bits &= 0xffffe000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

double flushF32(double x) {
  if (x != 0 && std::fabs(x) < double(std::numeric_limits<float>::min()))
    return std::copysign(0.0, x);
  return x;
}

unsigned byteSize(Type type) {
  if (isa<PtrType>(type) || type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

double loadFloat(const uint8_t *p, Type type) {
  if (type.isF32()) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (type.isF64()) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (type.isBF16()) {
    uint32_t bits = uint32_t(p[0] | (p[1] << 8)) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  auto ft = cast<FloatType>(type);
  unsigned width = ft.getWidth();
  uint64_t bits = 0;
  std::memcpy(&bits, p, (width + 7) / 8);
  llvm::APFloat value(ft.getFloatSemantics(), llvm::APInt(width, bits));
  bool lost;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

void storeFloat(uint8_t *p, Type type, double x) {
  if (type.isF32()) {
    float v = float(x);
    std::memcpy(p, &v, 4);
    return;
  }
  if (type.isF64()) {
    std::memcpy(p, &x, 8);
    return;
  }
  if (type.isBF16()) {
    float v = bf16Round(float(x));
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    uint16_t hi = uint16_t(bits >> 16);
    std::memcpy(p, &hi, 2);
    return;
  }
  auto ft = cast<FloatType>(type);
  llvm::APFloat value(x);
  bool lost;
  value.convert(ft.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  uint64_t bits = value.bitcastToAPInt().getZExtValue();
  std::memcpy(p, &bits, (ft.getWidth() + 7) / 8);
}

int64_t loadInt(const uint8_t *p, Type type) {
  unsigned bytes = byteSize(type);
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytes);
  return normalize(int64_t(bits), intWidth(type));
}

void storeInt(uint8_t *p, Type type, int64_t v) {
  std::memcpy(p, &v, byteSize(type)); // little-endian low bytes
}

int64_t floatBits(double x, Type type) {
  uint8_t buffer[8] = {};
  storeFloat(buffer, type, x);
  uint64_t bits = 0;
  std::memcpy(&bits, buffer, byteSize(type));
  return int64_t(bits);
}

double bitsFloat(int64_t bits, Type type) {
  uint8_t buffer[8];
  std::memcpy(buffer, &bits, 8);
  return loadFloat(buffer, type);
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

void unflatten(int64_t flat, ArrayRef<int64_t> shape,
               SmallVectorImpl<int64_t> &coords) {
  coords.resize(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    coords[d] = flat % shape[d];
    flat /= shape[d];
  }
}

//===----------------------------------------------------------------------===//
// Combine kinds
//===----------------------------------------------------------------------===//

double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

double maxNumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? b : a;
  if (a == 0 && b == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double minNumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) ? b : a;
  if (a == 0 && b == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

int64_t identityInt(CombineKind kind) {
  switch (kind) {
  case CombineKind::Mul:
    return 1;
  case CombineKind::Max:
    return std::numeric_limits<int64_t>::min();
  case CombineKind::Min:
    return std::numeric_limits<int64_t>::max();
  case CombineKind::And:
    return -1;
  default:
    return 0;
  }
}

double identityFloat(CombineKind kind) {
  switch (kind) {
  case CombineKind::Mul:
    return 1.0;
  case CombineKind::Max:
    return -std::numeric_limits<double>::infinity();
  case CombineKind::Min:
    return std::numeric_limits<double>::infinity();
  default:
    return 0.0;
  }
}

int64_t combineInt(CombineKind kind, int64_t a, int64_t b) {
  switch (kind) {
  case CombineKind::Add:
    return int64_t(uint64_t(a) + uint64_t(b));
  case CombineKind::Mul:
    return int64_t(uint64_t(a) * uint64_t(b));
  case CombineKind::Max:
    return std::max(a, b);
  case CombineKind::Min:
    return std::min(a, b);
  case CombineKind::And:
    return a & b;
  case CombineKind::Or:
    return a | b;
  case CombineKind::Xor:
    return a ^ b;
  case CombineKind::Exch:
    return b;
  }
  return b;
}

double combineFloat(CombineKind kind, double a, double b) {
  switch (kind) {
  case CombineKind::Add:
    return a + b;
  case CombineKind::Mul:
    return a * b;
  case CombineKind::Max:
    return maximumF(a, b);
  case CombineKind::Min:
    return minimumF(a, b);
  default:
    return b;
  }
}

} // namespace tilec::cpu::detail
