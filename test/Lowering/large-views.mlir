// Element addresses of views are 64-bit: a coordinate is the tile origin
// (i32, sign-extended) plus the element's place in the tile (zero-extended),
// added in i64 and multiplied by the sign-extended stride in i64, so a view
// of more than 2^31 elements (a (65536, 50257) matrix) is addressed without
// wrapping. tile.addptr moves a pointer by an i64 element count.
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: emit-ptx %s --target=sm_90a | FileCheck %s --check-prefix=PTX

// LLVM-LABEL: llvm.func @row_copy
// LLVM: llvm.ptrtoint %arg0
// LLVM: %[[R0:.*]] = llvm.sext %{{.*}} : i32 to i64
// LLVM-NEXT: %[[R1:.*]] = llvm.zext %{{.*}} : i32 to i64
// LLVM-NEXT: %[[ROW:.*]] = llvm.add %[[R0]], %[[R1]] : i64
// LLVM-NEXT: llvm.icmp "ult" %[[ROW]], %{{.*}} : i64
// LLVM-NEXT: %[[C0:.*]] = llvm.sext %{{.*}} : i32 to i64
// LLVM-NEXT: %[[C1:.*]] = llvm.zext %{{.*}} : i32 to i64
// LLVM-NEXT: %[[COL:.*]] = llvm.add %[[C0]], %[[C1]] : i64
// LLVM: %[[P0:.*]] = llvm.mul %[[ROW]], %{{.*}} : i64
// LLVM-NEXT: %[[P1:.*]] = llvm.mul %[[COL]], %{{.*}} : i64
// LLVM-NEXT: %[[LIN:.*]] = llvm.add %[[P0]], %[[P1]] : i64
// LLVM-NEXT: llvm.getelementptr %arg0[%[[LIN]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// The row offset times the row stride is a 64-bit product; no 32-bit
// multiply of a coordinate by a stride remains.
// PTX-LABEL: .entry row_copy(
// PTX: cvt.s64.s32 %rd{{[0-9]+}}, %r{{[0-9]+}};
// PTX: mul.lo.s64
// PTX-NOT: mul.lo.s32
// PTX-NOT: mad.lo.s32
// PTX: ret;
func.func @row_copy(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32,
                    %cols: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c2 : i32
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %in[%r0, %c0] : !tile.view<?x?xf32> -> tensor<2x512xf32>
  tile.store %t, %out[%r0, %c0] : tensor<2x512xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A view started at row `row` of a (batch, n) matrix: the row base is an
// i64 product of zero-extended i32 values (one mul.wide.u32) and a 64-bit
// GEP of the pointer.
// LLVM-LABEL: llvm.func @row_view
// LLVM: %[[AT:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// LLVM-NEXT: llvm.getelementptr %arg0[%[[AT]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// LLVM-NEXT: llvm.getelementptr %arg1[%[[AT]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// PTX-LABEL: .entry row_view(
// PTX: mul.wide.u32 %rd{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// PTX-NOT: mul.lo.s64
// PTX: ret;
func.func @row_view(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %row = tile.program_id x
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %at = arith.muli %row64, %n64 : i64
  %xr = tile.addptr %x, %at : !tile.ptr<f32>, i64
  %yr = tile.addptr %y, %at : !tile.ptr<f32>, i64
  %in = tile.make_view %xr[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %out = tile.make_view %yr[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %in[%c0] : !tile.view<?xf32> -> tensor<1024xf32>
  tile.store %t, %out[%c0] : tensor<1024xf32>, !tile.view<?xf32>
  return
}

// -----

// An i32 offset is sign-extended (a negative offset moves backwards).
// LLVM-LABEL: llvm.func @addptr_i32
// LLVM: %[[OFF:.*]] = llvm.sext %{{.*}} : i32 to i64
// LLVM: llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
func.func @addptr_i32(%x: !tile.ptr<i64>, %at: i32, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xr = tile.addptr %x, %at : !tile.ptr<i64>, i32
  %v = tile.make_view %xr[%n] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
  %t = tile.load %v[%c0] : !tile.view<?xi64> -> tensor<32xi64>
  tile.store %t, %v[%c0] : tensor<32xi64>, !tile.view<?xi64>
  return
}

// -----

// Atomics address their view the same way.
// LLVM-LABEL: llvm.func @atomic_add
// LLVM: scf.if
// LLVM: %[[C:.*]] = llvm.sext %{{.*}} : i32 to i64
// LLVM: llvm.mul %[[C]], %{{.*}} : i64
// LLVM: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// LLVM: llvm.atomicrmw add
func.func @atomic_add(%x: !tile.ptr<i32>, %rows: i32, %cols: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %r = tile.iota : tensor<32xi32>
  %one = tile.splat %c1 : tensor<32xi32>
  %old = tile.atomic add %v[%r, %r], %one
      : !tile.view<?x?xi32>[tensor<32xi32>, tensor<32xi32>], tensor<32xi32>
  return
}
