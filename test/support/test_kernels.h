// The test-only kernels of test/gpu/kernels/, which the build compiles
// into kernels/<name>.ptx and kernels/<name>.json next to the test
// binaries.
#ifndef TILEC_TEST_SUPPORT_TEST_KERNELS_H_
#define TILEC_TEST_SUPPORT_TEST_KERNELS_H_

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <unistd.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/module.h"

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

} // namespace tilec

#endif // TILEC_TEST_SUPPORT_TEST_KERNELS_H_
