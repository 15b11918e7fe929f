// Reductions and scans of tiles narrower than the CTA along the combined
// dimension: the kernels of kernels/narrow_tiles.mlir (sums, products, xor
// and max of 4- to 64-element tiles over 128 threads, inclusive, exclusive
// and reversed prefix sums), whose threads hold replicas of the elements,
// and scans whose lines cross repeated warps (their totals combined line
// by line), against host results. Each replica must count once. Skips
// when no CUDA device is present.
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/module.h"
#include "test/support/device_fixture.h"
#include "test/support/test_kernels.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

class NarrowTilesGpuTest : public TestKernelsFixture<::testing::Test> {
protected:
  NarrowTilesGpuTest() : TestKernelsFixture("narrow_tiles") {}

  void SetUp() override {
    TestKernelsFixture::SetUp();
    if (IsSkipped())
      return;
    std::mt19937 rng(seed_);
    std::uniform_real_distribution<float> magnitude(0.5f, 1.5f);
    std::uniform_int_distribution<int32_t> ints(-1000, 1000);
    for (int i = 0; i < 64; ++i) {
      x_.push_back((rng() % 2 ? -1.0f : 1.0f) * magnitude(rng));
      xi_.push_back(ints(rng));
    }
  }

  // Copies x and xi to the device, poisons `floats` and `ints` output
  // elements with NaN / 0x7fffffff, runs `name` as one program and reads
  // the outputs back.
  void Run(const char *name, size_t floats, size_t ints,
           std::vector<float> &out, std::vector<int32_t> &outi) {
    absl::StatusOr<const Kernel *> kernel = module_->GetKernel(name);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    const auto &api = driver_->api();
    CUdeviceptr dx = Alloc(64 * 4), dxi = Alloc(64 * 4),
                dout = Alloc(floats * 4), douti = Alloc(ints * 4);
    out.assign(floats, NAN);
    outi.assign(ints, 0x7fffffff);
    ASSERT_EQ(api.cuMemcpyHtoD_v2(dx, x_.data(), 64 * 4), 0);
    ASSERT_EQ(api.cuMemcpyHtoD_v2(dxi, xi_.data(), 64 * 4), 0);
    ASSERT_EQ(api.cuMemcpyHtoD_v2(dout, out.data(), floats * 4), 0);
    ASSERT_EQ(api.cuMemcpyHtoD_v2(douti, outi.data(), ints * 4), 0);
    const KernelArg args[] = {
        KernelArg::DevicePtr(dx), KernelArg::DevicePtr(dxi),
        KernelArg::DevicePtr(dout), KernelArg::DevicePtr(douti)};
    absl::Status status = (*kernel)->Launch({1, 1, 1}, args);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_EQ(api.cuCtxSynchronize(), 0);
    ASSERT_EQ(api.cuMemcpyDtoH_v2(out.data(), dout, floats * 4), 0);
    ASSERT_EQ(api.cuMemcpyDtoH_v2(outi.data(), douti, ints * 4), 0);
  }

  // The sum of x[i] for i in `indices`, and the bound on its rounding.
  template <typename Indices>
  void ExpectSum(float got, Indices indices, const std::string &what) {
    double sum = 0, magnitude = 0;
    for (int i : indices) {
      sum += x_[i];
      magnitude += std::fabs(x_[i]);
    }
    EXPECT_NEAR(got, sum, 1e-6 * magnitude + 1e-7) << what;
  }

  static std::vector<int> Range(int begin, int end, int step = 1) {
    std::vector<int> r;
    for (int i = begin; i < end; i += step)
      r.push_back(i);
    return r;
  }

  const unsigned seed_ = std::random_device{}();
  std::vector<float> x_;
  std::vector<int32_t> xi_;
};

TEST_F(NarrowTilesGpuTest, Reductions) {
  SCOPED_TRACE(testing::Message() << "seed " << seed_);
  std::vector<float> out;
  std::vector<int32_t> outi;
  Run("reduce_narrow", 16, 8, out, outi);
  ExpectSum(out[0], Range(0, 64), "sum of 64");
  ExpectSum(out[1], Range(0, 16), "sum of 16");
  for (int r = 0; r < 4; ++r)
    ExpectSum(out[2 + r], Range(8 * r, 8 * r + 8),
              "row sum " + std::to_string(r));
  for (int c = 0; c < 8; ++c)
    ExpectSum(out[6 + c], Range(c, 32, 8), "column sum " + std::to_string(c));
  double product = 1;
  for (int i = 0; i < 8; ++i)
    product *= x_[i];
  EXPECT_NEAR(out[14], product, 1e-6 * std::fabs(product)) << "product of 8";

  uint32_t sum = 0, bits = 0, iproduct = 1, sum4 = 0;
  int32_t max = INT32_MIN;
  for (int i = 0; i < 64; ++i) {
    sum += uint32_t(xi_[i]);
    bits ^= uint32_t(xi_[i]);
  }
  for (int i = 0; i < 16; ++i) {
    iproduct *= uint32_t(xi_[i]);
    max = std::max(max, xi_[i]);
  }
  for (int i = 0; i < 4; ++i)
    sum4 += uint32_t(xi_[i]);
  EXPECT_EQ(uint32_t(outi[0]), sum) << "i32 sum of 64";
  EXPECT_EQ(uint32_t(outi[1]), bits) << "xor of 64";
  EXPECT_EQ(uint32_t(outi[2]), iproduct) << "i32 product of 16";
  EXPECT_EQ(uint32_t(outi[3]), sum4) << "sum of 4, 8 per thread";
  EXPECT_EQ(outi[4], max) << "max of 16";
}

TEST_F(NarrowTilesGpuTest, Scans) {
  SCOPED_TRACE(testing::Message() << "seed " << seed_);
  std::vector<float> y;
  std::vector<int32_t> yi;
  Run("scan_narrow", 64, 264, y, yi);
  for (int i = 0; i < 64; ++i)
    ExpectSum(y[i], Range(0, i + 1), "f32 prefix " + std::to_string(i));
  // Each expected value, as wrapping i32 sums of xi over [begin, end).
  auto sum = [&](int begin, int end) {
    uint32_t s = 0;
    for (int i = begin; i < end; ++i)
      s += uint32_t(xi_[i]);
    return int32_t(s);
  };
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(yi[i], sum(0, i + 1)) << "inclusive 64 at " << i;
    EXPECT_EQ(yi[64 + i], sum(0, i)) << "exclusive 64 at " << i;
    EXPECT_EQ(yi[128 + i], sum(i, 64)) << "reversed 64 at " << i;
  }
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(yi[192 + i], sum(0, i + 1)) << "inclusive 16 at " << i;
    EXPECT_EQ(yi[208 + i], sum(i, 16)) << "reversed 16 at " << i;
  }
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(yi[224 + i], sum(0, i + 1)) << "inclusive 4 at " << i;
  for (int i = 228; i < 232; ++i)
    EXPECT_EQ(yi[i], 0x7fffffff) << "untouched at " << i;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_EQ(yi[232 + 8 * r + c], sum(8 * r, 8 * r + c + 1))
          << "row " << r << " prefix " << c;
}

TEST_F(NarrowTilesGpuTest, ScansAcrossRepeatedWarps) {
  SCOPED_TRACE(testing::Message() << "seed " << seed_);
  std::vector<float> y;
  std::vector<int32_t> yi;
  Run("scan_lines", 1, 193 * 128, y, yi);
  // x[i][j] = xi[i] + j·(i + 1), summed down column j as wrapping i32.
  auto x = [&](int i, int j) {
    return uint32_t(xi_[i]) + uint32_t(j * (i + 1));
  };
  for (int j = 0; j < 128; ++j) {
    uint32_t before = 0, total = 0;
    for (int i = 0; i < 64; ++i)
      total += x(i, j);
    for (int i = 0; i < 64; ++i) {
      uint32_t with = before + x(i, j);
      EXPECT_EQ(yi[i * 128 + j], int32_t(with))
          << "inclusive at row " << i << " column " << j;
      EXPECT_EQ(yi[(64 + i) * 128 + j], int32_t(before))
          << "exclusive at row " << i << " column " << j;
      EXPECT_EQ(yi[(128 + i) * 128 + j], int32_t(total - before))
          << "reversed at row " << i << " column " << j;
      before = with;
    }
    EXPECT_EQ(yi[192 * 128 + j], int32_t(total)) << "total of column " << j;
  }
}

} // namespace
} // namespace tilec
