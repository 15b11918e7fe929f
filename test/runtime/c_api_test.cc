// The C API as FFI callers see it, through the shared library.
#include "runtime/tilec_c_api.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

extern "C" int tilec_c_header_check_arg_size(void);

namespace {

using ::testing::HasSubstr;

constexpr char kMetadata[] = R"({"format": "tilec-metadata-v1",
  "target": "sm_80", "kernels": [{"name": "k", "block": [32, 1, 1],
  "shared_bytes": 0, "cluster": [1, 1, 1],
  "params": [{"name": "p", "kind": "ptr"}], "tensor_maps": []}]})";

// A handle value never dereferenced: null checks come first.
tilec_module *const kSomeModule = reinterpret_cast<tilec_module *>(0x10);
tilec_kernel *const kSomeKernel = reinterpret_cast<tilec_kernel *>(0x10);

void ExpectError(int code, int expected, const std::string &message) {
  EXPECT_EQ(code, expected);
  EXPECT_THAT(tilec_last_error(), HasSubstr(message));
}

TEST(CApiTest, HeaderIsValidC) {
  EXPECT_EQ(tilec_c_header_check_arg_size(),
            static_cast<int>(sizeof(tilec_arg)));
  EXPECT_EQ(sizeof(tilec_arg), 16u);
}

TEST(CApiTest, NullArgumentsAreNamed) {
  tilec_module *module = nullptr;
  tilec_kernel *kernel = nullptr;
  const char *text = nullptr;
  unsigned grid[3] = {1, 1, 1};
  ExpectError(tilec_device_available(nullptr), TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_device_available: argument 'out' is NULL");
  ExpectError(tilec_default_target(nullptr), TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_default_target: argument 'out' is NULL");
  ExpectError(tilec_module_load(nullptr, kMetadata, &module),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_module_load: argument 'ptx' is NULL");
  ExpectError(tilec_module_load("", nullptr, &module),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'metadata_json' is NULL");
  ExpectError(tilec_module_load("", kMetadata, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'out' is NULL");
  ExpectError(tilec_module_load_embedded(nullptr, nullptr, &module),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_module_load_embedded: argument 'name' is NULL");
  ExpectError(tilec_module_load_embedded("m", "sm_80", nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'out' is NULL");
  ExpectError(tilec_embedded_count(nullptr), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'out' is NULL");
  ExpectError(tilec_embedded_entry(0, nullptr, &text),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'name' is NULL");
  ExpectError(tilec_module_unload(nullptr), TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_module_unload: argument 'module' is NULL");
  ExpectError(tilec_module_get_kernel(nullptr, "k", &kernel),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'module' is NULL");
  ExpectError(tilec_module_get_kernel(kSomeModule, nullptr, &kernel),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'name' is NULL");
  ExpectError(tilec_module_get_kernel(kSomeModule, "k", nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'out' is NULL");
  ExpectError(tilec_kernel_info_json(nullptr, &text),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'kernel' is NULL");
  ExpectError(tilec_kernel_info_json(kSomeKernel, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'out' is NULL");
  ExpectError(tilec_kernel_launch(nullptr, grid, nullptr, 0, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_kernel_launch: argument 'kernel' is NULL");
  ExpectError(tilec_kernel_launch(kSomeKernel, nullptr, nullptr, 0, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'grid' is NULL");
  ExpectError(tilec_kernel_launch(kSomeKernel, grid, nullptr, 2, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'args' is NULL");
  ExpectError(
      tilec_kernel_launch_clusters(nullptr, grid, grid, nullptr, 0, nullptr),
      TILEC_ERROR_INVALID_ARGUMENT,
      "tilec_kernel_launch_clusters: argument 'kernel' is NULL");
  ExpectError(tilec_kernel_launch_clusters(kSomeKernel, grid, nullptr, nullptr,
                                           0, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'cluster' is NULL");
  ExpectError(tilec_kernel_launch_clusters(kSomeKernel, grid, grid, nullptr, 1,
                                           nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'args' is NULL");
  int clusters = 0;
  ExpectError(tilec_kernel_max_active_clusters(nullptr, grid, &clusters),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'kernel' is NULL");
  ExpectError(tilec_kernel_max_active_clusters(kSomeKernel, grid, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'out' is NULL");
}

TEST(CApiTest, UnknownArgumentKindIsNamed) {
  // Arguments are converted before the kernel handle is used.
  unsigned grid[3] = {1, 1, 1};
  tilec_arg args[2] = {};
  args[0].kind = TILEC_ARG_I32;
  args[1].kind = 42;
  ExpectError(tilec_kernel_launch(kSomeKernel, grid, args, 2, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "args[1].kind is 42; expected TILEC_ARG_PTR (0) through "
              "TILEC_ARG_TENSORMAP (5)");
}

TEST(CApiTest, SuccessClearsTheLastError) {
  ASSERT_NE(tilec_module_unload(nullptr), TILEC_OK);
  ASSERT_STRNE(tilec_last_error(), "");
  size_t count = 0;
  ASSERT_EQ(tilec_embedded_count(&count), TILEC_OK);
  EXPECT_STREQ(tilec_last_error(), "");
}

TEST(CApiTest, EmbeddedIndexOutOfRange) {
  size_t count = 0;
  ASSERT_EQ(tilec_embedded_count(&count), TILEC_OK);
  const char *name = nullptr;
  const char *target = nullptr;
  ExpectError(tilec_embedded_entry(count, &name, &target),
              TILEC_ERROR_INVALID_ARGUMENT,
              "index " + std::to_string(count) + " is out of range; " +
                  std::to_string(count) + " modules are embedded");
}

TEST(CApiTest, BadMetadataIsReportedWithoutADevice) {
  tilec_module *module = nullptr;
  ExpectError(tilec_module_load("", "[1,", &module),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_module_load: metadata: malformed JSON at byte 3");
  EXPECT_EQ(module, nullptr);
}

TEST(CApiTest, DeviceAvailabilityMatchesLoading) {
  int available = -1;
  ASSERT_EQ(tilec_device_available(&available), TILEC_OK);
  ASSERT_TRUE(available == 0 || available == 1);
  if (available)
    GTEST_SKIP() << "a CUDA device is present; the no-device errors are "
                    "covered by the GPU tests' success paths";
  tilec_module *module = nullptr;
  ExpectError(tilec_module_load(".version 7.0\n", kMetadata, &module),
              TILEC_ERROR_FAILED_PRECONDITION, "tilec_module_load: ");
  EXPECT_EQ(module, nullptr);
  ExpectError(tilec_synchronize(), TILEC_ERROR_FAILED_PRECONDITION,
              "tilec_synchronize: ");
  const char *target = nullptr;
  ExpectError(tilec_default_target(&target), TILEC_ERROR_FAILED_PRECONDITION,
              "tilec_default_target: ");
}

} // namespace
