#include "runtime/driver.h"

#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace tilec {
namespace {

// Resolves `name` into `slot`; records the first missing required symbol.
template <typename Fn>
void Resolve(void *handle, const char *name, Fn &slot, bool required,
             std::string &missing) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
  if (slot == nullptr && required && missing.empty())
    missing = name;
}

} // namespace

absl::StatusCode StatusCodeForCuResult(cu::CUresult result) {
  using namespace cu;
  switch (result) {
  case CUDA_SUCCESS:
    return absl::StatusCode::kOk;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return absl::StatusCode::kInvalidArgument;
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return absl::StatusCode::kResourceExhausted;
  case CUDA_ERROR_INVALID_CONTEXT:
  case CUDA_ERROR_INVALID_HANDLE:
    return absl::StatusCode::kInvalidArgument;
  case CUDA_ERROR_NOT_FOUND:
    return absl::StatusCode::kNotFound;
  case CUDA_ERROR_NOT_SUPPORTED:
    return absl::StatusCode::kUnimplemented;
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    return absl::StatusCode::kFailedPrecondition;
  default:
    return absl::StatusCode::kInternal;
  }
}

absl::StatusOr<std::unique_ptr<Driver>> Driver::Open(const char *library) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, so
  // they cannot interpose on a libcuda another component loaded.
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *reason = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver library ", library,
                     " could not be loaded: ", reason ? reason : "unknown"));
  }
  DriverApi api;
  std::string missing;
  // Versioned names (_v2) are the current ABI of the unsuffixed API names.
#define TILEC_RESOLVE(name, required)                                          \
  Resolve(handle, #name, api.name, required, missing)
  TILEC_RESOLVE(cuInit, true);
  TILEC_RESOLVE(cuGetErrorName, true);
  TILEC_RESOLVE(cuGetErrorString, true);
  TILEC_RESOLVE(cuDeviceGet, true);
  TILEC_RESOLVE(cuDeviceGetCount, true);
  TILEC_RESOLVE(cuDeviceGetAttribute, true);
  TILEC_RESOLVE(cuDevicePrimaryCtxRetain, true);
  TILEC_RESOLVE(cuCtxSetCurrent, true);
  TILEC_RESOLVE(cuCtxGetCurrent, true);
  TILEC_RESOLVE(cuCtxGetDevice, true);
  TILEC_RESOLVE(cuCtxSynchronize, true);
  TILEC_RESOLVE(cuModuleLoadDataEx, true);
  TILEC_RESOLVE(cuModuleUnload, true);
  TILEC_RESOLVE(cuModuleGetFunction, true);
  TILEC_RESOLVE(cuFuncSetAttribute, true);
  TILEC_RESOLVE(cuFuncGetAttribute, true);
  TILEC_RESOLVE(cuLaunchKernel, true);
  TILEC_RESOLVE(cuStreamSynchronize, true);
  TILEC_RESOLVE(cuMemAlloc_v2, true);
  TILEC_RESOLVE(cuMemFree_v2, true);
  TILEC_RESOLVE(cuMemcpyHtoD_v2, true);
  TILEC_RESOLVE(cuMemcpyDtoH_v2, true);
  TILEC_RESOLVE(cuMemsetD32_v2, true);
  TILEC_RESOLVE(cuPointerGetAttributes, true);
  TILEC_RESOLVE(cuMemsetD32Async, true);
  TILEC_RESOLVE(cuStreamIsCapturing, true);
  TILEC_RESOLVE(cuStreamGetCtx, true);
  TILEC_RESOLVE(cuLaunchKernelEx, false);
  TILEC_RESOLVE(cuOccupancyMaxActiveClusters, false);
  TILEC_RESOLVE(cuMemAllocAsync, false);
  TILEC_RESOLVE(cuMemFreeAsync, false);
  TILEC_RESOLVE(cuStreamGetId, false);
  TILEC_RESOLVE(cuTensorMapEncodeTiled, false);
  TILEC_RESOLVE(cuDeviceGetName, false);
  TILEC_RESOLVE(cuEventCreate, false);
  TILEC_RESOLVE(cuEventDestroy_v2, false);
  TILEC_RESOLVE(cuEventRecord, false);
  TILEC_RESOLVE(cuEventSynchronize, false);
  TILEC_RESOLVE(cuEventElapsedTime, false);
#undef TILEC_RESOLVE
  if (!missing.empty()) {
    dlclose(handle);
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver library ", library, " lacks symbol ", missing,
                     "; the installed driver is too old or not a CUDA driver"));
  }
  return std::unique_ptr<Driver>(new Driver(handle, api));
}

absl::StatusOr<const Driver *> Driver::Get() {
  // A function-local static gives thread-safe one-time initialization; the
  // driver is never unloaded because modules may outlive any owner.
  static const absl::StatusOr<const Driver *> *const driver =
      new absl::StatusOr<const Driver *>(
          []() -> absl::StatusOr<const Driver *> {
            absl::StatusOr<std::unique_ptr<Driver>> opened = Open(kLibraryName);
            if (!opened.ok())
              return opened.status();
            absl::Status init =
                (*opened)->Check((*opened)->api().cuInit(0), "cuInit");
            if (!init.ok())
              return absl::FailedPreconditionError(init.message());
            return opened->release();
          }());
  return *driver;
}

Driver::~Driver() { dlclose(handle_); }

absl::StatusOr<int>
Driver::DeviceAttribute(int ordinal, cu::CUdevice_attribute attribute) const {
  cu::CUdevice handle = 0;
  absl::Status status =
      Check(api_.cuDeviceGet(&handle, ordinal), "cuDeviceGet");
  if (!status.ok())
    return status;
  int value = 0;
  status = Check(api_.cuDeviceGetAttribute(&value, attribute, handle),
                 "cuDeviceGetAttribute");
  if (!status.ok())
    return status;
  return value;
}

absl::Status Driver::Check(cu::CUresult result, absl::string_view what) const {
  if (result == cu::CUDA_SUCCESS)
    return absl::OkStatus();
  const char *name = nullptr;
  const char *text = nullptr;
  if (api_.cuGetErrorName(result, &name) != cu::CUDA_SUCCESS)
    name = nullptr;
  if (api_.cuGetErrorString(result, &text) != cu::CUDA_SUCCESS)
    text = nullptr;
  std::string message = name ? absl::StrCat(what, " failed: ", name)
                             : absl::StrCat(what, " failed: CUresult ", result);
  if (text != nullptr)
    absl::StrAppend(&message, " (", text, ")");
  return absl::Status(StatusCodeForCuResult(result), message);
}

} // namespace tilec
