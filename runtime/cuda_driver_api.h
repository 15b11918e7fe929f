// The subset of the CUDA Driver API that the runtime calls, declared here so
// the runtime builds without the CUDA toolkit. Types and values follow the
// public driver API reference (cuda.h). The driver itself is loaded with
// dlopen at first use; see driver.h.
#ifndef TILEC_RUNTIME_CUDA_DRIVER_API_H_
#define TILEC_RUNTIME_CUDA_DRIVER_API_H_

#include <cstddef>

// Opaque handles, spelled exactly as cuda.h spells them so that a translation
// unit may include both headers.
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

namespace tilec::cu {

// Enumerations are plain ints here: cuda.h declares them as C enums at global
// scope, which must not clash with these names.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUjit_option = int;
using CUdevice_attribute = int;
using CUfunction_attribute = int;
using CUlaunchAttributeID = int;
using CUpointer_attribute = int;
using CUstreamCaptureStatus = int;

// CUresult values the runtime treats specially.
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
inline constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
inline constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
inline constexpr CUresult CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221;
inline constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
inline constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
inline constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
inline constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
inline constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;
inline constexpr CUresult CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803;

// CUjit_option values for cuModuleLoadDataEx.
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
inline constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;

// CUdevice_attribute values.
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT =
    16;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute values.
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK =
    0;
inline constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr CUfunction_attribute
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr CUfunction_attribute
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;

// CUpointer_attribute values for cuPointerGetAttributes.
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_IS_MANAGED = 8;
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11;
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12;

// CUmemorytype values (CU_POINTER_ATTRIBUTE_MEMORY_TYPE).
inline constexpr unsigned int CU_MEMORYTYPE_HOST = 1;
inline constexpr unsigned int CU_MEMORYTYPE_DEVICE = 2;
inline constexpr unsigned int CU_MEMORYTYPE_UNIFIED = 4;

// CUstreamCaptureStatus values (cuStreamIsCapturing).
inline constexpr CUstreamCaptureStatus CU_STREAM_CAPTURE_STATUS_NONE = 0;
inline constexpr CUstreamCaptureStatus CU_STREAM_CAPTURE_STATUS_ACTIVE = 1;
inline constexpr CUstreamCaptureStatus CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2;

// Special stream handles: the legacy default stream (also spelled as a null
// handle) and the calling thread's per-thread default stream. They name a
// stream of whichever context is current.
inline const CUstream CU_STREAM_LEGACY = reinterpret_cast<CUstream>(0x1);
inline const CUstream CU_STREAM_PER_THREAD = reinterpret_cast<CUstream>(0x2);

// cuTensorMapEncodeTiled's enums (CUtensorMapDataType, ...Swizzle,
// ...L2promotion; interleave and out-of-bounds fill are 0: none, zeros).
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
inline constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
inline constexpr int CU_TENSOR_MAP_SWIZZLE_32B = 1;
inline constexpr int CU_TENSOR_MAP_SWIZZLE_64B = 2;
inline constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
inline constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;

// Launch attributes for cuLaunchKernelEx (CUDA 12.0+).
inline constexpr CUlaunchAttributeID CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
inline constexpr CUlaunchAttributeID
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

union CUlaunchAttributeValue {
  char pad[64];
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  int programmaticStreamSerializationAllowed;
};

struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
};

struct CUlaunchConfig {
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
};

static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute ABI");
static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig ABI");

// Function pointer types, one per driver entry point the runtime resolves.
extern "C" {
using PFN_cuInit = CUresult (*)(unsigned int flags);
using PFN_cuGetErrorName = CUresult (*)(CUresult error, const char **str);
using PFN_cuGetErrorString = CUresult (*)(CUresult error, const char **str);
using PFN_cuDeviceGet = CUresult (*)(CUdevice *device, int ordinal);
using PFN_cuDeviceGetCount = CUresult (*)(int *count);
using PFN_cuDeviceGetAttribute = CUresult (*)(int *value,
                                              CUdevice_attribute attrib,
                                              CUdevice device);
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext *ctx,
                                                  CUdevice device);
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext ctx);
using PFN_cuCtxGetCurrent = CUresult (*)(CUcontext *ctx);
using PFN_cuCtxGetDevice = CUresult (*)(CUdevice *device);
using PFN_cuCtxSynchronize = CUresult (*)();
using PFN_cuModuleLoadDataEx = CUresult (*)(CUmodule *module, const void *image,
                                            unsigned int num_options,
                                            CUjit_option *options,
                                            void **option_values);
using PFN_cuModuleUnload = CUresult (*)(CUmodule module);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction *function,
                                             CUmodule module, const char *name);
using PFN_cuFuncSetAttribute = CUresult (*)(CUfunction function,
                                            CUfunction_attribute attrib,
                                            int value);
using PFN_cuFuncGetAttribute = CUresult (*)(int *value,
                                            CUfunction_attribute attrib,
                                            CUfunction function);
using PFN_cuLaunchKernel = CUresult (*)(
    CUfunction function, unsigned int grid_x, unsigned int grid_y,
    unsigned int grid_z, unsigned int block_x, unsigned int block_y,
    unsigned int block_z, unsigned int shared_bytes, CUstream stream,
    void **kernel_params, void **extra);
using PFN_cuLaunchKernelEx = CUresult (*)(const CUlaunchConfig *config,
                                          CUfunction function,
                                          void **kernel_params, void **extra);
using PFN_cuOccupancyMaxActiveClusters = CUresult (*)(
    int *clusters, CUfunction function, const CUlaunchConfig *config);
using PFN_cuStreamSynchronize = CUresult (*)(CUstream stream);
using PFN_cuMemAlloc_v2 = CUresult (*)(CUdeviceptr *ptr, size_t bytes);
using PFN_cuMemFree_v2 = CUresult (*)(CUdeviceptr ptr);
using PFN_cuMemcpyHtoD_v2 = CUresult (*)(CUdeviceptr dst, const void *src,
                                         size_t bytes);
using PFN_cuMemcpyDtoH_v2 = CUresult (*)(void *dst, CUdeviceptr src,
                                         size_t bytes);
using PFN_cuPointerGetAttributes = CUresult (*)(unsigned int count,
                                                CUpointer_attribute *attributes,
                                                void **data, CUdeviceptr ptr);
using PFN_cuMemsetD32_v2 = CUresult (*)(CUdeviceptr dst, unsigned int value,
                                        size_t count);
using PFN_cuMemsetD32Async = CUresult (*)(CUdeviceptr dst, unsigned int value,
                                          size_t count, CUstream stream);
using PFN_cuMemAllocAsync = CUresult (*)(CUdeviceptr *ptr, size_t bytes,
                                         CUstream stream);
using PFN_cuMemFreeAsync = CUresult (*)(CUdeviceptr ptr, CUstream stream);
using PFN_cuStreamIsCapturing = CUresult (*)(CUstream stream,
                                             CUstreamCaptureStatus *status);
using PFN_cuStreamGetCtx = CUresult (*)(CUstream stream, CUcontext *ctx);
using PFN_cuStreamGetId = CUresult (*)(CUstream stream, unsigned long long *id);
using PFN_cuDeviceGetName = CUresult (*)(char *name, int length,
                                         CUdevice device);
using PFN_cuEventCreate = CUresult (*)(CUevent *event, unsigned int flags);
using PFN_cuEventDestroy_v2 = CUresult (*)(CUevent event);
using PFN_cuEventRecord = CUresult (*)(CUevent event, CUstream stream);
using PFN_cuEventSynchronize = CUresult (*)(CUevent event);
using PFN_cuEventElapsedTime = CUresult (*)(float *milliseconds, CUevent start,
                                            CUevent end);
using PFN_cuTensorMapEncodeTiled = CUresult (*)(
    void *tensor_map, int data_type, unsigned int rank, void *global_address,
    const unsigned long long *global_dim,
    const unsigned long long *global_strides, const unsigned int *box_dim,
    const unsigned int *element_strides, int interleave, int swizzle,
    int l2_promotion, int oob_fill);
} // extern "C"

} // namespace tilec::cu

#endif // TILEC_RUNTIME_CUDA_DRIVER_API_H_
