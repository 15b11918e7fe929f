// kernels_dsl/kda.mlir through tilec::KdaForward on fresh random inputs
// (a new seed every run, printed with any failure), against the naive
// per-token recurrence in float64 on the host:
//   S <- diag(exp(g_t))·S; S <- S + beta_t·k_t ⊗ (v_t − Sᵀk_t);
//   o_t = scale·Sᵀq_t
// from the bf16 (and f32 g) values the kernel reads. The output and the
// final state are poisoned with NaN before every launch, so rows the
// kernel does not write show. Every case runs every schedule (two-phase,
// single kernel, two-phase with a bf16 chain). Skips when no CUDA device is
// present.
//
// Cases (KERNELS.md §4): the deck shapes; q, k, v scaled by 1e-2 (atol
// 5e-4) and by 2 (atol 5e-2); long memory (g ≈ −0.003, beta ≈ 0.8);
// strong decay (g ≈ −4 per token, which overflows a chunk-wide
// factorization of exp(G_i − G_j)); T not a multiple of 64; variable
// lengths packed with cu_seqlens; initial and final states; K = V = 64.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "runtime/kda.h"
#include "test/support/bf16.h"
#include "test/support/device_fixture.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

struct Case {
  std::string name;
  int batch, tokens, heads, dim;
  double in_scale = 1.0; // multiplies q, k, v (randn·0.1)
  double g_mean = -0.05, g_std = 0.1;
  double beta_fixed = -1; // beta = sigmoid(randn) when negative
  double atol = 0.05;
  std::vector<int> cu; // cu_seqlens (batch must be 1), empty: none
  bool initial_state = false, final_state = false;
  // KdaOptions::segment_chunks values the two-phase schedules run with (0:
  // chosen from the shape).
  std::vector<int64_t> segment_chunks = {0};
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  return os << c.name;
}

Case Shape(std::string name, int b, int t, int h, int d = 128) {
  Case c;
  c.name = std::move(name);
  c.batch = b;
  c.tokens = t;
  c.heads = h;
  c.dim = d;
  return c;
}

class KdaGpuTest : public DeviceFixture<::testing::TestWithParam<Case>> {
protected:
  struct Problem {
    std::vector<uint16_t> q, k, v, beta; // bf16 bits
    std::vector<float> g, h0;
  };

  int Sequences(const Case &c) const {
    return c.cu.empty() ? c.batch : int(c.cu.size()) - 1;
  }

  Problem Make(const Case &c) {
    Problem p;
    const size_t n = size_t(c.batch) * c.tokens * c.heads * c.dim;
    std::normal_distribution<double> normal(0.0, 1.0);
    auto fill = [&](std::vector<uint16_t> &x) {
      x.resize(n);
      for (uint16_t &e : x)
        e = ToBf16(float(normal(rng_) * 0.1 * c.in_scale));
    };
    fill(p.q);
    fill(p.k);
    fill(p.v);
    p.g.resize(n);
    for (float &e : p.g)
      e = float(c.g_mean + c.g_std * normal(rng_));
    p.beta.resize(size_t(c.batch) * c.tokens * c.heads);
    for (uint16_t &e : p.beta) {
      double b = c.beta_fixed >= 0 ? c.beta_fixed + 0.05 * normal(rng_)
                                   : 1.0 / (1.0 + std::exp(-normal(rng_)));
      e = ToBf16(float(b));
    }
    if (c.initial_state) {
      p.h0.resize(size_t(Sequences(c)) * c.heads * c.dim * c.dim);
      for (float &e : p.h0)
        e = float(0.05 * normal(rng_));
    }
    return p;
  }

  // The reference o (as double) and final states of every sequence.
  void Reference(const Case &c, const Problem &p, std::vector<double> &o,
                 std::vector<double> &states) const {
    const int D = c.dim, H = c.heads;
    const double scale = 1.0 / std::sqrt(double(D));
    o.assign(p.q.size(), 0.0);
    states.assign(size_t(Sequences(c)) * H * D * D, 0.0);
    std::vector<double> S(size_t(D) * D), kv(D), u(D);
    for (int n = 0; n < Sequences(c); ++n) {
      const int64_t start = c.cu.empty() ? int64_t(n) * c.tokens : c.cu[n];
      const int64_t end = c.cu.empty() ? start + c.tokens : c.cu[n + 1];
      for (int h = 0; h < H; ++h) {
        double *st = &states[(size_t(n) * H + h) * D * D];
        if (c.initial_state)
          for (int i = 0; i < D * D; ++i)
            S[i] = p.h0[(size_t(n) * H + h) * D * D + i];
        else
          std::fill(S.begin(), S.end(), 0.0);
        for (int64_t t = start; t < end; ++t) {
          const size_t row = (size_t(t) * H + h) * D;
          const double beta = FromBf16(p.beta[size_t(t) * H + h]);
          std::fill(kv.begin(), kv.end(), 0.0);
          for (int i = 0; i < D; ++i) {
            const double decay = std::exp(double(p.g[row + i]));
            const double ki = FromBf16(p.k[row + i]);
            double *Si = &S[size_t(i) * D];
            for (int j = 0; j < D; ++j) {
              Si[j] *= decay;
              kv[j] += Si[j] * ki;
            }
          }
          for (int j = 0; j < D; ++j)
            u[j] = beta * (FromBf16(p.v[row + j]) - kv[j]);
          std::vector<double> out(D, 0.0);
          for (int i = 0; i < D; ++i) {
            const double ki = FromBf16(p.k[row + i]);
            const double qi = FromBf16(p.q[row + i]);
            double *Si = &S[size_t(i) * D];
            for (int j = 0; j < D; ++j) {
              Si[j] += ki * u[j];
              out[j] += Si[j] * qi;
            }
          }
          for (int j = 0; j < D; ++j)
            o[row + j] = scale * out[j];
        }
        std::copy(S.begin(), S.end(), st);
      }
    }
  }

  CUdeviceptr Upload(const void *data, size_t bytes) {
    CUdeviceptr ptr = Alloc(std::max<size_t>(bytes, 4));
    if (bytes)
      EXPECT_EQ(driver_->api().cuMemcpyHtoD_v2(ptr, data, bytes), 0);
    return ptr;
  }

  std::mt19937 rng_;
  uint32_t seed_ = 0;

  void SetUp() override {
    DeviceFixture::SetUp();
    seed_ = std::random_device{}();
    rng_.seed(seed_);
  }
};

TEST_P(KdaGpuTest, MatchesRecurrence) {
  const Case &c = GetParam();
  SCOPED_TRACE("seed " + std::to_string(seed_));
  Problem p = Make(c);
  const int N = Sequences(c), D = c.dim, H = c.heads;
  const size_t n = p.q.size();
  CUdeviceptr dq = Upload(p.q.data(), n * 2);
  CUdeviceptr dk = Upload(p.k.data(), n * 2);
  CUdeviceptr dv = Upload(p.v.data(), n * 2);
  CUdeviceptr dg = Upload(p.g.data(), n * 4);
  CUdeviceptr db = Upload(p.beta.data(), p.beta.size() * 2);
  CUdeviceptr dout = Alloc(n * 2);
  const size_t state_elems = size_t(N) * H * D * D;
  CUdeviceptr dh0 = c.initial_state ? Upload(p.h0.data(), state_elems * 4) : 0;
  CUdeviceptr dht = c.final_state ? Alloc(state_elems * 4) : 0;
  CUdeviceptr dcu = c.cu.empty() ? 0 : Upload(c.cu.data(), c.cu.size() * 4);

  auto ref = [](CUdeviceptr ptr, DType dtype,
                std::initializer_list<int64_t> shape) {
    return TensorRef::Contiguous(reinterpret_cast<void *>(ptr), dtype, shape);
  };
  const int B = c.batch, T = c.tokens;
  TensorRef q = ref(dq, DType::kBF16, {B, T, H, D});
  TensorRef k = ref(dk, DType::kBF16, {B, T, H, D});
  TensorRef v = ref(dv, DType::kBF16, {B, T, H, D});
  TensorRef g = ref(dg, DType::kF32, {B, T, H, D});
  TensorRef beta = ref(db, DType::kBF16, {B, T, H});
  TensorRef o = ref(dout, DType::kBF16, {B, T, H, D});
  TensorRef h0 = ref(dh0, DType::kF32, {N, H, D, D});
  TensorRef ht = ref(dht, DType::kF32, {N, H, D, D});
  TensorRef cu = ref(dcu, DType::kI32, {int64_t(c.cu.size())});
  KdaOptions options;
  if (c.initial_state)
    options.initial_state = &h0;
  if (c.final_state)
    options.final_state = &ht;
  if (!c.cu.empty())
    options.cu_seqlens = &cu;

  std::vector<double> want_o, want_states;
  Reference(c, p, want_o, want_states);

  struct Run {
    KdaSchedule schedule;
    int64_t segment_chunks;
  };
  std::vector<Run> runs = {{KdaSchedule::kSingleKernel, 0}};
  for (int64_t segment_chunks : c.segment_chunks)
    for (KdaSchedule schedule :
         {KdaSchedule::kTwoPhase, KdaSchedule::kTwoPhaseBf16Chain})
      runs.push_back({schedule, segment_chunks});
  for (const Run &run : runs) {
    const KdaSchedule schedule = run.schedule;
    std::string schedule_name = schedule == KdaSchedule::kTwoPhase ? "two-phase"
                                : schedule == KdaSchedule::kSingleKernel
                                    ? "single kernel"
                                    : "two-phase bf16 chain";
    if (run.segment_chunks > 0)
      schedule_name += ", segments of " + std::to_string(run.segment_chunks);
    SCOPED_TRACE(schedule_name);
    options.schedule = schedule;
    options.segment_chunks = run.segment_chunks;
    // Two bf16 NaNs per word; D is even.
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(dout, 0x7FC07FC0u, n / 2), 0);
    if (c.final_state)
      ASSERT_EQ(driver_->api().cuMemsetD32_v2(dht, 0x7FC00000u, state_elems),
                0);
    absl::Status status = KdaForward(
        q, k, v, g, beta, float(1.0 / std::sqrt(double(D))), o, options);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);

    std::vector<uint16_t> got(n);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(got.data(), dout, n * 2), 0);
    // The deck's tolerances are absolute and outputs are small (|o| ~
    // 0.02 at scale 1), so a wrong kernel could hide under them: the
    // tolerance is also at most 2% of the largest reference output (bf16
    // output rounding and tf32 products leave about 0.3%).
    double largest = 0;
    for (double w : want_o)
      largest = std::max(largest, std::fabs(w));
    const double tol = std::min(c.atol, 0.02 * largest);
    int bad = 0;
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
      const double x = FromBf16(got[i]), w = want_o[i];
      const double err = std::fabs(x - w);
      if (!(err <= tol)) {
        if (++bad <= 10) {
          const size_t row = i / D;
          ADD_FAILURE() << "o[token " << row / H << ", head " << row % H << ", "
                        << i % D << "] = " << x << ", expected " << w
                        << " (tolerance " << tol << ")";
        }
        worst = std::isnan(err) ? NAN : std::max(worst, err);
      } else {
        worst = std::max(worst, err);
      }
    }
    EXPECT_EQ(bad, 0) << bad << " of " << n << " outputs off";
    std::printf("[ kda ] %s, %s, seed %u: max |o - ref| = %.3g (tolerance "
                "%.3g, max |ref| = %.3g)\n",
                c.name.c_str(), schedule_name.c_str(), seed_, worst, tol,
                largest);

    if (c.final_state) {
      std::vector<float> st(state_elems);
      ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(st.data(), dht, state_elems * 4),
                0);
      // The state is fp32 on chip; tf32 products bound its error (about
      // 0.05% of the largest element in an emulation of the kernel).
      double slargest = 0;
      for (double w : want_states)
        slargest = std::max(slargest, std::fabs(w));
      int sbad = 0;
      double sworst = 0;
      for (size_t i = 0; i < state_elems; ++i) {
        const double w = want_states[i], err = std::fabs(st[i] - w);
        const double tol = 1e-2 * slargest + 1e-2 * std::fabs(w);
        sworst = std::max(sworst, err);
        if (!(err <= tol) && ++sbad <= 10)
          ADD_FAILURE() << "final_state[" << i / (size_t(H) * D * D) << ", "
                        << (i / (size_t(D) * D)) % H << ", " << (i / D) % D
                        << ", " << i % D << "] = " << st[i] << ", expected "
                        << w << " (tolerance " << tol << ")";
      }
      EXPECT_EQ(sbad, 0) << sbad << " of " << state_elems
                         << " state elements off";
      std::printf("[ kda ] %s, %s: max |final_state - ref| = %.3g\n",
                  c.name.c_str(), schedule_name.c_str(), sworst);
    }
  }
}

Case Scaled(Case c, const char *suffix, double s, double atol) {
  c.name += suffix;
  c.in_scale = s;
  c.atol = atol;
  return c;
}

Case LongMemory(Case c) {
  c.name += "_long_memory";
  c.g_mean = -0.003;
  c.g_std = 0.0005;
  c.beta_fixed = 0.8;
  return c;
}

Case StrongDecay(Case c) {
  c.name += "_strong_decay";
  c.g_mean = -4.0;
  c.g_std = 0.5;
  return c;
}

Case States(Case c, bool initial, bool final_state) {
  c.name += initial ? "_h0" : "";
  c.name += final_state ? "_ht" : "";
  c.initial_state = initial;
  c.final_state = final_state;
  return c;
}

Case Varlen(std::string name, int heads, std::vector<int> cu, int dim = 128) {
  Case c = Shape(std::move(name), 1, cu.back(), heads, dim);
  c.cu = std::move(cu);
  return c;
}

Case Segments(Case c, std::vector<int64_t> segment_chunks) {
  c.name += "_segments";
  c.segment_chunks = std::move(segment_chunks);
  return c;
}

auto Name = [](const ::testing::TestParamInfo<Case> &info) {
  return info.param.name;
};

INSTANTIATE_TEST_SUITE_P(Deck, KdaGpuTest,
                         ::testing::Values(Shape("B2_T1024_H8", 2, 1024, 8),
                                           Shape("B2_T2048_H8", 2, 2048, 8),
                                           Shape("B1_T4096_H8", 1, 4096, 8),
                                           Shape("B1_T2048_H4", 1, 2048, 4)),
                         Name);

INSTANTIATE_TEST_SUITE_P(
    Stress, KdaGpuTest,
    ::testing::Values(
        Scaled(Shape("B1_T1024_H4", 1, 1024, 4), "_x1em2", 1e-2, 5e-4),
        Scaled(Shape("B1_T1024_H4", 1, 1024, 4), "_x2", 2.0, 5e-2),
        LongMemory(Shape("B1_T2048_H2", 1, 2048, 2)),
        StrongDecay(Shape("B1_T512_H2", 1, 512, 2))),
    Name);

INSTANTIATE_TEST_SUITE_P(
    RaggedT, KdaGpuTest,
    ::testing::Values(Shape("B2_T1_H2", 2, 1, 2), Shape("B2_T63_H2", 2, 63, 2),
                      Shape("B2_T65_H2", 2, 65, 2),
                      Shape("B1_T1000_H3", 1, 1000, 3),
                      Shape("B3_T129_H1_D64", 3, 129, 1, 64)),
    Name);

INSTANTIATE_TEST_SUITE_P(
    StatesAndVarlen, KdaGpuTest,
    ::testing::Values(
        States(Shape("B2_T300_H3", 2, 300, 3), true, true),
        States(Shape("B2_T64_H2", 2, 64, 2), false, true),
        States(Shape("B1_T5_H2", 1, 5, 2), true, false),
        States(Shape("B2_T200_H2_D64", 2, 200, 2, 64), true, true),
        Varlen("varlen_H4", 4, {0, 1, 64, 65, 200, 777, 1000}),
        States(Varlen("varlen_H2", 2, {0, 130, 130, 193, 400}), true, true),
        States(Varlen("varlen_H2_D64", 2, {0, 7, 100, 300}, 64), true, true)),
    Name);

// The chain's segmented scan at forced segment lengths: one chunk per
// segment (every chunk a map), lengths that leave a short last segment,
// segments across packed sequences of different lengths (empty ones
// included), initial and final states, D = 64, strong decay; and a deck
// shape forced to one segment, the schedule the shape rule picks when the
// chain's programs fill the GPU.
INSTANTIATE_TEST_SUITE_P(
    Segments, KdaGpuTest,
    ::testing::Values(
        Segments(States(Shape("B2_T300_H3", 2, 300, 3), true, true), {1, 2, 3}),
        Segments(Shape("B1_T1000_H2", 1, 1000, 2), {1, 5, 15, 16}),
        Segments(States(Varlen("varlen_H2", 2, {0, 130, 130, 193, 900, 901}),
                        true, true),
                 {1, 2, 4}),
        Segments(States(Shape("B2_T500_H2_D64", 2, 500, 2, 64), true, true),
                 {1, 3}),
        Segments(LongMemory(Shape("B1_T2048_H2", 1, 2048, 2)), {2, 8}),
        Segments(StrongDecay(Shape("B1_T512_H2", 1, 512, 2)), {1, 3}),
        Segments(Shape("B2_T1024_H8", 2, 1024, 8), {1 << 20})),
    Name);

} // namespace
} // namespace tilec
