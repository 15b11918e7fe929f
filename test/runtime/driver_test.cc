// The runtime without a usable CUDA driver: every entry point must return a
// clear error, never crash. Cases that need the driver to be absent skip on
// machines that have one.
#include "runtime/driver.h"

#include "runtime/context.h"
#include "runtime/embedded.h"
#include "runtime/module.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

constexpr char kMetadata[] = R"({"format": "tilec-metadata-v1",
  "target": "sm_80", "kernels": [{"name": "k", "block": [32, 1, 1],
  "shared_bytes": 0, "cluster": [1, 1, 1], "params": [],
  "tensor_maps": []}]})";

TEST(DriverTest, MissingLibraryIsFailedPrecondition) {
  absl::StatusOr<std::unique_ptr<Driver>> driver =
      Driver::Open("libtilec_no_such_driver.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(driver.status().message(),
              HasSubstr("CUDA driver library libtilec_no_such_driver.so.1 "
                        "could not be loaded: "));
}

TEST(DriverTest, LibraryWithoutDriverSymbolsIsRejected) {
  absl::StatusOr<std::unique_ptr<Driver>> driver = Driver::Open("libm.so.6");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(driver.status().message(), HasSubstr("lacks symbol cuInit"));
}

TEST(DriverTest, CuResultsMapToStatusCodes) {
  EXPECT_EQ(StatusCodeForCuResult(cu::CUDA_SUCCESS), absl::StatusCode::kOk);
  EXPECT_EQ(StatusCodeForCuResult(cu::CUDA_ERROR_INVALID_PTX),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusCodeForCuResult(cu::CUDA_ERROR_NO_DEVICE),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StatusCodeForCuResult(cu::CUDA_ERROR_OUT_OF_MEMORY),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusCodeForCuResult(999), absl::StatusCode::kInternal);
}

TEST(DriverTest, GetIsStable) {
  absl::StatusOr<const Driver *> first = Driver::Get();
  absl::StatusOr<const Driver *> second = Driver::Get();
  EXPECT_EQ(first.status(), second.status());
  if (first.ok())
    EXPECT_EQ(*first, *second);
}

class NoDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (Driver::Get().ok())
      GTEST_SKIP() << "a CUDA driver is installed; the no-driver path is "
                      "not reachable here";
  }
};

TEST_F(NoDriverTest, GetExplainsWhy) {
  absl::Status status = Driver::Get().status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  // Either libcuda.so.1 is missing or cuInit found no device.
  EXPECT_THAT(status.message(),
              ::testing::AnyOf(HasSubstr("libcuda.so.1"), HasSubstr("cuInit")));
  EXPECT_FALSE(DeviceAvailable());
}

TEST_F(NoDriverTest, ModuleLoadFailsCleanly) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(".version 7.0\n", kMetadata);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(NoDriverTest, DefaultTargetAndEmbeddedFailCleanly) {
  EXPECT_EQ(DefaultTarget().status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(LoadEmbedded("anything").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ModuleTest, MetadataErrorsNeedNoDriver) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      Module::Load(".version 7.0\n", "{\"format\": ");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(module.status().message(), HasSubstr("malformed JSON at byte"));
}

// The library embeds whatever kernels_dsl/ holds; an unknown name is
// reported with the list of what is there, before any driver is needed.
TEST(EmbeddedTest, UnknownModuleListsWhatIsEmbedded) {
  absl::StatusOr<std::unique_ptr<Module>> module =
      LoadEmbedded("no_such_module", "sm_90a");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(module.status().message(),
              HasSubstr("no embedded module 'no_such_module' for target "
                        "sm_90a; embedded: "));
}

TEST(EmbeddedTest, TargetsForComputeCapabilities) {
  EXPECT_EQ(TargetForComputeCapability(8, 0), "sm_80");
  EXPECT_EQ(TargetForComputeCapability(8, 9), "sm_80");
  EXPECT_EQ(TargetForComputeCapability(9, 0), "sm_90a");
  EXPECT_EQ(TargetForComputeCapability(10, 0), "sm_100a");
  EXPECT_EQ(TargetForComputeCapability(12, 0), "sm_80");
  EXPECT_EQ(TargetForComputeCapability(7, 5), "");
}

} // namespace
} // namespace tilec
