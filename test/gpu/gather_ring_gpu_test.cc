// Gathers through an index table staged in a cp.async ring by
// tile-pipeline-loads: the kernel of kernels/gather_ring.mlir sums q · V
// over four steps of 64 gathered rows, from a view whose base is 16-byte
// aligned (each thread's runs go to cp.async under one branch) and from
// one shifted by an element (every run falls back to element loads).
// Rows outside the view (-1, or past its end) must read zeros. Against a
// float64 reference; skips when no CUDA device is present.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "runtime/module.h"
#include "test/support/bf16.h"
#include "test/support/device_fixture.h"
#include "test/support/test_kernels.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

class GatherRingGpuTest
    : public TestKernelsFixture<::testing::TestWithParam<int>> {
protected:
  GatherRingGpuTest() : TestKernelsFixture("gather_ring") {}
};

TEST_P(GatherRingGpuTest, MatchesReference) {
  const int64_t shift = GetParam();
  const int32_t rows = 300;
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE(testing::Message() << "shift " << shift << ", seed " << seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  // x holds the view's rows after `shift` leading elements.
  std::vector<uint16_t> x(shift + size_t(rows) * 64), q(16 * 64);
  for (uint16_t &v : x)
    v = ToBf16(normal(rng));
  for (uint16_t &v : q)
    v = ToBf16(normal(rng));
  // Rows in the view, -1, and past its end.
  std::uniform_int_distribution<int32_t> pick(-1, rows + 9);
  std::vector<int32_t> table(256);
  for (int32_t &r : table)
    r = pick(rng);
  table[0] = -1;
  table[1] = rows;

  std::vector<double> want(16 * 64, 0.0), magnitude(16 * 64, 0.0);
  for (int k = 0; k < 256; ++k) {
    int32_t r = table[k];
    if (r < 0 || r >= rows)
      continue;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 64; ++j) {
        double p = FromBf16(q[i * 64 + k % 64]) *
                   FromBf16(x[shift + size_t(r) * 64 + j]);
        want[i * 64 + j] += p;
        magnitude[i * 64 + j] += std::fabs(p);
      }
  }

  const auto &api = driver_->api();
  CUdeviceptr dx = Alloc(x.size() * 2), dt = Alloc(table.size() * 4),
              dq = Alloc(q.size() * 2), dy = Alloc(16 * 64 * 4);
  std::vector<float> got(16 * 64, NAN);
  ASSERT_EQ(api.cuMemcpyHtoD_v2(dx, x.data(), x.size() * 2), 0);
  ASSERT_EQ(api.cuMemcpyHtoD_v2(dt, table.data(), table.size() * 4), 0);
  ASSERT_EQ(api.cuMemcpyHtoD_v2(dq, q.data(), q.size() * 2), 0);
  ASSERT_EQ(api.cuMemcpyHtoD_v2(dy, got.data(), got.size() * 4), 0);
  absl::StatusOr<const Kernel *> kernel = module_->GetKernel("gather_ring");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const KernelArg args[] = {KernelArg::DevicePtr(dx), KernelArg::DevicePtr(dt),
                            KernelArg::DevicePtr(dq), KernelArg::DevicePtr(dy),
                            KernelArg::I32(rows),     KernelArg::I64(shift)};
  absl::Status status = (*kernel)->Launch({1, 1, 1}, args);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(api.cuCtxSynchronize(), 0);
  ASSERT_EQ(api.cuMemcpyDtoH_v2(got.data(), dy, got.size() * 4), 0);
  for (int e = 0; e < 16 * 64; ++e)
    ASSERT_NEAR(got[e], want[e], 1e-5 * magnitude[e] + 1e-6)
        << "row " << e / 64 << ", column " << e % 64;
}

INSTANTIATE_TEST_SUITE_P(Shifts, GatherRingGpuTest, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return info.param ? "Misaligned" : "Aligned";
                         });

} // namespace
} // namespace tilec
