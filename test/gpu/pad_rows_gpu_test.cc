// kernels_dsl/pad_rows.mlir's @pad_rows_pair through PadRowsPair: two byte
// matrices at every alignment (sources start 0-3 bytes past a 4-byte
// boundary), rows 1 to 9 (the last rows take the byte path), row lengths
// around word and 16-byte boundaries, strides past the row, compared byte
// for byte with the expected padded copies (the destinations are poisoned
// first). Each source ends exactly where its allocation ends, so a read
// past the last row's bytes is an error under compute-sanitizer memcheck.
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/embedded.h"
#include "runtime/pad_rows.h"
#include "test/support/device_fixture.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using cu::CUdeviceptr;

struct Operand {
  int rows, shift;
};

struct Case {
  Operand a, b;
  int cols, stride;
};

class PadRowsGpuTest : public DeviceFixture<::testing::TestWithParam<Case>> {
protected:
  // A source of `op.rows` rows in its own allocation, `op.shift` bytes in.
  struct Source {
    std::vector<uint8_t> bytes; // from the first byte of row 0
    CUdeviceptr at = 0;
  };
  Source Upload(const Operand &op, int cols, int stride) {
    Source s;
    s.bytes.resize(size_t(op.rows - 1) * stride + cols);
    for (uint8_t &v : s.bytes)
      v = uint8_t(byte_(rng_));
    // The bytes before the source (in the word holding its first byte,
    // which the kernel may read) are written too, so initcheck sees no
    // read of uninitialized memory.
    std::vector<uint8_t> all(op.shift, 0x5A);
    all.insert(all.end(), s.bytes.begin(), s.bytes.end());
    CUdeviceptr base = Alloc(all.size());
    s.at = base + op.shift;
    EXPECT_EQ(driver_->api().cuMemcpyHtoD_v2(base, all.data(), all.size()), 0);
    return s;
  }

  void Expect(const char *name, const Source &s, CUdeviceptr dst, int rows,
              int cols, int stride, int padded) {
    std::vector<uint8_t> got(size_t(rows) * padded);
    ASSERT_EQ(driver_->api().cuMemcpyDtoH_v2(got.data(), dst, got.size()), 0);
    int bad = 0;
    for (int r = 0; r < rows && bad < 10; ++r)
      for (int c = 0; c < padded && bad < 10; ++c) {
        const uint8_t want = c < cols ? s.bytes[size_t(r) * stride + c] : 0;
        const uint8_t have = got[size_t(r) * padded + c];
        if (have != want) {
          ++bad;
          ADD_FAILURE() << name << "[" << r << ", " << c << "] = " << int(have)
                        << ", expected " << int(want);
        }
      }
  }

  std::mt19937 rng_{std::random_device{}()};
  std::uniform_int_distribution<int> byte_{0, 255};
};

TEST_P(PadRowsGpuTest, CopiesEveryByteAndZeroPads) {
  const Case &c = GetParam();
  absl::StatusOr<const Kernel *> pad =
      GetEmbeddedKernel("pad_rows", "pad_rows_pair", 0);
  ASSERT_TRUE(pad.ok()) << pad.status();
  const int padded = int(PaddedRowBytes(c.cols));
  Source a = Upload(c.a, c.cols, c.stride), b = Upload(c.b, c.cols, c.stride);
  CUdeviceptr da = Alloc(size_t(c.a.rows) * padded);
  CUdeviceptr db = Alloc(size_t(c.b.rows) * padded);
  // Rows of a multiple of 16 bytes: whole words of poison.
  ASSERT_EQ(driver_->api().cuMemsetD32_v2(da, 0xABABABABu,
                                          size_t(c.a.rows) * padded / 4),
            0);
  ASSERT_EQ(driver_->api().cuMemsetD32_v2(db, 0xCDCDCDCDu,
                                          size_t(c.b.rows) * padded / 4),
            0);
  absl::Status status =
      PadRowsPair(**pad, {reinterpret_cast<const void *>(a.at), da, c.a.rows},
                  {reinterpret_cast<const void *>(b.at), db, c.b.rows}, c.cols,
                  c.stride, padded, nullptr);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(driver_->api().cuCtxSynchronize(), 0);
  Expect("a", a, da, c.a.rows, c.cols, c.stride, padded);
  Expect("b", b, db, c.b.rows, c.cols, c.stride, padded);
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (int cols : {1, 2, 3, 4, 5, 15, 16, 17, 1000, 1023, 1025, 2049, 4127})
    for (int shift = 0; shift < 4; ++shift)
      cases.push_back(
          {{1 + shift * 2, shift}, {9 - shift, (shift + 1) % 4}, cols, cols});
  // Rows further apart than their bytes, and a pair of very different sizes.
  cases.push_back({{5, 1}, {6, 2}, 37, 53});
  cases.push_back({{33, 3}, {1030, 1}, 4127, 4127});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, PadRowsGpuTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           const Case &c = info.param;
                           return "a" + std::to_string(c.a.rows) + "s" +
                                  std::to_string(c.a.shift) + "_b" +
                                  std::to_string(c.b.rows) + "s" +
                                  std::to_string(c.b.shift) + "_cols" +
                                  std::to_string(c.cols) + "_stride" +
                                  std::to_string(c.stride);
                         });

} // namespace
} // namespace tilec
