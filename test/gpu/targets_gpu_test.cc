// Which target's kernels the runtime carries and loads. The embedded-table
// checks need no GPU; the refusal of sm_100a PTX needs a GPU that is not
// compute capability 10.0 and skips otherwise.
#include <string>

#include "runtime/context.h"
#include "runtime/embedded.h"
#include "test/support/device_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

const EmbeddedModule *FindEmbedded(const std::string &name,
                                   const std::string &target) {
  for (const EmbeddedModule &entry : ListEmbedded())
    if (name == entry.name && target == entry.target)
      return &entry;
  return nullptr;
}

// The GEMM source compiles to a different tensor-core family per target.
TEST(EmbeddedGemm, EachTargetHasItsTensorCoreInstructions) {
  const EmbeddedModule *sm100a = FindEmbedded("gemm", "sm_100a");
  ASSERT_NE(sm100a, nullptr) << "gemm@sm_100a is not embedded";
  std::string ptx = sm100a->ptx;
  EXPECT_THAT(ptx, HasSubstr("tcgen05.alloc.cta_group::1"));
  EXPECT_THAT(ptx, HasSubstr("tcgen05.mma.cta_group::1.kind::f16"));
  EXPECT_THAT(ptx, HasSubstr("tcgen05.mma.cta_group::1.kind::f8f6f4"));
  EXPECT_THAT(ptx, HasSubstr("tcgen05.ld.sync.aligned.32x32b"));
  EXPECT_THAT(std::string(sm100a->metadata), HasSubstr("\"sm_100a\""));

  const EmbeddedModule *sm90a = FindEmbedded("gemm", "sm_90a");
  ASSERT_NE(sm90a, nullptr) << "gemm@sm_90a is not embedded";
  EXPECT_THAT(std::string(sm90a->ptx), HasSubstr("wgmma.mma_async"));
  EXPECT_EQ(std::string(sm90a->ptx).find("tcgen05"), std::string::npos);
}

class TargetGpuTest : public DeviceFixture<::testing::Test> {};

// sm_100a PTX on any other GPU is refused before the JIT, naming the
// kernels and the GPU's compute capability.
TEST_F(TargetGpuTest, Sm100aGemmIsRefusedElsewhere) {
  absl::StatusOr<int> major = CurrentDeviceAttribute(
      *driver_, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  absl::StatusOr<int> minor = CurrentDeviceAttribute(
      *driver_, cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  ASSERT_TRUE(major.ok() && minor.ok());
  if (*major == 10 && *minor == 0)
    GTEST_SKIP() << "this GPU runs sm_100a";
  absl::StatusOr<std::unique_ptr<Module>> module =
      LoadEmbedded("gemm", "sm_100a");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(module.status().message(), HasSubstr("'gemm_bf16'"));
  EXPECT_THAT(module.status().message(), HasSubstr("compiled for sm_100a"));
  EXPECT_THAT(module.status().message(),
              HasSubstr("this GPU is " + std::to_string(*major) + "." +
                        std::to_string(*minor)));
  // What the runtime picks for this GPU loads.
  absl::StatusOr<std::unique_ptr<Module>> chosen = LoadEmbedded("gemm");
  EXPECT_TRUE(chosen.ok()) << chosen.status();
}

} // namespace
} // namespace tilec
