//===- Tcgen05DescriptorsTest.cpp - tcgen05 descriptor fields ------------===//
//
// Every field of the descriptors tcgen05.mma reads, checked against the bit
// positions and values of the PTX ISA's tables (9.7.16.4.1 "Shared memory
// descriptor", 9.7.16.4.2 "Instruction descriptor", Table 42) and its
// tensor-memory addressing (lane in the upper, column in the lower half).
//
//===----------------------------------------------------------------------===//

#include "lowering/TensorCore/Tcgen05Descriptors.h"

#include <gtest/gtest.h>

using namespace mlir::tile::tcgen05;

namespace {

/// Bits lo..hi (inclusive) of `value`.
uint64_t bits(uint64_t value, unsigned lo, unsigned hi) {
  return (value >> lo) & ((uint64_t(1) << (hi - lo + 1)) - 1);
}

TEST(Tcgen05InstrDescriptor, Bf16M128N128) {
  std::optional<uint32_t> desc =
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 128, 128);
  ASSERT_TRUE(desc);
  EXPECT_EQ(bits(*desc, 0, 1), 0u) << "sparsity selector";
  EXPECT_EQ(bits(*desc, 2, 2), 0u) << "dense";
  EXPECT_EQ(bits(*desc, 3, 3), 0u) << "saturate";
  EXPECT_EQ(bits(*desc, 4, 5), 1u) << "D type f32";
  EXPECT_EQ(bits(*desc, 6, 6), 0u) << "reserved";
  EXPECT_EQ(bits(*desc, 7, 9), 1u) << "A type bf16 (kind::f16)";
  EXPECT_EQ(bits(*desc, 10, 12), 1u) << "B type bf16 (kind::f16)";
  EXPECT_EQ(bits(*desc, 13, 13), 0u) << "negate A";
  EXPECT_EQ(bits(*desc, 14, 14), 0u) << "negate B";
  EXPECT_EQ(bits(*desc, 15, 15), 0u) << "A K-major";
  EXPECT_EQ(bits(*desc, 16, 16), 0u) << "B K-major";
  EXPECT_EQ(bits(*desc, 17, 22), 128u >> 3) << "N >> 3";
  EXPECT_EQ(bits(*desc, 23, 23), 0u) << "reserved";
  EXPECT_EQ(bits(*desc, 24, 28), 128u >> 4) << "M >> 4";
  EXPECT_EQ(bits(*desc, 29, 29), 0u) << "reserved";
  EXPECT_EQ(bits(*desc, 30, 31), 0u) << "maximum shift";
  EXPECT_EQ(*desc, 0x08200490u);
}

TEST(Tcgen05InstrDescriptor, Fp8Types) {
  std::optional<uint32_t> e4m3 =
      getInstrDescriptor(OperandType::E4M3, OperandType::E4M3, 128, 256);
  ASSERT_TRUE(e4m3);
  EXPECT_EQ(bits(*e4m3, 4, 5), 1u) << "D type f32";
  EXPECT_EQ(bits(*e4m3, 7, 9), 0u) << "A type e4m3 (kind::f8f6f4)";
  EXPECT_EQ(bits(*e4m3, 10, 12), 0u) << "B type e4m3 (kind::f8f6f4)";
  EXPECT_EQ(bits(*e4m3, 17, 22), 256u >> 3) << "N >> 3";
  EXPECT_EQ(bits(*e4m3, 24, 28), 128u >> 4) << "M >> 4";
  EXPECT_EQ(*e4m3, 0x08400010u);

  std::optional<uint32_t> mixed =
      getInstrDescriptor(OperandType::E4M3, OperandType::E5M2, 64, 8);
  ASSERT_TRUE(mixed);
  EXPECT_EQ(bits(*mixed, 7, 9), 0u) << "A type e4m3";
  EXPECT_EQ(bits(*mixed, 10, 12), 1u) << "B type e5m2";
  EXPECT_EQ(bits(*mixed, 17, 22), 1u) << "N >> 3";
  EXPECT_EQ(bits(*mixed, 24, 28), 4u) << "M >> 4";
}

TEST(Tcgen05InstrDescriptor, F16AndKinds) {
  std::optional<uint32_t> f16 =
      getInstrDescriptor(OperandType::F16, OperandType::F16, 128, 16);
  ASSERT_TRUE(f16);
  EXPECT_EQ(bits(*f16, 7, 9), 0u) << "A type f16";
  EXPECT_EQ(bits(*f16, 10, 12), 0u) << "B type f16";
  EXPECT_EQ(getMmaKind(OperandType::BF16), MmaKind::F16);
  EXPECT_EQ(getMmaKind(OperandType::F16), MmaKind::F16);
  EXPECT_EQ(getMmaKind(OperandType::E4M3), MmaKind::F8F6F4);
  EXPECT_EQ(getMmaKind(OperandType::E5M2), MmaKind::F8F6F4);
  EXPECT_EQ(getInstrK(OperandType::BF16), 16u);
  EXPECT_EQ(getInstrK(OperandType::E4M3), 32u);
}

TEST(Tcgen05InstrDescriptor, RejectsInvalidShapesAndMixedKinds) {
  // M = 128 needs N a multiple of 16; M = 64 a multiple of 8; N <= 256.
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 128, 8));
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 128, 264));
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 96, 64));
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::E4M3, 128, 128));
  EXPECT_TRUE(getInstrDescriptor(OperandType::BF16, OperandType::BF16, 64, 8));
}

TEST(Tcgen05InstrDescriptor, CtaPairShapes) {
  // cta_group::2: M counts both CTAs' rows; M = 256 takes N in steps of 16,
  // M = 128 in steps of 32. The field still holds M >> 4 (16 fits bits
  // 24-28).
  std::optional<uint32_t> pair =
      getInstrDescriptor(OperandType::E4M3, OperandType::E4M3, 256, 256, 2);
  ASSERT_TRUE(pair);
  EXPECT_EQ(bits(*pair, 17, 22), 256u >> 3) << "N >> 3";
  EXPECT_EQ(bits(*pair, 24, 28), 256u >> 4) << "M >> 4";
  EXPECT_EQ(bits(*pair, 23, 23), 0u) << "reserved";
  EXPECT_EQ(bits(*pair, 29, 29), 0u) << "reserved";
  EXPECT_EQ(*pair, 0x10400010u);
  EXPECT_EQ(
      *getInstrDescriptor(OperandType::BF16, OperandType::BF16, 256, 128, 2),
      0x10200490u);
  EXPECT_TRUE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 256, 16, 2));
  EXPECT_TRUE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 128, 32, 2));
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 128, 16, 2));
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 64, 64, 2));
  // M = 256 exists only for pairs.
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 256, 128));
  EXPECT_FALSE(
      getInstrDescriptor(OperandType::BF16, OperandType::BF16, 256, 128, 3));
}

TEST(Tcgen05SmemDescriptor, Swizzle128Rows) {
  std::optional<uint64_t> desc = getSmemDescriptorBits(128, 128);
  ASSERT_TRUE(desc);
  EXPECT_EQ(bits(*desc, 0, 13), 0u) << "start address left to the caller";
  EXPECT_EQ(bits(*desc, 14, 15), 0u) << "reserved";
  EXPECT_EQ(bits(*desc, 16, 29), 1u) << "leading byte offset 16 >> 4";
  EXPECT_EQ(bits(*desc, 30, 31), 0u) << "reserved";
  EXPECT_EQ(bits(*desc, 32, 45), 1024u >> 4) << "stride: 8 rows of 128 B";
  EXPECT_EQ(bits(*desc, 46, 48), 1u) << "fixed 0b001 (sm_100 version)";
  EXPECT_EQ(bits(*desc, 49, 51), 0u) << "base offset";
  EXPECT_EQ(bits(*desc, 52, 52), 0u) << "relative leading offset";
  EXPECT_EQ(bits(*desc, 53, 60), 0u) << "fixed 0";
  EXPECT_EQ(bits(*desc, 61, 63), 2u) << "128-byte swizzling";
  EXPECT_EQ(*desc, 0x4000404000010000ull);
}

TEST(Tcgen05SmemDescriptor, Swizzle64And32Rows) {
  std::optional<uint64_t> sw64 = getSmemDescriptorBits(64, 64);
  ASSERT_TRUE(sw64);
  EXPECT_EQ(bits(*sw64, 32, 45), 512u >> 4) << "stride: 8 rows of 64 B";
  EXPECT_EQ(bits(*sw64, 46, 48), 1u);
  EXPECT_EQ(bits(*sw64, 61, 63), 4u) << "64-byte swizzling";
  std::optional<uint64_t> sw32 = getSmemDescriptorBits(32, 32);
  ASSERT_TRUE(sw32);
  EXPECT_EQ(bits(*sw32, 32, 45), 256u >> 4) << "stride: 8 rows of 32 B";
  EXPECT_EQ(bits(*sw32, 61, 63), 6u) << "32-byte swizzling";
}

TEST(Tcgen05SmemDescriptor, SwizzleModes) {
  EXPECT_EQ(getSwizzleMode(0), 0u);
  EXPECT_EQ(getSwizzleMode(128), 2u);
  EXPECT_EQ(getSwizzleMode(64), 4u);
  EXPECT_EQ(getSwizzleMode(32), 6u);
  EXPECT_FALSE(getSwizzleMode(16));
  // Rows must fill exactly one swizzle span.
  EXPECT_FALSE(getSmemDescriptorBits(64, 128));
  EXPECT_FALSE(getSmemDescriptorBits(256, 128));
  EXPECT_FALSE(getSmemDescriptorBits(0, 0));
}

TEST(Tcgen05SmemDescriptor, StartAddress) {
  uint64_t bits128 = *getSmemDescriptorBits(128, 128);
  // 14 bits of the 16-byte-aligned shared address, above nothing else.
  uint64_t desc = withStartAddress(bits128, 0x1C400);
  EXPECT_EQ(bits(desc, 0, 13), 0x1C40u);
  EXPECT_EQ(desc & ~uint64_t(0x3FFF), bits128);
  // Addresses advance by 32 bytes per K step within a 128-byte row.
  EXPECT_EQ(bits(withStartAddress(bits128, 0x1C420), 0, 13), 0x1C42u);
  EXPECT_EQ(bits(withStartAddress(bits128, 0x3FFF0 + 16), 0, 13), 0u)
      << "the field wraps at 2^18 bytes";
}

TEST(Tcgen05TensorMemory, ColumnsAndAddresses) {
  EXPECT_EQ(getTmemColumns(1), 32u);
  EXPECT_EQ(getTmemColumns(32), 32u);
  EXPECT_EQ(getTmemColumns(48), 64u);
  EXPECT_EQ(getTmemColumns(128), 128u);
  EXPECT_EQ(getTmemColumns(256), 256u);
  EXPECT_EQ(getTmemColumns(512), 512u);
  EXPECT_FALSE(getTmemColumns(513));
  EXPECT_EQ(getTmemAddress(0, 96, 64), (96u << 16) | 64u);
  EXPECT_EQ(getTmemAddress(0x00000020, 32, 0), 0x00200020u);
}

} // namespace
