// What the runtime encodes for a kernel's hidden tensor maps, checked
// without a driver: dimensions innermost first, byte strides, and no map
// for views TMA cannot describe.
#include "runtime/tensor_map.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

// gemm(x: ptr bf16, m: i32, k: i32) with a tensor map over x (m, k).
KernelInfo GemmKernel() {
  KernelInfo kernel;
  kernel.name = "gemm";
  kernel.params = {{"x", ParamKind::kPtr, "bf16"},
                   {"m", ParamKind::kI32, ""},
                   {"k", ParamKind::kI32, ""}};
  TensorMapInfo map;
  map.param = 3;
  map.elem = "bf16";
  map.base = 0;
  map.sizes = {{1, 0}, {2, 0}};
  map.strides = {{2, 0}, {-1, 1}};
  map.box = {8, 64};
  map.swizzle = 128;
  kernel.tensor_maps = {map};
  return kernel;
}

TEST(TensorMapTest, PlansInnermostFirstWithByteStrides) {
  KernelInfo kernel = GemmKernel();
  std::vector<KernelArg> args = {KernelArg::DevicePtr(0x10000),
                                 KernelArg::I32(300), KernelArg::I32(4096)};
  absl::StatusOr<TensorMapRequest> request =
      PlanTensorMap(kernel, kernel.tensor_maps[0], args);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_TRUE(request->encode);
  EXPECT_EQ(request->rank, 2u);
  EXPECT_EQ(request->address, 0x10000u);
  EXPECT_EQ(request->dims[0], 4096u);
  EXPECT_EQ(request->dims[1], 300u);
  EXPECT_EQ(request->strides[0], 8192u);
  EXPECT_EQ(request->box[0], 64u);
  EXPECT_EQ(request->box[1], 8u);
  EXPECT_EQ(request->element_strides[0], 1u);
  EXPECT_EQ(request->data_type, cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(request->swizzle, cu::CU_TENSOR_MAP_SWIZZLE_128B);
}

TEST(TensorMapTest, UnalignedViewsGetNoMap) {
  KernelInfo kernel = GemmKernel();
  // Rows of 4127 bf16 are 8254 bytes apart: not a multiple of 16.
  std::vector<KernelArg> odd_k = {KernelArg::DevicePtr(0x10000),
                                  KernelArg::I32(300), KernelArg::I32(4127)};
  absl::StatusOr<TensorMapRequest> request =
      PlanTensorMap(kernel, kernel.tensor_maps[0], odd_k);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_FALSE(request->encode);
  // A base 8 bytes past a 16-byte boundary.
  std::vector<KernelArg> odd_base = {KernelArg::DevicePtr(0x10008),
                                     KernelArg::I32(300), KernelArg::I32(64)};
  request = PlanTensorMap(kernel, kernel.tensor_maps[0], odd_base);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_FALSE(request->encode);
}

TEST(TensorMapTest, RequiredMapsRefuseUnalignedViews) {
  // A kernel that reads through TMA alone (a CTA pair's GEMM) has no
  // fallback: an unaligned view is an error naming the parameter.
  KernelInfo kernel = GemmKernel();
  kernel.tensor_maps[0].required = true;
  std::vector<KernelArg> odd_k = {KernelArg::DevicePtr(0x10000),
                                  KernelArg::I32(300), KernelArg::I32(4127)};
  absl::StatusOr<TensorMapRequest> request =
      PlanTensorMap(kernel, kernel.tensor_maps[0], odd_k);
  ASSERT_FALSE(request.ok());
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(request.status().message(),
              HasSubstr("reads 'x' through TMA only"));
  std::vector<KernelArg> odd_base = {KernelArg::DevicePtr(0x10008),
                                     KernelArg::I32(300), KernelArg::I32(64)};
  EXPECT_FALSE(PlanTensorMap(kernel, kernel.tensor_maps[0], odd_base).ok());
  std::vector<KernelArg> aligned = {KernelArg::DevicePtr(0x10000),
                                    KernelArg::I32(300), KernelArg::I32(64)};
  request = PlanTensorMap(kernel, kernel.tensor_maps[0], aligned);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_TRUE(request->encode);
}

TEST(TensorMapTest, RejectsSizesNoTensorHas) {
  KernelInfo kernel = GemmKernel();
  std::vector<KernelArg> args = {KernelArg::DevicePtr(0x10000),
                                 KernelArg::I32(0), KernelArg::I32(64)};
  absl::StatusOr<TensorMapRequest> request =
      PlanTensorMap(kernel, kernel.tensor_maps[0], args);
  ASSERT_FALSE(request.ok());
  EXPECT_THAT(request.status().message(),
              HasSubstr("a size of the tensor map over 'x' is argument 1 "
                        "('m') = 0; expected 1 to 2^32"));
}

// x (m, k) fp8 read as a rank-5 map that lands 128-row blocks in wgmma
// order: sizes (m / 128, 8, 2, 8, k), row strides 128, 8, 64 and 1 rows.
KernelInfo WgmmaOrderKernel() {
  KernelInfo kernel;
  kernel.name = "gemm";
  kernel.params = {{"x", ParamKind::kPtr, "f8e4m3"},
                   {"m", ParamKind::kI32, ""},
                   {"k", ParamKind::kI32, ""}};
  TensorMapInfo map;
  map.param = 3;
  map.elem = "f8e4m3";
  map.base = 0;
  map.sizes = {{1, 0, 1, 128}, {-1, 8}, {-1, 2}, {-1, 8}, {2, 0}};
  map.strides = {{2, 0, 128}, {2, 0, 8}, {2, 0, 64}, {2, 0}, {-1, 1}};
  map.box = {1, 8, 2, 8, 128};
  map.swizzle = 128;
  map.whole_outer = true;
  kernel.tensor_maps = {map};
  return kernel;
}

TEST(TensorMapTest, ScalesArgumentsForRowsInWgmmaOrder) {
  KernelInfo kernel = WgmmaOrderKernel();
  std::vector<KernelArg> args = {KernelArg::DevicePtr(0x10000),
                                 KernelArg::I32(1000), KernelArg::I32(4096)};
  absl::StatusOr<TensorMapRequest> request =
      PlanTensorMap(kernel, kernel.tensor_maps[0], args);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_TRUE(request->encode);
  EXPECT_EQ(request->rank, 5u);
  // Innermost first: columns, g, h, w, then the 7 whole 128-row blocks.
  EXPECT_EQ(request->dims[0], 4096u);
  EXPECT_EQ(request->dims[1], 8u);
  EXPECT_EQ(request->dims[2], 2u);
  EXPECT_EQ(request->dims[3], 8u);
  EXPECT_EQ(request->dims[4], 7u);
  EXPECT_EQ(request->strides[0], 4096u);
  EXPECT_EQ(request->strides[1], 64u * 4096);
  EXPECT_EQ(request->strides[2], 8u * 4096);
  EXPECT_EQ(request->strides[3], 128u * 4096);
  EXPECT_EQ(request->box[0], 128u);
  EXPECT_EQ(request->box[4], 1u);
}

TEST(TensorMapTest, WholeOuterMapsOfShortViewsAreNotEncoded) {
  // Under 128 rows hold no whole block: the kernel copies 8-row boxes
  // through its other map, and this one stays zero instead of failing.
  KernelInfo kernel = WgmmaOrderKernel();
  std::vector<KernelArg> args = {KernelArg::DevicePtr(0x10000),
                                 KernelArg::I32(100), KernelArg::I32(4096)};
  absl::StatusOr<TensorMapRequest> request =
      PlanTensorMap(kernel, kernel.tensor_maps[0], args);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_FALSE(request->encode);
  // Only the outermost dimension may be short: a K under one box is still
  // encoded (its columns past K read as zero).
  args[1] = KernelArg::I32(128);
  args[2] = KernelArg::I32(64);
  request = PlanTensorMap(kernel, kernel.tensor_maps[0], args);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_TRUE(request->encode);
  // A negative size is still an error, naming the argument.
  args[1] = KernelArg::I32(-5);
  request = PlanTensorMap(kernel, kernel.tensor_maps[0], args);
  ASSERT_FALSE(request.ok());
  EXPECT_THAT(
      request.status().message(),
      HasSubstr("argument 1 ('m' = -5) / 128 = -1; expected 1 to 2^32"));
}

// The staged row of tile row `r` for `warps` consumer warps: the order in
// which wgmma reads A (lowering/TensorCore/OperandStaging.cpp,
// getWgmmaStagedRow), restated here.
int64_t WgmmaStagedRow(int64_t r, int64_t warps) {
  int64_t groups = warps / 4, g = r % 8, w = (r / 8) % warps,
          t = r / (8 * warps);
  return 64 * (w / 4 + groups * (t / 2)) + 16 * (w % 4) + 8 * (t % 2) + g;
}

TEST(TensorMapTest, OneBoxLandsRowsInWgmmaOrder) {
  // Walks one box of the planned rank-5 map as a tiled TMA copy does
  // (box elements innermost first into consecutive shared memory, each
  // read at the sum of its coordinates times the strides) and checks that
  // every staged row receives the view row that wgmma order puts there.
  for (int64_t warps : {4, 8}) {
    for (int64_t rows : {16 * warps, 32 * warps}) {
      if (rows > 256)
        continue;
      const int64_t k = 4096, m = 1000, block = 16 * warps;
      KernelInfo kernel = WgmmaOrderKernel();
      TensorMapInfo &map = kernel.tensor_maps[0];
      map.sizes = {{1, 0, 1, block}, {-1, warps}, {-1, 2}, {-1, 8}, {2, 0}};
      map.strides = {
          {2, 0, block}, {2, 0, 8}, {2, 0, 8 * warps}, {2, 0}, {-1, 1}};
      map.box = {static_cast<uint32_t>(rows / block),
                 static_cast<uint32_t>(warps), 2, 8, 128};
      std::vector<KernelArg> args = {KernelArg::DevicePtr(0x10000),
                                     KernelArg::I32(m), KernelArg::I32(k)};
      absl::StatusOr<TensorMapRequest> request =
          PlanTensorMap(kernel, map, args);
      ASSERT_TRUE(request.ok()) << request.status();
      ASSERT_EQ(request->dims[4], static_cast<uint64_t>(m / block));
      const int64_t row0 = 2 * rows; // a stage inside the view
      const int64_t start = row0 / block;
      ASSERT_LE(start + request->box[4], request->dims[4]);
      int64_t staged = 0;
      for (int64_t i4 = 0; i4 < request->box[4]; ++i4)
        for (int64_t i3 = 0; i3 < request->box[3]; ++i3)
          for (int64_t i2 = 0; i2 < request->box[2]; ++i2)
            for (int64_t i1 = 0; i1 < request->box[1]; ++i1, ++staged) {
              int64_t byte =
                  i1 * request->strides[0] + i2 * request->strides[1] +
                  i3 * request->strides[2] + (start + i4) * request->strides[3];
              ASSERT_EQ(byte % k, 0);
              int64_t row = byte / k - row0;
              EXPECT_EQ(WgmmaStagedRow(row, warps), staged)
                  << warps << " warps, " << rows << "-row stage, row " << row;
            }
      EXPECT_EQ(staged, rows);
    }
  }
}

} // namespace
} // namespace tilec
