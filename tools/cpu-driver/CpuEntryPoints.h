//===- CpuEntryPoints.h - the CPU driver's entry points ---------*- C++ -*-===//
//
// Internal to the CPU driver: the functions CpuDriverApi puts in the
// runtime's driver table, each answering as the CUDA driver function of
// the table slot it fills does.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_CPU_DRIVER_CPUENTRYPOINTS_H
#define TILEC_TOOLS_CPU_DRIVER_CPUENTRYPOINTS_H

#include "runtime/cuda_driver_api.h"

namespace tilec::cpu::detail {

using namespace tilec::cu;

// Errors, initialization, devices, contexts, streams and events
// (CpuDevice.cpp).
CUresult getErrorName(CUresult error, const char **str);
CUresult getErrorString(CUresult error, const char **str);
CUresult init(unsigned flags);
CUresult deviceGet(CUdevice *device, int ordinal);
CUresult deviceGetCount(int *count);
CUresult deviceGetAttribute(int *value, CUdevice_attribute attribute,
                            CUdevice device);
CUresult deviceGetName(char *name, int length, CUdevice device);
CUresult devicePrimaryCtxRetain(CUcontext *context, CUdevice device);
CUresult ctxSetCurrent(CUcontext context);
CUresult ctxGetCurrent(CUcontext *context);
CUresult ctxGetDevice(CUdevice *device);
CUresult ctxSynchronize();
CUresult streamSynchronize(CUstream stream);
CUresult streamIsCapturing(CUstream stream, CUstreamCaptureStatus *status);
CUresult streamGetCtx(CUstream stream, CUcontext *context);
CUresult streamGetId(CUstream stream, unsigned long long *id);
CUresult eventCreate(CUevent *event, unsigned flags);
CUresult eventDestroy(CUevent event);
CUresult eventRecord(CUevent event, CUstream stream);
CUresult eventSynchronize(CUevent event);
CUresult eventElapsedTime(float *milliseconds, CUevent start, CUevent end);

// Memory (CpuMemory.cpp).
CUresult memAlloc(CUdeviceptr *ptr, size_t bytes);
CUresult memFree(CUdeviceptr ptr);
CUresult memAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream stream);
CUresult memFreeAsync(CUdeviceptr ptr, CUstream stream);
CUresult memcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult memcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult memsetD32(CUdeviceptr dst, unsigned value, size_t count);
CUresult memsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                        CUstream stream);
CUresult pointerGetAttributes(unsigned count, CUpointer_attribute *attributes,
                              void **data, CUdeviceptr ptr);

// Modules, functions and launches (CpuModules.cpp).
CUresult moduleLoadDataEx(CUmodule *module, const void *image,
                          unsigned numOptions, CUjit_option *options,
                          void **values);
CUresult moduleUnload(CUmodule module);
CUresult moduleGetFunction(CUfunction *function, CUmodule module,
                           const char *name);
CUresult funcSetAttribute(CUfunction function, CUfunction_attribute attribute,
                          int value);
CUresult funcGetAttribute(int *value, CUfunction_attribute attribute,
                          CUfunction function);
CUresult launchKernel(CUfunction function, unsigned gx, unsigned gy,
                      unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned sharedBytes, CUstream stream, void **params,
                      void **extra);
CUresult occupancyMaxActiveClusters(int *clusters, CUfunction function,
                                    const CUlaunchConfig *config);

} // namespace tilec::cpu::detail

#endif // TILEC_TOOLS_CPU_DRIVER_CPUENTRYPOINTS_H
