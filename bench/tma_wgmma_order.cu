// Whether one TMA box of a rank-5 tensor map with non-monotonic strides
// lands a 128-row stage in wgmma order (the map runtime/tensor_map.cc
// encodes for a tile.tma_copy through a map with wgmma_warps = 8): staged
// row g + 8h + 16w holds matrix row 128j + g + 8w + 64h, each 16-byte
// chunk c at chunk c ^ (row mod 8) under the 128-byte swizzle. Prints
// PASS or the first mismatches (bench/RESULTS.md).
//
//   nvcc -arch=sm_90a -O2 bench/tma_wgmma_order.cu -lcuda -o tma_wgmma_order
//   ./tma_wgmma_order
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kWarps = 8;
constexpr int kRows = 16 * kWarps; // one stage: one box
constexpr int kRowBytes = 128;

__global__ void CopyOneBox(const __grid_constant__ CUtensorMap map,
                           uint8_t *out, int block) {
  __shared__ __align__(1024) uint8_t stage[kRows * kRowBytes];
  __shared__ __align__(8) uint64_t barrier;
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(stage));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(bar),
                 "r"(kRows * kRowBytes));
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::"
        "complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(dst),
        "l"(&map), "r"(0), "r"(0), "r"(0), "r"(0), "r"(block), "r"(bar)
        : "memory");
  }
  __syncthreads();
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, "
                 "[%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar));
  for (int i = threadIdx.x; i < kRows * kRowBytes; i += blockDim.x)
    out[i] = stage[i];
}

bool Check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *message = nullptr;
  cuGetErrorString(result, &message);
  std::printf("%s failed: %s\n", what, message ? message : "?");
  return false;
}

} // namespace

int main() {
  const int m = 1000, k = 256; // uint8: k bytes per row
  CUdevice device;
  CUcontext context;
  if (!Check(cuInit(0), "cuInit") ||
      !Check(cuDeviceGet(&device, 0), "device") ||
      !Check(cuDevicePrimaryCtxRetain(&context, device), "context") ||
      !Check(cuCtxSetCurrent(context), "context"))
    return 1;
  std::vector<uint8_t> a(size_t(m) * k);
  for (uint8_t &v : a)
    v = static_cast<uint8_t>(std::rand());
  CUdeviceptr da, dout;
  if (!Check(cuMemAlloc(&da, a.size()), "alloc") ||
      !Check(cuMemAlloc(&dout, kRows * kRowBytes), "alloc") ||
      !Check(cuMemcpyHtoD(da, a.data(), a.size()), "copy"))
    return 1;
  // Innermost first: columns, g, h, w, j; row strides 1, 64, 8, 128 rows.
  cuuint64_t dims[5] = {cuuint64_t(k), 8, 2, kWarps, cuuint64_t(m / kRows)};
  cuuint64_t strides[4] = {cuuint64_t(k), cuuint64_t(8 * kWarps * k),
                           cuuint64_t(8 * k), cuuint64_t(kRows * k)};
  cuuint32_t box[5] = {kRowBytes, 8, 2, kWarps, 1};
  cuuint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  CUtensorMap map;
  if (!Check(cuTensorMapEncodeTiled(
                 &map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 5,
                 reinterpret_cast<void *>(da), dims, strides, box,
                 elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                 CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
             "cuTensorMapEncodeTiled"))
    return 1;
  int bad = 0;
  std::vector<uint8_t> out(kRows * kRowBytes);
  for (int j = 0; j < m / kRows; ++j) {
    CopyOneBox<<<1, 128>>>(map, reinterpret_cast<uint8_t *>(dout), j);
    if (!Check(cuCtxSynchronize(), "kernel") ||
        !Check(cuMemcpyDtoH(out.data(), dout, out.size()), "copy"))
      return 1;
    for (int g = 0; g < 8; ++g)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < kWarps; ++w)
          for (int c = 0; c < kRowBytes / 16; ++c)
            for (int b = 0; b < 16; ++b) {
              int staged = g + 8 * h + 16 * w;
              int row = kRows * j + g + 8 * w + 64 * h;
              uint8_t want = a[size_t(row) * k + c * 16 + b];
              uint8_t got =
                  out[staged * kRowBytes + (c ^ (staged & 7)) * 16 + b];
              if (want != got && bad++ < 5)
                std::printf("block %d row %d chunk %d byte %d: %d, want %d\n",
                            j, row, c, b, got, want);
            }
  }
  std::printf("%s (%d mismatches over %d blocks)\n", bad ? "FAIL" : "PASS", bad,
              m / kRows);
  return bad != 0;
}
