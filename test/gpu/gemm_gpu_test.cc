// kernels_dsl/gemm.mlir through tilec::Gemm on fresh random bf16 and fp8
// inputs, compared with a float64 CPU reference of
// y = bf16(float(x @ w^T) * scale). Skips when no CUDA device is present.
//
// The error bound per output element is 1% of |ref| (bf16 output rounding
// is 0.4%) plus 1e-3 of sum_k |x w| |scale| (fp32 accumulation in any order
// stays far below it); a wrong index, a lost K step or an unwritten element
// (the output is poisoned with NaN first) exceeds it.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/embedded.h"
#include "runtime/gemm.h"
#include "runtime/gemm_configs.h"
#include "runtime/kernel.h"
#include "test/support/bf16.h"
#include "test/support/device_fixture.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

// e4m3fn: bias 7, subnormals, S.1111.111 is NaN (never generated).
double FromE4M3(uint8_t b) {
  int sign = b >> 7, exp = (b >> 3) & 15, man = b & 7;
  double v = exp == 0 ? man * std::ldexp(1.0, -9)
                      : (1.0 + man / 8.0) * std::ldexp(1.0, exp - 7);
  return sign ? -v : v;
}

struct Shape {
  const char *name;
  int m, n, k;
};

std::ostream &operator<<(std::ostream &os, const Shape &s) {
  return os << s.name << " " << s.m << "x" << s.n << "x" << s.k;
}

class GemmGpuTest : public DeviceFixture<::testing::TestWithParam<Shape>> {
protected:
  // Element values of x and w as doubles, and their device bytes.
  struct Operand {
    std::vector<double> values;
    std::vector<uint8_t> bytes;
  };

  Operand Random(DType dtype, size_t count, double scale) {
    Operand op;
    op.values.resize(count);
    if (dtype == DType::kF8E4M3) {
      // Every finite e4m3 value, subnormals included.
      std::uniform_int_distribution<int> byte(0, 255);
      op.bytes.resize(count);
      for (size_t i = 0; i < count; ++i) {
        uint8_t b;
        do
          b = uint8_t(byte(rng_));
        while ((b & 0x7F) == 0x7F);
        op.bytes[i] = b;
        op.values[i] = FromE4M3(b);
      }
      return op;
    }
    std::normal_distribution<float> normal(0.0f, float(scale));
    op.bytes.resize(count * 2);
    for (size_t i = 0; i < count; ++i) {
      uint16_t h = ToBf16(normal(rng_));
      std::memcpy(&op.bytes[i * 2], &h, 2);
      op.values[i] = FromBf16(h);
    }
    return op;
  }

  CUdeviceptr Upload(const void *data, size_t bytes) {
    CUdeviceptr p = Alloc(bytes);
    EXPECT_EQ(driver_->api().cuMemcpyHtoD_v2(p, data, bytes), 0);
    return p;
  }

  // Runs one GEMM and checks every element against the reference.
  // How a GEMM is launched: through the Gemm entry point (which pads rows
  // that are not 16-byte aligned), or the kernel itself with whatever
  // alignment the operands have (its in-kernel cp.async path).
  enum class Via { kEntryPoint, kKernel };

  void Check(DType dtype, int m, int n, int k, const Operand &x,
             const Operand &w, const std::vector<float> &scale, CUdeviceptr dx,
             CUdeviceptr dw, CUdeviceptr ds, Via via = Via::kEntryPoint,
             const GemmConfig *config = nullptr, int parts = 1) {
    // All bits set: NaN in bf16. Rounded up to whole words.
    size_t words = (size_t(m) * n + 1) / 2;
    CUdeviceptr dy = Alloc(words * 4);
    CUdeviceptr tickets = 0;
    size_t ticket_count = 0;
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(dy, 0xFFFFFFFFu, words), 0);
    absl::Status status;
    if (via == Via::kEntryPoint) {
      status = Gemm(
          TensorRef::Contiguous(reinterpret_cast<void *>(dx), dtype, {m, k}),
          TensorRef::Contiguous(reinterpret_cast<void *>(dw), dtype, {n, k}),
          TensorRef::Contiguous(reinterpret_cast<void *>(ds), DType::kF32,
                                {n}),
          TensorRef::Contiguous(reinterpret_cast<void *>(dy), DType::kBF16,
                                {m, n}));
    } else {
      const GemmConfig fallback = {
          dtype == DType::kBF16 ? "gemm_bf16" : "gemm_fp8", dtype, 128, 128};
      if (config == nullptr)
        config = &fallback;
      absl::StatusOr<const Kernel *> kernel =
          GetEmbeddedKernel("gemm", config->kernel, 0);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      std::vector<KernelArg> args = {
          KernelArg::DevicePtr(dx), KernelArg::DevicePtr(dw),
          KernelArg::DevicePtr(ds), KernelArg::DevicePtr(dy),
          KernelArg::I32(m),        KernelArg::I32(n),
          KernelArg::I32(k)};
      const std::array<uint32_t, 2> grid = GemmGrid(*config, m, n);
      const size_t tiles = size_t(grid[0]) * grid[1];
      if (config->split_k) {
        // Partials poisoned, tickets zero (as the kernel must leave them).
        const size_t partial = (*kernel)->info().split_k_partial_bytes;
        ASSERT_GT(partial, 0u);
        CUdeviceptr partials = Alloc(tiles * parts * partial);
        ASSERT_EQ(driver_->api().cuMemsetD32_v2(partials, 0x7FC00000u,
                                                tiles * parts * partial / 4),
                  0);
        tickets = Alloc(tiles * 4);
        ASSERT_EQ(driver_->api().cuMemsetD32_v2(tickets, 0, tiles), 0);
        args.push_back(KernelArg::DevicePtr(partials));
        args.push_back(KernelArg::DevicePtr(tickets));
      } else {
        ASSERT_EQ(parts, 1);
      }
      status =
          (*kernel)->LaunchTiles({grid[0], grid[1], uint32_t(parts)}, args);
      ticket_count = tiles;
    }
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
    if (tickets != 0) {
      std::vector<int32_t> left(ticket_count);
      ASSERT_EQ(
          driver_->api().cuMemcpyDtoH_v2(left.data(), tickets, left.size() * 4),
          0);
      for (size_t t = 0; t < left.size(); ++t)
        ASSERT_EQ(left[t], 0)
            << "ticket " << t << " of " << parts << " parts left set";
    }
    std::vector<uint16_t> y(size_t(m) * n);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(y.data(), dy, y.size() * 2), 0);
    int bad = 0;
    for (int i = 0; i < m && bad < 10; ++i) {
      for (int j = 0; j < n && bad < 10; ++j) {
        double dot = 0, mag = 0;
        for (int l = 0; l < k; ++l) {
          double p = x.values[size_t(i) * k + l] * w.values[size_t(j) * k + l];
          dot += p;
          mag += std::fabs(p);
        }
        double ref = dot * scale[j];
        double got = FromBf16(y[size_t(i) * n + j]);
        double tol = 1e-2 * std::fabs(ref) + 1e-3 * mag * std::fabs(scale[j]) +
                     1e-30;
        if (!(std::fabs(got - ref) <= tol)) {
          ++bad;
          ADD_FAILURE() << (config ? config->kernel : "Gemm") << ": y[" << i
                        << ", " << j << "] = " << got << ", expected " << ref
                        << " (tolerance " << tol << ")";
        }
      }
    }
  }

  // Fresh random operands of the test's shape and their device copies.
  struct Problem {
    Operand x, w;
    std::vector<float> scale;
    CUdeviceptr dx, dw, ds;
  };

  Problem NewProblem(DType dtype, double xScale) {
    const Shape &s = GetParam();
    Problem p;
    p.x = Random(dtype, size_t(s.m) * s.k, xScale);
    p.w = Random(dtype, size_t(s.n) * s.k, 0.02);
    p.scale.resize(s.n);
    std::uniform_real_distribution<float> uniform(0.5f, 2.0f);
    for (float &v : p.scale)
      v = uniform(rng_);
    p.dx = Upload(p.x.bytes.data(), p.x.bytes.size());
    p.dw = Upload(p.w.bytes.data(), p.w.bytes.size());
    p.ds = Upload(p.scale.data(), p.scale.size() * 4);
    return p;
  }

  void RunCase(DType dtype, double xScale) {
    const Shape &s = GetParam();
    Problem p = NewProblem(dtype, xScale);
    const Operand &x = p.x;
    const std::vector<float> &scale = p.scale;
    const CUdeviceptr dx = p.dx, dw = p.dw, ds = p.ds;
    Check(dtype, s.m, s.n, s.k, x, p.w, scale, dx, dw, ds);
    // The weight changed in place between calls: nothing may be cached.
    Operand w2 = Random(dtype, size_t(s.n) * s.k, 0.02);
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(dw, w2.bytes.data(),
                                             w2.bytes.size()),
              0);
    Check(dtype, s.m, s.n, s.k, x, w2, scale, dx, dw, ds);
    // The kernel launched directly: TMA when the rows are 16-byte aligned,
    // its own cp.async ring with element loads otherwise (K = 4127).
    Check(dtype, s.m, s.n, s.k, x, w2, scale, dx, dw, ds, Via::kKernel);
    // x one element past a 16-byte boundary: the entry point pads it.
    const size_t bytes = x.bytes.size();
    const size_t element = dtype == DType::kBF16 ? 2 : 1;
    CUdeviceptr shifted = Alloc(bytes + 16);
    // The padding copy may read the bytes before x in x's first word.
    ASSERT_EQ(driver_->api().cuMemsetD32_v2(shifted, 0, (bytes + 16) / 4), 0);
    ASSERT_EQ(driver_->api().cuMemcpyHtoD_v2(shifted + element,
                                             x.bytes.data(), bytes),
              0);
    Check(dtype, s.m, s.n, s.k, x, w2, scale, shifted + element, dw, ds);
  }

  // Every instance the configuration table can pick, launched directly.
  void RunEveryConfig() {
    const Shape &s = GetParam();
    // Instances built for one target only (CTA pairs: sm_100a) run there.
    absl::StatusOr<int> major = driver_->DeviceAttribute(
        0, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    absl::StatusOr<int> minor = driver_->DeviceAttribute(
        0, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    ASSERT_TRUE(major.ok() && minor.ok());
    const std::string target = TargetForComputeCapability(*major, *minor);
    for (const GemmConfig &config : GemmConfigs()) {
      if (!GemmConfigRunsOn(config, target))
        continue;
      SCOPED_TRACE(std::string(config.kernel));
      Problem p = NewProblem(config.dtype, 1.0);
      // Split instances with one part, a few, and more parts than the K
      // loop has iterations (parts with nothing to add).
      for (int parts :
           config.split_k ? std::vector<int>{1, 3, 16} : std::vector<int>{1}) {
        SCOPED_TRACE(parts);
        Check(config.dtype, s.m, s.n, s.k, p.x, p.w, p.scale, p.dx, p.dw, p.ds,
              Via::kKernel, &config, parts);
      }
    }
  }

  std::mt19937 rng_{std::random_device{}()};
};

TEST_P(GemmGpuTest, EveryConfigMatchesReference) { RunEveryConfig(); }
TEST_P(GemmGpuTest, Bf16MatchesReference) { RunCase(DType::kBF16, 1.0); }
TEST_P(GemmGpuTest, Fp8MatchesReference) { RunCase(DType::kF8E4M3, 1.0); }

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmGpuTest,
    ::testing::Values(Shape{"one", 1, 1, 1}, Shape{"tiny", 7, 13, 17},
                      Shape{"one_tile", 128, 128, 128},
                      Shape{"primes", 131, 257, 211},
                      Shape{"k_tail", 64, 200, 4127},
                      Shape{"skinny_m", 32, 1024, 2048},
                      Shape{"several_tiles", 384, 256, 512},
                      // Beyond 128 rows with 64 x 128 tiles for under half
                      // the SMs: the entry point splits their K loop
                      // (gemm_fp8_64x128_ws_sk, 2 parts on 132 SMs).
                      Shape{"split_rows", 200, 512, 2048},
                      // More tiles than programs fit on the GPU, for the
                      // persistent instances (a short last group of rows).
                      Shape{"many_tiles", 1664, 2816, 200},
                      // Aligned rows whose last row tile is partial: full
                      // tiles copy A in one wgmma-order box, the last in
                      // 8-row boxes whose bounds zero the rows past M.
                      Shape{"ragged_rows", 1000, 384, 512},
                      Shape{"n_one", 300, 1, 96}, Shape{"m_one", 1, 300, 96}),
    [](const ::testing::TestParamInfo<Shape> &info) {
      return std::string(info.param.name);
    });

} // namespace
} // namespace tilec
