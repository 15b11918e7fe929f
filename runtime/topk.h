// Top-k along the rows of a row-major fp32 matrix, on the embedded "topk"
// kernel: torch.topk(x, k, dim=1, largest=True, sorted=True) semantics
// (values descending, NaN above +inf, int64 column indices, unique per row).
#ifndef TILEC_RUNTIME_TOPK_H_
#define TILEC_RUNTIME_TOPK_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/validate.h"

namespace tilec {

// How TopK computes a shape. The choice depends on (batch, n, k) only and
// is made in ChooseTopKStrategy (docs/runtime.md lists the thresholds):
// - kTop1: k = 1 and n <= 4096: one max reduction per row (top1_f32; for
//   n <= 1024 topk_rows_max_w64 / w256 / w1024, R = 64 / 16 / 4 rows per
//   program).
// - kRowsSelect: n <= 1024, 2 <= k <= 8: k rounds of a row maximum
//   (topk_rows_select_*, the instances of kRowsFew or kRows by batch).
// - kRowsFew: n <= 1024, k > 8, fewer rows than 256 programs of kRows
//   take: each row sorted whole, one per program spread over its warps
//   (topk_rows_w256_r1 / w1024_r1; eight per program for n <= 64,
//   topk_rows_w64_r8).
// - kRows: n <= 1024, k > 8, more rows (256 programs of R = 64 / 16 / 8):
//   R whole rows of W >= n columns per program, each sorted within a warp
//   (topk_rows_w64 / w256, R = 64 / 16); n > 256 keeps topk_rows_w1024_r1.
// - kSplit: k <= 64 and ceil(n / 4096) * k <= 4096: each row split into
//   parts of 4096 columns, one program each, the parts' candidates merged
//   by the last to finish or inside a cluster (topk_split_f32).
// - kRow: k <= 2048: one program per row, radix select, compaction into
//   64, 256 or 2048 register slots, bitonic sort (topk_f32).
// - kLongRows: n >= 32000 and batch <= 256 (beyond kTop1 and kSplit), any
//   k: the radix select split over programs (topk_hist_f32 per digit, the
//   rows' histograms merged by global atomics), the survivors compacted
//   into scratch (topk_collect_f32), sorted as for kLargeK; rows whose
//   guessed threshold holds (LongRowsGuess) read once instead. Also up to
//   2048 rows with k <= 2048 where that guess applies.
// - kLargeK: any larger k: radix select and compaction into scratch
//   (topk_select_f32), sorted chunks of 2048 (topk_sort_chunks), then
//   merges of doubling runs (topk_merge_f32), several launches.
enum class TopKStrategy {
  kRows,
  kRowsFew,
  kRowsSelect,
  kTop1,
  kSplit,
  kLongRows,
  kRow,
  kLargeK
};

TopKStrategy ChooseTopKStrategy(int64_t batch, int64_t n, int64_t k);
const char *TopKStrategyName(TopKStrategy strategy);

// The instance of the split kernel for `batch` rows of `n` columns on a
// device of `sm_count` SMs: topk_split_f32 (168 registers, one program per
// SM) while the grid (batch x parts of 4096 columns) has at most one
// program per SM, topk_split_f32_r128 (two per SM) beyond.
const char *TopKSplitKernelName(int64_t batch, int64_t n, int sm_count);

// Candidate slots per row of the long-rows path (topk_gather_f32): room for
// 2k and at least 32768, or 0 (no gathering) where that reaches n.
int LongRowsCandidates(int64_t n, int64_t k);

// The guessed start of the long-rows path (topk_guess_f32,
// topk_guess_gather_f32): the threshold is the `rank`-th largest key of a
// sample of `blocks` runs of 256 columns, `step` columns apart, aiming at
// 4k candidates (at most half the slots) with a rank of at least 32 where
// 128 runs allow it; `blocks` is 0 where the path is not taken (inputs
// under 2^22 elements, k above a quarter of the slots, a rank under 16).
// `direct` (from 128 rows, k <= 2048): topk_guess_select_f32 writes the
// rows whose guess held and topk_f32_unguessed computes the others, in
// place of the radix passes, the collection and the sort. Direct plans aim
// instead, where a sample of at most 128 runs allows, at a count that lies
// five standard deviations above k and a few below 2048 (the select then
// sorts the candidates as they are), the aim needing the fewest runs.
struct LongRowsGuessPlan {
  int blocks = 0, step = 0, rank = 0;
  bool direct = false;
};
LongRowsGuessPlan LongRowsGuess(int64_t batch, int64_t n, int64_t k);

// Whether a shape the split path takes (k <= 64) goes to the long-rows
// path's direct guessed start instead: rows of at least 65536 columns,
// inputs of at least 2^24 elements (for k < 8: rows of 131072 and 2^25
// elements), and a direct plan (from 128 rows). ChooseTopKStrategy's rule.
bool DirectGuessBeatsSplit(int64_t batch, int64_t n, int64_t k);

// Checks the arguments without touching the device: x is a non-null,
// row-major (batch, n) f32 tensor with 1 <= batch, n < 2^31 (the kernels'
// views take 32-bit extents; their addresses are 64-bit, so batch * n may
// exceed 2^31); 1 <= k <= n; values is (batch, k) f32 and indices (batch, k)
// i64, both row-major; no two of them overlap. Errors name the argument.
absl::Status ValidateTopK(const TensorRef &x, int64_t k,
                          const TensorRef &values, const TensorRef &indices);

// ValidateTopK, then the tensors must be device memory of one device (or
// managed memory), each inside one allocation, and `stream` a stream of
// that device's primary context (null: its legacy default stream); then
// one launch there, on `stream`, the caller's context current again
// afterwards. The module is loaded once per device. Nothing is launched
// when a check fails, so a bad argument leaves the context usable.
//
// Rows split across programs, and the large-k path (several launches),
// hand over through scratch ordered on `stream` (runtime/scratch.h): calls may
// overlap on different streams, and a call may be captured into a CUDA graph
// once a call outside capture has loaded the module on that device.
absl::Status TopK(const TensorRef &x, int64_t k, const TensorRef &values,
                  const TensorRef &indices, CUstream stream = nullptr);

// The same for contiguous tensors given as pointers: x is (batch, n)
// floats, values (batch, k) floats, indices (batch, k) int64. Sizes are
// checked first and named ('batch', 'n', 'k'); batch and n are each in
// [1, 2^31 - 1].
absl::Status ValidateTopK(const void *x, int64_t batch, int64_t n, int64_t k,
                          const void *values, const void *indices);
absl::Status TopK(const float *x, int64_t batch, int64_t n, int64_t k,
                  float *values, int64_t *indices, CUstream stream = nullptr);

} // namespace tilec

#endif // TILEC_RUNTIME_TOPK_H_
