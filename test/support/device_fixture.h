// A GoogleTest fixture for tests that need a CUDA device: skips (saying
// why) when there is no driver or device, makes the primary context
// current, and frees the device buffers a test allocates.
#ifndef TILEC_TEST_SUPPORT_DEVICE_FIXTURE_H_
#define TILEC_TEST_SUPPORT_DEVICE_FIXTURE_H_

#include <vector>

#include "runtime/context.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "gtest/gtest.h"

namespace tilec {

// `Base` is ::testing::Test or ::testing::TestWithParam<...>.
template <typename Base> class DeviceFixture : public Base {
protected:
  void SetUp() override {
    absl::StatusOr<const Driver *> driver = Driver::Get();
    if (!driver.ok())
      GTEST_SKIP() << "no usable CUDA driver: " << driver.status().message();
    if (!DeviceAvailable())
      GTEST_SKIP() << "the CUDA driver reports no device";
    driver_ = *driver;
    ASSERT_TRUE(CurrentOrPrimaryContext(*driver_).ok());
  }

  void TearDown() override {
    for (cu::CUdeviceptr p : buffers_)
      driver_->api().cuMemFree_v2(p);
  }

  // A device buffer freed when the test ends.
  cu::CUdeviceptr Alloc(size_t bytes) {
    cu::CUdeviceptr p = 0;
    EXPECT_EQ(driver_->api().cuMemAlloc_v2(&p, bytes), 0);
    buffers_.push_back(p);
    return p;
  }

  const Driver *driver_ = nullptr;
  std::vector<cu::CUdeviceptr> buffers_;
};

} // namespace tilec

#endif // TILEC_TEST_SUPPORT_DEVICE_FIXTURE_H_
