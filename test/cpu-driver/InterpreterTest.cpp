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
