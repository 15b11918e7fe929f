// ChooseTopKStrategy (runtime/topk.h): the top-k path for each shape, at
// every threshold, without a GPU.
#include "runtime/topk.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace tilec {
namespace {

TopKStrategy Choose(int64_t batch, int64_t n, int64_t k) {
  return ChooseTopKStrategy(batch, n, k);
}

TEST(TopKStrategyTest, ShortRowsAreSortedWholeForKAboveEight) {
  for (int64_t n : {9, 37, 64, 65, 256, 257, 1000, 1024})
    for (int64_t k : {int64_t{9}, std::max<int64_t>(9, (n + 1) / 2), n}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " k " << k);
      EXPECT_EQ(Choose(16384, n, k), TopKStrategy::kRows);
      EXPECT_EQ(Choose(1, n, k), TopKStrategy::kRowsFew);
    }
}

TEST(TopKStrategyTest, ShortRowsOfSmallKAreSelectedByRounds) {
  for (int64_t n : {2, 8, 9, 64, 65, 256, 257, 1000, 1024})
    for (int64_t k : {2, 5, 8}) {
      if (k > n)
        continue;
      SCOPED_TRACE(testing::Message() << "n " << n << " k " << k);
      EXPECT_EQ(Choose(1, n, k), TopKStrategy::kRowsSelect);
      EXPECT_EQ(Choose(16384, n, k), TopKStrategy::kRowsSelect);
    }
  EXPECT_EQ(Choose(3, 100, 8), TopKStrategy::kRowsSelect);
  EXPECT_EQ(Choose(3, 100, 9), TopKStrategy::kRowsFew);
  EXPECT_EQ(Choose(3, 1025, 8), TopKStrategy::kSplit);
}

TEST(TopKStrategyTest, ShortRowsOfKOneTakeTheMax) {
  for (int64_t n : {1, 37, 64, 65, 256, 257, 1000, 1024}) {
    SCOPED_TRACE(testing::Message() << "n " << n);
    EXPECT_EQ(Choose(1, n, 1), TopKStrategy::kTop1);
    EXPECT_EQ(Choose(16384, n, 1), TopKStrategy::kTop1);
  }
}

TEST(TopKStrategyTest, FewShortRowsUntilTheWideInstanceFillsTheDevice) {
  // 256 programs of the wide instance: 64, 16 and 8 rows each.
  EXPECT_EQ(Choose(16383, 64, 9), TopKStrategy::kRowsFew);
  EXPECT_EQ(Choose(16384, 64, 9), TopKStrategy::kRows);
  EXPECT_EQ(Choose(4095, 65, 9), TopKStrategy::kRowsFew);
  EXPECT_EQ(Choose(4096, 65, 9), TopKStrategy::kRows);
  EXPECT_EQ(Choose(4095, 256, 256), TopKStrategy::kRowsFew);
  EXPECT_EQ(Choose(4096, 256, 256), TopKStrategy::kRows);
  EXPECT_EQ(Choose(2047, 257, 9), TopKStrategy::kRowsFew);
  EXPECT_EQ(Choose(2048, 257, 9), TopKStrategy::kRows);
  EXPECT_EQ(Choose(2047, 1024, 1024), TopKStrategy::kRowsFew);
  EXPECT_EQ(Choose(2048, 1024, 1024), TopKStrategy::kRows);
  EXPECT_EQ(Choose(2048, 1025, 9), TopKStrategy::kSplit);
}

TEST(TopKStrategyTest, ThresholdsAboveShortRows) {
  // k = 1: the argmax kernel up to one part of 4096 columns.
  EXPECT_EQ(Choose(128, 1025, 1), TopKStrategy::kTop1);
  EXPECT_EQ(Choose(128, 4096, 1), TopKStrategy::kTop1);
  EXPECT_EQ(Choose(128, 4097, 1), TopKStrategy::kSplit);
  // Split rows up to k = 64 and 4096 candidates (parts * k).
  EXPECT_EQ(Choose(64, 8192, 64), TopKStrategy::kSplit);
  EXPECT_EQ(Choose(64, 8192, 65), TopKStrategy::kRow);
  EXPECT_EQ(Choose(1, 4096 * 64, 64), TopKStrategy::kSplit);
  EXPECT_EQ(Choose(1, 4096 * 64 + 1, 64), TopKStrategy::kLongRows);
  // More than 256 rows take the long-rows path only where its guessed
  // start applies: at k = 64 of 600001 columns (about 1200 candidates
  // aimed at, sample rank 32), not of 1600000 (rank 32 of any aim four
  // deviations below 2048 would take more than 128 runs; 256 aimed at,
  // rank 5).
  EXPECT_EQ(Choose(257, 4096 * 64 + 1, 64), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(257, 600001, 64), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(257, 1600000, 64), TopKStrategy::kRow);
  EXPECT_EQ(Choose(64, 4096 * 16, 65), TopKStrategy::kLongRows);
  // Few long rows: n >= 32000 and batch <= 256, any k.
  EXPECT_EQ(Choose(2, 31999, 100), TopKStrategy::kRow);
  EXPECT_EQ(Choose(2, 32000, 100), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(256, 32000, 300), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(257, 32000, 300), TopKStrategy::kRow);
  EXPECT_EQ(Choose(1, 31999, 16384), TopKStrategy::kLargeK);
  EXPECT_EQ(Choose(1, 32000, 16384), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(256, 131072, 1024), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(257, 131072, 1024), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(2048, 131072, 1024), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(2049, 131072, 1024), TopKStrategy::kRow);
  EXPECT_EQ(Choose(1024, 131072, 2049), TopKStrategy::kLargeK);
  EXPECT_EQ(Choose(1, 1000000, 16384), TopKStrategy::kLongRows);
  EXPECT_EQ(Choose(4, 1000000, 1000000), TopKStrategy::kLongRows);
  // One program per row up to k = 2048, then the large-k path.
  EXPECT_EQ(Choose(1, 5000, 2048), TopKStrategy::kRow);
  EXPECT_EQ(Choose(1, 5000, 2049), TopKStrategy::kLargeK);
  EXPECT_EQ(Choose(257, 65536, 2049), TopKStrategy::kLargeK);
  EXPECT_EQ(Choose(300, 2147483647, 2147483647), TopKStrategy::kLargeK);
}

// The split kernel's register budget follows its grid: 168 registers up
// to one program per SM, 128 (two per SM) beyond.
TEST(TopKStrategyTest, SplitInstanceFollowsTheGrid) {
  constexpr int kSms = 132;
  EXPECT_STREQ(TopKSplitKernelName(1, 131072, kSms), "topk_split_f32");
  EXPECT_STREQ(TopKSplitKernelName(66, 8192, kSms), "topk_split_f32");
  EXPECT_STREQ(TopKSplitKernelName(66, 8193, kSms), "topk_split_f32_r128");
  EXPECT_STREQ(TopKSplitKernelName(67, 8192, kSms), "topk_split_f32_r128");
  EXPECT_STREQ(TopKSplitKernelName(132, 4096, kSms), "topk_split_f32");
  EXPECT_STREQ(TopKSplitKernelName(133, 4097, kSms), "topk_split_f32_r128");
  EXPECT_STREQ(TopKSplitKernelName(1024, 50257, kSms), "topk_split_f32_r128");
  // A device of more SMs keeps the one-per-SM build longer.
  EXPECT_STREQ(TopKSplitKernelName(67, 8192, 148), "topk_split_f32");
}

// The long-rows path's candidate slots: 2k, at least 32768, none where
// that would cover the row.
TEST(TopKStrategyTest, LongRowsCandidateSlots) {
  EXPECT_EQ(LongRowsCandidates(131072, 1024), 32768);
  EXPECT_EQ(LongRowsCandidates(131072, 16384), 32768);
  EXPECT_EQ(LongRowsCandidates(131072, 16385), 32770);
  EXPECT_EQ(LongRowsCandidates(1000000, 100000), 200000);
  EXPECT_EQ(LongRowsCandidates(32769, 1), 32768);
  EXPECT_EQ(LongRowsCandidates(32768, 1), 0);
  EXPECT_EQ(LongRowsCandidates(131072, 65536), 0);
  EXPECT_EQ(LongRowsCandidates(131072, 65535), 131070);
}

TEST(TopKStrategy, LongRowsGuessAimsAtFourKCandidates) {
  // 64 x 131072, k = 1024: 4096 candidates aimed at, 16 runs of 256
  // (rank 32 needs only 4), 8192 columns apart; rank 128 of 4096.
  LongRowsGuessPlan plan = LongRowsGuess(64, 131072, 1024);
  EXPECT_EQ(plan.blocks, 16);
  EXPECT_EQ(plan.step, 8192);
  EXPECT_EQ(plan.rank, 128);
  EXPECT_FALSE(plan.direct);
  // 64 x 10^6, k = 256: 1024 aimed at; rank 32 needs 123 runs -> 128.
  plan = LongRowsGuess(64, 1000000, 256);
  EXPECT_EQ(plan.blocks, 128);
  EXPECT_EQ(plan.step, 7812);
  EXPECT_EQ(plan.rank, 33);
  // k = 8192 is a quarter of the 32768 slots: 2k aimed at; 8193 is not
  // guessed.
  plan = LongRowsGuess(64, 65536, 8192);
  EXPECT_EQ(plan.blocks, 16);
  EXPECT_EQ(plan.rank, 1024);
  EXPECT_EQ(LongRowsGuess(64, 65536, 8193).blocks, 0);
  // Inputs under 2^22 elements, and rows whose slots are the whole row.
  EXPECT_EQ(LongRowsGuess(63, 65536, 1000).blocks, 0);
  EXPECT_EQ(LongRowsGuess(64, 65536, 1000).blocks, 16);
  EXPECT_EQ(LongRowsGuess(1024, 32768, 100).blocks, 0);
  // 5 x 10^6, k = 65: rank 32 would need 481 runs; 128 give rank 8.
  EXPECT_EQ(LongRowsGuess(5, 1000000, 65).blocks, 0);
}

TEST(TopKStrategy, DirectGuessTakesSmallKFromSplit) {
  // Rows of 49152 or more: k >= 32 from 2^23 elements, k >= 16 from
  // 3 * 2^22, k >= 8 from 2^24; k = 1 from 2^25 elements of rows of 131072
  // or more; never below 128 rows.
  EXPECT_EQ(ChooseTopKStrategy(128, 65536, 32), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(128, 65536, 31), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(127, 65536, 64), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(192, 65536, 16), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(191, 65536, 16), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(192, 65536, 15), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(256, 49152, 16), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(512, 49152, 8), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(512, 49151, 64), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(256, 65536, 8), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(256, 65536, 7), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(255, 65536, 8), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(128, 131072, 64), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(2048, 131072, 64), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(256, 131072, 1), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(255, 131072, 1), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(1024, 65536, 1), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(128, 1000000, 1), TopKStrategy::kLongRows);
  EXPECT_EQ(ChooseTopKStrategy(127, 1000000, 8), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(64, 131072, 64), TopKStrategy::kSplit);
  EXPECT_EQ(ChooseTopKStrategy(16384, 65536, 8), TopKStrategy::kSplit);
  EXPECT_TRUE(DirectGuessBeatsSplit(256, 65536, 8));
  EXPECT_FALSE(DirectGuessBeatsSplit(512, 32768, 64));
}

TEST(TopKStrategy, GuessSamplesAroundTheHeldTile) {
  // topk_guess_f32 counts a sample of 64 runs from one tile in registers
  // and others a tile of 16 runs at a time; the GPU tests guess_blocks48,
  // guess_blocks64 and guess_blocks80 take these plans.
  EXPECT_EQ(LongRowsGuess(48, 95000, 64).blocks, 48);
  EXPECT_EQ(LongRowsGuess(33, 131072, 64).blocks, 64);
  EXPECT_EQ(LongRowsGuess(32, 140000, 64).blocks, 80);
}

TEST(TopKStrategy, DirectGuessAimsAtTheSelectSort) {
  // From 128 rows, k <= 2048: direct. 256 x 131072, k = 1024: the aim
  // needing the fewest runs is 1593 candidates, with k five deviations
  // below and 2048 four above (rank 197): 64 runs, rank 199.
  LongRowsGuessPlan plan = LongRowsGuess(256, 131072, 1024);
  EXPECT_TRUE(plan.direct);
  EXPECT_EQ(plan.blocks, 64);
  EXPECT_EQ(plan.step, 2048);
  EXPECT_EQ(plan.rank, 199);
  EXPECT_FALSE(LongRowsGuess(127, 131072, 1024).direct);
  // k = 64: rank 32 suffices; 16 runs.
  plan = LongRowsGuess(256, 131072, 64);
  EXPECT_TRUE(plan.direct);
  EXPECT_EQ(plan.blocks, 16);
  EXPECT_EQ(plan.rank, 32);
  // Rows of 10^6 would need 493 runs for k = 1024 within the slots: 4k
  // aimed at, as other plans (the select then selects and collects).
  plan = LongRowsGuess(256, 1000000, 1024);
  EXPECT_TRUE(plan.direct);
  EXPECT_EQ(plan.blocks, 32);
  EXPECT_EQ(plan.rank, 33);
  // k = 2048: no aim below the slots; 4k. k = 2049: not direct.
  plan = LongRowsGuess(256, 131072, 2048);
  EXPECT_TRUE(plan.direct);
  EXPECT_EQ(plan.blocks, 16);
  EXPECT_EQ(plan.rank, 256);
  EXPECT_FALSE(LongRowsGuess(256, 131072, 2049).direct);
}

TEST(TopKStrategyTest, Names) {
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kRows), "rows");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kRowsFew), "rows_few");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kRowsSelect), "rows_select");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kTop1), "top1");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kSplit), "split");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kLongRows), "long_rows");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kRow), "row");
  EXPECT_STREQ(TopKStrategyName(TopKStrategy::kLargeK), "large_k");
}

} // namespace
} // namespace tilec
