// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// 256 elements over 2 warps: one per lane, so the run totals are the
// elements. Five shfl.up steps scan the lanes, one more shifts them to an
// exclusive prefix, one shfl.idx reads the warp total, and the two warp
// totals meet in scratch between barriers.
// CHECK-LABEL: llvm.func @scan_add
// CHECK-COUNT-6: nvvm.shfl.sync  up
// CHECK: nvvm.shfl.sync  idx
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// PTX-LABEL: .entry scan_add
// PTX: shfl.sync.up.b32
// PTX: bar.sync 0
func.func @scan_add(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %s = tile.scan add %t along 0 : tensor<64xi32>
  tile.store %s, %v[%c0] : tensor<64xi32>, !tile.view<?xi32>
  return
}

// -----

// Reversed scans read lanes above: shfl.down, and no scratch in one warp.
// CHECK-LABEL: llvm.func @scan_max_reverse
// CHECK-NOT: nvvm.shfl.sync  up
// CHECK: nvvm.shfl.sync  down
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @scan_max_reverse(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<32xf32>
  %s = tile.scan max %t along 0 reverse exclusive : tensor<32xf32>
  tile.store %s, %v[%c0] : tensor<32xf32>, !tile.view<?xf32>
  return
}

// -----

// 16 elements over 2 warps: lanes 16-31 and the second warp hold replicas,
// so each set of 16 lanes scans on its own: four shfl.up steps taken only
// by lanes whose place in their 16 (lane & 15) is far enough in, one more
// for the exclusive shift, and no exchange between warps.
// CHECK-LABEL: llvm.func @scan_replicated_lanes
// CHECK: %[[LANE:.*]] = llvm.urem
// CHECK-NEXT: %[[C15:.*]] = llvm.mlir.constant(15 : i32) : i32
// CHECK-NEXT: %[[SEG:.*]] = llvm.and %[[LANE]], %[[C15]] : i32
// CHECK: nvvm.shfl.sync  up
// CHECK: llvm.icmp "uge" %[[SEG]], %{{.*}} : i32
// CHECK-COUNT-4: nvvm.shfl.sync  up
// CHECK: llvm.icmp "eq" %[[SEG]], %{{.*}} : i32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @scan_replicated_lanes(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<16xi32>
  %s = tile.scan add %t along 0 : tensor<16xi32>
  tile.store %s, %v[%c0] : tensor<16xi32>, !tile.view<?xi32>
  return
}

// -----

// 64 elements over 4 warps: warps 2 and 3 replicate warps 0 and 1. The
// lanes scan as usual; between warps, a warp takes the totals of the
// warps before it in its own pair only (warp & ~1 equal to theirs).
// CHECK-LABEL: llvm.func @scan_replicated_warps
// CHECK-COUNT-6: nvvm.shfl.sync  up
// CHECK: nvvm.shfl.sync  idx
// CHECK: nvvm.barrier0
// CHECK: nvvm.barrier0
// CHECK: %[[M:.*]] = llvm.mlir.constant(-2 : i32) : i32
// CHECK: llvm.and %{{.*}}, %[[M]] : i32
// CHECK: llvm.icmp "eq"
func.func @scan_replicated_warps(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %s = tile.scan add %t along 0 : tensor<64xi32>
  tile.store %s, %v[%c0] : tensor<64xi32>, !tile.view<?xi32>
  return
}

// -----

// A scan with its total: 4096 elements over 8 warps, the warp totals meet
// in scratch between the scan's two barriers, and every thread sums all
// eight for the total: no third barrier, no reduction's shuffles.
// CHECK-LABEL: llvm.func @scan_total
// CHECK-COUNT-2: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: nvvm.shfl.sync  bfly
// CHECK: llvm.return
// PTX-LABEL: .entry scan_total
// PTX-COUNT-2: bar.sync 0
// PTX-NOT: bar.sync
// PTX: ret;
func.func @scan_total(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<4096xi32>
  %s, %total = tile.scan add %t along 0 exclusive : tensor<4096xi32> total i32
  %tt = tile.splat %total : tensor<4096xi32>
  %r = arith.addi %s, %tt : tensor<4096xi32>
  tile.store %r, %v[%c0] : tensor<4096xi32>, !tile.view<?xi32>
  return
}

// -----

// One warp along the line (64 elements, 2 per lane): the total is the
// last lane's inclusive prefix, read with one shfl.idx; no barrier.
// CHECK-LABEL: llvm.func @scan_total_one_warp
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync  idx
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @scan_total_one_warp(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %s, %total = tile.scan max %t along 0 : tensor<64xi32> total i32
  %tt = tile.splat %total : tensor<64xi32>
  %r = arith.addi %s, %tt : tensor<64xi32>
  tile.store %r, %v[%c0] : tensor<64xi32>, !tile.view<?xi32>
  return
}

// -----

// A 64x128 i32 tile scanned down its columns over 8 warps, four elements
// of a row a thread: each column crosses 8 repetitions of 8 warps, 64 chunks.
// One thread per column scans the column's chunk totals in scratch (the
// scf.if on the thread index), between the scan's second barrier and a
// third, and every thread then reads one prefix per repetition and the
// column's total, rather than all 64 totals.
// CHECK-LABEL: llvm.func @scan_by_line
// CHECK-COUNT-2: nvvm.barrier0
// CHECK: scf.if
// CHECK-COUNT-64: llvm.load
// CHECK-COUNT-65: llvm.store
// CHECK: }
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry scan_by_line
// PTX-COUNT-3: bar.sync 0
// PTX-NOT: bar.sync
// PTX: ret;
func.func @scan_by_line(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xi32> -> tensor<64x128xi32>
  %s, %total = tile.scan add %t along 0 : tensor<64x128xi32> total tensor<128xi32>
  %tb = tile.broadcast %total along 0 : tensor<128xi32> -> tensor<64x128xi32>
  %r = arith.subi %s, %tb : tensor<64x128xi32>
  tile.store %r, %v[%c0, %c0] : tensor<64x128xi32>, !tile.view<?x?xi32>
  return
}
