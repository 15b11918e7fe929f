// The C API as FFI callers see it, through the shared library.
#include "runtime/tilec_c_api.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
  ExpectError(tilec_kernel_launch_tiles(nullptr, grid, nullptr, 0, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_kernel_launch_tiles: argument 'kernel' is NULL");
  ExpectError(
      tilec_kernel_launch_tiles(kSomeKernel, nullptr, nullptr, 0, nullptr),
      TILEC_ERROR_INVALID_ARGUMENT, "argument 'tiles' is NULL");
  ExpectError(tilec_kernel_launch_tiles(kSomeKernel, grid, nullptr, 2, nullptr),
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

// A tensor description whose arrays live as long as the object.
struct CTensor {
  CTensor(uintptr_t address, int dtype, std::vector<int64_t> dims,
          std::vector<int64_t> steps = {})
      : shape(std::move(dims)), strides(std::move(steps)) {
    c.data = reinterpret_cast<void *>(address);
    c.dtype = dtype;
    c.ndim = static_cast<int32_t>(shape.size());
    c.shape = shape.data();
    c.strides = strides.empty() ? nullptr : strides.data();
  }
  std::vector<int64_t> shape, strides;
  tilec_tensor c;
};

// Distinct aligned addresses, never dereferenced: every case below fails
// before the driver is asked about them.
constexpr uintptr_t kX = uintptr_t{1} << 30, kValues = uintptr_t{2} << 30,
                    kIndices = uintptr_t{3} << 30;

TEST(CApiTest, TopKTensorRejectsEachBadArgument) {
  CTensor x(kX, TILEC_DTYPE_F32, {8, 1000});
  CTensor values(kValues, TILEC_DTYPE_F32, {8, 16});
  CTensor indices(kIndices, TILEC_DTYPE_I64, {8, 16});
  auto topk = [&](const tilec_tensor *a, int64_t k, const tilec_tensor *v,
                  const tilec_tensor *i) {
    return tilec_topk_tensor(a, k, v, i, nullptr);
  };
  ExpectError(topk(nullptr, 16, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_topk_tensor: argument 'x' is NULL");
  ExpectError(topk(&x.c, 16, &values.c, nullptr), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'indices' is NULL");

  CTensor unknown(kX, 42, {8, 1000});
  ExpectError(topk(&unknown.c, 16, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' has dtype 42; expected a TILEC_DTYPE_* value");
  CTensor deep(kX, TILEC_DTYPE_F32, std::vector<int64_t>(9, 1));
  ExpectError(topk(&deep.c, 1, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' has ndim 9; expected 0 to 8");
  CTensor shapeless = x;
  shapeless.c.shape = nullptr;
  ExpectError(topk(&shapeless.c, 16, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'x' has a NULL shape");

  CTensor half(kX, TILEC_DTYPE_F16, {8, 1000});
  ExpectError(topk(&half.c, 16, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_topk_tensor: argument 'x' has dtype f16; expected f32");
  CTensor transposed(kX, TILEC_DTYPE_F32, {8, 1000}, {1, 8});
  ExpectError(topk(&transposed.c, 16, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' must be contiguous (row-major)");
  ExpectError(topk(&x.c, 0, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'k' must be in [1, n=1000], got 0");
  ExpectError(topk(&x.c, 1001, &values.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'k' must be in");
  CTensor small(kValues, TILEC_DTYPE_F32, {8, 8});
  ExpectError(topk(&x.c, 16, &small.c, &indices.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'values' has shape (8, 8); expected (8, 16)");
  CTensor narrow(kIndices, TILEC_DTYPE_I32, {8, 16});
  ExpectError(topk(&x.c, 16, &values.c, &narrow.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'indices' has dtype i32; expected i64");
  ExpectError(topk(&x.c, 16, &values.c, &values.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'indices' has dtype f32; expected i64");
  CTensor aliased(kValues, TILEC_DTYPE_I64, {8, 16});
  ExpectError(topk(&x.c, 16, &values.c, &aliased.c),
              TILEC_ERROR_INVALID_ARGUMENT,
              "arguments 'values' and 'indices' overlap in memory");
}

TEST(CApiTest, PagedDecodePlanNamesTheKernelAndSpan) {
  int pages = 0;
  // 8 sequences of 8 kv heads, 64 pages: 64 programs on 8 warps, unsplit.
  EXPECT_STREQ(tilec_paged_decode_plan(8, 32, 8, 128, 64, &pages),
               "paged_decode_d128_w8");
  EXPECT_EQ(pages, 64);
  // 32 sequences: 256 programs, the 4-warp kernel over the whole table.
  EXPECT_STREQ(tilec_paged_decode_plan(32, 32, 8, 128, 128, &pages),
               "paged_decode_d128");
  EXPECT_EQ(pages, 128);
  // 40 query heads per kv head are three groups of 16: 96 programs.
  EXPECT_STREQ(tilec_paged_decode_plan(32, 40, 1, 128, 100, nullptr),
               "paged_decode_d128_w8");
  EXPECT_STREQ(tilec_paged_decode_plan(8, 16, 4, 64, 125, &pages),
               "paged_decode_d64");
  EXPECT_EQ(pages, 32);
  // What the decode does not take has no plan.
  EXPECT_EQ(tilec_paged_decode_plan(8, 30, 8, 128, 64, &pages), nullptr);
  EXPECT_EQ(tilec_paged_decode_plan(8, 32, 8, 96, 64, &pages), nullptr);
  EXPECT_EQ(tilec_paged_decode_plan(0, 32, 8, 128, 64, &pages), nullptr);
  EXPECT_EQ(tilec_paged_decode_plan(8, 32, 0, 128, 64, &pages), nullptr);
  EXPECT_EQ(tilec_paged_decode_plan(8, 32, 8, 128, 0, &pages), nullptr);
  EXPECT_EQ(tilec_paged_decode_plan(8, 32, 8, 128, int64_t(1) << 31, &pages),
            nullptr);
  EXPECT_EQ(tilec_paged_decode_plan(int64_t(1) << 40, 32, 8, 128, 64, &pages),
            nullptr);
}

TEST(CApiTest, TopKStrategyNamesThePath) {
  EXPECT_STREQ(tilec_topk_strategy(16384, 64, 64), "rows");
  EXPECT_STREQ(tilec_topk_strategy(1, 1000, 64), "rows_few");
  EXPECT_STREQ(tilec_topk_strategy(16384, 64, 8), "rows_select");
  EXPECT_STREQ(tilec_topk_strategy(128, 4096, 1), "top1");
  EXPECT_STREQ(tilec_topk_strategy(1, 131072, 64), "split");
  EXPECT_STREQ(tilec_topk_strategy(1, 1000000, 2048), "long_rows");
  EXPECT_STREQ(tilec_topk_strategy(1024, 50257, 1024), "long_rows");
  EXPECT_STREQ(tilec_topk_strategy(4096, 50257, 1024), "row");
  EXPECT_STREQ(tilec_topk_strategy(1024, 50257, 4096), "large_k");
}

TEST(CApiTest, SoftmaxTensorRejectsEachBadArgument) {
  CTensor x(kX, TILEC_DTYPE_BF16, {4, 100});
  CTensor y(kValues, TILEC_DTYPE_BF16, {4, 100});
  ExpectError(tilec_softmax_tensor(&x.c, nullptr, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_softmax_tensor: argument 'y' is NULL");
  CTensor ints(kX, TILEC_DTYPE_I32, {4, 100});
  ExpectError(tilec_softmax_tensor(&ints.c, &y.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' has dtype i32; expected f32 or bf16");
  CTensor f32(kValues, TILEC_DTYPE_F32, {4, 100});
  ExpectError(tilec_softmax_tensor(&x.c, &f32.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'y' has dtype f32; expected bf16");
  CTensor shorter(kValues, TILEC_DTYPE_BF16, {4, 99});
  ExpectError(tilec_softmax_tensor(&x.c, &shorter.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'y' has shape (4, 99); expected (4, 100)");
  CTensor vector(kX, TILEC_DTYPE_BF16, {400});
  ExpectError(tilec_softmax_tensor(&vector.c, &y.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' must be 2-D, got shape (400,)");
  CTensor overlapping(kX + 8, TILEC_DTYPE_BF16, {4, 100});
  ExpectError(tilec_softmax_tensor(&x.c, &overlapping.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "arguments 'x' and 'y' overlap");
}

TEST(CApiTest, GemmTensorRejectsEachBadArgument) {
  constexpr uintptr_t kW = uintptr_t{4} << 30, kScale = uintptr_t{5} << 30,
                      kY = uintptr_t{6} << 30;
  CTensor x(kX, TILEC_DTYPE_BF16, {128, 32});
  CTensor w(kW, TILEC_DTYPE_BF16, {64, 32});
  CTensor scale(kScale, TILEC_DTYPE_F32, {64});
  CTensor y(kY, TILEC_DTYPE_BF16, {128, 64});
  auto gemm = [](const CTensor &a, const CTensor &b, const CTensor &s,
                 const CTensor &out) {
    return tilec_gemm_tensor(&a.c, &b.c, &s.c, &out.c, nullptr);
  };
  ExpectError(tilec_gemm_tensor(&x.c, &w.c, nullptr, &y.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_gemm_tensor: argument 'scale' is NULL");
  ExpectError(tilec_gemm_tensor(nullptr, &w.c, &scale.c, &y.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'x' is NULL");

  CTensor f32(kX, TILEC_DTYPE_F32, {128, 32});
  ExpectError(gemm(f32, w, scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "tilec_gemm_tensor: argument 'x' has dtype f32; expected bf16 "
              "or f8e4m3");
  CTensor fp8_w(kW, TILEC_DTYPE_F8E4M3, {64, 32});
  ExpectError(gemm(x, fp8_w, scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'w' has dtype f8e4m3; expected bf16");
  CTensor fp8_x(kX, TILEC_DTYPE_F8E4M3, {128, 32});
  ExpectError(gemm(fp8_x, w, scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'w' has dtype bf16; expected f8e4m3");
  CTensor short_k(kW, TILEC_DTYPE_BF16, {64, 31});
  ExpectError(gemm(x, short_k, scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'w' has shape (64, 31); expected (*, 32)");
  CTensor bf16_scale(kScale, TILEC_DTYPE_BF16, {64});
  ExpectError(gemm(x, w, bf16_scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'scale' has dtype bf16; expected f32");
  CTensor long_scale(kScale, TILEC_DTYPE_F32, {65});
  ExpectError(gemm(x, w, long_scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'scale' has shape (65,); expected (64,)");
  CTensor f32_y(kY, TILEC_DTYPE_F32, {128, 64});
  ExpectError(gemm(x, w, scale, f32_y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'y' has dtype f32; expected bf16");
  CTensor wide_y(kY, TILEC_DTYPE_BF16, {128, 65});
  ExpectError(gemm(x, w, scale, wide_y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'y' has shape (128, 65); expected (128, 64)");
  CTensor transposed(kX, TILEC_DTYPE_BF16, {128, 32}, {1, 128});
  ExpectError(gemm(transposed, w, scale, y), TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' must be contiguous (row-major)");
  CTensor empty(kX, TILEC_DTYPE_BF16, {0, 32});
  ExpectError(gemm(empty, w, scale, CTensor(kY, TILEC_DTYPE_BF16, {0, 64})),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' has shape (0, 32); expected (M, K) with M >= 1");
  CTensor over_x(kX + 64, TILEC_DTYPE_BF16, {128, 64});
  ExpectError(gemm(x, w, scale, over_x), TILEC_ERROR_INVALID_ARGUMENT,
              "arguments 'x' and 'y' overlap in memory");
  CTensor over_scale(kScale + 128, TILEC_DTYPE_BF16, {128, 64});
  ExpectError(gemm(x, w, scale, over_scale), TILEC_ERROR_INVALID_ARGUMENT,
              "arguments 'scale' and 'y' overlap in memory");

  // Rows beyond 65535 tiles of 128 are a limit of the kernels.
  const int64_t rows = int64_t{65535} * 128 + 1;
  CTensor tall(kX, TILEC_DTYPE_BF16, {rows, 1});
  CTensor narrow(kW, TILEC_DTYPE_BF16, {1, 1});
  CTensor one(kScale, TILEC_DTYPE_F32, {1});
  CTensor tall_y(kY, TILEC_DTYPE_BF16, {rows, 1});
  ExpectError(gemm(tall, narrow, one, tall_y), TILEC_ERROR_UNIMPLEMENTED,
              "argument 'x' has 8388481 rows; the GEMM kernels take at most "
              "8388480 (65535 tiles of 128)");
}

TEST(CApiTest, PagedDecodeTensorRejectsEachBadArgument) {
  constexpr uintptr_t kKv = uintptr_t{4} << 30, kTable = uintptr_t{5} << 30,
                      kLens = uintptr_t{6} << 30, kOut = uintptr_t{7} << 30;
  CTensor q(kX, TILEC_DTYPE_BF16, {2, 8, 64});
  CTensor kv(kKv, TILEC_DTYPE_BF16, {10, 16, 2, 128});
  CTensor table(kTable, TILEC_DTYPE_I32, {2, 5});
  CTensor lens(kLens, TILEC_DTYPE_I32, {2});
  CTensor out(kOut, TILEC_DTYPE_BF16, {2, 8, 64});
  auto decode = [](const CTensor &a, const CTensor &b, const CTensor &c,
                   const CTensor &d, const CTensor &e) {
    return tilec_paged_decode_tensor(&a.c, &b.c, &c.c, &d.c, &e.c, nullptr);
  };
  ExpectError(
      tilec_paged_decode_tensor(&q.c, &kv.c, nullptr, &lens.c, &out.c, nullptr),
      TILEC_ERROR_INVALID_ARGUMENT,
      "tilec_paged_decode_tensor: argument 'block_table' is NULL");
  ExpectError(
      decode(CTensor(kX, TILEC_DTYPE_F16, {2, 8, 64}), kv, table, lens, out),
      TILEC_ERROR_INVALID_ARGUMENT,
      "argument 'query' has dtype f16; expected bf16");
  ExpectError(decode(q, CTensor(kKv, TILEC_DTYPE_BF16, {10, 8, 2, 128}), table,
                     lens, out),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'kv_cache' has shape");
  ExpectError(decode(q, CTensor(kKv, TILEC_DTYPE_BF16, {10, 16, 3, 128}), table,
                     lens, out),
              TILEC_ERROR_INVALID_ARGUMENT,
              "3 kv heads, which do not divide the query's 8 heads");
  ExpectError(
      decode(q, kv, CTensor(kTable, TILEC_DTYPE_I32, {3, 5}), lens, out),
      TILEC_ERROR_INVALID_ARGUMENT, "argument 'block_table' has shape");
  ExpectError(decode(q, kv, table, CTensor(kLens, TILEC_DTYPE_I64, {2}), out),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'seq_lens' has dtype i64; expected i32");
  ExpectError(
      decode(q, kv, table, lens, CTensor(kKv, TILEC_DTYPE_BF16, {2, 8, 64})),
      TILEC_ERROR_INVALID_ARGUMENT, "arguments 'kv_cache' and 'out' overlap");
  CTensor q96(kX, TILEC_DTYPE_BF16, {2, 8, 96});
  ExpectError(decode(q96, CTensor(kKv, TILEC_DTYPE_BF16, {10, 16, 2, 192}),
                     table, lens, CTensor(kOut, TILEC_DTYPE_BF16, {2, 8, 96})),
              TILEC_ERROR_UNIMPLEMENTED,
              "argument 'query' has head dim 96; the paged-decode kernels "
              "take 64 or 128");
}

TEST(CApiTest, PointerEntryPointsNameTheirArguments) {
  int64_t indices[4];
  float values[4];
  ExpectError(tilec_topk(nullptr, 1, 4, 2, values, indices, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "tilec_topk: argument 'x'");
  ExpectError(tilec_topk(values, 1, 4, 0, values, indices, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'k'");
  ExpectError(tilec_softmax(values, values, 0, 4, TILEC_DTYPE_F32, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'rows'");
  ExpectError(tilec_softmax(values, values, 1, 4, TILEC_DTYPE_I32, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'dtype' must be");
  // Sizes are int64_t: a value past 2^31 arrives intact and is named, not
  // truncated into a small (wrong) size.
  const int64_t two31 = int64_t{1} << 31;
  ExpectError(tilec_softmax(values, values, two31, 4, TILEC_DTYPE_F32, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'rows' must be in [1, 2^31 - 1], got 2147483648");
  ExpectError(
      tilec_softmax(values, values, 1, two31 + 4, TILEC_DTYPE_F32, nullptr),
      TILEC_ERROR_INVALID_ARGUMENT,
      "argument 'cols' must be in [1, 2^31 - 1], got 2147483652");
  ExpectError(tilec_topk(values, two31, 4, 2, values, indices, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'batch' must be in [1, 2^31 - 1], got 2147483648");
  ExpectError(tilec_topk(values, 1, two31 + 4, 2, values, indices, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'n' must be in [1, 2^31 - 1], got 2147483652");
  ExpectError(tilec_topk(values, 1, 4, two31 + 2, values, indices, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT, "argument 'k' must be in [1, n=4]");
}

TEST(CApiTest, TensorEntryPointsRejectExtentsPast32Bits) {
  const int64_t two31 = int64_t{1} << 31;
  CTensor x(kX, TILEC_DTYPE_F32, {two31, 2});
  CTensor y(kValues, TILEC_DTYPE_F32, {two31, 2});
  ExpectError(tilec_softmax_tensor(&x.c, &y.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' has extent 2147483648 in dimension 0");
  CTensor values(kValues, TILEC_DTYPE_F32, {two31, 1});
  CTensor indices(kIndices, TILEC_DTYPE_I64, {two31, 1});
  ExpectError(tilec_topk_tensor(&x.c, 1, &values.c, &indices.c, nullptr),
              TILEC_ERROR_INVALID_ARGUMENT,
              "argument 'x' has extent 2147483648 in dimension 0");
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
