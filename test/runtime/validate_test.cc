// The argument checks of runtime/validate.h and of the softmax and top-k
// entry points: every rejection that needs no GPU. The driver's answer
// about a pointer is faked as a PointerInfo; the real query is covered by
// the GPU tests (test/gpu/validation_gpu_test.cc).
#include "runtime/validate.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime/context.h"
#include "runtime/gemm.h"
#include "runtime/kda.h"
#include "runtime/paged_decode.h"
#include "runtime/softmax.h"
#include "runtime/topk.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

// Distinct, aligned, never dereferenced addresses far apart: the pure
// checks only do arithmetic on them.
const void *Address(uintptr_t gigabyte) {
  return reinterpret_cast<const void *>(gigabyte << 30);
}

TensorRef Tensor(const void *data, DType dtype,
                 std::initializer_list<int64_t> shape,
                 std::initializer_list<int64_t> strides = {}) {
  TensorRef t = TensorRef::Contiguous(data, dtype, shape);
  t.strides.assign(strides.begin(), strides.end());
  return t;
}

void ExpectInvalid(const absl::Status &status, const std::string &message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr(message));
}

TEST(DTypeTest, NamesSizesAndCValues) {
  EXPECT_EQ(DTypeName(DType::kBF16), "bf16");
  EXPECT_EQ(DTypeName(DType::kBool), "i1");
  EXPECT_EQ(DTypeBytes(DType::kI64), 8);
  EXPECT_EQ(DTypeBytes(DType::kF16), 2);
  EXPECT_EQ(DTypeFromInt(7), DType::kI64);
  EXPECT_EQ(DTypeFromInt(-1), std::nullopt);
  EXPECT_EQ(DTypeFromInt(10), DType::kF8E4M3);
  EXPECT_EQ(DTypeFromInt(11), std::nullopt);
}

TEST(TensorRefTest, StridesAndSpan) {
  TensorRef dense = Tensor(Address(1), DType::kF32, {3, 5});
  EXPECT_EQ(dense.stride(0), 5);
  EXPECT_EQ(dense.stride(1), 1);
  EXPECT_EQ(dense.NumElements(), 15);
  EXPECT_EQ(dense.SpanBytes(), 60);
  TensorRef empty = Tensor(Address(1), DType::kF32, {0, 5});
  EXPECT_EQ(empty.SpanBytes(), 0);
  EXPECT_EQ(ShapeString({4, kAnyExtent}), "(4, *)");
  EXPECT_EQ(ShapeString({7}), "(7,)");
}

TEST(CheckTest, DTypeNamesWhatWasExpected) {
  ExpectInvalid(CheckDType("x", Tensor(Address(1), DType::kF16, {2, 2}),
                           {DType::kF32, DType::kBF16}),
                "argument 'x' has dtype f16; expected f32 or bf16");
}

TEST(CheckTest, ShapeRankExtentAndOverflow) {
  TensorRef t = Tensor(Address(1), DType::kF32, {2, 3, 4});
  ExpectInvalid(CheckShape("x", t, {kAnyExtent, kAnyExtent}),
                "argument 'x' must be 2-D, got shape (2, 3, 4)");
  ExpectInvalid(
      CheckShape("values", Tensor(Address(1), DType::kF32, {4, 8}), {4, 16}),
      "argument 'values' has shape (4, 8); expected (4, 16)");
  ExpectInvalid(CheckShape("x", Tensor(Address(1), DType::kF32, {-1, 2}),
                           {kAnyExtent, kAnyExtent}),
                "negative extent");
  const int64_t huge = int64_t{1} << 40;
  ExpectInvalid(CheckShape("x", Tensor(Address(1), DType::kF32, {huge, huge}),
                           {kAnyExtent, kAnyExtent}),
                "too large to address");
  TensorRef mismatched = Tensor(Address(1), DType::kF32, {2, 2}, {2});
  ExpectInvalid(CheckShape("x", mismatched, {2, 2}),
                "has 1 strides for its 2 dimensions");
}

TEST(CheckTest, RowMajorRejectsTransposedAndPaddedRows) {
  ExpectInvalid(
      CheckRowMajor("x", Tensor(Address(1), DType::kF32, {4, 3}, {1, 4})),
      "argument 'x' must be contiguous (row-major): shape (4, 3) has strides "
      "(1, 4) (in elements); expected (3, 1)");
  ExpectInvalid(
      CheckRowMajor("x", Tensor(Address(1), DType::kF32, {4, 3}, {8, 1})),
      "must be contiguous");
  // Extent-1 dimensions may carry any stride, as PyTorch's do.
  EXPECT_TRUE(
      CheckRowMajor("x", Tensor(Address(1), DType::kF32, {1, 3}, {99, 1}))
          .ok());
  EXPECT_TRUE(
      CheckRowMajor("x", Tensor(Address(1), DType::kF32, {2, 3}, {3, 1})).ok());
}

TEST(CheckTest, AlignmentAndNull) {
  const char *base = static_cast<const char *>(Address(1));
  ExpectInvalid(CheckAligned("x", Tensor(base + 2, DType::kF32, {1, 1})),
                "is not a multiple of its 4-byte element size");
  EXPECT_TRUE(CheckAligned("x", Tensor(base + 2, DType::kBF16, {1, 1})).ok());
  ExpectInvalid(CheckNotNull("y", Tensor(nullptr, DType::kF32, {1, 1})),
                "argument 'y' is a null pointer");
}

TEST(CheckTest, Overlap) {
  const char *base = static_cast<const char *>(Address(1));
  TensorRef a = Tensor(base, DType::kF32, {4, 4});
  TensorRef shifted = Tensor(base + 16, DType::kF32, {4, 4});
  TensorRef after = Tensor(base + 64, DType::kF32, {4, 4});
  ExpectInvalid(CheckNoOverlap("x", a, "y", shifted, true),
                "arguments 'x' and 'y' overlap in memory");
  ExpectInvalid(CheckNoOverlap("x", a, "values", a), "overlap");
  EXPECT_TRUE(CheckNoOverlap("x", a, "y", a, /*allow_identical=*/true).ok());
  EXPECT_TRUE(CheckNoOverlap("x", a, "y", after).ok());
}

TEST(CheckTest, Int32Extents) {
  // More than 2^31 elements is fine; an extent of 2^31 is not.
  EXPECT_TRUE(
      CheckInt32Extents("x", Tensor(Address(1), DType::kF32, {65536, 50257}))
          .ok());
  EXPECT_TRUE(CheckInt32Extents("x", Tensor(Address(1), DType::kF32,
                                            {1, int64_t{2147483647}}))
                  .ok());
  ExpectInvalid(CheckInt32Extents("x", Tensor(Address(1), DType::kF32,
                                              {1, int64_t{1} << 31})),
                "argument 'x' has extent 2147483648 in dimension 1 (shape (1, "
                "2147483648)); the kernels take extents up to 2^31 - 1");
  ExpectInvalid(CheckInt32Extents("values", Tensor(Address(1), DType::kF32,
                                                   {int64_t{3} << 31, 1})),
                "argument 'values' has extent 6442450944 in dimension 0");
}

TEST(CheckTest, Int32Elements) {
  ExpectInvalid(
      CheckInt32Elements("x", Tensor(Address(1), DType::kF32, {65536, 50257})),
      "has 3293642752 elements; the kernel addresses at most 2^31");
  EXPECT_TRUE(
      CheckInt32Elements("x", Tensor(Address(1), DType::kF32, {32768, 65535}))
          .ok());
}

// CheckMemory with the driver's answers faked.
class MemoryTest : public ::testing::Test {
protected:
  static PointerInfo Info(PointerInfo::Memory memory, int device,
                          uint64_t start = 0, uint64_t size = 0) {
    PointerInfo info;
    info.memory = memory;
    info.device = device;
    info.range_start = start;
    info.range_size = size;
    return info;
  }
  const uintptr_t base_ = uintptr_t{1} << 30;
  TensorRef x_ = Tensor(reinterpret_cast<const void *>(base_), DType::kF32,
                        {4, 8}); // 128 bytes
};

TEST_F(MemoryTest, RejectsHostAndUnknownMemory) {
  ExpectInvalid(
      CheckMemory("x", x_, Info(PointerInfo::Memory::kUnknown, -1), 0),
      "argument 'x' address 0x40000000 is not CUDA memory (a host "
      "pointer, or freed); expected device memory of device 0");
  ExpectInvalid(CheckMemory("x", x_, Info(PointerInfo::Memory::kHost, 0), 0),
                "is page-locked host memory; expected device memory");
}

TEST_F(MemoryTest, RejectsAnotherDevice) {
  ExpectInvalid(
      CheckMemory("values", x_, Info(PointerInfo::Memory::kDevice, 1), 0),
      "argument 'values' is memory of device 1; the kernel runs on "
      "device 0");
}

TEST_F(MemoryTest, AcceptsDeviceMemoryOfTheDeviceAndManagedMemory) {
  EXPECT_TRUE(
      CheckMemory("x", x_, Info(PointerInfo::Memory::kDevice, 1), 1).ok());
  EXPECT_TRUE(
      CheckMemory("x", x_, Info(PointerInfo::Memory::kManaged, 0), 1).ok());
}

TEST_F(MemoryTest, RejectsAnAllocationTooSmall) {
  // 100 bytes from x: the last 7 floats lie past the allocation.
  ExpectInvalid(
      CheckMemory("x", x_,
                  Info(PointerInfo::Memory::kDevice, 0, base_ - 28, 128), 0),
      "argument 'x' needs 128 bytes at 0x40000000 (shape (4, 8), "
      "f32) but its allocation has only 100 bytes from there");
  EXPECT_TRUE(
      CheckMemory("x", x_, Info(PointerInfo::Memory::kDevice, 0, base_, 128), 0)
          .ok());
  // An unknown range (size 0) is not held against the tensor.
  EXPECT_TRUE(
      CheckMemory("x", x_, Info(PointerInfo::Memory::kDevice, 0, 0, 0), 0)
          .ok());
}

// DeviceOfTensors: which device a call runs on, from the driver's answers
// (faked) about each tensor.
class DeviceChoiceTest : public MemoryTest {
protected:
  static TensorPointer At(const char *name, const TensorRef &t,
                          PointerInfo info) {
    return {name, &t, info};
  }
  TensorRef y_ =
      Tensor(reinterpret_cast<const void *>(base_ * 2), DType::kF32, {4, 8});
  TensorRef z_ =
      Tensor(reinterpret_cast<const void *>(base_ * 3), DType::kF32, {4, 8});
};

TEST_F(DeviceChoiceTest, TheFirstTensorInDeviceMemoryDecides) {
  const TensorPointer tensors[] = {
      At("x", x_, Info(PointerInfo::Memory::kManaged, 0)),
      At("y", y_, Info(PointerInfo::Memory::kDevice, 2)),
      At("z", z_, Info(PointerInfo::Memory::kDevice, 2))};
  absl::StatusOr<int> device = DeviceOfTensors(tensors, 0);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(*device, 2);
}

TEST_F(DeviceChoiceTest, ManagedMemoryOnlyRunsOnTheFallback) {
  const TensorPointer tensors[] = {
      At("x", x_, Info(PointerInfo::Memory::kManaged, 0)),
      At("y", y_, Info(PointerInfo::Memory::kManaged, 0))};
  absl::StatusOr<int> device = DeviceOfTensors(tensors, 3);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(*device, 3);
}

TEST_F(DeviceChoiceTest, TensorsOnTwoDevicesAreRejectedByName) {
  const TensorPointer tensors[] = {
      At("x", x_, Info(PointerInfo::Memory::kDevice, 1)),
      At("y", y_, Info(PointerInfo::Memory::kManaged, 0)),
      At("z", z_, Info(PointerInfo::Memory::kDevice, 0))};
  ExpectInvalid(DeviceOfTensors(tensors, 0).status(),
                "argument 'z' is memory of device 0, but argument 'x' is "
                "memory of device 1; all tensors of a call must be on one "
                "device");
}

TEST_F(DeviceChoiceTest, HostMemoryIsRejectedAgainstTheChosenDevice) {
  const TensorPointer tensors[] = {
      At("x", x_, Info(PointerInfo::Memory::kUnknown, -1)),
      At("y", y_, Info(PointerInfo::Memory::kDevice, 1))};
  ExpectInvalid(DeviceOfTensors(tensors, 0).status(),
                "argument 'x' address 0x40000000 is not CUDA memory (a host "
                "pointer, or freed); expected device memory of device 1");
  const TensorPointer pinned[] = {
      At("x", x_, Info(PointerInfo::Memory::kDevice, 1)),
      At("y", y_, Info(PointerInfo::Memory::kHost, 0))};
  ExpectInvalid(DeviceOfTensors(pinned, 0).status(),
                "argument 'y' address 0x80000000 is page-locked host memory; "
                "expected device memory of device 1");
}

TEST_F(DeviceChoiceTest, AllocationsAreStillChecked) {
  const TensorPointer tensors[] = {
      At("x", x_, Info(PointerInfo::Memory::kDevice, 1, base_, 64))};
  ExpectInvalid(DeviceOfTensors(tensors, 0).status(),
                "argument 'x' needs 128 bytes");
}

TEST(StreamContextTest, TheLaunchContextsOwnStreamsPass) {
  CUcontext primary = reinterpret_cast<CUcontext>(0x1000);
  EXPECT_TRUE(CheckStreamContext(primary, 1, primary, 1).ok());
}

TEST(StreamContextTest, AnotherDevicesStreamIsRejected) {
  CUcontext primary0 = reinterpret_cast<CUcontext>(0x1000);
  CUcontext primary1 = reinterpret_cast<CUcontext>(0x2000);
  ExpectInvalid(CheckStreamContext(primary0, 0, primary1, 1),
                "argument 'stream' is a stream of device 0 but the tensors "
                "are on device 1; pass a stream of device 1 (or null for its "
                "default stream)");
}

TEST(StreamContextTest, AnotherContextOfTheDeviceIsRejected) {
  CUcontext primary = reinterpret_cast<CUcontext>(0x1000);
  CUcontext created = reinterpret_cast<CUcontext>(0x3000);
  ExpectInvalid(CheckStreamContext(created, 0, primary, 0),
                "argument 'stream' belongs to a context of device 0 other "
                "than its primary context");
}

// The special stream handles mean "the current context's stream" and need
// no driver.
TEST(StreamContextTest, SpecialHandlesAlwaysPass) {
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    GTEST_SKIP() << "no CUDA driver: " << driver.status().message();
  CUcontext context = reinterpret_cast<CUcontext>(0x1000);
  EXPECT_TRUE(CheckStream(**driver, nullptr, context, 0).ok());
  EXPECT_TRUE(CheckStream(**driver, cu::CU_STREAM_LEGACY, context, 0).ok());
  EXPECT_TRUE(CheckStream(**driver, cu::CU_STREAM_PER_THREAD, context, 0).ok());
}

// The top-k entry point's arguments, valid until a case changes one.
struct TopKArgs {
  absl::Status Validate() const {
    return ValidateTopK(x_, k_, values_, indices_);
  }
  int64_t k_ = 16;
  TensorRef x_ = Tensor(Address(1), DType::kF32, {8, 1000});
  TensorRef values_ = Tensor(Address(2), DType::kF32, {8, 16});
  TensorRef indices_ = Tensor(Address(3), DType::kI64, {8, 16});
};

TEST(TopKValidationTest, AcceptsValidArguments) {
  TopKArgs args;
  EXPECT_TRUE(args.Validate().ok()) << args.Validate();
}

TEST(TopKValidationTest, RejectsEachBadArgument) {
  struct Case {
    const char *what;
    void (*mutate)(TopKArgs &);
    const char *message;
  };
  const Case cases[] = {
      {"null x", [](TopKArgs &t) { t.x_.data = nullptr; },
       "argument 'x' is a null pointer"},
      {"f16 x", [](TopKArgs &t) { t.x_.dtype = DType::kF16; },
       "argument 'x' has dtype f16; expected f32"},
      {"3-D x",
       [](TopKArgs &t) {
         t.x_.shape = {2, 4, 1000};
       },
       "argument 'x' must be 2-D, got shape (2, 4, 1000)"},
      {"transposed x",
       [](TopKArgs &t) {
         t.x_ = Tensor(Address(1), DType::kF32, {8, 1000}, {1, 8});
       },
       "argument 'x' must be contiguous"},
      {"misaligned x",
       [](TopKArgs &t) {
         t.x_.data = static_cast<const char *>(Address(1)) + 2;
       },
       "argument 'x' address"},
      {"empty x",
       [](TopKArgs &t) {
         t.x_.shape = {0, 1000};
       },
       "argument 'x' has shape (0, 1000); expected (batch, n) with batch >= 1"},
      {"k = 0", [](TopKArgs &t) { t.k_ = 0; },
       "argument 'k' must be in [1, n=1000], got 0"},
      {"k > n", [](TopKArgs &t) { t.k_ = 1001; },
       "argument 'k' must be in [1, n=1000], got 1001"},
      {"values too small",
       [](TopKArgs &t) {
         t.values_.shape = {8, 8};
       },
       "argument 'values' has shape (8, 8); expected (8, 16)"},
      {"values of too few rows",
       [](TopKArgs &t) {
         t.values_.shape = {4, 16};
       },
       "argument 'values' has shape (4, 16); expected (8, 16)"},
      {"f16 values", [](TopKArgs &t) { t.values_.dtype = DType::kF16; },
       "argument 'values' has dtype f16; expected f32"},
      {"int32 indices", [](TopKArgs &t) { t.indices_.dtype = DType::kI32; },
       "argument 'indices' has dtype i32; expected i64"},
      {"strided indices",
       [](TopKArgs &t) {
         t.indices_.strides = {32, 1};
       },
       "argument 'indices' must be contiguous"},
      {"null indices", [](TopKArgs &t) { t.indices_.data = nullptr; },
       "argument 'indices' is a null pointer"},
      {"values inside x", [](TopKArgs &t) { t.values_.data = Address(1); },
       "arguments 'x' and 'values' overlap"},
      {"indices over values", [](TopKArgs &t) { t.indices_.data = Address(2); },
       "arguments 'values' and 'indices' overlap"},
  };
  for (const Case &c : cases) {
    TopKArgs t;
    c.mutate(t);
    SCOPED_TRACE(c.what);
    ExpectInvalid(t.Validate(), c.message);
  }
}

TEST(TopKValidationTest, AnyKUpToNAndLargeSizes) {
  TopKArgs t;
  // Every k <= n is accepted (the large-k path sorts past 2048).
  t.x_.shape = {1, 5000};
  t.k_ = 4096;
  t.values_.shape = t.indices_.shape = {1, 4096};
  EXPECT_TRUE(t.Validate().ok()) << t.Validate();
  t.k_ = 5000;
  t.values_.shape = t.indices_.shape = {1, 5000};
  EXPECT_TRUE(t.Validate().ok()) << t.Validate();
  // Past 2^31 elements is fine; an extent of 2^31 is not.
  t.x_.shape = {65536, 50257}; // 13 GB: the outputs lie past it
  t.k_ = 1;
  t.values_.shape = t.indices_.shape = {65536, 1};
  t.values_.data = Address(64);
  t.indices_.data = Address(65);
  EXPECT_TRUE(t.Validate().ok()) << t.Validate();
  t.x_.shape = {int64_t{1} << 31, 2};
  t.values_.shape = t.indices_.shape = {int64_t{1} << 31, 1};
  ExpectInvalid(t.Validate(), "argument 'x' has extent 2147483648 in "
                              "dimension 0");
  t.x_.shape = {1, int64_t{1} << 31};
  t.values_.shape = t.indices_.shape = {1, 1};
  ExpectInvalid(t.Validate(), "argument 'x' has extent 2147483648 in "
                              "dimension 1");
}

TEST(TopKPointerValidation, NamesTheArgument) {
  float x[8] = {}, values[8] = {};
  int64_t indices[8] = {};
  ExpectInvalid(ValidateTopK(nullptr, 1, 4, 2, values, indices), "'x'");
  ExpectInvalid(ValidateTopK(x, 1, 4, 2, nullptr, indices), "'values'");
  ExpectInvalid(ValidateTopK(x, 1, 4, 2, values, nullptr), "'indices'");
  ExpectInvalid(ValidateTopK(x, 1, 4, 5, values, indices), "'k'");
  ExpectInvalid(ValidateTopK(x, 1, 4, 0, values, indices), "'k'");
  ExpectInvalid(ValidateTopK(x, 0, 4, 1, values, indices), "'batch'");
  ExpectInvalid(ValidateTopK(x, 1, 0, 1, values, indices), "'n'");
  // Sizes are 64-bit: each below 2^31, their product need not be.
  ExpectInvalid(ValidateTopK(x, int64_t{1} << 31, 4, 1, values, indices),
                "argument 'batch' must be in [1, 2^31 - 1], got 2147483648");
  ExpectInvalid(ValidateTopK(x, 1, int64_t{1} << 32, 1, values, indices),
                "argument 'n' must be in [1, 2^31 - 1], got 4294967296");
  ExpectInvalid(ValidateTopK(x, 1, 4, int64_t{1} << 32, values, indices),
                "argument 'k' must be in [1, n=4], got 4294967296");
  EXPECT_TRUE(
      ValidateTopK(Address(1), 65536, 50257, 1, Address(64), Address(65)).ok());
  ExpectInvalid(ValidateTopK(x, 2, 4, 4, x, indices),
                "arguments 'x' and 'values' overlap");
  // Any k <= n (no kernel limit).
  EXPECT_TRUE(
      ValidateTopK(Address(1), 1, 5000, 4096, Address(64), Address(65)).ok());
  EXPECT_TRUE(ValidateTopK(x, 2, 4, 4, values, indices).ok());
}

TEST(SoftmaxValidation, RejectsEachBadArgument) {
  TensorRef x = Tensor(Address(1), DType::kBF16, {4, 100});
  TensorRef y = Tensor(Address(2), DType::kBF16, {4, 100});
  EXPECT_TRUE(ValidateSoftmax(x, y).ok());
  EXPECT_TRUE(ValidateSoftmax(x, x).ok()); // in place

  TensorRef bad = x;
  bad.dtype = DType::kI32;
  ExpectInvalid(ValidateSoftmax(bad, y),
                "argument 'x' has dtype i32; expected f32 or bf16");
  bad = y;
  bad.dtype = DType::kF32;
  ExpectInvalid(ValidateSoftmax(x, bad),
                "argument 'y' has dtype f32; expected bf16");
  bad = y;
  bad.shape = {4, 99};
  ExpectInvalid(ValidateSoftmax(x, bad),
                "argument 'y' has shape (4, 99); expected (4, 100)");
  bad = x;
  bad.strides = {1, 4};
  ExpectInvalid(ValidateSoftmax(bad, y), "argument 'x' must be contiguous");
  bad = x;
  bad.shape = {100};
  ExpectInvalid(ValidateSoftmax(bad, y), "argument 'x' must be 2-D");
  bad = y;
  bad.data = static_cast<const char *>(Address(1)) + 64;
  ExpectInvalid(ValidateSoftmax(x, bad),
                "arguments 'x' and 'y' overlap in memory");
  // Past 2^31 elements is fine; an extent of 2^31 is not.
  EXPECT_TRUE(ValidateSoftmax(Tensor(Address(1), DType::kF32, {65536, 50257}),
                              Tensor(Address(64), DType::kF32, {65536, 50257}))
                  .ok());
  ExpectInvalid(
      ValidateSoftmax(Tensor(Address(1), DType::kF32, {int64_t{1} << 31, 1}),
                      Tensor(Address(2), DType::kF32, {int64_t{1} << 31, 1})),
      "argument 'x' has extent 2147483648 in dimension 0 (shape (2147483648, "
      "1)); the kernels take extents up to 2^31 - 1");
  ExpectInvalid(ValidateSoftmax(nullptr, Address(2), 1, 1), "'x'");
  ExpectInvalid(ValidateSoftmax(Address(1), Address(2), 0, 1), "'rows'");
  ExpectInvalid(ValidateSoftmax(Address(1), Address(2), 1, 0), "'cols'");
  ExpectInvalid(ValidateSoftmax(Address(1), Address(2), int64_t{1} << 31, 1),
                "argument 'rows' must be in [1, 2^31 - 1], got 2147483648");
  ExpectInvalid(ValidateSoftmax(Address(1), Address(2), 1, int64_t{1} << 40),
                "argument 'cols' must be in [1, 2^31 - 1], got 1099511627776");
  EXPECT_TRUE(ValidateSoftmax(Address(1), Address(2), 65536, 50257).ok());
}

TEST(GemmValidation, AcceptsBothElementTypesAndRaggedShapes) {
  for (DType dtype : {DType::kBF16, DType::kF8E4M3}) {
    absl::Status status =
        ValidateGemm(Tensor(Address(1), dtype, {200, 96}),
                     Tensor(Address(2), dtype, {136, 96}),
                     Tensor(Address(3), DType::kF32, {136}),
                     Tensor(Address(4), DType::kBF16, {200, 136}));
    EXPECT_TRUE(status.ok()) << DTypeName(dtype) << ": " << status;
  }
  // The largest row count the grid holds.
  EXPECT_TRUE(ValidateGemm(Tensor(Address(1), DType::kBF16, {8388480, 1}),
                           Tensor(Address(2), DType::kBF16, {1, 1}),
                           Tensor(Address(3), DType::kF32, {1}),
                           Tensor(Address(4), DType::kBF16, {8388480, 1}))
                  .ok());
}

TEST(GemmValidation, RejectsBeforeTheDriver) {
  ExpectInvalid(Gemm(Tensor(Address(1), DType::kBF16, {8, 16}),
                     Tensor(Address(2), DType::kBF16, {4, 16}),
                     Tensor(Address(3), DType::kF32, {4}),
                     Tensor(Address(4), DType::kBF16, {4, 8})),
                "argument 'y' has shape (4, 8); expected (8, 4)");
}

// A valid paged-decode call: B = 4, H = 32, Hkv = 8, D = 128, 100 pages,
// tables of 12 pages.
struct DecodeArgs {
  TensorRef query = Tensor(Address(1), DType::kBF16, {4, 32, 128});
  TensorRef kv = Tensor(Address(2), DType::kBF16, {100, 16, 8, 256});
  TensorRef table = Tensor(Address(3), DType::kI32, {4, 12});
  TensorRef lens = Tensor(Address(4), DType::kI32, {4});
  TensorRef out = Tensor(Address(5), DType::kBF16, {4, 32, 128});
  absl::Status Validate() const {
    return ValidatePagedDecode(query, kv, table, lens, out);
  }
};

TEST(PagedDecodeValidation, AcceptsBothHeadDimsAndHeadRatios) {
  DecodeArgs a;
  EXPECT_TRUE(a.Validate().ok()) << a.Validate();
  a.query = Tensor(Address(1), DType::kBF16, {4, 40, 64});
  a.kv = Tensor(Address(2), DType::kBF16, {100, 16, 2, 128});
  a.out = Tensor(Address(5), DType::kBF16, {4, 40, 64});
  EXPECT_TRUE(a.Validate().ok()) << a.Validate();
}

TEST(PagedDecodeValidation, NamesTheArgument) {
  {
    DecodeArgs a;
    a.query = Tensor(Address(1), DType::kF16, {4, 32, 128});
    ExpectInvalid(a.Validate(), "argument 'query' has dtype f16");
  }
  {
    DecodeArgs a;
    a.kv = Tensor(Address(2), DType::kBF16, {100, 16, 8, 128});
    ExpectInvalid(a.Validate(), "argument 'kv_cache' has shape");
  }
  {
    DecodeArgs a;
    a.kv = Tensor(Address(2), DType::kBF16, {100, 16, 5, 256});
    ExpectInvalid(a.Validate(), "5 kv heads, which do not divide");
  }
  {
    DecodeArgs a;
    a.table = Tensor(Address(3), DType::kI64, {4, 12});
    ExpectInvalid(a.Validate(), "argument 'block_table' has dtype i64");
  }
  {
    DecodeArgs a;
    a.table = Tensor(Address(3), DType::kI32, {4, 12}, {1, 4});
    ExpectInvalid(a.Validate(), "argument 'block_table'");
  }
  {
    DecodeArgs a;
    a.lens = Tensor(Address(4), DType::kI32, {3});
    ExpectInvalid(a.Validate(), "argument 'seq_lens' has shape (3");
  }
  {
    DecodeArgs a;
    a.out = Tensor(Address(1), DType::kBF16, {4, 32, 128});
    ExpectInvalid(a.Validate(), "'query'");
  }
  {
    DecodeArgs a;
    a.query = Tensor(Address(1), DType::kBF16, {4, 32, 96});
    a.out = Tensor(Address(5), DType::kBF16, {4, 32, 96});
    absl::Status status = a.Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
    EXPECT_THAT(status.message(), HasSubstr("head dim 96"));
  }
  DecodeArgs a;
  a.out = Tensor(Address(5), DType::kBF16, {4, 32, 128});
  ExpectInvalid(PagedDecode(a.query, a.kv, a.table,
                            Tensor(Address(4), DType::kF32, {4}), a.out),
                "argument 'seq_lens' has dtype f32");
}

// A valid KDA call: B = 2, T = 100, H = 4, K = V = 128.
struct KdaArgs {
  TensorRef q = Tensor(Address(1), DType::kBF16, {2, 100, 4, 128});
  TensorRef k = Tensor(Address(2), DType::kBF16, {2, 100, 4, 128});
  TensorRef v = Tensor(Address(3), DType::kBF16, {2, 100, 4, 128});
  TensorRef g = Tensor(Address(4), DType::kF32, {2, 100, 4, 128});
  TensorRef beta = Tensor(Address(5), DType::kBF16, {2, 100, 4});
  TensorRef o = Tensor(Address(6), DType::kBF16, {2, 100, 4, 128});
  TensorRef h0 = Tensor(Address(7), DType::kF32, {2, 4, 128, 128});
  TensorRef ht = Tensor(Address(8), DType::kF32, {2, 4, 128, 128});
  TensorRef cu = Tensor(Address(9), DType::kI32, {3});
  float scale = 0.088f;
  KdaOptions options;
  absl::Status Validate() const {
    return ValidateKdaForward(q, k, v, g, beta, scale, o, options);
  }
};

TEST(KdaValidation, AcceptsStatesVarlenAndBothHeadDims) {
  KdaArgs a;
  EXPECT_TRUE(a.Validate().ok()) << a.Validate();
  a.options.initial_state = &a.h0;
  a.options.final_state = &a.ht;
  EXPECT_TRUE(a.Validate().ok()) << a.Validate();
  // Two sequences packed along T = 100 of one batch entry.
  KdaArgs p;
  for (TensorRef *t : {&p.q, &p.k, &p.v, &p.o})
    t->shape = {1, 100, 4, 128};
  p.g.shape = {1, 100, 4, 128};
  p.beta.shape = {1, 100, 4};
  p.options.cu_seqlens = &p.cu;
  p.options.initial_state = &p.h0;
  p.options.final_state = &p.ht;
  EXPECT_TRUE(p.Validate().ok()) << p.Validate();
  KdaArgs d;
  for (TensorRef *t : {&d.q, &d.k, &d.v, &d.g, &d.o})
    t->shape = {2, 1, 4, 64};
  d.beta.shape = {2, 1, 4};
  EXPECT_TRUE(d.Validate().ok()) << d.Validate();
}

TEST(KdaValidation, NamesTheArgument) {
  {
    KdaArgs a;
    a.q = Tensor(Address(1), DType::kF16, {2, 100, 4, 128});
    ExpectInvalid(a.Validate(), "argument 'q' has dtype f16");
  }
  {
    KdaArgs a;
    a.k = Tensor(Address(2), DType::kBF16, {2, 100, 4, 64});
    ExpectInvalid(a.Validate(), "argument 'k' has shape (2, 100, 4, 64)");
  }
  {
    KdaArgs a;
    a.g = Tensor(Address(4), DType::kBF16, {2, 100, 4, 128});
    ExpectInvalid(a.Validate(), "argument 'g' has dtype bf16");
  }
  {
    KdaArgs a;
    a.beta = Tensor(Address(5), DType::kBF16, {2, 100, 4, 1});
    ExpectInvalid(a.Validate(), "argument 'beta' must be 3-D");
  }
  {
    KdaArgs a;
    a.v = Tensor(Address(3), DType::kBF16, {2, 100, 4, 128},
                 {51200, 1, 128, 400});
    ExpectInvalid(a.Validate(), "argument 'v'");
  }
  {
    KdaArgs a;
    a.o = Tensor(Address(1), DType::kBF16, {2, 100, 4, 128});
    ExpectInvalid(a.Validate(), "'q'");
  }
  {
    KdaArgs a;
    a.o = Tensor(Address(6), DType::kF32, {2, 100, 4, 128});
    ExpectInvalid(a.Validate(), "argument 'o' has dtype f32");
  }
  {
    KdaArgs a;
    a.scale = std::numeric_limits<float>::quiet_NaN();
    ExpectInvalid(a.Validate(), "argument 'scale'");
  }
  {
    KdaArgs a;
    a.h0 = Tensor(Address(7), DType::kF32, {2, 4, 128, 64});
    a.options.initial_state = &a.h0;
    ExpectInvalid(a.Validate(), "argument 'initial_state' has shape");
  }
  {
    KdaArgs a;
    a.ht = Tensor(Address(8), DType::kBF16, {2, 4, 128, 128});
    a.options.final_state = &a.ht;
    ExpectInvalid(a.Validate(), "argument 'final_state' has dtype bf16");
  }
  {
    KdaArgs a;
    a.ht = Tensor(Address(4), DType::kF32, {2, 4, 128, 128});
    a.options.final_state = &a.ht;
    ExpectInvalid(a.Validate(), "'final_state'");
  }
  {
    // cu_seqlens needs B = 1.
    KdaArgs a;
    a.options.cu_seqlens = &a.cu;
    ExpectInvalid(a.Validate(), "argument 'q' has batch 2");
  }
  {
    KdaArgs a;
    for (TensorRef *t : {&a.q, &a.k, &a.v, &a.g, &a.o})
      t->shape = {1, 100, 4, 128};
    a.beta.shape = {1, 100, 4};
    a.cu = Tensor(Address(9), DType::kI64, {3});
    a.options.cu_seqlens = &a.cu;
    ExpectInvalid(a.Validate(), "argument 'cu_seqlens' has dtype i64");
    a.cu = Tensor(Address(9), DType::kI32, {1});
    ExpectInvalid(a.Validate(), "argument 'cu_seqlens' has shape (1");
    // Three sequences: the states must hold three.
    a.cu = Tensor(Address(9), DType::kI32, {4});
    a.options.initial_state = &a.h0;
    ExpectInvalid(a.Validate(), "argument 'initial_state' has shape "
                                "(2, 4, 128, 128); expected (3, 4, 128, 128)");
  }
  {
    KdaArgs a;
    a.q = Tensor(Address(1), DType::kBF16, {2, 0, 4, 128});
    ExpectInvalid(a.Validate(), "argument 'q' has shape (2, 0, 4, 128)");
  }
  {
    KdaArgs a;
    for (TensorRef *t : {&a.q, &a.k, &a.v, &a.g, &a.o})
      t->shape = {2, 100, 4, 96};
    absl::Status status = a.Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
    EXPECT_THAT(status.message(), HasSubstr("head dim K = 96"));
  }
  KdaArgs a;
  ExpectInvalid(KdaForward(a.q, a.k, a.v, a.g,
                           Tensor(Address(5), DType::kF32, {2, 100, 4}),
                           a.scale, a.o),
                "argument 'beta' has dtype f32");
}

TEST(KdaValidation, RejectsAnUnknownSchedule) {
  KdaArgs a;
  a.options.schedule = static_cast<KdaSchedule>(7);
  ExpectInvalid(a.Validate(), "argument 'schedule' is 7");
}

// Bytes of the workspace's records and decay rows for `slots` chunk slots
// of `heads` heads: a record of 256·D + 4096 elements and D f32 each.
int64_t ChunkBytes(int64_t slots, int64_t heads, int64_t dim,
                   int64_t element_bytes) {
  return slots * heads * ((256 * dim + 4096) * element_bytes + dim * 4);
}

TEST(KdaValidation, WorkspaceHoldsEveryChunkSlot) {
  // B = 2 sequences of ceil(100 / 64) = 2 chunks each, 4 heads.
  KdaWorkspaceLayout l = GetKdaWorkspaceLayout(2, 100, 4, 128, -1, 0, 4);
  EXPECT_EQ(l.decays, 2 * 2 * 4 * (256 * 128 + 4096) * 4);
  EXPECT_EQ(l.segments, ChunkBytes(2 * 2, 4, 128, 4));
  EXPECT_EQ(l.bytes, l.segments);
  // bf16 records: half the record bytes, the same decay rows.
  l = GetKdaWorkspaceLayout(2, 100, 4, 128, -1, 0, 2);
  EXPECT_EQ(l.decays, 2 * 2 * 4 * (256 * 128 + 4096) * 2);
  EXPECT_EQ(l.bytes, ChunkBytes(2 * 2, 4, 128, 2));
  EXPECT_EQ(GetKdaWorkspaceLayout(1, 4096, 8, 128, -1, 0, 4).bytes,
            ChunkBytes(64, 8, 128, 4));
  // Packed: floor(T / 64) + N + 1 slots.
  EXPECT_EQ(GetKdaWorkspaceLayout(1, 1000, 4, 128, 6, 0, 4).bytes,
            ChunkBytes(15 + 6 + 1, 4, 128, 4));
  EXPECT_EQ(GetKdaWorkspaceLayout(1, 1, 1, 64, 1, 0, 2).bytes,
            ChunkBytes(2, 1, 64, 2));
  // Every part starts 16-byte aligned.
  l = GetKdaWorkspaceLayout(3, 65, 3, 64, -1, 1, 2);
  EXPECT_EQ(l.decays % 16, 0);
  EXPECT_EQ(l.segments % 16, 0);
}

TEST(KdaValidation, WorkspaceHoldsEverySegmentSlot) {
  const int64_t segment128 = 3 * 128 * 128 * 4;
  // B = 2 sequences of 16 chunks in segments of 4: 2·4 segment slots,
  // after the chunk slots.
  KdaWorkspaceLayout l = GetKdaWorkspaceLayout(2, 1024, 8, 128, -1, 4, 4);
  EXPECT_EQ(l.segments, ChunkBytes(2 * 16, 8, 128, 4));
  EXPECT_EQ(l.bytes, l.segments + 2 * 4 * 8 * segment128);
  // Segments of 5 over 16 chunks: 4 per sequence (the last holds one).
  EXPECT_EQ(GetKdaWorkspaceLayout(1, 1024, 2, 128, -1, 5, 2).bytes,
            ChunkBytes(16, 2, 128, 2) + 4 * 2 * segment128);
  // Packed: floor(T / 64L) + N + 1 segment slots.
  EXPECT_EQ(GetKdaWorkspaceLayout(1, 1000, 4, 128, 6, 2, 4).bytes,
            ChunkBytes(15 + 6 + 1, 4, 128, 4) + (7 + 6 + 1) * 4 * segment128);
  // One segment (L >= C): no segment slots.
  EXPECT_EQ(GetKdaWorkspaceLayout(2, 1024, 8, 128, -1, 16, 4).bytes,
            ChunkBytes(2 * 16, 8, 128, 4));
  EXPECT_EQ(GetKdaWorkspaceLayout(2, 1024, 8, 128, -1, 0, 4).bytes,
            ChunkBytes(2 * 16, 8, 128, 4));
}

TEST(KdaValidation, SegmentsFillTheSmsTheChainLeavesIdle) {
  // (2, 1024, 8) at D = 128: 2·8·4 = 64 chain programs on 132 SMs, 32
  // chunks in all: segments of ceil(32·8·4 / 132) = 8, 128 programs.
  EXPECT_EQ(KdaSegmentChunks(2, 1024, 8, 128, false, 132), 8);
  // (1, 4096, 8): 32 programs, 64 chunks: ceil(64·32 / 132) = 16.
  EXPECT_EQ(KdaSegmentChunks(1, 4096, 8, 128, false, 132), 16);
  // (1, 2048, 4): 16 programs, 32 chunks: ceil(32·16 / 132) = 4.
  EXPECT_EQ(KdaSegmentChunks(1, 2048, 4, 128, false, 132), 4);
  // Programs that fill the SMs: one segment.
  EXPECT_EQ(KdaSegmentChunks(16, 1024, 8, 128, false, 132), 16);
  // Never shorter than kKdaMinSegmentChunks, never longer than C.
  EXPECT_EQ(KdaSegmentChunks(1, 1000, 1, 128, false, 132),
            kKdaMinSegmentChunks);
  EXPECT_EQ(KdaSegmentChunks(1, 100, 1, 128, false, 132), 2);
  // Packed: ceil(T / 64) + N chunks in all.
  EXPECT_EQ(KdaSegmentChunks(3, 65536, 2, 128, true, 132),
            (1024 + 3) * 2 * 4 / 132 + 1);
  // D = 64: 4 blocks of 16 columns as well.
  EXPECT_EQ(KdaSegmentChunks(1, 4096, 8, 64, false, 132), 16);
}

TEST(KdaValidation, TakesAnySegmentLengthFromOne) {
  KdaArgs a;
  a.options.segment_chunks = -1;
  ExpectInvalid(a.Validate(), "argument 'segment_chunks' is -1");
  // 9000 chunks in segments of 1: 9000 segments along the grid's z (a
  // head's blocks of columns go along x), within its 65535.
  KdaArgs b;
  for (TensorRef *t : {&b.q, &b.k, &b.v, &b.o})
    *t = Tensor(t->data, DType::kBF16, {1, 9000 * 64, 1, 128});
  b.g = Tensor(b.g.data, DType::kF32, {1, 9000 * 64, 1, 128});
  b.beta = Tensor(b.beta.data, DType::kBF16, {1, 9000 * 64, 1});
  b.options.segment_chunks = 1;
  EXPECT_TRUE(b.Validate().ok()) << b.Validate();
}

void ExpectPlan(PagedDecodePlan plan, const std::string &kernel, int pages) {
  EXPECT_EQ(plan.kernel, kernel);
  EXPECT_EQ(plan.pages_per_split, pages);
}

TEST(PagedDecodeValidation, PlansFillTheGridInWholeSteps) {
  const std::string wide = "paged_decode_d128_w8", d128 = "paged_decode_d128",
                    d64 = "paged_decode_d64";
  // D = 128 up to 128 programs: the 8-warp kernel, about 128 programs in
  // spans of at least 64 pages. 64 (sequence, kv head) pairs of 64 pages:
  // two spans would be 32 pages; one of 64.
  ExpectPlan(PlanPagedDecode(8, 32, 8, 64), wide, 64);
  // 32 pairs of 256 pages: 4 spans of 64.
  ExpectPlan(PlanPagedDecode(4, 32, 8, 256), wide, 64);
  // 128 pairs of 96 pages: unsplit.
  ExpectPlan(PlanPagedDecode(16, 32, 8, 96), wide, 96);
  // 129 pairs and more: the 4-warp kernel, about 256 programs in spans of
  // 16 to 64 pages; 255 pairs of 1000 pages: two spans, of at most 64.
  ExpectPlan(PlanPagedDecode(129, 4, 1, 96), d128, 48);
  ExpectPlan(PlanPagedDecode(255, 4, 1, 1000), d128, 64);
  // One pair of 64000 pages: 128 spans of 500.
  ExpectPlan(PlanPagedDecode(1, 4, 1, 64000), wide, 500);
  // Spans of at least 64 pages that leave fewer than 64 programs: the
  // 8-warp kernel over the 4-warp kernel's spans. 32 pairs of 64 pages
  // (32 programs in one span of 64) take 4 spans of 16, 128 programs; one
  // pair of 64 pages takes 4 spans of 16.
  ExpectPlan(PlanPagedDecode(4, 32, 8, 64), wide, 16);
  ExpectPlan(PlanPagedDecode(1, 4, 1, 64), wide, 16);
  // 16 pairs: 64 programs in 4 spans of 64 pages, at the limit; 3 spans
  // and 48 programs are too few, and the 4-warp kernel's rule takes at
  // most 8 spans (of 24 pages here, not 16 of 12 rounded up to 16).
  ExpectPlan(PlanPagedDecode(2, 32, 8, 256), wide, 64);
  ExpectPlan(PlanPagedDecode(2, 32, 8, 192), wide, 24);
  // One pair of 1000 pages: 8 spans would be 125 pages, past the bound
  // of 64, so 16 spans of 64.
  ExpectPlan(PlanPagedDecode(1, 4, 1, 1000), wide, 64);
  // Over 128 programs the 4-warp kernel, split: 132 programs (33
  // sequences, two groups of heads per kv head) take two spans of 20.
  ExpectPlan(PlanPagedDecode(33, 40, 2, 40), d128, 20);
  // 32 query heads per kv head are two groups of 16: two programs.
  ExpectPlan(PlanPagedDecode(8, 256, 8, 96), wide, 96);
  ExpectPlan(PlanPagedDecode(16, 256, 8, 96), d128, 96);
  EXPECT_EQ(PlanPagedDecode(16, 256, 8, 96).head_groups, 2);
  EXPECT_EQ(PlanPagedDecode(16, 40, 1, 96).head_groups, 3);
  EXPECT_EQ(PlanPagedDecode(16, 16, 1, 96).head_groups, 1);
  // 256 pairs and more fill the grid unsplit on 4 warps: one span of the
  // whole table, however long (rounded up to whole steps), at least 16.
  ExpectPlan(PlanPagedDecode(32, 32, 8, 128), d128, 128);
  ExpectPlan(PlanPagedDecode(64, 32, 8, 1001), d128, 1004);
  ExpectPlan(PlanPagedDecode(256, 4, 1, 3), d128, 16);
  // D = 64: 4 warps, about 256 programs in spans of 32 to 128 pages. 32
  // pairs of 125 pages: 8 spans would be 16 pages; 4 spans of 32.
  ExpectPlan(PlanPagedDecode(8, 16, 4, 125, 64), d64, 32);
  ExpectPlan(PlanPagedDecode(8, 16, 4, 125, 128), wide, 64);
  ExpectPlan(PlanPagedDecode(1, 4, 1, 64000, 64), d64, 128);
  ExpectPlan(PlanPagedDecode(1, 4, 1, 1, 64), d64, 32);
  // D = 64 grids of at most 128 programs aim at 128: 32 pairs of 256
  // pages take 4 spans of 64 (8 of 32 at 256), 64 pairs of 125 two of 64,
  // 128 pairs one span; from 129 pairs the aim is 256 again.
  ExpectPlan(PlanPagedDecode(4, 8, 8, 256, 64), d64, 64);
  ExpectPlan(PlanPagedDecode(16, 16, 4, 125, 64), d64, 64);
  ExpectPlan(PlanPagedDecode(32, 16, 4, 64, 64), d64, 64);
  ExpectPlan(PlanPagedDecode(129, 4, 1, 256, 64), d64, 128);
  // At most 16 spans at D = 64: four pairs of 1250 pages, 80 pages each.
  ExpectPlan(PlanPagedDecode(1, 16, 4, 1250, 64), d64, 80);
  ExpectPlan(PlanPagedDecode(255, 4, 1, 1000, 64), d64, 128);
}

// The entry points check before they touch the driver or load a module, so
// bad arguments fail the same way with or without a GPU.
TEST(EntryPointTest, BadArgumentsFailBeforeTheDriver) {
  TensorRef x = Tensor(Address(1), DType::kF16, {8, 1000});
  TensorRef values = Tensor(Address(2), DType::kF32, {8, 16});
  TensorRef indices = Tensor(Address(3), DType::kI64, {8, 16});
  ExpectInvalid(TopK(x, 16, values, indices), "argument 'x' has dtype f16");
  ExpectInvalid(Softmax(Tensor(Address(1), DType::kF32, {8, 1000}),
                        Tensor(Address(4), DType::kBF16, {8, 1000})),
                "argument 'y' has dtype bf16; expected f32");
}

// Valid host arguments: without a driver the entry points stop at the
// driver; with one, the pointer check rejects the host memory (or, in a
// runtime without embedded kernels, the kernel is not found first).
TEST(EntryPointTest, HostMemoryNeverReachesALaunch) {
  std::vector<float> x(8 * 1000), values(8 * 16);
  std::vector<int64_t> indices(8 * 16);
  absl::Status status =
      TopK(x.data(), 8, 1000, 16, values.data(), indices.data());
  ASSERT_FALSE(status.ok());
  if (!DeviceAvailable()) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  } else if (status.code() != absl::StatusCode::kNotFound) {
    ExpectInvalid(status, "argument 'x' address");
    ExpectInvalid(status, "is not CUDA memory");
  }
}

} // namespace
} // namespace tilec
