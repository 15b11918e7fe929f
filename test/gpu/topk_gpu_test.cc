// runtime/topk.h over kernels_dsl/topk.mlir, checked against a CPU
// reference: values must equal the reference top-k position by position
// (NaN matching NaN), indices must be unique, in range, and point at those
// values. GPU cases skip when no CUDA device is present; argument
// validation is tested in test/runtime/validate_test.cc and
// validation_gpu_test.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "runtime/context.h"
#include "runtime/topk.h"
#include "test/support/device_fixture.h"
#include "test/support/topk_order.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

bool SameValue(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

struct Case {
  const char *name;
  int batch, n, k;
  enum Kind { kRandn, kConstantSpikes, kFewValues, kSpecials, kAscending } kind;
  float scale;
};

std::vector<float> MakeInput(const Case &c) {
  std::mt19937 rng(1234 + c.n + c.k);
  std::normal_distribution<float> normal;
  std::vector<float> x(size_t(c.batch) * c.n);
  for (int r = 0; r < c.batch; ++r) {
    float *row = x.data() + size_t(r) * c.n;
    switch (c.kind) {
    case Case::kRandn:
      for (int i = 0; i < c.n; ++i)
        row[i] = normal(rng) * c.scale;
      break;
    case Case::kConstantSpikes: {
      // 65-96 distinct spikes above a constant row.
      std::fill(row, row + c.n, 1.0f);
      int spikes = 65 + r % 32;
      for (int s = 0; s < spikes; ++s)
        row[rng() % c.n] = 2.0f + 0.25f * s;
      break;
    }
    case Case::kFewValues:
      for (int i = 0; i < c.n; ++i)
        row[i] = float(rng() % 5) - 2.0f;
      break;
    case Case::kAscending:
      // The largest values all sit in the row's last columns.
      for (int i = 0; i < c.n; ++i)
        row[i] = float(i) * c.scale;
      break;
    case Case::kSpecials: {
      const float inf = std::numeric_limits<float>::infinity();
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (int i = 0; i < c.n; ++i)
        row[i] = normal(rng);
      const float specials[] = {nan, inf, -inf, -nan, -0.0f, 0.0f, inf, -inf};
      for (int s = 0; s < 8 && s < c.n; ++s)
        row[rng() % c.n] = specials[(s + r) % 8];
      break;
    }
    }
  }
  return x;
}

class TopKGpuTest : public DeviceFixture<::testing::TestWithParam<Case>> {};

TEST_P(TopKGpuTest, MatchesReference) {
  const Case &c = GetParam();
  std::vector<float> x = MakeInput(c);
  size_t outCount = size_t(c.batch) * c.k;
  CUdeviceptr dx = Alloc(x.size() * 4), dv = Alloc(outCount * 4),
              di = Alloc(outCount * 8);
  ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dx, x.data(), x.size() * 4), 0);
  // Twice: the split kernel must leave its tickets ready for the next call.
  for (int call = 0; call < 2; ++call) {
    // Poison the outputs so unwritten slots show.
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(dv, 0x7F7F7F7Fu, outCount), 0);
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(di, 0xFFFFFFFFu, outCount * 2), 0);
    absl::Status status =
        TopK(reinterpret_cast<const float *>(dx), c.batch, c.n, c.k,
             reinterpret_cast<float *>(dv), reinterpret_cast<int64_t *>(di));
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    std::vector<float> values(outCount);
    std::vector<int64_t> indices(outCount);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(values.data(), dv, outCount * 4),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(indices.data(), di, outCount * 8),
              0);

    int badRows = 0;
    for (int r = 0; r < c.batch && badRows < 3; ++r) {
      const float *row = x.data() + size_t(r) * c.n;
      std::vector<float> expected(row, row + c.n);
      std::partial_sort(expected.begin(), expected.begin() + c.k,
                        expected.end(), Before);
      std::set<int64_t> seen;
      bool ok = true;
      for (int j = 0; j < c.k && ok; ++j) {
        float v = values[size_t(r) * c.k + j];
        int64_t i = indices[size_t(r) * c.k + j];
        if (!SameValue(v, expected[j])) {
          ADD_FAILURE() << c.name << " row " << r << " slot " << j << ": value "
                        << v << ", expected " << expected[j];
          ok = false;
        } else if (i < 0 || i >= c.n || !seen.insert(i).second) {
          ADD_FAILURE() << c.name << " row " << r << " slot " << j << ": index "
                        << i << " out of range or repeated";
          ok = false;
        } else if (!SameValue(row[i], v)) {
          ADD_FAILURE() << c.name << " row " << r << " slot " << j << ": x["
                        << i << "] = " << row[i] << " but value is " << v;
          ok = false;
        }
      }
      badRows += !ok;
    }
    ASSERT_EQ(badRows, 0) << "call " << call;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TopKGpuTest,
    ::testing::Values(
        // The deck.
        Case{"deck_1x131072_k64", 1, 131072, 64, Case::kRandn, 1.0f},
        Case{"deck_64x8192_k8", 64, 8192, 8, Case::kRandn, 1.0f},
        Case{"deck_32x16384_k32", 32, 16384, 32, Case::kRandn, 1.0f},
        Case{"deck_16x12000_k16", 16, 12000, 16, Case::kRandn, 1.0f},
        Case{"deck_128x4096_k1", 128, 4096, 1, Case::kRandn, 1.0f},
        // Scales.
        Case{"small_scale", 16, 12000, 16, Case::kRandn, 1e-4f},
        Case{"large_scale", 16, 12000, 16, Case::kRandn, 1e3f},
        // Ties.
        Case{"spikes_k64", 32, 8192, 64, Case::kConstantSpikes, 1.0f},
        Case{"spikes_k100", 8, 8192, 100, Case::kConstantSpikes, 1.0f},
        Case{"few_values", 8, 5000, 50, Case::kFewValues, 1.0f},
        Case{"few_values_long", 2, 70000, 64, Case::kFewValues, 1.0f},
        // Odd extents and k at its limits.
        Case{"odd_n", 3, 4097, 33, Case::kRandn, 1.0f},
        Case{"k_equals_n", 4, 1000, 1000, Case::kRandn, 1.0f},
        Case{"k_equals_n_tiny", 5, 37, 37, Case::kSpecials, 1.0f},
        Case{"k1_odd", 7, 123, 1, Case::kRandn, 1.0f},
        Case{"n1", 3, 1, 1, Case::kRandn, 1.0f},
        // Rows split into parts (k <= 64): partial last part, k = 1 merge,
        // ties across parts, and parts * k above the split kernel's limit.
        Case{"split_tail", 3, 4096 * 5 + 17, 64, Case::kRandn, 1.0f},
        Case{"split_k1", 2, 50000, 1, Case::kRandn, 1.0f},
        Case{"split_spikes", 1, 131072, 64, Case::kConstantSpikes, 1.0f},
        Case{"split_few_values", 4, 30000, 8, Case::kFewValues, 1.0f},
        Case{"split_specials", 3, 9000, 16, Case::kSpecials, 1.0f},
        Case{"long_k64_unsplit", 1, 300000, 64, Case::kRandn, 1.0f},
        // Stage 1 over more than 64 parts, over 65-128 candidates, and
        // over up to 64 parts ranked by their 4th candidates.
        Case{"split_many_parts", 2, 300000, 4, Case::kRandn, 1.0f},
        Case{"split_129_candidates", 3, 4096 * 43, 3, Case::kRandn, 1.0f},
        Case{"split_k5_parts", 2, 4096 * 60 + 5, 5, Case::kRandn, 1.0f},
        Case{"split_ties_parts", 2, 4096 * 40, 7, Case::kFewValues, 1.0f},
        // Stage 1 merging 65-128 candidates in global lists of a multiple
        // of 32 (too many rows for clusters): ties, k = 64, specials.
        Case{"merge_ties", 40, 16384, 32, Case::kFewValues, 1.0f},
        Case{"merge_k64_spikes", 80, 8192, 64, Case::kConstantSpikes, 1.0f},
        Case{"merge_specials", 40, 16384, 32, Case::kSpecials, 1.0f},
        // Stage 1 over 16-32 parts first merges each part's first 8; it
        // falls back when one part holds more of the top k (ascending rows:
        // all of it in the last part), with ties, and with a short last
        // part.
        Case{"sample_fallback", 2, 131072, 64, Case::kAscending, 1.0f},
        Case{"sample_ties", 3, 4096 * 20, 16, Case::kFewValues, 1.0f},
        Case{"sample_tail", 2, 4096 * 31 + 9, 40, Case::kRandn, 1.0f},
        // Rows whose parts hand over inside a thread-block cluster (2, 3, 4
        // and 8 parts).
        Case{"cluster_k2_tail", 5, 4096 * 2 + 1, 2, Case::kRandn, 1.0f},
        Case{"cluster_k40", 3, 12000, 40, Case::kRandn, 1.0f},
        Case{"cluster_ties", 4, 9000, 33, Case::kFewValues, 1.0f},
        Case{"cluster_of_4", 3, 16384, 20, Case::kRandn, 1.0f},
        Case{"cluster_of_8", 2, 4096 * 7 + 100, 16, Case::kRandn, 1.0f},
        // NaN and infinities.
        Case{"specials", 6, 3000, 20, Case::kSpecials, 1.0f},
        Case{"specials_k1", 6, 3000, 1, Case::kSpecials, 1.0f}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

} // namespace
} // namespace tilec
