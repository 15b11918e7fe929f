// Kernels compiled ahead of time and linked into the library.
//
// The build generates one C++ file (see cmake/TilecEmbedKernels.cmake) that
// defines EmbeddedModuleTable() over an array of EmbeddedModule entries. A
// weak empty default keeps the library linkable when nothing is embedded.
#ifndef TILEC_RUNTIME_EMBEDDED_H_
#define TILEC_RUNTIME_EMBEDDED_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/module.h"

namespace tilec {

// One module for one target: the PTX and its metadata document.
struct EmbeddedModule {
  const char *name;     // module name, e.g. "softmax"
  const char *target;   // "sm_80", "sm_90a", "sm_100a"
  const char *ptx;      // NUL-terminated PTX text
  const char *metadata; // NUL-terminated metadata JSON
  const char *digest;   // SHA-256 of the PTX, hex (what the kernels are)
};

// The embedded table. Defined weakly in embedded.cc (empty) and strongly by
// the generated file.
absl::Span<const EmbeddedModule> EmbeddedModuleTable();

// All embedded modules, in table order.
absl::Span<const EmbeddedModule> ListEmbedded();

// The PTX target to use on the current device: "sm_90a" for compute
// capability 9.0, "sm_100a" for 10.0, "sm_80" for any other 8.0 or newer.
// Older devices get FailedPrecondition.
absl::StatusOr<std::string> DefaultTarget();

// The target for a compute capability, or "" when unsupported.
std::string TargetForComputeCapability(int major, int minor);

// Loads the embedded module `module_name` compiled for `target` (empty:
// DefaultTarget()). NotFound lists what is embedded.
absl::StatusOr<std::unique_ptr<Module>>
LoadEmbedded(absl::string_view module_name, absl::string_view target = "");

// A kernel of an embedded module on device `device`: the module is loaded
// into that device's primary context (for that device's target) on first
// use and kept for the life of the process, one copy per device. The entry
// points of runtime/softmax.h, runtime/topk.h and runtime/gemm.h launch
// through it on the device that holds their tensors.
absl::StatusOr<const Kernel *> GetEmbeddedKernel(absl::string_view module_name,
                                                 absl::string_view kernel_name,
                                                 int device);

// The same on the device of the current context (device 0 when none is
// current).
absl::StatusOr<const Kernel *> GetEmbeddedKernel(absl::string_view module_name,
                                                 absl::string_view kernel_name);

} // namespace tilec

#endif // TILEC_RUNTIME_EMBEDDED_H_
