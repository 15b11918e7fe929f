// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Rows chosen by a tile of row numbers (a page table), columns an iota:
// each thread's run of 8 bf16 along a row is one 16-byte load, guarded by
// a run-time test (consecutive columns, one row, in bounds, aligned) that
// falls back to predicated element loads.
// CHECK-LABEL: llvm.func @gather_rows
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> bf16
// PTX-LABEL: .entry gather_rows
// PTX: ld.global.v4.b32
// PTX: ld.global.b16
func.func @gather_rows(%src: !tile.ptr<bf16>, %rowsp: !tile.ptr<i32>,
                       %dst: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %sv = tile.make_view %src[%n, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %rv = tile.make_view %rowsp[%c64] strides[%c1]
      : !tile.ptr<i32> -> !tile.view<?xi32>
  %dv = tile.make_view %dst[%c64, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %r = tile.load %rv[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %re = tile.expand_dims %r at 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %i = tile.iota : tensor<64xi32>
  %ie = tile.expand_dims %i at 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ib = tile.broadcast %ie : tensor<1x64xi32> -> tensor<64x64xi32>
  %g = tile.gather %sv[%rb, %ib] : !tile.view<?x?xbf16>, tensor<64x64xi32>,
      tensor<64x64xi32> -> tensor<64x64xbf16>
  tile.store %g, %dv[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x?xbf16>
  return
}

// -----

// Arbitrary per-element positions in a 1-D view: element loads predicated
// on the bounds (out-of-range positions read zero).
// CHECK-LABEL: llvm.func @gather_permute
// CHECK: llvm.icmp "ult"
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : f32
// PTX-LABEL: .entry gather_permute
// PTX: ld.global.b32
func.func @gather_permute(%src: !tile.ptr<f32>, %idx: !tile.ptr<i32>,
                          %dst: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %sv = tile.make_view %src[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %iv = tile.make_view %idx[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %dv = tile.make_view %dst[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %i = tile.load %iv[%c0] : !tile.view<?xi32> -> tensor<256xi32>
  %g = tile.gather %sv[%i] : !tile.view<?xf32>, tensor<256xi32> -> tensor<256xf32>
  tile.store %g, %dv[%c0] : tensor<256xf32>, !tile.view<?xf32>
  return
}
