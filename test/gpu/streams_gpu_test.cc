// Entry points on streams: top-k calls overlapping on two streams must not
// share scratch, and softmax and top-k captured into a CUDA graph must give
// correct results on every replay after their inputs change in place. Each
// result is checked against the CPU. Skips without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/gemm.h"
#include "runtime/softmax.h"
#include "runtime/topk.h"
#include "test/support/device_fixture.h"
#include "test/support/test_driver_api.h"
#include "test/support/bf16.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

std::vector<float> RandomRows(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> x(count);
  for (float &v : x)
    v = normal(rng);
  return x;
}

// A bf16 GEMM problem: y = bf16(float(x @ w^T) * scale).
struct GemmCase {
  static constexpr int kM = 96, kN = 80, kK = 64;
  std::vector<uint16_t> x, w;
  std::vector<float> scale;

  void Randomize(unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    x.resize(kM * kK);
    w.resize(kN * kK);
    scale.resize(kN);
    for (uint16_t &v : x)
      v = ToBf16(normal(rng));
    for (uint16_t &v : w)
      v = ToBf16(normal(rng));
    for (float &v : scale)
      v = 0.5f + std::abs(normal(rng));
  }
};

// A top-k problem: its host input and the device buffers of one or more
// calls on it.
struct TopKCase {
  TopKCase(int batch, int n, int k) : batch(batch), n(n), k(k) {}
  int batch, n, k;
  std::vector<float> x;
  CUdeviceptr dx = 0;
  std::vector<CUdeviceptr> values, indices; // one pair per call

  size_t out_count() const { return size_t(batch) * k; }
};

class StreamsGpuTest : public DeviceFixture<::testing::Test> {
protected:
  void SetUp() override {
    DeviceFixture::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    api_ = &TestDriverApi::Get();
    if (!api_->HasStreams())
      GTEST_SKIP() << "the driver lacks the stream calls this test uses";
  }

  void TearDown() override {
    for (CUstream stream : streams_)
      api_->stream_destroy(stream);
    DeviceFixture::TearDown();
  }

  CUstream NewStream() {
    CUstream stream = nullptr;
    EXPECT_EQ(api_->stream_create(&stream, TestDriverApi::kStreamNonBlocking),
              0);
    streams_.push_back(stream);
    return stream;
  }

  // Device buffers for `calls` calls of `c`, outputs poisoned (NaN values,
  // indices -1), input uploaded.
  void Prepare(TopKCase &c, int calls, unsigned seed) {
    c.x = RandomRows(size_t(c.batch) * c.n, seed);
    c.dx = Alloc(c.x.size() * 4);
    for (int i = 0; i < calls; ++i) {
      c.values.push_back(Alloc(c.out_count() * 4));
      c.indices.push_back(Alloc(c.out_count() * 8));
      ASSERT_EQ(driver_->api().cuMemsetD32_v2(c.values.back(), 0xFFFFFFFFu,
                                              c.out_count()),
                0);
      ASSERT_EQ(driver_->api().cuMemsetD32_v2(c.indices.back(), 0xFFFFFFFFu,
                                              c.out_count() * 2),
                0);
    }
    Upload(c.dx, c.x);
  }

  void Upload(CUdeviceptr dst, const std::vector<float> &host) {
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dst, host.data(), host.size() * 4),
              0);
    // Non-blocking streams do not wait for the legacy stream's copies.
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
  }

  absl::Status RunTopK(const TopKCase &c, int call, CUstream stream) {
    return TopK(reinterpret_cast<const float *>(c.dx), c.batch, c.n, c.k,
                reinterpret_cast<float *>(c.values[call]),
                reinterpret_cast<int64_t *>(c.indices[call]), stream);
  }

  // Output `call` of `c` (after the device finished) against the CPU:
  // values equal the k largest by position, indices are distinct and point
  // at them.
  void ExpectTopK(const TopKCase &c, int call, const std::string &what) {
    std::vector<float> values(c.out_count());
    std::vector<int64_t> indices(c.out_count());
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(values.data(), c.values[call],
                                             values.size() * 4),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(indices.data(), c.indices[call],
                                             indices.size() * 8),
              0);
    int bad = 0;
    for (int r = 0; r < c.batch && bad < 3; ++r) {
      const float *row = c.x.data() + size_t(r) * c.n;
      std::vector<float> sorted(row, row + c.n);
      std::partial_sort(sorted.begin(), sorted.begin() + c.k, sorted.end(),
                        std::greater<float>());
      std::set<int64_t> seen;
      for (int j = 0; j < c.k; ++j) {
        size_t at = size_t(r) * c.k + j;
        int64_t index = indices[at];
        bool ok = values[at] == sorted[j] && index >= 0 && index < c.n &&
                  row[index] == sorted[j] && seen.insert(index).second;
        if (!ok) {
          ADD_FAILURE() << what << ": row " << r << " position " << j
                        << ": got " << values[at] << " at " << index
                        << ", want " << sorted[j];
          ++bad;
          break;
        }
      }
    }
  }

  const TestDriverApi *api_ = nullptr;
  std::vector<CUstream> streams_;
};

// Two streams alternate calls of different shapes whose rows are split
// across programs that hand over through scratch (16 and 13 parts: more
// than a cluster holds). Sharing scratch across streams would mix their
// candidates or tickets.
TEST_F(StreamsGpuTest, TopKOnTwoStreamsAtOnce) {
  constexpr int kCalls = 8;
  TopKCase a{256, 65536, 32}, b{192, 50000, 16};
  ASSERT_NO_FATAL_FAILURE(Prepare(a, kCalls, 1));
  ASSERT_NO_FATAL_FAILURE(Prepare(b, kCalls, 2));
  CUstream sa = NewStream(), sb = NewStream();
  for (int call = 0; call < kCalls; ++call) {
    absl::Status status = RunTopK(a, call, sa);
    ASSERT_TRUE(status.ok()) << status;
    status = RunTopK(b, call, sb);
    ASSERT_TRUE(status.ok()) << status;
  }
  ASSERT_EQ(api_->stream_synchronize(sa), 0);
  ASSERT_EQ(api_->stream_synchronize(sb), 0);
  for (int call = 0; call < kCalls; ++call) {
    ExpectTopK(a, call, "stream a, call " + std::to_string(call));
    ExpectTopK(b, call, "stream b, call " + std::to_string(call));
  }
}

// Softmax, five top-k paths (scratch hand-off, one part per row, one
// program per row for k > 64, few long rows with their state cleared by a
// memset and three scratch buffers, k > 2048 sorted in scratch by several
// launches) and a bf16 GEMM captured into one graph; the inputs are then
// rewritten in place before each replay.
TEST_F(StreamsGpuTest, GraphReplaysSeeInputsChangedInPlace) {
  if (!api_->HasGraphs())
    GTEST_SKIP() << "the driver lacks the graph calls this test uses";
  constexpr int kRows = 64, kCols = 3000;
  TopKCase split{32, 65536, 16}, single{40, 3000, 8}, wide{8, 5000, 100},
      longRows{2, 100000, 300}, largeK{3, 5000, 3000};
  ASSERT_NO_FATAL_FAILURE(Prepare(split, 1, 3));
  ASSERT_NO_FATAL_FAILURE(Prepare(single, 1, 4));
  ASSERT_NO_FATAL_FAILURE(Prepare(wide, 1, 5));
  ASSERT_NO_FATAL_FAILURE(Prepare(longRows, 1, 8));
  ASSERT_NO_FATAL_FAILURE(Prepare(largeK, 1, 9));
  std::vector<float> sx = RandomRows(size_t(kRows) * kCols, 6);
  CUdeviceptr dsx = Alloc(sx.size() * 4), dsy = Alloc(sx.size() * 4);
  ASSERT_NO_FATAL_FAILURE(Upload(dsx, sx));
  GemmCase g;
  g.Randomize(7);
  CUdeviceptr dgx = Alloc(g.x.size() * 2), dgw = Alloc(g.w.size() * 2),
              dgs = Alloc(g.scale.size() * 4),
              dgy = Alloc(size_t(GemmCase::kM) * GemmCase::kN * 2);
  auto upload_gemm = [&] {
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dgx, g.x.data(), g.x.size() * 2),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dgw, g.w.data(), g.w.size() * 2),
              0);
    ASSERT_EQ(
        driver_->api().cuMemcpyHtoD_v2(dgs, g.scale.data(), g.scale.size() * 4),
        0);
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
  };
  ASSERT_NO_FATAL_FAILURE(upload_gemm());
  auto ref = [](CUdeviceptr p, DType dtype,
                std::initializer_list<int64_t> shape) {
    return TensorRef::Contiguous(reinterpret_cast<const void *>(p), dtype,
                                 shape);
  };
  const TensorRef gx = ref(dgx, DType::kBF16, {GemmCase::kM, GemmCase::kK}),
                  gw = ref(dgw, DType::kBF16, {GemmCase::kN, GemmCase::kK}),
                  gs = ref(dgs, DType::kF32, {GemmCase::kN}),
                  gy = ref(dgy, DType::kBF16, {GemmCase::kM, GemmCase::kN});
  CUstream stream = NewStream();

  auto enqueue = [&]() -> absl::Status {
    absl::Status status = Softmax(reinterpret_cast<const float *>(dsx),
                                  reinterpret_cast<float *>(dsy), kRows, kCols,
                                  SoftmaxType::kF32, stream);
    for (const TopKCase *c : {&split, &single, &wide, &longRows, &largeK})
      if (status.ok())
        status = RunTopK(*c, 0, stream);
    if (status.ok())
      status = Gemm(gx, gw, gs, gy, stream);
    return status;
  };
  // Warm-up outside capture: loads the modules.
  absl::Status warm = enqueue();
  ASSERT_TRUE(warm.ok()) << warm;
  ASSERT_EQ(api_->stream_synchronize(stream), 0);

  ASSERT_EQ(api_->begin_capture(stream, TestDriverApi::kCaptureModeGlobal), 0);
  absl::Status captured = enqueue();
  CUgraph graph = nullptr;
  cu::CUresult ended = api_->end_capture(stream, &graph);
  ASSERT_TRUE(captured.ok()) << captured;
  ASSERT_EQ(ended, 0) << "the capture was invalidated";
  CUgraphExec exec = nullptr;
  ASSERT_EQ(api_->graph_instantiate(&exec, graph, 0), 0);

  for (int replay = 0; replay < 3; ++replay) {
    const std::string what = "replay " + std::to_string(replay);
    unsigned seed = 100 + 10 * replay;
    for (TopKCase *c : {&split, &single, &wide, &longRows, &largeK}) {
      c->x = RandomRows(c->x.size(), seed++);
      ASSERT_NO_FATAL_FAILURE(Upload(c->dx, c->x));
      ASSERT_EQ(driver_->api().cuMemsetD32_v2(c->values[0], 0xFFFFFFFFu,
                                              c->out_count()),
                0);
    }
    sx = RandomRows(sx.size(), seed++);
    ASSERT_NO_FATAL_FAILURE(Upload(dsx, sx));
    g.Randomize(seed);
    ASSERT_NO_FATAL_FAILURE(upload_gemm());
    // Outputs poisoned (NaN) so that an output the replay missed shows.
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(dsy, 0xFFFFFFFFu, sx.size()), 0);
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(
                  dgy, 0xFFFFFFFFu, size_t(GemmCase::kM) * GemmCase::kN / 2),
              0);
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    ASSERT_EQ(api_->graph_launch(exec, stream), 0);
    ASSERT_EQ(api_->stream_synchronize(stream), 0) << what;
    ExpectTopK(split, 0, what + ", split rows");
    ExpectTopK(single, 0, what + ", one part per row");
    ExpectTopK(wide, 0, what + ", k = 100");
    ExpectTopK(longRows, 0, what + ", long rows");
    ExpectTopK(largeK, 0, what + ", k = 3000");
    std::vector<float> y(sx.size());
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(y.data(), dsy, y.size() * 4), 0);
    for (int r = 0; r < kRows; ++r) {
      const float *row = sx.data() + size_t(r) * kCols;
      double max = *std::max_element(row, row + kCols), sum = 0;
      for (int col = 0; col < kCols; ++col)
        sum += std::exp(double(row[col]) - max);
      for (int col = 0; col < kCols; col += 37) {
        double want = std::exp(double(row[col]) - max) / sum;
        ASSERT_NEAR(y[size_t(r) * kCols + col], want, 1e-6 + 1e-4 * want)
            << what << ", softmax row " << r << " column " << col;
      }
    }
    // GEMM: within 1% of |ref| (bf16 output rounding is 0.4%) plus 1e-3 of
    // the row's sum of |x w scale| (fp32 accumulation order).
    std::vector<uint16_t> gy_host(size_t(GemmCase::kM) * GemmCase::kN);
    ASSERT_EQ(
        driver_->api().cuMemcpyDtoH_v2(gy_host.data(), dgy, gy_host.size() * 2),
        0);
    for (int i = 0; i < GemmCase::kM; ++i)
      for (int j = 0; j < GemmCase::kN; ++j) {
        double sum = 0, magnitude = 0;
        for (int k = 0; k < GemmCase::kK; ++k) {
          double product = FromBf16(g.x[i * GemmCase::kK + k]) *
                           FromBf16(g.w[j * GemmCase::kK + k]);
          sum += product;
          magnitude += std::abs(product);
        }
        double want = sum * g.scale[j];
        double got = FromBf16(gy_host[i * GemmCase::kN + j]);
        ASSERT_LE(std::abs(got - want),
                  1e-2 * std::abs(want) + 1e-3 * magnitude * g.scale[j])
            << what << ", gemm (" << i << ", " << j << "): got " << got
            << ", want " << want;
      }
  }
  EXPECT_EQ(api_->graph_exec_destroy(exec), 0);
  EXPECT_EQ(api_->graph_destroy(graph), 0);
}

} // namespace
} // namespace tilec
