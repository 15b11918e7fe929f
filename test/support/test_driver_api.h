// Driver entry points that GPU tests need and the runtime does not (contexts,
// streams, CUDA graphs, asynchronous copies), resolved from the same
// libcuda.so.1 the runtime opened, so they act on the same driver state.
// Each is null when the library or the symbol is missing; tests skip then.
#ifndef TILEC_TEST_SUPPORT_TEST_DRIVER_API_H_
#define TILEC_TEST_SUPPORT_TEST_DRIVER_API_H_

#include <dlfcn.h>

#include <cstddef>
#include <type_traits>

#include "runtime/cuda_driver_api.h"

// Spelled as cuda.h spells them.
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

namespace tilec {

struct TestDriverApi {
  // CUstream_flags and CUstreamCaptureMode values.
  static constexpr unsigned kStreamNonBlocking = 0x1;
  static constexpr int kCaptureModeGlobal = 0;

  // The versioned names are the ABI of cuda.h's unversioned ones.
  cu::CUresult (*ctx_create)(CUcontext *, unsigned, cu::CUdevice) = nullptr;
  cu::CUresult (*ctx_destroy)(CUcontext) = nullptr;
  cu::CUresult (*stream_create)(CUstream *, unsigned) = nullptr;
  cu::CUresult (*stream_destroy)(CUstream) = nullptr;
  cu::CUresult (*stream_synchronize)(CUstream) = nullptr;
  cu::CUresult (*begin_capture)(CUstream, int) = nullptr;
  cu::CUresult (*end_capture)(CUstream, CUgraph *) = nullptr;
  cu::CUresult (*graph_instantiate)(CUgraphExec *, CUgraph,
                                    unsigned long long) = nullptr;
  cu::CUresult (*graph_launch)(CUgraphExec, CUstream) = nullptr;
  cu::CUresult (*graph_exec_destroy)(CUgraphExec) = nullptr;
  cu::CUresult (*graph_destroy)(CUgraph) = nullptr;
  cu::CUresult (*copy_htod_async)(cu::CUdeviceptr, const void *, size_t,
                                  CUstream) = nullptr;
  cu::CUresult (*copy_dtoh_async)(void *, cu::CUdeviceptr, size_t,
                                  CUstream) = nullptr;

  bool HasContexts() const { return ctx_create && ctx_destroy; }
  bool HasStreams() const {
    return stream_create && stream_destroy && stream_synchronize &&
           copy_htod_async && copy_dtoh_async;
  }
  bool HasGraphs() const {
    return HasStreams() && begin_capture && end_capture && graph_instantiate &&
           graph_launch && graph_exec_destroy && graph_destroy;
  }

  static const TestDriverApi &Get() {
    static const TestDriverApi api = [] {
      TestDriverApi a;
      void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (lib == nullptr)
        return a;
      auto get = [lib](auto &slot, const char *name) {
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
            dlsym(lib, name));
      };
      get(a.ctx_create, "cuCtxCreate_v2");
      get(a.ctx_destroy, "cuCtxDestroy_v2");
      get(a.stream_create, "cuStreamCreate");
      get(a.stream_destroy, "cuStreamDestroy_v2");
      get(a.stream_synchronize, "cuStreamSynchronize");
      get(a.begin_capture, "cuStreamBeginCapture_v2");
      get(a.end_capture, "cuStreamEndCapture");
      get(a.graph_instantiate, "cuGraphInstantiateWithFlags");
      get(a.graph_launch, "cuGraphLaunch");
      get(a.graph_exec_destroy, "cuGraphExecDestroy");
      get(a.graph_destroy, "cuGraphDestroy");
      get(a.copy_htod_async, "cuMemcpyHtoDAsync_v2");
      get(a.copy_dtoh_async, "cuMemcpyDtoHAsync_v2");
      return a;
    }();
    return api;
  }
};

} // namespace tilec

#endif // TILEC_TEST_SUPPORT_TEST_DRIVER_API_H_
