#include "runtime/kda.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/context.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "runtime/scratch.h"

namespace tilec {
namespace {

constexpr char kModuleName[] = "kda";

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
}

} // namespace

KdaWorkspaceLayout GetKdaWorkspaceLayout(int64_t batch, int64_t tokens,
                                         int64_t heads, int64_t dim,
                                         int64_t packed_sequences,
                                         int64_t segment_chunks,
                                         int64_t record_element_bytes) {
  const int64_t chunks = (tokens + kKdaChunk - 1) / kKdaChunk;
  // Chunk slots: n·C + c, or with cu_seqlens floor(bos / 64) + n + c.
  const bool packed = packed_sequences >= 0;
  const int64_t slots =
      packed ? tokens / kKdaChunk + packed_sequences + 1 : batch * chunks;
  const int64_t record = 256 * dim + kKdaChunk * kKdaChunk;
  // Every part is a multiple of 16 bytes (D is 64 or 128), so each starts
  // aligned for the kernels' vector accesses.
  KdaWorkspaceLayout layout;
  layout.decays = slots * heads * record * record_element_bytes;
  layout.segments = layout.decays + slots * heads * dim * 4;
  layout.bytes = layout.segments;
  if (segment_chunks >= 1 && segment_chunks < chunks) {
    // Segment slots: n·ceil(C / L) + s, or floor(bos / 64L) + n + s.
    const int64_t per_sequence = (chunks + segment_chunks - 1) / segment_chunks;
    const int64_t segments =
        packed ? tokens / (kKdaChunk * segment_chunks) + packed_sequences + 1
               : batch * per_sequence;
    layout.bytes += segments * heads * 3 * dim * dim * 4;
  }
  return layout;
}

int64_t KdaSegmentChunks(int64_t sequences, int64_t tokens, int64_t heads,
                         int64_t dim, bool packed, int sms) {
  const int64_t chunks = (tokens + kKdaChunk - 1) / kKdaChunk;
  const int64_t blocks = dim / KdaChainColumns(dim);
  const int64_t programs = sequences * heads * blocks;
  if (sms < 1 || programs >= sms)
    return chunks;
  // All sequences' chunks, over the programs that would fill the SMs.
  const int64_t total = packed ? chunks + sequences : sequences * chunks;
  const int64_t per_segment = (total * heads * blocks + sms - 1) / sms;
  return std::min(chunks, std::max(kKdaMinSegmentChunks, per_segment));
}

absl::Status ValidateKdaForward(const TensorRef &q, const TensorRef &k,
                                const TensorRef &v, const TensorRef &g,
                                const TensorRef &beta, float scale,
                                const TensorRef &o, const KdaOptions &options) {
  TILEC_RETURN_IF_ERROR(
      CheckTensor("q", q, {DType::kBF16},
                  {kAnyExtent, kAnyExtent, kAnyExtent, kAnyExtent}));
  const int64_t batch = q.shape[0], tokens = q.shape[1], heads = q.shape[2],
                dim = q.shape[3];
  if (batch < 1 || tokens < 1 || heads < 1)
    return Invalid("q", absl::StrCat("has shape ", ShapeString(q.shape),
                                     "; expected (B, T, H, K) with B, T, "
                                     "H >= 1"));
  if (dim != 64 && dim != 128)
    return absl::UnimplementedError(
        absl::StrCat("argument 'q' has head dim K = ", dim,
                     "; the KDA kernels take 64 or 128"));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("k", k, {DType::kBF16}, {batch, tokens, heads, dim}));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("v", v, {DType::kBF16}, {batch, tokens, heads, kAnyExtent}));
  if (v.shape[3] != dim)
    return absl::UnimplementedError(
        absl::StrCat("argument 'v' has head dim V = ", v.shape[3],
                     "; the KDA kernels take V = K = ", dim));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("g", g, {DType::kF32}, {batch, tokens, heads, dim}));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("beta", beta, {DType::kBF16}, {batch, tokens, heads}));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("o", o, {DType::kBF16}, {batch, tokens, heads, dim}));
  if (!std::isfinite(scale))
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'scale' is ", scale, "; expected a number"));
  if (options.schedule != KdaSchedule::kTwoPhase &&
      options.schedule != KdaSchedule::kSingleKernel &&
      options.schedule != KdaSchedule::kTwoPhaseBf16Chain)
    return absl::InvalidArgumentError(absl::StrCat(
        "argument 'schedule' is ", int(options.schedule),
        "; expected 0 (two-phase), 1 (single kernel) or 2 (two-phase, bf16 "
        "chain)"));
  if (options.segment_chunks < 0)
    return Invalid("segment_chunks",
                   absl::StrCat("is ", options.segment_chunks,
                                "; expected 0 (chosen from the shape) or a "
                                "chunk count >= 1"));
  int64_t sequences = batch;
  if (options.cu_seqlens) {
    TILEC_RETURN_IF_ERROR(CheckTensor("cu_seqlens", *options.cu_seqlens,
                                      {DType::kI32}, {kAnyExtent}));
    if (options.cu_seqlens->shape[0] < 2)
      return Invalid("cu_seqlens",
                     absl::StrCat("has shape ",
                                  ShapeString(options.cu_seqlens->shape),
                                  "; expected (N + 1,) with N >= 1"));
    if (batch != 1)
      return Invalid("q", absl::StrCat("has batch ", batch,
                                       "; with cu_seqlens the sequences are "
                                       "packed along T and B must be 1"));
    sequences = options.cu_seqlens->shape[0] - 1;
  }
  if (options.initial_state)
    TILEC_RETURN_IF_ERROR(CheckTensor("initial_state", *options.initial_state,
                                      {DType::kF32},
                                      {sequences, heads, dim, dim}));
  if (options.final_state)
    TILEC_RETURN_IF_ERROR(CheckTensor("final_state", *options.final_state,
                                      {DType::kF32},
                                      {sequences, heads, dim, dim}));
  // Views take 32-bit extents and strides: H·K, T and H·V per row.
  TILEC_RETURN_IF_ERROR(CheckInt32Extents("q", q));
  if (batch * tokens > INT32_MAX || heads * dim > INT32_MAX)
    return Invalid("q", absl::StrCat("has shape ", ShapeString(q.shape),
                                     "; B*T and H*K must be at most "
                                     "2^31 - 1"));
  const std::pair<const char *, const TensorRef *> inputs[] = {
      {"q", &q},
      {"k", &k},
      {"v", &v},
      {"g", &g},
      {"beta", &beta},
      {"initial_state", options.initial_state},
      {"cu_seqlens", options.cu_seqlens}};
  for (const auto &[name, input] : inputs) {
    if (!input)
      continue;
    TILEC_RETURN_IF_ERROR(CheckNoOverlap(name, *input, "o", o));
    if (options.final_state)
      TILEC_RETURN_IF_ERROR(
          CheckNoOverlap(name, *input, "final_state", *options.final_state));
  }
  if (options.final_state)
    TILEC_RETURN_IF_ERROR(
        CheckNoOverlap("o", o, "final_state", *options.final_state));
  // The compose kernel's grid holds 2·D / BV programs per head along x.
  const int64_t max_heads = kMaxGridX / (2 * dim / KdaChainColumns(dim));
  if (heads > max_heads)
    return absl::UnimplementedError(absl::StrCat(
        "argument 'q' has ", heads, " heads; at most ", max_heads));
  if (sequences > kMaxGridYZ)
    return absl::UnimplementedError(
        absl::StrCat(options.cu_seqlens ? "argument 'cu_seqlens' holds "
                                        : "argument 'q' has batch ",
                     sequences, options.cu_seqlens ? " sequences" : "",
                     "; the kernels take at most ", kMaxGridYZ));
  return absl::OkStatus();
}

absl::Status KdaForward(const TensorRef &q, const TensorRef &k,
                        const TensorRef &v, const TensorRef &g,
                        const TensorRef &beta, float scale, const TensorRef &o,
                        const KdaOptions &options, CUstream stream) {
  TILEC_RETURN_IF_ERROR(
      ValidateKdaForward(q, k, v, g, beta, scale, o, options));
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  std::vector<std::pair<absl::string_view, const TensorRef *>> tensors = {
      {"q", &q}, {"k", &k}, {"v", &v}, {"g", &g}, {"beta", &beta}, {"o", &o}};
  if (options.initial_state)
    tensors.push_back({"initial_state", options.initial_state});
  if (options.final_state)
    tensors.push_back({"final_state", options.final_state});
  if (options.cu_seqlens)
    tensors.push_back({"cu_seqlens", options.cu_seqlens});
  absl::StatusOr<int> device = CheckDeviceTensors(**driver, tensors);
  if (!device.ok())
    return device.status();
  const int64_t dim = q.shape[3];
  const char *suffix = dim == 64 ? "_d64" : "_d128";
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel(kModuleName, absl::StrCat("kda_fwd", suffix), *device);
  if (!kernel.ok())
    return kernel.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*kernel)->context(), *device));

  const int batch = int(q.shape[0]), tokens = int(q.shape[1]),
            heads = int(q.shape[2]);
  const int sequences =
      options.cu_seqlens ? int(options.cu_seqlens->shape[0] - 1) : batch;
  // An absent optional tensor is passed as q's address: the launch refuses
  // null pointers, and the kernels read the tensor only when its flag says
  // it is there.
  auto ptr = [&](const TensorRef *t) {
    return KernelArg::Ptr(t ? t->data : q.data);
  };
  const int64_t chunks = (int64_t(tokens) + kKdaChunk - 1) / kKdaChunk;
  // The chain's views of the workspace take 32-bit row counts: H records
  // per chunk, each (256·D + 64²) / 64 rows in its view of 64-wide rows
  // (the longer of its two views).
  const int64_t record_rows = (256 * dim + kKdaChunk * kKdaChunk) / 64;
  const bool fits = chunks <= kMaxGridYZ &&
                    (chunks + 1) * int64_t(heads) * record_rows <= INT32_MAX;
  if (options.schedule != KdaSchedule::kSingleKernel && fits) {
    // The bf16 chain reads records of bf16, the tf32 chain of f32.
    const bool bf16_chain = options.schedule == KdaSchedule::kTwoPhaseBf16Chain;
    absl::StatusOr<const Kernel *> prep = GetEmbeddedKernel(
        kModuleName,
        absl::StrCat(bf16_chain ? "kda_prep_bf16" : "kda_prep", suffix),
        *device);
    if (!prep.ok())
      return prep.status();
    absl::StatusOr<const Kernel *> chain = GetEmbeddedKernel(
        kModuleName,
        absl::StrCat(bf16_chain ? "kda_chain_bf16" : "kda_chain", suffix),
        *device);
    if (!chain.ok())
      return chain.status();
    int64_t segment_chunks = options.segment_chunks;
    if (segment_chunks == 0) {
      absl::StatusOr<int> sms = (*driver)->DeviceAttribute(
          *device, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
      if (!sms.ok())
        return sms.status();
      segment_chunks = KdaSegmentChunks(sequences, tokens, heads, dim,
                                        options.cu_seqlens != nullptr, *sms);
    }
    const bool segmented = segment_chunks < chunks;
    const int64_t segments =
        segmented ? (chunks + segment_chunks - 1) / segment_chunks : 1;
    const char *precision = bf16_chain ? "_bf16" : "";
    absl::StatusOr<const Kernel *> compose = GetEmbeddedKernel(
        kModuleName, absl::StrCat("kda_compose", precision, suffix), *device);
    if (!compose.ok())
      return compose.status();
    absl::StatusOr<const Kernel *> scan = GetEmbeddedKernel(
        kModuleName, absl::StrCat("kda_seg_scan", suffix), *device);
    if (!scan.ok())
      return scan.status();
    const KdaWorkspaceLayout layout = GetKdaWorkspaceLayout(
        batch, tokens, heads, dim, options.cu_seqlens ? sequences : -1,
        segment_chunks, bf16_chain ? 2 : 4);
    const ScratchRequest requests[] = {
        {size_t(layout.bytes), /*zeroed=*/false}};
    ScopedContext scope(**driver, (*prep)->context());
    if (!scope.status().ok())
      return scope.status();
    return ScratchFor(**driver, (*prep)->context())
        .Use(stream, requests, [&](absl::Span<const cu::CUdeviceptr> buffers) {
          const cu::CUdeviceptr records = buffers[0];
          const cu::CUdeviceptr decays = buffers[0] + layout.decays;
          const cu::CUdeviceptr segs = buffers[0] + layout.segments;
          const KernelArg prep_args[] = {
              KernelArg::Ptr(q.data),
              KernelArg::Ptr(k.data),
              KernelArg::Ptr(v.data),
              KernelArg::Ptr(g.data),
              KernelArg::Ptr(beta.data),
              KernelArg::DevicePtr(records),
              KernelArg::DevicePtr(decays),
              ptr(options.cu_seqlens),
              KernelArg::I32(tokens),
              KernelArg::I32(heads),
              KernelArg::I32(sequences),
              KernelArg::I32(options.cu_seqlens ? 1 : 0),
              KernelArg::F32(scale)};
          const Dim3 prep_grid = {uint32_t(heads), uint32_t(sequences),
                                  uint32_t(chunks)};
          TILEC_RETURN_IF_ERROR((*prep)->Launch(prep_grid, prep_args, stream,
                                                PointerCheck::kSkip));
          const KernelArg chain_args[] = {
              KernelArg::DevicePtr(records),
              KernelArg::DevicePtr(decays),
              KernelArg::Ptr(o.data),
              ptr(options.initial_state),
              ptr(options.final_state),
              KernelArg::DevicePtr(segmented ? segs : records),
              ptr(options.cu_seqlens),
              KernelArg::I32(tokens),
              KernelArg::I32(heads),
              KernelArg::I32(sequences),
              KernelArg::I32(options.initial_state ? 1 : 0),
              KernelArg::I32(options.final_state ? 1 : 0),
              KernelArg::I32(options.cu_seqlens ? 1 : 0),
              KernelArg::I32(int(std::min(segment_chunks, chunks)))};
          const uint32_t blocks = uint32_t(dim / KdaChainColumns(dim));
          if (segmented) {
            // Each segment's map of the state, composed in parallel (the
            // chain's template over [B | M], twice the columns); the
            // segments' entry states, scanned; then the chain replays
            // every segment from its entry state.
            const Dim3 compose_grid = {uint32_t(heads) * 2 * blocks,
                                       uint32_t(sequences), uint32_t(segments)};
            TILEC_RETURN_IF_ERROR((*compose)->Launch(
                compose_grid, chain_args, stream, PointerCheck::kSkip));
            const KernelArg scan_args[] = {
                KernelArg::DevicePtr(segs),
                ptr(options.cu_seqlens),
                KernelArg::I32(tokens),
                KernelArg::I32(heads),
                KernelArg::I32(sequences),
                KernelArg::I32(options.cu_seqlens ? 1 : 0),
                KernelArg::I32(int(segment_chunks))};
            const Dim3 scan_grid = {uint32_t(heads), uint32_t(sequences),
                                    blocks};
            TILEC_RETURN_IF_ERROR((*scan)->Launch(scan_grid, scan_args, stream,
                                                  PointerCheck::kSkip));
          }
          // A head's blocks of columns are neighbours along x, so they
          // run together and share each record through L2.
          const Dim3 chain_grid = {uint32_t(heads) * blocks,
                                   uint32_t(sequences), uint32_t(segments)};
          return (*chain)->Launch(chain_grid, chain_args, stream,
                                  PointerCheck::kSkip);
        });
  }
  const KernelArg args[] = {KernelArg::Ptr(q.data),
                            KernelArg::Ptr(k.data),
                            KernelArg::Ptr(v.data),
                            KernelArg::Ptr(g.data),
                            KernelArg::Ptr(beta.data),
                            KernelArg::Ptr(o.data),
                            ptr(options.initial_state),
                            ptr(options.final_state),
                            ptr(options.cu_seqlens),
                            KernelArg::I32(tokens),
                            KernelArg::I32(heads),
                            KernelArg::I32(sequences),
                            KernelArg::I32(options.initial_state ? 1 : 0),
                            KernelArg::I32(options.final_state ? 1 : 0),
                            KernelArg::I32(options.cu_seqlens ? 1 : 0),
                            KernelArg::F32(scale)};
  const Dim3 grid = {uint32_t(heads), uint32_t(sequences), 1};
  ScopedContext scope(**driver, (*kernel)->context());
  if (!scope.status().ok())
    return scope.status();
  return (*kernel)->Launch(grid, args, stream, PointerCheck::kSkip);
}

} // namespace tilec
