// A kernel of a loaded module, ready to launch.
#ifndef TILEC_RUNTIME_KERNEL_H_
#define TILEC_RUNTIME_KERNEL_H_

#include <atomic>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/driver.h"
#include "runtime/launch.h"
#include "runtime/metadata.h"

namespace tilec {

class Module;

// Whether Launch asks the driver about each pointer argument. The entry
// points of runtime/softmax.h and runtime/topk.h check their tensors in
// full (runtime/validate.h) and skip the second look.
enum class PointerCheck { kDriver, kSkip };

// Owned by its Module and valid as long as the Module is. Launch is
// thread-safe.
class Kernel {
public:
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  const KernelInfo &info() const { return info_; }
  const std::string &name() const { return info_.name; }
  // The context the kernel was loaded in and launches in.
  CUcontext context() const { return context_; }

  // Validates `args` and `grid` against the metadata (ValidateLaunch) and,
  // with PointerCheck::kDriver, that every ptr argument is device memory of
  // the kernel's device or managed memory (a host address would poison the
  // context); then enqueues the kernel on `stream` (null: the legacy
  // default stream) with the metadata's block size, dynamic shared memory
  // and cluster shape. Launches in the module's context even if the caller
  // switched devices.
  absl::Status Launch(Dim3 grid, absl::Span<const KernelArg> args,
                      CUstream stream = nullptr,
                      PointerCheck check = PointerCheck::kDriver) const;

  // Launch in thread-block clusters of the shape `cluster` chosen at launch
  // time (for kernels whose metadata names no cluster shape). Each grid
  // dimension must be a multiple of the cluster's, and a cluster holds at
  // most 8 programs (the portable limit).
  absl::Status
  LaunchInClusters(Dim3 grid, Dim3 cluster, absl::Span<const KernelArg> args,
                   CUstream stream = nullptr,
                   PointerCheck check = PointerCheck::kDriver) const;

  // How many clusters of the shape `cluster` the device can run at once
  // (cuOccupancyMaxActiveClusters with the kernel's block and shared
  // memory): more clusters than this take a second wave.
  absl::StatusOr<int> MaxActiveClusters(Dim3 cluster) const;

  // Launches the work of a grid of `tiles` (one program per tile, as the
  // kernel's source is written). A persistent kernel (KernelInfo::
  // persistent_group) gets `tiles.x` and `tiles.y` appended to `args` and
  // runs on min(tiles, programs the GPU holds at once) programs, which
  // walk the tiles; any other kernel is launched on `tiles` itself.
  absl::Status LaunchTiles(Dim3 tiles, absl::Span<const KernelArg> args,
                           CUstream stream = nullptr,
                           PointerCheck check = PointerCheck::kDriver) const;

private:
  friend class Module;
  Kernel(const Driver &driver, CUcontext context, CUfunction function,
         const KernelInfo &info)
      : driver_(driver), context_(context), function_(function), info_(info) {}

  // The driver's view of each ptr argument (see Launch); runs with the
  // kernel's context current.
  absl::Status CheckPointerArgs(absl::Span<const KernelArg> args) const;

  // With the kernel's context current: checks the ptr arguments (with
  // PointerCheck::kDriver), encodes the kernel's tensor maps after `args`
  // and calls `launch` with the parameter addresses.
  absl::Status
  Enqueue(absl::Span<const KernelArg> args, PointerCheck check,
          absl::FunctionRef<absl::Status(void **params)> launch) const;

  // How many programs of this kernel the GPU holds at once (queried once).
  absl::StatusOr<int> ResidentPrograms() const;
  // Whether a launch of `grid` gets programmatic stream serialization: the
  // metadata allows it, TILEC_DEPENDENT_LAUNCH is "1", the launch is
  // not in clusters and the grid has at most one program per SM. Called
  // with the kernel's context current.
  bool WorthDependentLaunch(Dim3 grid, bool clustered) const;
  // Enqueues on `stream` in clusters of `cluster` ({1, 1, 1}: none), with
  // programmatic stream serialization where WorthDependentLaunch says so.
  absl::Status LaunchWith(Dim3 grid, Dim3 cluster, void **params,
                          CUstream stream) const;

  const Driver &driver_;
  CUcontext context_;
  CUfunction function_;
  const KernelInfo &info_;
  // MaxActiveClusters of single programs, once asked (0: not yet).
  mutable std::atomic<int> resident_programs_{0};
  // The device's SM count, once asked (0: not yet; -1: unknown).
  mutable std::atomic<int> sm_count_{0};
};

} // namespace tilec

#endif // TILEC_RUNTIME_KERNEL_H_
