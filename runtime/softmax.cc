#include "runtime/softmax.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/embedded.h"
#include "runtime/module.h"

namespace tilec {
namespace {

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
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

absl::Status ValidateSoftmax(const void *x, const void *y, int rows, int cols) {
  if (x == nullptr)
    return Invalid("x", "is null");
  if (y == nullptr)
    return Invalid("y", "is null");
  if (rows < 1)
    return Invalid("rows", absl::StrCat("must be at least 1, got ", rows));
  if (cols < 1)
    return Invalid("cols", absl::StrCat("must be at least 1, got ", cols));
  return absl::OkStatus();
}

absl::Status Softmax(const void *x, void *y, int rows, int cols,
                     SoftmaxType type, CUstream stream) {
  if (absl::Status s = ValidateSoftmax(x, y, rows, cols); !s.ok())
    return s;
  absl::StatusOr<const Kernel *> kernel = GetEmbeddedKernel(
      "softmax", type == SoftmaxType::kF32 ? "softmax_f32" : "softmax_bf16");
  if (!kernel.ok())
    return kernel.status();
  const KernelArg args[] = {KernelArg::Ptr(x), KernelArg::Ptr(y),
                            KernelArg::I32(rows), KernelArg::I32(cols)};
  int per_program = SoftmaxRowsPerProgram(cols, type);
  uint32_t programs = uint32_t((rows + per_program - 1) / per_program);
  return (*kernel)->Launch({programs, 1, 1}, args, stream);
}

} // namespace tilec
