// A PTX module loaded into the current device, with its kernels.
#ifndef TILEC_RUNTIME_MODULE_H_
#define TILEC_RUNTIME_MODULE_H_

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/driver.h"
#include "runtime/kernel.h"
#include "runtime/metadata.h"

namespace tilec {

class Module {
public:
  // Parses `metadata_json` (errors here need no driver), JIT-compiles `ptx`
  // in the current context (or device 0's primary context when none is
  // current), and prepares every kernel the metadata lists: it must be an
  // entry of the PTX, its block size must fit the compiled function, and
  // dynamic shared memory above 48 KiB is opted into up to the device limit.
  // A JIT failure's status message contains the driver's error log verbatim.
  static absl::StatusOr<std::unique_ptr<Module>>
  Load(absl::string_view ptx, absl::string_view metadata_json);

  // Unloads the module; its kernels become invalid.
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  // The kernel called `name`, or NotFound listing the available names.
  absl::StatusOr<const Kernel *> GetKernel(absl::string_view name) const;

  const ModuleInfo &info() const { return info_; }

  // The JIT's informational log (register and shared-memory usage per
  // kernel, from ptxas in verbose mode); empty when the driver's JIT cache
  // supplied the compiled module.
  const std::string &jit_info_log() const { return jit_info_log_; }

private:
  Module(const Driver &driver, CUcontext context, CUmodule module,
         ModuleInfo info, std::string jit_info_log)
      : driver_(driver), context_(context), module_(module),
        info_(std::move(info)), jit_info_log_(std::move(jit_info_log)) {}

  // Resolves one metadata kernel and applies its launch attributes.
  absl::Status AddKernel(const KernelInfo &kernel);

  const Driver &driver_;
  CUcontext context_;
  CUmodule module_;
  ModuleInfo info_;
  std::string jit_info_log_;
  absl::flat_hash_map<std::string, std::unique_ptr<Kernel>> kernels_;
};

} // namespace tilec

#endif // TILEC_RUNTIME_MODULE_H_
