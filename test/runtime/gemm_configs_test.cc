// The GEMM configuration table and its choice, without a GPU.
#include "runtime/gemm_configs.h"

#include <string>

#include "runtime/embedded.h"
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
      EXPECT_NE(std::string(entry.metadata)
                    .find("\"" + std::string(config.kernel) + "\""),
                std::string::npos)
          << config.kernel << " is not in gemm@" << entry.target;
  }
  if (modules == 0)
    GTEST_SKIP() << "no embedded gemm module in this build";
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
  for (const char *target : {"sm_80", "sm_100a"}) {
    EXPECT_EQ(
        ChooseGemmConfig(DType::kF8E4M3, 32, 8192, 8192, {target, 132}).kernel,
        "gemm_fp8");
    EXPECT_EQ(
        ChooseGemmConfig(DType::kBF16, 4096, 4096, 4096, {target, 132}).kernel,
        "gemm_bf16");
  }
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
  // Fewer 64 x 64 programs than SMs but over half as many (128, 67): 64 x
  // 64 with 8-deep rings; half the SMs or fewer (64): fp8 64 x 128 with a
  // producer warp.
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 8192, 8192, kH200).kernel,
            "gemm_fp8_64x64_s8");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 4096, 4096, kH200).kernel,
            "gemm_fp8_64x128_ws");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 32, 4288, 4096, kH200).kernel,
            "gemm_fp8_64x64_s8");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 32, 8192, 8192, kH200).kernel,
            "gemm_bf16_64x64_s8");
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 1, 4096, 4096, kH200).kernel,
            "gemm_bf16_64x64_s8");
  // Up to 128 rows take 64-row tiles: 2 x 128 programs of 64 x 64.
  EXPECT_EQ(ChooseGemmConfig(DType::kBF16, 128, 8192, 8192, kH200).kernel,
            "gemm_bf16_64x64");
  EXPECT_EQ(ChooseGemmConfig(DType::kF8E4M3, 129, 8192, 8192, kH200).kernel,
            "gemm_fp8_ws");
}

} // namespace
} // namespace tilec
