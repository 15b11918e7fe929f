// How many thread-block clusters of 1..8 programs (along grid y) of a
// kernel the device runs at once (cuOccupancyMaxActiveClusters), for a
// kernel loaded from PTX. Used for the top-k split kernel's cluster
// hand-off (bench/RESULTS.md).
//
//   build/bin/emit-ptx kernels_dsl/topk.mlir --target=sm_90a -o topk.ptx \
//       --metadata-out=topk.json      # shared_bytes of topk_split_f32
//   nvcc -O2 bench/cluster_occupancy.cu -lcuda -o cluster_occupancy
//   ./cluster_occupancy topk.ptx topk_split_f32 256 <shared_bytes>
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

static void check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
  std::exit(1);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s PTX KERNEL THREADS SHARED_BYTES\n",
                 argv[0]);
    return 2;
  }
  std::ifstream file(argv[1]);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  unsigned threads = std::atoi(argv[3]), shared = std::atoi(argv[4]);

  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module;
  check(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  CUfunction function;
  check(cuModuleGetFunction(&function, module, argv[2]), "cuModuleGetFunction");
  if (shared > 48 * 1024)
    check(cuFuncSetAttribute(function,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             shared),
          "cuFuncSetAttribute");

  int registers = 0, sms = 0, perSm = 0;
  check(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function),
        "cuFuncGetAttribute");
  check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                             device),
        "cuDeviceGetAttribute");
  check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, function, threads,
                                                    shared),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  std::printf("%s: %d registers, %u threads, %u bytes shared, %d SMs, "
              "%d CTAs per SM\n",
              argv[2], registers, threads, shared, sms, perSm);
  for (unsigned size = 1; size <= 8; ++size) {
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = 1;
    attribute.value.clusterDim.y = size;
    attribute.value.clusterDim.z = 1;
    CUlaunchConfig config = {};
    config.gridDimX = 1;
    config.gridDimY = size;
    config.gridDimZ = 1;
    config.blockDimX = threads;
    config.blockDimY = 1;
    config.blockDimZ = 1;
    config.sharedMemBytes = shared;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int clusters = 0;
    check(cuOccupancyMaxActiveClusters(&clusters, function, &config),
          "cuOccupancyMaxActiveClusters");
    std::printf("clusters of %u: %d at once (%d programs)\n", size, clusters,
                clusters * int(size));
  }
  return 0;
}
