// Argument checks shared by the runtime's entry points (softmax, top-k,
// GEMM), run before anything is launched.
//
// A kernel launched on a bad pointer does not fail cleanly: an illegal
// address poisons the CUDA context, and every later CUDA call in the process
// fails with it. So each entry point describes its tensors as TensorRefs and
// checks them here first, in steps:
//  - CheckTensor and friends: pure checks of dtype, shape, strides,
//    alignment and overlap, which need no driver and run everywhere;
//  - CheckDeviceTensors: asks the driver (cuPointerGetAttributes) where each
//    tensor lies and returns the device the call runs on: the one holding
//    the tensors, all of which must be device memory of that one device (or
//    managed memory), each within one allocation. DeviceOfTensors and
//    CheckMemory hold its logic, apart from the driver, so that it can be
//    tested without a GPU;
//  - CheckStream: the caller's stream belongs to the context the call
//    launches in (that device's primary context).
// Every error is InvalidArgument and names the argument and what was
// expected, e.g. "argument 'values' has shape (4, 8); expected (4, 16)".
#ifndef TILEC_RUNTIME_VALIDATE_H_
#define TILEC_RUNTIME_VALIDATE_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "runtime/driver.h"

// Returns the status of `expr` from the enclosing function unless it is OK.
#define TILEC_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    if (absl::Status tilec_status_ = (expr); !tilec_status_.ok())              \
      return tilec_status_;                                                    \
  } while (0)

namespace tilec {

// Element types of tensors passed to entry points. The values are the C
// API's TILEC_DTYPE_* constants.
enum class DType : int {
  kF32 = 0,
  kBF16 = 1,
  kF16 = 2,
  kF64 = 3,
  kI8 = 4,
  kI16 = 5,
  kI32 = 6,
  kI64 = 7,
  kU8 = 8,
  kBool = 9,
  kF8E4M3 = 10, // fp8 e4m3fn (torch.float8_e4m3fn)
  kLast = kF8E4M3,
};

// "f32", "bf16", ... (the metadata's element type names).
absl::string_view DTypeName(DType dtype);
int64_t DTypeBytes(DType dtype);
// The DType with C API value `value`, if there is one.
std::optional<DType> DTypeFromInt(int value);

// A strided tensor as an entry point receives it: the address of element
// (0, ..., 0), its element type, extents, and strides in elements (not
// bytes). Empty strides mean row-major contiguous.
struct TensorRef {
  const void *data = nullptr;
  DType dtype = DType::kF32;
  absl::InlinedVector<int64_t, 4> shape;
  absl::InlinedVector<int64_t, 4> strides;

  // A row-major contiguous tensor.
  static TensorRef Contiguous(const void *data, DType dtype,
                              std::initializer_list<int64_t> shape);

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  // The stride of dimension `dim` (row-major when no strides are given).
  int64_t stride(int64_t dim) const;
  // Product of the extents (1 for rank 0); only meaningful after the shape
  // has been checked to be non-negative.
  int64_t NumElements() const;
  // Bytes from `data` to one past the farthest element; 0 when empty.
  int64_t SpanBytes() const;
};

// Marks an extent CheckShape does not constrain.
inline constexpr int64_t kAnyExtent = -1;

// "(4, 16)" for error messages; kAnyExtent prints as "*".
std::string ShapeString(absl::Span<const int64_t> shape);

// The pure checks, one property each. `name` is the argument's name.
absl::Status CheckNotNull(absl::string_view name, const TensorRef &t);
absl::Status CheckDType(absl::string_view name, const TensorRef &t,
                        absl::Span<const DType> allowed);
// Rank, then each extent (kAnyExtent matches any), then that no extent is
// negative and the element count does not overflow int64.
absl::Status CheckShape(absl::string_view name, const TensorRef &t,
                        absl::Span<const int64_t> expected);
// Row-major contiguous; a dimension of extent 1 may have any stride (as in
// PyTorch, whose contiguous tensors may carry such strides).
absl::Status CheckRowMajor(absl::string_view name, const TensorRef &t);
// `data` is a multiple of the element size (a misaligned address faults).
absl::Status CheckAligned(absl::string_view name, const TensorRef &t);
// All of the above: not null, dtype in `allowed`, shape `expected`,
// row-major contiguous, aligned.
absl::Status CheckTensor(absl::string_view name, const TensorRef &t,
                         absl::Span<const DType> allowed,
                         absl::Span<const int64_t> expected);
// The byte ranges of `a` and `b` are disjoint; with `allow_identical`, the
// same range (an in-place call) is accepted too.
absl::Status CheckNoOverlap(absl::string_view a_name, const TensorRef &a,
                            absl::string_view b_name, const TensorRef &b,
                            bool allow_identical = false);
// For kernels that address elements with 32-bit offsets.
absl::Status CheckInt32Elements(absl::string_view name, const TensorRef &t);
// Every extent at most 2^31 - 1: tile views take 32-bit extents, strides
// and offsets per dimension (their element addresses are 64-bit, so the
// tensor itself may hold more than 2^31 elements).
absl::Status CheckInt32Extents(absl::string_view name, const TensorRef &t);

// What the driver says about an address.
struct PointerInfo {
  enum class Memory {
    kUnknown, // not an address the driver knows (pageable host memory, a
              // freed allocation, garbage)
    kHost,    // page-locked or registered host memory
    kDevice,  // device memory
    kManaged, // managed (unified) memory
  };
  Memory memory = Memory::kUnknown;
  int device = -1; // ordinal the memory was allocated on
  // The allocation holding the address; size 0 when the driver cannot say.
  uint64_t range_start = 0;
  uint64_t range_size = 0;
};

// The driver's answer for `address` (cuPointerGetAttributes, which, unlike
// cuPointerGetAttribute, reports unknown addresses without an error). Must
// run with a context current.
absl::StatusOr<PointerInfo> QueryPointer(const Driver &driver,
                                         const void *address);

// Whether `t` (already shape-checked) may be accessed by a kernel on device
// `device`, given what the driver said about t.data: device memory of that
// device, or managed memory (which migrates to whichever device touches
// it), with every element inside the allocation.
absl::Status CheckMemory(absl::string_view name, const TensorRef &t,
                         const PointerInfo &info, int device);

// A tensor argument with the driver's answer about its address.
struct TensorPointer {
  absl::string_view name;
  const TensorRef *tensor = nullptr;
  PointerInfo info;
};

// The device a call on `tensors` runs on: that of the first tensor in device
// memory (managed memory is reachable from every device, so it does not
// decide), or `fallback` when no tensor is device memory. Every tensor must
// then pass CheckMemory against that device; one in another device's memory
// is named together with the argument that fixed the device.
absl::StatusOr<int> DeviceOfTensors(absl::Span<const TensorPointer> tensors,
                                    int fallback);

// DeviceOfTensors over the driver's answers for each (name, tensor), which
// must have passed the pure checks. `fallback` is the device of the current
// context, or device 0 when none is current (its primary context then
// answers the queries and is not left current).
absl::StatusOr<int> CheckDeviceTensors(
    const Driver &driver,
    absl::Span<const std::pair<absl::string_view, const TensorRef *>> tensors);

// Whether a stream of `stream_context`, a context of device `stream_device`,
// may carry a launch in `context`, the primary context of device `device`.
absl::Status CheckStreamContext(CUcontext stream_context, int stream_device,
                                CUcontext context, int device);

// CheckStreamContext with the driver's answer about `stream` (argument
// 'stream'). The null, legacy and per-thread handles name a stream of the
// launch's own context and always pass; so does a stream being captured
// into a graph, which the driver does not answer about.
absl::Status CheckStream(const Driver &driver, CUstream stream,
                         CUcontext context, int device);

} // namespace tilec

#endif // TILEC_RUNTIME_VALIDATE_H_
