//===- CpuModules.cpp - modules, functions and launches on the host -------===//
//
// The CPU driver's modules: the entries of PTX modules, matched by name to
// the tile kernels of the kernel library, their attributes, their launches
// (run by the interpreter) and the occupancy query.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/CpuDriverState.h"
#include "tools/cpu-driver/CpuEntryPoints.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

#include "mlir/IR/BuiltinAttributes.h"

#ifndef TILEC_CPU_DRIVER_KERNELS_DIR
#define TILEC_CPU_DRIVER_KERNELS_DIR ""
#endif

namespace tilec::cpu::detail {

// CUfunction_attribute values answered beyond those cuda_driver_api.h
// names.
enum : int {
  kFuncConstSizeBytes = 2,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
  kFuncPtxVersion = 5,
  kFuncBinaryVersion = 6,
  kFuncCacheModeCa = 7,
  kFuncPreferredSharedCarveout = 9,
  kFuncClusterSizeMustBeSet = 10,
  kFuncRequiredClusterWidth = 11,
  kFuncRequiredClusterHeight = 12,
  kFuncRequiredClusterDepth = 13,
  kFuncClusterSchedulingPolicy = 15,
};

//===----------------------------------------------------------------------===//
// Modules and functions
//===----------------------------------------------------------------------===//

static bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.';
}

// Reads the unsigned number at `at` (after blanks), advancing `at`.
static unsigned readNumber(const std::string &text, size_t &at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
    ++at;
  unsigned value = 0;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])))
    value = value * 10 + unsigned(text[at++] - '0');
  return value;
}

// The product of the comma-separated numbers after a directive at `at`.
static unsigned readDims(const std::string &text, size_t at, size_t end) {
  unsigned product = readNumber(text, at);
  while (at < end) {
    while (at < end && std::isspace(static_cast<unsigned char>(text[at])))
      ++at;
    if (at >= end || text[at] != ',')
      break;
    ++at;
    product *= readNumber(text, at);
  }
  return product;
}

// The `.entry` kernels of a PTX module: name, parameter count and the
// launch bounds between the parameter list and the body.
static std::map<std::string, EntryInfo> parseEntries(const std::string &ptx) {
  std::map<std::string, EntryInfo> entries;
  size_t at = 0;
  while ((at = ptx.find(".entry", at)) != std::string::npos) {
    at += 6;
    if (at >= ptx.size() || !std::isspace(static_cast<unsigned char>(ptx[at])))
      continue;
    while (at < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[at])))
      ++at;
    size_t nameEnd = at;
    while (nameEnd < ptx.size() && isIdentifierChar(ptx[nameEnd]))
      ++nameEnd;
    std::string name = ptx.substr(at, nameEnd - at);
    if (name.empty())
      continue;
    EntryInfo entry;
    size_t open = ptx.find('(', nameEnd);
    size_t body = ptx.find('{', nameEnd);
    size_t close =
        open == std::string::npos ? std::string::npos : ptx.find(')', open);
    if (open != std::string::npos && close != std::string::npos &&
        open < body && close < body) {
      for (size_t p = ptx.find(".param", open); p < close;
           p = ptx.find(".param", p + 6))
        ++entry.params;
    }
    size_t from = close == std::string::npos ? nameEnd : close;
    size_t end = body == std::string::npos ? ptx.size() : body;
    std::string bounds = ptx.substr(from, end - from);
    if (size_t p = bounds.find(".reqntid"); p != std::string::npos) {
      entry.maxThreads = readDims(bounds, p + 8, bounds.size());
      entry.exactThreads = true;
    } else if (size_t p = bounds.find(".maxntid"); p != std::string::npos) {
      entry.maxThreads = readDims(bounds, p + 8, bounds.size());
    }
    if (size_t p = bounds.find(".maxnreg"); p != std::string::npos) {
      size_t q = p + 8;
      entry.maxRegisters = readNumber(bounds, q);
    }
    entries[name] = entry;
    at = end;
  }
  return entries;
}

// The .mlir files of `path`: the file itself, or a directory's, sorted.
static void addKernelFiles(const std::string &path,
                           std::vector<std::string> &files) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    files.push_back(path);
    return;
  }
  std::vector<std::string> found;
  if (DIR *dir = opendir(path.c_str())) {
    while (dirent *item = readdir(dir)) {
      std::string name = item->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".mlir") == 0)
        found.push_back(path + "/" + name);
    }
    closedir(dir);
  }
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
}

static std::vector<std::string> kernelFiles() {
  const char *env = std::getenv("TILEC_CPU_DRIVER_KERNELS");
  std::string list = env != nullptr && *env != '\0'
                         ? std::string(env)
                         : std::string(TILEC_CPU_DRIVER_KERNELS_DIR);
  std::vector<std::string> files;
  size_t start = 0;
  while (start <= list.size()) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos)
      colon = list.size();
    if (colon > start)
      addKernelFiles(list.substr(start, colon - start), files);
    start = colon + 1;
  }
  return files;
}

// Loads the kernel library once, under the lock; its error stays.
static KernelLibrary *library(State &s) {
  if (s.libraryTried)
    return s.library.get();
  s.libraryTried = true;
  std::vector<std::string> files = kernelFiles();
  if (files.empty()) {
    s.libraryError = "no kernel files: set TILEC_CPU_DRIVER_KERNELS to "
                     "colon-separated .mlir files or directories";
  } else {
    s.library = KernelLibrary::load(files, "sm_80", s.libraryError);
    if (s.library == nullptr && s.libraryError.empty())
      s.libraryError = "loading the kernels failed";
  }
  if (s.library == nullptr)
    warn("cannot load the tile kernels:\n" + s.libraryError);
  return s.library.get();
}

// Writes `text` into a JIT log buffer of `size` bytes, NUL-terminated.
static void writeLog(void *buffer, uintptr_t size, const std::string &text,
                     void **sizeSlot) {
  if (buffer == nullptr || size == 0)
    return;
  size_t n = std::min<size_t>(text.size(), size - 1);
  std::memcpy(buffer, text.data(), n);
  static_cast<char *>(buffer)[n] = '\0';
  if (sizeSlot != nullptr)
    *sizeSlot = reinterpret_cast<void *>(uintptr_t(n));
}

CUresult moduleLoadDataEx(CUmodule *module, const void *image,
                          unsigned numOptions, CUjit_option *options,
                          void **values) {
  if (module == nullptr || image == nullptr ||
      (numOptions > 0 && (options == nullptr || values == nullptr)))
    return CUDA_ERROR_INVALID_VALUE;
  if (currentContext == nullptr)
    return CUDA_ERROR_INVALID_CONTEXT;
  void *errorLog = nullptr, *infoLog = nullptr;
  uintptr_t errorSize = 0, infoSize = 0;
  void **errorSizeSlot = nullptr, **infoSizeSlot = nullptr;
  for (unsigned i = 0; i < numOptions; ++i) {
    switch (options[i]) {
    case CU_JIT_ERROR_LOG_BUFFER:
      errorLog = values[i];
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      errorSize = reinterpret_cast<uintptr_t>(values[i]);
      errorSizeSlot = &values[i];
      break;
    case CU_JIT_INFO_LOG_BUFFER:
      infoLog = values[i];
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      infoSize = reinterpret_cast<uintptr_t>(values[i]);
      infoSizeSlot = &values[i];
      break;
    default:
      break; // Code generation options mean nothing here.
    }
  }
  writeLog(infoLog, infoSize, "", infoSizeSlot);
  writeLog(errorLog, errorSize, "", errorSizeSlot);

  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.sticky)
    return s.sticky;
  if (library(s) == nullptr) {
    writeLog(errorLog, errorSize,
             "tilec cpu driver: cannot load the tile kernels:\n" +
                 s.libraryError,
             errorSizeSlot);
    return CUDA_ERROR_INVALID_PTX;
  }
  auto rec = std::make_unique<ModuleRec>();
  rec->entries = parseEntries(static_cast<const char *>(image));
  ModuleRec *handle = rec.get();
  s.modules[handle] = std::move(rec);
  *module = reinterpret_cast<CUmodule>(handle);
  return CUDA_SUCCESS;
}

CUresult moduleUnload(CUmodule module) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.modules.find(reinterpret_cast<ModuleRec *>(module));
  if (it == s.modules.end())
    return CUDA_ERROR_INVALID_HANDLE;
  for (auto &[name, function] : it->second->functions)
    s.functions.erase(function.get());
  s.modules.erase(it);
  return CUDA_SUCCESS;
}

CUresult moduleGetFunction(CUfunction *function, CUmodule module,
                           const char *name) {
  if (function == nullptr || name == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.modules.find(reinterpret_cast<ModuleRec *>(module));
  if (it == s.modules.end())
    return CUDA_ERROR_INVALID_HANDLE;
  ModuleRec &rec = *it->second;
  if (auto known = rec.functions.find(name); known != rec.functions.end()) {
    *function = reinterpret_cast<CUfunction>(known->second.get());
    return CUDA_SUCCESS;
  }
  auto entry = rec.entries.find(name);
  if (entry == rec.entries.end())
    return CUDA_ERROR_NOT_FOUND;
  mlir::func::FuncOp kernel = s.library->lookup(name);
  if (!kernel) {
    warn(std::string("the PTX module has kernel '") + name +
         "' but the tile kernels loaded have none of that name");
    return CUDA_ERROR_NOT_FOUND;
  }
  // Arguments are passed to the interpreter as the PTX declares them.
  if (kernel.getNumArguments() != entry->second.params) {
    warn(std::string("kernel '") + name + "' takes " +
         std::to_string(kernel.getNumArguments()) +
         " arguments as a tile kernel but " +
         std::to_string(entry->second.params) + " in the PTX module");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  auto fn = std::make_unique<FunctionRec>();
  fn->name = name;
  fn->kernel = kernel;
  fn->entry = entry->second;
  if (entry->second.maxThreads != 0) {
    fn->maxThreads =
        int(std::min<unsigned>(entry->second.maxThreads, kMaxThreadsPerBlock));
    if (entry->second.exactThreads)
      fn->requiredThreads = entry->second.maxThreads;
  } else if (auto warps =
                 kernel->getAttrOfType<mlir::IntegerAttr>("tile.num_warps")) {
    fn->maxThreads =
        int(std::min<int64_t>(warps.getInt() * kWarpSize, kMaxThreadsPerBlock));
  }
  // Registers: the bound ptxas was given, else the most a block of the
  // largest size could have (an upper bound, for occupancy).
  fn->registers = entry->second.maxRegisters != 0
                      ? int(entry->second.maxRegisters)
                      : std::min(255, kRegistersPerSm /
                                          std::max(fn->maxThreads, 1) / 8 * 8);
  FunctionRec *handle = fn.get();
  rec.functions[name] = std::move(fn);
  s.functions[handle] = &rec;
  *function = reinterpret_cast<CUfunction>(handle);
  return CUDA_SUCCESS;
}

static FunctionRec *findFunction(State &s, CUfunction function) {
  auto it = s.functions.find(reinterpret_cast<FunctionRec *>(function));
  return it == s.functions.end() ? nullptr : it->first;
}

CUresult funcSetAttribute(CUfunction function, CUfunction_attribute attribute,
                          int value) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  FunctionRec *fn = findFunction(s, function);
  if (fn == nullptr)
    return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    if (value < 0 || value > kMaxSharedPerBlockOptin)
      return CUDA_ERROR_INVALID_VALUE;
    fn->maxDynamicShared = value;
    return CUDA_SUCCESS;
  case kFuncPreferredSharedCarveout:
    if (value < -1 || value > 100)
      return CUDA_ERROR_INVALID_VALUE;
    fn->preferredCarveout = value;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    fn->nonPortableClusters = value != 0;
    return CUDA_SUCCESS;
  default:
    warn("setting function attribute " + std::to_string(attribute) +
         " is not emulated; returning CUDA_ERROR_INVALID_VALUE");
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult funcGetAttribute(int *value, CUfunction_attribute attribute,
                          CUfunction function) {
  if (value == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  FunctionRec *fn = findFunction(s, function);
  if (fn == nullptr)
    return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = fn->maxThreads;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: // only dynamic shared memory
  case kFuncConstSizeBytes:
  case kFuncLocalSizeBytes:
  case kFuncCacheModeCa:
  case kFuncClusterSizeMustBeSet:
  case kFuncRequiredClusterWidth:
  case kFuncRequiredClusterHeight:
  case kFuncRequiredClusterDepth:
  case kFuncClusterSchedulingPolicy:
    *value = 0;
    break;
  case kFuncNumRegs:
    *value = fn->registers;
    break;
  case kFuncPtxVersion:
  case kFuncBinaryVersion:
    *value = 80;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *value = fn->maxDynamicShared;
    break;
  case kFuncPreferredSharedCarveout:
    *value = fn->preferredCarveout;
    break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    *value = fn->nonPortableClusters;
    break;
  default:
    warn("function attribute " + std::to_string(attribute) +
         " is not emulated; returning CUDA_ERROR_INVALID_VALUE");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

// The checks the driver makes of a launch's shape and resources.
static CUresult checkLaunch(const FunctionRec &fn, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned sharedBytes) {
  auto fail = [&](const std::string &why) {
    warn("launch of kernel '" + fn.name + "' rejected: " + why);
    return CUDA_ERROR_INVALID_VALUE;
  };
  if (gx == 0 || gy == 0 || gz == 0 || gx > kMaxGridX || gy > kMaxGridYZ ||
      gz > kMaxGridYZ)
    return fail("grid (" + std::to_string(gx) + ", " + std::to_string(gy) +
                ", " + std::to_string(gz) + ") is out of range");
  const uint64_t threads = uint64_t(bx) * by * bz;
  if (bx == 0 || by == 0 || bz == 0 || bz > 64 ||
      threads > unsigned(fn.maxThreads))
    return fail("block (" + std::to_string(bx) + ", " + std::to_string(by) +
                ", " + std::to_string(bz) + ") exceeds the kernel's limit of " +
                std::to_string(fn.maxThreads) + " threads");
  if (fn.requiredThreads != 0 && threads != fn.requiredThreads)
    return fail("block of " + std::to_string(threads) +
                " threads but the kernel requires " +
                std::to_string(fn.requiredThreads) + " (.reqntid)");
  if (sharedBytes > unsigned(fn.maxDynamicShared))
    return fail(std::to_string(sharedBytes) +
                " bytes of dynamic shared memory, more than the " +
                std::to_string(fn.maxDynamicShared) + " allowed");
  return CUDA_SUCCESS;
}

CUresult launchKernel(CUfunction function, unsigned gx, unsigned gy,
                      unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned sharedBytes, CUstream stream, void **params,
                      void **extra) {
  if (CUresult result = checkStream(stream))
    return result;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.sticky)
    return s.sticky;
  FunctionRec *fn = findFunction(s, function);
  if (fn == nullptr)
    return CUDA_ERROR_INVALID_HANDLE;
  if (extra != nullptr) {
    warn("launch of kernel '" + fn->name +
         "': arguments through `extra` are not supported");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (params == nullptr && fn->kernel.getNumArguments() > 0) {
    warn("launch of kernel '" + fn->name + "' without its arguments");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (CUresult result = checkLaunch(*fn, gx, gy, gz, bx, by, bz, sharedBytes))
    return result;
  std::string error = runKernel(fn->kernel, Grid{gx, gy, gz}, params, s.memory);
  if (error.empty())
    return CUDA_SUCCESS;
  // As after a fault on a GPU, the context stays unusable.
  s.sticky = kLaunchFailed;
  warn("launch of kernel '" + fn->name + "' on grid (" + std::to_string(gx) +
       ", " + std::to_string(gy) + ", " + std::to_string(gz) + ") failed:\n" +
       error +
       "\ntilec cpu driver: the context is now unusable: later launches, "
       "copies and synchronizations return CUDA_ERROR_LAUNCH_FAILED");
  return kLaunchFailed;
}

// Programs of `function` the device holds at once, as clusters of one:
// what persistent kernels launch (compute capability 8.0 has no larger
// clusters).
CUresult occupancyMaxActiveClusters(int *clusters, CUfunction function,
                                    const CUlaunchConfig *config) {
  if (clusters == nullptr || config == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  FunctionRec *fn = findFunction(s, function);
  if (fn == nullptr)
    return CUDA_ERROR_INVALID_HANDLE;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &attribute = config->attrs[i];
    if (attribute.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
        uint64_t(attribute.value.clusterDim.x) * attribute.value.clusterDim.y *
                attribute.value.clusterDim.z !=
            1)
      return CUDA_ERROR_NOT_SUPPORTED;
  }
  const uint64_t threads =
      uint64_t(config->blockDimX) * config->blockDimY * config->blockDimZ;
  if (threads == 0 || threads > uint64_t(fn->maxThreads) ||
      config->sharedMemBytes > unsigned(fn->maxDynamicShared))
    return CUDA_ERROR_INVALID_VALUE;
  const uint64_t warpsThreads =
      (threads + kWarpSize - 1) / kWarpSize * kWarpSize;
  uint64_t perSm = kMaxBlocksPerSm;
  perSm = std::min<uint64_t>(perSm, kMaxThreadsPerSm / warpsThreads);
  perSm = std::min<uint64_t>(
      perSm, kSharedPerSm / (config->sharedMemBytes + kReservedSharedPerBlock));
  perSm = std::min<uint64_t>(
      perSm,
      kRegistersPerSm / (std::max<uint64_t>(fn->registers, 1) * warpsThreads));
  *clusters = int(perSm * uint64_t(s.sms));
  return CUDA_SUCCESS;
}

} // namespace tilec::cpu::detail
