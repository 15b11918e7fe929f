#include "runtime/embedded.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "runtime/context.h"

namespace tilec {

// Weak so that the generated table, when linked in, replaces it.
__attribute__((weak)) absl::Span<const EmbeddedModule> EmbeddedModuleTable() {
  return {};
}

absl::Span<const EmbeddedModule> ListEmbedded() {
  return EmbeddedModuleTable();
}

std::string TargetForComputeCapability(int major, int minor) {
  // Architecture-specific ("a") PTX runs only on exactly its compute
  // capability; plain sm_80 PTX is JIT-compiled for any newer device.
  if (major == 9 && minor == 0)
    return "sm_90a";
  if (major == 10 && minor == 0)
    return "sm_100a";
  if (major >= 8)
    return "sm_80";
  return "";
}

absl::StatusOr<std::string> DefaultTarget() {
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> major = CurrentDeviceAttribute(
      **driver, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  if (!major.ok())
    return major.status();
  absl::StatusOr<int> minor = CurrentDeviceAttribute(
      **driver, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  if (!minor.ok())
    return minor.status();
  std::string target = TargetForComputeCapability(*major, *minor);
  if (target.empty())
    return absl::FailedPreconditionError(
        absl::StrCat("no tilec target for compute capability ", *major, ".",
                     *minor, "; tilec needs 8.0 or newer"));
  return target;
}

absl::StatusOr<std::unique_ptr<Module>>
LoadEmbedded(absl::string_view module_name, absl::string_view target) {
  std::string chosen(target);
  if (chosen.empty()) {
    absl::StatusOr<std::string> device_target = DefaultTarget();
    if (!device_target.ok())
      return device_target.status();
    chosen = *device_target;
  }
  std::vector<std::string> available;
  for (const EmbeddedModule &entry : ListEmbedded()) {
    if (entry.name == module_name && entry.target == chosen)
      return Module::Load(entry.ptx, entry.metadata);
    available.push_back(absl::StrCat(entry.name, "@", entry.target));
  }
  return absl::NotFoundError(absl::StrCat(
      "no embedded module '", module_name, "' for target ", chosen,
      "; embedded: ",
      available.empty() ? "(none)" : absl::StrJoin(available, ", ")));
}

absl::StatusOr<const Kernel *> GetEmbeddedKernel(absl::string_view module_name,
                                                 absl::string_view kernel_name,
                                                 int device) {
  static absl::Mutex mutex(absl::kConstInit);
  static auto *modules ABSL_GUARDED_BY(mutex) =
      new absl::flat_hash_map<std::pair<int, std::string>,
                              std::unique_ptr<Module>>();
  absl::MutexLock lock(&mutex);
  auto key = std::make_pair(device, std::string(module_name));
  auto it = modules->find(key);
  if (it == modules->end()) {
    absl::StatusOr<const Driver *> driver = Driver::Get();
    if (!driver.ok())
      return driver.status();
    absl::StatusOr<CUcontext> primary = PrimaryContext(**driver, device);
    if (!primary.ok())
      return primary.status();
    // Load (and pick the target) in that device's context; the caller's
    // context is current again afterwards.
    ScopedContext scope(**driver, *primary);
    if (!scope.status().ok())
      return scope.status();
    absl::StatusOr<std::unique_ptr<Module>> loaded = LoadEmbedded(module_name);
    if (!loaded.ok())
      return loaded.status();
    it = modules->emplace(std::move(key), *std::move(loaded)).first;
  }
  return it->second->GetKernel(kernel_name);
}

absl::StatusOr<const Kernel *>
GetEmbeddedKernel(absl::string_view module_name,
                  absl::string_view kernel_name) {
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device = CurrentDevice(**driver);
  if (!device.ok())
    return device.status();
  return GetEmbeddedKernel(module_name, kernel_name, std::max(*device, 0));
}

} // namespace tilec
