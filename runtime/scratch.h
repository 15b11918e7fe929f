// Device scratch memory for entry points whose kernels need it (the
// candidate lists and tickets of top-k rows split across programs), ordered
// on the stream of the call that uses it.
//
// Calls on one stream run one after another and may share scratch; calls on
// different streams may overlap and must not. So, outside stream capture,
// each stream keeps buffers of its own (per context, that is per device),
// grown with frees and allocations ordered on that stream: after the first
// call of a shape on a stream, a call allocates nothing and clears nothing.
// Inside stream capture a call gets buffers of its own, allocated, cleared
// and freed on the stream (cuMemAllocAsync, cuMemsetD32Async,
// cuMemFreeAsync, which capture records as graph nodes): the graph owns its
// scratch, so replays never share it with eager calls or other graphs, and
// capture needs no host synchronization and no warm-up of the buffers.
#ifndef TILEC_RUNTIME_SCRATCH_H_
#define TILEC_RUNTIME_SCRATCH_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "runtime/driver.h"

namespace tilec {

// One buffer a call needs.
struct ScratchRequest {
  size_t bytes = 0;
  // All zero when the call's work starts. The work must leave it all zero
  // again (as the top-k kernel does with its tickets): the stream's next
  // call finds it as this one left it.
  bool zeroed = false;
};

// The driver operations scratch needs, on one context, which is current
// while they run. Faked in tests.
class ScratchDriver {
public:
  virtual ~ScratchDriver() = default;
  // Whether `stream` is being captured into a graph.
  virtual absl::StatusOr<bool> Capturing(CUstream stream) = 0;
  // An identity of `stream` that no other stream of the context has, now or
  // later. Not called while the stream is captured.
  virtual absl::StatusOr<uint64_t> StreamId(CUstream stream) = 0;
  // Ordered on `stream`.
  virtual absl::StatusOr<cu::CUdeviceptr> Allocate(size_t bytes,
                                                   CUstream stream) = 0;
  virtual absl::Status Free(cu::CUdeviceptr ptr, CUstream stream) = 0;
  // Clears `bytes` (a multiple of 4) from `ptr`.
  virtual absl::Status Zero(cu::CUdeviceptr ptr, size_t bytes,
                            CUstream stream) = 0;
  // Returns once no work of the context is pending.
  virtual absl::Status WaitIdle() = 0;
};

// ScratchDriver on the driver (the calls act on the current context).
std::unique_ptr<ScratchDriver> MakeScratchDriver(const Driver &driver);

// The scratch of one context. Thread-safe.
class ScratchCache {
public:
  // Streams whose buffers are kept at once. Beyond that the least recently
  // used stream's buffers are freed, after waiting for the context to be
  // idle (that stream may be gone, so its work cannot be waited for alone).
  static constexpr size_t kMaxStreams = 64;

  explicit ScratchCache(std::unique_ptr<ScratchDriver> driver,
                        size_t max_streams = kMaxStreams)
      : driver_(std::move(driver)), max_streams_(max_streams) {}
  ScratchCache(const ScratchCache &) = delete;
  ScratchCache &operator=(const ScratchCache &) = delete;

  // Calls `use` with one device buffer per request, in order, for work it
  // enqueues on `stream`; the buffers stay valid for that work. No other
  // call on the cache runs meanwhile, so keep `use` to enqueueing. The
  // cache's context must be current.
  absl::Status
  Use(CUstream stream, absl::Span<const ScratchRequest> requests,
      absl::FunctionRef<absl::Status(absl::Span<const cu::CUdeviceptr>)> use);

  // Streams whose buffers are kept.
  size_t streams() const;

private:
  struct Buffer {
    cu::CUdeviceptr ptr = 0;
    size_t bytes = 0;
    bool zeroed = false;
  };
  struct Entry {
    absl::InlinedVector<Buffer, 2> buffers;
    uint64_t last_use = 0;
  };

  // Buffers of the call's own, freed once `use` has enqueued its work.
  absl::Status UseCaptured(
      CUstream stream, absl::Span<const ScratchRequest> requests,
      absl::FunctionRef<absl::Status(absl::Span<const cu::CUdeviceptr>)> use);
  // Makes `buffer` satisfy `request`, ordered on `stream`.
  absl::Status Prepare(Buffer &buffer, const ScratchRequest &request,
                       CUstream stream);
  // Frees the least recently used stream's buffers, unless the context
  // cannot be waited for now (another thread capturing, say).
  absl::Status EvictOldest(CUstream stream)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::unique_ptr<ScratchDriver> driver_;
  const size_t max_streams_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  uint64_t clock_ ABSL_GUARDED_BY(mutex_) = 0;
};

// The scratch of `context`, created on first use and kept for the life of
// the process (the runtime's contexts are primary contexts, never released).
ScratchCache &ScratchFor(const Driver &driver, CUcontext context);

} // namespace tilec

#endif // TILEC_RUNTIME_SCRATCH_H_
