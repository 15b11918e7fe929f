#include "runtime/topk.h"

#include <cstdint>
#include <limits>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/embedded.h"
#include "runtime/module.h"

namespace tilec {
namespace {

constexpr char kModuleName[] = "topk";
constexpr char kKernelName[] = "topk_f32";

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
}

// The kernel of the process-wide module, loaded on first use.
absl::StatusOr<const Kernel *> GetTopKKernel() {
  static absl::Mutex mutex;
  static Module *module ABSL_GUARDED_BY(mutex) = nullptr;
  absl::MutexLock lock(&mutex);
  if (module == nullptr) {
    absl::StatusOr<std::unique_ptr<Module>> loaded = LoadEmbedded(kModuleName);
    if (!loaded.ok())
      return loaded.status();
    module = loaded->release(); // Lives as long as the process.
  }
  return module->GetKernel(kKernelName);
}

} // namespace

absl::Status ValidateTopK(const void *x, int batch, int n, int k,
                          const void *values, const void *indices) {
  if (x == nullptr)
    return Invalid("x", "is null");
  if (values == nullptr)
    return Invalid("values", "is null");
  if (indices == nullptr)
    return Invalid("indices", "is null");
  if (batch < 1)
    return Invalid("batch", absl::StrCat("must be at least 1, got ", batch));
  if (n < 1)
    return Invalid("n", absl::StrCat("must be at least 1, got ", n));
  if (k < 1 || k > n)
    return Invalid("k", absl::StrCat("must be in [1, n=", n, "], got ", k));
  if (k > kTopKMaxK)
    return absl::UnimplementedError(absl::StrCat(
        "argument 'k' is ", k, "; the top-k kernel sorts at most ",
        kTopKMaxK));
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (int64_t(batch) * n > kMax)
    return Invalid("n", absl::StrCat("batch * n = ", int64_t(batch) * n,
                                     " exceeds 2^31 - 1"));
  return absl::OkStatus();
}

absl::Status TopK(const float *x, int batch, int n, int k, float *values,
                  int64_t *indices, CUstream stream) {
  if (absl::Status s = ValidateTopK(x, batch, n, k, values, indices); !s.ok())
    return s;
  absl::StatusOr<const Kernel *> kernel = GetTopKKernel();
  if (!kernel.ok())
    return kernel.status();
  const KernelArg args[] = {KernelArg::Ptr(x),       KernelArg::Ptr(values),
                            KernelArg::Ptr(indices), KernelArg::I32(batch),
                            KernelArg::I32(n),       KernelArg::I32(k)};
  // One program per row.
  return (*kernel)->Launch({uint32_t(batch), 1, 1}, args, stream);
}

} // namespace tilec
