// Loading of the CUDA driver library (libcuda.so.1) at run time.
//
// The runtime never links against libcuda: machines without a GPU (CI, the
// compiler's build machines) must still load the library and get a clear
// error from every call instead of a loader failure. A process may instead
// install other entry points before first use (Driver::Install), such as
// the emulated driver of tools/cpu-driver, which runs kernels on the host.
#ifndef TILEC_RUNTIME_DRIVER_H_
#define TILEC_RUNTIME_DRIVER_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/cuda_driver_api.h"

namespace tilec {

// Driver entry points. Required ones are never null once loaded; optional
// ones are null when the installed driver predates them.
struct DriverApi {
  cu::PFN_cuInit cuInit = nullptr;
  cu::PFN_cuGetErrorName cuGetErrorName = nullptr;
  cu::PFN_cuGetErrorString cuGetErrorString = nullptr;
  cu::PFN_cuDeviceGet cuDeviceGet = nullptr;
  cu::PFN_cuDeviceGetCount cuDeviceGetCount = nullptr;
  cu::PFN_cuDeviceGetAttribute cuDeviceGetAttribute = nullptr;
  cu::PFN_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain = nullptr;
  cu::PFN_cuCtxSetCurrent cuCtxSetCurrent = nullptr;
  cu::PFN_cuCtxGetCurrent cuCtxGetCurrent = nullptr;
  cu::PFN_cuCtxGetDevice cuCtxGetDevice = nullptr;
  cu::PFN_cuCtxSynchronize cuCtxSynchronize = nullptr;
  cu::PFN_cuModuleLoadDataEx cuModuleLoadDataEx = nullptr;
  cu::PFN_cuModuleUnload cuModuleUnload = nullptr;
  cu::PFN_cuModuleGetFunction cuModuleGetFunction = nullptr;
  cu::PFN_cuFuncSetAttribute cuFuncSetAttribute = nullptr;
  cu::PFN_cuFuncGetAttribute cuFuncGetAttribute = nullptr;
  cu::PFN_cuLaunchKernel cuLaunchKernel = nullptr;
  cu::PFN_cuStreamSynchronize cuStreamSynchronize = nullptr;
  cu::PFN_cuMemAlloc_v2 cuMemAlloc_v2 = nullptr;
  cu::PFN_cuMemFree_v2 cuMemFree_v2 = nullptr;
  cu::PFN_cuMemcpyHtoD_v2 cuMemcpyHtoD_v2 = nullptr;
  cu::PFN_cuMemcpyDtoH_v2 cuMemcpyDtoH_v2 = nullptr;
  cu::PFN_cuMemsetD32_v2 cuMemsetD32_v2 = nullptr;
  cu::PFN_cuPointerGetAttributes cuPointerGetAttributes = nullptr;
  cu::PFN_cuMemsetD32Async cuMemsetD32Async = nullptr;
  cu::PFN_cuStreamIsCapturing cuStreamIsCapturing = nullptr;
  cu::PFN_cuStreamGetCtx cuStreamGetCtx = nullptr;
  // Optional: CUDA 12.0+, needed only for thread-block cluster launches.
  cu::PFN_cuLaunchKernelEx cuLaunchKernelEx = nullptr;
  cu::PFN_cuOccupancyMaxActiveClusters cuOccupancyMaxActiveClusters = nullptr;
  // Optional: CUDA 11.2+, needed only for scratch memory (top-k rows split
  // across programs).
  cu::PFN_cuMemAllocAsync cuMemAllocAsync = nullptr;
  cu::PFN_cuMemFreeAsync cuMemFreeAsync = nullptr;
  // Optional: CUDA 12.0+; without it streams are told apart by handle.
  cu::PFN_cuStreamGetId cuStreamGetId = nullptr;
  // Optional: CUDA 12.0+, needed only for kernels that read through TMA.
  cu::PFN_cuTensorMapEncodeTiled cuTensorMapEncodeTiled = nullptr;
  // Optional: needed only to time GEMM configurations (runtime/gemm_tuning.h).
  cu::PFN_cuDeviceGetName cuDeviceGetName = nullptr;
  cu::PFN_cuEventCreate cuEventCreate = nullptr;
  cu::PFN_cuEventDestroy_v2 cuEventDestroy_v2 = nullptr;
  cu::PFN_cuEventRecord cuEventRecord = nullptr;
  cu::PFN_cuEventSynchronize cuEventSynchronize = nullptr;
  cu::PFN_cuEventElapsedTime cuEventElapsedTime = nullptr;
};

class Driver {
public:
  // The library name Get() loads.
  static constexpr const char *kLibraryName = "libcuda.so.1";

  // The process-wide driver: loaded and initialized (cuInit) on first use,
  // thread-safe. Returns FailedPrecondition when the library is missing, lacks
  // a required symbol, or cuInit fails (e.g. no device); every call after a
  // failure returns the same error.
  static absl::StatusOr<const Driver *> Get();

  // Makes Get() use `api` (e.g. an emulated driver) instead of loading
  // kLibraryName; Get() still calls its cuInit. Must precede the first Get():
  // returns FailedPrecondition after it, or when a required entry is null.
  static absl::Status Install(const DriverApi &api);

  // Opens `library` and resolves the entry points without calling cuInit.
  // Get() is built on this; tests use it to exercise the failure paths.
  static absl::StatusOr<std::unique_ptr<Driver>> Open(const char *library);

  ~Driver();
  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;

  const DriverApi &api() const { return api_; }

  // OK for CUDA_SUCCESS; otherwise an error whose message reads
  // "<what> failed: CUDA_ERROR_NAME (driver description)".
  absl::Status Check(cu::CUresult result, absl::string_view what) const;

  // Attribute `attribute` of device `ordinal` (cuDeviceGetAttribute).
  absl::StatusOr<int> DeviceAttribute(int ordinal,
                                      cu::CUdevice_attribute attribute) const;

private:
  Driver(void *handle, const DriverApi &api) : handle_(handle), api_(api) {}

  void *handle_;
  DriverApi api_;
};

// Maps a CUresult to the closest absl::StatusCode.
absl::StatusCode StatusCodeForCuResult(cu::CUresult result);

} // namespace tilec

#endif // TILEC_RUNTIME_DRIVER_H_
