//===- CpuDevice.cpp - devices, contexts, streams and events on the host --===//
//
// The CPU driver's errors, initialization, its one device, the primary
// context, the default streams and events.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/CpuDriverState.h"
#include "tools/cpu-driver/CpuEntryPoints.h"

#include <cstdio>
#include <mutex>
#include <string>

namespace tilec::cpu::detail {

// CUdevice_attribute values answered beyond those cuda_driver_api.h names.
enum : int {
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxBlockDimX = 2,
  kAttrMaxBlockDimY = 3,
  kAttrMaxBlockDimZ = 4,
  kAttrMaxSharedPerBlock = 8,
  kAttrTotalConstantMemory = 9,
  kAttrWarpSize = 10,
  kAttrMaxPitch = 11,
  kAttrMaxRegistersPerBlock = 12,
  kAttrClockRate = 13,
  kAttrTextureAlignment = 14,
  kAttrGpuOverlap = 15,
  kAttrKernelExecTimeout = 17,
  kAttrIntegrated = 18,
  kAttrCanMapHostMemory = 19,
  kAttrComputeMode = 20,
  kAttrConcurrentKernels = 31,
  kAttrEccEnabled = 32,
  kAttrPciBusId = 33,
  kAttrPciDeviceId = 34,
  kAttrTccDriver = 35,
  kAttrMemoryClockRate = 36,
  kAttrGlobalMemoryBusWidth = 37,
  kAttrL2CacheSize = 38,
  kAttrMaxThreadsPerMultiprocessor = 39,
  kAttrAsyncEngineCount = 40,
  kAttrUnifiedAddressing = 41,
  kAttrPciDomainId = 50,
  kAttrStreamPrioritiesSupported = 78,
  kAttrGlobalL1CacheSupported = 79,
  kAttrLocalL1CacheSupported = 80,
  kAttrMaxSharedPerMultiprocessor = 81,
  kAttrMaxRegistersPerMultiprocessor = 82,
  kAttrManagedMemory = 83,
  kAttrMultiGpuBoard = 84,
  kAttrConcurrentManagedAccess = 89,
  kAttrComputePreemptionSupported = 90,
  kAttrCooperativeLaunch = 95,
  kAttrMaxBlocksPerMultiprocessor = 106,
  kAttrReservedSharedPerBlock = 111,
  kAttrMemoryPoolsSupported = 115,
  kAttrClusterLaunch = 120,
};

//===----------------------------------------------------------------------===//
// Errors, initialization, devices, contexts
//===----------------------------------------------------------------------===//

namespace {

struct ErrorText {
  CUresult code;
  const char *name;
  const char *text;
};

constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED",
     "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED",
     "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
     "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
     "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid (the CPU driver's tile kernel does not "
     "match the PTX entry; see stderr)"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT",
     "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed (the CPU driver could not load its tile "
     "kernels; see stderr)"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "PTX JIT compiler library not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE",
     "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED",
     "unspecified launch failure (the CPU driver's interpreter stopped a "
     "launch of this process; see stderr)"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
     "operation not supported"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
};

} // namespace

static const ErrorText *findError(CUresult code) {
  for (const ErrorText &error : kErrors)
    if (error.code == code)
      return &error;
  return nullptr;
}

CUresult getErrorName(CUresult error, const char **str) {
  const ErrorText *found = findError(error);
  if (str == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  *str = found ? found->name : nullptr;
  return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult getErrorString(CUresult error, const char **str) {
  const ErrorText *found = findError(error);
  if (str == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  *str = found ? found->text : nullptr;
  return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult init(unsigned flags) {
  return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult deviceGet(CUdevice *device, int ordinal) {
  if (device == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult deviceGetCount(int *count) {
  if (count == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult deviceGetAttribute(int *value, CUdevice_attribute attribute,
                            CUdevice device) {
  if (value == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
  case kAttrMaxThreadsPerBlock:
  case kAttrMaxBlockDimX:
  case kAttrMaxBlockDimY:
    *value = kMaxThreadsPerBlock;
    break;
  case kAttrMaxBlockDimZ:
    *value = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *value = int(kMaxGridX);
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *value = int(kMaxGridYZ);
    break;
  case kAttrMaxSharedPerBlock:
    *value = kDefaultSharedPerBlock;
    break;
  case kAttrTotalConstantMemory:
    *value = 64 * 1024;
    break;
  case kAttrWarpSize:
    *value = kWarpSize;
    break;
  case kAttrMaxPitch:
    *value = 0x7fffffff;
    break;
  case kAttrMaxRegistersPerBlock:
  case kAttrMaxRegistersPerMultiprocessor:
    *value = kRegistersPerSm;
    break;
  case kAttrClockRate:
    *value = 1410000; // kHz
    break;
  case kAttrTextureAlignment:
    *value = 512;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = state().sms;
    break;
  case kAttrGpuOverlap:
  case kAttrCanMapHostMemory:
  case kAttrConcurrentKernels:
  case kAttrEccEnabled:
  case kAttrUnifiedAddressing:
  case kAttrStreamPrioritiesSupported:
  case kAttrGlobalL1CacheSupported:
  case kAttrLocalL1CacheSupported:
  case kAttrManagedMemory:
  case kAttrConcurrentManagedAccess:
  case kAttrComputePreemptionSupported:
  case kAttrCooperativeLaunch:
  case kAttrMemoryPoolsSupported:
    *value = 1;
    break;
  case kAttrKernelExecTimeout:
  case kAttrIntegrated:
  case kAttrComputeMode:
  case kAttrPciBusId:
  case kAttrPciDeviceId:
  case kAttrPciDomainId:
  case kAttrTccDriver:
  case kAttrMultiGpuBoard:
  case kAttrClusterLaunch:
    *value = 0;
    break;
  case kAttrMemoryClockRate:
    *value = 1593000; // kHz
    break;
  case kAttrGlobalMemoryBusWidth:
    *value = 5120;
    break;
  case kAttrL2CacheSize:
    *value = 40 * 1024 * 1024;
    break;
  case kAttrMaxThreadsPerMultiprocessor:
    *value = kMaxThreadsPerSm;
    break;
  case kAttrAsyncEngineCount:
    *value = 3;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 8;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case kAttrMaxSharedPerMultiprocessor:
    *value = kSharedPerSm;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = kMaxSharedPerBlockOptin;
    break;
  case kAttrMaxBlocksPerMultiprocessor:
    *value = kMaxBlocksPerSm;
    break;
  case kAttrReservedSharedPerBlock:
    *value = kReservedSharedPerBlock;
    break;
  default:
    // Said aloud: a new query in the runtime needs an answer here.
    warn("device attribute " + std::to_string(attribute) +
         " is not emulated; returning CUDA_ERROR_INVALID_VALUE");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult deviceGetName(char *name, int length, CUdevice device) {
  if (name == nullptr || length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, size_t(length), "%s", "tilec CPU driver (sm_80)");
  return CUDA_SUCCESS;
}

CUresult devicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (context == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (device != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *context = primaryContext();
  return CUDA_SUCCESS;
}

CUresult ctxSetCurrent(CUcontext context) {
  if (context != nullptr && context != primaryContext())
    return CUDA_ERROR_INVALID_CONTEXT;
  currentContext = context;
  return CUDA_SUCCESS;
}

CUresult ctxGetCurrent(CUcontext *context) {
  if (context == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  *context = currentContext;
  return CUDA_SUCCESS;
}

CUresult ctxGetDevice(CUdevice *device) {
  if (device == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = 0;
  return CUDA_SUCCESS;
}

// Work completes within each call, so waiting only reports a fault.
CUresult ctxSynchronize() {
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.sticky;
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

CUresult streamSynchronize(CUstream stream) {
  if (CUresult result = checkStream(stream))
    return result;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.sticky;
}

CUresult streamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
  if (status == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult result = checkStream(stream))
    return result;
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult streamGetCtx(CUstream stream, CUcontext *context) {
  if (context == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult result = checkStream(stream))
    return result;
  *context = currentContext;
  return CUDA_SUCCESS;
}

CUresult streamGetId(CUstream stream, unsigned long long *id) {
  if (id == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult result = checkStream(stream))
    return result;
  if (stream == CU_STREAM_PER_THREAD) {
    // Each thread's own stream: ids 2, 3, ... in order of first use.
    static std::mutex mutex;
    static unsigned long long next = 2;
    thread_local unsigned long long mine = 0;
    if (mine == 0) {
      std::lock_guard<std::mutex> lock(mutex);
      mine = next++;
    }
    *id = mine;
    return CUDA_SUCCESS;
  }
  *id = 1;
  return CUDA_SUCCESS;
}

CUresult eventCreate(CUevent *event, unsigned /*flags*/) {
  if (event == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  EventRec *rec = new EventRec();
  s.events.insert(rec);
  *event = reinterpret_cast<CUevent>(rec);
  return CUDA_SUCCESS;
}

static bool knownEvent(State &s, CUevent event) {
  return s.events.count(reinterpret_cast<EventRec *>(event)) != 0;
}

CUresult eventDestroy(CUevent event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!knownEvent(s, event))
    return CUDA_ERROR_INVALID_HANDLE;
  EventRec *rec = reinterpret_cast<EventRec *>(event);
  s.events.erase(rec);
  delete rec;
  return CUDA_SUCCESS;
}

CUresult eventRecord(CUevent event, CUstream stream) {
  if (CUresult result = checkStream(stream))
    return result;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!knownEvent(s, event))
    return CUDA_ERROR_INVALID_HANDLE;
  return s.sticky;
}

CUresult eventSynchronize(CUevent event) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!knownEvent(s, event))
    return CUDA_ERROR_INVALID_HANDLE;
  return s.sticky;
}

// Interpreted time says nothing about the GPU's, so every interval is 0.
CUresult eventElapsedTime(float *milliseconds, CUevent start, CUevent end) {
  if (milliseconds == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!knownEvent(s, start) || !knownEvent(s, end))
    return CUDA_ERROR_INVALID_HANDLE;
  *milliseconds = 0.f;
  return s.sticky;
}

} // namespace tilec::cpu::detail
