#include <cstdint>
#include <vector>

#include "runtime/launch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

KernelInfo Softmax() {
  KernelInfo kernel;
  kernel.name = "softmax_f32";
  kernel.block = {256, 1, 1};
  kernel.params = {{"x", ParamKind::kPtr, "f32"},
                   {"y", ParamKind::kPtr, "f32"},
                   {"rows", ParamKind::kI32, ""},
                   {"cols", ParamKind::kI32, ""}};
  return kernel;
}

int buffer[4]; // stands in for device memory: only non-null matters here

std::vector<KernelArg> GoodArgs() {
  return {KernelArg::Ptr(&buffer[0]), KernelArg::Ptr(&buffer[1]),
          KernelArg::I32(4), KernelArg::I32(8)};
}

void ExpectInvalid(const absl::Status &status, const std::string &message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr(message));
}

TEST(ValidateLaunchTest, AcceptsMatchingArguments) {
  EXPECT_TRUE(ValidateLaunch(Softmax(), {4, 1, 1}, GoodArgs()).ok());
  EXPECT_TRUE(
      ValidateLaunch(Softmax(), {kMaxGridX, kMaxGridYZ, kMaxGridYZ}, GoodArgs())
          .ok());
}

TEST(ValidateLaunchTest, CountMismatchListsParameters) {
  std::vector<KernelArg> args = GoodArgs();
  args.pop_back();
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, args),
                "kernel 'softmax_f32' expects 4 arguments (x: ptr, y: ptr, "
                "rows: i32, cols: i32), got 3");
  args = GoodArgs();
  args.push_back(KernelArg::I32(0));
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, args),
                "expects 4 arguments");
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, {}), "got 0");
}

TEST(ValidateLaunchTest, KindMismatchNamesParameter) {
  std::vector<KernelArg> args = GoodArgs();
  args[2] = KernelArg::F32(4.0f);
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, args),
                "kernel 'softmax_f32': argument 2 ('rows') expects i32, got "
                "f32");
  args = GoodArgs();
  args[0] = KernelArg::I64(reinterpret_cast<intptr_t>(&buffer[0]));
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, args),
                "argument 0 ('x') expects ptr, got i64");
  args = GoodArgs();
  args[3] = KernelArg::TensorMap(&buffer[0]);
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, args),
                "argument 3 ('cols') expects i32, got tensormap");
}

TEST(ValidateLaunchTest, NullPointerNamesParameter) {
  std::vector<KernelArg> args = GoodArgs();
  args[1] = KernelArg::Ptr(nullptr);
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 1}, args),
                "argument 1 ('y') is a null pointer");
  KernelInfo kernel = Softmax();
  kernel.params[0].kind = ParamKind::kTensorMap;
  args = GoodArgs();
  args[0] = KernelArg::TensorMap(nullptr);
  ExpectInvalid(ValidateLaunch(kernel, {1, 1, 1}, args),
                "argument 0 ('x') is a null tensor map pointer");
}

TEST(ValidateLaunchTest, GridLimits) {
  ExpectInvalid(ValidateLaunch(Softmax(), {0, 1, 1}, GoodArgs()),
                "grid (0, 1, 1) is invalid: grid.x must be in [1, 2147483647]");
  ExpectInvalid(ValidateLaunch(Softmax(), {kMaxGridX + 1u, 1, 1}, GoodArgs()),
                "grid.x must be in [1, 2147483647]");
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 0, 1}, GoodArgs()),
                "grid.y must be in [1, 65535]");
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 65536, 1}, GoodArgs()),
                "grid.y must be in [1, 65535]");
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 0}, GoodArgs()),
                "grid.z must be in [1, 65535]");
  ExpectInvalid(ValidateLaunch(Softmax(), {1, 1, 70000}, GoodArgs()),
                "grid.z must be in [1, 65535]");
}

TEST(ValidateLaunchTest, GridMustTileClusters) {
  KernelInfo kernel = Softmax();
  kernel.cluster = {2, 1, 1};
  EXPECT_TRUE(ValidateLaunch(kernel, {8, 3, 1}, GoodArgs()).ok());
  ExpectInvalid(ValidateLaunch(kernel, {7, 1, 1}, GoodArgs()),
                "grid.x must be a multiple of the cluster shape's x (2)");
  kernel.cluster = {1, 1, 4};
  ExpectInvalid(ValidateLaunch(kernel, {1, 1, 6}, GoodArgs()),
                "grid.z must be a multiple of the cluster shape's z (4)");
}

TEST(ValidateLaunchTest, ArgumentCountIsCheckedBeforeKinds) {
  ExpectInvalid(ValidateLaunch(Softmax(), {0, 1, 1}, {KernelArg::F64(1.0)}),
                "expects 4 arguments");
}

TEST(KernelArgTest, ParamAddressPointsAtTheValue) {
  KernelArg i32 = KernelArg::I32(-7);
  EXPECT_EQ(*static_cast<int32_t *>(i32.ParamAddress()), -7);
  KernelArg f64 = KernelArg::F64(2.5);
  EXPECT_EQ(*static_cast<double *>(f64.ParamAddress()), 2.5);
  KernelArg ptr = KernelArg::DevicePtr(0x1234);
  EXPECT_EQ(*static_cast<uint64_t *>(ptr.ParamAddress()), 0x1234u);
  unsigned char map[128] = {};
  EXPECT_EQ(KernelArg::TensorMap(map).ParamAddress(), map);
}

} // namespace
} // namespace tilec
