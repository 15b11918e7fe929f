// The hidden tensor-map parameters of TMA kernels, encoded per launch.
//
// A kernel that reads through TMA declares, in its metadata, tensor maps
// made from its own arguments (a base pointer, sizes and strides). Each
// launch encodes them again from that launch's arguments, so nothing is
// cached by pointer. A view whose base or row strides are not 16-byte
// aligned cannot be described; the kernel tests the same condition
// (tile.view_aligned) and takes its cp.async path, and gets a zeroed map.
#ifndef TILEC_RUNTIME_TENSOR_MAP_H_
#define TILEC_RUNTIME_TENSOR_MAP_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/driver.h"
#include "runtime/launch.h"
#include "runtime/metadata.h"

namespace tilec {

// A CUtensorMap: 128 bytes, 64-byte aligned, opaque.
struct alignas(64) TensorMapBytes {
  std::array<uint64_t, 16> words = {};
};

// The arguments of one cuTensorMapEncodeTiled call, innermost dimension
// first as the driver takes them; `encode` is false when the view is not
// 16-byte aligned (the map stays zero).
struct TensorMapRequest {
  bool encode = false;
  int data_type = 0;
  unsigned rank = 0;
  uint64_t address = 0;
  std::array<unsigned long long, 5> dims = {};
  std::array<unsigned long long, 4> strides = {}; // bytes, dims 1..rank-1
  std::array<unsigned, 5> box = {};
  std::array<unsigned, 5> element_strides = {};
  int swizzle = 0;
};

// What to encode for `map` from a launch's `args` (already validated
// against `kernel`); InvalidArgument naming the argument when a size or
// stride cannot describe a tensor (not positive, or too large).
absl::StatusOr<TensorMapRequest> PlanTensorMap(const KernelInfo &kernel,
                                               const TensorMapInfo &map,
                                               absl::Span<const KernelArg> args);

// Encodes every hidden tensor map of `kernel` for `args` into `out` (one
// per map).
absl::Status EncodeTensorMaps(const Driver &driver, const KernelInfo &kernel,
                              absl::Span<const KernelArg> args,
                              absl::Span<TensorMapBytes> out);

} // namespace tilec

#endif // TILEC_RUNTIME_TENSOR_MAP_H_
