// kernels_dsl/paged_decode.mlir through tilec::PagedDecode on fresh random
// bf16 inputs, against a float64 CPU reference that follows the page table
// itself: out[b, h] = softmax(q·Kᵀ/√D)·V over the first seq_lens[b] tokens.
// The cache is filled with NaN everywhere no valid token lives (the tails
// of last pages, unreferenced pages) and unused table entries hold page
// numbers far outside the cache, so reading past a length or following a
// stale entry shows. The output is poisoned with NaN before every call.
// Skips when no CUDA device is present.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "runtime/paged_decode.h"
#include "test/support/device_fixture.h"
#include "test/support/test_driver_api.h"
#include "test/support/bf16.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

constexpr uint16_t kBf16NaN = 0x7FC0;
constexpr int kPage = kPagedDecodePageSize;

struct Case {
  std::string name;
  int batch, heads, kv_heads, dim;
  std::vector<int> lens; // one per batch entry
  int width;             // table width in pages
  double scale;          // of q and kv
  double atol, rtol;
  bool share_pages = false; // batch entries reuse each other's pages
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  return os << c.name;
}

// A deck shape: every sequence of length `len`, pages a permutation.
Case Deck(int b, int h, int hkv, int d, int len, double scale = 1.0,
          double atol = 0.02, double rtol = 0.02) {
  Case c{"",
         b,
         h,
         hkv,
         d,
         std::vector<int>(b, len),
         (len + kPage - 1) / kPage,
         scale,
         atol,
         rtol};
  c.name = "B" + std::to_string(b) + "_H" + std::to_string(h) + "_Hkv" +
           std::to_string(hkv) + "_D" + std::to_string(d) + "_L" +
           std::to_string(len);
  return c;
}

template <typename Base> class PagedDecodeFixture : public DeviceFixture<Base> {
protected:
  using DeviceFixture<Base>::Alloc;
  using DeviceFixture<Base>::driver_;

  struct Problem {
    int pages = 0;
    std::vector<uint16_t> q, kv; // host copies, bf16 bits
    std::vector<int32_t> table, lens;
  };

  size_t KvIndex(const Case &c, int page, int slot, int kvh, int col) const {
    return ((size_t(page) * kPage + slot) * c.kv_heads + kvh) * 2 * c.dim + col;
  }

  uint16_t Random(std::normal_distribution<float> &normal) {
    return ToBf16(normal(rng_));
  }

  Problem Make(const Case &c) {
    Problem p;
    int used = c.batch * c.width;
    p.pages = std::max(used + 8, 64);
    std::vector<int32_t> perm(p.pages);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    p.table.resize(size_t(c.batch) * c.width);
    for (int b = 0; b < c.batch; ++b)
      for (int i = 0; i < c.width; ++i) {
        // Shared pages: entry b's odd pages are entry 0's.
        int src = c.share_pages && b > 0 && i % 2 == 1 ? i : b * c.width + i;
        p.table[size_t(b) * c.width + i] = perm[src];
      }
    p.lens.assign(c.lens.begin(), c.lens.end());
    // Entries past a length point far outside the cache.
    for (int b = 0; b < c.batch; ++b)
      for (int i = (std::max(p.lens[b], 0) + kPage - 1) / kPage; i < c.width;
           ++i)
        p.table[size_t(b) * c.width + i] = 1 << 29;
    std::normal_distribution<float> normal(0.0f, float(c.scale));
    p.q.resize(size_t(c.batch) * c.heads * c.dim);
    for (uint16_t &v : p.q)
      v = Random(normal);
    p.kv.assign(size_t(p.pages) * kPage * c.kv_heads * 2 * c.dim, kBf16NaN);
    Refill(c, p);
    return p;
  }

  // New random K and V for every valid token (the tails stay NaN).
  void Refill(const Case &c, Problem &p) {
    std::normal_distribution<float> normal(0.0f, float(c.scale));
    for (int b = 0; b < c.batch; ++b)
      for (int t = 0; t < p.lens[b]; ++t) {
        int page = p.table[size_t(b) * c.width + t / kPage];
        for (int kvh = 0; kvh < c.kv_heads; ++kvh)
          for (int col = 0; col < 2 * c.dim; ++col)
            p.kv[KvIndex(c, page, t % kPage, kvh, col)] = Random(normal);
      }
  }

  CUdeviceptr Upload(const void *data, size_t bytes) {
    CUdeviceptr ptr = Alloc(bytes);
    EXPECT_EQ(driver_->api().cuMemcpyHtoD_v2(ptr, data, bytes), 0);
    return ptr;
  }

  absl::Status Launch(const Case &c, const Problem &p, CUdeviceptr dq,
                      CUdeviceptr dkv, CUdeviceptr dtable, CUdeviceptr dlens,
                      CUdeviceptr dout, CUstream stream = nullptr) {
    auto ref = [](CUdeviceptr ptr, DType dtype,
                  std::initializer_list<int64_t> shape) {
      return TensorRef::Contiguous(reinterpret_cast<void *>(ptr), dtype, shape);
    };
    return PagedDecode(
        ref(dq, DType::kBF16, {c.batch, c.heads, c.dim}),
        ref(dkv, DType::kBF16, {p.pages, kPage, c.kv_heads, 2 * c.dim}),
        ref(dtable, DType::kI32, {c.batch, c.width}),
        ref(dlens, DType::kI32, {c.batch}),
        ref(dout, DType::kBF16, {c.batch, c.heads, c.dim}), stream);
  }

  void Poison(const Case &c, CUdeviceptr dout) {
    // Two bf16 NaNs per word; D is even.
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(
                  dout, 0x7FC07FC0u, size_t(c.batch) * c.heads * c.dim / 2),
              0);
  }

  void Check(const Case &c, const Problem &p, CUdeviceptr dq, CUdeviceptr dkv,
             CUdeviceptr dtable, CUdeviceptr dlens, CUdeviceptr dout) {
    ASSERT_NO_FATAL_FAILURE(Poison(c, dout));
    absl::Status status = Launch(c, p, dq, dkv, dtable, dlens, dout);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    Verify(c, p, dout);
  }

  // Compares the output at `dout` with the reference of `p`.
  void Verify(const Case &c, const Problem &p, CUdeviceptr dout) {
    const size_t n = size_t(c.batch) * c.heads * c.dim;
    std::vector<uint16_t> out(n);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(out.data(), dout, n * 2), 0);

    const int group = c.heads / c.kv_heads;
    const double inv = 1.0 / std::sqrt(double(c.dim));
    int bad = 0;
    for (int b = 0; b < c.batch && bad < 10; ++b) {
      const int len = std::max(p.lens[b], 0);
      for (int h = 0; h < c.heads && bad < 10; ++h) {
        const int kvh = h / group;
        const uint16_t *q = &p.q[(size_t(b) * c.heads + h) * c.dim];
        std::vector<double> logits(len), acc(c.dim, 0.0);
        double mx = -INFINITY;
        for (int t = 0; t < len; ++t) {
          int page = p.table[size_t(b) * c.width + t / kPage];
          double dot = 0;
          for (int d = 0; d < c.dim; ++d)
            dot += FromBf16(q[d]) *
                   FromBf16(p.kv[KvIndex(c, page, t % kPage, kvh, d)]);
          logits[t] = dot * inv;
          mx = std::max(mx, logits[t]);
        }
        double sum = 0;
        for (int t = 0; t < len; ++t) {
          int page = p.table[size_t(b) * c.width + t / kPage];
          double w = std::exp(logits[t] - mx);
          sum += w;
          for (int d = 0; d < c.dim; ++d)
            acc[d] +=
                w * FromBf16(p.kv[KvIndex(c, page, t % kPage, kvh, c.dim + d)]);
        }
        for (int d = 0; d < c.dim && bad < 10; ++d) {
          double want = len == 0 ? 0.0 : acc[d] / sum;
          double got = FromBf16(out[(size_t(b) * c.heads + h) * c.dim + d]);
          double tol = c.atol + c.rtol * std::fabs(want);
          if (!(std::fabs(got - want) <= tol) || (len == 0 && got != 0.0)) {
            ++bad;
            ADD_FAILURE() << "out[" << b << ", " << h << ", " << d
                          << "] = " << got << ", expected " << want << " (len "
                          << len << ", tolerance " << tol << ")";
          }
        }
      }
    }
  }

  std::mt19937 rng_{std::random_device{}()};
};

class PagedDecodeGpuTest
    : public PagedDecodeFixture<::testing::TestWithParam<Case>> {};

TEST_P(PagedDecodeGpuTest, MatchesReference) {
  const Case &c = GetParam();
  Problem p = Make(c);
  CUdeviceptr dq = Upload(p.q.data(), p.q.size() * 2);
  CUdeviceptr dkv = Upload(p.kv.data(), p.kv.size() * 2);
  CUdeviceptr dtable = Upload(p.table.data(), p.table.size() * 4);
  CUdeviceptr dlens = Upload(p.lens.data(), p.lens.size() * 4);
  CUdeviceptr dout = Alloc(p.q.size() * 2);
  Check(c, p, dq, dkv, dtable, dlens, dout);
  // The cache changed in place between calls: nothing may be cached.
  Refill(c, p);
  ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dkv, p.kv.data(), p.kv.size() * 2),
            0);
  Check(c, p, dq, dkv, dtable, dlens, dout);
}

class PagedDecodeGraphTest : public PagedDecodeFixture<::testing::Test> {};

// Captured once into a CUDA graph, replayed with new lengths, page tables,
// cache and query written in place: the kernels read all of them on the
// device, and the graph owns its scratch.
TEST_F(PagedDecodeGraphTest, ReplaysSeeNewLengthsTablesAndCache) {
  const TestDriverApi &api = TestDriverApi::Get();
  if (!api.HasStreams() || !api.HasGraphs())
    GTEST_SKIP() << "the driver lacks the stream and graph calls";
  Case c{"graph", 4, 32, 8, 128, {37, 0, 300, 129}, 24, 1.0, 0.02, 0.02};
  Problem p = Make(c);
  CUdeviceptr dq = Upload(p.q.data(), p.q.size() * 2);
  CUdeviceptr dkv = Upload(p.kv.data(), p.kv.size() * 2);
  CUdeviceptr dtable = Upload(p.table.data(), p.table.size() * 4);
  CUdeviceptr dlens = Upload(p.lens.data(), p.lens.size() * 4);
  CUdeviceptr dout = Alloc(p.q.size() * 2);
  CUstream stream = nullptr;
  ASSERT_EQ(api.stream_create(&stream, TestDriverApi::kStreamNonBlocking), 0);
  // Warm-up outside capture loads the module.
  absl::Status warm = Launch(c, p, dq, dkv, dtable, dlens, dout, stream);
  ASSERT_TRUE(warm.ok()) << warm;
  ASSERT_EQ(api.stream_synchronize(stream), 0);
  ASSERT_EQ(api.begin_capture(stream, TestDriverApi::kCaptureModeGlobal), 0);
  absl::Status captured = Launch(c, p, dq, dkv, dtable, dlens, dout, stream);
  CUgraph graph = nullptr;
  cu::CUresult ended = api.end_capture(stream, &graph);
  ASSERT_TRUE(captured.ok()) << captured;
  ASSERT_EQ(ended, 0) << "the capture was invalidated";
  CUgraphExec exec = nullptr;
  ASSERT_EQ(api.graph_instantiate(&exec, graph, 0), 0);
  std::uniform_int_distribution<int> length(0, c.width * kPage);
  for (int replay = 0; replay < 3; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    for (int &len : c.lens)
      len = length(rng_);
    c.lens[replay] = replay; // 0, 1 and 2 tokens among them
    Problem next = Make(c);
    ASSERT_EQ(next.pages, p.pages);
    p = std::move(next);
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dq, p.q.data(), p.q.size() * 2),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dkv, p.kv.data(), p.kv.size() * 2),
              0);
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dtable, p.table.data(),
                                             p.table.size() * 4),
              0);
    ASSERT_EQ(
        driver_->api().cuMemcpyHtoD_v2(dlens, p.lens.data(), p.lens.size() * 4),
        0);
    ASSERT_NO_FATAL_FAILURE(Poison(c, dout));
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    ASSERT_EQ(api.graph_launch(exec, stream), 0);
    ASSERT_EQ(api.stream_synchronize(stream), 0);
    Verify(c, p, dout);
  }
  EXPECT_EQ(api.graph_exec_destroy(exec), 0);
  EXPECT_EQ(api.graph_destroy(graph), 0);
  EXPECT_EQ(api.stream_destroy(stream), 0);
}

Case Ragged(std::string name, int heads, int kv_heads, int dim,
            std::vector<int> lens, int width, bool share = false) {
  Case c{std::move(name),
         int(lens.size()),
         heads,
         kv_heads,
         dim,
         std::move(lens),
         width,
         1.0,
         0.02,
         0.02,
         share};
  return c;
}

// Lengths 1, 4, 7, ... for `batch` sequences (at most 91 tokens: 6 pages).
std::vector<int> RampLens(int batch) {
  std::vector<int> lens(batch);
  for (int i = 0; i < batch; ++i)
    lens[i] = 1 + 3 * i;
  return lens;
}

// `batch` lengths spread over [0, most]: 0, most, and steps of 97 tokens
// modulo most + 1 between them.
std::vector<int> SpreadLens(int batch, int most) {
  std::vector<int> lens(batch);
  for (int i = 0; i < batch; ++i)
    lens[i] = i == 1 ? most : (97 * i) % (most + 1);
  return lens;
}

Case Scaled(Case c, const char *suffix, double scale, double atol,
            double rtol) {
  c.name += suffix;
  c.scale = scale;
  c.atol = atol;
  c.rtol = rtol;
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Deck, PagedDecodeGpuTest,
    ::testing::Values(Deck(8, 32, 8, 128, 1024), Deck(32, 32, 8, 128, 2048),
                      Deck(4, 64, 8, 128, 4096), Deck(16, 32, 8, 128, 1535),
                      Deck(8, 16, 4, 64, 2000)),
    [](const ::testing::TestParamInfo<Case> &info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(
    Stress, PagedDecodeGpuTest,
    ::testing::Values(
        Scaled(Deck(8, 32, 8, 128, 1024), "_x1e-2", 1e-2, 5e-4, 5e-2),
        Scaled(Deck(8, 16, 4, 64, 2000), "_x1e-2", 1e-2, 5e-4, 5e-2),
        Scaled(Deck(8, 32, 8, 128, 1024), "_x8", 8.0, 5e-2, 2e-2),
        Scaled(Deck(8, 16, 4, 64, 2000), "_x8", 8.0, 5e-2, 2e-2)),
    [](const ::testing::TestParamInfo<Case> &info) {
      std::string name = info.param.name;
      std::replace(name.begin(), name.end(), '-', 'm');
      return name;
    });

// Small cases, also the ones the sanitizers run.
INSTANTIATE_TEST_SUITE_P(
    Ragged, PagedDecodeGpuTest,
    ::testing::Values(
        Ragged("lens_d128", 32, 8, 128, {0, 1, 15, 17, 100, 333, 64, 16}, 24),
        Ragged("lens_d64", 16, 4, 64, {1, 0, 257, 31}, 20),
        Ragged("all_zero", 8, 2, 64, {0, 0}, 4),
        Ragged("one_token", 8, 8, 128, {1, 1, 1}, 1),
        Ragged("mha_group1", 4, 4, 64, {50, 7}, 5),
        Ragged("group20", 40, 2, 128, {77, 200, 3}, 13),
        Ragged("shared_pages", 32, 8, 128, {300, 250, 161}, 19,
               /*share=*/true),
        Ragged("long_split", 8, 1, 64, {5000, 4097}, 320),
        // Several spans merged for groups of 20 and 32 heads:
        // tiles of 16 and 4 heads, and two full tiles.
        Ragged("group20_split", 40, 2, 128, {1500, 900, 2000}, 130),
        Ragged("group32_split", 32, 1, 64, {700, 2100}, 140),
        // D = 128 on either side of the 8-warp kernel's limit (128
        // programs): 16 and 17 sequences of 8 kv heads; that kernel over
        // five spans of two sequences (80 programs); one sequence of one
        // kv head, whose five spans of 64 pages would be too few
        // programs, on 8 warps in the 4-warp kernel's eight spans of 40;
        // and the 4-warp kernel split, 132 programs in two spans of 20
        // pages with tiles of 16 and 4 heads.
        Ragged("w8_at_limit", 16, 8, 128, RampLens(16), 6),
        Ragged("w4_above_limit", 16, 8, 128, RampLens(17), 6),
        Ragged("w8_split", 16, 8, 128, {5000, 3001}, 320),
        Ragged("w8_few_programs", 16, 1, 128, {5000}, 320),
        Ragged("w4_split", 40, 2, 128, SpreadLens(33, 640), 40)),
    [](const ::testing::TestParamInfo<Case> &info) { return info.param.name; });

} // namespace
} // namespace tilec
