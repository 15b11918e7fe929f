// Kernel metadata: the JSON record the compiler writes next to each PTX
// module (docs/metadata.md). The runtime launches and validates from this
// alone, never from the PTX text.
#ifndef TILEC_RUNTIME_METADATA_H_
#define TILEC_RUNTIME_METADATA_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tilec {

// How a kernel parameter is passed.
enum class ParamKind {
  kPtr,       // a global-memory address (8 bytes)
  kI32,       // 32-bit signed integer
  kI64,       // 64-bit signed integer
  kF32,       // float
  kF64,       // double
  kTensorMap, // a 128-byte CUtensorMap passed by value
};

// The metadata spelling of a kind: "ptr", "i32", ..., "tensormap".
absl::string_view ParamKindName(ParamKind kind);
std::optional<ParamKind> ParamKindFromName(absl::string_view name);

struct ParamInfo {
  std::string name;
  ParamKind kind = ParamKind::kPtr;
  // Element type of the pointee ("f32", "bf16", ...); empty when not given.
  std::string elem;
};

// A size or stride of a tensor map's view: a constant, or a kernel argument
// (an i32 or i64 parameter) times `mul`, divided by `div` (rounding down).
struct ScalarRef {
  // The parameter's index, or -1 for a constant.
  int arg = -1;
  int64_t value = 0;
  int64_t mul = 1;
  int64_t div = 1;
};

// A tensor map the runtime encodes on every launch (cuTensorMapEncodeTiled)
// and passes as hidden parameter `param`, after the declared ones: a view of
// `sizes` and `strides` (elements, outermost first; the last stride is 1)
// at the address of ptr parameter `base`, read in boxes of `box` (outermost
// first) under a `swizzle`-byte swizzle.
struct TensorMapInfo {
  int param = 0;
  std::string elem;
  int base = 0;
  std::vector<ScalarRef> sizes;
  std::vector<ScalarRef> strides;
  std::vector<uint32_t> box;
  uint32_t swizzle = 0;
  // The kernel reads through this map alone (no fallback for views TMA
  // cannot describe): launches with such views are refused.
  bool required = false;
  // The kernel copies through this map only boxes that lie wholly inside
  // the view along its outermost dimension: a view too short for one such
  // box gets no map (zeros), not an error.
  bool whole_outer = false;
};

// Bytes of one element named as in metadata ("bf16": 2), or 0 when unknown.
int ElementBytes(absl::string_view elem);

struct KernelInfo {
  std::string name;
  // The module's target ("sm_90a", ...), repeated for each kernel.
  std::string target;
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t shared_bytes = 0;
  std::array<uint32_t, 3> cluster = {1, 1, 1};
  std::vector<ParamInfo> params;
  // Hidden tensor-map parameters, in order after `params`.
  std::vector<TensorMapInfo> tensor_maps;
  // For a persistent kernel (tile-persistent), the tile rows walked side by
  // side; 0 otherwise. Its last two params are the tile grid (`tiles_x`,
  // `tiles_y`, i32) and it runs on a 1-D grid of at most as many programs
  // as the GPU holds at once (Kernel::LaunchTiles).
  uint32_t persistent_group = 0;
  // For a kernel whose reduction is split over grid z (tile-split-k), the
  // bytes of one program's partial accumulator; 0 otherwise. Its last two
  // params are then `split_partials` (f32, grid x * y * z partials) and
  // `split_tickets` (i32, grid x * y tickets, zero before the first launch;
  // each launch leaves them zero).
  uint32_t split_k_partial_bytes = 0;
  // The kernel begins with griddepcontrol.wait (tile-dependent-launch), so
  // it may be launched with programmatic stream serialization: scheduled
  // while the grid before it finishes, which it waits for at its entry.
  bool dependent_launch = false;
  // This kernel's whole record as compact JSON text (members in document
  // order), for callers that want to read fields themselves (the C and
  // Python APIs).
  std::string json;

  bool HasCluster() const { return cluster[0] * cluster[1] * cluster[2] != 1; }
};

struct ModuleInfo {
  std::string format;
  std::string target;
  std::vector<KernelInfo> kernels;
};

// The `format` the compiler writes. v2 adds scaled sizes and strides
// (`mul`, `div`) and `whole_outer` to tensor maps; this runtime also reads
// v1 documents, which have neither. A runtime that knows only v1 refuses
// v2 documents instead of encoding their maps wrong.
inline constexpr absl::string_view kMetadataFormat = "tilec-metadata-v2";
inline constexpr absl::string_view kMetadataFormatV1 = "tilec-metadata-v1";

// Parses and checks a metadata document. Errors are InvalidArgument and name
// the offending field, e.g. "metadata: kernels[0] ('softmax').params[2]
// ('rows'): unknown kind 'int'; expected one of ptr, i32, i64, f32, f64,
// tensormap". Unknown fields are ignored so the format can grow.
absl::StatusOr<ModuleInfo> ParseMetadata(absl::string_view json);

} // namespace tilec

#endif // TILEC_RUNTIME_METADATA_H_
