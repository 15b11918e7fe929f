// The test-only kernels of test/gpu/kernels/, which the build compiles
// into kernels/<name>.ptx and kernels/<name>.json next to the test
// binaries.
#ifndef TILEC_TEST_SUPPORT_TEST_KERNELS_H_
#define TILEC_TEST_SUPPORT_TEST_KERNELS_H_

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include <unistd.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/module.h"
#include "test/support/device_fixture.h"

namespace tilec {

// The text of kernels/<file> beside the running test binary; empty when
// it cannot be read.
inline std::string ReadBesideTest(const std::string &file) {
  char exe[4096] = {};
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  std::string dir = len > 0 ? std::string(exe, len) : std::string(".");
  dir = dir.substr(0, dir.rfind('/'));
  std::ifstream in(dir + "/kernels/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The module of test/gpu/kernels/<name>.mlir, loaded on the current
// context.
inline absl::StatusOr<std::unique_ptr<Module>>
LoadTestKernels(const std::string &name) {
  std::string ptx = ReadBesideTest(name + ".ptx");
  std::string json = ReadBesideTest(name + ".json");
  if (ptx.empty() || json.empty())
    return absl::NotFoundError(
        absl::StrCat("test kernels '", name, "' not built"));
  return Module::Load(ptx, json);
}

// A DeviceFixture whose tests launch the kernels of one test module,
// loaded into `module_` before each test.
template <typename Base> class TestKernelsFixture : public DeviceFixture<Base> {
protected:
  explicit TestKernelsFixture(std::string name) : name_(std::move(name)) {}

  void SetUp() override {
    DeviceFixture<Base>::SetUp();
    if (this->IsSkipped())
      return;
    absl::StatusOr<std::unique_ptr<Module>> module = LoadTestKernels(name_);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = std::move(*module);
  }

  std::unique_ptr<Module> module_;

private:
  std::string name_;
};

} // namespace tilec

#endif // TILEC_TEST_SUPPORT_TEST_KERNELS_H_
