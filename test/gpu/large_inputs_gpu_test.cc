// Softmax and top-k on inputs of just over 2^31 elements, through the
// runtime's pointer entry points: rows on both sides of element 2^31, the
// first and the last rows, and random ones are checked against CPU
// references computed from the input as it lies on the device.
//
// These tests fail without 64-bit row addressing, in two ways: the runtime
// rejected every tensor of 2^31 elements or more ("the kernel addresses at
// most 2^31 - 1"), and the top-k kernels computed `row * n` and
// `batch * n` in i32, so the rows past element 2^31 started at a negative
// (wrapped) offset and read memory before the input, or, for the output
// views, never stored. Softmax's kernels already used 2-D views with
// 64-bit addresses; its case guards the whole path.
//
// The inputs take 9-17 GB of device memory; a device with less free memory
// skips. Excluded from the compute-sanitizer runs (too slow at this size).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/softmax.h"
#include "runtime/topk.h"
#include "test/support/device_fixture.h"
#include "test/support/bf16.h"
#include "test/support/topk_order.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

constexpr int64_t kTwo31 = int64_t{1} << 31;

double ToDouble(float v) { return v; }
double ToDouble(uint16_t v) { return FromBf16(v); }

class LargeInputGpuTest : public DeviceFixture<::testing::Test> {
protected:
  // A device buffer of `bytes`, or 0 when the device cannot hold it.
  CUdeviceptr TryAlloc(size_t bytes) {
    CUdeviceptr p = 0;
    if (driver_->api().cuMemAlloc_v2(&p, bytes) != 0)
      return 0;
    buffers_.push_back(p);
    return p;
  }

  // Fills `count` elements at `dst` with fresh normal values (times
  // `scale`): a host block of a length coprime to every row width used
  // here, copied over and over (generating 2^31 values on the host would
  // dominate the test).
  template <typename T>
  void Fill(CUdeviceptr dst, int64_t count, float scale, std::mt19937 &rng) {
    std::normal_distribution<float> normal(0.f, scale);
    std::vector<T> block((int64_t{1} << 24) + 7);
    for (T &v : block) {
      if constexpr (sizeof(T) == 2)
        v = ToBf16(normal(rng));
      else
        v = normal(rng);
    }
    for (int64_t at = 0; at < count; at += int64_t(block.size())) {
      int64_t n = std::min<int64_t>(int64_t(block.size()), count - at);
      ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dst + at * sizeof(T),
                                               block.data(), n * sizeof(T)),
                0);
    }
  }

  template <typename T>
  std::vector<T> Read(CUdeviceptr src, int64_t first, int64_t count) {
    std::vector<T> out(count);
    EXPECT_EQ(driver_->api().cuMemcpyDtoH_v2(
                  out.data(), src + first * sizeof(T), count * sizeof(T)),
              0);
    return out;
  }

  // Rows to check: the first, those around the one holding element 2^31,
  // the last two, and a few random ones.
  static std::vector<int64_t> SampleRows(int64_t rows, int64_t cols,
                                         std::mt19937 &rng) {
    const int64_t across = kTwo31 / cols;
    std::set<int64_t> picked = {0,          across - 1, across,
                                across + 1, rows - 2,   rows - 1};
    std::uniform_int_distribution<int64_t> any(0, rows - 1);
    for (int i = 0; i < 4; ++i)
      picked.insert(any(rng));
    std::vector<int64_t> out;
    for (int64_t r : picked)
      if (r >= 0 && r < rows)
        out.push_back(r);
    return out;
  }

  // Softmax of (rows, cols) elements of T; sampled rows against a float64
  // reference with the tolerance of softmax_gpu_test.cc.
  template <typename T>
  void CheckSoftmax(SoftmaxType type, int64_t rows, int64_t cols, double rel) {
    ASSERT_GT(rows * cols, kTwo31);
    const size_t bytes = size_t(rows * cols) * sizeof(T);
    const size_t words = (bytes + 3) / 4;
    CUdeviceptr x = TryAlloc(bytes), y = TryAlloc(words * 4);
    if (x == 0 || y == 0)
      GTEST_SKIP() << "the device cannot hold two " << bytes << "-byte buffers";
    std::mt19937 rng(std::random_device{}());
    Fill<T>(x, rows * cols, 3.f, rng);
    // Poison: all bits set, NaN in both types.
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(y, 0xFFFFFFFFu, words), 0);
    absl::Status status =
        Softmax(reinterpret_cast<const void *>(x), reinterpret_cast<void *>(y),
                rows, cols, type);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    for (int64_t r : SampleRows(rows, cols, rng)) {
      std::vector<T> in = Read<T>(x, r * cols, cols);
      std::vector<T> out = Read<T>(y, r * cols, cols);
      double m = -INFINITY, s = 0;
      for (T v : in)
        m = std::max(m, ToDouble(v));
      for (T v : in)
        s += std::exp(ToDouble(v) - m);
      int bad = 0;
      for (int64_t c = 0; c < cols; ++c) {
        double ref = std::exp(ToDouble(in[c]) - m) / s;
        double got = ToDouble(out[c]);
        if (!(std::fabs(got - ref) <= 1e-6 + rel * ref) && bad++ < 3)
          ADD_FAILURE() << "row " << r << " (elements from " << r * cols
                        << ") column " << c << ": got " << got << ", want "
                        << ref;
      }
      EXPECT_EQ(bad, 0) << "row " << r;
    }
  }
};

// 2^31 / 4096 + 1 rows of 4096: two rows per program; the last row starts
// at element 2^31.
TEST_F(LargeInputGpuTest, SoftmaxF32PastTwo31Elements) {
  CheckSoftmax<float>(SoftmaxType::kF32, kTwo31 / 4096 + 1, 4096, 1e-4);
}

// Rows of 50257 (a vocabulary): the chunked path, one row straddling 2^31.
TEST_F(LargeInputGpuTest, SoftmaxBf16PastTwo31Elements) {
  CheckSoftmax<uint16_t>(SoftmaxType::kBF16, kTwo31 / 50257 + 2, 50257, 8e-3);
}

// One input of just over 2^31 floats, read as (batch, n) for each kernel:
// the split kernel (k <= 64, several parts and one part), the one-program
// kernel (k > 64) and the k = 1 kernel (rows of at most 4096).
TEST_F(LargeInputGpuTest, TopKPastTwo31Elements) {
  struct Case {
    int64_t n, k;
  };
  const Case cases[] = {{50257, 50}, {50257, 100}, {4095, 1}, {4095, 16}};
  int64_t elements = 0, outputs = 0;
  for (const Case &c : cases) {
    int64_t batch = kTwo31 / c.n + 2;
    elements = std::max(elements, batch * c.n);
    outputs = std::max(outputs, batch * c.k);
  }
  CUdeviceptr x = TryAlloc(size_t(elements) * 4);
  CUdeviceptr values = TryAlloc(size_t(outputs) * 4);
  CUdeviceptr indices = TryAlloc(size_t(outputs) * 8);
  if (x == 0 || values == 0 || indices == 0)
    GTEST_SKIP() << "the device cannot hold " << elements * 4
                 << " bytes of input";
  std::mt19937 rng(std::random_device{}());
  Fill<float>(x, elements, 1.f, rng);

  for (const Case &c : cases) {
    const int64_t batch = kTwo31 / c.n + 2, n = c.n, k = c.k;
    SCOPED_TRACE(std::to_string(batch) + " x " + std::to_string(n) +
                 ", k = " + std::to_string(k));
    ASSERT_GT(batch * n, kTwo31);
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(values, 0x7F7F7F7Fu, batch * k), 0);
    ASSERT_EQ(
        driver_->api().cuMemsetD32_v2(indices, 0xFFFFFFFFu, batch * k * 2), 0);
    absl::Status status = TopK(reinterpret_cast<const float *>(x), batch, n, k,
                               reinterpret_cast<float *>(values),
                               reinterpret_cast<int64_t *>(indices));
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    for (int64_t r : SampleRows(batch, n, rng)) {
      std::vector<float> row = Read<float>(x, r * n, n);
      std::vector<float> got = Read<float>(values, r * k, k);
      std::vector<int64_t> at = Read<int64_t>(indices, r * k, k);
      std::vector<float> expected = row;
      std::partial_sort(expected.begin(), expected.begin() + k, expected.end(),
                        Before);
      std::set<int64_t> seen;
      for (int64_t j = 0; j < k; ++j) {
        ASSERT_EQ(got[j], expected[j]) << "row " << r << " slot " << j;
        ASSERT_TRUE(at[j] >= 0 && at[j] < n && seen.insert(at[j]).second)
            << "row " << r << " slot " << j << ": index " << at[j]
            << " out of range or repeated";
        ASSERT_EQ(row[at[j]], got[j]) << "row " << r << " slot " << j;
      }
    }
  }
}

} // namespace
} // namespace tilec
