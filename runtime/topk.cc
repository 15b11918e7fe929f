#include "runtime/topk.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "runtime/context.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/module.h"
#include "runtime/scratch.h"
#include "runtime/validate.h"

namespace tilec {
namespace {

constexpr char kModuleName[] = "topk";
constexpr char kKernelName[] = "topk_f32";
constexpr char kUnguessedKernelName[] = "topk_f32_unguessed";
constexpr char kSplitKernelName[] = "topk_split_f32";
// The split kernel at 128 registers: two programs per SM. It takes over
// from 168 registers (one per SM) once the grid has more programs than the
// device has SMs. On the H200: 1024 x 50257, k = 50 (13 parts a row) 393
// against 592 us; 32 x 16384, k = 32 (128 programs) 12.5 against 9.9 us.
constexpr char kSplitWideKernelName[] = "topk_split_f32_r128";
constexpr char kTop1KernelName[] = "top1_f32";
constexpr char kSelectKernelName[] = "topk_select_f32";
constexpr char kSortChunksKernelName[] = "topk_sort_chunks";
// The same sort over one chunk of 1024 slots, for k <= kShortSortK.
constexpr char kSortShortKernelName[] = "topk_sort_chunks_1024";
constexpr int kShortSortK = 1024;
constexpr char kMergeKernelName[] = "topk_merge_f32";
// topk_split_f32: columns per program, the most candidate slots per row,
// and the largest k it handles.
constexpr int kPartLen = 4096;
constexpr int kMaxCandidates = 4096;
constexpr int kSplitMaxK = 64;
// top1_f32: columns per program.
constexpr int kTop1MaxN = 4096;
// topk_rows: its instances per width, narrowest first: R rows of W columns
// per program. The wide ones (one row per warp or several) serve many rows;
// the few-rows ones spread one row (W = 64: eight) over a program, so that
// few rows still run on many warps. topk_rows_select: 2 <= k <=
// kRowsSelectMaxK, k rounds of a row maximum on the same layouts;
// topk_rows_max: k = 1.
struct RowsInstance {
  const char *name;
  int rows, width;
};
// W = 1024 sorts one row per program at any batch (kernels_dsl/topk.mlir:
// its row-per-warp instance costs seconds of JIT for no fewer
// instructions).
constexpr RowsInstance kRowsInstances[] = {{"topk_rows_w64", 64, 64},
                                           {"topk_rows_w256", 16, 256},
                                           {"topk_rows_w1024_r1", 1, 1024}};
constexpr RowsInstance kRowsFewInstances[] = {{"topk_rows_w64_r8", 8, 64},
                                              {"topk_rows_w256_r1", 1, 256},
                                              {"topk_rows_w1024_r1", 1, 1024}};
constexpr RowsInstance kRowsSelectInstances[] = {
    {"topk_rows_select_w64", 64, 64},
    {"topk_rows_select_w256", 16, 256},
    {"topk_rows_select_w1024", 8, 1024}};
constexpr RowsInstance kRowsSelectFewInstances[] = {
    {"topk_rows_select_w64_r8", 8, 64},
    {"topk_rows_select_w256_r1", 1, 256},
    {"topk_rows_select_w1024_r1", 1, 1024}};
constexpr RowsInstance kRowsMaxInstances[] = {{"topk_rows_max_w64", 64, 64},
                                              {"topk_rows_max_w256", 16, 256},
                                              {"topk_rows_max_w1024", 4, 1024}};
constexpr int kRowsMaxN = 1024;
// The largest k of topk_rows_select: a round costs about 1/100 of a
// 1024-column sort (1/20 of a 64-column one) in instructions, but rounds
// run one after another (to be measured).
constexpr int64_t kRowsSelectMaxK = 8;
// The wide instances take over from the few-rows ones at this many of
// their programs (about two per SM of an H200; to be measured).
constexpr int64_t kRowsWidePrograms = 256;
const RowsInstance &RowsInstanceFor(const RowsInstance (&instances)[3],
                                    int64_t n) {
  for (const RowsInstance &instance : instances)
    if (n <= instance.width)
      return instance;
  return instances[2];
}
// Whether `batch` short rows of n columns take the few-rows instances:
// fewer than kRowsWidePrograms programs of the wide one (R = 64 / 16 / 8
// rows, those of topk_rows_select).
bool FewShortRows(int64_t batch, int64_t n) {
  return batch <
         kRowsWidePrograms * RowsInstanceFor(kRowsSelectInstances, n).rows;
}
// topk_f32: the widest sort tile (slots per row).
constexpr int kRowMaxK = 2048;
// The large-k kernels: slots per program of topk_sort_chunks and
// topk_merge_f32, and the most rows of one launch (grid.y).
constexpr int kLargeChunk = 2048;
// topk_merge_f32: probes per round of its search (the width of its tiles).
constexpr int kMergeFanout = 2048;
constexpr int64_t kMaxGridY = 65535;
constexpr char kHistKernelName[] = "topk_hist_f32";
constexpr char kGatherKernelName[] = "topk_gather_f32";
constexpr char kCollectKernelName[] = "topk_collect_f32";
constexpr char kGuessKernelName[] = "topk_guess_f32";
constexpr char kGuessGatherKernelName[] = "topk_guess_gather_f32";
constexpr char kGuessSelectKernelName[] = "topk_guess_select_f32";
// topk_guess_gather_f32's columns per program, and LongRowsGuess's
// bounds: the least input (elements), the sample's runs of 256 columns
// (16 per 4096-element tile, at most 128), the rank aimed at and the
// least taken.
constexpr int64_t kGuessPartLen = 512;
constexpr int64_t kGuessMinElements = int64_t(1) << 22;
constexpr int64_t kGuessBlockLen = 256, kGuessBlocksPerTile = 16;
constexpr int64_t kGuessMaxBlocks = 128;
constexpr int64_t kGuessAimRank = 32, kGuessMinRank = 16;
constexpr int64_t kGuessMaxBatch = 2048;
constexpr int64_t kGuessedPassPrograms = 264, kGuessedPassMinBatch = 128;
// topk_guess_select_f32's sort slots in its direct form (k <= kRowMaxK),
// and how many standard deviations a direct plan's aim keeps from k and
// from those slots.
constexpr int64_t kDirectSortSlots = 2048;
constexpr double kGuessDeviationsBelow = 5.0, kGuessDeviationsAbove = 4.0;
// Where the direct guessed start takes small k from the split path
// (DirectGuessBeatsSplit): the first tier whose k it reaches gives the
// least row length and input elements. 49152 is the shortest row measured
// (rows of 32768 have no guess plan).
struct GuessOverSplitTier {
  int64_t minK, minN, minElements;
};
constexpr GuessOverSplitTier kGuessOverSplitTiers[] = {
    {32, 49152, int64_t(1) << 23},
    {16, 49152, int64_t(3) << 22},
    {8, 49152, int64_t(1) << 24},
    {1, 131072, int64_t(1) << 25}};
// The long-rows path (topk_hist_f32, topk_collect_f32): i32 words of state
// per row (three 2048-bin histograms, three counts, a ticket per pass, the
// digits chosen after each pass, padding), the programs it
// aims at in all (8 per SM of an H200), and where it takes over: rows of
// at least kLongRowsMinN columns, at most kLongRowsMaxBatch of them (both
// to be measured). 32000: the one-program-per-row kernel measured 87.8 -
// 109 us at batch 1 - 4 on rows of 32000 (k = 256 - 2048) on the H200,
// the long-rows path 50.8 - 54.9 us on rows four times longer.
constexpr int kRowStateWords = 6176;
constexpr int kRadixPasses = 3;
// Candidate slots per row gathered by the second pass (LongRowsCandidates).
constexpr int64_t kLongRowsMinCandidates = 32768;
constexpr int64_t kLongRowsPrograms = 1056;
constexpr int64_t kLongRowsMinN = 32000;
constexpr int64_t kLongRowsMaxBatch = 256;
// The kernel's cluster hand-off: up to 8 parts (the portable cluster size)
// and at most 128 candidates per row (part 0's shared buffer).
constexpr int kMaxClusterParts = 8;
constexpr int kMaxClusterCandidates = 128;

absl::Status Invalid(const char *argument, const std::string &why) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument '", argument, "' ", why));
}

// How many clusters of `parts` programs the device runs at once; 0 when
// it cannot say. Asked once per kernel and cluster size.
int ClusterCapacity(const Kernel &kernel, int parts) {
  static absl::Mutex mutex;
  static auto *cache ABSL_GUARDED_BY(mutex) =
      new absl::flat_hash_map<std::pair<const Kernel *, int>, int>;
  absl::MutexLock lock(&mutex);
  auto [it, inserted] = cache->try_emplace({&kernel, parts}, 0);
  if (inserted) {
    absl::StatusOr<int> clusters =
        kernel.MaxActiveClusters({1, uint32_t(parts), 1});
    it->second = clusters.ok() ? *clusters : 0;
  }
  return it->second;
}

// Clusters exist from sm_90 on; the kernel's cluster hand-off takes 2 to
// kMaxClusterParts parts of k >= 2 with at most kMaxClusterCandidates
// candidates per row. All rows' clusters must run in one wave: on the H200
// 32 rows in clusters of 4 (30 fit at once) took 14.5 us against 11.2 us
// with the global hand-off, while clusters that fit save 0.8-1.0 us.
bool UseClusters(const Kernel &kernel, int batch, int k, int parts) {
  if (kernel.info().target == "sm_80" || k < 2 || parts < 2 ||
      parts > kMaxClusterParts || parts * k > kMaxClusterCandidates)
    return false;
  return batch <= ClusterCapacity(kernel, parts);
}

// One program per (row, part of kPartLen columns); the last part of each
// row to finish (or part 0 of a cluster) merges the parts' candidates.
absl::Status TopKSplit(const Kernel &kernel, const float *x, int batch, int n,
                       int k, int parts, float *values, int64_t *indices,
                       CUstream stream) {
  const bool clusters = UseClusters(kernel, batch, k, parts);
  const Dim3 grid = {uint32_t(batch), uint32_t(parts), 1};
  // TopK checked the tensors and the scratch is the runtime's own, so the
  // launch skips the driver's pointer queries. A row's parts as one cluster
  // hand over through shared memory.
  auto launch = [&](cu::CUdeviceptr work, cu::CUdeviceptr tickets) {
    const KernelArg args[] = {KernelArg::Ptr(x),
                              KernelArg::Ptr(values),
                              KernelArg::Ptr(indices),
                              KernelArg::DevicePtr(work),
                              KernelArg::DevicePtr(tickets),
                              KernelArg::I32(batch),
                              KernelArg::I32(n),
                              KernelArg::I32(k),
                              KernelArg::I32(parts)};
    if (clusters)
      return kernel.LaunchInClusters(grid, {1, uint32_t(parts), 1}, args,
                                     stream, PointerCheck::kSkip);
    return kernel.Launch(grid, args, stream, PointerCheck::kSkip);
  };
  // A row of one part, or a cluster, touches neither buffer; any non-null
  // address will do.
  if (parts == 1 || clusters)
    return launch(reinterpret_cast<uintptr_t>(x),
                  reinterpret_cast<uintptr_t>(x));

  // Otherwise the parts leave their candidates in global memory and count
  // themselves in per-row tickets, which the kernel leaves at zero: scratch
  // of the call's stream (runtime/scratch.h), so that calls on different
  // streams never share it.
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  ScopedContext scope(**driver, kernel.context());
  if (!scope.status().ok())
    return scope.status();
  const ScratchRequest requests[] = {
      {size_t(batch) * kMaxCandidates * 8, /*zeroed=*/false},
      {size_t(batch) * 4, /*zeroed=*/true}};
  return ScratchFor(**driver, kernel.context())
      .Use(stream, requests, [&](absl::Span<const cu::CUdeviceptr> buffers) {
        return launch(buffers[0], buffers[1]);
      });
}

// Sorts the k slots of each of `rows` rows of scratch `a` (topk_sort_chunks
// on runs of kLargeChunk, or `sortShort` on the one run of k <= kShortSortK
// where given, then topk_merge_f32 doubling the runs through scratch `b`
// until one covers k) and writes the outputs; a row of one run is written
// by the sort itself.
absl::Status SortSlots(const Kernel &sort, const Kernel *sortShort,
                       const Kernel &merge, cu::CUdeviceptr a,
                       cu::CUdeviceptr b, int rows, int k, float *values,
                       int64_t *indices, CUstream stream) {
  const uint32_t chunks = uint32_t((k + kLargeChunk - 1) / kLargeChunk);
  const Dim3 grid = {chunks, uint32_t(rows), 1};
  const KernelArg sortArgs[] = {KernelArg::DevicePtr(a), KernelArg::Ptr(values),
                                KernelArg::Ptr(indices), KernelArg::I32(rows),
                                KernelArg::I32(k)};
  const Kernel &sorter =
      sortShort != nullptr && k <= kShortSortK ? *sortShort : sort;
  TILEC_RETURN_IF_ERROR(
      sorter.Launch(grid, sortArgs, stream, PointerCheck::kSkip));
  // One chunk holds the row (k <= the sort's slots): the sort wrote the
  // outputs, no merge.
  if (chunks == 1)
    return absl::OkStatus();
  for (int run = kLargeChunk;; run *= 2) {
    // Rounds of the merge path's 2048-ary search: the fewest with 2048^steps
    // >= run; none when one run holds the row (no partner run: the merge
    // only writes the outputs).
    int steps = 1;
    for (int64_t reach = kMergeFanout; reach < run; reach *= kMergeFanout)
      ++steps;
    const KernelArg mergeArgs[] = {
        KernelArg::DevicePtr(a), KernelArg::DevicePtr(b),
        KernelArg::Ptr(values),  KernelArg::Ptr(indices),
        KernelArg::I32(rows),    KernelArg::I32(k),
        KernelArg::I32(run),     KernelArg::I32(k <= run ? 0 : steps)};
    TILEC_RETURN_IF_ERROR(
        merge.Launch(grid, mergeArgs, stream, PointerCheck::kSkip));
    // The merged runs of 2 * run cover the row (no overflow: k < 2^31).
    if (run >= k - run)
      return absl::OkStatus();
    std::swap(a, b);
  }
}

// The embedded kernels `names` of the topk module on `device`.
absl::StatusOr<std::vector<const Kernel *>>
GetKernels(int device, std::initializer_list<const char *> names) {
  std::vector<const Kernel *> kernels;
  for (const char *name : names) {
    absl::StatusOr<const Kernel *> kernel =
        GetEmbeddedKernel(kModuleName, name, device);
    if (!kernel.ok())
      return kernel.status();
    kernels.push_back(*kernel);
  }
  return kernels;
}

// The large-k path: topk_select_f32 (one program per row) compacts each
// row's k survivors into scratch, then SortSlots. Rows go in launches of
// at most kMaxGridY (the sort and merge grids put rows along y).
absl::Status TopKLarge(int device, const float *x, int batch, int n, int k,
                       float *values, int64_t *indices, CUstream stream) {
  absl::StatusOr<std::vector<const Kernel *>> kernels = GetKernels(
      device, {kSelectKernelName, kSortChunksKernelName, kMergeKernelName});
  if (!kernels.ok())
    return kernels.status();
  const Kernel &select = *(*kernels)[0], &sort = *(*kernels)[1],
               &merge = *(*kernels)[2];
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  ScopedContext scope(**driver, select.context());
  if (!scope.status().ok())
    return scope.status();
  const size_t rowBytes = size_t(k) * 8;
  const ScratchRequest requests[] = {
      {size_t(batch) * rowBytes, /*zeroed=*/false},
      {size_t(batch) * rowBytes, /*zeroed=*/false}};
  return ScratchFor(**driver, select.context())
      .Use(stream, requests,
           [&](absl::Span<const cu::CUdeviceptr> buffers) -> absl::Status {
             for (int64_t row0 = 0; row0 < batch; row0 += kMaxGridY) {
               const int rows = int(std::min<int64_t>(kMaxGridY, batch - row0));
               const cu::CUdeviceptr a = buffers[0] + row0 * rowBytes;
               const cu::CUdeviceptr b = buffers[1] + row0 * rowBytes;
               const KernelArg selectArgs[] = {
                   KernelArg::Ptr(x + row0 * int64_t(n)),
                   KernelArg::DevicePtr(a), KernelArg::I32(rows),
                   KernelArg::I32(n), KernelArg::I32(k)};
               TILEC_RETURN_IF_ERROR(select.Launch({uint32_t(rows), 1, 1},
                                                   selectArgs, stream,
                                                   PointerCheck::kSkip));
               // k > kRowMaxK here: never the short sort.
               TILEC_RETURN_IF_ERROR(
                   SortSlots(sort, /*sortShort=*/nullptr, merge, a, b, rows, k,
                             values + row0 * int64_t(k),
                             indices + row0 * int64_t(k), stream));
             }
             return absl::OkStatus();
           });
}

// Columns per program of the long-rows path: about kLongRowsPrograms
// programs in all, parts of a multiple of 4096 columns.
int LongRowsPartLen(int64_t batch, int64_t n) {
  const int64_t chunks = (n + 4095) / 4096;
  const int64_t wanted = std::max<int64_t>(
      1, std::min<int64_t>(chunks, (kLongRowsPrograms + batch - 1) / batch));
  return int(((chunks + wanted - 1) / wanted) * 4096);
}

// The same where the guessed start goes first: the passes then skip every
// row whose guess held, at the cost of launching their programs, so they
// take about kGuessedPassPrograms programs (two per SM of an H200) rather
// than kLongRowsPrograms from kGuessedPassMinBatch rows up: fewer programs
// to launch for nothing, while the rows the guess missed (rows of many
// equal values) still spread over every SM.
int LongRowsGuessedPartLen(int64_t batch, int64_t n) {
  // Fewer rows keep the unguessed parts: rows the guess missed then stream
  // at full rate (64 x 10^6 columns of two values took 740 us in 5 parts a
  // row against 671 in 17 on an H100).
  if (batch < kGuessedPassMinBatch)
    return LongRowsPartLen(batch, n);
  const int64_t chunks = (n + 4095) / 4096;
  const int64_t wanted = std::max<int64_t>(
      1, std::min<int64_t>(chunks, (kGuessedPassPrograms + batch - 1) / batch));
  return int(((chunks + wanted - 1) / wanted) * 4096);
}

// The long-rows path: three radix passes over (parts, rows), the row state
// cleared first: topk_hist_f32, topk_gather_f32 (the second digit, and each
// row's candidates gathered into LongRowsCandidates(n, k) slots, which the
// third pass and the collection read instead of the row where they all
// fit), topk_hist_f32; then topk_collect_f32 and SortSlots. Where
// LongRowsGuess allows, topk_guess_f32, topk_guess_gather_f32 and
// topk_guess_select_f32 go first and finish every row whose guessed
// candidates hold its k largest (one read of the row); the passes then
// skip those rows.
absl::Status TopKLongRows(int device, const float *x, int batch, int n, int k,
                          float *values, int64_t *indices, CUstream stream) {
  absl::StatusOr<std::vector<const Kernel *>> kernels = GetKernels(
      device, {kHistKernelName, kGatherKernelName, kCollectKernelName,
               kSortChunksKernelName, kMergeKernelName, kGuessKernelName,
               kGuessGatherKernelName, kGuessSelectKernelName,
               kSortShortKernelName, kUnguessedKernelName});
  if (!kernels.ok())
    return kernels.status();
  const Kernel &hist = *(*kernels)[0], &gather = *(*kernels)[1],
               &collect = *(*kernels)[2], &sort = *(*kernels)[3],
               &merge = *(*kernels)[4], &sample = *(*kernels)[5],
               &guessGather = *(*kernels)[6], &guessSelect = *(*kernels)[7],
               &sortShort = *(*kernels)[8], &unguessed = *(*kernels)[9];
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  ScopedContext scope(**driver, hist.context());
  if (!scope.status().ok())
    return scope.status();
  const LongRowsGuessPlan guess = LongRowsGuess(batch, n, k);
  const int partLen = guess.blocks > 0 ? LongRowsGuessedPartLen(batch, n)
                                       : LongRowsPartLen(batch, n);
  const uint32_t parts = uint32_t((int64_t(n) + partLen - 1) / partLen);
  const int cap = LongRowsCandidates(n, k);
  const size_t rowBytes = size_t(k) * 8;
  const size_t stateWords = size_t(batch) * kRowStateWords;
  const ScratchRequest requests[] = {
      {size_t(batch) * rowBytes, /*zeroed=*/false},
      {size_t(batch) * rowBytes, /*zeroed=*/false},
      {stateWords * 4, /*zeroed=*/false},
      {std::max<size_t>(1, size_t(batch) * size_t(cap) * 8), /*zeroed=*/false}};
  return ScratchFor(**driver, hist.context())
      .Use(
          stream, requests,
          [&](absl::Span<const cu::CUdeviceptr> buffers) -> absl::Status {
            const cu::CUdeviceptr state = buffers[2], cand = buffers[3];
            // With the guess, topk_guess_f32 clears its row's state itself.
            if (guess.blocks == 0) {
              TILEC_RETURN_IF_ERROR((*driver)->Check(
                  (*driver)->api().cuMemsetD32Async(state, 0, stateWords,
                                                    stream),
                  "cuMemsetD32Async"));
            } else {
              const KernelArg sampleArgs[] = {
                  KernelArg::Ptr(x),
                  KernelArg::DevicePtr(state),
                  KernelArg::I32(batch),
                  KernelArg::I32(n),
                  KernelArg::I32(guess.blocks),
                  KernelArg::I32(guess.step),
                  KernelArg::I32(guess.rank),
                  KernelArg::I32(guess.direct ? 0 : 1)};
              TILEC_RETURN_IF_ERROR(sample.Launch({uint32_t(batch), 1, 1},
                                                  sampleArgs, stream,
                                                  PointerCheck::kSkip));
              const KernelArg gatherArgs[] = {
                  KernelArg::Ptr(x),          KernelArg::DevicePtr(state),
                  KernelArg::DevicePtr(cand), KernelArg::I32(batch),
                  KernelArg::I32(n),          KernelArg::I32(k),
                  KernelArg::I32(cap)};
              const uint32_t guessParts =
                  uint32_t((int64_t(n) + kGuessPartLen - 1) / kGuessPartLen);
              TILEC_RETURN_IF_ERROR(
                  guessGather.Launch({guessParts, uint32_t(batch), 1},
                                     gatherArgs, stream, PointerCheck::kSkip));
              const KernelArg selectArgs[] = {
                  KernelArg::DevicePtr(state),
                  KernelArg::DevicePtr(cand),
                  KernelArg::DevicePtr(buffers[0]),
                  KernelArg::Ptr(values),
                  KernelArg::Ptr(indices),
                  KernelArg::I32(batch),
                  KernelArg::I32(k),
                  KernelArg::I32(cap),
                  KernelArg::I32(guess.direct ? 1 : 0)};
              TILEC_RETURN_IF_ERROR(guessSelect.Launch({uint32_t(batch), 1, 1},
                                                       selectArgs, stream,
                                                       PointerCheck::kSkip));
              // Direct: the select wrote every row whose guess held; one
              // program per row computes the rest from the row.
              if (guess.direct) {
                const KernelArg rowArgs[] = {
                    KernelArg::Ptr(x),           KernelArg::Ptr(values),
                    KernelArg::Ptr(indices),     KernelArg::I32(batch),
                    KernelArg::I32(n),           KernelArg::I32(k),
                    KernelArg::DevicePtr(state), KernelArg::I32(cap)};
                return unguessed.Launch({uint32_t(batch), 1, 1}, rowArgs,
                                        stream, PointerCheck::kSkip);
              }
            }
            const int guessOn = guess.blocks > 0 ? 1 : 0;
            const Dim3 grid = {parts, uint32_t(batch), 1};
            for (int pass = 0; pass < kRadixPasses; ++pass) {
              const KernelArg args[] = {
                  KernelArg::Ptr(x),          KernelArg::DevicePtr(state),
                  KernelArg::DevicePtr(cand), KernelArg::I32(batch),
                  KernelArg::I32(n),          KernelArg::I32(k),
                  KernelArg::I32(pass),       KernelArg::I32(partLen),
                  KernelArg::I32(cap),        KernelArg::I32(guessOn)};
              // Pass 1 gathers candidates where there are slots for them.
              const Kernel &kernel = pass == 1 && cap > 0 ? gather : hist;
              TILEC_RETURN_IF_ERROR(
                  kernel.Launch(grid, args, stream, PointerCheck::kSkip));
            }
            const KernelArg args[] = {
                KernelArg::Ptr(x),          KernelArg::DevicePtr(state),
                KernelArg::DevicePtr(cand), KernelArg::DevicePtr(buffers[0]),
                KernelArg::I32(batch),      KernelArg::I32(n),
                KernelArg::I32(k),          KernelArg::I32(partLen),
                KernelArg::I32(cap),        KernelArg::I32(guessOn)};
            TILEC_RETURN_IF_ERROR(
                collect.Launch(grid, args, stream, PointerCheck::kSkip));
            return SortSlots(sort, &sortShort, merge, buffers[0], buffers[1],
                             batch, k, values, indices, stream);
          });
}

} // namespace

TopKStrategy ChooseTopKStrategy(int64_t batch, int64_t n, int64_t k) {
  const int64_t parts = (n + kPartLen - 1) / kPartLen;
  if (n <= kRowsMaxN) {
    // Short rows, k = 1: a max reduction, several rows per program.
    if (k == 1)
      return TopKStrategy::kTop1;
    // Small k: k rounds of a row maximum (instances as below).
    if (k <= kRowsSelectMaxK)
      return TopKStrategy::kRowsSelect;
    // Any other k: whole rows sorted, one per program (eight for n <= 64)
    // until the wide instance has enough programs.
    return FewShortRows(batch, n) ? TopKStrategy::kRowsFew
                                  : TopKStrategy::kRows;
  }
  // Rows of one part and k = 1: the maximum, a small kernel of its own.
  if (k == 1 && n <= kTop1MaxN)
    return TopKStrategy::kTop1;
  // k <= kSplitMaxK: rows split into parts of kPartLen columns across
  // programs, while the parts' candidates fit the hand-off, unless the
  // direct guessed start of the long-rows path reads the rows for less.
  if (k <= kSplitMaxK && parts * k <= kMaxCandidates &&
      !DirectGuessBeatsSplit(batch, n, k))
    return TopKStrategy::kSplit;
  // Few long rows: the radix select split over programs, any k.
  if (n >= kLongRowsMinN && batch <= kLongRowsMaxBatch)
    return TopKStrategy::kLongRows;
  // More long rows, k <= kRowMaxK: the same path where its guessed start
  // applies (each row read once, against four times by the row path), up
  // to kGuessMaxBatch rows (its scratch is about 320 KB per row).
  if (n >= kLongRowsMinN && batch <= kGuessMaxBatch && k <= kRowMaxK &&
      LongRowsGuess(batch, n, k).blocks > 0)
    return TopKStrategy::kLongRows;
  // One program per row sorts up to kRowMaxK survivors in registers.
  if (k <= kRowMaxK)
    return TopKStrategy::kRow;
  return TopKStrategy::kLargeK;
}

const char *TopKStrategyName(TopKStrategy strategy) {
  switch (strategy) {
  case TopKStrategy::kRows:
    return "rows";
  case TopKStrategy::kRowsFew:
    return "rows_few";
  case TopKStrategy::kRowsSelect:
    return "rows_select";
  case TopKStrategy::kTop1:
    return "top1";
  case TopKStrategy::kSplit:
    return "split";
  case TopKStrategy::kRow:
    return "row";
  case TopKStrategy::kLongRows:
    return "long_rows";
  case TopKStrategy::kLargeK:
    return "large_k";
  }
  return "unknown";
}

// Candidate slots per row of the long-rows path: room for twice k and at
// least kLongRowsMinCandidates (k plus one 2048th of a row of normally
// distributed values is typical; values uniform in [0, 1) put an eighth of
// the row in the top digit's bin, 16384 of 131072 columns), never more
// than the row; 0 (no gathering) where that would be the whole row, which
// the later passes then read anyway.
int LongRowsCandidates(int64_t n, int64_t k) {
  const int64_t cap = std::max<int64_t>(kLongRowsMinCandidates, 2 * k);
  return cap >= n ? 0 : int(cap);
}

LongRowsGuessPlan LongRowsGuess(int64_t batch, int64_t n, int64_t k) {
  LongRowsGuessPlan plan;
  const int64_t cap = LongRowsCandidates(n, k);
  if (cap == 0 || batch * n < kGuessMinElements || 4 * k > cap)
    return plan;
  const bool direct = batch >= kGuessedPassMinBatch && k <= kRowMaxK;
  // The most runs of the sample: whole tiles of 16, within the row.
  const int64_t maxBlocks =
      std::min(kGuessMaxBlocks,
               n / kGuessBlockLen / kGuessBlocksPerTile * kGuessBlocksPerTile);
  // Runs enough for `rank` (at least) of `target` candidates, whole tiles.
  auto blocksFor = [&](int64_t rank, int64_t target) {
    const int64_t wanted =
        (rank * n + target * kGuessBlockLen - 1) / (target * kGuessBlockLen);
    return (wanted + kGuessBlocksPerTile - 1) / kGuessBlocksPerTile *
           kGuessBlocksPerTile;
  };
  // Candidates aimed at: 4k, at most half the slots (at least 2k); direct
  // plans aim where the select's sort holds them all (at most
  // kDirectSortSlots) when the sample is large enough. A sample rank r
  // puts the count within about 1/sqrt(r) of the aim (relative standard
  // deviation): the aim t lies kGuessDeviationsBelow deviations above k (a
  // row with fewer than k is computed again from the row) and
  // kGuessDeviationsAbove below the slots (a row with more takes the
  // select's slower branch, which sets the kernel's time). Of the aims
  // that allow, the one needing the fewest runs.
  int64_t target = std::min(4 * k, cap / 2);
  int64_t aimRank = kGuessAimRank;
  if (direct) {
    int64_t bestBlocks = maxBlocks + 1;
    for (int64_t t = k + 1; t < kDirectSortSlots; t += 8) {
      const double below = kGuessDeviationsBelow * double(t) / double(t - k),
                   above = kGuessDeviationsAbove * double(t) /
                           double(kDirectSortSlots - t);
      const int64_t r = std::max<int64_t>(
          kGuessAimRank,
          int64_t(std::ceil(std::max(below * below, above * above))));
      const int64_t tBlocks = blocksFor(r, t);
      if (tBlocks < bestBlocks) {
        bestBlocks = tBlocks;
        target = t;
        aimRank = r;
      }
    }
  }
  const int64_t blocks = std::min(blocksFor(aimRank, target), maxBlocks);
  if (blocks == 0)
    return plan;
  const int64_t rank = target * blocks * kGuessBlockLen / n;
  if (rank < kGuessMinRank)
    return plan;
  plan.blocks = int(blocks);
  plan.step = int(n / blocks);
  plan.rank = int(rank);
  plan.direct = direct;
  return plan;
}

// The split path's programs each keep a part's k largest and hand them on,
// so its time grows with k; the direct guessed start reads each row once
// and sorts its candidates, whatever k: on an H100 about 30 us plus 2.1 us
// per million elements, split about 9 us plus 2.6 (k = 1) to 5.5 (k = 64)
// us per million. Measured at n = 49152 - 10^6, batch 128-2048
// (bench/RESULTS.md, "Top-k: the direct guessed start for small k" and
// "The small-k rule from 2^23 elements"): the guess took 0.40-0.96 of
// split's time at k >= 32 from 2^23 elements, 0.82-0.99 at k = 16 from
// 3 * 2^22 (128 x 65536: 1.11, left to split), 0.38-0.88 at k = 8 from
// 2^24, and at k = 1 0.60-0.99 from 2^25 elements of rows of at least
// 131072 (128 x 131072: 1.21; n = 65536: 1.05-1.55). Below 128 rows (no
// direct plan) it was slower: 1.3-2.7 of split's time at 32 and 64 rows.
bool DirectGuessBeatsSplit(int64_t batch, int64_t n, int64_t k) {
  const GuessOverSplitTier *tier = std::find_if(
      std::begin(kGuessOverSplitTiers), std::end(kGuessOverSplitTiers),
      [&](const GuessOverSplitTier &t) { return k >= t.minK; });
  if (tier == std::end(kGuessOverSplitTiers) || n < tier->minN ||
      batch * n < tier->minElements)
    return false;
  // A direct plan also means k <= kRowMaxK.
  if (batch > kGuessMaxBatch)
    return false;
  const LongRowsGuessPlan plan = LongRowsGuess(batch, n, k);
  return plan.blocks > 0 && plan.direct;
}

const char *TopKSplitKernelName(int64_t batch, int64_t n, int sm_count) {
  const int64_t parts = (n + kPartLen - 1) / kPartLen;
  return batch * parts > sm_count ? kSplitWideKernelName : kSplitKernelName;
}

absl::Status ValidateTopK(const TensorRef &x, int64_t k,
                          const TensorRef &values, const TensorRef &indices) {
  TILEC_RETURN_IF_ERROR(
      CheckTensor("x", x, {DType::kF32}, {kAnyExtent, kAnyExtent}));
  const int64_t batch = x.shape[0], n = x.shape[1];
  if (batch < 1 || n < 1)
    return Invalid("x", absl::StrCat("has shape ", ShapeString(x.shape),
                                     "; expected (batch, n) with batch >= 1 "
                                     "and n >= 1"));
  TILEC_RETURN_IF_ERROR(CheckInt32Extents("x", x));
  if (k < 1 || k > n)
    return Invalid("k", absl::StrCat("must be in [1, n=", n, "], got ", k));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("values", values, {DType::kF32}, {batch, k}));
  TILEC_RETURN_IF_ERROR(
      CheckTensor("indices", indices, {DType::kI64}, {batch, k}));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("x", x, "values", values));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("x", x, "indices", indices));
  return CheckNoOverlap("values", values, "indices", indices);
}

absl::Status TopK(const TensorRef &x, int64_t k, const TensorRef &values,
                  const TensorRef &indices, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateTopK(x, k, values, indices));
  // Each size fits in int32 now (k <= n); their products need not, and the
  // kernels address rows in 64 bits.
  const int batch = int(x.shape[0]), n = int(x.shape[1]);
  const auto *in = static_cast<const float *>(x.data);
  auto *out = static_cast<float *>(const_cast<void *>(values.data));
  auto *idx = static_cast<int64_t *>(const_cast<void *>(indices.data));
  const int parts = (n + kPartLen - 1) / kPartLen;
  const TopKStrategy strategy = ChooseTopKStrategy(batch, n, k);
  // Rows of at most kRowsMaxN columns: an instance of topk_rows,
  // topk_rows_select or (k = 1) topk_rows_max for the width and batch,
  // launched over ceil(batch / R) programs.
  const bool shortRows = n <= kRowsMaxN;
  const RowsInstance &rows =
      RowsInstanceFor(strategy == TopKStrategy::kTop1      ? kRowsMaxInstances
                      : strategy == TopKStrategy::kRowsFew ? kRowsFewInstances
                      : strategy == TopKStrategy::kRows    ? kRowsInstances
                      : FewShortRows(batch, n) ? kRowsSelectFewInstances
                                               : kRowsSelectInstances,
                      n);
  const char *name = shortRows                             ? rows.name
                     : strategy == TopKStrategy::kTop1     ? kTop1KernelName
                     : strategy == TopKStrategy::kSplit    ? kSplitKernelName
                     : strategy == TopKStrategy::kRow      ? kKernelName
                     : strategy == TopKStrategy::kLongRows ? kHistKernelName
                                                           : kSelectKernelName;
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device = CheckDeviceTensors(
      **driver, {{"x", &x}, {"values", &values}, {"indices", &indices}});
  if (!device.ok())
    return device.status();
  if (strategy == TopKStrategy::kSplit) {
    absl::StatusOr<int> sms = (*driver)->DeviceAttribute(
        *device, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    if (!sms.ok())
      return sms.status();
    name = TopKSplitKernelName(batch, n, *sms);
  }
  absl::StatusOr<const Kernel *> kernel =
      GetEmbeddedKernel(kModuleName, name, *device);
  if (!kernel.ok())
    return kernel.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*kernel)->context(), *device));

  if (strategy == TopKStrategy::kLongRows)
    return TopKLongRows(*device, in, batch, n, int(k), out, idx, stream);
  if (strategy == TopKStrategy::kLargeK)
    return TopKLarge(*device, in, batch, n, int(k), out, idx, stream);
  if (strategy == TopKStrategy::kSplit)
    return TopKSplit(**kernel, in, batch, n, int(k), parts, out, idx, stream);
  if (shortRows) {
    const Dim3 grid = {uint32_t((batch + rows.rows - 1) / rows.rows), 1, 1};
    const KernelArg args[] = {KernelArg::Ptr(in),  KernelArg::Ptr(out),
                              KernelArg::Ptr(idx), KernelArg::I32(batch),
                              KernelArg::I32(n),   KernelArg::I32(int(k))};
    // topk_rows_max takes no k (it is 1).
    const size_t count = strategy == TopKStrategy::kTop1 ? 5 : 6;
    return (*kernel)->Launch(grid, absl::MakeConstSpan(args, count), stream,
                             PointerCheck::kSkip);
  }
  const Dim3 grid = {uint32_t(batch), 1, 1};
  if (name == kTop1KernelName) {
    const KernelArg args[] = {KernelArg::Ptr(in), KernelArg::Ptr(out),
                              KernelArg::Ptr(idx), KernelArg::I32(batch),
                              KernelArg::I32(n)};
    return (*kernel)->Launch(grid, args, stream, PointerCheck::kSkip);
  }
  // topk_f32: no guessed start ahead of it, so no state; it reads none,
  // and x's address stands in (the launch refuses null pointers).
  const KernelArg args[] = {KernelArg::Ptr(in),  KernelArg::Ptr(out),
                            KernelArg::Ptr(idx), KernelArg::I32(batch),
                            KernelArg::I32(n),   KernelArg::I32(int(k)),
                            KernelArg::Ptr(in),  KernelArg::I32(0)};
  return (*kernel)->Launch(grid, args, stream, PointerCheck::kSkip);
}

namespace {
// The pointer form's tensors: a contiguous (batch, n) x and (batch, k)
// outputs.
struct TopKTensors {
  TensorRef x, values, indices;
};
TopKTensors PointerTensors(const void *x, int64_t batch, int64_t n, int64_t k,
                           const void *values, const void *indices) {
  return {TensorRef::Contiguous(x, DType::kF32, {batch, n}),
          TensorRef::Contiguous(values, DType::kF32, {batch, k}),
          TensorRef::Contiguous(indices, DType::kI64, {batch, k})};
}
} // namespace

absl::Status ValidateTopK(const void *x, int64_t batch, int64_t n, int64_t k,
                          const void *values, const void *indices) {
  if (x == nullptr)
    return Invalid("x", "is null");
  if (values == nullptr)
    return Invalid("values", "is null");
  if (indices == nullptr)
    return Invalid("indices", "is null");
  // The kernels' views take 32-bit extents.
  constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();
  if (batch < 1 || batch > kMaxExtent)
    return Invalid("batch",
                   absl::StrCat("must be in [1, 2^31 - 1], got ", batch));
  if (n < 1 || n > kMaxExtent)
    return Invalid("n", absl::StrCat("must be in [1, 2^31 - 1], got ", n));
  if (k < 1 || k > n)
    return Invalid("k", absl::StrCat("must be in [1, n=", n, "], got ", k));
  TopKTensors t = PointerTensors(x, batch, n, k, values, indices);
  return ValidateTopK(t.x, k, t.values, t.indices);
}

absl::Status TopK(const float *x, int64_t batch, int64_t n, int64_t k,
                  float *values, int64_t *indices, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateTopK(x, batch, n, k, values, indices));
  TopKTensors t = PointerTensors(x, batch, n, k, values, indices);
  return TopK(t.x, k, t.values, t.indices, stream);
}

} // namespace tilec
