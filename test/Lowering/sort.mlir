// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Exchange network: 128 keys over two warps (two per thread). Stages within
// a warp run in registers and shuffles; the one stage whose pairs sit on
// two warps (j = 64) writes keys and payloads to scratch, waits at one
// barrier and reads the partner's. Two buffers of 128 x (i32 + f32):
// 2048 bytes. No loops, and one barrier per exchange plus the first.
// CHECK-LABEL: llvm.func @sort_pairs
// CHECK-SAME: shared_bytes = 2048
// CHECK-NOT: scf.for
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry sort_pairs
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync 0
// PTX: ld.shared
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

// -----

// Scratch network: 16 keys replicated over the lanes of two warps. Keys go
// to scratch (64 bytes), nested loops run the stages with each thread
// exchanging pairs and a barrier after every stage; the tile is read back.
#lanes = #tile.blocked<size = [1], threads = [32], warps = [2], order = [0]>
// CHECK-LABEL: llvm.func @sort_replicated
// CHECK-SAME: shared_bytes = 64
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: llvm.icmp "slt"
// CHECK: scf.if
// CHECK: nvvm.barrier0
// PTX-LABEL: .entry sort_replicated
// PTX: setp.lt.s32
// PTX: bar.sync 0
func.func @sort_replicated(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %v = tile.make_view %p[%c16] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %k = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<16xi32, #lanes>
  %sk = tile.sort %k along 0 descending : tensor<16xi32, #lanes>
  tile.store %sk, %v[%c0] : tensor<16xi32, #lanes>, !tile.view<?xi32>
  return
}

// -----

// The largest exchange network: 2048 64-bit keys over 8 warps, eight per
// thread (two adjacent, four repeats), 66 stages (528 element-steps).
// Unrolled, no loops: 14 stages have pairs on two warps (the first of each
// level from 128 keys on, and those halving across bits 6-8), each one
// store-barrier-load round through two alternating buffers of 2048 x i64
// (32768 bytes), plus the first barrier.
// CHECK-LABEL: llvm.func @sort_2048_exchange
// CHECK-SAME: shared_bytes = 32768
// CHECK-NOT: scf.for
// CHECK-COUNT-15: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry sort_2048_exchange
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync 0
func.func @sort_2048_exchange(%p: !tile.ptr<i64>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2048 = arith.constant 2048 : i32
  %v = tile.make_view %p[%c2048] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
  %k = tile.load %v[%c0] : !tile.view<?xi64> -> tensor<2048xi64>
  %sk = tile.sort %k along 0 descending : tensor<2048xi64>
  tile.store %sk, %v[%c0] : tensor<2048xi64>, !tile.view<?xi64>
  return
}

// -----

// One step past it: the same 2048 keys over 4 warps (16 per thread, 1056
// element-steps) take the scratch network's loops.
// CHECK-LABEL: llvm.func @sort_2048_scratch
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// PTX-LABEL: .entry sort_2048_scratch
// PTX: bar.sync 0
func.func @sort_2048_scratch(%p: !tile.ptr<i64>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2048 = arith.constant 2048 : i32
  %v = tile.make_view %p[%c2048] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
  %k = tile.load %v[%c0] : !tile.view<?xi64> -> tensor<2048xi64>
  %sk = tile.sort %k along 0 descending : tensor<2048xi64>
  tile.store %sk, %v[%c0] : tensor<2048xi64>, !tile.view<?xi64>
  return
}
