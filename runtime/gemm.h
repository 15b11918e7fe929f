// y = bf16(float(x @ w^T) * scale) on the embedded "gemm" kernels
// (kernels_dsl/gemm.mlir): x (M, K) and w (N, K), both row-major and of one
// dtype, bf16 or fp8 e4m3; scale (N,) f32, one factor per output column;
// y (M, N) bf16; fp32 accumulation on the tensor cores.
#ifndef TILEC_RUNTIME_GEMM_H_
#define TILEC_RUNTIME_GEMM_H_

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/validate.h"

namespace tilec {

// Output tile of one program of the gemm kernels (M and N extents).
inline constexpr int kGemmTileM = 128;
inline constexpr int kGemmTileN = 128;

// Checks the arguments without touching the device: x (M, K) bf16 or f8e4m3,
// w (N, K) of x's dtype, scale (N,) f32, y (M, N) bf16, all row-major with
// M, N, K >= 1 and every tensor under 2^31 elements (the kernels' 32-bit
// offsets); y overlaps none of the inputs; M is at most 65535 tiles of
// kGemmTileM rows (Unimplemented beyond). Errors name the argument.
absl::Status ValidateGemm(const TensorRef &x, const TensorRef &w,
                          const TensorRef &scale, const TensorRef &y);

// ValidateGemm, then every tensor must be device (or managed) memory of one
// device inside one allocation, and `stream` a stream of that device's
// primary context (null: its legacy default stream); then one launch there,
// on `stream`, the caller's context current again afterwards. When x's or
// w's rows are not 16-byte aligned (K * element size not a multiple of 16,
// or an unaligned base) both are first copied into zero-padded rows in
// scratch of `stream` by one launch (runtime/pad_rows.h), two launches in
// all. Nothing is cached between calls: every call reads its
// inputs afresh.
absl::Status Gemm(const TensorRef &x, const TensorRef &w,
                  const TensorRef &scale, const TensorRef &y,
                  CUstream stream = nullptr);

} // namespace tilec

#endif // TILEC_RUNTIME_GEMM_H_
