// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Keys and the payload go to two scratch arrays (i32 at 0, f32 after 512
// bytes), then nested loops run the stages, each thread exchanging pairs,
// a barrier after every stage; the sorted tiles are read back.
// CHECK-LABEL: llvm.func @sort_pairs
// CHECK-SAME: shared_bytes = 1024
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: llvm.icmp "slt"
// CHECK: scf.if
// CHECK: nvvm.barrier0
// PTX-LABEL: .entry sort_pairs
// PTX: setp.lt.s32
// PTX: bar.sync 0
func.func @sort_pairs(%p: !tile.ptr<i32>, %q: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %w = tile.make_view %q[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %k = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<128xi32>
  %x = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<128xf32>
  %sk, %sx = tile.sort %k, %x along 0 descending : tensor<128xi32>, tensor<128xf32>
  tile.store %sk, %v[%c0] : tensor<128xi32>, !tile.view<?xi32>
  tile.store %sx, %w[%c0] : tensor<128xf32>, !tile.view<?xf32>
  return
}
