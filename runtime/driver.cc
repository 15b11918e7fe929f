#include "runtime/driver.h"

#include <dlfcn.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

// The entry points Open resolves and Install checks, in order.
#define TILEC_DRIVER_REQUIRED_ENTRIES(X)                                       \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamSynchronize)                                                       \
  X(cuMemAlloc_v2)                                                             \
  X(cuMemFree_v2)                                                              \
  X(cuMemcpyHtoD_v2)                                                           \
  X(cuMemcpyDtoH_v2)                                                           \
  X(cuMemsetD32_v2)                                                            \
  X(cuPointerGetAttributes)                                                    \
  X(cuMemsetD32Async)                                                          \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamGetCtx)
#define TILEC_DRIVER_OPTIONAL_ENTRIES(X)                                       \
  X(cuLaunchKernelEx)                                                          \
  X(cuOccupancyMaxActiveClusters)                                              \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuStreamGetId)                                                             \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuDeviceGetName)                                                           \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy_v2)                                                         \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)

namespace tilec {
namespace {

// What Install left for Get, and whether Get has run (after which the
// process keeps the driver it has).
struct InstallState {
  absl::Mutex mutex;
  bool got ABSL_GUARDED_BY(mutex) = false;
  bool installed ABSL_GUARDED_BY(mutex) = false;
  DriverApi api ABSL_GUARDED_BY(mutex);
};

InstallState &Installation() {
  static InstallState *const state = new InstallState();
  return *state;
}

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
#define TILEC_RESOLVE_REQUIRED(name)                                           \
  Resolve(handle, #name, api.name, true, missing);
#define TILEC_RESOLVE_OPTIONAL(name)                                           \
  Resolve(handle, #name, api.name, false, missing);
  TILEC_DRIVER_REQUIRED_ENTRIES(TILEC_RESOLVE_REQUIRED)
  TILEC_DRIVER_OPTIONAL_ENTRIES(TILEC_RESOLVE_OPTIONAL)
#undef TILEC_RESOLVE_REQUIRED
#undef TILEC_RESOLVE_OPTIONAL
  if (!missing.empty()) {
    dlclose(handle);
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver library ", library, " lacks symbol ", missing,
                     "; the installed driver is too old or not a CUDA driver"));
  }
  return std::unique_ptr<Driver>(new Driver(handle, api));
}

absl::Status Driver::Install(const DriverApi &api) {
  InstallState &state = Installation();
  absl::MutexLock lock(&state.mutex);
  if (state.got)
    return absl::FailedPreconditionError(
        "Driver::Install must be called before the first Driver::Get");
  std::string missing;
#define TILEC_CHECK_ENTRY(name)                                                \
  if (api.name == nullptr && missing.empty())                                  \
    missing = #name;
  TILEC_DRIVER_REQUIRED_ENTRIES(TILEC_CHECK_ENTRY)
#undef TILEC_CHECK_ENTRY
  if (!missing.empty())
    return absl::FailedPreconditionError(absl::StrCat(
        "the driver to install lacks the required entry point ", missing));
  state.api = api;
  state.installed = true;
  return absl::OkStatus();
}

absl::StatusOr<const Driver *> Driver::Get() {
  // A function-local static gives thread-safe one-time initialization; the
  // driver is never unloaded because modules may outlive any owner.
  static const absl::StatusOr<const Driver *> *const driver =
      new absl::StatusOr<const Driver *>(
          []() -> absl::StatusOr<const Driver *> {
            std::unique_ptr<Driver> installed;
            {
              InstallState &state = Installation();
              absl::MutexLock lock(&state.mutex);
              state.got = true;
              if (state.installed)
                installed.reset(new Driver(nullptr, state.api));
            }
            absl::StatusOr<std::unique_ptr<Driver>> opened =
                installed != nullptr ? absl::StatusOr<std::unique_ptr<Driver>>(
                                           std::move(installed))
                                     : Open(kLibraryName);
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

Driver::~Driver() {
  if (handle_ != nullptr)
    dlclose(handle_);
}

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
