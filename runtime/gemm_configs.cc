#include "runtime/gemm_configs.h"

#include <iterator>

namespace tilec {
namespace {

// Keep in step with tile.instances in kernels_dsl/gemm.mlir (a GPU test
// launches every entry).
constexpr GemmConfig kConfigs[] = {
    {"gemm_bf16", DType::kBF16, 128, 128},
    {"gemm_bf16_128x256", DType::kBF16, 128, 256},
    {"gemm_bf16_64x128", DType::kBF16, 64, 128},
    {"gemm_bf16_64x64", DType::kBF16, 64, 64},
    {"gemm_fp8", DType::kF8E4M3, 128, 128},
    {"gemm_fp8_128x256", DType::kF8E4M3, 128, 256},
    {"gemm_fp8_64x128", DType::kF8E4M3, 64, 128},
    {"gemm_fp8_64x64", DType::kF8E4M3, 64, 64},
    {"gemm_fp8_64x32", DType::kF8E4M3, 64, 32},
};

const GemmConfig &Find(DType dtype, int tile_m, int tile_n) {
  for (const GemmConfig &config : kConfigs)
    if (config.dtype == dtype && config.tile_m == tile_m &&
        config.tile_n == tile_n)
      return config;
  // The 128 x 128 instance exists for both dtypes.
  return Find(dtype, 128, 128);
}

int64_t Tiles(int64_t m, int64_t n, int tile_m, int tile_n) {
  return ((m + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n);
}

} // namespace

absl::Span<const GemmConfig> GemmConfigs() { return kConfigs; }

const GemmConfig &ChooseGemmConfig(DType dtype, int64_t m, int64_t n,
                                   int64_t /*k*/, const GemmDevice &device) {
  // Only sm_90a's wgmma instances have been measured against each other;
  // elsewhere the 128 x 128 tile (the larger ones spill on sm_80).
  if (device.target != "sm_90a")
    return Find(dtype, 128, 128);
  const int64_t sms = device.sm_count > 0 ? device.sm_count : 1;
  // Few rows: one warpgroup on 64-row tiles, as wide as still gives every
  // SM a program (narrower tiles split the weight over more SMs, which is
  // what bounds a skinny product).
  if (m <= 64) {
    for (int tile_n : {128, 64})
      if (Tiles(m, n, 64, tile_n) >= sms)
        return Find(dtype, 64, tile_n);
    return Find(dtype, 64, dtype == DType::kF8E4M3 ? 32 : 64);
  }
  // Large products: the widest tile that still fills every SM once (fewer
  // shared-memory reads per multiply-add); then 128 x 128 while it gives
  // at least half the SMs a program; 64-row tiles below that.
  if (Tiles(m, n, 128, 256) >= sms)
    return Find(dtype, 128, 256);
  if (Tiles(m, n, 128, 128) * 2 >= sms)
    return Find(dtype, 128, 128);
  return Find(dtype, 64, 128);
}

} // namespace tilec
