#include "runtime/validate.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/context.h"

namespace tilec {
namespace {

absl::Status Invalid(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", name, "' ", why));
}

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// a * b, or nullopt on int64 overflow (operands are non-negative).
std::optional<int64_t> Mul(int64_t a, int64_t b) {
  if (a != 0 && b > kInt64Max / a)
    return std::nullopt;
  return a * b;
}

std::string Hex(uint64_t value) { return absl::StrCat("0x", absl::Hex(value)); }

// "(a, b)" ("(a,)" for one element); kAnyExtent as "*" when asked.
std::string Tuple(absl::Span<const int64_t> values, bool any_as_star) {
  return absl::StrCat("(",
                      absl::StrJoin(values, ", ",
                                    [&](std::string *out, int64_t value) {
                                      if (any_as_star && value == kAnyExtent)
                                        out->append("*");
                                      else
                                        absl::StrAppend(out, value);
                                    }),
                      values.size() == 1 ? ",)" : ")");
}

} // namespace

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
  case DType::kF32:
    return "f32";
  case DType::kBF16:
    return "bf16";
  case DType::kF16:
    return "f16";
  case DType::kF64:
    return "f64";
  case DType::kI8:
    return "i8";
  case DType::kI16:
    return "i16";
  case DType::kI32:
    return "i32";
  case DType::kI64:
    return "i64";
  case DType::kU8:
    return "u8";
  case DType::kBool:
    return "i1";
  case DType::kF8E4M3:
    return "f8e4m3";
  }
  return "unknown";
}

int64_t DTypeBytes(DType dtype) {
  switch (dtype) {
  case DType::kF64:
  case DType::kI64:
    return 8;
  case DType::kF32:
  case DType::kI32:
    return 4;
  case DType::kBF16:
  case DType::kF16:
  case DType::kI16:
    return 2;
  case DType::kI8:
  case DType::kU8:
  case DType::kBool:
  case DType::kF8E4M3:
    return 1;
  }
  return 1;
}

std::optional<DType> DTypeFromInt(int value) {
  if (value < static_cast<int>(DType::kF32) ||
      value > static_cast<int>(DType::kLast))
    return std::nullopt;
  return static_cast<DType>(value);
}

TensorRef TensorRef::Contiguous(const void *data, DType dtype,
                                std::initializer_list<int64_t> shape) {
  TensorRef t;
  t.data = data;
  t.dtype = dtype;
  t.shape.assign(shape.begin(), shape.end());
  return t;
}

int64_t TensorRef::stride(int64_t dim) const {
  if (!strides.empty())
    return strides[dim];
  int64_t stride = 1;
  for (int64_t d = rank() - 1; d > dim; --d)
    stride *= shape[d];
  return stride;
}

int64_t TensorRef::NumElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

int64_t TensorRef::SpanBytes() const {
  if (NumElements() == 0)
    return 0;
  // The farthest element; strides are checked non-negative by
  // CheckRowMajor before this is used for memory checks.
  int64_t last = 0;
  for (int64_t d = 0; d < rank(); ++d)
    last += (shape[d] - 1) * stride(d);
  return (last + 1) * DTypeBytes(dtype);
}

std::string ShapeString(absl::Span<const int64_t> shape) {
  return Tuple(shape, /*any_as_star=*/true);
}

absl::Status CheckNotNull(absl::string_view name, const TensorRef &t) {
  if (t.data == nullptr)
    return Invalid(name, "is a null pointer");
  return absl::OkStatus();
}

absl::Status CheckDType(absl::string_view name, const TensorRef &t,
                        absl::Span<const DType> allowed) {
  for (DType dtype : allowed)
    if (t.dtype == dtype)
      return absl::OkStatus();
  return Invalid(
      name,
      absl::StrCat(
          "has dtype ", DTypeName(t.dtype), "; expected ",
          absl::StrJoin(allowed, " or ", [](std::string *out, DType dtype) {
            out->append(std::string(DTypeName(dtype)));
          })));
}

absl::Status CheckShape(absl::string_view name, const TensorRef &t,
                        absl::Span<const int64_t> expected) {
  if (!t.strides.empty() && t.strides.size() != t.shape.size())
    return Invalid(name,
                   absl::StrCat("has ", t.strides.size(), " strides for its ",
                                t.shape.size(), " dimensions"));
  if (t.rank() != static_cast<int64_t>(expected.size()))
    return Invalid(name, absl::StrCat("must be ", expected.size(),
                                      "-D, got shape ", ShapeString(t.shape)));
  for (size_t d = 0; d < expected.size(); ++d) {
    if (t.shape[d] < 0)
      return Invalid(name, absl::StrCat("has a negative extent in shape ",
                                        ShapeString(t.shape)));
    if (expected[d] != kAnyExtent && t.shape[d] != expected[d])
      return Invalid(name, absl::StrCat("has shape ", ShapeString(t.shape),
                                        "; expected ", ShapeString(expected)));
  }
  std::optional<int64_t> bytes = DTypeBytes(t.dtype);
  for (int64_t extent : t.shape)
    if (bytes)
      bytes = Mul(*bytes, extent);
  if (!bytes)
    return Invalid(name, absl::StrCat("of shape ", ShapeString(t.shape),
                                      " is too large to address"));
  return absl::OkStatus();
}

absl::Status CheckRowMajor(absl::string_view name, const TensorRef &t) {
  if (t.strides.empty())
    return absl::OkStatus();
  absl::InlinedVector<int64_t, 4> dense(t.rank());
  int64_t expected = 1;
  bool contiguous = true;
  for (int64_t d = t.rank() - 1; d >= 0; --d) {
    dense[d] = expected;
    contiguous &= t.shape[d] == 1 || t.strides[d] == expected;
    expected *= t.shape[d];
  }
  if (!contiguous)
    return Invalid(name, absl::StrCat("must be contiguous (row-major): shape ",
                                      ShapeString(t.shape), " has strides ",
                                      Tuple(t.strides, false),
                                      " (in elements); expected ",
                                      ShapeString(dense)));
  return absl::OkStatus();
}

absl::Status CheckAligned(absl::string_view name, const TensorRef &t) {
  uintptr_t address = reinterpret_cast<uintptr_t>(t.data);
  int64_t bytes = DTypeBytes(t.dtype);
  if (address % bytes != 0)
    return Invalid(name, absl::StrCat("address ", Hex(address),
                                      " is not a multiple of its ", bytes,
                                      "-byte element size"));
  return absl::OkStatus();
}

absl::Status CheckTensor(absl::string_view name, const TensorRef &t,
                         absl::Span<const DType> allowed,
                         absl::Span<const int64_t> expected) {
  TILEC_RETURN_IF_ERROR(CheckNotNull(name, t));
  TILEC_RETURN_IF_ERROR(CheckDType(name, t, allowed));
  TILEC_RETURN_IF_ERROR(CheckShape(name, t, expected));
  TILEC_RETURN_IF_ERROR(CheckRowMajor(name, t));
  return CheckAligned(name, t);
}

absl::Status CheckNoOverlap(absl::string_view a_name, const TensorRef &a,
                            absl::string_view b_name, const TensorRef &b,
                            bool allow_identical) {
  uintptr_t a_begin = reinterpret_cast<uintptr_t>(a.data);
  uintptr_t b_begin = reinterpret_cast<uintptr_t>(b.data);
  uintptr_t a_end = a_begin + a.SpanBytes();
  uintptr_t b_end = b_begin + b.SpanBytes();
  if (a_begin == a_end || b_begin == b_end)
    return absl::OkStatus();
  if (allow_identical && a_begin == b_begin && a_end == b_end)
    return absl::OkStatus();
  if (a_begin < b_end && b_begin < a_end)
    return absl::InvalidArgumentError(absl::StrCat(
        "arguments '", a_name, "' and '", b_name, "' overlap in memory (",
        Hex(a_begin), "+", a_end - a_begin, " bytes and ", Hex(b_begin), "+",
        b_end - b_begin, " bytes)",
        allow_identical ? "; they must be the same tensor or disjoint" : ""));
  return absl::OkStatus();
}

absl::Status CheckInt32Elements(absl::string_view name, const TensorRef &t) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (t.NumElements() > kMax)
    return Invalid(name, absl::StrCat("has ", t.NumElements(),
                                      " elements; the kernel addresses at "
                                      "most 2^31 - 1"));
  return absl::OkStatus();
}

absl::Status CheckInt32Extents(absl::string_view name, const TensorRef &t) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (int64_t d = 0; d < t.rank(); ++d)
    if (t.shape[d] > kMax)
      return Invalid(
          name, absl::StrCat("has extent ", t.shape[d], " in dimension ", d,
                             " (shape ", ShapeString(t.shape),
                             "); the kernels take extents up to 2^31 - 1"));
  return absl::OkStatus();
}

absl::StatusOr<PointerInfo> QueryPointer(const Driver &driver,
                                         const void *address) {
  // Every slot zeroed and 8 bytes wide: the driver writes an unsigned int,
  // a bool, an int or a 64-bit value into them.
  uint64_t type = 0, managed = 0, ordinal = 0, start = 0, size = 0;
  cu::CUpointer_attribute attributes[] = {
      cu::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, cu::CU_POINTER_ATTRIBUTE_IS_MANAGED,
      cu::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      cu::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
      cu::CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void *data[] = {&type, &managed, &ordinal, &start, &size};
  absl::Status status = driver.Check(
      driver.api().cuPointerGetAttributes(
          5, attributes, data,
          static_cast<cu::CUdeviceptr>(reinterpret_cast<uintptr_t>(address))),
      "cuPointerGetAttributes");
  if (!status.ok())
    return status;
  PointerInfo info;
  if ((managed & 0xFF) != 0)
    info.memory = PointerInfo::Memory::kManaged;
  else if (static_cast<unsigned int>(type) == cu::CU_MEMORYTYPE_DEVICE)
    info.memory = PointerInfo::Memory::kDevice;
  else if (static_cast<unsigned int>(type) == cu::CU_MEMORYTYPE_HOST)
    info.memory = PointerInfo::Memory::kHost;
  else if (static_cast<unsigned int>(type) == cu::CU_MEMORYTYPE_UNIFIED)
    info.memory = PointerInfo::Memory::kManaged;
  info.device = static_cast<int>(static_cast<uint32_t>(ordinal));
  info.range_start = start;
  info.range_size = size;
  return info;
}

absl::Status CheckMemory(absl::string_view name, const TensorRef &t,
                         const PointerInfo &info, int device) {
  uintptr_t address = reinterpret_cast<uintptr_t>(t.data);
  switch (info.memory) {
  case PointerInfo::Memory::kUnknown:
    return Invalid(name, absl::StrCat("address ", Hex(address),
                                      " is not CUDA memory (a host pointer, "
                                      "or freed); expected device memory of "
                                      "device ",
                                      device));
  case PointerInfo::Memory::kHost:
    return Invalid(name, absl::StrCat("address ", Hex(address),
                                      " is page-locked host memory; expected "
                                      "device memory of device ",
                                      device));
  case PointerInfo::Memory::kDevice:
    if (info.device != device)
      return Invalid(name,
                     absl::StrCat("is memory of device ", info.device,
                                  "; the kernel runs on device ", device));
    break;
  case PointerInfo::Memory::kManaged:
    break;
  }
  // The allocation must hold every element (catches outputs allocated too
  // small and wrong element sizes when only a pointer was given).
  if (info.range_size != 0) {
    uint64_t end = uint64_t(address) + uint64_t(t.SpanBytes());
    uint64_t range_end = info.range_start + info.range_size;
    if (address < info.range_start || end > range_end)
      return Invalid(
          name, absl::StrCat("needs ", t.SpanBytes(), " bytes at ",
                             Hex(address), " (shape ", ShapeString(t.shape),
                             ", ", DTypeName(t.dtype),
                             ") but its allocation "
                             "has only ",
                             range_end > address ? range_end - address : 0,
                             " bytes from there"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> DeviceOfTensors(absl::Span<const TensorPointer> tensors,
                                    int fallback) {
  const TensorPointer *owner = nullptr;
  for (const TensorPointer &t : tensors) {
    if (t.info.memory == PointerInfo::Memory::kDevice) {
      owner = &t;
      break;
    }
  }
  const int device = owner != nullptr ? owner->info.device : fallback;
  for (const TensorPointer &t : tensors) {
    if (owner != nullptr && t.info.memory == PointerInfo::Memory::kDevice &&
        t.info.device != device)
      return Invalid(t.name,
                     absl::StrCat("is memory of device ", t.info.device,
                                  ", but argument '", owner->name,
                                  "' is memory of device ", device,
                                  "; all tensors of a call must be on one "
                                  "device"));
    TILEC_RETURN_IF_ERROR(CheckMemory(t.name, *t.tensor, t.info, device));
  }
  return device;
}

absl::StatusOr<int> CheckDeviceTensors(
    const Driver &driver,
    absl::Span<const std::pair<absl::string_view, const TensorRef *>> tensors) {
  absl::StatusOr<int> fallback = CurrentDevice(driver);
  if (!fallback.ok())
    return fallback.status();
  // Pointer queries need a context current.
  std::optional<ScopedContext> scope;
  if (*fallback < 0) {
    absl::StatusOr<CUcontext> primary = PrimaryContext(driver, 0);
    if (!primary.ok())
      return primary.status();
    scope.emplace(driver, *primary);
    if (!scope->status().ok())
      return scope->status();
    *fallback = 0;
  }
  absl::InlinedVector<TensorPointer, 4> pointers;
  for (const auto &[name, tensor] : tensors) {
    absl::StatusOr<PointerInfo> info = QueryPointer(driver, tensor->data);
    if (!info.ok())
      return info.status();
    pointers.push_back({name, tensor, *info});
  }
  return DeviceOfTensors(pointers, *fallback);
}

absl::Status CheckStreamContext(CUcontext stream_context, int stream_device,
                                CUcontext context, int device) {
  if (stream_context == context)
    return absl::OkStatus();
  if (stream_device != device)
    return Invalid("stream",
                   absl::StrCat("is a stream of device ", stream_device,
                                " but the tensors are on device ", device,
                                "; pass a stream of device ", device,
                                " (or null for its default stream)"));
  return Invalid("stream",
                 absl::StrCat("belongs to a context of device ", device,
                              " other than its primary context, where tilec "
                              "launches; pass a stream of the primary "
                              "context (as the CUDA runtime and PyTorch "
                              "create them) or null"));
}

absl::Status CheckStream(const Driver &driver, CUstream stream,
                         CUcontext context, int device) {
  if (stream == nullptr || stream == cu::CU_STREAM_LEGACY ||
      stream == cu::CU_STREAM_PER_THREAD)
    return absl::OkStatus();
  // While a stream is captured into a graph the driver refuses some queries
  // about it, and a refused call ends the capture; cuStreamIsCapturing is
  // safe. A captured stream of the wrong context fails at launch instead.
  cu::CUstreamCaptureStatus capture = cu::CU_STREAM_CAPTURE_STATUS_NONE;
  if (absl::Status status =
          driver.Check(driver.api().cuStreamIsCapturing(stream, &capture),
                       "cuStreamIsCapturing");
      !status.ok())
    return Invalid(
        "stream",
        absl::StrCat(Hex(reinterpret_cast<uintptr_t>(stream)),
                     " is not a usable CUDA stream: ", status.message()));
  if (capture != cu::CU_STREAM_CAPTURE_STATUS_NONE)
    return absl::OkStatus();
  CUcontext owner = nullptr;
  if (absl::Status status = driver.Check(
          driver.api().cuStreamGetCtx(stream, &owner), "cuStreamGetCtx");
      !status.ok())
    return Invalid(
        "stream",
        absl::StrCat(Hex(reinterpret_cast<uintptr_t>(stream)),
                     " is not a usable CUDA stream: ", status.message()));
  if (owner == context)
    return absl::OkStatus();
  absl::StatusOr<cu::CUdevice> owner_device = DeviceOfContext(driver, owner);
  if (!owner_device.ok())
    return owner_device.status();
  return CheckStreamContext(owner, *owner_device, context, device);
}

} // namespace tilec
