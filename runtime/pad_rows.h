// Copies of byte matrices into rows padded with zeros to a multiple of 16
// bytes, for kernels whose operands must have 16-byte aligned rows (the
// GEMM's TMA loads): kernels_dsl/pad_rows.mlir, @pad_rows_pair.
#ifndef TILEC_RUNTIME_PAD_ROWS_H_
#define TILEC_RUNTIME_PAD_ROWS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/kernel.h"

namespace tilec {

// `rows` rows of `cols` bytes, rows `src_stride` bytes apart from `src`
// (any alignment), copied to `dst` (16-byte aligned) as rows of `padded`
// bytes, zeros past `cols`.
struct PaddedRows {
  const void *src = nullptr;
  cu::CUdeviceptr dst = 0;
  int rows = 0;
};

// Rows padded to a multiple of 16 bytes.
inline int64_t PaddedRowBytes(int64_t cols) { return (cols + 15) / 16 * 16; }

// Both `a` and `b` (rows of the same `cols`, `src_stride` and `padded`
// bytes) in one launch of `pad` (the pad_rows module's `pad_rows_pair`) on
// `stream`. Arguments are the caller's to check: every source byte and
// destination row must be device memory.
absl::Status PadRowsPair(const Kernel &pad, const PaddedRows &a,
                         const PaddedRows &b, int cols, int src_stride,
                         int padded, CUstream stream);

} // namespace tilec

#endif // TILEC_RUNTIME_PAD_ROWS_H_
