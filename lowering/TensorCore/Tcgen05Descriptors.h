//===- Tcgen05Descriptors.h - tcgen05 descriptor encoders -------*- C++ -*-===//
//
// The bit fields tcgen05.mma (sm_100a) reads: the 32-bit instruction
// descriptor and the 64-bit shared-memory matrix descriptor, and the 32-bit
// tensor-memory addresses. Pure functions of shapes and modes, so that the
// lowering emits their constant parts and unit tests check every field
// against the PTX ISA's tables ("Instruction descriptor", "Shared memory
// descriptor", "Tensor Memory addressing").
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LOWERING_TENSORCORE_TCGEN05DESCRIPTORS_H
#define TILEC_LOWERING_TENSORCORE_TCGEN05DESCRIPTORS_H

#include <cstdint>
#include <optional>

namespace mlir::tile::tcgen05 {

/// Operand element types tilec multiplies on tcgen05.
enum class OperandType { F16, BF16, E4M3, E5M2 };

/// The `.kind` of tcgen05.mma an operand type needs.
enum class MmaKind { F16, F8F6F4 };
MmaKind getMmaKind(OperandType type);

/// K elements of one tcgen05.mma: 32 bytes of each operand row (16 for
/// 16-bit types, 32 for fp8).
unsigned getInstrK(OperandType type);

/// Whether a dense tcgen05.mma of `ctaGroup` (1 or 2 CTAs) has an M x N
/// shape (M summed over the CTAs). cta_group::1: M 64 (N a multiple of 8)
/// or 128 (N a multiple of 16); cta_group::2: M 128 (N a multiple of 32)
/// or 256 (N a multiple of 16); N from 8, 16 or 32 up to 256.
bool isValidShape(unsigned m, unsigned n, unsigned ctaGroup = 1);

/// The instruction descriptor of a dense tcgen05.mma with f32 accumulation,
/// both operands K-major (not transposed), no negation, shape M x N:
///   bits 0-1 sparsity selector (0), 2 sparsity (0: dense), 3 saturate (0),
///   4-5 D type (1: f32), 7-9 A type, 10-12 B type (kind::f16: f16 0,
///   bf16 1; kind::f8f6f4: e4m3 0, e5m2 1), 13/14 negate A/B (0),
///   15/16 transpose A/B (0: K-major), 17-22 N >> 3, 24-28 M >> 4,
///   30-31 maximum shift (0, .ws only). Reserved bits 6, 23, 29 are 0.
/// Nothing when the types need different kinds or the shape is invalid
/// for `ctaGroup` (M counts the rows of both CTAs of a pair).
std::optional<uint32_t> getInstrDescriptor(OperandType a, OperandType b,
                                           unsigned m, unsigned n,
                                           unsigned ctaGroup = 1);

/// The 3-bit swizzle mode (bits 61-63) of a shared-memory descriptor for
/// a swizzle span of `bytes`: 0 none, 2 128 B, 4 64 B, 6 32 B (1 is 128 B
/// with 32-byte atoms, which tilec does not use). Nothing for other spans.
std::optional<uint64_t> getSwizzleMode(unsigned bytes);

/// Every field but the start address of the shared-memory descriptor of
/// K-major rows of `rowBytes` bytes stored in the swizzle pattern of
/// `swizzleBytes` (equal to `rowBytes`: one row fills one span; staged
/// buffers start on a 1024-byte period):
///   bits 16-29 leading byte offset >> 4 (unused by swizzled K-major
///   layouts; 1, as the ISA assumes), 32-45 stride byte offset >> 4 (the
///   distance between 8-row groups, 8 * rowBytes), 46-48 the fixed value
///   0b001 (the sm_100 descriptor version), 49-51 base offset (0), 52
///   leading-offset mode (0: relative), 61-63 swizzle mode.
/// Nothing when the rows are not 32, 64 or 128 bytes in their own span.
std::optional<uint64_t> getSmemDescriptorBits(unsigned rowBytes,
                                              unsigned swizzleBytes);

/// `bits` with the start address field (bits 0-13: the shared address of
/// the first row >> 4) filled from `sharedAddress`.
uint64_t withStartAddress(uint64_t bits, uint32_t sharedAddress);

/// Columns of tensor memory to allocate for an accumulator of `n` f32
/// columns: a power of two, at least 32, at most 512. Nothing above 512.
std::optional<unsigned> getTmemColumns(unsigned n);

/// The tensor-memory address `lane` rows and `column` columns past `base`
/// (lane in bits 16-31, column in bits 0-15).
uint32_t getTmemAddress(uint32_t base, unsigned lane, unsigned column);

} // namespace mlir::tile::tcgen05

#endif // TILEC_LOWERING_TENSORCORE_TCGEN05DESCRIPTORS_H
