// The GPU tests on the CPU driver (tools/cpu-driver): the emulated driver
// is installed before any test reaches the runtime, so every test runs its
// kernels in the tile interpreter instead of skipping for want of a GPU.
#include <cstdio>
#include <string>

#include "runtime/driver.h"
#include "tools/cpu-driver/CpuDriver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

int main(int argc, char **argv) {
  ::testing::InitGoogleMock(&argc, argv);
  absl::Status installed = tilec::Driver::Install(tilec::cpu::CpuDriverApi());
  if (!installed.ok()) {
    std::fprintf(stderr, "cannot install the CPU driver: %s\n",
                 std::string(installed.message()).c_str());
    return 1;
  }
  return RUN_ALL_TESTS();
}
