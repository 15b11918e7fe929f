/* C API of the tilec runtime, for FFI (Python ctypes and others).
 *
 * Every function returns 0 on success or an absl::StatusCode value on error;
 * tilec_last_error() then describes the failure. Handles are opaque. Kernel
 * handles belong to their module and die with it. */
#ifndef TILEC_RUNTIME_TILEC_C_API_H_
#define TILEC_RUNTIME_TILEC_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (the absl::StatusCode values the runtime produces). */
#define TILEC_OK 0
#define TILEC_ERROR_INVALID_ARGUMENT 3
#define TILEC_ERROR_NOT_FOUND 5
#define TILEC_ERROR_RESOURCE_EXHAUSTED 8
#define TILEC_ERROR_FAILED_PRECONDITION 9
#define TILEC_ERROR_UNIMPLEMENTED 12
#define TILEC_ERROR_INTERNAL 13

/* tilec_arg.kind values; they match the metadata's parameter kinds. */
#define TILEC_ARG_PTR 0 /* v.ptr: device address */
#define TILEC_ARG_I32 1 /* v.i32 */
#define TILEC_ARG_I64 2 /* v.i64 */
#define TILEC_ARG_F32 3 /* v.f32 */
#define TILEC_ARG_F64 4 /* v.f64 */
#define TILEC_ARG_TENSORMAP                                                    \
  5 /* v.ptr: host address of a 128-byte CUtensorMap */

typedef struct tilec_module tilec_module;
typedef struct tilec_kernel tilec_kernel;

typedef struct {
  int kind;
  union {
    void *ptr;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
  } v;
} tilec_arg;

/* Message of the most recent call on this thread; "" after a success. */
const char *tilec_last_error(void);

/* *out = 1 when the CUDA driver loads and reports a device, else 0. */
int tilec_device_available(int *out);

/* The PTX target for the current device ("sm_90a", ...); static storage. */
int tilec_default_target(const char **out);

/* Loads PTX plus its metadata JSON (docs/metadata.md). */
int tilec_module_load(const char *ptx, const char *metadata_json,
                      tilec_module **out);

/* Loads a module embedded in the library; target NULL: the device's. */
int tilec_module_load_embedded(const char *name, const char *target,
                               tilec_module **out);

/* Number of embedded modules, and the name and target of entry `index`. */
int tilec_embedded_count(size_t *out);
int tilec_embedded_entry(size_t index, const char **name, const char **target);

/* Unloads the module and invalidates its kernel handles. */
int tilec_module_unload(tilec_module *module);

int tilec_module_get_kernel(tilec_module *module, const char *name,
                            tilec_kernel **out);

/* The kernel's metadata record as JSON text; valid while the module is. */
int tilec_kernel_info_json(tilec_kernel *kernel, const char **out);

/* Launches with the metadata's block size, shared memory and cluster shape.
 * `args` may be NULL when nargs is 0; `stream` is a CUstream (NULL: the
 * legacy default stream). */
int tilec_kernel_launch(tilec_kernel *kernel, const unsigned grid[3],
                        const tilec_arg *args, size_t nargs, void *stream);

/* Launches in thread-block clusters of shape `cluster` (1 to 8 programs,
 * dividing the grid), for kernels whose metadata leaves the shape open. */
int tilec_kernel_launch_clusters(tilec_kernel *kernel, const unsigned grid[3],
                                 const unsigned cluster[3],
                                 const tilec_arg *args, size_t nargs,
                                 void *stream);

/* Runs the work of a grid of `tiles` (one program per tile, as the kernel's
 * source is written): a persistent kernel (metadata "persistent") gets the
 * tile counts appended to `args` and runs on at most as many programs as
 * the GPU holds at once; any other kernel is launched on `tiles`. */
int tilec_kernel_launch_tiles(tilec_kernel *kernel, const unsigned tiles[3],
                              const tilec_arg *args, size_t nargs,
                              void *stream);

/* *out = how many clusters of shape `cluster` the device runs at once. */
int tilec_kernel_max_active_clusters(tilec_kernel *kernel,
                                     const unsigned cluster[3], int *out);

/* Element types of tilec_tensor (and tilec_softmax's dtype). */
#define TILEC_DTYPE_F32 0
#define TILEC_DTYPE_BF16 1
#define TILEC_DTYPE_F16 2
#define TILEC_DTYPE_F64 3
#define TILEC_DTYPE_I8 4
#define TILEC_DTYPE_I16 5
#define TILEC_DTYPE_I32 6
#define TILEC_DTYPE_I64 7
#define TILEC_DTYPE_U8 8
#define TILEC_DTYPE_BOOL 9
#define TILEC_DTYPE_F8E4M3 10

/* The most dimensions a tilec_tensor may have. */
#define TILEC_MAX_DIMS 8

/* A strided tensor, as DLPack describes one: `data` is the address of
 * element (0, ..., 0); `shape` and `strides` have `ndim` entries; strides
 * are in elements, not bytes, and NULL means row-major contiguous. The
 * arrays are read during the call only. */
typedef struct {
  void *data;
  int32_t dtype; /* TILEC_DTYPE_* */
  int32_t ndim;  /* 0 to TILEC_MAX_DIMS */
  const int64_t *shape;
  const int64_t *strides;
} tilec_tensor;

/* Entry points over tensors check every argument before launching: dtype,
 * shape, strides (row-major contiguous), alignment, overlap, that all
 * tensors are device memory of one device (or managed memory), each inside
 * one allocation, and that `stream` belongs to that device's primary
 * context (NULL: its legacy default stream). They launch on that device,
 * whichever context is current, and leave the current context as it was.
 * A failure is TILEC_ERROR_INVALID_ARGUMENT (UNIMPLEMENTED for limits of
 * the kernels) with a message naming the argument, and leaves the CUDA
 * context usable. */

/* y = softmax(x, dim=1) of a (rows, cols) f32 or bf16 tensor, fp32 math; y
 * has x's dtype and shape and is x itself or disjoint from it. */
int tilec_softmax_tensor(const tilec_tensor *x, const tilec_tensor *y,
                         void *stream);

/* Row-wise top-k of a (batch, n) f32 tensor into (batch, k) f32 values
 * (descending) and (batch, k) i64 indices, as torch.topk(largest, sorted). */
int tilec_topk_tensor(const tilec_tensor *x, int64_t k,
                      const tilec_tensor *values, const tilec_tensor *indices,
                      void *stream);

/* y = bf16(float(x @ w^T) * scale): x (M, K) and w (N, K) both bf16 or both
 * fp8 e4m3 (TILEC_DTYPE_F8E4M3), scale (N,) f32 (one factor per column of
 * y), y (M, N) bf16; fp32 accumulation. y overlaps none of the inputs. */
int tilec_gemm_tensor(const tilec_tensor *x, const tilec_tensor *w,
                      const tilec_tensor *scale, const tilec_tensor *y,
                      void *stream);

/* Paged-attention decode (runtime/paged_decode.h): query (B, H, D) bf16
 * with D 64 or 128, kv_cache (pages, 16, Hkv, 2*D) bf16 packed [K | V],
 * block_table (B, W) int32, seq_lens (B,) int32 (read on the device), out
 * (B, H, D) bf16 = softmax(q K^T / sqrt(D)) V over each sequence's first
 * seq_lens[b] tokens; H a multiple of Hkv. */
int tilec_paged_decode_tensor(const tilec_tensor *query,
                              const tilec_tensor *kv_cache,
                              const tilec_tensor *block_table,
                              const tilec_tensor *seq_lens,
                              const tilec_tensor *out, void *stream);

/* KDA chunked forward (runtime/kda.h): q, k (B, T, H, K) bf16, v (B, T,
 * H, V) bf16, g (B, T, H, K) f32 raw log-decay, beta (B, T, H) bf16, o
 * (B, T, H, V) bf16 written; K = V, 64 or 128. initial_state and
 * final_state (N, H, K, V) f32 and cu_seqlens (N + 1,) int32 (sequences
 * packed along T, B = 1; read on the device) may each be NULL (absent);
 * without cu_seqlens N = B. scale multiplies q (usually K^-0.5). schedule:
 * 0, two launches (chunks in parallel, then the chain over blocks of state
 * columns); 1, one kernel per (sequence, head); 2, 0 with the chain's
 * products on bf16 operands (runtime/kda.h, KdaSchedule). segment_chunks:
 * 0 to choose the chain's segments from the shape, n >= 1 to force
 * segments of n chunks (KdaOptions::segment_chunks). */
int tilec_kda_forward_tensor(const tilec_tensor *q, const tilec_tensor *k,
                             const tilec_tensor *v, const tilec_tensor *g,
                             const tilec_tensor *beta, float scale,
                             const tilec_tensor *o,
                             const tilec_tensor *initial_state,
                             const tilec_tensor *final_state,
                             const tilec_tensor *cu_seqlens, int schedule,
                             int64_t segment_chunks, void *stream);

/* The same over contiguous matrices given as pointers, with the same
 * checks. dtype is TILEC_DTYPE_F32 or TILEC_DTYPE_BF16; y may equal x.
 * Sizes are 64-bit; each of rows, cols, batch and n must be at most
 * 2^31 - 1 (their products may exceed it). */
int tilec_softmax(const void *x, void *y, int64_t rows, int64_t cols, int dtype,
                  void *stream);

/* x: (batch, n) f32; values: (batch, k) f32; indices: (batch, k) int64. */
int tilec_topk(const void *x, int64_t batch, int64_t n, int64_t k, void *values,
               void *indices, void *stream);

/* The name of the path tilec_topk takes for a shape ("rows", "rows_few",
 * "rows_select", "top1", "split", "long_rows", "row", "large_k"; see
 * docs/runtime.md), without touching the device. A static string. */
const char *tilec_topk_strategy(int64_t batch, int64_t n, int64_t k);

/* The kernel tilec_paged_decode_tensor launches for `batch` sequences of
 * `heads` query heads over `kv_heads` kv heads of head dim `head_dim` and a
 * table of `width` pages, and (through `pages_per_split` when not NULL)
 * the pages per span of a sequence it gives each program; see
 * docs/runtime.md. A static string, or NULL for dimensions the decode does
 * not take. Touches no device. */
const char *tilec_paged_decode_plan(int64_t batch, int64_t heads,
                                    int64_t kv_heads, int64_t head_dim,
                                    int64_t width, int *pages_per_split);

/* Waits for all work in the current context. */
int tilec_synchronize(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEC_RUNTIME_TILEC_C_API_H_ */
