#include "runtime/tensor_map.h"

#include "absl/strings/str_cat.h"
#include "runtime/validate.h"

namespace tilec {
namespace {

int DataType(absl::string_view elem) {
  if (elem == "bf16")
    return cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (elem == "f16")
    return cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if (elem == "f32")
    return cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  if (elem == "f64")
    return cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  // Other types move as raw bits of their width.
  switch (ElementBytes(elem)) {
  case 1:
    return cu::CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case 2:
    return cu::CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case 4:
    return cu::CU_TENSOR_MAP_DATA_TYPE_UINT32;
  default:
    return cu::CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
}

int SwizzleMode(uint32_t bytes) {
  switch (bytes) {
  case 32:
    return cu::CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return cu::CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return cu::CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return cu::CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

int64_t Resolve(const ScalarRef &ref, absl::Span<const KernelArg> args) {
  if (ref.arg < 0)
    return ref.value;
  int64_t value = args[ref.arg].integer();
  // Factors are at most 2^16 (metadata.cc): beyond this the value is far
  // outside what a size or stride may be, and is refused as such.
  constexpr int64_t kLimit = int64_t{1} << 46;
  if (value > kLimit || value < -kLimit)
    return value;
  value *= ref.mul;
  // Rounding down keeps a negative argument negative (and refused).
  return value >= 0 ? value / ref.div : -((-value + ref.div - 1) / ref.div);
}

} // namespace

absl::StatusOr<TensorMapRequest>
PlanTensorMap(const KernelInfo &kernel, const TensorMapInfo &map,
              absl::Span<const KernelArg> args) {
  TensorMapRequest request;
  const size_t rank = map.box.size();
  const int64_t bytes = ElementBytes(map.elem);
  request.rank = static_cast<unsigned>(rank);
  request.data_type = DataType(map.elem);
  request.swizzle = SwizzleMode(map.swizzle);
  request.address = args[map.base].device_ptr();
  auto invalid = [&](absl::string_view what, const ScalarRef &ref,
                     int64_t value, absl::string_view expected) {
    std::string name = ref.arg < 0
                           ? std::string("a constant")
                           : absl::StrCat("argument ", ref.arg, " ('",
                                          kernel.params[ref.arg].name, "')");
    // A scaled argument: its own value, then the factors.
    if (ref.arg >= 0 && (ref.mul != 1 || ref.div != 1)) {
      name =
          absl::StrCat("argument ", ref.arg, " ('", kernel.params[ref.arg].name,
                       "' = ", args[ref.arg].integer(), ")");
      if (ref.mul != 1)
        absl::StrAppend(&name, " * ", ref.mul);
      if (ref.div != 1)
        absl::StrAppend(&name, " / ", ref.div);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", kernel.name, "': ", what, " of the tensor map over '",
        kernel.params[map.base].name, "' is ", name, " = ", value,
        "; expected ", expected));
  };
  bool aligned = request.address % 16 == 0;
  // A map copied through only where whole boxes fit along the outermost
  // dimension is not needed (nor encodable, for a size of 0) when the view
  // is too short for one.
  bool holds_box = true;
  for (size_t d = 0; d < rank; ++d) {
    // The driver lists dimensions innermost first.
    const size_t inner = rank - 1 - d;
    int64_t size = Resolve(map.sizes[d], args);
    if (d == 0 && map.whole_outer && size >= 0 && size < map.box[d]) {
      holds_box = false;
      size = map.box[d];
    }
    if (size < 1 || size > (int64_t{1} << 32))
      return invalid("a size", map.sizes[d], size, "1 to 2^32");
    request.dims[inner] = static_cast<unsigned long long>(size);
    request.box[inner] = map.box[d];
    request.element_strides[inner] = 1;
    if (d + 1 == rank)
      continue;
    int64_t stride = Resolve(map.strides[d], args);
    if (stride < 1 || stride * bytes >= (int64_t{1} << 40))
      return invalid("a stride", map.strides[d], stride,
                     "positive and under 2^40 bytes");
    aligned = aligned && (stride * bytes) % 16 == 0;
    request.strides[inner - 1] = static_cast<unsigned long long>(stride * bytes);
  }
  if (!aligned && map.required)
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", kernel.name, "' reads '", kernel.params[map.base].name,
        "' through TMA only: its address and every stride but the last must "
        "be multiples of 16 bytes (address ",
        absl::Hex(request.address), ")"));
  request.encode = aligned && holds_box;
  return request;
}

absl::Status EncodeTensorMaps(const Driver &driver, const KernelInfo &kernel,
                              absl::Span<const KernelArg> args,
                              absl::Span<TensorMapBytes> out) {
  for (size_t i = 0; i < kernel.tensor_maps.size(); ++i) {
    absl::StatusOr<TensorMapRequest> request =
        PlanTensorMap(kernel, kernel.tensor_maps[i], args);
    if (!request.ok())
      return request.status();
    out[i] = TensorMapBytes();
    if (!request->encode)
      continue;
    if (driver.api().cuTensorMapEncodeTiled == nullptr)
      return absl::FailedPreconditionError(absl::StrCat(
          "kernel '", kernel.name,
          "' reads through TMA, which needs cuTensorMapEncodeTiled (CUDA "
          "12.0 or newer driver)"));
    TILEC_RETURN_IF_ERROR(driver.Check(
        driver.api().cuTensorMapEncodeTiled(
            &out[i], request->data_type, request->rank,
            reinterpret_cast<void *>(request->address), request->dims.data(),
            request->strides.data(), request->box.data(),
            request->element_strides.data(), /*interleave=*/0,
            request->swizzle, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            /*oob_fill=*/0),
        absl::StrCat("cuTensorMapEncodeTiled for kernel '", kernel.name,
                     "'")));
  }
  return absl::OkStatus();
}

} // namespace tilec
