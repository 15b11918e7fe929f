// Which GPUs the PTX of a tilec target runs on.
//
// Plain PTX (sm_80) is JIT-compiled for any device of that compute capability
// or newer. Architecture-specific PTX (sm_90a: wgmma; sm_100a: tcgen05 and
// tensor memory) runs only on exactly its compute capability; the driver
// would reject it with a JIT error that names neither the kernel nor the
// device, so modules are checked against the device before they are loaded.
#ifndef TILEC_RUNTIME_TARGET_H_
#define TILEC_RUNTIME_TARGET_H_

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/metadata.h"

namespace tilec {

// The compute capability (major, minor) that architecture-specific PTX for
// `target` requires ("sm_100a": 10.0), or nothing for forward-compatible
// targets ("sm_80") and names that carry no such suffix.
std::optional<std::pair<int, int>>
RequiredComputeCapability(absl::string_view target);

// OK when the kernels of `module` can run on a device of compute capability
// `major`.`minor`; otherwise FailedPrecondition naming the kernels, their
// target and the device's capability, e.g. "kernel 'gemm_bf16' is compiled
// for sm_100a, which runs only on compute capability 10.0 GPUs; this GPU
// is 9.0 (load the module compiled for sm_90a)".
absl::Status CheckTargetRunsOn(const ModuleInfo &module, int major, int minor);

} // namespace tilec

#endif // TILEC_RUNTIME_TARGET_H_
