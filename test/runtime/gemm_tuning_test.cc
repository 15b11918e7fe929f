// The GEMM tuning cache without a GPU: keys, the file round trip, stale and
// malformed files, and where the file goes.
#include "runtime/gemm_tuning.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace tilec {
namespace {

namespace fs = std::filesystem;

class GemmTuningTest : public testing::Test {
protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("tilec_gemm_tuning_" +
         std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string File() const { return (dir_ / "sub" / "tuning.json").string(); }
  void Write(const std::string &text) {
    fs::create_directories(fs::path(File()).parent_path());
    std::ofstream(File()) << text;
  }
  static GemmTuningKey Key(int64_t m, std::string kernels = "abc") {
    return {"NVIDIA H200", std::move(kernels), DType::kF8E4M3, m, 8192, 8192};
  }
  fs::path dir_;
};

TEST_F(GemmTuningTest, KeyNamesGpuKernelsDtypeAndShape) {
  EXPECT_EQ(GemmTuningKeyString(Key(32)),
            "NVIDIA H200|abc|f8e4m3|32x8192x8192");
}

TEST_F(GemmTuningTest, MissingFileIsAnEmptyCache) {
  GemmTuningCache cache(File());
  EXPECT_TRUE(cache.Load().ok());
  EXPECT_FALSE(cache.Find(Key(32)).has_value());
}

TEST_F(GemmTuningTest, RecordsReachALaterProcess) {
  GemmTuningCache first(File());
  ASSERT_TRUE(first.Load().ok());
  ASSERT_TRUE(first.Record(Key(32), "gemm_fp8_64x64_s8").ok());
  ASSERT_TRUE(first.Record(Key(4096), "gemm_fp8_128x256").ok());
  // A second cache over the same file stands for the next process.
  GemmTuningCache second(File());
  ASSERT_TRUE(second.Load().ok());
  EXPECT_EQ(second.Find(Key(32)), "gemm_fp8_64x64_s8");
  EXPECT_EQ(second.Find(Key(4096)), "gemm_fp8_128x256");
  EXPECT_FALSE(second.Find(Key(64)).has_value());
  // No temporary file is left behind.
  int files = 0;
  for (const auto &entry :
       fs::directory_iterator(fs::path(File()).parent_path()))
    files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(GemmTuningTest, OtherKernelsOrGpusDoNotMatch) {
  GemmTuningCache cache(File());
  ASSERT_TRUE(cache.Record(Key(32, "old-digest"), "gemm_fp8_64x64").ok());
  EXPECT_FALSE(cache.Find(Key(32, "new-digest")).has_value());
  GemmTuningKey other_gpu = Key(32, "old-digest");
  other_gpu.gpu = "NVIDIA H100";
  EXPECT_FALSE(cache.Find(other_gpu).has_value());
  GemmTuningKey other_dtype = Key(32, "old-digest");
  other_dtype.dtype = DType::kBF16;
  EXPECT_FALSE(cache.Find(other_dtype).has_value());
}

TEST_F(GemmTuningTest, MalformedFilesAreIgnoredThenReplaced) {
  for (const std::string text :
       {"not json", "[]", "{\"version\": 2, \"entries\": {}}",
        "{\"version\": 1, \"entries\": {\"k\": 3}}", "{\"version\": 1}"}) {
    SCOPED_TRACE(text);
    Write(text);
    GemmTuningCache cache(File());
    absl::Status status = cache.Load();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    EXPECT_FALSE(cache.Find(Key(32)).has_value());
    ASSERT_TRUE(cache.Record(Key(32), "gemm_fp8").ok());
    GemmTuningCache reread(File());
    EXPECT_TRUE(reread.Load().ok());
    EXPECT_EQ(reread.Find(Key(32)), "gemm_fp8");
  }
}

TEST_F(GemmTuningTest, KeepsEntriesOfTheFileItLoaded) {
  Write("{\"version\": 1, \"entries\": {\"NVIDIA H200|abc|f8e4m3|"
        "1x2x3\": \"gemm_fp8_64x64\"}}");
  GemmTuningCache cache(File());
  ASSERT_TRUE(cache.Load().ok());
  GemmTuningKey small = Key(1);
  small.n = 2;
  small.k = 3;
  EXPECT_EQ(cache.Find(small), "gemm_fp8_64x64");
  ASSERT_TRUE(cache.Record(Key(32), "gemm_fp8").ok());
  GemmTuningCache reread(File());
  ASSERT_TRUE(reread.Load().ok());
  EXPECT_EQ(reread.Find(small), "gemm_fp8_64x64");
  EXPECT_EQ(reread.Find(Key(32)), "gemm_fp8");
}

TEST_F(GemmTuningTest, PathFollowsTheEnvironment) {
  auto set = [](const char *name, const char *value) {
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  };
  const char *saved[3] = {std::getenv("TILEC_CACHE_DIR"),
                          std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")};
  std::string copies[3];
  for (int i = 0; i < 3; ++i)
    if (saved[i])
      copies[i] = saved[i];
  set("TILEC_CACHE_DIR", "/a");
  set("XDG_CACHE_HOME", "/b");
  set("HOME", "/c");
  EXPECT_EQ(DefaultGemmTuningPath(), "/a/gemm_tuning.json");
  set("TILEC_CACHE_DIR", nullptr);
  EXPECT_EQ(DefaultGemmTuningPath(), "/b/tilec/gemm_tuning.json");
  set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(DefaultGemmTuningPath(), "/c/.cache/tilec/gemm_tuning.json");
  set("HOME", nullptr);
  EXPECT_EQ(DefaultGemmTuningPath(), "");
  const char *names[3] = {"TILEC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i)
    set(names[i], saved[i] ? copies[i].c_str() : nullptr);
}

TEST_F(GemmTuningTest, AutotuneIsOptIn) {
  const char *saved = std::getenv("TILEC_GEMM_AUTOTUNE");
  std::string copy = saved ? saved : "";
  unsetenv("TILEC_GEMM_AUTOTUNE");
  EXPECT_FALSE(GemmAutotuneEnabled());
  for (const char *on : {"1", "true", "ON"}) {
    setenv("TILEC_GEMM_AUTOTUNE", on, 1);
    EXPECT_TRUE(GemmAutotuneEnabled()) << on;
  }
  for (const char *off : {"0", "false", ""}) {
    setenv("TILEC_GEMM_AUTOTUNE", off, 1);
    EXPECT_FALSE(GemmAutotuneEnabled()) << off;
  }
  if (saved)
    setenv("TILEC_GEMM_AUTOTUNE", copy.c_str(), 1);
  else
    unsetenv("TILEC_GEMM_AUTOTUNE");
}

} // namespace
} // namespace tilec
