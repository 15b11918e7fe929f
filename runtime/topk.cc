#include "runtime/topk.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "runtime/context.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/module.h"
#include "runtime/scratch.h"
#include "runtime/validate.h"

namespace tilec {
namespace {

constexpr char kModuleName[] = "topk";
constexpr char kKernelName[] = "topk_f32";
constexpr char kSplitKernelName[] = "topk_split_f32";
constexpr char kTop1KernelName[] = "top1_f32";
// topk_split_f32: columns per program, the most candidate slots per row,
// and the largest k it handles.
constexpr int kPartLen = 4096;
constexpr int kMaxCandidates = 4096;
constexpr int kSplitMaxK = 64;
// The kernel's cluster hand-off: up to 8 parts (the portable cluster size)
// and at most 128 candidates per row (part 0's shared buffer).
constexpr int kMaxClusterParts = 8;
constexpr int kMaxClusterCandidates = 128;

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
}

// How many clusters of `parts` programs the device runs at once; 0 when
// it cannot say. Asked once per kernel and cluster size.
int ClusterCapacity(const Kernel &kernel, int parts) {
  static absl::Mutex mutex;
  static auto *cache ABSL_GUARDED_BY(mutex) =
      new absl::flat_hash_map<std::pair<const Kernel *, int>, int>;
  absl::MutexLock lock(&mutex);
  auto [it, inserted] = cache->try_emplace({&kernel, parts}, 0);
  if (inserted) {
    absl::StatusOr<int> clusters =
        kernel.MaxActiveClusters({1, uint32_t(parts), 1});
    it->second = clusters.ok() ? *clusters : 0;
  }
  return it->second;
}

// Clusters exist from sm_90 on; the kernel's cluster hand-off takes 2 to
// kMaxClusterParts parts of k >= 2 with at most kMaxClusterCandidates
// candidates per row. All rows' clusters must run in one wave: on the H200
// 32 rows in clusters of 4 (30 fit at once) took 14.5 us against 11.2 us
// with the global hand-off, while clusters that fit save 0.8-1.0 us.
bool UseClusters(const Kernel &kernel, int batch, int k, int parts) {
  if (kernel.info().target == "sm_80" || k < 2 || parts < 2 ||
      parts > kMaxClusterParts || parts * k > kMaxClusterCandidates)
    return false;
  return batch <= ClusterCapacity(kernel, parts);
}

// One program per (row, part of kPartLen columns); the last part of each
// row to finish (or part 0 of a cluster) merges the parts' candidates.
absl::Status TopKSplit(const Kernel &kernel, const float *x, int batch, int n,
                       int k, int parts, float *values, int64_t *indices,
                       CUstream stream) {
  const bool clusters = UseClusters(kernel, batch, k, parts);
  const Dim3 grid = {uint32_t(batch), uint32_t(parts), 1};
  // TopK checked the tensors and the scratch is the runtime's own, so the
  // launch skips the driver's pointer queries. A row's parts as one cluster
  // hand over through shared memory.
  auto launch = [&](cu::CUdeviceptr work, cu::CUdeviceptr tickets) {
    const KernelArg args[] = {KernelArg::Ptr(x),
                              KernelArg::Ptr(values),
                              KernelArg::Ptr(indices),
                              KernelArg::DevicePtr(work),
                              KernelArg::DevicePtr(tickets),
                              KernelArg::I32(batch),
                              KernelArg::I32(n),
                              KernelArg::I32(k),
                              KernelArg::I32(parts)};
    if (clusters)
      return kernel.LaunchInClusters(grid, {1, uint32_t(parts), 1}, args,
                                     stream, PointerCheck::kSkip);
    return kernel.Launch(grid, args, stream, PointerCheck::kSkip);
  };
  // A row of one part, or a cluster, touches neither buffer; any non-null
  // address will do.
  if (parts == 1 || clusters)
    return launch(reinterpret_cast<uintptr_t>(x),
                  reinterpret_cast<uintptr_t>(x));

  // Otherwise the parts leave their candidates in global memory and count
  // themselves in per-row tickets, which the kernel leaves at zero: scratch
  // of the call's stream (runtime/scratch.h), so that calls on different
  // streams never share it.
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  ScopedContext scope(**driver, kernel.context());
  if (!scope.status().ok())
    return scope.status();
  const ScratchRequest requests[] = {
      {size_t(batch) * kMaxCandidates * 8, /*zeroed=*/false},
      {size_t(batch) * 4, /*zeroed=*/true}};
  return ScratchFor(**driver, kernel.context())
      .Use(stream, requests, [&](absl::Span<const cu::CUdeviceptr> buffers) {
        return launch(buffers[0], buffers[1]);
      });
}

} // namespace

absl::Status ValidateTopK(const TensorRef &x, int64_t k,
                          const TensorRef &values, const TensorRef &indices) {
  TILEC_RETURN_IF_ERROR(
      CheckTensor("x", x, {DType::kF32}, {kAnyExtent, kAnyExtent}));
  const int64_t batch = x.shape[0], n = x.shape[1];
  if (batch < 1 || n < 1)
    return Invalid("x", absl::StrCat("has shape ", ShapeString(x.shape),
                                     "; expected (batch, n) with batch >= 1 "
                                     "and n >= 1"));
  TILEC_RETURN_IF_ERROR(CheckInt32Extents("x", x));
  if (k < 1 || k > n)
    return Invalid("k", absl::StrCat("must be in [1, n=", n, "], got ", k));
  if (k > kTopKMaxK)
    return absl::UnimplementedError(absl::StrCat(
        "argument 'k' is ", k, "; the top-k kernel sorts at most ", kTopKMaxK));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("values", values, {DType::kF32}, {batch, k}));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("indices", indices, {DType::kI64}, {batch, k}));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("x", x, "values", values));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("x", x, "indices", indices));
  return CheckNoOverlap("values", values, "indices", indices);
}

absl::Status TopK(const TensorRef &x, int64_t k, const TensorRef &values,
                  const TensorRef &indices, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateTopK(x, k, values, indices));
  // Each size fits in int32 now (k <= n); their products need not, and the
  // kernels address rows in 64 bits.
  const int batch = int(x.shape[0]), n = int(x.shape[1]);
  const auto *in = static_cast<const float *>(x.data);
  auto *out = static_cast<float *>(const_cast<void *>(values.data));
  auto *idx = static_cast<int64_t *>(const_cast<void *>(indices.data));
  const int parts = (n + kPartLen - 1) / kPartLen;
  // Rows of one part and k = 1: the maximum, a small kernel of its own;
  // k <= kSplitMaxK: rows split across programs; otherwise one program per
  // row.
  const char *name = kKernelName;
  if (k == 1 && parts == 1)
    name = kTop1KernelName;
  else if (k <= kSplitMaxK && int64_t(parts) * k <= kMaxCandidates)
    name = kSplitKernelName;
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device = CheckDeviceTensors(
      **driver, {{"x", &x}, {"values", &values}, {"indices", &indices}});
  if (!device.ok())
    return device.status();
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel(kModuleName, name, *device);
  if (!kernel.ok())
    return kernel.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*kernel)->context(), *device));

  if (name == kSplitKernelName)
    return TopKSplit(**kernel, in, batch, n, int(k), parts, out, idx, stream);
  const Dim3 grid = {uint32_t(batch), 1, 1};
  if (name == kTop1KernelName) {
    const KernelArg args[] = {KernelArg::Ptr(in), KernelArg::Ptr(out),
                              KernelArg::Ptr(idx), KernelArg::I32(batch),
                              KernelArg::I32(n)};
    return (*kernel)->Launch(grid, args, stream, PointerCheck::kSkip);
  }
  const KernelArg args[] = {KernelArg::Ptr(in),  KernelArg::Ptr(out),
                            KernelArg::Ptr(idx), KernelArg::I32(batch),
                            KernelArg::I32(n),   KernelArg::I32(int(k))};
  return (*kernel)->Launch(grid, args, stream, PointerCheck::kSkip);
}

namespace {
// The pointer form's tensors: a contiguous (batch, n) x and (batch, k)
// outputs.
struct TopKTensors {
  TensorRef x, values, indices;
};
TopKTensors PointerTensors(const void *x, int64_t batch, int64_t n, int64_t k,
                           const void *values, const void *indices) {
  return {TensorRef::Contiguous(x, DType::kF32, {batch, n}),
          TensorRef::Contiguous(values, DType::kF32, {batch, k}),
          TensorRef::Contiguous(indices, DType::kI64, {batch, k})};
}
} // namespace

absl::Status ValidateTopK(const void *x, int64_t batch, int64_t n, int64_t k,
                          const void *values, const void *indices) {
  if (x == nullptr)
    return Invalid("x", "is null");
  if (values == nullptr)
    return Invalid("values", "is null");
  if (indices == nullptr)
    return Invalid("indices", "is null");
  // The kernels' views take 32-bit extents.
  constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();
  if (batch < 1 || batch > kMaxExtent)
    return Invalid("batch",
                   absl::StrCat("must be in [1, 2^31 - 1], got ", batch));
  if (n < 1 || n > kMaxExtent)
    return Invalid("n", absl::StrCat("must be in [1, 2^31 - 1], got ", n));
  if (k < 1 || k > n)
    return Invalid("k", absl::StrCat("must be in [1, n=", n, "], got ", k));
  TopKTensors t = PointerTensors(x, batch, n, k, values, indices);
  return ValidateTopK(t.x, k, t.values, t.indices);
}

absl::Status TopK(const float *x, int64_t batch, int64_t n, int64_t k,
                  float *values, int64_t *indices, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateTopK(x, batch, n, k, values, indices));
  TopKTensors t = PointerTensors(x, batch, n, k, values, indices);
  return TopK(t.x, k, t.values, t.indices, stream);
}

} // namespace tilec
