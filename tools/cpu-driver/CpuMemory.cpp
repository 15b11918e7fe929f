//===- CpuMemory.cpp - device memory emulated in host memory --------------===//
//
// The CPU driver's allocations, copies, fills and pointer attributes.
// Device memory is host memory; every allocation is registered with the
// interpreter's memory map so that kernels' accesses are checked.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/CpuDriverState.h"
#include "tools/cpu-driver/CpuEntryPoints.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace tilec::cpu::detail {

// CUpointer_attribute values beyond cuda_driver_api.h's.
enum : int {
  kPointerContext = 1,
  kPointerDevicePointer = 3,
  kPointerHostPointer = 4,
  kPointerSyncMemops = 6,
  kPointerBufferId = 7,
  kPointerMapped = 13,
  kPointerMempoolHandle = 17,
};

// cudaMalloc's alignment, and the poison new allocations are filled with
// so that reads of memory no one wrote show up in results.
constexpr size_t kAllocAlignment = 256;
constexpr unsigned char kPoison = 0xCD;

// The allocation holding `address`, or null.
static const std::pair<const uint64_t, Allocation> *
findAllocation(State &s, uint64_t address) {
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin())
    return nullptr;
  --it;
  if (address - it->first >= it->second.bytes)
    return nullptr;
  return &*it;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static CUresult allocate(CUdeviceptr *ptr, size_t bytes, bool pooled) {
  if (ptr == nullptr || bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.sticky)
    return s.sticky;
  if (bytes > s.memoryLimit - s.allocatedBytes)
    return CUDA_ERROR_OUT_OF_MEMORY;
  const size_t rounded =
      (bytes + kAllocAlignment - 1) / kAllocAlignment * kAllocAlignment;
  void *memory = std::aligned_alloc(kAllocAlignment, rounded);
  if (memory == nullptr)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(memory, kPoison, rounded);
  const uint64_t base = reinterpret_cast<uintptr_t>(memory);
  // The exact size, so that kernels reading past it are caught; nothing
  // written yet, so that kernels reading what no one wrote are too.
  s.memory.add(base, bytes, /*written=*/false);
  s.allocations[base] = Allocation{bytes, s.nextAllocationId++, pooled};
  s.allocatedBytes += bytes;
  *ptr = base;
  return CUDA_SUCCESS;
}

static CUresult release(CUdeviceptr ptr) {
  if (ptr == 0)
    return CUDA_SUCCESS;
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.allocations.find(ptr);
  if (it == s.allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  s.memory.remove(ptr);
  s.allocatedBytes -= it->second.bytes;
  s.allocations.erase(it);
  std::free(reinterpret_cast<void *>(uintptr_t(ptr)));
  return CUDA_SUCCESS;
}

CUresult memAlloc(CUdeviceptr *ptr, size_t bytes) {
  return allocate(ptr, bytes, /*pooled=*/false);
}

CUresult memFree(CUdeviceptr ptr) { return release(ptr); }

CUresult memAllocAsync(CUdeviceptr *ptr, size_t bytes, CUstream stream) {
  if (CUresult result = checkStream(stream))
    return result;
  return allocate(ptr, bytes, /*pooled=*/true);
}

CUresult memFreeAsync(CUdeviceptr ptr, CUstream stream) {
  if (CUresult result = checkStream(stream))
    return result;
  if (ptr == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return release(ptr);
}

// The checks a copy or fill of [address, address + bytes) of device memory
// makes, under the lock.
static CUresult checkDeviceRange(State &s, CUdeviceptr address, size_t bytes) {
  if (s.sticky)
    return s.sticky;
  if (address + bytes < address || !s.memory.contains(address, bytes))
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult memcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (bytes == 0)
    return s.sticky;
  if (src == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult result = checkDeviceRange(s, dst, bytes))
    return result;
  std::memcpy(reinterpret_cast<void *>(uintptr_t(dst)), src, bytes);
  s.memory.markWritten(dst, bytes);
  return CUDA_SUCCESS;
}

CUresult memcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (bytes == 0)
    return s.sticky;
  if (dst == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult result = checkDeviceRange(s, src, bytes))
    return result;
  std::memcpy(dst, reinterpret_cast<const void *>(uintptr_t(src)), bytes);
  return CUDA_SUCCESS;
}

static CUresult fill32(CUdeviceptr dst, unsigned value, size_t count) {
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (count == 0)
    return s.sticky;
  if (dst % 4 != 0 || count > SIZE_MAX / 4)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult result = checkDeviceRange(s, dst, count * 4))
    return result;
  uint32_t *words = reinterpret_cast<uint32_t *>(uintptr_t(dst));
  std::fill(words, words + count, uint32_t(value));
  s.memory.markWritten(dst, count * 4);
  return CUDA_SUCCESS;
}

CUresult memsetD32(CUdeviceptr dst, unsigned value, size_t count) {
  return fill32(dst, value, count);
}

CUresult memsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                        CUstream stream) {
  if (CUresult result = checkStream(stream))
    return result;
  return fill32(dst, value, count);
}

// Answers as the driver does: device memory of device 0 in the primary
// context for allocations; for any other address every attribute keeps
// its "none" value and the call succeeds (the runtime then reports the
// address as not CUDA memory).
CUresult pointerGetAttributes(unsigned count, CUpointer_attribute *attributes,
                              void **data, CUdeviceptr ptr) {
  if (count > 0 && (attributes == nullptr || data == nullptr))
    return CUDA_ERROR_INVALID_VALUE;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto *found = findAllocation(s, ptr);
  for (unsigned i = 0; i < count; ++i) {
    void *out = data[i];
    if (out == nullptr)
      return CUDA_ERROR_INVALID_VALUE;
    switch (attributes[i]) {
    case kPointerContext:
      *static_cast<CUcontext *>(out) = found ? primaryContext() : nullptr;
      break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned *>(out) = found ? CU_MEMORYTYPE_DEVICE : 0;
      break;
    case kPointerDevicePointer:
      *static_cast<CUdeviceptr *>(out) = found ? ptr : 0;
      break;
    case kPointerHostPointer:
      *static_cast<void **>(out) = nullptr;
      break;
    case kPointerSyncMemops:
    case kPointerMapped:
      *static_cast<bool *>(out) = found != nullptr;
      break;
    case kPointerBufferId:
      *static_cast<unsigned long long *>(out) = found ? found->second.id : 0;
      break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<bool *>(out) = false;
      break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      // -2: cudaInvalidDeviceId, what the driver answers for host memory.
      *static_cast<int *>(out) = found ? 0 : -2;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr *>(out) = found ? found->first : 0;
      break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<size_t *>(out) = found ? found->second.bytes : 0;
      break;
    case kPointerMempoolHandle:
      // The pool is not modelled; a non-null handle marks pooled memory.
      *static_cast<void **>(out) =
          found && found->second.pooled ? primaryContext() : nullptr;
      break;
    default:
      warn("pointer attribute " + std::to_string(attributes[i]) +
           " is not emulated; returning CUDA_ERROR_INVALID_VALUE");
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

} // namespace tilec::cpu::detail
