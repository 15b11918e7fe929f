// Bad arguments to the softmax and top-k entry points and to a plain kernel
// launch on a real device: each call must be rejected before anything is
// launched, and afterwards the same context must still run the kernels
// correctly (a launch on a host address would have poisoned it, failing
// every later CUDA call). Skips when no CUDA device is present.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runtime/embedded.h"
#include "runtime/module.h"
#include "runtime/softmax.h"
#include "runtime/topk.h"
#include "runtime/validate.h"
#include "test/support/device_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;
using ::testing::HasSubstr;

// Driver calls the runtime does not need, resolved here for the test: the
// same libcuda.so.1 the runtime opened, so the same driver state.
struct HostMemoryApi {
  cu::CUresult (*alloc_host)(void **, size_t) = nullptr;
  cu::CUresult (*free_host)(void *) = nullptr;
  cu::CUresult (*alloc_managed)(CUdeviceptr *, size_t, unsigned) = nullptr;

  static const HostMemoryApi &Get() {
    static const HostMemoryApi api = [] {
      HostMemoryApi a;
      void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) {
        a.alloc_host = reinterpret_cast<decltype(a.alloc_host)>(
            dlsym(lib, "cuMemAllocHost_v2"));
        a.free_host = reinterpret_cast<decltype(a.free_host)>(
            dlsym(lib, "cuMemFreeHost"));
        a.alloc_managed = reinterpret_cast<decltype(a.alloc_managed)>(
            dlsym(lib, "cuMemAllocManaged"));
      }
      return a;
    }();
    return api;
  }
};

constexpr unsigned kMemAttachGlobal = 1; // CU_MEM_ATTACH_GLOBAL

class ValidationGpuTest : public DeviceFixture<::testing::Test> {
protected:
  static constexpr int kBatch = 4, kN = 5000, kK = 8;
  // No buffer of the fixture is larger (x and y).
  static constexpr size_t kLargestBuffer = size_t(kBatch) * kN * 4;

  void SetUp() override {
    DeviceFixture::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    host_x_.resize(kBatch * kN);
    for (float &v : host_x_)
      v = normal(rng);
    x_ = Alloc(host_x_.size() * 4);
    values_ = Alloc(kBatch * kK * 4);
    indices_ = Alloc(kBatch * kK * 8);
    y_ = Alloc(host_x_.size() * 4);
    ASSERT_EQ(
        driver_->api().cuMemcpyHtoD_v2(x_, host_x_.data(), host_x_.size() * 4),
        0);
  }

  // A buffer of `bytes` whose first `claimed` bytes reach no other buffer
  // of the test. Passed as an argument that needs `claimed` bytes, it must
  // fail the allocation-size check, not the overlap check that runs first;
  // where allocations land is the driver's choice, so try a few.
  CUdeviceptr AllocClearOf(size_t bytes, size_t claimed) {
    for (int tries = 0; tries < 64; ++tries) {
      std::vector<CUdeviceptr> others = buffers_;
      CUdeviceptr p = Alloc(bytes);
      bool clear = true;
      for (CUdeviceptr other : others)
        clear &= other >= p + claimed || other + kLargestBuffer <= p;
      if (clear)
        return p;
    }
    ADD_FAILURE() << "no allocation of " << bytes << " bytes has " << claimed
                  << " bytes clear of the other buffers";
    return 0;
  }

  static const float *F(CUdeviceptr p) {
    return reinterpret_cast<const float *>(p);
  }
  static float *MutableF(CUdeviceptr p) { return reinterpret_cast<float *>(p); }
  static int64_t *I64(CUdeviceptr p) { return reinterpret_cast<int64_t *>(p); }

  // The context works: both entry points run on good arguments and agree
  // with the CPU, and synchronizing reports no sticky error.
  void ExpectContextHealthy() {
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0)
        << "the context is poisoned";
    absl::Status topk =
        TopK(F(x_), kBatch, kN, kK, MutableF(values_), I64(indices_));
    ASSERT_TRUE(topk.ok()) << topk;
    absl::Status softmax =
        Softmax(F(x_), MutableF(y_), kBatch, kN, SoftmaxType::kF32);
    ASSERT_TRUE(softmax.ok()) << softmax;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);

    std::vector<float> values(kBatch * kK), y(host_x_.size());
    std::vector<int64_t> indices(kBatch * kK);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(values.data(), values_,
                                             values.size() * 4),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(indices.data(), indices_,
                                             indices.size() * 8),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(y.data(), y_, y.size() * 4), 0);
    for (int r = 0; r < kBatch; ++r) {
      const float *row = host_x_.data() + r * kN;
      std::vector<float> sorted(row, row + kN);
      std::partial_sort(sorted.begin(), sorted.begin() + kK, sorted.end(),
                        std::greater<float>());
      double max = sorted[0], sum = 0;
      for (int c = 0; c < kN; ++c)
        sum += std::exp(double(row[c]) - max);
      for (int j = 0; j < kK; ++j) {
        ASSERT_EQ(values[r * kK + j], sorted[j]) << "row " << r;
        ASSERT_EQ(row[indices[r * kK + j]], sorted[j]) << "row " << r;
      }
      for (int c = 0; c < kN; c += 97)
        ASSERT_NEAR(y[r * kN + c], std::exp(double(row[c]) - max) / sum, 1e-6)
            << "row " << r << " column " << c;
    }
  }

  // `status` is InvalidArgument mentioning each of `parts`; then the
  // context must still be healthy.
  void ExpectRejected(const absl::Status &status,
                      std::initializer_list<const char *> parts) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    for (const char *part : parts)
      EXPECT_THAT(status.message(), HasSubstr(part));
    ExpectContextHealthy();
  }

  std::vector<float> host_x_;
  CUdeviceptr x_ = 0, values_ = 0, indices_ = 0, y_ = 0;
};

TEST_F(ValidationGpuTest, GoodArgumentsRun) { ExpectContextHealthy(); }

TEST_F(ValidationGpuTest, HostInputIsRejected) {
  std::vector<float> values(kBatch * kK);
  std::vector<int64_t> indices(kBatch * kK);
  ExpectRejected(
      TopK(host_x_.data(), kBatch, kN, kK, MutableF(values_), I64(indices_)),
      {"argument 'x'", "is not CUDA memory"});
  ExpectRejected(TopK(F(x_), kBatch, kN, kK, values.data(), I64(indices_)),
                 {"argument 'values'", "is not CUDA memory"});
  ExpectRejected(TopK(F(x_), kBatch, kN, kK, MutableF(values_), indices.data()),
                 {"argument 'indices'", "is not CUDA memory"});
  ExpectRejected(
      Softmax(host_x_.data(), MutableF(y_), kBatch, kN, SoftmaxType::kF32),
      {"argument 'x'", "is not CUDA memory"});
  ExpectRejected(Softmax(F(x_), host_x_.data(), kBatch, kN, SoftmaxType::kF32),
                 {"argument 'y'", "is not CUDA memory"});
}

TEST_F(ValidationGpuTest, PinnedHostMemoryIsRejected) {
  const HostMemoryApi &api = HostMemoryApi::Get();
  if (api.alloc_host == nullptr || api.free_host == nullptr)
    GTEST_SKIP() << "the driver lacks cuMemAllocHost_v2 / cuMemFreeHost";
  void *pinned = nullptr;
  ASSERT_EQ(api.alloc_host(&pinned, kBatch * kK * 4), 0);
  ExpectRejected(
      TopK(F(x_), kBatch, kN, kK, static_cast<float *>(pinned), I64(indices_)),
      {"argument 'values'", "page-locked host memory"});
  api.free_host(pinned);
}

TEST_F(ValidationGpuTest, ManagedMemoryIsAccepted) {
  const HostMemoryApi &api = HostMemoryApi::Get();
  if (api.alloc_managed == nullptr)
    GTEST_SKIP() << "the driver lacks cuMemAllocManaged";
  CUdeviceptr managed = 0;
  ASSERT_EQ(api.alloc_managed(&managed, host_x_.size() * 4, kMemAttachGlobal),
            0);
  std::copy(host_x_.begin(), host_x_.end(), reinterpret_cast<float *>(managed));
  absl::Status status =
      TopK(F(managed), kBatch, kN, kK, MutableF(values_), I64(indices_));
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(driver_->api().cuCtxSynchronize(), 0);
  driver_->api().cuMemFree_v2(managed);
  ExpectContextHealthy();
}

TEST_F(ValidationGpuTest, OutputsAllocatedTooSmallAreRejected) {
  // indices sized for int32, values one row short, values ending past the
  // end of its allocation, y far too small.
  CUdeviceptr narrow = AllocClearOf(kBatch * kK * 4, kBatch * kK * 8);
  ExpectRejected(
      TopK(F(x_), kBatch, kN, kK, MutableF(values_), I64(narrow)),
      {"argument 'indices' needs 256 bytes", "allocation has only 128 bytes"});
  CUdeviceptr short_values =
      AllocClearOf((kBatch - 1) * kK * 4, kBatch * kK * 4);
  ExpectRejected(
      TopK(F(x_), kBatch, kN, kK, MutableF(short_values), I64(indices_)),
      {"argument 'values' needs 128 bytes", "has only 96 bytes"});
  CUdeviceptr late_values = AllocClearOf(kBatch * kK * 4, 64 + kBatch * kK * 4);
  ExpectRejected(
      TopK(F(x_), kBatch, kN, kK, MutableF(late_values + 64), I64(indices_)),
      {"argument 'values'", "has only 64 bytes"});
  CUdeviceptr small_y = AllocClearOf(kBatch * kK * 4, host_x_.size() * 4);
  ExpectRejected(
      Softmax(F(x_), MutableF(small_y), kBatch, kN, SoftmaxType::kF32),
      {"argument 'y' needs 80000 bytes", "has only 128 bytes"});
}

TEST_F(ValidationGpuTest, FreedMemoryIsRejected) {
  CUdeviceptr freed = 0;
  ASSERT_EQ(driver_->api().cuMemAlloc_v2(&freed, kBatch * kK * 4), 0);
  ASSERT_EQ(driver_->api().cuMemFree_v2(freed), 0);
  ExpectRejected(TopK(F(x_), kBatch, kN, kK, MutableF(freed), I64(indices_)),
                 {"argument 'values'", "is not CUDA memory"});
}

TEST_F(ValidationGpuTest, ShapeDtypeAndStrideErrorsLeaveTheContextUsable) {
  TensorRef x = TensorRef::Contiguous(F(x_), DType::kF32, {kBatch, kN});
  TensorRef values =
      TensorRef::Contiguous(F(values_), DType::kF32, {kBatch, kK});
  TensorRef indices =
      TensorRef::Contiguous(I64(indices_), DType::kI64, {kBatch, kK});
  TensorRef bad = x;
  bad.dtype = DType::kF16;
  ExpectRejected(TopK(bad, kK, values, indices),
                 {"argument 'x' has dtype f16"});
  bad = x;
  bad.shape = {kN, kBatch};
  bad.strides = {1, kN};
  ExpectRejected(TopK(bad, kK, values, indices),
                 {"argument 'x' must be contiguous"});
  bad = indices;
  bad.dtype = DType::kI32;
  ExpectRejected(TopK(x, kK, values, bad),
                 {"argument 'indices' has dtype i32"});
  bad = values;
  bad.shape = {kBatch, kK / 2};
  ExpectRejected(TopK(x, kK, bad, indices), {"argument 'values' has shape"});
  ExpectRejected(TopK(x, kN + 1, values, indices), {"argument 'k'"});
  ExpectRejected(
      Softmax(x, TensorRef::Contiguous(F(x_) + 1, DType::kF32, {kBatch, kN})),
      {"arguments 'x' and 'y' overlap"});
}

TEST_F(ValidationGpuTest, PlainKernelLaunchChecksPointers) {
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel("softmax", "softmax_f32_c1024");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const KernelArg args[] = {KernelArg::Ptr(host_x_.data()),
                            KernelArg::DevicePtr(y_), KernelArg::I32(kBatch),
                            KernelArg::I32(kN)};
  ExpectRejected(
      (*kernel)->Launch({kBatch, 1, 1}, args),
      {"kernel 'softmax_f32_c1024': argument 'x'", "is not CUDA memory"});
}

} // namespace
} // namespace tilec
