// Paged-attention decode on the embedded "paged_decode" kernels: one query
// token per sequence attending over the sequence's cached keys and values,
// which live in pages of 16 tokens named by a page table (KERNELS.md §2).
#ifndef TILEC_RUNTIME_PAGED_DECODE_H_
#define TILEC_RUNTIME_PAGED_DECODE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/validate.h"

namespace tilec {

// Tokens per page of the cache.
inline constexpr int kPagedDecodePageSize = 16;

// Checks the arguments without touching the device: query (B, H, D) bf16
// with D 64 or 128; kv_cache (pages, 16, Hkv, 2·D) bf16, the last
// dimension K then V; block_table (B, W) int32; seq_lens (B,) int32; out
// (B, H, D) bf16 overlapping no input; all row-major contiguous; H a
// multiple of Hkv; every tensor under 2^31 elements. Errors name the
// argument (Unimplemented for head dims the kernels lack).
absl::Status ValidatePagedDecode(const TensorRef &query,
                                 const TensorRef &kv_cache,
                                 const TensorRef &block_table,
                                 const TensorRef &seq_lens,
                                 const TensorRef &out);

// out[b, h] = softmax(query[b, h] · Kᵀ / √D) · V over the first
// seq_lens[b] tokens of sequence b, token t at row t % 16 of page
// block_table[b, t / 16], query head h reading kv head h / (H / Hkv); fp32
// softmax. seq_lens are read by the kernel (no host synchronization):
// lengths may differ per sequence and be shorter than the table; a length
// of 0 (or below) gives zeros, and one beyond 16·W counts as 16·W. Page
// numbers outside the cache read zeros.
//
// ValidatePagedDecode, then the device checks of the other entry points
// (runtime/topk.h), then one launch on `stream`, whose programs each take
// 16 query heads of one kv head over a span of the sequence (the number of
// spans chosen from B, Hkv and W so the grid fills the GPU); the last span
// of each group of heads to finish merges the spans' partial results. Those
// and the groups' tickets live in scratch ordered on `stream`
// (runtime/scratch.h): after a first call of a shape on a stream nothing is
// allocated, and calls can be captured into a CUDA graph and replayed with
// new contents of every input.
absl::Status PagedDecode(const TensorRef &query, const TensorRef &kv_cache,
                         const TensorRef &block_table,
                         const TensorRef &seq_lens, const TensorRef &out,
                         CUstream stream = nullptr);

// The kernel of the "paged_decode" module one call launches and its pages
// per span, for `batch` sequences of `heads` query heads over `kv_heads` kv
// heads (a divisor of `heads`) and a table of `width` pages. A program
// takes a group of up to 16 query heads of one kv head (head_groups per kv
// head) over one span, a multiple of 4 pages (the kernels' 64-token step).
//  - D = 128, at most 128 programs unsplit: "paged_decode_d128_w8" (8
//    warps, three stages), about 128 programs in spans of at least 64
//    pages when those spans give it at least 64 programs, else over the
//    spans the 4-warp kernel would take (below);
//  - otherwise "paged_decode_d128" or "paged_decode_d64" (4 warps), about
//    256 programs in spans of 16 to 64 pages at D = 128 (32 to 128 at 64)
//    and at most 8 spans (16 at 64) unless that passes the longest span,
//    or one span of the whole table when the grid is full without splits.
// Exposed for tests.
struct PagedDecodePlan {
  const char *kernel;
  int pages_per_split;
  int head_groups;
};
PagedDecodePlan PlanPagedDecode(int64_t batch, int64_t heads, int64_t kv_heads,
                                int64_t width, int64_t head_dim = 128);

} // namespace tilec

#endif // TILEC_RUNTIME_PAGED_DECODE_H_
