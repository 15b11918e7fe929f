// tile.sort on the GPU: the kernels of kernels/sort_networks.mlir (the
// exchange network with one, two or eight elements per thread and over
// rows, keys alone, a merge of sorted runs, and the scratch network for a
// replicated and for a large tile) sort random keys with many duplicates;
// keys must come out ordered and every (key, payload) pair must survive. Skips
// when no CUDA device is present.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "runtime/module.h"
#include "test/support/device_fixture.h"
#include "test/support/test_kernels.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

class SortGpuTest : public TestKernelsFixture<::testing::Test> {
protected:
  SortGpuTest() : TestKernelsFixture("sort_networks") {}

  // Sorts `rows` rows of keys (with payload 0..n-1 per element) with
  // kernel `name` and checks each row's order under `before`.
  // `runs` > 1: each run of that many keys is first sorted by `before`.
  // `keysOnly`: the kernel sorts the keys alone and leaves the payload.
  template <typename Key, typename Payload>
  void Check(const char *name, int rows, int n,
             std::function<Key(std::mt19937 &)> draw,
             std::function<bool(Key, Key)> before, int runs = 1,
             bool keysOnly = false) {
    absl::StatusOr<const Kernel *> kernel = module_->GetKernel(name);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    std::mt19937 rng(7 + n);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<Key> keys(size_t(rows) * n);
      std::vector<Payload> payload(keys.size());
      for (size_t i = 0; i < keys.size(); ++i) {
        keys[i] = draw(rng);
        payload[i] = Payload(i % n);
      }
      for (size_t at = 0; runs > 1 && at < keys.size(); at += runs)
        std::sort(keys.begin() + at, keys.begin() + at + runs, before);
      CUdeviceptr dk = Alloc(keys.size() * sizeof(Key)),
                  dp = Alloc(payload.size() * sizeof(Payload));
      const auto &api = driver_->api();
      ASSERT_EQ(api.cuMemcpyHtoD_v2(dk, keys.data(), keys.size() * sizeof(Key)),
                0);
      ASSERT_EQ(api.cuMemcpyHtoD_v2(dp, payload.data(),
                                    payload.size() * sizeof(Payload)),
                0);
      const KernelArg args[] = {KernelArg::DevicePtr(dk),
                                KernelArg::DevicePtr(dp)};
      absl::Status status = (*kernel)->Launch({1, 1, 1}, args);
      ASSERT_TRUE(status.ok()) << status;
      ASSERT_EQ(api.cuCtxSynchronize(), 0);
      std::vector<Key> gotKeys(keys.size());
      std::vector<Payload> gotPayload(payload.size());
      ASSERT_EQ(
          api.cuMemcpyDtoH_v2(gotKeys.data(), dk, keys.size() * sizeof(Key)),
          0);
      ASSERT_EQ(api.cuMemcpyDtoH_v2(gotPayload.data(), dp,
                                    payload.size() * sizeof(Payload)),
                0);
      for (int r = 0; r < rows; ++r) {
        size_t at = size_t(r) * n;
        for (int i = 1; i < n; ++i)
          ASSERT_FALSE(before(gotKeys[at + i], gotKeys[at + i - 1]))
              << name << " row " << r << ": position " << i << " out of order";
        std::vector<std::pair<Key, Payload>> want, got;
        for (int i = 0; i < n; ++i) {
          want.push_back({keys[at + i], keysOnly ? 0 : payload[at + i]});
          got.push_back({gotKeys[at + i], keysOnly ? 0 : gotPayload[at + i]});
        }
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        ASSERT_EQ(got, want)
            << name << " row " << r << ": (key, payload) pairs differ";
      }
    }
  }
};

TEST_F(SortGpuTest, Flat256Descending) {
  Check<int64_t, int32_t>(
      "sort_flat256", 1, 256,
      [](std::mt19937 &rng) {
        // Few distinct high words: ties broken by the low word.
        return (int64_t(int32_t(rng() % 7) - 3) << 32) | (rng() % 64);
      },
      [](int64_t a, int64_t b) { return a > b; });
}

// Keys alone take one comparison per lane step: every key must survive,
// with many equal ones.
TEST_F(SortGpuTest, KeysOnly2048Descending) {
  Check<int64_t, int32_t>(
      "sort_keys_2048", 1, 2048,
      [](std::mt19937 &rng) {
        return (int64_t(int32_t(rng() % 5) - 2) << 32) | (rng() % 3);
      },
      [](int64_t a, int64_t b) { return a > b; }, /*runs=*/1,
      /*keysOnly=*/true);
}

TEST_F(SortGpuTest, Repeats512Descending) {
  Check<int32_t, int32_t>(
      "sort_512", 1, 512,
      [](std::mt19937 &rng) { return int32_t(rng() % 101) - 50; },
      [](int32_t a, int32_t b) { return a > b; });
}

TEST_F(SortGpuTest, MergeSortedRuns) {
  Check<int64_t, int32_t>(
      "merge_runs", 2, 128,
      [](std::mt19937 &rng) {
        return (int64_t(int32_t(rng() % 11) - 5) << 32) | (rng() % 4);
      },
      [](int64_t a, int64_t b) { return a > b; }, /*runs=*/32);
}

TEST_F(SortGpuTest, Exchange2048Ascending) {
  Check<int32_t, float>(
      "sort_2048", 1, 2048,
      [](std::mt19937 &rng) { return int32_t(rng() % 301) - 150; },
      [](int32_t a, int32_t b) { return a < b; });
}

TEST_F(SortGpuTest, Scratch2048Descending) {
  Check<int32_t, int32_t>(
      "sort_2048_scratch", 1, 2048,
      [](std::mt19937 &rng) { return int32_t(rng() % 301) - 150; },
      [](int32_t a, int32_t b) { return a > b; });
}

TEST_F(SortGpuTest, RowsDescending) {
  Check<float, int32_t>(
      "sort_rows", 4, 256,
      [](std::mt19937 &rng) { return float(int(rng() % 41) - 20) * 0.5f; },
      [](float a, float b) { return a > b; });
}

TEST_F(SortGpuTest, ScratchNetworkDescending) {
  Check<int32_t, int32_t>(
      "sort_small", 1, 16, [](std::mt19937 &rng) { return int32_t(rng() % 9); },
      [](int32_t a, int32_t b) { return a > b; });
}

} // namespace
} // namespace tilec
