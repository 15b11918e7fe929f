// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Each row of 32 lies on the 32 lanes of one warp: the bitonic network runs
// in registers, partners exchanging i64 keys and i32 payloads through
// shfl.bfly (two 32-bit halves per key), with no scratch and no barrier.
// 15 steps: each merge level starts with the mirror partner (lane xor
// 1, 3, 7, 15, 31), then halves (8, 4, 2, 1).
// With a payload, each lane step chooses between the two comparisons
// (equal keys may carry different payloads).
// CHECK-LABEL: llvm.func @sort_rows
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.select {{.*}} : i1, i1
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry sort_rows
// PTX-NOT: bar.sync
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 31, 31
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 8, 31
// PTX-DAG: shfl.sync.bfly.b32 {{.*}}, 1, 31
// PTX-DAG: setp.gt.s64
// PTX-NOT: bar.sync
// PTX: ret;
func.func @sort_rows(%p: !tile.ptr<i64>, %q: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c8 = arith.constant 8 : i32
  %v = tile.make_view %p[%c8, %c32] strides[%c32, %c1] : !tile.ptr<i64> -> !tile.view<?x?xi64>
  %w = tile.make_view %q[%c8, %c32] strides[%c32, %c1] : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %k = tile.load %v[%c0, %c0] : !tile.view<?x?xi64> -> tensor<8x32xi64>
  %x = tile.load %w[%c0, %c0] : !tile.view<?x?xi32> -> tensor<8x32xi32>
  %sk, %sx = tile.sort %k, %x along 1 descending : tensor<8x32xi64>, tensor<8x32xi32>
  tile.store %sk, %v[%c0, %c0] : tensor<8x32xi64>, !tile.view<?x?xi64>
  tile.store %sx, %w[%c0, %c0] : tensor<8x32xi32>, !tile.view<?x?xi32>
  return
}

// Integer keys alone: one comparison per lane step. The second of a pair
// takes the partner's key unless that goes first; they differ only for
// equal keys, which are the same element.
// CHECK-LABEL: llvm.func @sort_keys_only
// CHECK-NOT: llvm.select {{.*}} : i1, i1
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.icmp "eq" {{.*}} : i1
// CHECK-NOT: llvm.select {{.*}} : i1, i1
// CHECK: llvm.return
// PTX-LABEL: .entry sort_keys_only
// PTX: shfl.sync.bfly.b32
// PTX: ret;
func.func @sort_keys_only(%p: !tile.ptr<i64>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c8 = arith.constant 8 : i32
  %v = tile.make_view %p[%c8, %c32] strides[%c32, %c1] : !tile.ptr<i64> -> !tile.view<?x?xi64>
  %k = tile.load %v[%c0, %c0] : !tile.view<?x?xi64> -> tensor<8x32xi64>
  %s = tile.sort %k along 1 descending : tensor<8x32xi64>
  tile.store %s, %v[%c0, %c0] : tensor<8x32xi64>, !tile.view<?x?xi64>
  return
}

// Float keys alone keep both comparisons: with a NaN neither goes first.
// CHECK-LABEL: llvm.func @sort_float_keys
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.select {{.*}} : i1, i1
// CHECK: llvm.return
func.func @sort_float_keys(%p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c8 = arith.constant 8 : i32
  %v = tile.make_view %p[%c8, %c32] strides[%c32, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %k = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<8x32xf32>
  %s = tile.sort %k along 1 : tensor<8x32xf32>
  tile.store %s, %v[%c0, %c0] : tensor<8x32xf32>, !tile.view<?x?xf32>
  return
}

// Every warp holds all 64 keys (two per lane) and sorts its own copy: the
// stages at distance 1 stay in the thread, the others use shuffles.
// CHECK-LABEL: llvm.func @sort_replicated
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry sort_replicated
// PTX-NOT: bar.sync
// PTX: shfl.sync.bfly.b32
// PTX-NOT: bar.sync
// PTX: ret;
#pairs = #tile.blocked<size = [2], threads = [32], warps = [8], order = [0]>
func.func @sort_replicated(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %v = tile.make_view %p[%c64] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %k = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<64xi32, #pairs>
  %s = tile.sort %k along 0 : tensor<64xi32, #pairs>
  tile.store %s, %v[%c0] : tensor<64xi32, #pairs>, !tile.view<?xi32>
  return
}

// Runs of 16 already sorted: only the last merge level runs, the mirror
// step (lane xor 31) and halves (8, 4, 2, 1); no level below it (whose
// mirror steps are lane xor 3, 7, 15).
// PTX-LABEL: .entry merge_halves
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 3, 31
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 15, 31
// PTX: shfl.sync.bfly.b32 {{.*}}, 31, 31
// PTX-NOT: shfl.sync.bfly.b32 {{.*}}, 15, 31
// PTX: ret;
func.func @merge_halves(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %c8 = arith.constant 8 : i32
  %v = tile.make_view %p[%c8, %c32] strides[%c32, %c1] : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %k = tile.load %v[%c0, %c0] : !tile.view<?x?xi32> -> tensor<8x32xi32>
  %s = tile.sort %k along 1 runs 16 : tensor<8x32xi32>
  tile.store %s, %v[%c0, %c0] : tensor<8x32xi32>, !tile.view<?x?xi32>
  return
}
