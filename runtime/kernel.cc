#include "runtime/kernel.h"

#include "runtime/tensor_map.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "runtime/context.h"
#include "runtime/validate.h"

namespace tilec {

namespace {
absl::InlinedVector<void *, 16>
ParamAddresses(absl::Span<const KernelArg> args) {
  absl::InlinedVector<void *, 16> params;
  params.reserve(args.size());
  for (const KernelArg &arg : args)
    params.push_back(arg.ParamAddress());
  return params;
}
} // namespace

absl::Status Kernel::CheckPointerArgs(absl::Span<const KernelArg> args) const {
  absl::StatusOr<cu::CUdevice> device = DeviceOfContext(driver_, context_);
  if (!device.ok())
    return device.status();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind() != ParamKind::kPtr)
      continue;
    // Only the address is known here, not the extent: a zero-element view.
    TensorRef at;
    at.data = reinterpret_cast<const void *>(uintptr_t(args[i].device_ptr()));
    at.dtype = DType::kU8;
    at.shape = {0};
    absl::StatusOr<PointerInfo> info = QueryPointer(driver_, at.data);
    if (!info.ok())
      return info.status();
    if (absl::Status status =
            CheckMemory(info_.params[i].name, at, *info, *device);
        !status.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", info_.name, "': ", status.message()));
  }
  return absl::OkStatus();
}

absl::Status
Kernel::Enqueue(absl::Span<const KernelArg> args, PointerCheck check,
                absl::FunctionRef<absl::Status(void **params)> launch) const {
  ScopedContext scope(driver_, context_);
  if (!scope.status().ok())
    return scope.status();
  if (check == PointerCheck::kDriver)
    TILEC_RETURN_IF_ERROR(CheckPointerArgs(args));
  absl::InlinedVector<void *, 16> params = ParamAddresses(args);
  absl::InlinedVector<TensorMapBytes, 4> maps(info_.tensor_maps.size());
  TILEC_RETURN_IF_ERROR(
      EncodeTensorMaps(driver_, info_, args, absl::MakeSpan(maps)));
  for (TensorMapBytes &map : maps)
    params.push_back(&map);
  return launch(params.data());
}

absl::Status Kernel::Launch(Dim3 grid, absl::Span<const KernelArg> args,
                            CUstream stream, PointerCheck check) const {
  if (absl::Status status = ValidateLaunch(info_, grid, args); !status.ok())
    return status;
  return Enqueue(args, check, [&](void **params) {
    return LaunchWith(grid,
                      {info_.cluster[0], info_.cluster[1], info_.cluster[2]},
                      params, stream);
  });
}

absl::Status Kernel::LaunchInClusters(Dim3 grid, Dim3 cluster,
                                      absl::Span<const KernelArg> args,
                                      CUstream stream,
                                      PointerCheck check) const {
  if (absl::Status status = ValidateLaunch(info_, grid, args); !status.ok())
    return status;
  auto invalid = [&](absl::string_view reason) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", info_.name, "': cluster (", cluster.x, ", ",
                     cluster.y, ", ", cluster.z, ") is invalid: ", reason));
  };
  if (info_.HasCluster())
    return invalid("the kernel's metadata fixes its cluster shape");
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0 ||
      uint64_t(cluster.x) * cluster.y * cluster.z > 8)
    return invalid("a cluster holds 1 to 8 programs");
  if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 ||
      grid.z % cluster.z != 0)
    return invalid(absl::StrCat("it must divide the grid (", grid.x, ", ",
                                grid.y, ", ", grid.z, ")"));
  return Enqueue(args, check, [&](void **params) {
    return LaunchWith(grid, cluster, params, stream);
  });
}

namespace {
cu::CUlaunchAttribute ClusterAttribute(Dim3 cluster) {
  cu::CUlaunchAttribute attribute = {};
  attribute.id = cu::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = cluster.x;
  attribute.value.clusterDim.y = cluster.y;
  attribute.value.clusterDim.z = cluster.z;
  return attribute;
}

// A launch of `grid` with the kernel's block and shared memory and the
// `count` attributes at `attributes` (which must outlive the config).
cu::CUlaunchConfig LaunchConfig(const KernelInfo &info, Dim3 grid,
                                cu::CUlaunchAttribute *attributes,
                                unsigned count, CUstream stream) {
  cu::CUlaunchConfig config = {};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = info.block[0];
  config.blockDimY = info.block[1];
  config.blockDimZ = info.block[2];
  config.sharedMemBytes = info.shared_bytes;
  config.hStream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  return config;
}

// Whether kernels that allow it are launched with programmatic stream
// serialization: only with TILEC_DEPENDENT_LAUNCH=1 (read once). Off by
// default until the trigger rule of tile-dependent-launch (grids of at
// most one program per SM) is measured: with every grid triggering, top-k
// of 16-64 rows lost up to 29% while one row gained 16% (H100).
bool DependentLaunchEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("TILEC_DEPENDENT_LAUNCH");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return enabled;
}
} // namespace

absl::StatusOr<int> Kernel::MaxActiveClusters(Dim3 cluster) const {
  if (driver_.api().cuOccupancyMaxActiveClusters == nullptr)
    return absl::FailedPreconditionError(
        "the CUDA driver lacks cuOccupancyMaxActiveClusters (CUDA 12.0 or "
        "newer is required)");
  ScopedContext scope(driver_, context_);
  if (!scope.status().ok())
    return scope.status();
  // One cluster's worth of grid: the query asks about the shape only.
  cu::CUlaunchAttribute attribute = ClusterAttribute(cluster);
  cu::CUlaunchConfig config =
      LaunchConfig(info_, cluster, &attribute, 1, /*stream=*/nullptr);
  int clusters = 0;
  if (absl::Status status =
          driver_.Check(driver_.api().cuOccupancyMaxActiveClusters(
                            &clusters, function_, &config),
                        absl::StrCat("cuOccupancyMaxActiveClusters of kernel '",
                                     info_.name, "'"));
      !status.ok())
    return status;
  return clusters;
}

absl::StatusOr<int> Kernel::ResidentPrograms() const {
  int resident = resident_programs_.load(std::memory_order_relaxed);
  if (resident != 0)
    return resident;
  absl::StatusOr<int> clusters = MaxActiveClusters({1, 1, 1});
  if (!clusters.ok())
    return clusters.status();
  resident_programs_.store(*clusters, std::memory_order_relaxed);
  return *clusters;
}

bool Kernel::WorthDependentLaunch(Dim3 grid, bool clustered) const {
  if (!info_.dependent_launch || clustered ||
      driver_.api().cuLaunchKernelEx == nullptr || !DependentLaunchEnabled())
    return false;
  // Measured on an H100 over top-k's chain of passes: launched early, grids
  // of at most a program per SM (one row: 37 us against 44) gained, while
  // grids of 1024 programs (64 rows) lost up to a fifth; so only the first
  // go early (and only after grids as small, which alone trigger early:
  // tile-dependent-launch; that pairing is not measured yet).
  int sms = sm_count_.load(std::memory_order_relaxed);
  if (sms == 0) {
    absl::StatusOr<int> count = CurrentDeviceAttribute(
        driver_, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    sms = count.ok() ? *count : -1;
    sm_count_.store(sms, std::memory_order_relaxed);
  }
  return uint64_t(grid.x) * grid.y * grid.z <= uint64_t(std::max(sms, 0));
}

absl::Status Kernel::LaunchTiles(Dim3 tiles, absl::Span<const KernelArg> args,
                                 CUstream stream, PointerCheck check) const {
  if (info_.persistent_group == 0)
    return Launch(tiles, args, stream, check);
  const uint64_t count = uint64_t{tiles.x} * tiles.y;
  if (tiles.z != 1 || count == 0 ||
      count > uint64_t(std::numeric_limits<int32_t>::max()))
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", info_.name, "' is persistent: its tile grid (",
                     tiles.x, ", ", tiles.y, ", ", tiles.z,
                     ") must be 2-D with 1 to 2^31 - 1 tiles"));
  absl::StatusOr<int> resident = ResidentPrograms();
  if (!resident.ok())
    return resident.status();
  if (*resident < 1)
    return absl::FailedPreconditionError(absl::StrCat(
        "kernel '", info_.name, "' does not fit on an SM of this GPU"));
  absl::InlinedVector<KernelArg, 16> full(args.begin(), args.end());
  full.push_back(KernelArg::I32(int32_t(tiles.x)));
  full.push_back(KernelArg::I32(int32_t(tiles.y)));
  const uint32_t programs = uint32_t(std::min<uint64_t>(count, *resident));
  return Launch({programs, 1, 1}, full, stream, check);
}

// Thread-block clusters and dependent launch need cuLaunchKernelEx and an
// attribute each; other launches take cuLaunchKernel. Without
// cuLaunchKernelEx a cluster launch fails and a dependent one runs plainly.
absl::Status Kernel::LaunchWith(Dim3 grid, Dim3 cluster, void **params,
                                CUstream stream) const {
  const bool clustered = cluster.x * cluster.y * cluster.z != 1;
  const bool hasEx = driver_.api().cuLaunchKernelEx != nullptr;
  if (clustered && !hasEx)
    return absl::FailedPreconditionError(absl::StrCat(
        "kernel '", info_.name,
        "' needs a cluster launch but the CUDA "
        "driver lacks cuLaunchKernelEx (CUDA 12.0 or newer is required)"));
  cu::CUlaunchAttribute attributes[2];
  unsigned count = 0;
  if (clustered)
    attributes[count++] = ClusterAttribute(cluster);
  if (WorthDependentLaunch(grid, clustered)) {
    cu::CUlaunchAttribute &dependent = attributes[count++];
    dependent = {};
    dependent.id = cu::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    dependent.value.programmaticStreamSerializationAllowed = 1;
  }
  if (count == 0)
    return driver_.Check(
        driver_.api().cuLaunchKernel(
            function_, grid.x, grid.y, grid.z, info_.block[0], info_.block[1],
            info_.block[2], info_.shared_bytes, stream, params, nullptr),
        absl::StrCat("cuLaunchKernel of kernel '", info_.name, "'"));
  cu::CUlaunchConfig config =
      LaunchConfig(info_, grid, attributes, count, stream);
  return driver_.Check(
      driver_.api().cuLaunchKernelEx(&config, function_, params, nullptr),
      absl::StrCat("cuLaunchKernelEx of kernel '", info_.name, "'"));
}

} // namespace tilec
