// Loads and launches the hand-written add_one fixture on a real device.
// Every test skips, saying why, when no CUDA device is available.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "runtime/context.h"
#include "runtime/embedded.h"
#include "runtime/module.h"
#include "test/support/device_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

constexpr int kBlock = 128; // fixtures/add_one.json's block size

class GpuTest : public DeviceFixture<::testing::Test> {
protected:
  const EmbeddedModule &Fixture() const { return ListEmbedded()[0]; }

  // The fixture's metadata with one piece of text replaced.
  std::string Metadata(absl::string_view from, absl::string_view to) const {
    std::string json = Fixture().metadata;
    EXPECT_TRUE(absl::StrContains(json, from)) << from;
    return absl::StrReplaceAll(json, {{from, to}});
  }

  // Uploads 0, 1, ..., count-1 to a fresh device buffer.
  void Upload(int count) {
    std::vector<int32_t> host(count);
    std::iota(host.begin(), host.end(), 0);
    buffer_ = Alloc(count * 4);
    ASSERT_TRUE(
        Check(driver_->api().cuMemcpyHtoD_v2(buffer_, host.data(), count * 4)));
  }

  std::vector<int32_t> Download(int count) {
    std::vector<int32_t> host(count);
    EXPECT_TRUE(Check(driver_->api().cuCtxSynchronize()));
    EXPECT_TRUE(
        Check(driver_->api().cuMemcpyDtoH_v2(host.data(), buffer_, count * 4)));
    return host;
  }

  ::testing::AssertionResult Check(cu::CUresult result) {
    absl::Status status = driver_->Check(result, "driver call");
    if (status.ok())
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << status;
  }

  // Runs add_one over the first `n` of `count` elements and checks that
  // exactly those were incremented.
  void ExpectAddsOne(const Module &module, int n, int count, Dim3 grid) {
    absl::StatusOr<const Kernel *> kernel = module.GetKernel("add_one");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    Upload(count);
    KernelArg args[] = {KernelArg::DevicePtr(buffer_), KernelArg::I32(n)};
    absl::Status launched = (*kernel)->Launch(grid, args);
    ASSERT_TRUE(launched.ok()) << launched;
    std::vector<int32_t> result = Download(count);
    for (int i = 0; i < count; ++i)
      ASSERT_EQ(result[i], i < n ? i + 1 : i) << "element " << i;
  }

  // Whether the device runs thread-block clusters (sm_90 and newer).
  bool HasClusters() const {
    absl::StatusOr<std::string> target = DefaultTarget();
    EXPECT_TRUE(target.ok()) << target.status();
    return target.ok() && (*target == "sm_90a" || *target == "sm_100a");
  }

  // The fixture's PTX retargeted to sm_90, which clusters need.
  std::string Sm90Ptx() const {
    return absl::StrReplaceAll(Fixture().ptx,
                               {{".version 7.0", ".version 8.0"},
                                {".target sm_80", ".target sm_90"}});
  }

  cu::CUdeviceptr buffer_ = 0;
};

TEST_F(GpuTest, AddsOneThroughModuleLoad) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Fixture().ptx, Fixture().metadata);
  ASSERT_TRUE(module.ok()) << module.status();
  // Empty when the driver's JIT cache served the module (no ptxas run).
  if (!(*module)->jit_info_log().empty())
    EXPECT_THAT((*module)->jit_info_log(), HasSubstr("add_one"));
  const int n = 1000;
  ExpectAddsOne(**module, n, 1024, {(n + kBlock - 1) / kBlock, 1, 1});
}

TEST_F(GpuTest, AddsOneThroughEmbeddedTable) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      LoadEmbedded("add_one", "sm_80");
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectAddsOne(**module, 256, 256, {2, 1, 1});
}

TEST_F(GpuTest, DefaultTargetIsSupported) {
  absl::StatusOr<std::string> target = DefaultTarget();
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_THAT(*target, AnyOf("sm_80", "sm_90a", "sm_100a"));
}

TEST_F(GpuTest, MalformedPtxReturnsTheJitLog) {
  std::string ptx = absl::StrReplaceAll(
      Fixture().ptx, {{"add.s32 \t%r7, %r6, 1;", "add.s32 \t%r7, %r6;"}});
  ASSERT_NE(ptx, Fixture().ptx);
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(ptx, Fixture().metadata);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(module.status().message(), HasSubstr("cuModuleLoadDataEx"));
  EXPECT_THAT(module.status().message(), HasSubstr("JIT log:\nptxas"));
  EXPECT_THAT(module.status().message(), HasSubstr("line 32"));
}

TEST_F(GpuTest, MetadataKernelMissingFromPtx) {
  absl::StatusOr<std::unique_ptr<Module>> module = Module::Load(
      Fixture().ptx, Metadata(R"("name": "add_one")", R"("name": "add_two")"));
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(module.status().message(),
              HasSubstr("metadata lists kernel 'add_two' but the PTX module "
                        "has no entry of that name"));
}

TEST_F(GpuTest, GetKernelListsAvailableNames) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Fixture().ptx, Fixture().metadata);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<const Kernel *> kernel = (*module)->GetKernel("add_two");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(kernel.status().message(),
              HasSubstr("module has no kernel 'add_two'; available: add_one"));
}

TEST_F(GpuTest, ValidationFailsBeforeTheDriver) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Fixture().ptx, Fixture().metadata);
  ASSERT_TRUE(module.ok()) << module.status();
  const Kernel *kernel = *(*module)->GetKernel("add_one");
  KernelArg args[] = {KernelArg::Ptr(nullptr), KernelArg::I32(1)};
  absl::Status status = kernel->Launch({1, 1, 1}, args);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("argument 0 ('data') is a null"));
}

// A host address would fault on the device and poison the context; the
// launch asks the driver first, and the context keeps working.
TEST_F(GpuTest, HostPointerIsRejectedAndTheContextStillWorks) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Fixture().ptx, Fixture().metadata);
  ASSERT_TRUE(module.ok()) << module.status();
  const Kernel *kernel = *(*module)->GetKernel("add_one");
  std::vector<int32_t> host(256);
  KernelArg args[] = {KernelArg::Ptr(host.data()), KernelArg::I32(256)};
  absl::Status status = kernel->Launch({2, 1, 1}, args);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("kernel 'add_one': argument 'data' address 0x"));
  EXPECT_THAT(status.message(), HasSubstr("is not CUDA memory"));
  status = kernel->LaunchInClusters({2, 1, 1}, {1, 1, 1}, args);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  ExpectAddsOne(**module, 256, 256, {2, 1, 1});
}

TEST_F(GpuTest, OptsIntoLargeDynamicSharedMemory) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Fixture().ptx, Metadata(R"("shared_bytes": 0)",
                                           R"("shared_bytes": 102400)"));
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectAddsOne(**module, 300, 300, {3, 1, 1});
}

TEST_F(GpuTest, SharedMemoryBeyondTheDeviceIsRejected) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Fixture().ptx, Metadata(R"("shared_bytes": 0)",
                                           R"("shared_bytes": 4194304)"));
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(module.status().message(),
              HasSubstr("kernel 'add_one' needs 4194304 bytes of dynamic "
                        "shared memory"));
  EXPECT_THAT(module.status().message(), HasSubstr("the device allows"));
}

TEST_F(GpuTest, LaunchesClusters) {
  if (!HasClusters())
    GTEST_SKIP() << "thread-block clusters need sm_90 or newer";
  absl::StatusOr<std::unique_ptr<Module>> module = Module::Load(
      Sm90Ptx(), Metadata(R"("cluster": [1, 1, 1])", R"("cluster": [2, 1, 1])"));
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectAddsOne(**module, 1000, 1024, {8, 1, 1});

  const Kernel *kernel = *(*module)->GetKernel("add_one");
  KernelArg args[] = {KernelArg::DevicePtr(buffer_), KernelArg::I32(1)};
  absl::Status status = kernel->Launch({7, 1, 1}, args);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("multiple of the cluster"));
}

TEST_F(GpuTest, LaunchesInClustersChosenAtLaunch) {
  if (!HasClusters())
    GTEST_SKIP() << "thread-block clusters need sm_90 or newer";
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(Sm90Ptx(), Fixture().metadata);
  ASSERT_TRUE(module.ok()) << module.status();
  const Kernel *kernel = *(*module)->GetKernel("add_one");
  Upload(1024);
  KernelArg args[] = {KernelArg::DevicePtr(buffer_), KernelArg::I32(1000)};
  absl::Status launched = kernel->LaunchInClusters({8, 1, 1}, {4, 1, 1}, args);
  ASSERT_TRUE(launched.ok()) << launched;
  std::vector<int32_t> result = Download(1024);
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(result[i], i < 1000 ? i + 1 : i) << "element " << i;

  absl::Status uneven = kernel->LaunchInClusters({8, 1, 1}, {3, 1, 1}, args);
  EXPECT_EQ(uneven.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(uneven.message(), HasSubstr("cluster (3, 1, 1) is invalid"));
  absl::Status large = kernel->LaunchInClusters({16, 1, 1}, {16, 1, 1}, args);
  EXPECT_EQ(large.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(large.message(), HasSubstr("1 to 8 programs"));
}

} // namespace
} // namespace tilec
