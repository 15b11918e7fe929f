//===- Tcgen05Descriptors.cpp - tcgen05 descriptor encoders --------------===//

#include "lowering/TensorCore/Tcgen05Descriptors.h"

using namespace mlir::tile::tcgen05;

MmaKind mlir::tile::tcgen05::getMmaKind(OperandType type) {
  return type == OperandType::E4M3 || type == OperandType::E5M2
             ? MmaKind::F8F6F4
             : MmaKind::F16;
}

unsigned mlir::tile::tcgen05::getInstrK(OperandType type) {
  return getMmaKind(type) == MmaKind::F8F6F4 ? 32 : 16;
}

bool mlir::tile::tcgen05::isValidShape(unsigned m, unsigned n,
                                       unsigned ctaGroup) {
  auto columns = [&](unsigned step) {
    return n >= step && n <= 256 && n % step == 0;
  };
  if (ctaGroup == 1)
    return (m == 64 && columns(8)) || (m == 128 && columns(16));
  if (ctaGroup == 2)
    return (m == 128 && columns(32)) || (m == 256 && columns(16));
  return false;
}

/// The 3-bit A/B type field within the operands' kind.
static uint32_t typeField(OperandType type) {
  switch (type) {
  case OperandType::F16:
  case OperandType::E4M3:
    return 0;
  case OperandType::BF16:
  case OperandType::E5M2:
    return 1;
  }
  return 0;
}

std::optional<uint32_t> mlir::tile::tcgen05::getInstrDescriptor(
    OperandType a, OperandType b, unsigned m, unsigned n, unsigned ctaGroup) {
  if (getMmaKind(a) != getMmaKind(b) || !isValidShape(m, n, ctaGroup))
    return std::nullopt;
  constexpr uint32_t kDTypeF32 = 1;
  uint32_t desc = 0;
  desc |= kDTypeF32 << 4;
  desc |= typeField(a) << 7;
  desc |= typeField(b) << 10;
  // Transpose bits 15 and 16 stay 0: both operands are K-major.
  desc |= (n >> 3) << 17;
  desc |= (m >> 4) << 24;
  return desc;
}

std::optional<uint64_t> mlir::tile::tcgen05::getSwizzleMode(unsigned bytes) {
  switch (bytes) {
  case 0:
    return 0;
  case 128:
    return 2;
  case 64:
    return 4;
  case 32:
    return 6;
  default:
    return std::nullopt;
  }
}

std::optional<uint64_t>
mlir::tile::tcgen05::getSmemDescriptorBits(unsigned rowBytes,
                                           unsigned swizzleBytes) {
  std::optional<uint64_t> mode = getSwizzleMode(swizzleBytes);
  if (!mode || swizzleBytes == 0 || rowBytes != swizzleBytes)
    return std::nullopt;
  constexpr uint64_t kLeadingByteOffset = 16;
  constexpr uint64_t kVersion = 1;
  uint64_t strideByteOffset = 8 * uint64_t(rowBytes);
  uint64_t desc = 0;
  desc |= (kLeadingByteOffset >> 4) << 16;
  desc |= (strideByteOffset >> 4) << 32;
  desc |= kVersion << 46;
  // Base offset (49-51) and leading-offset mode (52) stay 0: every staged
  // operand starts on a 1024-byte swizzle period.
  desc |= *mode << 61;
  return desc;
}

uint64_t mlir::tile::tcgen05::withStartAddress(uint64_t bits,
                                               uint32_t sharedAddress) {
  return (bits & ~uint64_t(0x3FFF)) | ((sharedAddress >> 4) & 0x3FFF);
}

std::optional<unsigned> mlir::tile::tcgen05::getTmemColumns(unsigned n) {
  if (n > 512)
    return std::nullopt;
  unsigned columns = 32;
  while (columns < n)
    columns *= 2;
  return columns;
}

uint32_t mlir::tile::tcgen05::getTmemAddress(uint32_t base, unsigned lane,
                                             unsigned column) {
  return base + (uint32_t(lane) << 16) + column;
}
