// runtime/topk.h over kernels_dsl/topk.mlir, checked against a CPU
// reference: values must equal the reference top-k position by position
// (NaN matching NaN), indices must be unique, in range, and point at those
// values. GPU cases skip when no CUDA device is present; argument
// validation is tested in test/runtime/validate_test.cc and
// validation_gpu_test.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/context.h"
#include "runtime/embedded.h"
#include "runtime/kernel.h"
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
  enum Kind {
    kRandn,
    kConstantSpikes,
    kFewValues,
    kSpecials,
    kAscending,
    kConstant,
    kSignedZeros,
    kDenormals,
    kRandInt,
    kNegInf,
    kUlps,
    kBucket,
    kSampledHigh,
    kSampledLow,
    kSampledMixed
  } kind;
  float scale;
  // Rows checked against the reference: all when false; else the first
  // and last three rows and those around row 65535 (the large-k path
  // launches at most 65535 rows at a time).
  bool sampleRows = false;
};

bool RowChecked(const Case &c, int r) {
  if (!c.sampleRows)
    return true;
  return r < 3 || r >= c.batch - 3 || (r >= 65533 && r <= 65537);
}

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
    case Case::kConstant:
      std::fill(row, row + c.n, c.scale);
      break;
    case Case::kSignedZeros:
      // +0.0 and -0.0 (equal, with different bits) among a few negatives.
      for (int i = 0; i < c.n; ++i) {
        unsigned pick = rng() % 8;
        row[i] = pick < 3 ? 0.0f : pick < 6 ? -0.0f : -1.0f - float(pick);
      }
      break;
    case Case::kDenormals:
      // Subnormal magnitudes (below 2^-126) of both signs, and zeros.
      for (int i = 0; i < c.n; ++i)
        row[i] = normal(rng) * 1e-39f;
      break;
    case Case::kRandInt:
      // Cheap to generate for very large inputs; many ties.
      for (int i = 0; i < c.n; ++i)
        row[i] = float(int(rng() % 100000) - 50000);
      break;
    case Case::kNegInf: {
      // About half the row -inf, which ties with the -inf padding of short
      // rows (every fourth row all -inf), one NaN, the rest normal.
      const float inf = std::numeric_limits<float>::infinity();
      for (int i = 0; i < c.n; ++i)
        row[i] = r % 4 == 3 || rng() % 2 ? -inf : normal(rng);
      if (r % 4 != 3)
        row[rng() % c.n] = std::numeric_limits<float>::quiet_NaN();
      break;
    }
    case Case::kBucket: {
      // int(scale) keys in [1, 1.0625), one top radix digit, spread over
      // the row; the rest below -1. With k below that count, the long-rows
      // path's candidates are exactly those keys.
      const int hi = int(c.scale);
      for (int i = 0; i < c.n; ++i)
        row[i] = -1.0f - float(rng() % 4096) / 4096.0f;
      for (int i = 0; i < hi && i < c.n; ++i)
        row[int64_t(i) * c.n / hi] = 1.0f + float(rng() % 4096) / 65536.0f;
      break;
    }
    case Case::kSampledHigh:
    case Case::kSampledLow:
    case Case::kSampledMixed: {
      // Normal values, but the columns the long-rows path samples for its
      // guessed threshold (LongRowsGuess) are 100 above or below all the
      // others: the guess then lets too few or too many candidates through
      // and the row must take the unguessed passes. Mixed: a third of the
      // rows each way, a third unshifted (their guess holds).
      const LongRowsGuessPlan plan = LongRowsGuess(c.batch, c.n, c.k);
      if (plan.blocks == 0)
        ADD_FAILURE() << c.name << " does not take the guessed path";
      for (int i = 0; i < c.n; ++i)
        row[i] = normal(rng);
      const float shift = c.kind == Case::kSampledHigh  ? 100.0f
                          : c.kind == Case::kSampledLow ? -100.0f
                          : r % 3 == 0                  ? 0.0f
                          : r % 3 == 1                  ? 100.0f
                                                        : -100.0f;
      for (int b = 0; b < plan.blocks; ++b)
        for (int i = 0; i < 256; ++i)
          row[int64_t(b) * plan.step + i] += shift;
      break;
    }
    case Case::kUlps: {
      // Values a few thousand ulps above `scale`: keys that share their
      // top 20 bits and differ in the two lower radix digits, with ties.
      uint32_t base;
      std::memcpy(&base, &c.scale, sizeof(base));
      for (int i = 0; i < c.n; ++i) {
        uint32_t bits = base + rng() % 3000;
        std::memcpy(&row[i], &bits, sizeof(bits));
      }
      break;
    }
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
      if (!RowChecked(c, r))
        continue;
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
        // The split kernel's two register budgets: 132 programs (168
        // registers on the H200's 132 SMs), 134 and 1200 (128 registers),
        // the last through the radix fallback on ties.
        Case{"split_grid_132", 66, 8192, 8, Case::kRandn, 1.0f},
        Case{"split_grid_134", 67, 8192, 8, Case::kSpecials, 1.0f},
        Case{"split_wide_ties", 300, 4096 * 3 + 5, 64, Case::kFewValues, 1.0f},
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
        Case{"specials_k1", 6, 3000, 1, Case::kSpecials, 1.0f},
        // The strategy crossovers of ChooseTopKStrategy, just below and
        // above each threshold. Whole short rows, by instance width (64,
        // 256, 1024) and above it (n = 1025: top1, split and row).
        Case{"rows_w64_n64", 300, 64, 64, Case::kRandn, 1.0f},
        Case{"rows_w64_k1", 100, 64, 1, Case::kSpecials, 1.0f},
        Case{"rows_w256_n65", 70, 65, 8, Case::kRandn, 1.0f},
        Case{"rows_w256_n256", 33, 256, 100, Case::kFewValues, 1.0f},
        Case{"rows_w1024_n257", 9, 257, 256, Case::kRandn, 1.0f},
        Case{"rows_w1024_n1024", 7, 1024, 1000, Case::kSpecials, 1.0f},
        Case{"rows_many", 16384, 100, 8, Case::kRandn, 1.0f},
        // Short rows, k = 1: topk_rows_max per width (n 64 / 65, 256 /
        // 257, 1024), then top1_f32 from n = 1025; -inf ties with the
        // padding.
        Case{"rows_max_w64_n64", 1000, 64, 1, Case::kSpecials, 1.0f},
        Case{"rows_max_w256_n65", 33, 65, 1, Case::kNegInf, 1.0f},
        Case{"rows_max_w256_n256", 17, 256, 1, Case::kFewValues, 1.0f},
        Case{"rows_max_w1024_n257", 5, 257, 1, Case::kNegInf, 1.0f},
        Case{"rows_max_w1024_n1024", 4099, 1024, 1, Case::kSpecials, 1.0f},
        Case{"rows_max_one_row", 1, 1000, 1, Case::kRandn, 1.0f},
        Case{"rows_max_constant", 9, 300, 1, Case::kConstant, -2.0f},
        // Short rows, 2 <= k <= 8: k rounds of a row maximum
        // (topk_rows_select_*, few-rows instances below the wide ones'
        // batch, wide ones from it), k = n with -inf among the padding.
        Case{"rows_select_n2", 9, 2, 2, Case::kSpecials, 1.0f},
        Case{"rows_select_k2", 3, 64, 2, Case::kSpecials, 1.0f},
        Case{"rows_select_k_equals_n", 7, 8, 8, Case::kNegInf, 1.0f},
        Case{"rows_select_ties", 5, 100, 8, Case::kFewValues, 1.0f},
        Case{"rows_select_constant", 3, 77, 6, Case::kConstant, 1.5f},
        Case{"rows_select_w256_r1", 2, 200, 7, Case::kNegInf, 1.0f},
        Case{"rows_select_w1024_r1", 4, 1000, 8, Case::kRandn, 1.0f},
        Case{"rows_select_neg_inf", 6, 300, 8, Case::kNegInf, 1.0f},
        Case{"rows_select_w64_b16383", 16383, 64, 3, Case::kSpecials, 1.0f},
        Case{"rows_select_w64_b16384", 16384, 64, 8, Case::kRandn, 1.0f},
        Case{"rows_select_w256_b4096", 4096, 200, 5, Case::kNegInf, 1.0f},
        Case{"rows_select_w1024_b2047", 2047, 1000, 8, Case::kNegInf, 1.0f},
        Case{"rows_select_w1024_b2048", 2048, 1024, 8, Case::kSpecials, 1.0f},
        // Short rows, k > 8, few rows: topk_rows_w64_r8 (n <= 64) and one
        // row per program (topk_rows_w256_r1, topk_rows_w1024_r1); k = 9
        // beside k = 8, k = n with -inf among the padding.
        Case{"rows_few_k9", 3, 100, 9, Case::kSpecials, 1.0f},
        Case{"rows_few_w64_tail", 13, 63, 63, Case::kNegInf, 1.0f},
        Case{"rows_few_w64_one_row", 1, 64, 9, Case::kRandn, 1.0f},
        Case{"rows_few_w256_n65", 2, 65, 65, Case::kNegInf, 1.0f},
        Case{"rows_few_w256_k64", 1, 200, 64, Case::kFewValues, 1.0f},
        Case{"rows_few_w1024_n257", 1, 257, 257, Case::kNegInf, 1.0f},
        Case{"rows_few_w1024_k64", 4, 1000, 64, Case::kRandn, 1.0f},
        Case{"rows_few_w1024_k1000", 1, 1000, 1000, Case::kSpecials, 1.0f},
        Case{"rows_few_w1024_zeros", 3, 1024, 700, Case::kSignedZeros, 1.0f},
        // The batch where the wide instances take over (256 of their
        // programs: 16384, 4096 and 2048 rows), just below and at it.
        Case{"rows_few_w64_b16383", 16383, 64, 9, Case::kRandn, 1.0f},
        Case{"rows_w64_b16384", 16384, 64, 64, Case::kNegInf, 1.0f},
        Case{"rows_few_w256_b4095", 4095, 256, 256, Case::kSpecials, 1.0f},
        Case{"rows_w256_b4096", 4096, 256, 100, Case::kNegInf, 1.0f},
        Case{"rows_few_w1024_b2047", 2047, 1024, 64, Case::kRandn, 1.0f},
        Case{"rows_w1024_b2048", 2048, 1000, 1000, Case::kNegInf, 1.0f},
        Case{"rows_w1024_tail", 2053, 700, 300, Case::kFewValues, 1.0f},
        Case{"rows_w1024_n257_b2050", 2050, 257, 9, Case::kSpecials, 1.0f},
        Case{"split_k2_n1025", 3, 1025, 2, Case::kNegInf, 1.0f},
        // The one-program-per-row kernel (topk_f32) maps values back from
        // the keys: NaN, +-inf, -0 and -inf rows through its 2048 slots.
        Case{"row_specials", 4, 5000, 300, Case::kSpecials, 1.0f},
        // Its 256 slots (65 <= k <= 256), at both ends and beyond.
        Case{"row_k256_specials", 4, 5000, 256, Case::kSpecials, 1.0f},
        Case{"row_k200_neg_inf", 3, 5000, 200, Case::kNegInf, 1.0f},
        Case{"row_k256_ties", 3, 9000, 256, Case::kFewValues, 1.0f},
        Case{"row_k257", 3, 9000, 257, Case::kRandn, 1.0f},
        Case{"row_neg_inf_k2048", 3, 5000, 2048, Case::kNegInf, 1.0f},
        Case{"top1_n1025", 7, 1025, 1, Case::kRandn, 1.0f},
        Case{"split_n1025", 7, 1025, 64, Case::kRandn, 1.0f},
        Case{"row_n1025", 7, 1025, 1025, Case::kRandn, 1.0f},
        // top1 | split: n = 4096 | 4097 at k = 1.
        Case{"top1_n4096", 9, 4096, 1, Case::kRandn, 1.0f},
        Case{"split_k1_n4097", 9, 4097, 1, Case::kRandn, 1.0f},
        // split | row: k = 64 | 65, and ceil(n / 4096) * k = 4096 | 4160.
        Case{"split_k64", 5, 9000, 64, Case::kRandn, 1.0f},
        Case{"row_k65", 5, 9000, 65, Case::kRandn, 1.0f},
        Case{"split_candidates_4096", 1, 4096 * 64, 64, Case::kRandn, 1.0f},
        Case{"long_candidates_4160", 1, 4096 * 64 + 1, 64, Case::kRandn, 1.0f},
        // row | long rows: n = 31999 | 32000, batch = 256 | 257; k above
        // 2048 (large_k below n = 32000); n = 65535 | 65536 (the earlier
        // threshold).
        Case{"row_n31999", 2, 31999, 100, Case::kRandn, 1.0f},
        Case{"long_n32000", 2, 32000, 100, Case::kSpecials, 1.0f},
        Case{"long_n32000_k2048", 3, 32000, 2048, Case::kNegInf, 1.0f},
        Case{"long_batch256_n32000", 256, 32000, 256, Case::kFewValues, 1.0f},
        Case{"row_batch257_n32000", 257, 32000, 256, Case::kRandn, 1.0f},
        Case{"large_k3000_n31999", 2, 31999, 3000, Case::kRandn, 1.0f},
        Case{"long_k3000_n32000", 2, 32000, 3000, Case::kSpecials, 1.0f},
        // The sort's crossovers: the 1024-slot sort | the 2048-slot one,
        // one chunk written by the sort | two chunks and a merge.
        Case{"long_k1024", 2, 40000, 1024, Case::kRandn, 1.0f},
        Case{"long_k1025", 2, 40000, 1025, Case::kRandn, 1.0f},
        Case{"long_k2049", 2, 40000, 2049, Case::kSpecials, 1.0f},
        Case{"long_n65535", 2, 65535, 100, Case::kRandn, 1.0f},
        Case{"long_n65536", 2, 65536, 100, Case::kRandn, 1.0f},
        Case{"long_batch256", 256, 65536, 300, Case::kRandn, 1.0f},
        // 257 rows where the guessed long-rows start applies, and 300; at
        // 300 rows the passes behind a missed guess take one program per
        // row (LongRowsGuessedPartLen).
        Case{"guess_batch257", 257, 65536, 300, Case::kRandn, 1.0f},
        Case{"guess_batch300", 300, 40000, 100, Case::kSpecials, 1.0f},
        Case{"guess_batch300_missed", 300, 40000, 100, Case::kSampledLow, 1.0f},
        // The passes behind a guess keep their parts below 128 rows
        // (kGuessedPassMinBatch) and take fewer from 128 up.
        Case{"guess_batch127_missed", 127, 40000, 100, Case::kSampledLow, 1.0f},
        Case{"guess_batch128_missed", 128, 40000, 100, Case::kSampledLow, 1.0f},
        // The sample counted a tile of 16 runs at a time (48 and 80 runs) |
        // from one 64-run tile in registers (64 runs).
        Case{"guess_blocks48", 48, 95000, 64, Case::kSpecials, 1.0f},
        Case{"guess_blocks64", 33, 131072, 64, Case::kSampledMixed, 1.0f},
        Case{"guess_blocks80", 32, 140000, 64, Case::kRandn, 1.0f},
        // From 128 rows with k <= 2048 the guessed start is direct: the
        // select writes the rows whose guess held, sorting at most 2048
        // candidates as they are (k <= 1365 aims there) or selecting and
        // collecting more (k = 2000, 2048; ascending rows, whose sampled
        // runs hold no column of the top k), and topk_f32_unguessed
        // computes the rest (sampled runs shifted, many ties).
        Case{"direct_k1024", 128, 65536, 1024, Case::kRandn, 1.0f},
        Case{"direct_k1025", 128, 65536, 1025, Case::kSpecials, 1.0f},
        Case{"direct_k2048", 130, 65536, 2048, Case::kRandn, 1.0f},
        Case{"direct_mixed", 129, 40000, 700, Case::kSampledMixed, 1.0f},
        Case{"direct_mixed_k2000", 128, 40000, 2000, Case::kSampledMixed, 1.0f},
        Case{"direct_few_values", 128, 65536, 1000, Case::kFewValues, 1.0f},
        Case{"direct_ascending", 128, 65536, 100, Case::kAscending, 1.0f},
        // Missed rows through topk_f32_unguessed's 64 slots.
        Case{"direct_k64_missed", 128, 270000, 64, Case::kSampledLow, 1.0f},
        // k = 2049 at 128 rows: guessed, not direct (the passes behind
        // the select, as below 128 rows).
        Case{"guess_batch128_k2049", 128, 65536, 2049, Case::kRandn, 1.0f},
        Case{"guess_batch128_k2049_missed", 128, 65536, 2049,
             Case::kSampledMixed, 1.0f},
        Case{"large_batch257", 257, 65536, 2100, Case::kRandn, 1.0f},
        // The long-rows path: a million columns, k = n, ties, specials,
        // constant rows, signed zeros, subnormals.
        Case{"long_1e6_k64", 1, 1000000, 64, Case::kRandn, 1.0f},
        Case{"long_k_equals_n", 1, 65536, 65536, Case::kSpecials, 1.0f},
        Case{"long_few_values", 3, 200000, 5000, Case::kFewValues, 1.0f},
        Case{"long_specials", 2, 100000, 700, Case::kSpecials, 1.0f},
        Case{"long_constant", 2, 100000, 70000, Case::kConstant, -1.5f},
        Case{"long_zeros", 2, 100000, 3000, Case::kSignedZeros, 1.0f},
        Case{"long_denormals", 2, 100000, 100, Case::kDenormals, 1.0f},
        Case{"long_spikes", 4, 131072, 80, Case::kConstantSpikes, 1.0f},
        // The candidates gathered by the second pass: exactly its 32768
        // slots, and one more (the row is read again instead); 2k slots.
        Case{"long_candidates_fit", 3, 100000, 300, Case::kBucket, 32768.0f},
        Case{"long_candidates_over", 3, 100000, 300, Case::kBucket, 32769.0f},
        Case{"long_candidates_k17000", 2, 100000, 17000, Case::kBucket,
             34000.0f},
        // The guessed long-rows path (inputs of at least 2^22 elements, k
        // at most a quarter of the slots): normal values, specials, ties,
        // sorted rows; a sample that lets too few or too many candidates
        // through (the unguessed passes take over); k = 8192 | 8193 (a
        // quarter of the 32768 slots); 2^22 - 65536 elements (unguessed).
        Case{"guess_randn", 64, 65536, 1000, Case::kRandn, 1.0f},
        Case{"guess_specials", 64, 65536, 1000, Case::kSpecials, 1.0f},
        Case{"guess_few_values", 64, 65536, 3000, Case::kFewValues, 1.0f},
        Case{"guess_ascending", 64, 65536, 700, Case::kAscending, 1.0f},
        Case{"guess_sampled_high", 64, 65536, 1000, Case::kSampledHigh, 1.0f},
        Case{"guess_sampled_low", 64, 65536, 1000, Case::kSampledLow, 1.0f},
        Case{"guess_k8192", 64, 65536, 8192, Case::kRandn, 1.0f},
        Case{"long_k8193_unguessed", 64, 65536, 8193, Case::kRandn, 1.0f},
        Case{"long_below_guess", 63, 65536, 1000, Case::kRandn, 1.0f},
        // row | large k: k = 2048 | 2049.
        Case{"row_k2048", 3, 5000, 2048, Case::kRandn, 1.0f},
        Case{"large_k2049", 3, 5000, 2049, Case::kRandn, 1.0f},
        // The large-k path: runs of 2048 merged while 2 * run < k; exactly
        // two runs, a partial second, a third run with no partner, many
        // merges, k = n, a long row, and ties and specials.
        Case{"large_k4096", 2, 10000, 4096, Case::kRandn, 1.0f},
        Case{"large_k4097", 2, 10000, 4097, Case::kRandn, 1.0f},
        Case{"large_k6000", 2, 10000, 6000, Case::kRandn, 1.0f},
        Case{"large_k_equals_n", 2, 70001, 70001, Case::kRandn, 1.0f},
        Case{"large_few_values", 3, 20000, 9000, Case::kFewValues, 1.0f},
        Case{"large_specials", 3, 9000, 5000, Case::kSpecials, 1.0f},
        Case{"large_spikes", 2, 30000, 3000, Case::kConstantSpikes, 1.0f},
        // Stress: all-equal rows, +0.0 / -0.0, subnormals, on each path.
        Case{"constant_split", 4, 10000, 16, Case::kConstant, 3.5f},
        Case{"constant_row", 4, 10000, 300, Case::kConstant, -2.0f},
        Case{"constant_large", 2, 10000, 5000, Case::kConstant, 0.0f},
        Case{"constant_top1", 4, 100, 1, Case::kConstant, 1.0f},
        Case{"zeros_split", 4, 10000, 40, Case::kSignedZeros, 1.0f},
        Case{"zeros_row", 4, 10000, 1000, Case::kSignedZeros, 1.0f},
        Case{"zeros_large", 2, 10000, 4000, Case::kSignedZeros, 1.0f},
        Case{"denormals_split", 4, 10000, 32, Case::kDenormals, 1.0f},
        Case{"denormals_row", 4, 10000, 500, Case::kDenormals, 1.0f},
        Case{"denormals_large", 2, 10000, 3000, Case::kDenormals, 1.0f},
        // Keys equal in their top digit and in most of the second: the
        // radix select decides in the last two digits.
        Case{"ulps_split", 4, 10000, 16, Case::kUlps, 1.0f},
        Case{"ulps_row", 4, 10000, 300, Case::kUlps, 1.0f},
        Case{"ulps_row_k2048", 3, 40000, 2048, Case::kUlps, -3.0f},
        Case{"ulps_large", 2, 10000, 5000, Case::kUlps, 1.0f},
        Case{"ulps_long_rows", 2, 200000, 700, Case::kUlps, 1.0f},
        // k = 16384 of 300 long rows (too many rows for the long-rows
        // path).
        Case{"large_k16384_long", 300, 65536, 16384, Case::kRandn, 1.0f}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

// Cases of 0.3-2.7 GB of device memory and seconds of CPU reference,
// apart so that sanitizer runs can leave them out (--gtest_filter=-Big/*).
INSTANTIATE_TEST_SUITE_P(
    Big, TopKGpuTest,
    ::testing::Values(
        // The 64 slots of topk_f32 (k <= 64 beyond the split path's 4096
        // candidates, more rows than the long-rows path takes unguessed,
        // a sample rank of 5: unguessed), specials; 600001 columns take
        // the direct guessed start.
        Case{"row_k64_specials", 257, 1600000, 64, Case::kSpecials, 1.0f},
        Case{"direct_k64_specials", 257, 600001, 64, Case::kSpecials, 1.0f},
        // The guessed long-rows path's most rows, 2048 | 2049.
        Case{"guess_batch2048", 2048, 32769, 100, Case::kRandn, 1.0f},
        Case{"row_batch2049_guessable", 2049, 32769, 100, Case::kRandn, 1.0f},
        // Small k through the direct guessed start | the split path
        // (DirectGuessBeatsSplit): k = 8 | 7 at 256 x 65536, k = 1 at 256 |
        // 255 rows of 131072.
        Case{"direct_small_k8", 256, 65536, 8, Case::kSpecials, 1.0f},
        Case{"split_k7_batch256", 256, 65536, 7, Case::kRandn, 1.0f},
        Case{"direct_small_k1", 256, 131072, 1, Case::kFewValues, 1.0f},
        Case{"split_k1_batch255", 255, 131072, 1, Case::kRandn, 1.0f},
        // k = 32 | 31 at 128 x 65536 (k >= 32 from 2^23 elements); k = 16
        // of rows of 49152, the shortest the guess takes over split.
        Case{"direct_k32_batch128", 128, 65536, 32, Case::kSpecials, 1.0f},
        Case{"split_k31_batch128", 128, 65536, 31, Case::kRandn, 1.0f},
        Case{"direct_k16_n49152", 256, 49152, 16, Case::kFewValues, 1.0f},
        // k = 16384 of rows of a million columns (the long-rows path).
        Case{"long_1e6_k16384", 2, 1000000, 16384, Case::kRandn, 1.0f},
        // More rows than one large-k launch takes (65535); rows around the
        // boundary are checked.
        Case{"large_many_rows", 65537, 2049, 2049, Case::kRandInt, 1.0f, true}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.name);
    });

// topk_guess_f32 alone: the guess it stores must be the rank-th largest
// key of its sample (runs of 256 columns, `step` apart) with the low 10
// bits cleared, whatever path counts it (64 runs held in registers, other
// counts a tile of 16 at a time); with clearAll every other word of the
// row's state is zeroed, without only the candidates' count; the state
// past the last row is left alone. (Through TopK a wrong guess only costs
// time: the rows it misses are recomputed.)
struct SampleCase {
  const char *name;
  int blocks, rank;
  bool clearAll;
  Case::Kind kind;
};

class TopKGuessGpuTest
    : public DeviceFixture<::testing::TestWithParam<SampleCase>> {};

// The kernels' order-preserving key of a float: NaN highest.
uint32_t OrderedKey(float v) {
  if (std::isnan(v))
    return 0xFFFFFFFFu;
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return (bits & 0x80000000u) ? ~bits : bits ^ 0x80000000u;
}

TEST_P(TopKGuessGpuTest, GuessIsTheSampledRank) {
  const SampleCase &sc = GetParam();
  constexpr int kStateWords = 6176, kGuessAt = 6160, kCountAt = 6163;
  constexpr uint32_t kPoison = 0x55555555u;
  const Case c{sc.name, 3, 40000, 1, sc.kind, 1.0f};
  const int step = c.n / sc.blocks;
  std::vector<float> x = MakeInput(c);
  // One row of state past the batch, which the kernel must not touch.
  const size_t stateWords = size_t(c.batch + 1) * kStateWords;
  CUdeviceptr dx = Alloc(x.size() * 4), ds = Alloc(stateWords * 4);
  const auto &api = driver_->api();
  ASSERT_EQ(api.cuMemcpyHtoD_v2(dx, x.data(), x.size() * 4), 0);
  ASSERT_EQ(api.cuMemsetD32_v2(ds, kPoison, stateWords), 0);
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel("topk", "topk_guess_f32");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const KernelArg args[] = {
      KernelArg::DevicePtr(dx),  KernelArg::DevicePtr(ds),
      KernelArg::I32(c.batch),   KernelArg::I32(c.n),
      KernelArg::I32(sc.blocks), KernelArg::I32(step),
      KernelArg::I32(sc.rank),   KernelArg::I32(sc.clearAll ? 1 : 0)};
  absl::Status status = (*kernel)->Launch({uint32_t(c.batch), 1, 1}, args);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(api.cuCtxSynchronize(), 0);
  std::vector<uint32_t> state(stateWords);
  ASSERT_EQ(api.cuMemcpyDtoH_v2(state.data(), ds, stateWords * 4), 0);
  for (int r = 0; r < c.batch; ++r) {
    std::vector<uint32_t> keys;
    for (int b = 0; b < sc.blocks; ++b)
      for (int i = 0; i < 256; ++i)
        keys.push_back(OrderedKey(x[size_t(r) * c.n + size_t(b) * step + i]));
    std::nth_element(keys.begin(), keys.begin() + (sc.rank - 1), keys.end(),
                     std::greater<uint32_t>());
    const uint32_t want = keys[sc.rank - 1] & ~0x3FFu;
    const uint32_t *row = state.data() + size_t(r) * kStateWords;
    EXPECT_EQ(row[kGuessAt], want) << "row " << r;
    for (int w = 0; w < kStateWords; ++w) {
      if (w == kGuessAt)
        continue;
      const bool cleared = sc.clearAll || w == kCountAt;
      ASSERT_EQ(row[w], cleared ? 0u : kPoison) << "row " << r << " word " << w;
    }
  }
  for (size_t w = size_t(c.batch) * kStateWords; w < stateWords; ++w)
    ASSERT_EQ(state[w], kPoison) << "state word " << w << " past the rows";
}

INSTANTIATE_TEST_SUITE_P(
    Samples, TopKGuessGpuTest,
    ::testing::Values(
        // 64 runs: held in registers; 16, 48 and 80: tiles of 16. Rank 1
        // (the sample's maximum, NaN where a row has one) and the last rank.
        SampleCase{"held64", 64, 199, false, Case::kRandn},
        SampleCase{"held64_specials_clear", 64, 1, true, Case::kSpecials},
        SampleCase{"held64_last_rank", 64, 64 * 256, false, Case::kFewValues},
        SampleCase{"tiles16", 16, 32, true, Case::kRandn},
        SampleCase{"tiles48_specials", 48, 300, false, Case::kSpecials},
        SampleCase{"tiles80_clear", 80, 700, true, Case::kFewValues}),
    [](const ::testing::TestParamInfo<SampleCase> &info) {
      return std::string(info.param.name);
    });

} // namespace
} // namespace tilec
