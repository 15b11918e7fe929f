// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -canonicalize -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Compaction: the selected elements go to their prefix-sum positions of a
// 1-D view. Each element is stored alone, predicated on its mask bit and
// on its position being inside the view; no atomics, no shared memory.
// (LLVM may store an i64 assembled from two halves as two b32 stores.)
// CHECK-LABEL: llvm.func @compact
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.icmp "ult"
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr<1>
// PTX-LABEL: .entry compact
// PTX-NOT: atom.
// PTX: st.global.b{{32|64}}
func.func @compact(%src: !tile.ptr<i64>, %dst: !tile.ptr<i64>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0 : i64
  %sv = tile.make_view %src[%n] strides[%c1]
      : !tile.ptr<i64> -> !tile.view<?xi64>
  %dv = tile.make_view %dst[%n] strides[%c1]
      : !tile.ptr<i64> -> !tile.view<?xi64>
  %t = tile.load %sv[%c0] : tensor<512xi64>
  %zeroT = tile.splat %zero : tensor<512xi64>
  %take = arith.cmpi sgt, %t, %zeroT : tensor<512xi64>
  %one = arith.extui %take : tensor<512xi1> to tensor<512xi32>
  %pos = tile.scan add %one along 0 exclusive : tensor<512xi32>
  tile.scatter_store %t, %dv[%pos] mask %take
      : !tile.view<?xi64>[tensor<512xi32>], tensor<512xi64>
  return
}

// -----

// A replicated value (a 64-element tile over 128 threads) is stored once,
// by the holder whose coordinate does not wrap; 2-D coordinates are
// checked against both extents.
// CHECK-LABEL: llvm.func @transpose_2d
// CHECK: llvm.icmp "ult"
// CHECK: llvm.icmp "ult"
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// PTX-LABEL: .entry transpose_2d
// PTX: st.global.b32
func.func @transpose_2d(%src: !tile.ptr<f32>, %dst: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %sv = tile.make_view %src[%c8, %c8] strides[%c8, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %dv = tile.make_view %dst[%c8, %c8] strides[%c8, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %sv[%c0, %c0] : tensor<8x8xf32>
  %i = tile.iota : tensor<8xi32>
  %r1 = tile.expand_dims %i at 1 : tensor<8xi32> -> tensor<8x1xi32>
  %r = tile.broadcast %r1 : tensor<8x1xi32> -> tensor<8x8xi32>
  %c1e = tile.expand_dims %i at 0 : tensor<8xi32> -> tensor<1x8xi32>
  %c = tile.broadcast %c1e : tensor<1x8xi32> -> tensor<8x8xi32>
  tile.scatter_store %t, %dv[%c, %r]
      : !tile.view<?x?xf32>[tensor<8x8xi32>, tensor<8x8xi32>], tensor<8x8xf32>
  return
}
