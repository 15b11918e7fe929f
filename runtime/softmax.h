// Row-wise softmax of a row-major matrix on the embedded "softmax" kernels
// (kernels_dsl/softmax.mlir): y = softmax(x, dim=1) with fp32 math, for f32
// or bf16 storage.
#ifndef TILEC_RUNTIME_SOFTMAX_H_
#define TILEC_RUNTIME_SOFTMAX_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/validate.h"

namespace tilec {

enum class SoftmaxType { kF32, kBF16 };

// Rows one program of the kernel takes for rows of `cols` elements of
// `type`; the kernel makes the same choice (see kernels_dsl/softmax.mlir).
int SoftmaxRowsPerProgram(int cols, SoftmaxType type);

// The kernel of the "softmax" module for rows of `cols` elements of `type`:
// the instance of kernels_dsl/softmax.mlir for that width tier.
std::string SoftmaxKernelName(int cols, SoftmaxType type);

// Checks the arguments without touching the device: x is a non-null,
// row-major (rows, cols) f32 or bf16 tensor with 1 <= rows, cols < 2^31
// (the kernel's views take 32-bit extents; its addresses are 64-bit, so
// rows * cols may exceed 2^31); y has x's dtype and
// shape, row-major, and is x itself or disjoint from it. Errors name the
// argument.
absl::Status ValidateSoftmax(const TensorRef &x, const TensorRef &y);

// ValidateSoftmax, then both tensors must be device memory of one device
// (or managed memory), each inside one allocation, and `stream` a stream of
// that device's primary context (null: its legacy default stream); then one
// launch there, on `stream`, the caller's context current again afterwards.
// Nothing is launched when a check fails.
absl::Status Softmax(const TensorRef &x, const TensorRef &y,
                     CUstream stream = nullptr);

// The same for contiguous (rows, cols) matrices of `type` given as
// pointers; y may equal x. Sizes are checked first and named ('rows',
// 'cols'): each in [1, 2^31 - 1].
absl::Status ValidateSoftmax(const void *x, const void *y, int64_t rows,
                             int64_t cols);
absl::Status Softmax(const void *x, void *y, int64_t rows, int64_t cols,
                     SoftmaxType type, CUstream stream = nullptr);

} // namespace tilec

#endif // TILEC_RUNTIME_SOFTMAX_H_
