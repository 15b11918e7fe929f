#include "runtime/scratch.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tilec {
namespace {

// Buffers are whole multiples of this (which keeps Zero's 4-byte words and
// any element type aligned).
constexpr size_t kGranule = 256;

size_t Rounded(size_t bytes) {
  return std::max(kGranule, (bytes + kGranule - 1) / kGranule * kGranule);
}

class DriverScratch : public ScratchDriver {
public:
  explicit DriverScratch(const Driver &driver) : driver_(driver) {}

  absl::StatusOr<bool> Capturing(CUstream stream) override {
    cu::CUstreamCaptureStatus status = cu::CU_STREAM_CAPTURE_STATUS_NONE;
    if (absl::Status s = driver_.Check(
            api().cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing");
        !s.ok())
      return s;
    return status != cu::CU_STREAM_CAPTURE_STATUS_NONE;
  }

  absl::StatusOr<uint64_t> StreamId(CUstream stream) override {
    if (api().cuStreamGetId != nullptr) {
      unsigned long long id = 0;
      if (absl::Status s =
              driver_.Check(api().cuStreamGetId(stream, &id), "cuStreamGetId");
          !s.ok())
        return s;
      return id;
    }
    // Older drivers: the handle, which a stream created after another was
    // destroyed may reuse. Odd values cannot be real handles (pointers).
    if (stream == nullptr || stream == cu::CU_STREAM_LEGACY)
      return 1;
    if (stream == cu::CU_STREAM_PER_THREAD) {
      static thread_local char thread_key;
      return reinterpret_cast<uintptr_t>(&thread_key) << 1 | 1;
    }
    return reinterpret_cast<uintptr_t>(stream);
  }

  absl::StatusOr<cu::CUdeviceptr> Allocate(size_t bytes,
                                           CUstream stream) override {
    if (api().cuMemAllocAsync == nullptr || api().cuMemFreeAsync == nullptr)
      return absl::FailedPreconditionError(
          "the CUDA driver lacks cuMemAllocAsync / cuMemFreeAsync (CUDA 11.2 "
          "or newer is required for device scratch)");
    cu::CUdeviceptr ptr = 0;
    if (absl::Status s = driver_.Check(
            api().cuMemAllocAsync(&ptr, bytes, stream),
            absl::StrCat("cuMemAllocAsync of ", bytes, " bytes of scratch"));
        !s.ok())
      return s;
    return ptr;
  }

  absl::Status Free(cu::CUdeviceptr ptr, CUstream stream) override {
    return driver_.Check(api().cuMemFreeAsync(ptr, stream), "cuMemFreeAsync");
  }

  absl::Status Zero(cu::CUdeviceptr ptr, size_t bytes,
                    CUstream stream) override {
    return driver_.Check(api().cuMemsetD32Async(ptr, 0, bytes / 4, stream),
                         "cuMemsetD32Async");
  }

  absl::Status WaitIdle() override {
    return driver_.Check(api().cuCtxSynchronize(), "cuCtxSynchronize");
  }

private:
  const DriverApi &api() const { return driver_.api(); }

  const Driver &driver_;
};

} // namespace

std::unique_ptr<ScratchDriver> MakeScratchDriver(const Driver &driver) {
  return std::make_unique<DriverScratch>(driver);
}

absl::Status ScratchCache::Use(
    CUstream stream, absl::Span<const ScratchRequest> requests,
    absl::FunctionRef<absl::Status(absl::Span<const cu::CUdeviceptr>)> use) {
  absl::StatusOr<bool> capturing = driver_->Capturing(stream);
  if (!capturing.ok())
    return capturing.status();
  if (*capturing)
    return UseCaptured(stream, requests, use);
  absl::StatusOr<uint64_t> id = driver_->StreamId(stream);
  if (!id.ok())
    return id.status();

  // Held until `use` has enqueued its work: no other call may free or
  // replace these buffers before that.
  absl::MutexLock lock(&mutex_);
  if (!entries_.contains(*id) && entries_.size() >= max_streams_)
    if (absl::Status status = EvictOldest(stream); !status.ok())
      return status;
  Entry &entry = entries_[*id];
  if (entry.buffers.size() < requests.size())
    entry.buffers.resize(requests.size());
  absl::InlinedVector<cu::CUdeviceptr, 2> ptrs;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (absl::Status status = Prepare(entry.buffers[i], requests[i], stream);
        !status.ok())
      return status;
    ptrs.push_back(entry.buffers[i].ptr);
  }
  entry.last_use = ++clock_;
  return use(ptrs);
}

absl::Status ScratchCache::Prepare(Buffer &buffer,
                                   const ScratchRequest &request,
                                   CUstream stream) {
  if (buffer.ptr == 0 || buffer.bytes < request.bytes) {
    // Grown to the larger of both sizes, so that alternating shapes settle
    // on one buffer. The old one is freed after the stream's earlier work.
    const size_t bytes = Rounded(std::max(request.bytes, buffer.bytes));
    if (buffer.ptr != 0) {
      cu::CUdeviceptr old = buffer.ptr;
      buffer = Buffer();
      if (absl::Status status = driver_->Free(old, stream); !status.ok())
        return status;
    }
    absl::StatusOr<cu::CUdeviceptr> ptr = driver_->Allocate(bytes, stream);
    if (!ptr.ok())
      return ptr.status();
    buffer.ptr = *ptr;
    buffer.bytes = bytes;
  }
  if (request.zeroed && !buffer.zeroed)
    if (absl::Status status = driver_->Zero(buffer.ptr, buffer.bytes, stream);
        !status.ok())
      return status;
  // Work that was not asked to leave the buffer zero may not have.
  buffer.zeroed = request.zeroed;
  return absl::OkStatus();
}

absl::Status ScratchCache::UseCaptured(
    CUstream stream, absl::Span<const ScratchRequest> requests,
    absl::FunctionRef<absl::Status(absl::Span<const cu::CUdeviceptr>)> use) {
  absl::InlinedVector<cu::CUdeviceptr, 2> ptrs;
  absl::Status status;
  for (const ScratchRequest &request : requests) {
    const size_t bytes = Rounded(request.bytes);
    absl::StatusOr<cu::CUdeviceptr> ptr = driver_->Allocate(bytes, stream);
    if (!ptr.ok()) {
      status = ptr.status();
      break;
    }
    ptrs.push_back(*ptr);
    if (request.zeroed)
      if (status = driver_->Zero(*ptr, bytes, stream); !status.ok())
        break;
  }
  if (status.ok())
    status = use(ptrs);
  // Freed after the work in stream order, within the graph.
  for (cu::CUdeviceptr ptr : ptrs)
    if (absl::Status freed = driver_->Free(ptr, stream); status.ok())
      status = freed;
  return status;
}

absl::Status ScratchCache::EvictOldest(CUstream stream) {
  auto oldest = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (oldest == entries_.end() ||
        it->second.last_use < oldest->second.last_use)
      oldest = it;
  if (oldest == entries_.end() || !driver_->WaitIdle().ok())
    return absl::OkStatus();
  // Nothing uses the buffers any more; any stream may order their frees.
  absl::Status status;
  for (const Buffer &buffer : oldest->second.buffers)
    if (buffer.ptr != 0)
      if (absl::Status freed = driver_->Free(buffer.ptr, stream); status.ok())
        status = freed;
  entries_.erase(oldest);
  return status;
}

size_t ScratchCache::streams() const {
  absl::MutexLock lock(&mutex_);
  return entries_.size();
}

ScratchCache &ScratchFor(const Driver &driver, CUcontext context) {
  static absl::Mutex mutex(absl::kConstInit);
  static auto *caches ABSL_GUARDED_BY(mutex) =
      new absl::flat_hash_map<CUcontext, std::unique_ptr<ScratchCache>>();
  absl::MutexLock lock(&mutex);
  std::unique_ptr<ScratchCache> &cache = (*caches)[context];
  if (cache == nullptr)
    cache = std::make_unique<ScratchCache>(MakeScratchDriver(driver));
  return *cache;
}

} // namespace tilec
