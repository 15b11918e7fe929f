// The GEMM configuration table and its choice, without a GPU.
#include "runtime/gemm_configs.h"

#include <string>

#include "runtime/embedded.h"
#include "runtime/metadata.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

const GemmDevice kH200{"sm_90a", 132};

TEST(GemmConfigsTest, EveryConfigIsAnEmbeddedKernel) {
  int modules = 0;
  for (const EmbeddedModule &entry : ListEmbedded()) {
    if (std::string(entry.name) != "gemm")
      continue;
    ++modules;
    for (const GemmConfig &config : GemmConfigs())
      EXPECT_EQ(std::string(entry.metadata)
                        .find("\"" + std::string(config.kernel) + "\"") !=
                    std::string::npos,
                GemmConfigRunsOn(config, entry.target))
          << config.kernel << " in gemm@" << entry.target;
  }
  if (modules == 0)
    GTEST_SKIP() << "no embedded gemm module in this build";
}

// GemmGrid rounds the rows to the clusters the kernels were compiled for.
TEST(GemmConfigsTest, ClusterRowsMatchTheKernels) {
  int kernels = 0;
  for (const EmbeddedModule &entry : ListEmbedded()) {
    if (std::string(entry.name) != "gemm")
      continue;
    absl::StatusOr<ModuleInfo> info = ParseMetadata(entry.metadata);
    ASSERT_TRUE(info.ok()) << info.status();
    for (const GemmConfig &config : GemmConfigs())
      for (const KernelInfo &kernel : info->kernels)
        if (kernel.name == config.kernel) {
          ++kernels;
          EXPECT_EQ(kernel.cluster,
                    (std::array<uint32_t, 3>{
                        1, uint32_t(GemmClusterRows(config)), 1}))
              << config.kernel << " in gemm@" << entry.target;
        }
  }
  if (kernels == 0)
    GTEST_SKIP() << "no embedded gemm module in this build";
}

const GemmConfig &Named(absl::string_view kernel) {
  for (const GemmConfig &config : GemmConfigs())
    if (config.kernel == kernel)
      return config;
  ADD_FAILURE() << "no config " << kernel;
  return GemmConfigs().front();
}

TEST(GemmConfigsTest, ChoiceKeepsTheDtype) {
  for (DType dtype : {DType::kBF16, DType::kF8E4M3})
    for (int64_t m : {1, 32, 64, 65, 300, 4096})
      for (int64_t n : {1, 100, 4096, 14336})
        for (const char *target : {"sm_80", "sm_90a", "sm_100a"}) {
          const GemmConfig &config =
              ChooseGemmConfig(dtype, m, n, 4096, {target, 132});
          EXPECT_EQ(config.dtype, dtype) << config.kernel;
        }
}

TEST(GemmConfigsTest, OtherTargetsTakeTheSquareTile) {
  EXPECT_EQ(
      ChooseGemmConfig(DType::kF8E4M3, 32, 8192, 8192, {"sm_80", 132}).kernel,
      "gemm_fp8");
  // sm_100a feeds it from a producer warp.
  EXPECT_EQ(
      ChooseGemmConfig(DType::kF8E4M3, 32, 8192, 8192, {"sm_100a", 132}).kernel,
      "gemm_fp8_ws");
  // sm_100a pairs large products (BlackwellPairsWhenTheyFillTheSms).
  EXPECT_EQ(
      ChooseGemmConfig(DType::kBF16, 4096, 4096, 4096, {"sm_80", 132}).kernel,
      "gemm_bf16");
}

TEST(GemmConfigsTest, BlackwellPairsWhenTheyFillTheSms) {
  const GemmDevice b200{"sm_100a", 148};
  // 4096^2: 256 pair tiles of 256 x 256, 512 programs, 16 pair rows: two
  // pairs share each B tile.
  const GemmConfig &large =
      ChooseGemmConfig(DType::kF8E4M3, 4096, 4096, 4096, b200);
  EXPECT_EQ(large.kernel, "gemm_fp8_pair_mc2");
  EXPECT_TRUE(large.cta_pair);
  EXPECT_EQ(large.multicast, 2);
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 4096, 4096, 4096, b200).kernel,
            "gemm_bf16_pair_mc2");
  // 74 pair tiles (1024 x 4864) fill 148 SMs; 73 do not.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1024, 4864, 4096, b200).kernel,
            "gemm_fp8_pair_mc2");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1024, 4608, 4096, b200).kernel,
            "gemm_fp8_ws");
  // Skinny products never pair (one row tile).
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 128, 65536, 4096, b200).kernel,
            "gemm_fp8_ws");
  // No other target runs a pair instance.
  for (const GemmConfig &config : GemmConfigs())
    if (config.cta_pair) {
      EXPECT_TRUE(GemmConfigRunsOn(config, "sm_100a"));
      EXPECT_FALSE(GemmConfigRunsOn(config, "sm_90a"));
      EXPECT_FALSE(GemmConfigRunsOn(config, "sm_80"));
    } else {
      EXPECT_TRUE(GemmConfigRunsOn(config, "sm_90a"));
    }
}

TEST(GemmConfigsTest, BlackwellPairsShareBWhenClustersFill) {
  const GemmDevice b200{"sm_100a", 148};
  // 3 and 7 pair rows (768, 1792): a cluster of four would leave a pair
  // idle in each column, so the pairs load their own B.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 768, 6400, 4096, b200).kernel,
            "gemm_fp8_pair");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 1792, 2816, 4096, b200).kernel,
            "gemm_bf16_pair");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1025, 3840, 4096, b200).kernel,
            "gemm_fp8_pair"); // 5 pair rows (the last of one row)
  // An even number of pair rows (6), or 8 and more (9): multicast.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1536, 3328, 4096, b200).kernel,
            "gemm_fp8_pair_mc2");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 2304, 2304, 4096, b200).kernel,
            "gemm_bf16_pair_mc2");
}

TEST(GemmConfigsTest, PairsLaunchWholeClustersOfRowTiles) {
  const GemmConfig &pair = Named("gemm_fp8_pair");
  EXPECT_EQ(GemmClusterRows(pair), 2);
  EXPECT_EQ(GemmGrid(pair, 4096, 4096), (std::array<uint32_t, 2>{16, 32}));
  // 3 row tiles of 128 become 4 (a cluster of two needs an even grid y).
  EXPECT_EQ(GemmGrid(pair, 300, 1000), (std::array<uint32_t, 2>{4, 4}));
  EXPECT_EQ(GemmGrid(pair, 1, 1), (std::array<uint32_t, 2>{1, 2}));
  // Two pairs: whole clusters of four.
  const GemmConfig &shared = Named("gemm_bf16_pair_mc2");
  EXPECT_EQ(GemmClusterRows(shared), 4);
  EXPECT_EQ(GemmGrid(shared, 4096, 4096), (std::array<uint32_t, 2>{16, 32}));
  EXPECT_EQ(GemmGrid(shared, 300, 1000), (std::array<uint32_t, 2>{4, 4}));
  EXPECT_EQ(GemmGrid(shared, 1300, 256), (std::array<uint32_t, 2>{1, 12}));
  EXPECT_EQ(GemmGrid(shared, 1, 1), (std::array<uint32_t, 2>{1, 4}));
  const GemmConfig &square =
      ChooseGemmConfig(DType::kF8E4M3, 300, 1000, 4096, {"sm_90a", 132});
  ASSERT_FALSE(square.cta_pair);
  EXPECT_EQ(GemmClusterRows(square), 1);
  const std::array<uint32_t, 2> grid = GemmGrid(square, 300, 1000);
  EXPECT_EQ(grid[1], uint32_t((300 + square.tile_m - 1) / square.tile_m));
}

TEST(GemmConfigsTest, HopperChoiceAtTheCrossovers) {
  // Large products: more 128 x 256 tiles than SMs, the persistent
  // instance.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 4096, 4096, 4096, kH200).kernel,
            "gemm_fp8_128x256_ws_p");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 8192, 8192, 8192, kH200).kernel,
            "gemm_fp8_128x256_ws_p");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 4096, 14336, 4096, kH200).kernel,
            "gemm_fp8_128x256_ws_p");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 4096, 4096, 4096, kH200).kernel,
            "gemm_bf16_128x256_ws_p");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 8192, 8192, 8192, kH200).kernel,
            "gemm_bf16_128x256_ws_p");
  // One wave of 128 x 256 tiles: the producer-warp instance.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 2048, 2048, 8192, kH200).kernel,
            "gemm_fp8_128x256_ws");
  // 128 x 256 tiles: 16 x 8 = 128 programs, over three quarters of the
  // SMs; 2 x 32 = 64, fewer: 128 x 128 (256 programs).
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 2048, 2048, 8192, kH200).kernel,
            "gemm_bf16_128x256_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 256, 8192, 1024, kH200).kernel,
            "gemm_bf16_ws");
  // 128 x 128: 8 x 9 = 72 programs, over half the SMs; 8 x 8 = 64, fewer:
  // 64-row tiles.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1024, 1100, 1008, kH200).kernel,
            "gemm_fp8_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1000, 1000, 1008, kH200).kernel,
            "gemm_fp8_64x128_ws");
  // Skinny M: 64-row tiles, as wide as fills the SMs.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 64, 16896, 8192, kH200).kernel,
            "gemm_fp8_64x128_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 8448, 8192, kH200).kernel,
            "gemm_fp8_64x64");
  // Fewer 64 x 64 programs than SMs: the K loop split over programs.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 8192, 8192, kH200).kernel,
            "gemm_fp8_64x64_sk");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 4096, 4096, kH200).kernel,
            "gemm_fp8_64x64_sk");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 32, 8192, 8192, kH200).kernel,
            "gemm_bf16_64x128_ws_sk");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 1, 4096, 4096, kH200).kernel,
            "gemm_bf16_64x128_ws_sk");
  // Too short a K loop to split (7 iterations, 8 per part at least):
  // over half the SMs, 64 x 64 with 8-deep rings; half or fewer, fp8
  // 64 x 128 with a producer warp.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 4288, 896, kH200).kernel,
            "gemm_fp8_64x64_s8");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 4096, 896, kH200).kernel,
            "gemm_fp8_64x128_ws");
  // Two rows of 64 x 128 tiles that pass the SMs: fp8 takes one row of
  // 128 x 128 (112 programs at N = 14336); 64 rows keep 64 x 128.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 128, 14336, 4096, kH200).kernel,
            "gemm_fp8_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 65, 16896, 4096, kH200).kernel,
            "gemm_fp8_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 128, 14336, 4096, kH200).kernel,
            "gemm_bf16_64x128_ws");
  // One wave of 128 x 256 (8 x 12 = 96 programs) where 128 x 128 would
  // take 184: fp8 takes 128 x 256; 2048 x 1024 x 4096 (64 against 128
  // programs, one wave either way) keeps 128 x 128.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 1024, 2880, 2880, kH200).kernel,
            "gemm_fp8_128x256_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 2048, 1024, 4096, kH200).kernel,
            "gemm_fp8_ws");
  // From K = 8192 and 512 rows, 49-66 tiles of 128 x 256 split the K loop
  // in two; shorter K, fewer rows or fewer tiles keep their tiles.
  const GemmConfig &wide_split =
      ChooseGemmConfig(DType::kF8E4M3, 2048, 1024, 8192, kH200);
  EXPECT_EQ(wide_split.kernel, "gemm_fp8_128x256_ws_sk");
  EXPECT_EQ(GemmSplitParts(wide_split, 2048, 1024, 8192, kH200), 2);
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 512, 4096, 14336, kH200).kernel,
            "gemm_fp8_128x256_ws_sk");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 512, 4096, 4096, kH200).kernel,
            "gemm_fp8_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 256, 8192, 8192, kH200).kernel,
            "gemm_fp8_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 512, 3072, 8192, kH200).kernel,
            "gemm_fp8_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 2048, 1024, 8192, kH200).kernel,
            "gemm_bf16_ws");
  // Beyond 128 rows, where 64 x 128 tiles leave over half the SMs idle,
  // fp8 splits their K loop (24 tiles: 5 parts; 64 tiles: 2); with more
  // of them, or too short a loop, it keeps 64 x 128 unsplit.
  const GemmConfig &rows_split =
      ChooseGemmConfig(DType::kF8E4M3, 129, 1024, 8192, kH200);
  EXPECT_EQ(rows_split.kernel, "gemm_fp8_64x128_ws_sk");
  EXPECT_EQ(GemmSplitParts(rows_split, 129, 1024, 8192, kH200), 5);
  EXPECT_EQ(GemmSplitParts(rows_split, 512, 1024, 8192, kH200), 2);
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 512, 1024, 8192, kH200).kernel,
            "gemm_fp8_64x128_ws_sk");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 777, 1024, 8192, kH200).kernel,
            "gemm_fp8_64x128_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 129, 1024, 1920, kH200).kernel,
            "gemm_fp8_64x128_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 129, 1024, 8192, kH200).kernel,
            "gemm_bf16_64x128_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 1024, 2880, 2880, kH200).kernel,
            "gemm_bf16_ws");
  // Up to 128 rows take 64-row tiles: 2 x 128 programs of 64 x 64.
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 128, 8192, 8192, kH200).kernel,
            "gemm_bf16_64x64");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 129, 8192, 8192, kH200).kernel,
            "gemm_fp8_ws");
}

TEST(GemmConfigsTest, SplitPartsFillTheGpuWithLongEnoughLoops) {
  const GemmConfig &split = Named("gemm_fp8_64x64_sk");
  ASSERT_TRUE(split.split_k);
  // Unsplit instances run one part.
  EXPECT_EQ(GemmSplitParts(Named("gemm_fp8_64x64"), 32, 4096, 4096, kH200), 1);
  // A 64 x 64 ring of 5 stages takes 80 KiB: two programs per SM, 264 on
  // the H200. 128 tiles: 2 parts; 64 tiles: 4 (32 iterations of 128
  // bytes, 8 each).
  EXPECT_EQ(GemmSplitParts(split, 32, 8192, 8192, kH200), 2);
  EXPECT_EQ(GemmSplitParts(split, 32, 4096, 4096, kH200), 4);
  // The loop bounds the parts: 16 iterations give 2 parts of 8; fewer
  // than 16, no split.
  EXPECT_EQ(GemmSplitParts(split, 1, 1024, 2048, kH200), 2);
  EXPECT_EQ(GemmSplitParts(split, 1, 1024, 1920, kH200), 1);
  // bf16: 128 bytes are 64 elements, so twice the iterations.
  EXPECT_EQ(GemmSplitParts(Named("gemm_bf16_64x64_sk"), 1, 1024, 1024, kH200),
            2);
  // At most kGemmMaxSplitParts.
  EXPECT_EQ(GemmSplitParts(split, 1, 64, 1 << 20, kH200), kGemmMaxSplitParts);
  // The 64 x 128 ring takes 120 KiB: one program per SM.
  EXPECT_EQ(
      GemmSplitParts(Named("gemm_fp8_64x128_ws_sk"), 32, 4096, 8192, kH200), 4);
}

} // namespace
} // namespace tilec
