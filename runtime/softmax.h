// Row-wise softmax of a row-major matrix on the embedded "softmax" kernels
// (kernels_dsl/softmax.mlir): y = softmax(x, dim=1) with fp32 math, for f32
// or bf16 storage.
#ifndef TILEC_RUNTIME_SOFTMAX_H_
#define TILEC_RUNTIME_SOFTMAX_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"

namespace tilec {

enum class SoftmaxType { kF32, kBF16 };

// Rows one program of the kernel takes for rows of `cols` elements of
// `type`; the kernel makes the same choice (see kernels_dsl/softmax.mlir).
int SoftmaxRowsPerProgram(int cols, SoftmaxType type);

// Checks the arguments without touching the device; errors name the
// offending argument.
absl::Status ValidateSoftmax(const void *x, const void *y, int rows, int cols);

// x, y: device pointers to (rows, cols) elements of `type`; y may equal x.
// One launch on `stream` (null: the legacy default stream).
absl::Status Softmax(const void *x, void *y, int rows, int cols,
                     SoftmaxType type, CUstream stream = nullptr);

} // namespace tilec

#endif // TILEC_RUNTIME_SOFTMAX_H_
