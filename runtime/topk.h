// Top-k along the rows of a row-major fp32 matrix, on the embedded "topk"
// kernel: torch.topk(x, k, dim=1, largest=True, sorted=True) semantics
// (values descending, NaN above +inf, int64 column indices, unique per row).
#ifndef TILEC_RUNTIME_TOPK_H_
#define TILEC_RUNTIME_TOPK_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"

namespace tilec {

// The largest k the kernel sorts (its widest sort tile).
inline constexpr int kTopKMaxK = 2048;

// Checks the arguments without touching the device: non-null pointers,
// batch >= 1, 1 <= k <= n, k <= kTopKMaxK, batch * n and batch * k fit the
// kernel's 32-bit element offsets. Errors name the offending argument.
absl::Status ValidateTopK(const void *x, int batch, int n, int k,
                          const void *values, const void *indices);

// x: device pointer to (batch, n) floats; values: (batch, k) floats;
// indices: (batch, k) int64. One launch on `stream` (null: the legacy
// default stream); the module is loaded once per process.
absl::Status TopK(const float *x, int batch, int n, int k, float *values,
                  int64_t *indices, CUstream stream = nullptr);

} // namespace tilec

#endif // TILEC_RUNTIME_TOPK_H_
