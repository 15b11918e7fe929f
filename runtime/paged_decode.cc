#include "runtime/paged_decode.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "runtime/context.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "runtime/scratch.h"

namespace tilec {
namespace {

constexpr char kModuleName[] = "paged_decode";
// Query heads per program (the MMA's M) and pages per kernel step.
constexpr int64_t kHeadsPerProgram = 16;
constexpr int64_t kPagesPerStep = 4;
// Programs to aim for, and the span of pages one takes: measured on the
// H200 over the deck shapes (bench_decode.py's sweep of the kernel that
// stages K/V through a cp.async ring), the best span of every split shape
// is what about 2 programs per SM give, within 16 to 64 pages (4 to 16
// steps): (4, 4096) 32 pages 35.9 us against 46.1 at 16; (8, 1024) 16.
// A shape that fills the grid unsplit takes one span (below). The bounds
// are for D = 128 and scale with the bytes of a page: a D = 64 span is at
// least 32 pages ((8, 16, 4, 64, 2000) on an H100, in two runs: 18.1 us
// at 32 pages against 21.3 at 16, after page-table reads moved a step
// ahead and gathers branched once).
constexpr int64_t kTargetPrograms = 256;
constexpr int64_t kMinPagesPerSplit = 16, kMaxPagesPerSplit = 64;
// At most 8 spans at D = 128 (16 at D = 64) unless the span would pass
// its bound: each span's partials cost the merge, and at few (sequence,
// kv head) pairs more spans lost on an H100 (bench/RESULTS.md, 2026-12-07,
// later): (1, 32, 8, 128, 4096) 26.2 us in 8 spans of 32 pages against
// 29.0 in 16 of 16; (1, 16, 4, 64, 20000) 32.3 in 20 spans of 64 pages
// and 34.4 in 10 of 128 against 43.9 in 40 of 32. This rule gives the
// latter 16 spans of 80 pages: 31.4 us, against 43.8 before it and 37.0
// for torch (bench/RESULTS.md, 2026-12-07, evening).
constexpr int64_t kMaxSplits = 8;
constexpr int64_t kSpanHeadDim = 128;
// At D = 128, grids of at most 128 programs unsplit run the 8-warp,
// three-stage instance, about one program per SM, in spans of at least 64
// pages: on an H100 (bench/RESULTS.md, 2026-12-07) its best spans were 64
// pages on (8, 1024) (24.7 us against 27.4 for the 4-warp kernel split
// four ways), (4, 4096) (39.9 against 42.2) and the whole table on (16,
// 1535) (48.8 against 52.5); on (32, 2048), 256 programs unsplit, it took
// 105.5 against 101.4. Between 128 and 256 programs it has not been timed,
// so the 4-warp kernel keeps those grids. Where spans of 64 pages leave
// fewer than 64 programs, it takes the 4-warp kernel's shorter spans
// instead: with 64 it lost there ((1, 1024) 22.0 us against 15.7, 8
// programs), while over the same spans it beat the 4-warp kernel at every
// such grid measured (bench/RESULTS.md, 2026-12-07, evening): (1, 1024)
// 14.7 against 15.9 at 16 pages, (4, 1024) 18.7 against 20.1, (1, 2048)
// 18.4 against 20.2, (1, 4096) 22.5 against 26.1 at 32 pages.
// D = 64 grids of at most 128 programs aim at half as many programs:
// every D = 64 shape swept on an H100 was fastest with 64 to 128 programs,
// never 256. Over nine grids of 32 to 128 pairs the rule measured 0.98 to
// 1.12 of the time before (none moved lost more than 2%): (4, 8, 8, 64,
// 4096) 26.2 us in 4 spans of 64 pages against 28.5 in 8 of 32, (32, 16,
// 4, 64, 1024) 22.8 unsplit against 25.4 in two spans (bench/RESULTS.md,
// "Hopper multicast", 2026-12-07).
constexpr int64_t kNarrowFewMaxPrograms = 128, kNarrowFewTargetPrograms = 128;
constexpr char kWideKernel[] = "paged_decode_d128_w8";
constexpr int64_t kWideMaxPrograms = 128, kWideTargetPrograms = 128,
                  kWideMinPagesPerSplit = 64, kWideMinPrograms = 64;

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Programs per sequence and kv head: groups of up to 16 of its query heads.
int64_t HeadGroups(int64_t heads, int64_t kv_heads) {
  return CeilDiv(heads / kv_heads, kHeadsPerProgram);
}

} // namespace

PagedDecodePlan PlanPagedDecode(int64_t batch, int64_t heads, int64_t kv_heads,
                                int64_t width, int64_t head_dim) {
  const int64_t groups = HeadGroups(heads, kv_heads);
  const int64_t programs = std::max<int64_t>(1, batch * kv_heads * groups);
  const int64_t steps = CeilDiv(std::max<int64_t>(width, 1), kPagesPerStep);
  bool wide = false;
  if (head_dim == 128 && programs <= kWideMaxPrograms) {
    const int64_t splits = CeilDiv(kWideTargetPrograms, programs);
    const int64_t pages = std::max<int64_t>(
        CeilDiv(steps, splits) * kPagesPerStep, kWideMinPagesPerSplit);
    if (programs * CeilDiv(std::max<int64_t>(width, 1), pages) >=
        kWideMinPrograms)
      return {kWideKernel, int(pages), int(groups)};
    wide = true;
  }
  const char *kernel = wide             ? kWideKernel
                       : head_dim == 64 ? "paged_decode_d64"
                                        : "paged_decode_d128";
  const int64_t scale = std::max<int64_t>(1, kSpanHeadDim / head_dim);
  const int64_t minPages = kMinPagesPerSplit * scale;
  const int64_t maxPages = kMaxPagesPerSplit * scale;
  const int64_t target = head_dim == 64 && programs <= kNarrowFewMaxPrograms
                             ? kNarrowFewTargetPrograms
                             : kTargetPrograms;
  const int64_t splits =
      std::clamp<int64_t>(CeilDiv(target, programs), 1, kMaxSplits * scale);
  // Programs enough without splitting: one span of the whole table, which
  // stores its output directly (no partials, no merge). (32, 2048) took
  // 83.1 us so against 98.6 at 64 pages in two spans.
  if (splits == 1)
    return {
        kernel,
        int(std::max<int64_t>(steps, minPages / kPagesPerStep) * kPagesPerStep),
        int(groups)};
  const int64_t pages = CeilDiv(width, splits);
  return {kernel,
          int(std::clamp(CeilDiv(pages, kPagesPerStep) * kPagesPerStep,
                         minPages, maxPages)),
          int(groups)};
}

absl::Status ValidatePagedDecode(const TensorRef &query,
                                 const TensorRef &kv_cache,
                                 const TensorRef &block_table,
                                 const TensorRef &seq_lens,
                                 const TensorRef &out) {
  TILEC_RETURN_IF_ERROR(CheckTensor("query", query, {DType::kBF16},
                                    {kAnyExtent, kAnyExtent, kAnyExtent}));
  const int64_t batch = query.shape[0], heads = query.shape[1],
                dim = query.shape[2];
  if (batch < 1 || heads < 1)
    return Invalid("query",
                   absl::StrCat("has shape ", ShapeString(query.shape),
                                "; expected (B, H, D) with B, H >= 1"));
  if (dim != 64 && dim != 128)
    return absl::UnimplementedError(
        absl::StrCat("argument 'query' has head dim ", dim,
                     "; the paged-decode kernels take 64 or 128"));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("kv_cache", kv_cache, {DType::kBF16},
                  {kAnyExtent, kPagedDecodePageSize, kAnyExtent, 2 * dim}));
  const int64_t pages = kv_cache.shape[0], kv_heads = kv_cache.shape[2];
  if (pages < 1 || kv_heads < 1)
    return Invalid("kv_cache",
                   absl::StrCat("has shape ", ShapeString(kv_cache.shape),
                                "; expected (pages, 16, Hkv, 2*D) with "
                                "pages, Hkv >= 1"));
  if (heads % kv_heads != 0)
    return Invalid("kv_cache",
                   absl::StrCat("has ", kv_heads,
                                " kv heads, which do not divide the query's ",
                                heads, " heads"));
  TILEC_RETURN_IF_ERROR(CheckTensor("block_table", block_table, {DType::kI32},
                                    {batch, kAnyExtent}));
  if (block_table.shape[1] < 1)
    return Invalid("block_table",
                   absl::StrCat("has shape ", ShapeString(block_table.shape),
                                "; expected (B, pages) with pages >= 1"));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("seq_lens", seq_lens, {DType::kI32}, {batch}));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("out", out, {DType::kBF16}, {batch, heads, dim}));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("query", query));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("kv_cache", kv_cache));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("block_table", block_table));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("query", query, "out", out));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("kv_cache", kv_cache, "out", out));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("block_table", block_table, "out", out));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("seq_lens", seq_lens, "out", out));
  // Programs run along the grid's y (kv heads × head groups) and z (batch).
  const int64_t chunks = HeadGroups(heads, kv_heads);
  if (kv_heads * chunks > kMaxGridYZ)
    return absl::UnimplementedError(absl::StrCat(
        "argument 'kv_cache' has ", kv_heads, " kv heads of ", heads / kv_heads,
        " query heads each; the kernels take at most ", kMaxGridYZ,
        " groups of 16 query heads"));
  if (batch > kMaxGridYZ)
    return absl::UnimplementedError(
        absl::StrCat("argument 'query' has batch ", batch,
                     "; the kernels take at most ", kMaxGridYZ));
  return absl::OkStatus();
}

absl::Status PagedDecode(const TensorRef &query, const TensorRef &kv_cache,
                         const TensorRef &block_table,
                         const TensorRef &seq_lens, const TensorRef &out,
                         CUstream stream) {
  TILEC_RETURN_IF_ERROR(
      ValidatePagedDecode(query, kv_cache, block_table, seq_lens, out));
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device =
      CheckDeviceTensors(**driver, {{"query", &query},
                                    {"kv_cache", &kv_cache},
                                    {"block_table", &block_table},
                                    {"seq_lens", &seq_lens},
                                    {"out", &out}});
  if (!device.ok())
    return device.status();
  const int64_t dim = query.shape[2];
  // Every extent fits in int32: the element counts do.
  const int batch = int(query.shape[0]), heads = int(query.shape[1]);
  const int pages = int(kv_cache.shape[0]), kv_heads = int(kv_cache.shape[2]);
  const int width = int(block_table.shape[1]);
  const PagedDecodePlan plan =
      PlanPagedDecode(batch, heads, kv_heads, width, dim);
  const int64_t chunks = plan.head_groups;
  absl::StatusOr<const Kernel *> split =
      GetEmbeddedKernel(kModuleName, plan.kernel, *device);
  if (!split.ok())
    return split.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*split)->context(), *device));
  const int pps = plan.pages_per_split;
  const int splits = int(CeilDiv(width, pps));
  // Per split and tile of up to 16 query heads (b, c): slots of 32 floats
  // for the maxima and the sums and of min(G, 16) rows for the
  // accumulators, merged in the kernel by the tile's last split; one
  // ticket per tile, which every launch leaves at zero.
  const int64_t tiles = int64_t(batch) * kv_heads * chunks;
  const int64_t slot_rows =
      std::min<int64_t>(heads / kv_heads, kHeadsPerProgram);
  const ScratchRequest requests[] = {
      {size_t(splits * tiles) * 32 * 4, /*zeroed=*/false},
      {size_t(splits * tiles) * 32 * 4, /*zeroed=*/false},
      {size_t(splits * tiles) * size_t(slot_rows * dim) * 4,
       /*zeroed=*/false},
      {size_t(tiles) * 4, /*zeroed=*/true}};
  const float scale = float(1.0 / std::sqrt(double(dim)));

  ScopedContext scope(**driver, (*split)->context());
  if (!scope.status().ok())
    return scope.status();
  return ScratchFor(**driver, (*split)->context())
      .Use(stream, requests, [&](absl::Span<const cu::CUdeviceptr> buffers) {
        const KernelArg args[] = {KernelArg::Ptr(query.data),
                                  KernelArg::Ptr(kv_cache.data),
                                  KernelArg::Ptr(block_table.data),
                                  KernelArg::Ptr(seq_lens.data),
                                  KernelArg::DevicePtr(buffers[0]),
                                  KernelArg::DevicePtr(buffers[1]),
                                  KernelArg::DevicePtr(buffers[2]),
                                  KernelArg::DevicePtr(buffers[3]),
                                  KernelArg::Ptr(out.data),
                                  KernelArg::I32(batch),
                                  KernelArg::I32(heads),
                                  KernelArg::I32(kv_heads),
                                  KernelArg::I32(width),
                                  KernelArg::I32(pages),
                                  KernelArg::I32(splits),
                                  KernelArg::I32(pps),
                                  KernelArg::F32(scale)};
        const Dim3 grid = {uint32_t(splits), uint32_t(kv_heads * chunks),
                           uint32_t(batch)};
        return (*split)->Launch(grid, args, stream, PointerCheck::kSkip);
      });
}

} // namespace tilec
