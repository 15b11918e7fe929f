// ScratchCache over a fake driver that records what would be enqueued:
// which stream each allocation, clear and free is ordered on, when
// buffers are reused, and what happens during stream capture.
#include "runtime/scratch.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::ElementsAre;

CUstream Stream(uintptr_t handle) { return reinterpret_cast<CUstream>(handle); }

// Records every call as text, e.g. "alloc 512 on 16 -> 4096".
struct FakeLog {
  std::vector<std::string> calls;
  absl::flat_hash_set<CUstream> capturing;
  bool idle_fails = false;
  bool alloc_fails = false;
  cu::CUdeviceptr next = 0x1000;
};

class FakeScratchDriver : public ScratchDriver {
public:
  explicit FakeScratchDriver(FakeLog *log) : log_(log) {}

  absl::StatusOr<bool> Capturing(CUstream stream) override {
    return log_->capturing.contains(stream);
  }
  absl::StatusOr<uint64_t> StreamId(CUstream stream) override {
    return reinterpret_cast<uintptr_t>(stream);
  }
  absl::StatusOr<cu::CUdeviceptr> Allocate(size_t bytes,
                                           CUstream stream) override {
    if (log_->alloc_fails)
      return absl::ResourceExhaustedError("out of memory");
    cu::CUdeviceptr ptr = log_->next;
    log_->next += 0x1000000;
    Log(absl::StrCat("alloc ", bytes, " on ", Id(stream), " -> ", ptr));
    return ptr;
  }
  absl::Status Free(cu::CUdeviceptr ptr, CUstream stream) override {
    Log(absl::StrCat("free ", ptr, " on ", Id(stream)));
    return absl::OkStatus();
  }
  absl::Status Zero(cu::CUdeviceptr ptr, size_t bytes,
                    CUstream stream) override {
    Log(absl::StrCat("zero ", ptr, " ", bytes, " on ", Id(stream)));
    return absl::OkStatus();
  }
  absl::Status WaitIdle() override {
    Log("wait idle");
    return log_->idle_fails
               ? absl::FailedPreconditionError("capture in progress")
               : absl::OkStatus();
  }

private:
  static uintptr_t Id(CUstream stream) {
    return reinterpret_cast<uintptr_t>(stream);
  }
  void Log(std::string call) { log_->calls.push_back(std::move(call)); }

  FakeLog *log_;
};

class ScratchCacheTest : public ::testing::Test {
protected:
  explicit ScratchCacheTest(size_t max_streams = ScratchCache::kMaxStreams)
      : cache_(std::make_unique<FakeScratchDriver>(&log_), max_streams) {}

  // Runs a call on `stream` with top-k's two requests (candidates, then
  // zeroed tickets) and returns the buffers it was given.
  std::vector<cu::CUdeviceptr> Call(CUstream stream, size_t candidates,
                                    size_t tickets) {
    const ScratchRequest requests[] = {{candidates, false}, {tickets, true}};
    std::vector<cu::CUdeviceptr> given;
    absl::Status status = cache_.Use(
        stream, requests, [&](absl::Span<const cu::CUdeviceptr> buffers) {
          given.assign(buffers.begin(), buffers.end());
          log_.calls.push_back("launch");
          return absl::OkStatus();
        });
    EXPECT_TRUE(status.ok()) << status;
    return given;
  }

  // The calls logged since the last look.
  std::vector<std::string> Calls() { return std::exchange(log_.calls, {}); }

  FakeLog log_;
  ScratchCache cache_;
};

TEST_F(ScratchCacheTest, FirstCallAllocatesAndClearsOnItsStream) {
  std::vector<cu::CUdeviceptr> buffers = Call(Stream(16), 1000, 32);
  EXPECT_THAT(buffers, ElementsAre(0x1000, 0x1001000));
  // Sizes rounded up to whole 256-byte granules.
  EXPECT_THAT(Calls(), ElementsAre("alloc 1024 on 16 -> 4096",
                                   "alloc 256 on 16 -> 16781312",
                                   "zero 16781312 256 on 16", "launch"));
}

TEST_F(ScratchCacheTest, LaterCallsOnTheStreamReuseWithoutClearing) {
  std::vector<cu::CUdeviceptr> first = Call(Stream(16), 4096, 64);
  Calls();
  EXPECT_EQ(Call(Stream(16), 4096, 64), first);
  EXPECT_EQ(Call(Stream(16), 512, 16), first); // smaller shapes fit too
  EXPECT_THAT(Calls(), ElementsAre("launch", "launch"));
}

TEST_F(ScratchCacheTest, GrowingFreesTheOldBufferOnTheStreamFirst) {
  std::vector<cu::CUdeviceptr> first = Call(Stream(16), 4096, 64);
  Calls();
  std::vector<cu::CUdeviceptr> second = Call(Stream(16), 8192, 64);
  EXPECT_NE(second[0], first[0]);
  EXPECT_EQ(second[1], first[1]);
  EXPECT_THAT(Calls(), ElementsAre("free 4096 on 16",
                                   "alloc 8192 on 16 -> 33558528", "launch"));
  // More rows: new tickets, cleared.
  Call(Stream(16), 8192, 1024);
  EXPECT_THAT(Calls(),
              ElementsAre("free 16781312 on 16", "alloc 1024 on 16 -> 50335744",
                          "zero 50335744 1024 on 16", "launch"));
}

TEST_F(ScratchCacheTest, StreamsNeverShareBuffers) {
  std::vector<cu::CUdeviceptr> a = Call(Stream(16), 4096, 64);
  std::vector<cu::CUdeviceptr> b = Call(Stream(32), 4096, 64);
  EXPECT_NE(a[0], b[0]);
  EXPECT_NE(a[1], b[1]);
  EXPECT_EQ(cache_.streams(), 2u);
  // The null stream is a stream of its own too.
  std::vector<cu::CUdeviceptr> c = Call(nullptr, 4096, 64);
  EXPECT_NE(c[0], a[0]);
  EXPECT_NE(c[0], b[0]);
}

TEST_F(ScratchCacheTest, CapturedCallsOwnTheirBuffersAndKeepNothing) {
  Call(Stream(16), 4096, 64); // an eager call first: its buffers stay apart
  Calls();
  log_.capturing.insert(Stream(16));
  std::vector<cu::CUdeviceptr> captured = Call(Stream(16), 4096, 64);
  EXPECT_THAT(captured, ElementsAre(0x2001000, 0x3001000));
  EXPECT_THAT(Calls(),
              ElementsAre("alloc 4096 on 16 -> 33558528",
                          "alloc 256 on 16 -> 50335744",
                          "zero 50335744 256 on 16", "launch",
                          "free 33558528 on 16", "free 50335744 on 16"));
  EXPECT_EQ(cache_.streams(), 1u);
  // The eager buffers are still the stream's.
  log_.capturing.clear();
  EXPECT_THAT(Call(Stream(16), 4096, 64), ElementsAre(0x1000, 0x1001000));
}

TEST_F(ScratchCacheTest, FailuresReachTheCallerAndSkipTheWork) {
  log_.alloc_fails = true;
  const ScratchRequest requests[] = {{100, false}};
  bool used = false;
  absl::Status status =
      cache_.Use(Stream(16), requests, [&](absl::Span<const cu::CUdeviceptr>) {
        used = true;
        return absl::OkStatus();
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(used);
  // The work's own failure comes back too, after captured buffers are freed.
  log_.alloc_fails = false;
  log_.capturing.insert(Stream(16));
  status =
      cache_.Use(Stream(16), requests, [&](absl::Span<const cu::CUdeviceptr>) {
        return absl::InternalError("launch failed");
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(Calls(),
              ElementsAre("alloc 256 on 16 -> 4096", "free 4096 on 16"));
}

class SmallScratchCacheTest : public ScratchCacheTest {
protected:
  SmallScratchCacheTest() : ScratchCacheTest(/*max_streams=*/2) {}
};

TEST_F(SmallScratchCacheTest, TheLeastRecentlyUsedStreamIsFreedAfterIdle) {
  Call(Stream(16), 256, 4);
  Call(Stream(32), 256, 4);
  Call(Stream(16), 256, 4); // 32 is now the oldest
  Calls();
  Call(Stream(48), 256, 4);
  EXPECT_THAT(Calls(),
              ElementsAre("wait idle", "free 33558528 on 48",
                          "free 50335744 on 48", "alloc 256 on 48 -> 67112960",
                          "alloc 256 on 48 -> 83890176",
                          "zero 83890176 256 on 48", "launch"));
  EXPECT_EQ(cache_.streams(), 2u);
}

TEST_F(SmallScratchCacheTest, NothingIsFreedWhenTheContextCannotWait) {
  Call(Stream(16), 256, 4);
  Call(Stream(32), 256, 4);
  Calls();
  log_.idle_fails = true;
  Call(Stream(48), 256, 4);
  EXPECT_THAT(Calls(), ElementsAre("wait idle", "alloc 256 on 48 -> 67112960",
                                   "alloc 256 on 48 -> 83890176",
                                   "zero 83890176 256 on 48", "launch"));
  EXPECT_EQ(cache_.streams(), 3u);
}

} // namespace
} // namespace tilec
