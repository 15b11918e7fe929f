// The device the entry points run on: the one holding their tensors, in that
// device's primary context, whatever context the caller has current (which
// is current again afterwards). Tensors of two devices, or a stream of
// another context, are refused before anything is launched, and the devices
// keep working. Tests that need two devices skip on one; all skip without a
// GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "runtime/context.h"
#include "runtime/softmax.h"
#include "runtime/topk.h"
#include "test/support/device_fixture.h"
#include "test/support/test_driver_api.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;
using ::testing::HasSubstr;

// One (kBatch, kN) f32 input for both entry points. Rows of 16 parts of
// 4096 columns take top-k's global hand-off, which uses device scratch.
constexpr int kBatch = 4, kN = 65536, kK = 16;
constexpr size_t kInputBytes = size_t(kBatch) * kN * 4;

const float *F(CUdeviceptr p) { return reinterpret_cast<const float *>(p); }
float *MutableF(CUdeviceptr p) { return reinterpret_cast<float *>(p); }
int64_t *I64(CUdeviceptr p) { return reinterpret_cast<int64_t *>(p); }

// Both entry points' buffers on one device.
struct Buffers {
  int device = 0;
  CUdeviceptr x = 0, y = 0, values = 0, indices = 0;
};

class DeviceSelectionGpuTest : public DeviceFixture<::testing::Test> {
protected:
  void SetUp() override {
    DeviceFixture::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    ASSERT_EQ(driver_->api().cuDeviceGetCount(&devices_), 0);
    std::mt19937 rng(11);
    std::normal_distribution<float> normal;
    host_x_.resize(size_t(kBatch) * kN);
    for (float &v : host_x_)
      v = normal(rng);
  }

  void TearDown() override {
    for (const auto &[device, p] : remote_) {
      ScopedContext scope(*driver_, Primary(device));
      driver_->api().cuMemFree_v2(p);
    }
    DeviceFixture::TearDown();
  }

  CUcontext Primary(int device) {
    absl::StatusOr<CUcontext> primary = PrimaryContext(*driver_, device);
    EXPECT_TRUE(primary.ok()) << primary.status();
    return primary.ok() ? *primary : nullptr;
  }

  CUcontext Current() {
    CUcontext current = nullptr;
    EXPECT_EQ(driver_->api().cuCtxGetCurrent(&current), 0);
    return current;
  }

  // Buffers allocated in `device`'s primary context, with the input
  // uploaded.
  Buffers On(int device) {
    ScopedContext scope(*driver_, Primary(device));
    EXPECT_TRUE(scope.status().ok()) << scope.status();
    Buffers b;
    b.device = device;
    const std::pair<CUdeviceptr *, size_t> allocations[] = {
        {&b.x, kInputBytes},
        {&b.y, kInputBytes},
        {&b.values, size_t(kBatch) * kK * 4},
        {&b.indices, size_t(kBatch) * kK * 8}};
    for (const auto &[slot, bytes] : allocations) {
      EXPECT_EQ(driver_->api().cuMemAlloc_v2(slot, bytes), 0);
      remote_.push_back({device, *slot});
    }
    EXPECT_EQ(driver_->api().cuMemcpyHtoD_v2(b.x, host_x_.data(), kInputBytes),
              0);
    return b;
  }

  absl::Status RunSoftmax(const Buffers &b, CUstream stream = nullptr) {
    return Softmax(F(b.x), MutableF(b.y), kBatch, kN, SoftmaxType::kF32,
                   stream);
  }
  absl::Status RunTopK(const Buffers &b, CUstream stream = nullptr) {
    return TopK(F(b.x), kBatch, kN, kK, MutableF(b.values), I64(b.indices),
                stream);
  }

  // Waits for `b`'s device and compares its softmax and top-k outputs with
  // the CPU.
  void ExpectResults(const Buffers &b) {
    ScopedContext scope(*driver_, Primary(b.device));
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0)
        << "device " << b.device << " failed";
    std::vector<float> y(host_x_.size()), values(kBatch * kK);
    std::vector<int64_t> indices(kBatch * kK);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(y.data(), b.y, kInputBytes), 0);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(values.data(), b.values,
                                             values.size() * 4),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(indices.data(), b.indices,
                                             indices.size() * 8),
              0);
    for (int r = 0; r < kBatch; ++r) {
      const float *row = host_x_.data() + size_t(r) * kN;
      std::vector<float> sorted(row, row + kN);
      std::partial_sort(sorted.begin(), sorted.begin() + kK, sorted.end(),
                        std::greater<float>());
      for (int j = 0; j < kK; ++j) {
        ASSERT_EQ(values[r * kK + j], sorted[j]) << "row " << r;
        ASSERT_EQ(row[indices[r * kK + j]], sorted[j]) << "row " << r;
      }
      double max = sorted[0], sum = 0;
      for (int c = 0; c < kN; ++c)
        sum += std::exp(double(row[c]) - max);
      for (int c = 0; c < kN; c += 101) {
        double want = std::exp(double(row[c]) - max) / sum;
        ASSERT_NEAR(y[size_t(r) * kN + c], want, 1e-6 + 1e-4 * want)
            << "row " << r << " column " << c;
      }
    }
  }

  static void ExpectRefused(const absl::Status &status, const char *message) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(status.message(), HasSubstr(message));
  }

  int devices_ = 0;
  std::vector<float> host_x_;
  std::vector<std::pair<int, CUdeviceptr>> remote_;
};

// With no context current the tensors still say which device to use, and
// none is current afterwards.
TEST_F(DeviceSelectionGpuTest, RunsWithNoContextCurrentAndLeavesNoneCurrent) {
  Buffers b = On(0);
  ASSERT_EQ(driver_->api().cuCtxSetCurrent(nullptr), 0);
  absl::Status softmax = RunSoftmax(b);
  absl::Status topk = RunTopK(b);
  CUcontext after = Current();
  ASSERT_EQ(driver_->api().cuCtxSetCurrent(Primary(0)), 0);
  ASSERT_TRUE(softmax.ok()) << softmax;
  ASSERT_TRUE(topk.ok()) << topk;
  EXPECT_EQ(after, nullptr);
  ExpectResults(b);
}

// One device suffices for a mismatched argument: a stream of a context the
// tensors' device has besides its primary one. The call is refused, and the
// same tensors then run on device 0.
TEST_F(DeviceSelectionGpuTest, StreamOfAnotherContextIsRefusedThenDevice0Runs) {
  const TestDriverApi &api = TestDriverApi::Get();
  if (!api.HasContexts() || !api.HasStreams())
    GTEST_SKIP() << "the driver lacks cuCtxCreate_v2 or cuStreamCreate";
  Buffers b = On(0);
  CUcontext own = nullptr;
  ASSERT_EQ(api.ctx_create(&own, 0, 0), 0); // and makes it current
  CUstream foreign = nullptr;
  ASSERT_EQ(api.stream_create(&foreign, TestDriverApi::kStreamNonBlocking), 0);
  ASSERT_EQ(driver_->api().cuCtxSetCurrent(Primary(0)), 0);

  ExpectRefused(RunSoftmax(b, foreign),
                "argument 'stream' belongs to a context of device 0 other "
                "than its primary context");
  ExpectRefused(RunTopK(b, foreign), "argument 'stream' belongs to a context");
  EXPECT_EQ(Current(), Primary(0));
  EXPECT_EQ(api.stream_destroy(foreign), 0);
  EXPECT_EQ(api.ctx_destroy(own), 0);

  ASSERT_TRUE(RunSoftmax(b).ok());
  ASSERT_TRUE(RunTopK(b).ok());
  ExpectResults(b);
}

TEST_F(DeviceSelectionGpuTest, RunsOnDevice1WhileDevice0IsCurrent) {
  if (devices_ < 2)
    GTEST_SKIP() << "needs two CUDA devices; the driver reports " << devices_;
  Buffers b = On(1);
  ASSERT_EQ(Current(), Primary(0));
  absl::Status softmax = RunSoftmax(b);
  ASSERT_TRUE(softmax.ok()) << softmax;
  absl::Status topk = RunTopK(b);
  ASSERT_TRUE(topk.ok()) << topk;
  EXPECT_EQ(Current(), Primary(0)) << "the caller's context was not restored";
  ExpectResults(b);
}

TEST_F(DeviceSelectionGpuTest, TensorsOfTwoDevicesAreRefusedThenBothRun) {
  if (devices_ < 2)
    GTEST_SKIP() << "needs two CUDA devices; the driver reports " << devices_;
  Buffers b0 = On(0), b1 = On(1);
  ExpectRefused(Softmax(F(b1.x), MutableF(b0.y), kBatch, kN, SoftmaxType::kF32),
                "argument 'y' is memory of device 0, but argument 'x' is "
                "memory of device 1; all tensors of a call must be on one "
                "device");
  ExpectRefused(
      TopK(F(b0.x), kBatch, kN, kK, MutableF(b1.values), I64(b0.indices)),
      "argument 'values' is memory of device 1, but argument 'x' "
      "is memory of device 0");
  ExpectRefused(
      TopK(F(b1.x), kBatch, kN, kK, MutableF(b1.values), I64(b0.indices)),
      "argument 'indices' is memory of device 0");

  // A stream of device 0 for tensors of device 1.
  const TestDriverApi &api = TestDriverApi::Get();
  if (api.HasStreams()) {
    CUstream stream0 = nullptr;
    ASSERT_EQ(api.stream_create(&stream0, TestDriverApi::kStreamNonBlocking),
              0);
    ExpectRefused(RunSoftmax(b1, stream0),
                  "argument 'stream' is a stream of device 0 but the tensors "
                  "are on device 1");
    EXPECT_EQ(api.stream_destroy(stream0), 0);
  }

  // Device 0's tensors with device 1's context current, then device 1's.
  {
    ScopedContext on1(*driver_, Primary(1));
    ASSERT_TRUE(RunSoftmax(b0).ok());
    ASSERT_TRUE(RunTopK(b0).ok());
    EXPECT_EQ(Current(), Primary(1)) << "the caller's context was not restored";
  }
  ASSERT_TRUE(RunSoftmax(b1).ok());
  ASSERT_TRUE(RunTopK(b1).ok());
  ExpectResults(b0);
  ExpectResults(b1);
}

} // namespace
} // namespace tilec
