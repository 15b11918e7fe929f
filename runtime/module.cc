#include "runtime/module.h"

#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "runtime/context.h"
#include "runtime/target.h"

namespace tilec {
namespace {

// Static plus dynamic shared memory a block may use without opting in.
constexpr int kDefaultSharedLimit = 48 * 1024;

// Enough for ptxas's messages on any realistic module; the driver truncates
// longer logs rather than failing.
constexpr size_t kJitLogBytes = 64 * 1024;

// Result of the JIT with its two logs.
struct JitResult {
  cu::CUresult result;
  CUmodule module = nullptr;
  std::string error_log;
  std::string info_log;
};

JitResult JitCompile(const Driver &driver, absl::string_view ptx) {
  // The driver reads the image as a NUL-terminated string.
  std::string image(ptx);
  std::vector<char> error_log(kJitLogBytes, '\0');
  std::vector<char> info_log(kJitLogBytes, '\0');
  cu::CUjit_option options[] = {
      cu::CU_JIT_ERROR_LOG_BUFFER, cu::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      cu::CU_JIT_INFO_LOG_BUFFER, cu::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      cu::CU_JIT_LOG_VERBOSE};
  // Option values are passed as pointer-sized integers or pointers.
  void *values[] = {
      error_log.data(), reinterpret_cast<void *>(uintptr_t{kJitLogBytes}),
      info_log.data(), reinterpret_cast<void *>(uintptr_t{kJitLogBytes}),
      reinterpret_cast<void *>(uintptr_t{1})};
  JitResult jit;
  jit.result = driver.api().cuModuleLoadDataEx(
      &jit.module, image.c_str(), std::size(options), options, values);
  jit.error_log = std::string(
      absl::StripTrailingAsciiWhitespace(absl::string_view(error_log.data())));
  jit.info_log = std::string(
      absl::StripTrailingAsciiWhitespace(absl::string_view(info_log.data())));
  return jit;
}

} // namespace

absl::StatusOr<std::unique_ptr<Module>>
Module::Load(absl::string_view ptx, absl::string_view metadata_json) {
  absl::StatusOr<ModuleInfo> info = ParseMetadata(metadata_json);
  if (!info.ok())
    return info.status();
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<CUcontext> context = CurrentOrPrimaryContext(**driver);
  if (!context.ok())
    return context.status();

  // Architecture-specific PTX on another GPU: say which kernel and which
  // GPU, rather than the JIT's "no kernel image" error.
  absl::StatusOr<int> major = CurrentDeviceAttribute(
      **driver, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  absl::StatusOr<int> minor = CurrentDeviceAttribute(
      **driver, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  if (!major.ok())
    return major.status();
  if (!minor.ok())
    return minor.status();
  if (absl::Status status = CheckTargetRunsOn(*info, *major, *minor);
      !status.ok())
    return status;

  JitResult jit = JitCompile(**driver, ptx);
  if (absl::Status status = (*driver)->Check(jit.result, "cuModuleLoadDataEx");
      !status.ok()) {
    const std::string &log =
        jit.error_log.empty() ? jit.info_log : jit.error_log;
    return absl::Status(
        status.code(),
        absl::StrCat(status.message(), " loading PTX for target ", info->target,
                     "\nJIT log:\n", log.empty() ? "(empty)" : log));
  }

  std::unique_ptr<Module> module(new Module(**driver, *context, jit.module,
                                            *std::move(info),
                                            std::move(jit.info_log)));
  for (const KernelInfo &kernel : module->info_.kernels)
    if (absl::Status status = module->AddKernel(kernel); !status.ok())
      return status;
  return module;
}

absl::Status Module::AddKernel(const KernelInfo &kernel) {
  const DriverApi &api = driver_.api();
  CUfunction function = nullptr;
  cu::CUresult result =
      api.cuModuleGetFunction(&function, module_, kernel.name.c_str());
  if (result == cu::CUDA_ERROR_NOT_FOUND)
    return absl::NotFoundError(
        absl::StrCat("metadata lists kernel '", kernel.name,
                     "' but the PTX module has no entry of that name"));
  if (absl::Status status = driver_.Check(
          result, absl::StrCat("cuModuleGetFunction('", kernel.name, "')"));
      !status.ok())
    return status;

  int max_threads = 0;
  int static_shared = 0;
  absl::Status status = driver_.Check(
      api.cuFuncGetAttribute(
          &max_threads, cu::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
      "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  if (status.ok())
    status = driver_.Check(
        api.cuFuncGetAttribute(
            &static_shared, cu::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function),
        "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  if (!status.ok())
    return status;

  // The function's limit reflects its register use, so a block size the
  // metadata promises but the compiled code cannot run fails here, by name,
  // rather than as "too many resources requested" at launch.
  const int64_t threads =
      int64_t{kernel.block[0]} * kernel.block[1] * kernel.block[2];
  if (threads > max_threads)
    return absl::ResourceExhaustedError(
        absl::StrCat("kernel '", kernel.name, "' has block size ", threads,
                     " but the compiled function allows at most ", max_threads,
                     " threads per block"));

  const int64_t shared_total = int64_t{kernel.shared_bytes} + static_shared;
  if (shared_total > kDefaultSharedLimit) {
    absl::StatusOr<int> optin = CurrentDeviceAttribute(
        driver_, cu::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (!optin.ok())
      return optin.status();
    if (shared_total > *optin)
      return absl::ResourceExhaustedError(
          absl::StrCat("kernel '", kernel.name, "' needs ", kernel.shared_bytes,
                       " bytes of dynamic shared memory (plus ", static_shared,
                       " static) but the device allows at most ", *optin,
                       " bytes per block"));
    status = driver_.Check(
        api.cuFuncSetAttribute(
            function, cu::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(kernel.shared_bytes)),
        absl::StrCat("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) for "
                     "kernel '",
                     kernel.name, "'"));
    if (!status.ok())
      return status;
  }

  // Clusters of more than 8 blocks are outside the portable limit and must
  // be allowed explicitly.
  if (kernel.cluster[0] * kernel.cluster[1] * kernel.cluster[2] > 8) {
    status = driver_.Check(
        api.cuFuncSetAttribute(
            function, cu::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1),
        absl::StrCat("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) "
                     "for kernel '",
                     kernel.name, "'"));
    if (!status.ok())
      return status;
  }

  kernels_.emplace(kernel.name, std::unique_ptr<Kernel>(new Kernel(
                                    driver_, context_, function, kernel)));
  return absl::OkStatus();
}

absl::StatusOr<const Kernel *> Module::GetKernel(absl::string_view name) const {
  auto it = kernels_.find(name);
  if (it != kernels_.end())
    return it->second.get();
  std::vector<absl::string_view> names;
  for (const KernelInfo &kernel : info_.kernels)
    names.push_back(kernel.name);
  return absl::NotFoundError(absl::StrCat(
      "module has no kernel '", name,
      "'; available: ", names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
}

Module::~Module() {
  // Unloading needs the module's context current; errors cannot be
  // reported from a destructor and leave nothing to clean up.
  ScopedContext scope(driver_, context_);
  driver_.api().cuModuleUnload(module_);
}

} // namespace tilec
