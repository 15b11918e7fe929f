// Which instance of the GEMM template (kernels_dsl/gemm.mlir) runs a given
// problem: the one table of configurations and the rule that picks from
// it. Pure functions of the shape and the GPU, testable without one.
#ifndef TILEC_RUNTIME_GEMM_CONFIGS_H_
#define TILEC_RUNTIME_GEMM_CONFIGS_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/validate.h"

namespace tilec {

// One instance of the template: its kernel in the embedded "gemm" module,
// the input dtype, the output tile one program computes, and the depth of
// its operand ring.
struct GemmConfig {
  absl::string_view kernel;
  DType dtype;
  int tile_m;
  int tile_n;
  int stages;
  // A producer warp of its own feeds the TMA ring (sm_90a).
  bool warp_specialized = false;
  // One wave of programs walks the tiles (tile-persistent; launched with
  // Kernel::LaunchTiles).
  bool persistent = false;
  // Programs run in clusters of two along M, one tcgen05 instruction of
  // 256 rows per pair (tile.cta_pair, sm_100a only): the grid's M
  // dimension is even (GemmGrid), and the operands must be 16-byte aligned
  // rows (TMA only).
  bool cta_pair = false;
  // Programs (or CTA pairs) side by side along M that load each tile of w
  // once between them and multicast it (tile.multicast; CTA pairs on
  // sm_100a, warp-specialized wgmma rings on sm_90a): a cluster holds
  // cta_pair ? 2 * multicast : multicast programs along M.
  int multicast = 1;
  // The one target the instance is built for; empty: every target.
  absl::string_view only_target = {};
  // The K loop is split over grid z (tile-split-k): GemmSplitParts
  // programs per output tile add their partial sums through scratch.
  bool split_k = false;
};

// Whether `config`'s kernel exists in the module of `target`.
bool GemmConfigRunsOn(const GemmConfig &config, absl::string_view target);

// The programs of one of `config`'s clusters, which lie along M.
int GemmClusterRows(const GemmConfig &config);

// The launch grid (tiles along N, tiles along M) of `config` for an M x N
// output: the row tiles round up to whole clusters (CTA pairs, multicast
// groups; the extra programs read zeros and store nothing).
std::array<uint32_t, 2> GemmGrid(const GemmConfig &config, int64_t m,
                                 int64_t n);

// Every instance of the table; GemmConfigRunsOn says which targets' modules
// hold each (all of them but the sm_100a-only CTA pairs).
absl::Span<const GemmConfig> GemmConfigs();

// The GPU a configuration is chosen for.
struct GemmDevice {
  std::string target; // "sm_80", "sm_90a", "sm_100a"
  int sm_count = 0;
};

// Programs along grid z that share each output tile's K loop: 1 unless
// `config` is split (GemmConfig::split_k); then as many as the GPU holds
// at once with every program at least kGemmMinSplitIterations iterations
// of the loop (BK = 128 bytes of K), at most kGemmMaxSplitParts.
inline constexpr int kGemmMinSplitIterations = 8;
inline constexpr int kGemmMaxSplitParts = 8;
// The K (in elements) from which fp8 products split the K loop of 128 x
// 256 tiles in two (ChooseGemmConfig).
inline constexpr int64_t kGemmWideSplitMinK = 8192;
int GemmSplitParts(const GemmConfig &config, int64_t m, int64_t n, int64_t k,
                   const GemmDevice &device);

// The configuration for y (M, N) = x (M, K) @ w (N, K)^T of `dtype` on
// `device` (see the rule in gemm_configs.cc and docs/runtime.md).
const GemmConfig &ChooseGemmConfig(DType dtype, int64_t m, int64_t n, int64_t k,
                                   const GemmDevice &device);

} // namespace tilec

#endif // TILEC_RUNTIME_GEMM_CONFIGS_H_
