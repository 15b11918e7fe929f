// KDA (Kimi Delta Attention) chunked forward on the embedded "kda" kernels
// (KERNELS.md §4, kernels_dsl/kda.mlir).
#ifndef TILEC_RUNTIME_KDA_H_
#define TILEC_RUNTIME_KDA_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/validate.h"

namespace tilec {

// Tokens per chunk of the kernels.
inline constexpr int64_t kKdaChunk = 64;

// Where the two-phase schedule's workspace keeps what, in bytes from its
// start: one record of 256·D + 64² elements per (chunk slot, head), f32,
// or bf16 for the bf16 chain (`record_element_bytes` 4 or 2); then
// exp(G_last), D f32 per (chunk slot, head); then, when the chain is split
// into segments of `segment_chunks` chunks (fewer than ceil(tokens / 64)),
// 3·D² f32 per (segment slot, head) for the segments' maps and entry
// states. `packed_sequences` is N with cu_seqlens, -1 without. Exposed for
// tests.
struct KdaWorkspaceLayout {
  int64_t decays = 0;   // offset of the exp(G_last) rows
  int64_t segments = 0; // offset of the segment slots (= bytes if none)
  int64_t bytes = 0;    // the whole workspace
};
KdaWorkspaceLayout GetKdaWorkspaceLayout(int64_t batch, int64_t tokens,
                                         int64_t heads, int64_t dim,
                                         int64_t packed_sequences,
                                         int64_t segment_chunks,
                                         int64_t record_element_bytes);

// Chunks per segment of the chain's segmented scan, for `sequences`
// sequences of `tokens` tokens (B·T without cu_seqlens, or T packed with
// them: `packed` true), `heads` heads of dimension `dim`, on a GPU of
// `sms` SMs. The chain has sequences·heads·D/BV programs; when they leave
// SMs idle, each sequence is cut into segments so that about `sms`
// programs run, but never into segments shorter than
// kKdaMinSegmentChunks. A result of ceil(T / 64) or more means one
// segment (no scan).
int64_t KdaSegmentChunks(int64_t sequences, int64_t tokens, int64_t heads,
                         int64_t dim, bool packed, int sms);
inline constexpr int64_t kKdaMinSegmentChunks = 4;

// Columns of the state one kda_chain program carries (the instances' BV
// in kernels_dsl/kda.mlir): D / KdaChainColumns(D) programs per (sequence,
// head).
constexpr int64_t KdaChainColumns(int64_t dim) { return dim == 64 ? 16 : 32; }

// How KdaForward runs (kernels_dsl/kda.mlir, docs/kda.md).
enum class KdaSchedule : int {
  // kda_prep: one program per (chunk, sequence, head) computes everything
  // a chunk needs but the state into a workspace (stream-ordered scratch);
  // kda_chain: programs per (sequence, head, block of state columns) walk
  // the chunks. Sequences too long for the workspace's 32-bit views (or
  // of more than 65535 chunks) run the single kernel.
  kTwoPhase = 0,
  // kda_fwd: one program per (sequence, head) does all of it.
  kSingleKernel = 1,
  // kTwoPhase with kda_prep's records in bf16 and the chain's products on
  // bf16 operands (fp32 accumulation and state): half the record traffic
  // and fewer tensor-core instructions on the serial path, about 0.7% of
  // the largest output in error in the GPU tests (twice kTwoPhase's).
  kTwoPhaseBf16Chain = 2,
};

// The optional arguments of KdaForward; a null pointer means absent.
struct KdaOptions {
  // The bf16 chain: 0.77-0.94 of kTwoPhase's time on every shape measured
  // (bench/RESULTS.md, 2026-12-06), at about twice its error, which is
  // still about 1/250 of KERNELS.md's tolerance.
  KdaSchedule schedule = KdaSchedule::kTwoPhaseBf16Chain;
  // (N, H, K, V) f32: the state each sequence starts from (zero if absent).
  const TensorRef *initial_state = nullptr;
  // (N, H, K, V) f32: written with the state after each sequence's last
  // token.
  const TensorRef *final_state = nullptr;
  // (N + 1,) int32: with it, q, k, v, g, beta and o hold N sequences packed
  // along T (B = 1): sequence n is tokens [cu_seqlens[n], cu_seqlens[n+1]).
  // Its values are read on the device: non-decreasing, from 0 to T
  // (values outside [0, T] are clamped there, so they never address
  // outside the tensors).
  const TensorRef *cu_seqlens = nullptr;
  // Two-phase schedules: chunks per segment of the chain's segmented scan
  // (each sequence's chunks cut into segments whose state maps are
  // composed in parallel, scanned, then replayed from their entry
  // states). 0 chooses by KdaSegmentChunks; n >= 1 forces n (for tests and
  // benchmarks); n >= ceil(T / 64) runs the chain unsegmented.
  int64_t segment_chunks = 0;
};

// Checks the arguments without touching the device: q, k (B, T, H, K)
// bf16; v (B, T, H, V) bf16; g (B, T, H, K) f32; beta (B, T, H) bf16; o
// (B, T, H, V) bf16; K = V, 64 or 128 (Unimplemented otherwise); B, T, H
// >= 1; the options' shapes as above with N = B, or N = len(cu_seqlens) -
// 1 >= 1 and B = 1 with cu_seqlens; all row-major contiguous; o and
// final_state overlap no input nor each other; scale finite. Errors name
// the argument.
absl::Status ValidateKdaForward(const TensorRef &q, const TensorRef &k,
                                const TensorRef &v, const TensorRef &g,
                                const TensorRef &beta, float scale,
                                const TensorRef &o,
                                const KdaOptions &options = {});

// Per sequence and head, token t: S <- diag(exp(g_t))·S; S <- S +
// beta_t·k_t ⊗ (v_t − Sᵀk_t); o_t = scale·Sᵀq_t, with the K×V state S in
// fp32, computed in chunks of 64 tokens (any T). g is the raw per-token
// log-decay (the kernel takes its cumulative sums). ValidateKdaForward,
// the device checks of the other entry points, then the launches of
// `options.schedule` on `stream` (sequences of more than 65535 chunks run
// on the single kernel).
absl::Status KdaForward(const TensorRef &q, const TensorRef &k,
                        const TensorRef &v, const TensorRef &g,
                        const TensorRef &beta, float scale, const TensorRef &o,
                        const KdaOptions &options = {},
                        CUstream stream = nullptr);

} // namespace tilec

#endif // TILEC_RUNTIME_KDA_H_
