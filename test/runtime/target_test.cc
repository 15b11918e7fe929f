// Which GPUs a module's target runs on: pure, no driver or GPU needed.
#include "runtime/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/embedded.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

ModuleInfo Module(const char *target, std::vector<const char *> kernels) {
  ModuleInfo info;
  info.target = target;
  for (const char *name : kernels) {
    KernelInfo kernel;
    kernel.name = name;
    kernel.target = target;
    info.kernels.push_back(kernel);
  }
  return info;
}

TEST(TargetTest, ArchitectureSpecificTargetsNeedTheirCapability) {
  EXPECT_EQ(RequiredComputeCapability("sm_100a"), std::make_pair(10, 0));
  EXPECT_EQ(RequiredComputeCapability("sm_90a"), std::make_pair(9, 0));
  EXPECT_EQ(RequiredComputeCapability("sm_80"), std::nullopt);
  EXPECT_EQ(RequiredComputeCapability("sm_a"), std::nullopt);
  EXPECT_EQ(RequiredComputeCapability("compute_100a"), std::nullopt);
}

TEST(TargetTest, Sm100aRefusedOnHopperNamingKernelAndDevice) {
  absl::Status status =
      CheckTargetRunsOn(Module("sm_100a", {"gemm_bf16"}), 9, 0);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("kernel 'gemm_bf16' is compiled "
                                          "for sm_100a"));
  EXPECT_THAT(status.message(), HasSubstr("compute capability 10.0"));
  EXPECT_THAT(status.message(), HasSubstr("this GPU is 9.0"));
  EXPECT_THAT(status.message(), HasSubstr("compiled for sm_90a"));
}

TEST(TargetTest, ListsEveryKernelOfTheModule) {
  absl::Status status =
      CheckTargetRunsOn(Module("sm_100a", {"gemm_bf16", "gemm_fp8"}), 12, 0);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("kernels 'gemm_bf16', 'gemm_fp8' are compiled"));
  EXPECT_THAT(status.message(), HasSubstr("this GPU is 12.0"));
  // Compute capability 10.3 is not 10.0: "a" PTX is not forward compatible.
  EXPECT_FALSE(CheckTargetRunsOn(Module("sm_100a", {"k"}), 10, 3).ok());
  EXPECT_FALSE(CheckTargetRunsOn(Module("sm_90a", {"k"}), 10, 0).ok());
}

TEST(TargetTest, MatchingOrPortableTargetsRun) {
  EXPECT_TRUE(CheckTargetRunsOn(Module("sm_100a", {"k"}), 10, 0).ok());
  EXPECT_TRUE(CheckTargetRunsOn(Module("sm_90a", {"k"}), 9, 0).ok());
  EXPECT_TRUE(CheckTargetRunsOn(Module("sm_80", {"k"}), 9, 0).ok());
  EXPECT_TRUE(CheckTargetRunsOn(Module("sm_80", {"k"}), 10, 0).ok());
}

TEST(TargetTest, DeviceTargetIsOneThatRunsThere) {
  // What the runtime picks for a device always passes the check.
  for (auto [major, minor] :
       {std::pair{8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}}) {
    std::string target = TargetForComputeCapability(major, minor);
    ASSERT_FALSE(target.empty());
    EXPECT_TRUE(
        CheckTargetRunsOn(Module(target.c_str(), {"k"}), major, minor).ok())
        << target << " on " << major << "." << minor;
  }
}

} // namespace
} // namespace tilec
