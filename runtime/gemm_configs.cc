#include "runtime/gemm_configs.h"

#include <algorithm>
#include <iterator>

namespace tilec {
namespace {

// Keep in step with tile.instances in kernels_dsl/gemm.mlir (a GPU test
// launches every entry).
// (Rings of 5 stages unless the kernel is named _s<stages>; 128 x 256
// tiles fit 4.)
constexpr GemmConfig kConfigs[] = {
    {"gemm_bf16", DType::kBF16, 128, 128, 5},
    {"gemm_bf16_128x256", DType::kBF16, 128, 256, 4},
    {"gemm_bf16_64x128", DType::kBF16, 64, 128, 5},
    {"gemm_bf16_64x64", DType::kBF16, 64, 64, 5},
    {"gemm_bf16_64x64_s8", DType::kBF16, 64, 64, 8},
    {"gemm_fp8", DType::kF8E4M3, 128, 128, 5},
    {"gemm_fp8_128x256", DType::kF8E4M3, 128, 256, 4},
    {"gemm_fp8_64x128", DType::kF8E4M3, 64, 128, 5},
    {"gemm_fp8_64x64", DType::kF8E4M3, 64, 64, 5},
    {"gemm_fp8_64x64_s8", DType::kF8E4M3, 64, 64, 8},
    {"gemm_bf16_ws", DType::kBF16, 128, 128, 5, true},
    {"gemm_bf16_128x256_ws", DType::kBF16, 128, 256, 4, true},
    {"gemm_bf16_64x128_ws", DType::kBF16, 64, 128, 5, true},
    {"gemm_fp8_ws", DType::kF8E4M3, 128, 128, 5, true},
    {"gemm_fp8_128x256_ws", DType::kF8E4M3, 128, 256, 4, true},
    {"gemm_fp8_64x128_ws", DType::kF8E4M3, 64, 128, 5, true},
    {"gemm_bf16_ws_p", DType::kBF16, 128, 128, 5, true, true},
    {"gemm_bf16_128x256_ws_p", DType::kBF16, 128, 256, 4, true, true},
    {"gemm_fp8_ws_p", DType::kF8E4M3, 128, 128, 5, true, true},
    {"gemm_fp8_128x256_ws_p", DType::kF8E4M3, 128, 256, 4, true, true},
    // The K loop split over grid z (GemmSplitParts programs per tile).
    {"gemm_bf16_64x64_sk",
     DType::kBF16,
     64,
     64,
     5,
     false,
     false,
     false,
     1,
     {},
     true},
    {"gemm_fp8_64x64_sk",
     DType::kF8E4M3,
     64,
     64,
     5,
     false,
     false,
     false,
     1,
     {},
     true},
    {"gemm_bf16_64x128_ws_sk",
     DType::kBF16,
     64,
     128,
     5,
     true,
     false,
     false,
     1,
     {},
     true},
    {"gemm_fp8_64x128_ws_sk",
     DType::kF8E4M3,
     64,
     128,
     5,
     true,
     false,
     false,
     1,
     {},
     true},
    {"gemm_fp8_128x256_ws_sk",
     DType::kF8E4M3,
     128,
     256,
     4,
     true,
     false,
     false,
     1,
     {},
     true},
    // Two programs of the same columns in a cluster, each multicasting half
    // of the w tile to both (sm_90a; tile.multicast on the warp-specialized
    // wgmma ring). Not picked by ChooseGemmConfig: on an H100 it measured
    // even with gemm_fp8_ws (512 x 4096 x 4096: 27.6 us against 26.8,
    // bench/RESULTS.md, "Hopper multicast"), since the products it would
    // serve are not bound by reads from L2.
    {"gemm_fp8_ws_mc2", DType::kF8E4M3, 128, 128, 5, true, false, false, 2,
     "sm_90a"},
    // CTA pairs of sm_100a: 128 x 256 per program, 256 x 256 per pair; a
    // program stages half of B, so a stage is 32 KiB for either type.
    {"gemm_bf16_pair", DType::kBF16, 128, 256, 5, false, false, true, 1,
     "sm_100a"},
    {"gemm_fp8_pair", DType::kF8E4M3, 128, 256, 5, false, false, true, 1,
     "sm_100a"},
    // Two pairs of the same columns in a cluster of four, which load each
    // B tile once between them (tile.multicast).
    {"gemm_bf16_pair_mc2", DType::kBF16, 128, 256, 5, false, false, true, 2,
     "sm_100a"},
    {"gemm_fp8_pair_mc2", DType::kF8E4M3, 128, 256, 5, false, false, true, 2,
     "sm_100a"},
};

const GemmConfig &Find(DType dtype, int tile_m, int tile_n, int stages = 0,
                       bool warp_specialized = false, bool persistent = false,
                       bool cta_pair = false, int multicast = 1,
                       bool split_k = false) {
  for (const GemmConfig &config : kConfigs)
    if (config.dtype == dtype && config.tile_m == tile_m &&
        config.tile_n == tile_n && (stages == 0 || config.stages == stages) &&
        config.warp_specialized == warp_specialized &&
        config.persistent == persistent && config.cta_pair == cta_pair &&
        config.multicast == multicast && config.split_k == split_k)
      return config;
  // The 128 x 128 instance exists for both dtypes.
  return Find(dtype, 128, 128);
}

int64_t Tiles(int64_t m, int64_t n, int tile_m, int tile_n) {
  return ((m + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n);
}

} // namespace

absl::Span<const GemmConfig> GemmConfigs() { return kConfigs; }

bool GemmConfigRunsOn(const GemmConfig &config, absl::string_view target) {
  return config.only_target.empty() || config.only_target == target;
}

int GemmClusterRows(const GemmConfig &config) {
  return (config.cta_pair ? 2 : 1) * config.multicast;
}

std::array<uint32_t, 2> GemmGrid(const GemmConfig &config, int64_t m,
                                 int64_t n) {
  const int64_t cluster = GemmClusterRows(config);
  int64_t rows = (m + config.tile_m - 1) / config.tile_m;
  rows = (rows + cluster - 1) / cluster * cluster;
  return {uint32_t((n + config.tile_n - 1) / config.tile_n), uint32_t(rows)};
}

int GemmSplitParts(const GemmConfig &config, int64_t m, int64_t n, int64_t k,
                   const GemmDevice &device) {
  if (!config.split_k)
    return 1;
  // Programs an SM holds at once, by the shared memory of the ring (rows
  // of 128 bytes of K per stage, for A and B).
  constexpr int64_t kSharedPerSm = 227 * 1024;
  const int64_t ring =
      int64_t(config.stages) * (config.tile_m + config.tile_n) * 128;
  const int64_t resident = std::max<int64_t>(1, kSharedPerSm / (ring + 1024));
  const int64_t sms = device.sm_count > 0 ? device.sm_count : 1;
  const int64_t tiles = Tiles(m, n, config.tile_m, config.tile_n);
  const int64_t bytes = config.dtype == DType::kBF16 ? 2 : 1;
  const int64_t iterations = (k * bytes + 127) / 128;
  const int64_t parts =
      std::min({resident * sms / tiles, iterations / kGemmMinSplitIterations,
                int64_t{kGemmMaxSplitParts}});
  return int(std::max<int64_t>(parts, 1));
}

const GemmConfig &ChooseGemmConfig(DType dtype, int64_t m, int64_t n, int64_t k,
                                   const GemmDevice &device) {
  // Only sm_90a's wgmma instances have been measured against each other;
  // elsewhere the 128 x 128 tile (the larger ones spill on sm_80).
  //
  // sm_100a (never run on hardware, so by construction, not measurement):
  // CTA pairs of 256 x 256 when they give every SM a program; a pair
  // reads each B tile once for 256 rows and holds half of it per SM. With
  // an even number of pair rows (no cluster of four left half idle), or
  // eight or more (at most one idle pair in eight), two pairs share each
  // B tile through multicast, halving B's reads from L2.
  if (device.target == "sm_100a" && m > 128) {
    const int64_t sms = device.sm_count > 0 ? device.sm_count : 1;
    if (2 * Tiles(m, n, 256, 256) >= sms) {
      const int64_t pair_rows = (m + 255) / 256;
      const bool share = pair_rows % 2 == 0 || pair_rows >= 8;
      return Find(dtype, 128, 256, 0, false, false, true, share ? 2 : 1);
    }
  }
  // Otherwise on sm_100a the 128 x 128 tile fed by a producer warp, which
  // keeps the copies ahead while thread 0 issues the dots (without one,
  // that thread waits for each stage to be released before refilling it).
  if (device.target == "sm_100a")
    return Find(dtype, 128, 128, 0, true);
  if (device.target != "sm_90a")
    return Find(dtype, 128, 128);
  const int64_t sms = device.sm_count > 0 ? device.sm_count : 1;
  // Measured on the H200 (bench/gemm_instances.py, bench/RESULTS.md).
  // Up to 128 rows: one warpgroup on 64-row tiles, the widest that still
  // gives every SM a program (narrower tiles split the weight over more
  // SMs, which is what bounds a skinny product). With fewer 64 x 64
  // programs than SMs each SM runs one, and an 8-deep ring keeps more of
  // the weight in flight (M = 32, N = 8192 fp8: 37.7 -> 33.6 us); with
  // more, the 5-deep ring lets two share an SM.
  //
  // Every tile shape but 64 x 64 takes its warp-specialized instance (a
  // producer warp feeds the ring), for both types: with the epilogue
  // stored through shared memory and TMA they measured faster everywhere
  // (gemm_instances.py, 2026-12-03): fp8 M = 1, 16, 32 of 4096-8192
  // columns on 64 x 128 17.1, 17.1, 35.1 us against 18.6, 18.8, 38.2;
  // 256 x 8192 x 1024 on 128 x 128 11.6 against 13.6; bf16 1000^3 on
  // 64 x 128 11.2 against 12.7, 512 x 4096 x 4096 on 128 x 128 46.6
  // against 48.4. Skinny products with fewer 64 x 64 tiles than SMs but
  // more than half as many take the 8-deep 64 x 64 (fp8 M = 32, 64 of
  // 8192 x 8192: 31.8, 32.3 us against 35.1, 35.4 for the warp-specialized
  // 64 x 128; bf16 M = 32: 55.7 against 58.0); with fewer, fp8 the
  // warp-specialized 64 x 128 (M = 1, 16 of 4096 x 4096: 17.1 against
  // 17.9).
  const bool fp8 = dtype == DType::kF8E4M3;
  if (m <= 128) {
    // Two rows of 64-row tiles that fill the SMs are more than one wave of
    // them: fp8 takes one row of 128 x 128 instead (128 x 14336 x 4096 on
    // an H100: 33.6 us against 51.5, cuBLAS 33.7; bench/RESULTS.md,
    // 2026-12-07, evening). bf16 is not measured there.
    if (Tiles(m, n, 64, 128) >= sms)
      return Find(dtype, fp8 && m > 64 ? 128 : 64, 128, 0, true);
    if (Tiles(m, n, 64, 64) >= sms)
      return Find(dtype, 64, 64, 5);
    // Fewer 64 x 64 tiles than SMs: the K loop split over programs
    // (bench/gemm_split.py, 2026-12-05), when it is long enough for two
    // or more parts of 8 iterations: fp8 64 x 64 tiles, bf16 64 x 128 fed
    // by a producer warp (32 x 8192 x 8192: fp8 30.0 us in 2 parts
    // against 32.2 for the 8-deep 64 x 64, bf16 47.7 against 57.4; 32 x
    // 4096 x 4096: fp8 14.9 in 4 parts against 17.2 for the
    // warp-specialized 64 x 128, bf16 20.9 against 29.3; 32 x 1024 x
    // 8192: fp8 13.9 in 8 parts against 27.9, bf16 18.2 against 50.7).
    // More parts than that lose: each adds a partial's round trip and a
    // pipeline ramp (fp8 32 x 1024 x 8192 in 16 parts: 17.2).
    const GemmConfig &split =
        fp8 ? Find(dtype, 64, 64, 5, false, false, false, 1, /*split_k=*/true)
            : Find(dtype, 64, 128, 5, true, false, false, 1, /*split_k=*/true);
    if (GemmSplitParts(split, m, n, k, device) > 1)
      return split;
    if (fp8 && Tiles(m, n, 64, 64) * 2 <= sms)
      return Find(dtype, 64, 128, 0, true);
    return Find(dtype, 64, 64, 8);
  }
  // Larger products: 128 x 256 (fewer shared-memory reads per
  // multiply-add) while it fills three quarters of the SMs or more (2048 x
  // 2048: 128 programs, 1.6x faster than 128 x 128); then 128 x 128 while
  // it gives at least half the SMs a program; 64-row tiles below that.
  // With more 128 x 256 tiles than SMs, the persistent instance (one wave
  // walking the tiles, its producer warp loading the next tile while the
  // consumers store the last): fp8 4096 x 14336 x 4096 378 against 398 us
  // for the plain producer-warp instance, 8192^3 825 against 863, 4096^3
  // 109.6 against 109.3; bf16 669 against 743, 1544 against 1658, 197.2
  // against 193.4. One wave of 128 x 256: fp8 2048^2 x 8192 50.8 against
  // 57.0 without a producer warp, bf16 94.5 against 106.7.
  //
  // fp8 also takes one wave of 128 x 256 where 128 x 128 tiles would need
  // a second, mostly idle one (1024 x 2880 x 2880 on an H100: 96 programs
  // of 128 x 256 22.5 us, 184 of 128 x 128 36.4, cuBLAS 24.7;
  // bench/RESULTS.md, 2026-12-07, evening); bf16 is not measured there.
  //
  // fp8 products of 512 rows or more and long K whose 128 x 256 tiles
  // fill between 3/8 and 1/2 of the SMs take that tile with the K loop
  // split in two, the parts GemmSplitParts gives it there (512 x 4096 x
  // 14336 on an H100: 64.8 us against 76.8 for one wave of 128 x 128,
  // cuBLAS 52.2; 2048 x 1024 x 8192: 44.9 against 46.7; bench/RESULTS.md,
  // 2026-12-07, night). With K of 4096 or less the partial sums' round
  // trip costs more than the second part saves (512 x 4096 x 4096: 35.7
  // against 26.9).
  const int64_t wide = Tiles(m, n, 128, 256);
  if (fp8 && m >= 512 && wide * 2 <= sms && wide * 8 >= sms * 3 &&
      k >= kGemmWideSplitMinK)
    return Find(dtype, 128, 256, 4, true, false, false, 1, /*split_k=*/true);
  if (wide > sms)
    return Find(dtype, 128, 256, 0, true, true);
  if (wide * 4 >= sms * 3 || (fp8 && Tiles(m, n, 128, 128) > sms))
    return Find(dtype, 128, 256, 0, true);
  if (Tiles(m, n, 128, 128) * 2 >= sms)
    return Find(dtype, 128, 128, 0, true);
  // Where 64 x 128 tiles leave over half the SMs idle, fp8 splits their
  // K loop over GemmSplitParts programs (on an H100, against the unsplit
  // 64 x 128 and cuBLAS: 256 x 1024 x 8192 in 4 parts 17.0 us against 28.0
  // and 25.4, 512 x 1024 x 8192 in 2 parts 21.4 against 28.3 and 25.4;
  // the split 128 x 128 took 20.8-21.2 and 23.8; bench/RESULTS.md,
  // 2026-12-07, night).
  if (fp8 && Tiles(m, n, 64, 128) * 2 < sms) {
    const GemmConfig &split =
        Find(dtype, 64, 128, 5, true, false, false, 1, /*split_k=*/true);
    if (GemmSplitParts(split, m, n, k, device) > 1)
      return split;
  }
  return Find(dtype, 64, 128, 0, true);
}

} // namespace tilec
