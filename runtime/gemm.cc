#include "runtime/gemm.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "runtime/context.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/gemm_configs.h"
#include "runtime/gemm_tuning.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "runtime/pad_rows.h"
#include "runtime/scratch.h"

namespace tilec {

absl::Status ValidateGemm(const TensorRef &x, const TensorRef &w,
                          const TensorRef &scale, const TensorRef &y) {
  TILEC_RETURN_IF_ERROR(CheckTensor("x", x, {DType::kBF16, DType::kF8E4M3},
                                    {kAnyExtent, kAnyExtent}));
  const int64_t m = x.shape[0], k = x.shape[1];
  if (m < 1 || k < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'x' has shape ", ShapeString(x.shape),
                     "; expected (M, K) with M >= 1 and K >= 1"));
  TILEC_RETURN_IF_ERROR(CheckTensor("w", w, {x.dtype}, {kAnyExtent, k}));
  const int64_t n = w.shape[0];
  if (n < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'w' has shape ", ShapeString(w.shape),
                     "; expected (N, K) with N >= 1"));
  TILEC_RETURN_IF_ERROR(CheckTensor("scale", scale, {DType::kF32}, {n}));
  TILEC_RETURN_IF_ERROR(CheckTensor("y", y, {DType::kBF16}, {m, n}));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("x", x));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("w", w));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("y", y));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("x", x, "y", y));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("w", w, "y", y));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("scale", scale, "y", y));
  // Row tiles run along the grid's y dimension.
  if (m > int64_t{kMaxGridYZ} * kGemmTileM)
    return absl::UnimplementedError(absl::StrCat(
        "argument 'x' has ", m, " rows; the GEMM kernels take at most ",
        int64_t{kMaxGridYZ} * kGemmTileM, " (", kMaxGridYZ, " tiles of ",
        kGemmTileM, ")"));
  return absl::OkStatus();
}

namespace {

// What ChooseGemmConfig needs to know of device `ordinal`.
absl::StatusOr<GemmDevice> DescribeGpu(const Driver &driver, int ordinal) {
  int major = 0, minor = 0, sms = 0;
  for (auto [value, attribute] :
       {std::pair{&major, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        std::pair{&minor, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        std::pair{&sms, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT}}) {
    absl::StatusOr<int> read = driver.DeviceAttribute(ordinal, attribute);
    if (!read.ok())
      return read.status();
    *value = *read;
  }
  return GemmDevice{TargetForComputeCapability(major, minor), sms};
}

// The GPU's name, for the tuning cache's keys.
absl::StatusOr<std::string> GpuName(const Driver &driver, int ordinal) {
  if (driver.api().cuDeviceGetName == nullptr)
    return absl::UnimplementedError("the driver lacks cuDeviceGetName");
  cu::CUdevice handle = 0;
  TILEC_RETURN_IF_ERROR(
      driver.Check(driver.api().cuDeviceGet(&handle, ordinal), "cuDeviceGet"));
  char name[256] = {};
  TILEC_RETURN_IF_ERROR(
      driver.Check(driver.api().cuDeviceGetName(name, sizeof(name) - 1, handle),
                   "cuDeviceGetName"));
  return std::string(name);
}

// The digest of the embedded GEMM kernels for `target`.
std::string GemmKernelsDigest(absl::string_view target) {
  for (const EmbeddedModule &module : ListEmbedded())
    if (module.name == absl::string_view("gemm") && module.target == target)
      return module.digest ? module.digest : "";
  return "";
}

// Median milliseconds of `launch` on `stream` over kRuns runs after a
// warm-up.
absl::StatusOr<float> TimeLaunch(const Driver &driver, CUstream stream,
                                 const std::function<absl::Status()> &launch) {
  constexpr int kWarmup = 2, kRuns = 7;
  const DriverApi &api = driver.api();
  CUevent start = nullptr, end = nullptr;
  TILEC_RETURN_IF_ERROR(
      driver.Check(api.cuEventCreate(&start, 0), "cuEventCreate"));
  absl::Cleanup destroy_start = [&] { api.cuEventDestroy_v2(start); };
  TILEC_RETURN_IF_ERROR(
      driver.Check(api.cuEventCreate(&end, 0), "cuEventCreate"));
  absl::Cleanup destroy_end = [&] { api.cuEventDestroy_v2(end); };
  for (int i = 0; i < kWarmup; ++i)
    TILEC_RETURN_IF_ERROR(launch());
  std::vector<float> times;
  for (int i = 0; i < kRuns; ++i) {
    TILEC_RETURN_IF_ERROR(
        driver.Check(api.cuEventRecord(start, stream), "cuEventRecord"));
    TILEC_RETURN_IF_ERROR(launch());
    TILEC_RETURN_IF_ERROR(
        driver.Check(api.cuEventRecord(end, stream), "cuEventRecord"));
    TILEC_RETURN_IF_ERROR(
        driver.Check(api.cuEventSynchronize(end), "cuEventSynchronize"));
    float ms = 0;
    TILEC_RETURN_IF_ERROR(driver.Check(api.cuEventElapsedTime(&ms, start, end),
                                       "cuEventElapsedTime"));
    times.push_back(ms);
  }
  std::nth_element(times.begin(), times.begin() + kRuns / 2, times.end());
  return times[kRuns / 2];
}

// With TILEC_GEMM_AUTOTUNE set: the cached winner for this GPU, kernels and
// shape, or else the fastest configuration timed now (and recorded). Null
// when tuning is off or cannot run here (no cache path, no events, a
// stream being captured into a graph): the table decides.
absl::StatusOr<const GemmConfig *>
TunedGemmConfig(const Driver &driver, int device, const GemmDevice &gpu,
                DType dtype, int m, int n, int k, CUstream stream,
                const std::function<absl::Status(const GemmConfig &)> &launch) {
  if (!GemmAutotuneEnabled())
    return nullptr;
  GemmTuningCache *cache = ProcessGemmTuningCache();
  const DriverApi &api = driver.api();
  absl::StatusOr<std::string> name = GpuName(driver, device);
  if (cache == nullptr || !name.ok() || api.cuEventCreate == nullptr ||
      api.cuEventDestroy_v2 == nullptr || api.cuEventRecord == nullptr ||
      api.cuEventSynchronize == nullptr || api.cuEventElapsedTime == nullptr)
    return nullptr;
  const GemmTuningKey key = {*name, GemmKernelsDigest(gpu.target), dtype, m, n,
                             k};
  auto candidate = [&](const GemmConfig &config) {
    return config.dtype == dtype && GemmConfigRunsOn(config, gpu.target);
  };
  if (std::optional<std::string> hit = cache->Find(key))
    for (const GemmConfig &config : GemmConfigs())
      if (candidate(config) && config.kernel == *hit)
        return &config;
  cu::CUstreamCaptureStatus capturing = 0;
  TILEC_RETURN_IF_ERROR(driver.Check(
      api.cuStreamIsCapturing(stream, &capturing), "cuStreamIsCapturing"));
  if (capturing != 0)
    return nullptr;
  const GemmConfig *best = nullptr;
  float best_ms = 0;
  for (const GemmConfig &config : GemmConfigs()) {
    if (!candidate(config))
      continue;
    absl::StatusOr<float> ms =
        TimeLaunch(driver, stream, [&] { return launch(config); });
    if (!ms.ok())
      return ms.status();
    if (best == nullptr || *ms < best_ms) {
      best = &config;
      best_ms = *ms;
    }
  }
  // A cache that cannot be written costs the next process a tuning run,
  // not this call its result.
  if (best != nullptr)
    (void)cache->Record(key, best->kernel);
  return best;
}

} // namespace

absl::Status Gemm(const TensorRef &x, const TensorRef &w,
                  const TensorRef &scale, const TensorRef &y, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateGemm(x, w, scale, y));
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device = CheckDeviceTensors(
      **driver, {{"x", &x}, {"w", &w}, {"scale", &scale}, {"y", &y}});
  if (!device.ok())
    return device.status();
  // Every extent fits in int32: the element counts do.
  const int m = int(x.shape[0]), k = int(x.shape[1]), n = int(w.shape[0]);
  absl::StatusOr<GemmDevice> gpu = DescribeGpu(**driver, *device);
  if (!gpu.ok())
    return gpu.status();
  const GemmConfig *config = &ChooseGemmConfig(x.dtype, m, n, k, *gpu);
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel("gemm", config->kernel, *device);
  if (!kernel.ok())
    return kernel.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*kernel)->context(), *device));
  // Launches `config` on operands `xs`, `ws` with rows of `ks` elements;
  // a split configuration takes its partial sums and tickets from `split`.
  auto launch = [&](const GemmConfig &config, cu::CUdeviceptr xs,
                    cu::CUdeviceptr ws, int ks,
                    absl::Span<const cu::CUdeviceptr> split) -> absl::Status {
    absl::StatusOr<const Kernel *> kernel =
        GetEmbeddedKernel("gemm", config.kernel, *device);
    if (!kernel.ok())
      return kernel.status();
    const std::array<uint32_t, 2> grid = GemmGrid(config, m, n);
    const uint32_t parts = uint32_t(GemmSplitParts(config, m, n, k, *gpu));
    std::vector<KernelArg> args = {
        KernelArg::DevicePtr(xs),   KernelArg::DevicePtr(ws),
        KernelArg::Ptr(scale.data), KernelArg::Ptr(y.data),
        KernelArg::I32(m),          KernelArg::I32(n),
        KernelArg::I32(ks)};
    if (config.split_k) {
      if (split.size() != 2)
        return absl::InternalError("a split GEMM launch without its scratch");
      args.push_back(KernelArg::DevicePtr(split[0]));
      args.push_back(KernelArg::DevicePtr(split[1]));
    }
    return (*kernel)->LaunchTiles({grid[0], grid[1], parts}, args, stream,
                                  PointerCheck::kSkip);
  };
  // The scratch a split configuration needs: one partial accumulator per
  // program (metadata "split_k") and a ticket per output tile, zero
  // between launches (each launch leaves them so).
  auto split_scratch = [&](const GemmConfig &config)
      -> absl::StatusOr<std::vector<ScratchRequest>> {
    if (!config.split_k)
      return std::vector<ScratchRequest>();
    absl::StatusOr<const Kernel *> kernel =
        GetEmbeddedKernel("gemm", config.kernel, *device);
    if (!kernel.ok())
      return kernel.status();
    const uint32_t partial = (*kernel)->info().split_k_partial_bytes;
    if (partial == 0)
      return absl::InternalError(absl::StrCat(
          "kernel '", config.kernel, "' is not split (no split_k metadata)"));
    const std::array<uint32_t, 2> grid = GemmGrid(config, m, n);
    const size_t tiles = size_t(grid[0]) * grid[1];
    const size_t parts = size_t(GemmSplitParts(config, m, n, k, *gpu));
    return std::vector<ScratchRequest>{{tiles * parts * partial, false},
                                       {tiles * sizeof(int32_t), true}};
  };
  const int64_t element_bytes = x.dtype == DType::kBF16 ? 2 : 1;
  const int64_t row_bytes = k * element_bytes;
  auto aligned = [](const void *p) {
    return reinterpret_cast<uintptr_t>(p) % 16 == 0;
  };
  if (row_bytes % 16 == 0 && aligned(x.data) && aligned(w.data)) {
    const auto xs = reinterpret_cast<uintptr_t>(x.data);
    const auto ws = reinterpret_cast<uintptr_t>(w.data);
    ScopedContext scope(**driver, (*kernel)->context());
    if (!scope.status().ok())
      return scope.status();
    auto run = [&](const GemmConfig &config) -> absl::Status {
      absl::StatusOr<std::vector<ScratchRequest>> requests =
          split_scratch(config);
      if (!requests.ok())
        return requests.status();
      if (requests->empty())
        return launch(config, xs, ws, k, {});
      return ScratchFor(**driver, (*kernel)->context())
          .Use(stream, *requests,
               [&](absl::Span<const cu::CUdeviceptr> buffers) {
                 return launch(config, xs, ws, k, buffers);
               });
    };
    absl::StatusOr<const GemmConfig *> tuned =
        TunedGemmConfig(**driver, *device, *gpu, x.dtype, m, n, k, stream, run);
    if (!tuned.ok())
      return tuned.status();
    if (*tuned != nullptr)
      config = *tuned;
    return run(*config);
  }

  // Rows that are not 16-byte aligned (K = 4127): TMA cannot read them and
  // element loads in the K loop are slow, so both operands are first
  // copied into rows padded with zeros to a multiple of 16 bytes, in
  // scratch of the call's stream, and multiplied from there.
  absl::StatusOr<const Kernel *> pad =
      GetEmbeddedKernel("pad_rows", "pad_rows_pair", *device);
  if (!pad.ok())
    return pad.status();
  const int64_t padded_bytes = PaddedRowBytes(row_bytes);
  const size_t x_bytes = size_t(m) * padded_bytes;
  const size_t w_bytes = size_t(n) * padded_bytes;
  ScopedContext scope(**driver, (*kernel)->context());
  if (!scope.status().ok())
    return scope.status();
  absl::StatusOr<std::vector<ScratchRequest>> requests = split_scratch(*config);
  if (!requests.ok())
    return requests.status();
  requests->insert(requests->begin(),
                   {{x_bytes, /*zeroed=*/false}, {w_bytes, /*zeroed=*/false}});
  return ScratchFor(**driver, (*kernel)->context())
      .Use(stream, *requests, [&](absl::Span<const cu::CUdeviceptr> buffers) {
        TILEC_RETURN_IF_ERROR(PadRowsPair(
            **pad, {x.data, buffers[0], m}, {w.data, buffers[1], n},
            int(row_bytes), int(row_bytes), int(padded_bytes), stream));
        return launch(*config, buffers[0], buffers[1],
                      int(padded_bytes / element_bytes), buffers.subspan(2));
      });
}

} // namespace tilec
