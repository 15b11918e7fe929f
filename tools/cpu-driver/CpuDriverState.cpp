//===- CpuDriverState.cpp - the CPU driver's shared state -----------------===//

#include "tools/cpu-driver/CpuDriverState.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace tilec::cpu::detail {

void warn(const std::string &message) {
  std::fprintf(stderr, "tilec cpu driver: %s\n", message.c_str());
  std::fflush(stderr);
}

static uint64_t defaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return kMaxDeviceMemory;
  return std::min(kMaxDeviceMemory, uint64_t(pages) * uint64_t(pageSize) / 2);
}

// A positive integer from the environment, or `fallback`.
static uint64_t envNumber(const char *name, uint64_t fallback) {
  const char *text = std::getenv(name);
  if (text == nullptr || *text == '\0')
    return fallback;
  char *end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || value == 0) {
    warn(std::string("ignoring ") + name + "='" + text +
         "' (not a positive integer)");
    return fallback;
  }
  return value;
}

// Never destroyed: modules and allocations may be used until exit.
State &state() {
  static State *const s = [] {
    State *s = new State();
    s->sms = int(std::min<uint64_t>(
        envNumber("TILEC_CPU_DRIVER_SMS", kDefaultSms), 1 << 20));
    uint64_t limit = defaultMemoryLimit();
    s->memoryLimit = envNumber("TILEC_CPU_DRIVER_MEMORY_GB", limit >> 30) << 30;
    if (s->memoryLimit == 0)
      s->memoryLimit = limit;
    return s;
  }();
  return *s;
}

// The one device's primary context; the handle is never dereferenced.
static char primaryContextObject;
CUcontext primaryContext() {
  return reinterpret_cast<CUcontext>(&primaryContextObject);
}

// Contexts are current per thread, as in the driver.
thread_local CUcontext currentContext = nullptr;

static bool isDefaultStream(CUstream stream) {
  return stream == nullptr || stream == CU_STREAM_LEGACY ||
         stream == CU_STREAM_PER_THREAD;
}

// The checks every stream-ordered call makes: a current context and a
// stream of it (only the default streams exist here).
CUresult checkStream(CUstream stream) {
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  return isDefaultStream(stream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

} // namespace tilec::cpu::detail
