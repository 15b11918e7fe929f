//===- CpuDriver.cpp - the CUDA driver emulated on the host ---------------===//
//
// CpuDriverApi: the table of the entry points that CpuDevice.cpp,
// CpuMemory.cpp and CpuModules.cpp define.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/CpuDriver.h"

#include "tools/cpu-driver/CpuEntryPoints.h"

namespace tilec::cpu {

tilec::DriverApi CpuDriverApi() {
  using namespace detail;
  tilec::DriverApi api;
  api.cuInit = init;
  api.cuGetErrorName = getErrorName;
  api.cuGetErrorString = getErrorString;
  api.cuDeviceGet = deviceGet;
  api.cuDeviceGetCount = deviceGetCount;
  api.cuDeviceGetAttribute = deviceGetAttribute;
  api.cuDevicePrimaryCtxRetain = devicePrimaryCtxRetain;
  api.cuCtxSetCurrent = ctxSetCurrent;
  api.cuCtxGetCurrent = ctxGetCurrent;
  api.cuCtxGetDevice = ctxGetDevice;
  api.cuCtxSynchronize = ctxSynchronize;
  api.cuModuleLoadDataEx = moduleLoadDataEx;
  api.cuModuleUnload = moduleUnload;
  api.cuModuleGetFunction = moduleGetFunction;
  api.cuFuncSetAttribute = funcSetAttribute;
  api.cuFuncGetAttribute = funcGetAttribute;
  api.cuLaunchKernel = launchKernel;
  api.cuStreamSynchronize = streamSynchronize;
  api.cuMemAlloc_v2 = memAlloc;
  api.cuMemFree_v2 = memFree;
  api.cuMemcpyHtoD_v2 = memcpyHtoD;
  api.cuMemcpyDtoH_v2 = memcpyDtoH;
  api.cuMemsetD32_v2 = memsetD32;
  api.cuPointerGetAttributes = pointerGetAttributes;
  api.cuMemsetD32Async = memsetD32Async;
  api.cuStreamIsCapturing = streamIsCapturing;
  api.cuStreamGetCtx = streamGetCtx;
  // Persistent kernels size their grid by it; no cluster launches, no TMA.
  api.cuOccupancyMaxActiveClusters = occupancyMaxActiveClusters;
  api.cuMemAllocAsync = memAllocAsync;
  api.cuMemFreeAsync = memFreeAsync;
  api.cuStreamGetId = streamGetId;
  api.cuDeviceGetName = deviceGetName;
  api.cuEventCreate = eventCreate;
  api.cuEventDestroy_v2 = eventDestroy;
  api.cuEventRecord = eventRecord;
  api.cuEventSynchronize = eventSynchronize;
  api.cuEventElapsedTime = eventElapsedTime;
  return api;
}

} // namespace tilec::cpu
