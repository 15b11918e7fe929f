#include "runtime/softmax.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/module.h"

namespace tilec {
namespace {

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
}

// A size given as a number: in [1, 2^31 - 1] (the kernel's 32-bit extents).
absl::Status CheckSize(const char *argument, int64_t value) {
  if (value < 1 || value > std::numeric_limits<int32_t>::max())
    return Invalid(argument,
                   absl::StrCat("must be in [1, 2^31 - 1], got ", value));
  return absl::OkStatus();
}

DType ToDType(SoftmaxType type) {
  return type == SoftmaxType::kF32 ? DType::kF32 : DType::kBF16;
}

} // namespace

int SoftmaxRowsPerProgram(int cols, SoftmaxType type) {
  // bf16 programs have twice the threads and take twice the rows, except
  // for the chunked path beyond 8192 columns.
  int scale = type == SoftmaxType::kBF16 ? 2 : 1;
  if (cols <= 256)
    return 32 * scale;
  if (cols <= 1024)
    return 8 * scale;
  if (cols <= 4096)
    return 2 * scale;
  if (cols <= 8192)
    return scale;
  return 1;
}

std::string SoftmaxKernelName(int cols, SoftmaxType type) {
  // The instances of kernels_dsl/softmax.mlir: one per width tier, named
  // by the widest row they take.
  const char *dtype = type == SoftmaxType::kF32 ? "f32" : "bf16";
  for (int width : {256, 1024, 4096, 8192})
    if (cols <= width)
      return absl::StrCat("softmax_", dtype, "_c", width);
  return absl::StrCat("softmax_", dtype, "_wide");
}

absl::Status ValidateSoftmax(const TensorRef &x, const TensorRef &y) {
  TILEC_RETURN_IF_ERROR(CheckTensor("x", x, {DType::kF32, DType::kBF16},
                                    {kAnyExtent, kAnyExtent}));
  if (x.shape[0] < 1 || x.shape[1] < 1)
    return Invalid("x", absl::StrCat("has shape ", ShapeString(x.shape),
                                     "; expected (rows, cols) with rows >= 1 "
                                     "and cols >= 1"));
  TILEC_RETURN_IF_ERROR(CheckInt32Extents("x", x));
  TILEC_RETURN_IF_ERROR(CheckTensor("y", y, {x.dtype}, x.shape));
  return CheckNoOverlap("x", x, "y", y, /*allow_identical=*/true);
}

absl::Status Softmax(const TensorRef &x, const TensorRef &y, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateSoftmax(x, y));
  const SoftmaxType type =
      x.dtype == DType::kF32 ? SoftmaxType::kF32 : SoftmaxType::kBF16;
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device =
      CheckDeviceTensors(**driver, {{"x", &x}, {"y", &y}});
  if (!device.ok())
    return device.status();
  // Both extents fit in int32 (the element count need not).
  const int rows = int(x.shape[0]), cols = int(x.shape[1]);
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel("softmax", SoftmaxKernelName(cols, type), *device);
  if (!kernel.ok())
    return kernel.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*kernel)->context(), *device));
  const KernelArg args[] = {KernelArg::Ptr(x.data), KernelArg::Ptr(y.data),
                            KernelArg::I32(rows), KernelArg::I32(cols)};
  int per_program = SoftmaxRowsPerProgram(cols, type);
  uint32_t programs = uint32_t((rows + per_program - 1) / per_program);
  return (*kernel)->Launch({programs, 1, 1}, args, stream, PointerCheck::kSkip);
}

absl::Status ValidateSoftmax(const void *x, const void *y, int64_t rows,
                             int64_t cols) {
  if (x == nullptr)
    return Invalid("x", "is null");
  if (y == nullptr)
    return Invalid("y", "is null");
  TILEC_RETURN_IF_ERROR(CheckSize("rows", rows));
  return CheckSize("cols", cols);
}

absl::Status Softmax(const void *x, void *y, int64_t rows, int64_t cols,
                     SoftmaxType type, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateSoftmax(x, y, rows, cols));
  return Softmax(TensorRef::Contiguous(x, ToDType(type), {rows, cols}),
                 TensorRef::Contiguous(y, ToDType(type), {rows, cols}), stream);
}

} // namespace tilec
