// kernels_dsl/softmax.mlir, compiled ahead of time and embedded in the
// runtime, launched on random rows and compared with a float64 CPU
// reference. Skips when no CUDA device is present.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/embedded.h"
#include "runtime/module.h"
#include "runtime/softmax.h"
#include "test/support/device_fixture.h"
#include "gmock/gmock.h"
#include "test/support/bf16.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

struct Shape {
  int rows, cols;
  float scale;
};

class SoftmaxGpuTest : public DeviceFixture<::testing::TestWithParam<Shape>> {
protected:
  // Runs the softmax entry point on rows x cols elements, with the output
  // poisoned (all bits set: NaN in both types) beforehand.
  template <typename T>
  std::vector<T> Run(SoftmaxType type, const std::vector<T> &input, int rows,
                     int cols) {
    size_t bytes = input.size() * sizeof(T);
    size_t words = (bytes + 3) / 4;
    CUdeviceptr x = Alloc(bytes), y = Alloc(words * 4);
    EXPECT_EQ(driver_->api().cuMemcpyHtoD_v2(x, input.data(), bytes), 0);
    EXPECT_EQ(driver_->api().cuMemsetD32_v2(y, 0xFFFFFFFFu, words), 0);
    absl::Status status =
        Softmax(reinterpret_cast<const void *>(x), reinterpret_cast<void *>(y),
                rows, cols, type);
    EXPECT_TRUE(status.ok()) << status;
    EXPECT_EQ(driver_->api().cuCtxSynchronize(), 0);
    std::vector<T> out(input.size());
    EXPECT_EQ(driver_->api().cuMemcpyDtoH_v2(out.data(), y, bytes), 0);
    return out;
  }

  static std::vector<double> Reference(const std::vector<double> &x, int rows,
                                       int cols) {
    std::vector<double> ref(x.size());
    for (int r = 0; r < rows; ++r) {
      const double *row = &x[size_t(r) * cols];
      double m = -INFINITY, s = 0;
      for (int c = 0; c < cols; ++c)
        m = std::max(m, row[c]);
      for (int c = 0; c < cols; ++c)
        s += std::exp(row[c] - m);
      for (int c = 0; c < cols; ++c)
        ref[size_t(r) * cols + c] = std::exp(row[c] - m) / s;
    }
    return ref;
  }
};

TEST_P(SoftmaxGpuTest, F32MatchesReference) {
  Shape shape = GetParam();
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal(0.f, shape.scale);
  std::vector<float> x(size_t(shape.rows) * shape.cols);
  for (float &v : x)
    v = normal(rng);
  std::vector<double> xd(x.begin(), x.end());
  std::vector<double> ref = Reference(xd, shape.rows, shape.cols);
  std::vector<float> y = Run(SoftmaxType::kF32, x, shape.rows, shape.cols);
  size_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i)
    if (!(std::fabs(y[i] - ref[i]) <= 1e-6 + 1e-4 * ref[i]) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << y[i] << ", want "
                    << ref[i];
  EXPECT_EQ(bad, 0u);
}

TEST_P(SoftmaxGpuTest, Bf16MatchesReference) {
  Shape shape = GetParam();
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal(0.f, shape.scale);
  std::vector<uint16_t> x(size_t(shape.rows) * shape.cols);
  std::vector<double> xd(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = ToBf16(normal(rng));
    xd[i] = FromBf16(x[i]);
  }
  std::vector<double> ref = Reference(xd, shape.rows, shape.cols);
  std::vector<uint16_t> y = Run(SoftmaxType::kBF16, x, shape.rows, shape.cols);
  size_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    double got = FromBf16(y[i]);
    // bf16 keeps 8 significant bits: half an ulp is 2^-9 relative.
    if (!(std::fabs(got - ref[i]) <= 1e-6 + 8e-3 * ref[i]) && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << got << ", want "
                    << ref[i];
  }
  EXPECT_EQ(bad, 0u);
}

// Every row-width tier of the kernel (8, 2 and 1 rows per program, and
// chunked rows wider than 8192), ragged widths and row counts that leave the
// last program partly empty.
INSTANTIATE_TEST_SUITE_P(
    Shapes, SoftmaxGpuTest,
    ::testing::Values(
        Shape{4096, 8192, 1.f}, Shape{37, 1000, 1.f}, Shape{5, 1, 1.f},
        Shape{3, 17, 1.f}, Shape{8192, 1024, 1.f}, Shape{13, 1025, 1.f},
        Shape{4097, 4096, 1.f}, Shape{3, 4095, 1.f}, Shape{64, 8191, 1.f},
        Shape{16, 8193, 1.f}, Shape{7, 20011, 1.f}, Shape{2, 65536, 1.f},
        Shape{33, 4097, 30.f}, Shape{9, 30000, 20.f}, Shape{11, 700, 40.f},
        Shape{70, 256, 1.f}, Shape{129, 257, 1.f}, Shape{5, 8192, 1.f}),
    [](const ::testing::TestParamInfo<Shape> &info) {
      return std::to_string(info.param.rows) + "x" +
             std::to_string(info.param.cols) + "_scale" +
             std::to_string(int(info.param.scale));
    });

// Needs no GPU: the build compiled softmax.mlir for every target and the
// library carries the PTX and metadata.
TEST(EmbeddedSoftmax, EveryTargetIsEmbedded) {
  for (const char *target : {"sm_80", "sm_90a", "sm_100a"}) {
    bool found = false;
    for (const EmbeddedModule &entry : ListEmbedded())
      if (std::string(entry.name) == "softmax" &&
          std::string(entry.target) == target) {
        found = true;
        // One kernel per instance of the template, per width tier.
        for (const char *name :
             {"softmax_f32_c256", "softmax_f32_c1024", "softmax_f32_c4096",
              "softmax_f32_c8192", "softmax_f32_wide", "softmax_bf16_c256",
              "softmax_bf16_c1024", "softmax_bf16_c4096", "softmax_bf16_c8192",
              "softmax_bf16_wide"}) {
          EXPECT_NE(
              std::string(entry.ptx).find(std::string(".entry ") + name + "("),
              std::string::npos)
              << name;
          EXPECT_NE(
              std::string(entry.metadata).find(std::string("\"") + name + "\""),
              std::string::npos)
              << name;
        }
      }
    EXPECT_TRUE(found) << "softmax@" << target << " is not embedded";
  }
}

// Needs no GPU: argument errors name the argument.
TEST(SoftmaxValidation, ErrorsNameTheArgument) {
  int buffer = 0;
  EXPECT_THAT(ValidateSoftmax(nullptr, &buffer, 1, 1).message(),
              ::testing::HasSubstr("argument 'x' is null"));
  EXPECT_THAT(ValidateSoftmax(&buffer, nullptr, 1, 1).message(),
              ::testing::HasSubstr("argument 'y' is null"));
  EXPECT_THAT(
      ValidateSoftmax(&buffer, &buffer, 0, 1).message(),
      ::testing::HasSubstr("argument 'rows' must be in [1, 2^31 - 1], got 0"));
  EXPECT_THAT(
      ValidateSoftmax(&buffer, &buffer, 1, -3).message(),
      ::testing::HasSubstr("argument 'cols' must be in [1, 2^31 - 1], got -3"));
  EXPECT_TRUE(ValidateSoftmax(&buffer, &buffer, 1, 1).ok());
  EXPECT_EQ(SoftmaxRowsPerProgram(256, SoftmaxType::kF32), 32);
  EXPECT_EQ(SoftmaxRowsPerProgram(1024, SoftmaxType::kF32), 8);
  EXPECT_EQ(SoftmaxRowsPerProgram(1025, SoftmaxType::kF32), 2);
  EXPECT_EQ(SoftmaxRowsPerProgram(4097, SoftmaxType::kF32), 1);
  EXPECT_EQ(SoftmaxRowsPerProgram(8192, SoftmaxType::kBF16), 2);
  EXPECT_EQ(SoftmaxRowsPerProgram(8193, SoftmaxType::kBF16), 1);
  EXPECT_EQ(SoftmaxKernelName(1, SoftmaxType::kF32), "softmax_f32_c256");
  EXPECT_EQ(SoftmaxKernelName(257, SoftmaxType::kF32), "softmax_f32_c1024");
  EXPECT_EQ(SoftmaxKernelName(4096, SoftmaxType::kBF16), "softmax_bf16_c4096");
  EXPECT_EQ(SoftmaxKernelName(8192, SoftmaxType::kBF16), "softmax_bf16_c8192");
  EXPECT_EQ(SoftmaxKernelName(8193, SoftmaxType::kF32), "softmax_f32_wide");
}

TEST_F(SoftmaxGpuTest, WrongArgumentsAreRejected) {
  absl::StatusOr<const Kernel *> k =
      GetEmbeddedKernel("softmax", "softmax_f32_c1024");
  ASSERT_TRUE(k.ok());
  KernelArg too_few[] = {KernelArg::I32(1)};
  absl::Status status = (*k)->Launch(Dim3{1, 1, 1}, too_few);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("rows"), std::string::npos) << status;
}

} // namespace
} // namespace tilec
