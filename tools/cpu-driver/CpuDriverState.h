//===- CpuDriverState.h - the CPU driver's shared state ---------*- C++ -*-===//
//
// Internal to the CPU driver (CpuDriver.h is its interface): the device's
// limits, the state every entry point shares behind one lock, and the
// checks that entry points of several kinds make.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_CPU_DRIVER_CPUDRIVERSTATE_H
#define TILEC_TOOLS_CPU_DRIVER_CPUDRIVERSTATE_H

#include "runtime/cuda_driver_api.h"
#include "tools/cpu-driver/Interpreter.h"
#include "tools/cpu-driver/KernelLibrary.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace tilec::cpu::detail {

// The driver's types and values, for the driver's own files only.
using namespace tilec::cu;

// Codes cuda_driver_api.h does not name (values from cuda.h).
constexpr CUresult kLaunchFailed = 719; // CUDA_ERROR_LAUNCH_FAILED

// An A100's limits (compute capability 8.0).
constexpr int kWarpSize = 32;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kMaxBlocksPerSm = 32;
constexpr int kRegistersPerSm = 65536;
constexpr int kDefaultSharedPerBlock = 48 * 1024;
constexpr int kMaxSharedPerBlockOptin = 163 * 1024;
constexpr int kSharedPerSm = 164 * 1024;
constexpr int kReservedSharedPerBlock = 1024;
constexpr unsigned kMaxGridX = 0x7fffffffu;
constexpr unsigned kMaxGridYZ = 65535;
constexpr int kDefaultSms = 132;
constexpr uint64_t kMaxDeviceMemory = uint64_t(80) << 30;

/// Prints `message` to stderr, prefixed with the driver's name.
void warn(const std::string &message);

// What a PTX entry declares that the driver would read from it.
struct EntryInfo {
  unsigned params = 0;
  unsigned maxThreads = 0;   // .reqntid or .maxntid; 0 when neither
  bool exactThreads = false; // .reqntid: launches must use that many
  unsigned maxRegisters = 0;
};

struct FunctionRec {
  std::string name;
  mlir::func::FuncOp kernel;
  EntryInfo entry;
  unsigned requiredThreads = 0; // from .reqntid: launches must match
  int maxThreads = kMaxThreadsPerBlock;
  int registers = 0;
  int maxDynamicShared = kDefaultSharedPerBlock;
  int preferredCarveout = -1;
  int nonPortableClusters = 0;
};

struct ModuleRec {
  std::map<std::string, EntryInfo> entries;
  std::map<std::string, std::unique_ptr<FunctionRec>> functions;
};

struct Allocation {
  uint64_t bytes;
  uint64_t id;
  bool pooled;
};

struct EventRec {};

// Everything the entry points share; one lock, held through launches so
// that kernels see memory no other call is changing.
struct State {
  std::mutex mutex;
  MemoryMap memory;
  std::map<uint64_t, Allocation> allocations;
  uint64_t allocatedBytes = 0;
  uint64_t nextAllocationId = 1;
  uint64_t memoryLimit = 0;
  int sms = kDefaultSms;
  bool libraryTried = false;
  std::unique_ptr<KernelLibrary> library;
  std::string libraryError;
  std::map<ModuleRec *, std::unique_ptr<ModuleRec>> modules;
  std::map<FunctionRec *, ModuleRec *> functions;
  std::set<EventRec *> events;
  CUresult sticky = CUDA_SUCCESS;
};

/// The shared state, made on first use from the environment.
State &state();

/// The one device's primary context.
CUcontext primaryContext();

// Contexts are current per thread, as in the driver.
extern thread_local CUcontext currentContext;

// The checks every stream-ordered call makes: a current context and a
// stream of it (only the default streams exist here).
CUresult checkStream(CUstream stream);

} // namespace tilec::cpu::detail

#endif // TILEC_TOOLS_CPU_DRIVER_CPUDRIVERSTATE_H
