//===- InterpreterTest.cpp - the CPU interpreter's semantics and checks ---===//
//
// Small kernels run by tools/cpu-driver's interpreter: results of the ops
// the kernel tests lean on, and the errors that make those tests able to
// fail (accesses outside every allocation, ring stages read before their
// copies land, ops it does not model).
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/Interpreter.h"
#include "tools/common/Registration.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace tilec::cpu {
namespace {

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    mlir::DialectRegistry registry;
    registerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  mlir::func::FuncOp parse(const char *source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, context.get());
    EXPECT_TRUE(module);
    return module ? module->lookupSymbol<mlir::func::FuncOp>("k")
                  : mlir::func::FuncOp();
  }

  template <typename T> void allow(std::vector<T> &buffer) {
    memory.add(reinterpret_cast<uint64_t>(buffer.data()),
               buffer.size() * sizeof(T));
  }

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  MemoryMap memory;
};

TEST_F(InterpreterTest, MaskedRowsScanAndReduce) {
  // Each program takes one row of 8: y = inclusive prefix sum of x, and
  // out[row] = max of the row; columns past n read -inf and are not stored.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>,
                 %rows: i32, %n: i32) attributes {tile.kernel} {
      %row = tile.program_id x
      %xv = tile.make_view %x[%rows, %n] strides[%n, 1] : !tile.view<?x?xf32>
      %yv = tile.make_view %y[%rows, %n] strides[%n, 1] : !tile.view<?x?xf32>
      %ov = tile.make_view %out[%rows] strides[1] : !tile.view<?xf32>
      %t = tile.load %xv[%row, 0] pad -inf : tensor<1x8xf32>
      %s = tile.scan add %t along 1 : tensor<1x8xf32>
      tile.store %s, %yv[%row, 0] : tensor<1x8xf32>
      %m = tile.reduce max %t along 1 : tensor<1x8xf32>
      tile.store %m, %ov[%row] : tensor<1xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  int32_t rows = 3, n = 5;
  std::vector<float> x(rows * n), y(rows * n, -1.0f), out(rows, -1.0f);
  for (int i = 0; i < rows * n; ++i)
    x[i] = float((i * 7) % 11) - 3.0f;
  allow(x), allow(y), allow(out);
  uint64_t px = uint64_t(x.data()), py = uint64_t(y.data()),
           po = uint64_t(out.data());
  void *params[] = {&px, &py, &po, &rows, &n};
  ASSERT_EQ(runKernel(k, {uint32_t(rows), 1, 1}, params, memory), "");
  for (int r = 0; r < rows; ++r) {
    float sum = 0, max = -INFINITY;
    for (int c = 0; c < n; ++c) {
      sum += x[r * n + c];
      max = std::max(max, x[r * n + c]);
      EXPECT_EQ(y[r * n + c], sum) << r << "," << c;
    }
    EXPECT_EQ(out[r], max) << r;
  }
}

TEST_F(InterpreterTest, ScanTotalIsTheLineReduction) {
  // y = exclusive prefix sum of each row of 4 x 8 i32; out[row] = the
  // scan's total, the row's sum; and the max-scan's total of a rank-1 tile.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>, %out: !tile.ptr<i32>)
        attributes {tile.kernel} {
      %xv = tile.make_view %x[4, 8] strides[8, 1] : !tile.view<?x?xi32>
      %yv = tile.make_view %y[4, 8] strides[8, 1] : !tile.view<?x?xi32>
      %ov = tile.make_view %out[5] strides[1] : !tile.view<?xi32>
      %t = tile.load %xv[0, 0] : tensor<4x8xi32>
      %s, %sum = tile.scan add %t along 1 exclusive : tensor<4x8xi32>
          total tensor<4xi32>
      tile.store %s, %yv[0, 0] : tensor<4x8xi32>
      tile.store %sum, %ov[0] : tensor<4xi32>
      %x1 = tile.make_view %x[32] strides[1] : !tile.view<?xi32>
      %f = tile.load %x1[0] : tensor<32xi32>
      %m, %max = tile.scan max %f along 0 reverse : tensor<32xi32> total i32
      %maxT = tile.splat %max : tensor<1xi32>
      tile.store %maxT, %ov[4] : tensor<1xi32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<int32_t> x(32), y(32, -1), out(5, -1);
  for (int i = 0; i < 32; ++i)
    x[i] = (i * 7) % 11 - 3;
  allow(x), allow(y), allow(out);
  uint64_t px = uint64_t(x.data()), py = uint64_t(y.data()),
           po = uint64_t(out.data());
  void *params[] = {&px, &py, &po};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  int32_t max = x[0];
  for (int r = 0; r < 4; ++r) {
    int32_t sum = 0;
    for (int c = 0; c < 8; ++c) {
      EXPECT_EQ(y[r * 8 + c], sum) << r << "," << c;
      sum += x[r * 8 + c];
      max = std::max(max, x[r * 8 + c]);
    }
    EXPECT_EQ(out[r], sum) << r;
  }
  EXPECT_EQ(out[4], max);
}

TEST_F(InterpreterTest, LastArriverSeesEveryProgramsStore) {
  // Every program stores its id, fences and takes a ticket; the last one
  // sums what all stored.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%parts: !tile.ptr<i32>, %ticket: !tile.ptr<i32>,
                 %sum: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
      %p = tile.program_id x
      %one = arith.constant 1 : i32
      %nm1 = arith.subi %n, %one : i32
      %pv = tile.make_view %parts[%n] strides[1] : !tile.view<?xi32>
      %tv = tile.make_view %ticket[1] strides[1] : !tile.view<?xi32>
      %sv = tile.make_view %sum[1] strides[1] : !tile.view<?xi32>
      %pt = tile.splat %p : tensor<1xi32>
      tile.store %pt, %pv[%p] : tensor<1xi32>
      tile.fence
      %zero = arith.constant dense<0> : tensor<1xi32>
      %ones = arith.constant dense<1> : tensor<1xi32>
      %old = tile.atomic add %tv[%zero], %ones
          : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
      %o = tile.reduce max %old along 0 : tensor<1xi32>
      %last = arith.cmpi eq, %o, %nm1 : i32
      scf.if %last {
        tile.fence
        %all = tile.load %pv[0] : tensor<64xi32>
        %s = tile.reduce add %all along 0 : tensor<64xi32>
        %st = tile.splat %s : tensor<1xi32>
        tile.store %st, %sv[0] : tensor<1xi32>
      }
      return
    })mlir");
  ASSERT_TRUE(k);
  int32_t n = 37;
  std::vector<int32_t> parts(n, -1), ticket(1, 0), sum(1, -1);
  allow(parts), allow(ticket), allow(sum);
  uint64_t pp = uint64_t(parts.data()), pt = uint64_t(ticket.data()),
           ps = uint64_t(sum.data());
  void *params[] = {&pp, &pt, &ps, &n};
  ASSERT_EQ(runKernel(k, {uint32_t(n), 1, 1}, params, memory), "");
  EXPECT_EQ(ticket[0], n);
  EXPECT_EQ(sum[0], n * (n - 1) / 2);
}

TEST_F(InterpreterTest, AccessOutsideEveryAllocationIsLocated) {
  // The view claims 16 elements of a 15-element allocation.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%x: !tile.ptr<f32>) attributes {tile.kernel} {
      %xv = tile.make_view %x[16] strides[1] : !tile.view<?xf32>
      %t = tile.load %xv[0] : tensor<16xf32>
      tile.store %t, %xv[0] : tensor<16xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> x(15, 1.0f);
  allow(x);
  uint64_t px = uint64_t(x.data());
  void *params[] = {&px};
  std::string error = runKernel(k, {1, 1, 1}, params, memory);
  EXPECT_NE(error.find("\":4:"), std::string::npos) << error;
  EXPECT_NE(error.find("outside every allocation"), std::string::npos) << error;
  EXPECT_NE(error.find("'tile.load'"), std::string::npos) << error;
}

TEST_F(InterpreterTest, ReadOfBytesNothingWroteIsAnError) {
  // Element 3 of x was never written; a store marks what it writes.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
      %xv = tile.make_view %x[%n] strides[1] : !tile.view<?xf32>
      %one = arith.constant dense<1.0> : tensor<2xf32>
      tile.store %one, %xv[0] : tensor<2xf32>
      %t = tile.load %xv[0] : tensor<4xf32>
      tile.store %t, %xv[4] : tensor<4xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> x(8, 0.0f);
  memory.add(reinterpret_cast<uint64_t>(x.data()), 8 * sizeof(float),
             /*written=*/false);
  memory.markWritten(reinterpret_cast<uint64_t>(x.data() + 2), 4);
  uint64_t px = uint64_t(x.data());
  int32_t n = 3; // elements 0-2: written by the store, then by hand
  void *params[] = {&px, &n};
  EXPECT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  n = 4;
  std::string error = runKernel(k, {1, 1, 1}, params, memory);
  EXPECT_NE(error.find("that nothing wrote"), std::string::npos) << error;
}

const char *kRingKernel = R"mlir(
  func.func @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %wait: i32)
      attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %xv = tile.make_view %x[16, 16] strides[16, 1] : !tile.view<?x?xf32>
    %yv = tile.make_view %y[16, 16] strides[16, 1] : !tile.view<?x?xf32>
    %ring = tile.alloc_shared : !tile.smem<2x16x16xf32, #tile.swizzle<64>>
    tile.async_copy %xv[%c0, %c0], %ring[%c1]
        : !tile.view<?x?xf32>, !tile.smem<2x16x16xf32, #tile.swizzle<64>>
    tile.async_commit
    %w = arith.cmpi ne, %wait, %c0 : i32
    scf.if %w {
      tile.async_wait 0
    }
    %t = tile.load_stage %ring[%c1] : !tile.smem<2x16x16xf32, #tile.swizzle<64>> -> tensor<16x16xf32>
    // y = stage · I: a stage is read by dots only.
    %iota = tile.iota : tensor<16xi32>
    %rows = tile.broadcast %iota along 1 : tensor<16xi32> -> tensor<16x16xi32>
    %cols = tile.broadcast %iota along 0 : tensor<16xi32> -> tensor<16x16xi32>
    %diag = arith.cmpi eq, %rows, %cols : tensor<16x16xi32>
    %ones = arith.constant dense<1.0> : tensor<16x16xf32>
    %zeros = arith.constant dense<0.0> : tensor<16x16xf32>
    %eye = arith.select %diag, %ones, %zeros : tensor<16x16xi1>, tensor<16x16xf32>
    %d = tile.dot %t, %eye, %zeros : tensor<16x16xf32>, tensor<16x16xf32>
        -> tensor<16x16xf32>
    tile.store %d, %yv[0, 0] : tensor<16x16xf32>
    return
  })mlir";

TEST_F(InterpreterTest, RingStageReadAfterItsWait) {
  mlir::func::FuncOp k = parse(kRingKernel);
  ASSERT_TRUE(k);
  std::vector<float> x(256), y(256, 0.0f);
  for (int i = 0; i < 256; ++i)
    x[i] = float(i);
  allow(x), allow(y);
  uint64_t px = uint64_t(x.data()), py = uint64_t(y.data());
  int32_t wait = 1;
  void *params[] = {&px, &py, &wait};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(x, y);
}

TEST_F(InterpreterTest, RingStageReadBeforeItsWaitIsAnError) {
  mlir::func::FuncOp k = parse(kRingKernel);
  ASSERT_TRUE(k);
  std::vector<float> x(256, 1.0f), y(256, 0.0f);
  allow(x), allow(y);
  uint64_t px = uint64_t(x.data()), py = uint64_t(y.data());
  int32_t wait = 0;
  void *params[] = {&px, &py, &wait};
  std::string error = runKernel(k, {1, 1, 1}, params, memory);
  EXPECT_NE(error.find("still in flight"), std::string::npos) << error;
}

TEST_F(InterpreterTest, RingStageRefilledBeforeItsDotIsAnError) {
  // The dot reads the stage in place: a copy issued into it after its
  // tile.load_stage may land before the dot reads it on a GPU.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %refill: i32)
        attributes {tile.kernel} {
      %c0 = arith.constant 0 : i32
      %xv = tile.make_view %x[16, 16] strides[16, 1] : !tile.view<?x?xf32>
      %yv = tile.make_view %y[16, 16] strides[16, 1] : !tile.view<?x?xf32>
      %ring = tile.alloc_shared : !tile.smem<2x16x16xf32, #tile.swizzle<64>>
      tile.async_copy %xv[%c0, %c0], %ring[%c0]
          : !tile.view<?x?xf32>, !tile.smem<2x16x16xf32, #tile.swizzle<64>>
      tile.async_commit
      tile.async_wait 0
      %t = tile.load_stage %ring[%c0] : !tile.smem<2x16x16xf32, #tile.swizzle<64>> -> tensor<16x16xf32>
      %r = arith.cmpi ne, %refill, %c0 : i32
      scf.if %r {
        tile.async_copy %xv[%c0, %c0], %ring[%c0]
            : !tile.view<?x?xf32>, !tile.smem<2x16x16xf32, #tile.swizzle<64>>
        tile.async_commit
      }
      %ones = arith.constant dense<1.0> : tensor<16x16xf32>
      %zeros = arith.constant dense<0.0> : tensor<16x16xf32>
      %d = tile.dot %t, %ones, %zeros : tensor<16x16xf32>, tensor<16x16xf32>
          -> tensor<16x16xf32>
      tile.store %d, %yv[0, 0] : tensor<16x16xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> x(256, 1.0f), y(256, 0.0f);
  allow(x), allow(y);
  uint64_t px = uint64_t(x.data()), py = uint64_t(y.data());
  int32_t refill = 0;
  void *params[] = {&px, &py, &refill};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(y, std::vector<float>(256, 16.0f));
  refill = 1;
  std::string error = runKernel(k, {1, 1, 1}, params, memory);
  EXPECT_NE(error.find("in place after a copy into it was issued"),
            std::string::npos)
      << error;
}

TEST_F(InterpreterTest, DotAndBf16Rounding) {
  // y = bf16(a·b + 0.5) with a 2×3 and b 3×2.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %y: !tile.ptr<bf16>)
        attributes {tile.kernel} {
      %av = tile.make_view %a[2, 3] strides[3, 1] : !tile.view<?x?xf32>
      %bv = tile.make_view %b[3, 2] strides[2, 1] : !tile.view<?x?xf32>
      %yv = tile.make_view %y[2, 2] strides[2, 1] : !tile.view<?x?xbf16>
      %at = tile.load %av[0, 0] : tensor<16x16xf32>
      %bt = tile.load %bv[0, 0] : tensor<16x16xf32>
      %c = arith.constant dense<0.5> : tensor<16x16xf32>
      %d = tile.dot %at, %bt, %c : tensor<16x16xf32>, tensor<16x16xf32>
          -> tensor<16x16xf32>
      %h = arith.truncf %d : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %h, %yv[0, 0] : tensor<16x16xbf16>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1};
  std::vector<uint16_t> y(4, 0);
  allow(a), allow(b), allow(y);
  uint64_t pa = uint64_t(a.data()), pb = uint64_t(b.data()),
           py = uint64_t(y.data());
  void *params[] = {&pa, &pb, &py};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  // a·b = [[4, 5], [10, 11]], + 0.5, all exact in bf16.
  const float expected[] = {4.5f, 5.5f, 10.5f, 11.5f};
  for (int i = 0; i < 4; ++i) {
    uint32_t bits = uint32_t(y[i]) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    EXPECT_EQ(v, expected[i]) << i;
  }
}

TEST_F(InterpreterTest, F32DotsMultiplyAsTf32) {
  // 1 + 2^-11 is half way between two tf32 numbers: registers round it
  // away from zero (cvt.rna), as the tensor cores receive it.
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%a: !tile.ptr<f32>, %y: !tile.ptr<f32>)
        attributes {tile.kernel} {
      %av = tile.make_view %a[1, 1] strides[1, 1] : !tile.view<?x?xf32>
      %yv = tile.make_view %y[1, 1] strides[1, 1] : !tile.view<?x?xf32>
      %at = tile.load %av[0, 0] : tensor<16x8xf32>
      %b = arith.constant dense<1.0> : tensor<8x8xf32>
      %c = arith.constant dense<0.0> : tensor<16x8xf32>
      %d = tile.dot %at, %b, %c : tensor<16x8xf32>, tensor<8x8xf32>
          -> tensor<16x8xf32>
      tile.store %d, %yv[0, 0] : tensor<16x8xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> a = {1.0f + 0x1p-11f}, y(1, 0.0f);
  allow(a), allow(y);
  uint64_t pa = uint64_t(a.data()), py = uint64_t(y.data());
  void *params[] = {&pa, &py};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(y[0], 1.0f + 0x1p-10f);
}

TEST_F(InterpreterTest, IntegersAsTheLoweringComputesThem) {
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%y: !tile.ptr<i32>, %z: !tile.ptr<f32>, %w: !tile.ptr<i64>)
        attributes {tile.kernel} {
      %yv = tile.make_view %y[17] strides[1] : !tile.view<?xi32>
      %zv = tile.make_view %z[4] strides[1] : !tile.view<?xf32>
      %wv = tile.make_view %w[4] strides[1] : !tile.view<?xi64>
      // To signed ops, i1's true is -1.
      %t = arith.constant dense<true> : tensor<4xi1>
      %f = arith.constant dense<false> : tensor<4xi1>
      %e = arith.extsi %t : tensor<4xi1> to tensor<4xi32>
      tile.store %e, %yv[0] : tensor<4xi32>
      %lt = arith.cmpi slt, %t, %f : tensor<4xi1>
      %lti = arith.extui %lt : tensor<4xi1> to tensor<4xi32>
      tile.store %lti, %yv[4] : tensor<4xi32>
      %s = arith.sitofp %t : tensor<4xi1> to tensor<4xf32>
      tile.store %s, %zv[0] : tensor<4xf32>
      // cvt.rzi saturates (NaN gives 0); i8 results are converted to 16
      // bits and truncated.
      %x = arith.constant dense<[3.0e9, -3.0e9, 0x7FC00000, 300.0]>
          : tensor<4xf32>
      %xi = arith.fptosi %x : tensor<4xf32> to tensor<4xi32>
      tile.store %xi, %yv[8] : tensor<4xi32>
      %x8 = arith.fptosi %x : tensor<4xf32> to tensor<4xi8>
      %x8i = arith.extsi %x8 : tensor<4xi8> to tensor<4xi32>
      tile.store %x8i, %yv[12] : tensor<4xi32>
      // iota wraps at its width.
      %io = tile.iota : tensor<256xi8>
      %mn = tile.reduce min %io along 0 : tensor<256xi8>
      %mni = arith.extsi %mn : i8 to i32
      %mnt = tile.splat %mni : tensor<1xi32>
      tile.store %mnt, %yv[16] : tensor<1xi32>
      // INT64_MIN / -1 wraps.
      %min = arith.constant dense<-9223372036854775808> : tensor<2xi64>
      %m1 = arith.constant dense<-1> : tensor<2xi64>
      %q = arith.divsi %min, %m1 : tensor<2xi64>
      %r = arith.remsi %min, %m1 : tensor<2xi64>
      tile.store %q, %wv[0] : tensor<2xi64>
      tile.store %r, %wv[2] : tensor<2xi64>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<int32_t> y(17, 7);
  std::vector<float> z(4, 0.0f);
  std::vector<int64_t> w(4, 7);
  allow(y), allow(z), allow(w);
  uint64_t py = uint64_t(y.data()), pz = uint64_t(z.data()),
           pw = uint64_t(w.data());
  void *params[] = {&py, &pz, &pw};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  const int32_t expected[] = {-1,        -1, -1,  -1, 1, 1, 1,  1,   INT32_MAX,
                              INT32_MIN, 0,  300, -1, 0, 0, 44, -128};
  for (int i = 0; i < 17; ++i)
    EXPECT_EQ(y[i], expected[i]) << i;
  EXPECT_EQ(z, std::vector<float>(4, -1.0f));
  EXPECT_EQ(w, (std::vector<int64_t>{INT64_MIN, INT64_MIN, 0, 0}));
}

TEST_F(InterpreterTest, FloatReductionsAndScansRoundInTheLoweringsOrder) {
  // 2^24 then 63 ones over 2 warps of 32 lanes: every combine rounds to
  // f32, the reduction within a warp by XOR butterfly, the scan by
  // Hillis-Steele steps, as the lowering does (in order, every 1 added to
  // 2^24 would be lost).
  mlir::func::FuncOp k = parse(R"mlir(
    #l = #tile.blocked<size = [1], threads = [32], warps = [2], order = [0]>
    func.func @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %o: !tile.ptr<f32>)
        attributes {tile.kernel} {
      %xv = tile.make_view %x[64] strides[1] : !tile.view<?xf32>
      %yv = tile.make_view %y[64] strides[1] : !tile.view<?xf32>
      %ov = tile.make_view %o[3] strides[1] : !tile.view<?xf32>
      %t = tile.load %xv[0] : tensor<64xf32, #l>
      %s = tile.reduce add %t along 0 : tensor<64xf32, #l>
      %st = tile.splat %s : tensor<1xf32>
      tile.store %st, %ov[0] : tensor<1xf32>
      %c = tile.scan add %t along 0 : tensor<64xf32, #l>
      tile.store %c, %yv[0] : tensor<64xf32, #l>
      // Reductions start from their first element: a sum of -0s is -0.
      %z = arith.constant dense<-0.0> : tensor<4xf32>
      %zs = tile.reduce add %z along 0 : tensor<4xf32>
      %zt = tile.splat %zs : tensor<1xf32>
      tile.store %zt, %ov[1] : tensor<1xf32>
      // bf16 sums round at every step: 1 + 2^-9 is 1.
      %b = arith.constant dense<[1.0, 0.001953125, 0.001953125, 0.001953125]>
          : tensor<4xbf16>
      %bs = tile.reduce add %b along 0 : tensor<4xbf16>
      %bf = arith.extf %bs : bf16 to f32
      %bt = tile.splat %bf : tensor<1xf32>
      tile.store %bt, %ov[2] : tensor<1xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> x(64, 1.0f), y(64, 0.0f), o(3, 1.0f);
  x[0] = 0x1p24f;
  allow(x), allow(y), allow(o);
  uint64_t px = uint64_t(x.data()), py = uint64_t(y.data()),
           po = uint64_t(o.data());
  void *params[] = {&px, &py, &po};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(o[0], 0x1p24f + 62);
  const std::pair<int, int> scanned[] = {{1, 0},   {3, 4},   {31, 32},
                                         {35, 32}, {36, 36}, {63, 60}};
  for (auto [at, above] : scanned)
    EXPECT_EQ(y[at], 0x1p24f + float(above)) << at;
  EXPECT_EQ(o[1], 0.0f);
  EXPECT_TRUE(std::signbit(o[1]));
  EXPECT_EQ(o[2], 1.0f);
}

TEST_F(InterpreterTest, SortRunsTheLoweringsNetwork) {
  // Without a register layout, the scratch network: a NaN key compares
  // with nothing and stays where the exchanges leave it, ties come out in
  // the network's order. With one, the register network only merges the
  // promised runs of 2, so the broken run [2, 0] stays broken.
  mlir::func::FuncOp k = parse(R"mlir(
    #w = #tile.blocked<size = [2], threads = [32], warps = [1], order = [0]>
    func.func @k(%keys: !tile.ptr<f32>, %idx: !tile.ptr<i32>,
                 %runs: !tile.ptr<i32>) attributes {tile.kernel} {
      %kv = tile.make_view %keys[8] strides[1] : !tile.view<?xf32>
      %iv = tile.make_view %idx[8] strides[1] : !tile.view<?xi32>
      %rv = tile.make_view %runs[64] strides[1] : !tile.view<?xi32>
      %k = tile.load %kv[0] : tensor<8xf32>
      %i = tile.iota : tensor<8xi32>
      %sk, %si = tile.sort %k, %i along 0 : tensor<8xf32>, tensor<8xi32>
      tile.store %sk, %kv[0] : tensor<8xf32>
      tile.store %si, %iv[0] : tensor<8xi32>
      %r = tile.load %rv[0] : tensor<64xi32, #w>
      %rs = tile.sort %r along 0 runs 2 : tensor<64xi32, #w>
      tile.store %rs, %rv[0] : tensor<64xi32, #w>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> keys = {2, NAN, 1, 2, 0.5f, 2, 3, 1};
  std::vector<int32_t> idx(8, -1), runs(64);
  for (int i = 0; i < 64; ++i)
    runs[i] = i;
  runs[0] = 2, runs[1] = 0, runs[2] = 1;
  allow(keys), allow(idx), allow(runs);
  uint64_t pk = uint64_t(keys.data()), pi = uint64_t(idx.data()),
           pr = uint64_t(runs.data());
  void *params[] = {&pk, &pi, &pr};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(idx, (std::vector<int32_t>{2, 1, 4, 0, 7, 5, 3, 6}));
  const float sorted[] = {1, NAN, 0.5f, 2, 1, 2, 2, 3};
  for (int i = 0; i < 8; ++i)
    EXPECT_TRUE(i == 1 ? std::isnan(keys[i]) : keys[i] == sorted[i]) << i;
  EXPECT_EQ(std::vector<int32_t>(runs.begin(), runs.begin() + 4),
            (std::vector<int32_t>{0, 2, 1, 3}));
}

TEST_F(InterpreterTest, AtomicsCountsAndPaddingAsTheLoweringComputes) {
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%a: !tile.ptr<f32>, %h: !tile.ptr<i32>, %b: !tile.ptr<i1>,
                 %p: !tile.ptr<i32>)
        attributes {tile.kernel} {
      %av = tile.make_view %a[3] strides[1] : !tile.view<?xf32>
      %hv = tile.make_view %h[256] strides[1] : !tile.view<?xi32>
      %bv = tile.make_view %b[4] strides[1] : !tile.view<?xi1>
      %pv = tile.make_view %p[4] strides[1] : !tile.view<?xi32>
      // max.f32 in a compare-and-swap loop ignores a NaN; atom.add.f32
      // flushes subnormals.
      %i01 = arith.constant dense<[0, 1]> : tensor<2xi32>
      %mx = arith.constant dense<[0x7FC00000, 2.0]> : tensor<2xf32>
      %old = tile.atomic max %av[%i01], %mx
          : !tile.view<?xf32>[tensor<2xi32>], tensor<2xf32>
      %i2 = arith.constant dense<2> : tensor<1xi32>
      %tiny = arith.constant dense<1.0e-40> : tensor<1xf32>
      %old2 = tile.atomic add %av[%i2], %tiny
          : !tile.view<?xf32>[tensor<1xi32>], tensor<1xf32>
      // Bins compare unsigned at their width: an i8 -57 is bin 199 of 200,
      // -1 (255) is past the end.
      %d = arith.constant dense<[-57, -57, 3, -1]> : tensor<4xi8>
      %bins = tile.alloc_shared : !tile.smem<200xi32>
      %c0 = arith.constant 0 : i32
      %zeros = arith.constant dense<0> : tensor<256xi32>
      tile.store_shared %zeros, %bins[%c0] : tensor<256xi32>, !tile.smem<200xi32>
      tile.histogram_add %d, %bins : tensor<4xi8>, !tile.smem<200xi32>
      %hist = tile.load_shared %bins[%c0] pad -1 : i32 : !tile.smem<200xi32>
          -> tensor<256xi32>
      tile.store %hist, %hv[0] : tensor<256xi32>
      // An i1 padding of 1 is true.
      %none = arith.constant dense<false> : tensor<4xi1>
      %pad = tile.load %bv[0] mask %none pad 1 : tensor<4xi1>
      %true = arith.constant dense<true> : tensor<4xi1>
      %eq = arith.cmpi eq, %pad, %true : tensor<4xi1>
      %eqi = arith.extui %eq : tensor<4xi1> to tensor<4xi32>
      tile.store %eqi, %pv[0] : tensor<4xi32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> a = {1.0f, NAN, 0.0f};
  std::vector<int32_t> h(256, 7), p(4, -1);
  std::vector<uint8_t> b(4, 0);
  allow(a), allow(h), allow(b), allow(p);
  uint64_t pa = uint64_t(a.data()), ph = uint64_t(h.data()),
           pb = uint64_t(b.data()), pp = uint64_t(p.data());
  void *params[] = {&pa, &ph, &pb, &pp};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(a[0], 1.0f);
  EXPECT_EQ(a[1], 2.0f);
  EXPECT_EQ(a[2], 0.0f);
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(h[i], i >= 200 ? -1 : i == 199 ? 2 : i == 3 ? 1 : 0) << i;
  EXPECT_EQ(p, std::vector<int32_t>(4, 1));
}

TEST_F(InterpreterTest, MathAsTheLoweringApproximatesIt) {
  // exp is ex2.approx.ftz of x·log2(e) rounded to f32; log flushes a
  // subnormal argument; remf is NVPTX's x - trunc(x / y)·y, not fmod.
  // (The approximations' own error of an ulp or two is not modelled.)
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k(%y: !tile.ptr<f32>) attributes {tile.kernel} {
      %yv = tile.make_view %y[6] strides[1] : !tile.view<?xf32>
      %x = arith.constant dense<[-100.0, -20.0]> : tensor<2xf32>
      %e = math.exp %x : tensor<2xf32>
      tile.store %e, %yv[0] : tensor<2xf32>
      %s = arith.constant dense<1.0e-40> : tensor<1xf32>
      %l = math.log %s : tensor<1xf32>
      tile.store %l, %yv[2] : tensor<1xf32>
      %a = arith.constant dense<1.0e8> : tensor<1xf32>
      %b = arith.constant dense<3.0> : tensor<1xf32>
      %r = arith.remf %a, %b : tensor<1xf32>
      tile.store %r, %yv[3] : tensor<1xf32>
      // maxnumf is max.f32: a NaN is ignored, +0 is above -0.
      %p = arith.constant dense<[0x7FC00000, -0.0]> : tensor<2xf32>
      %q = arith.constant dense<[1.0, 0.0]> : tensor<2xf32>
      %m = arith.maxnumf %p, %q : tensor<2xf32>
      tile.store %m, %yv[4] : tensor<2xf32>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::vector<float> y(6, 1.0f);
  allow(y);
  uint64_t py = uint64_t(y.data());
  void *params[] = {&py};
  ASSERT_EQ(runKernel(k, {1, 1, 1}, params, memory), "");
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], float(std::exp2(double(-20.0f * 1.44269504f))));
  EXPECT_NE(y[1], float(std::exp(-20.0)));
  EXPECT_EQ(y[2], -INFINITY);
  EXPECT_EQ(y[3], -2.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], 0.0f);
  EXPECT_FALSE(std::signbit(y[5]));
}

TEST_F(InterpreterTest, OpsItDoesNotModelAreNamed) {
  mlir::func::FuncOp k = parse(R"mlir(
    func.func @k() attributes {tile.kernel} {
      %bars = tile.alloc_shared : !tile.smem<2xi64>
      tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
      return
    })mlir");
  ASSERT_TRUE(k);
  std::string error = runKernel(k, {1, 1, 1}, nullptr, memory);
  EXPECT_NE(error.find("'tile.mbarrier_init': not interpreted"),
            std::string::npos)
      << error;
}

} // namespace
} // namespace tilec::cpu
