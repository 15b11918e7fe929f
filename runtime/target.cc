#include "runtime/target.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "runtime/embedded.h"

namespace tilec {

std::optional<std::pair<int, int>>
RequiredComputeCapability(absl::string_view target) {
  // "sm_" digits "a": the digits are major * 10 + minor.
  if (!absl::ConsumePrefix(&target, "sm_") ||
      !absl::ConsumeSuffix(&target, "a"))
    return std::nullopt;
  int version = 0;
  if (target.empty() || !absl::SimpleAtoi(target, &version) || version < 10)
    return std::nullopt;
  return std::make_pair(version / 10, version % 10);
}

absl::Status CheckTargetRunsOn(const ModuleInfo &module, int major, int minor) {
  std::optional<std::pair<int, int>> required =
      RequiredComputeCapability(module.target);
  if (!required || *required == std::make_pair(major, minor))
    return absl::OkStatus();
  std::vector<std::string> names;
  for (const KernelInfo &kernel : module.kernels)
    names.push_back(absl::StrCat("'", kernel.name, "'"));
  std::string which =
      names.empty() ? "module"
                    : absl::StrCat(names.size() == 1 ? "kernel " : "kernels ",
                                   absl::StrJoin(names, ", "));
  std::string instead = TargetForComputeCapability(major, minor);
  return absl::FailedPreconditionError(absl::StrCat(
      which, names.size() > 1 ? " are" : " is", " compiled for ", module.target,
      ", which runs only on compute capability ", required->first, ".",
      required->second, " GPUs; this GPU is ", major, ".", minor,
      instead.empty()
          ? ""
          : absl::StrCat(" (load the module compiled for ", instead, ")")));
}

} // namespace tilec
