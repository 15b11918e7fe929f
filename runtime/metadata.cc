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

absl::StatusOr<int64_t> IntegerField(const Json &object,
                                     absl::string_view path,
                                     absl::string_view key) {
  absl::StatusOr<const Json *> value = Field(object, path, key, Type::kNumber);
  if (!value.ok())
    return value.status();
  if (!(*value)->is_number_integer())
    return Error(Child(path, key), "expected an integer");
  return (*value)->get<int64_t>();
}

// {"arg": i} naming an i32/i64 parameter, or {"value": v}.
absl::StatusOr<ScalarRef> ParseScalarRef(const Json &value,
                                         const std::string &path,
                                         const std::vector<ParamInfo> &params) {
  if (!value.is_object())
    return Error(path,
                 absl::StrCat("expected object, got ", JsonTypeName(value)));
  ScalarRef ref;
  if (value.contains("arg")) {
    absl::StatusOr<int64_t> arg = IntegerField(value, path, "arg");
    if (!arg.ok())
      return arg.status();
    if (*arg < 0 || *arg >= static_cast<int64_t>(params.size()) ||
        (params[*arg].kind != ParamKind::kI32 &&
         params[*arg].kind != ParamKind::kI64))
      return Error(Child(path, "arg"),
                   absl::StrCat(*arg, " is not an i32 or i64 parameter"));
    ref.arg = static_cast<int>(*arg);
    for (auto [key, factor] :
         {std::pair<const char *, int64_t *>{"mul", &ref.mul},
          {"div", &ref.div}}) {
      if (!value.contains(key))
        continue;
      absl::StatusOr<int64_t> v = IntegerField(value, path, key);
      if (!v.ok())
        return v.status();
      if (*v < 1 || *v > (int64_t{1} << 16))
        return Error(Child(path, key),
                     absl::StrCat("expected 1 to 2^16, got ", *v));
      *factor = *v;
    }
    return ref;
  }
  absl::StatusOr<int64_t> constant = IntegerField(value, path, "value");
  if (!constant.ok())
    return constant.status();
  for (const char *key : {"mul", "div"})
    if (value.contains(key))
      return Error(Child(path, key), "scales an argument; a constant is "
                                     "written already scaled");
  ref.value = *constant;
  return ref;
}

absl::StatusOr<TensorMapInfo> ParseTensorMap(const Json &value,
                                             const std::string &path,
                                             const KernelInfo &kernel,
                                             size_t index) {
  if (!value.is_object())
    return Error(path,
                 absl::StrCat("expected object, got ", JsonTypeName(value)));
  TensorMapInfo map;
  absl::StatusOr<int64_t> param = IntegerField(value, path, "param");
  if (!param.ok())
    return param.status();
  if (*param != static_cast<int64_t>(kernel.params.size() + index))
    return Error(Child(path, "param"),
                 absl::StrCat("tensor map ", index, " must be parameter ",
                              kernel.params.size() + index,
                              " (hidden parameters follow the declared "
                              "ones), got ",
                              *param));
  map.param = static_cast<int>(*param);
  absl::StatusOr<std::string> elem = StringField(value, path, "elem");
  if (!elem.ok())
    return elem.status();
  if (ElementBytes(*elem) == 0)
    return Error(Child(path, "elem"),
                 absl::StrCat("unknown element type '", *elem, "'"));
  map.elem = *elem;
  absl::StatusOr<int64_t> base = IntegerField(value, path, "base");
  if (!base.ok())
    return base.status();
  if (*base < 0 || *base >= static_cast<int64_t>(kernel.params.size()) ||
      kernel.params[*base].kind != ParamKind::kPtr)
    return Error(Child(path, "base"),
                 absl::StrCat(*base, " is not a ptr parameter"));
  map.base = static_cast<int>(*base);
  for (auto [key, refs] :
       {std::pair<const char *, std::vector<ScalarRef> *>{"sizes", &map.sizes},
        {"strides", &map.strides}}) {
    absl::StatusOr<const Json *> list = Field(value, path, key, Type::kArray);
    if (!list.ok())
      return list.status();
    for (size_t i = 0; i < (*list)->size(); ++i) {
      absl::StatusOr<ScalarRef> ref =
          ParseScalarRef((**list)[i], absl::StrCat(path, ".", key, "[", i, "]"),
                         kernel.params);
      if (!ref.ok())
        return ref.status();
      refs->push_back(*ref);
    }
  }
  absl::StatusOr<const Json *> box = Field(value, path, "box", Type::kArray);
  if (!box.ok())
    return box.status();
  for (size_t i = 0; i < (*box)->size(); ++i) {
    absl::StatusOr<uint32_t> dim =
        ToUint32((**box)[i], absl::StrCat(path, ".box[", i, "]"), 1);
    if (!dim.ok())
      return dim.status();
    if (*dim > 256)
      return Error(absl::StrCat(path, ".box[", i, "]"),
                   "a TMA box holds at most 256 per dimension");
    map.box.push_back(*dim);
  }
  size_t rank = map.box.size();
  if (rank < 1 || rank > 5 || map.sizes.size() != rank ||
      map.strides.size() != rank)
    return Error(path, absl::StrCat("sizes, strides and box must have one "
                                    "entry per dimension (1 to 5), got ",
                                    map.sizes.size(), ", ", map.strides.size(),
                                    " and ", rank));
  if (map.strides.back().arg != -1 || map.strides.back().value != 1)
    return Error(Child(path, "strides"), "the last stride must be 1");
  absl::StatusOr<int64_t> swizzle = IntegerField(value, path, "swizzle");
  if (!swizzle.ok())
    return swizzle.status();
  if (*swizzle != 0 && *swizzle != 32 && *swizzle != 64 && *swizzle != 128)
    return Error(Child(path, "swizzle"),
                 absl::StrCat("expected 0, 32, 64 or 128, got ", *swizzle));
  map.swizzle = static_cast<uint32_t>(*swizzle);
  if (auto it = value.find("required"); it != value.end()) {
    if (!it->is_boolean())
      return Error(Child(path, "required"),
                   absl::StrCat("expected a boolean, got ", JsonTypeName(*it)));
    map.required = it->get<bool>();
  }
  if (auto it = value.find("whole_outer"); it != value.end()) {
    if (!it->is_boolean())
      return Error(Child(path, "whole_outer"),
                   absl::StrCat("expected a boolean, got ", JsonTypeName(*it)));
    map.whole_outer = it->get<bool>();
  }
  return map;
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

  if (auto it = value.find("persistent"); it != value.end()) {
    absl::StatusOr<uint32_t> group =
        ToUint32(*it, Child(named, "persistent"), 1);
    if (!group.ok())
      return group.status();
    const size_t n = kernel.params.size();
    if (n < 2 || kernel.params[n - 2].name != "tiles_x" ||
        kernel.params[n - 1].name != "tiles_y" ||
        kernel.params[n - 2].kind != ParamKind::kI32 ||
        kernel.params[n - 1].kind != ParamKind::kI32)
      return Error(Child(named, "persistent"),
                   "a persistent kernel's last two params must be the i32 "
                   "tile counts 'tiles_x' and 'tiles_y'");
    kernel.persistent_group = *group;
  }

  if (auto it = value.find("dependent_launch"); it != value.end()) {
    if (!it->is_boolean())
      return Error(Child(named, "dependent_launch"),
                   absl::StrCat("expected a boolean, got ", JsonTypeName(*it)));
    kernel.dependent_launch = it->get<bool>();
  }

  if (value.contains("split_k")) {
    const std::string path = Child(named, "split_k");
    absl::StatusOr<const Json *> split =
        Field(value, named, "split_k", Type::kObject);
    if (!split.ok())
      return split.status();
    absl::StatusOr<const Json *> bytes =
        Field(**split, path, "partial_bytes", Type::kNumber);
    if (!bytes.ok())
      return bytes.status();
    absl::StatusOr<uint32_t> partial =
        ToUint32(**bytes, Child(path, "partial_bytes"), 4);
    if (!partial.ok())
      return partial.status();
    const size_t n = kernel.params.size();
    if (n < 2 || kernel.params[n - 2].name != "split_partials" ||
        kernel.params[n - 1].name != "split_tickets" ||
        kernel.params[n - 2].kind != ParamKind::kPtr ||
        kernel.params[n - 1].kind != ParamKind::kPtr ||
        kernel.params[n - 2].elem != "f32" ||
        kernel.params[n - 1].elem != "i32")
      return Error(path, "a split kernel's last two params must be the f32 "
                         "pointer 'split_partials' and the i32 pointer "
                         "'split_tickets'");
    kernel.split_k_partial_bytes = *partial;
  }

  absl::StatusOr<const Json *> maps =
      Field(value, named, "tensor_maps", Type::kArray);
  if (!maps.ok())
    return maps.status();
  for (size_t i = 0; i < (*maps)->size(); ++i) {
    absl::StatusOr<TensorMapInfo> map =
        ParseTensorMap((**maps)[i], absl::StrCat(named, ".tensor_maps[", i, "]"),
                       kernel, i);
    if (!map.ok())
      return map.status();
    kernel.tensor_maps.push_back(*std::move(map));
  }
  return kernel;
}

} // namespace

int ElementBytes(absl::string_view elem) {
  if (elem == "f64" || elem == "i64" || elem == "u64")
    return 8;
  if (elem == "f32" || elem == "i32" || elem == "u32")
    return 4;
  if (elem == "f16" || elem == "bf16" || elem == "i16" || elem == "u16")
    return 2;
  if (elem == "f8e4m3" || elem == "f8e5m2" || elem == "i8" || elem == "u8")
    return 1;
  return 0;
}

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
  if (*format != kMetadataFormat && *format != kMetadataFormatV1)
    return Error("format", absl::StrCat("unsupported format '", *format,
                                        "'; expected '", kMetadataFormat,
                                        "' or '", kMetadataFormatV1, "'"));
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
    // v1 documents have no scaled sizes or whole_outer maps.
    if (module.format == kMetadataFormatV1)
      for (const TensorMapInfo &map : kernel->tensor_maps) {
        bool scaled = map.whole_outer;
        for (const auto *refs : {&map.sizes, &map.strides})
          for (const ScalarRef &ref : *refs)
            scaled |= ref.mul != 1 || ref.div != 1;
        if (scaled)
          return Error(path, absl::StrCat("tensor map ", map.param,
                                          " uses mul, div or whole_outer, "
                                          "which need format '",
                                          kMetadataFormat, "'"));
      }
    module.kernels.push_back(*std::move(kernel));
  }
  return module;
}

} // namespace tilec
