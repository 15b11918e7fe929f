#include "runtime/launch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilec {
namespace {

std::string Signature(const KernelInfo &kernel) {
  return absl::StrJoin(
      kernel.params, ", ", [](std::string *out, const ParamInfo &param) {
        absl::StrAppend(out, param.name, ": ", ParamKindName(param.kind));
      });
}

absl::Status GridError(const KernelInfo &kernel, Dim3 grid,
                       absl::string_view reason) {
  return absl::InvalidArgumentError(
      absl::StrCat("kernel '", kernel.name, "': grid (", grid.x, ", ", grid.y,
                   ", ", grid.z, ") is invalid: ", reason));
}

absl::Status ValidateGrid(const KernelInfo &kernel, Dim3 grid) {
  if (grid.x == 0 || grid.x > kMaxGridX)
    return GridError(kernel, grid,
                     absl::StrCat("grid.x must be in [1, ", kMaxGridX, "]"));
  if (grid.y == 0 || grid.y > kMaxGridYZ)
    return GridError(kernel, grid,
                     absl::StrCat("grid.y must be in [1, ", kMaxGridYZ, "]"));
  if (grid.z == 0 || grid.z > kMaxGridYZ)
    return GridError(kernel, grid,
                     absl::StrCat("grid.z must be in [1, ", kMaxGridYZ, "]"));
  const uint32_t dims[3] = {grid.x, grid.y, grid.z};
  const char axes[3] = {'x', 'y', 'z'};
  for (int i = 0; i < 3; ++i)
    if (dims[i] % kernel.cluster[i] != 0)
      return GridError(kernel, grid,
                       absl::StrCat("grid.", std::string(1, axes[i]),
                                    " must be a multiple of the cluster "
                                    "shape's ",
                                    std::string(1, axes[i]), " (",
                                    kernel.cluster[i], ")"));
  return absl::OkStatus();
}

} // namespace

absl::Status ValidateLaunch(const KernelInfo &kernel, Dim3 grid,
                            absl::Span<const KernelArg> args) {
  if (args.size() != kernel.params.size())
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", kernel.name, "' expects ", kernel.params.size(),
        " arguments (", Signature(kernel), "), got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo &param = kernel.params[i];
    if (args[i].kind() != param.kind)
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", kernel.name, "': argument ", i, " ('",
                       param.name, "') expects ", ParamKindName(param.kind),
                       ", got ", ParamKindName(args[i].kind())));
    if (args[i].IsNull())
      return absl::InvalidArgumentError(absl::StrCat(
          "kernel '", kernel.name, "': argument ", i, " ('", param.name,
          "') is a null ",
          param.kind == ParamKind::kPtr ? "pointer" : "tensor map pointer"));
  }
  return ValidateGrid(kernel, grid);
}

} // namespace tilec
