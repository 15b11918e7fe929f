#include "runtime/metadata.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/json.h"

namespace tilec {
namespace {

constexpr ParamKind kAllKinds[] = {ParamKind::kPtr, ParamKind::kI32,
                                   ParamKind::kI64, ParamKind::kF32,
                                   ParamKind::kF64, ParamKind::kTensorMap};

// Threads per block the hardware allows on every supported target.
constexpr uint64_t kMaxThreadsPerBlock = 1024;

absl::Status Error(absl::string_view path, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("metadata: ", path, path.empty() ? "" : ": ", message));
}

// "path.key", or "key" at the top level.
std::string Child(absl::string_view path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

// JSON types of required fields.
enum class Type { kObject, kArray, kString, kNumber };

bool Is(const Json &value, Type type) {
  switch (type) {
  case Type::kObject:
    return value.is_object();
  case Type::kArray:
    return value.is_array();
  case Type::kString:
    return value.is_string();
  case Type::kNumber:
    return value.is_number();
  }
  return false;
}

absl::string_view TypeName(Type type) {
  switch (type) {
  case Type::kObject:
    return "object";
  case Type::kArray:
    return "array";
  case Type::kString:
    return "string";
  case Type::kNumber:
    return "number";
  }
  return "";
}

// Looks up a required member and checks its JSON type.
absl::StatusOr<const Json *> Field(const Json &object, absl::string_view path,
                                   absl::string_view key, Type type) {
  auto it = object.find(std::string(key));
  if (it == object.end())
    return Error(path, absl::StrCat("missing required field '", key, "'"));
  if (!Is(*it, type))
    return Error(Child(path, key), absl::StrCat("expected ", TypeName(type),
                                                ", got ", JsonTypeName(*it)));
  return &*it;
}

absl::StatusOr<std::string>
StringField(const Json &object, absl::string_view path, absl::string_view key) {
  absl::StatusOr<const Json *> value = Field(object, path, key, Type::kString);
  if (!value.ok())
    return value.status();
  const std::string &text = (*value)->get_ref<const std::string &>();
  if (text.empty())
    return Error(Child(path, key), "must not be empty");
  return text;
}

absl::StatusOr<uint32_t> ToUint32(const Json &value, absl::string_view path,
                                  uint32_t min) {
  // Integers written without fraction or exponent: non-negative ones are
  // number_unsigned, negative ones number_integer.
  if (!value.is_number_unsigned() || value.get<uint64_t>() < min ||
      value.get<uint64_t>() > std::numeric_limits<uint32_t>::max())
    return Error(path,
                 absl::StrCat("expected an integer in [", min, ", ",
                              std::numeric_limits<uint32_t>::max(), "], got ",
                              value.is_number()
                                  ? absl::StrCat(value.get<double>())
                                  : std::string(JsonTypeName(value))));
  return static_cast<uint32_t>(value.get<uint64_t>());
}

// An array of three positive integers (block and cluster shapes).
absl::StatusOr<std::array<uint32_t, 3>>
Dim3Field(const Json &object, absl::string_view path, absl::string_view key) {
  absl::StatusOr<const Json *> value = Field(object, path, key, Type::kArray);
  if (!value.ok())
    return value.status();
  std::string field_path = Child(path, key);
  if ((*value)->size() != 3)
    return Error(field_path,
                 absl::StrCat("expected 3 elements, got ", (*value)->size()));
  std::array<uint32_t, 3> dims;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<uint32_t> dim =
        ToUint32((**value)[i], absl::StrCat(field_path, "[", i, "]"), 1);
    if (!dim.ok())
      return dim.status();
    dims[i] = *dim;
  }
  return dims;
}

absl::StatusOr<ParamInfo> ParseParam(const Json &value,
                                     const std::string &path) {
  if (!value.is_object())
    return Error(path,
                 absl::StrCat("expected object, got ", JsonTypeName(value)));
  ParamInfo param;
  absl::StatusOr<std::string> name = StringField(value, path, "name");
  if (!name.ok())
    return name.status();
  param.name = *name;
  std::string named_path = absl::StrCat(path, " ('", param.name, "')");
  absl::StatusOr<std::string> kind = StringField(value, named_path, "kind");
  if (!kind.ok())
    return kind.status();
  std::optional<ParamKind> parsed = ParamKindFromName(*kind);
  if (!parsed)
    return Error(named_path,
                 absl::StrCat("unknown kind '", *kind, "'; expected one of ",
                              absl::StrJoin(kAllKinds, ", ",
                                            [](std::string *out, ParamKind k) {
                                              absl::StrAppend(out,
                                                              ParamKindName(k));
                                            })));
  param.kind = *parsed;
  if (value.contains("elem")) {
    absl::StatusOr<std::string> elem = StringField(value, named_path, "elem");
    if (!elem.ok())
      return elem.status();
    param.elem = *elem;
  }
  return param;
}

absl::StatusOr<KernelInfo> ParseKernel(const Json &value,
                                       const std::string &path) {
  if (!value.is_object())
    return Error(path,
                 absl::StrCat("expected object, got ", JsonTypeName(value)));
  KernelInfo kernel;
  // The record written back out, compact, members in document order.
  kernel.json = value.dump();
  absl::StatusOr<std::string> name = StringField(value, path, "name");
  if (!name.ok())
    return name.status();
  kernel.name = *name;
  std::string named = absl::StrCat(path, " ('", kernel.name, "')");

  absl::StatusOr<std::array<uint32_t, 3>> block =
      Dim3Field(value, named, "block");
  if (!block.ok())
    return block.status();
  kernel.block = *block;
  uint64_t threads =
      uint64_t{kernel.block[0]} * kernel.block[1] * kernel.block[2];
  if (threads > kMaxThreadsPerBlock)
    return Error(Child(named, "block"),
                 absl::StrCat(threads, " threads per block; at most ",
                              kMaxThreadsPerBlock));

  absl::StatusOr<const Json *> shared =
      Field(value, named, "shared_bytes", Type::kNumber);
  if (!shared.ok())
    return shared.status();
  absl::StatusOr<uint32_t> shared_bytes =
      ToUint32(**shared, Child(named, "shared_bytes"), 0);
  if (!shared_bytes.ok())
    return shared_bytes.status();
  kernel.shared_bytes = *shared_bytes;

  absl::StatusOr<std::array<uint32_t, 3>> cluster =
      Dim3Field(value, named, "cluster");
  if (!cluster.ok())
    return cluster.status();
  kernel.cluster = *cluster;

  absl::StatusOr<const Json *> params =
      Field(value, named, "params", Type::kArray);
  if (!params.ok())
    return params.status();
  for (size_t i = 0; i < (*params)->size(); ++i) {
    absl::StatusOr<ParamInfo> param =
        ParseParam((**params)[i], absl::StrCat(named, ".params[", i, "]"));
    if (!param.ok())
      return param.status();
    for (const ParamInfo &earlier : kernel.params)
      if (earlier.name == param->name)
        return Error(
            absl::StrCat(named, ".params[", i, "]"),
            absl::StrCat("duplicate parameter name '", param->name, "'"));
    kernel.params.push_back(*std::move(param));
  }

  absl::StatusOr<const Json *> maps =
      Field(value, named, "tensor_maps", Type::kArray);
  if (!maps.ok())
    return maps.status();
  for (size_t i = 0; i < (*maps)->size(); ++i) {
    const Json &map = (**maps)[i];
    if (!map.is_object())
      return Error(absl::StrCat(named, ".tensor_maps[", i, "]"),
                   absl::StrCat("expected object, got ", JsonTypeName(map)));
    kernel.tensor_maps.push_back(map.dump());
  }
  return kernel;
}

} // namespace

absl::string_view ParamKindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::kPtr:
    return "ptr";
  case ParamKind::kI32:
    return "i32";
  case ParamKind::kI64:
    return "i64";
  case ParamKind::kF32:
    return "f32";
  case ParamKind::kF64:
    return "f64";
  case ParamKind::kTensorMap:
    return "tensormap";
  }
  return "unknown";
}

std::optional<ParamKind> ParamKindFromName(absl::string_view name) {
  for (ParamKind kind : kAllKinds)
    if (ParamKindName(kind) == name)
      return kind;
  return std::nullopt;
}

absl::StatusOr<ModuleInfo> ParseMetadata(absl::string_view json) {
  absl::StatusOr<Json> root = ParseJson(json);
  if (!root.ok())
    return Error("", root.status().message());
  if (!root->is_object())
    return Error("", absl::StrCat("expected a JSON object at the top level, "
                                  "got ",
                                  JsonTypeName(*root)));
  ModuleInfo module;
  absl::StatusOr<std::string> format = StringField(*root, "", "format");
  if (!format.ok())
    return format.status();
  if (*format != kMetadataFormat)
    return Error("format", absl::StrCat("unsupported format '", *format,
                                        "'; expected '", kMetadataFormat, "'"));
  module.format = *format;
  absl::StatusOr<std::string> target = StringField(*root, "", "target");
  if (!target.ok())
    return target.status();
  module.target = *target;

  absl::StatusOr<const Json *> kernels =
      Field(*root, "", "kernels", Type::kArray);
  if (!kernels.ok())
    return kernels.status();
  for (size_t i = 0; i < (*kernels)->size(); ++i) {
    std::string path = absl::StrCat("kernels[", i, "]");
    absl::StatusOr<KernelInfo> kernel = ParseKernel((**kernels)[i], path);
    if (!kernel.ok())
      return kernel.status();
    for (const KernelInfo &earlier : module.kernels)
      if (earlier.name == kernel->name)
        return Error(
            path, absl::StrCat("duplicate kernel name '", kernel->name, "'"));
    kernel->target = module.target;
    module.kernels.push_back(*std::move(kernel));
  }
  return module;
}

} // namespace tilec
