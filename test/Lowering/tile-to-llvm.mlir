// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s

// A row reduction across two warps: per-thread combine, five butterfly
// shuffles across 32 lanes, then a barrier-fenced exchange through shared
// scratch between the warps.
// CHECK: llvm.mlir.global external @__tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @row_max
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 64, 1, 1>
// CHECK-SAME: tile.metadata = {block = [64, 1, 1], cluster = [1, 1, 1], name = "row_max", params = [{elem = "f32", kind = "ptr", name = "arg0"}, {kind = "i32", name = "arg1"}], shared_bytes = 16 : i64, target = "sm_90a", tensor_maps = []}
// CHECK: nvvm.read.ptx.sreg.tid.x
// 16-byte vector loads when the view is contiguous and aligned ...
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// ... else element loads predicated on the bounds.
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @row_max(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<1x512xf32>
  %r = tile.reduce max %t along 1 : tensor<1x512xf32> -> tensor<1xf32>
  %e = tile.expand_dims %r at 1 : tensor<1xf32> -> tensor<1x1xf32>
  %b = tile.broadcast %e : tensor<1x1xf32> -> tensor<1x512xf32>
  %d = arith.subf %t, %b : tensor<1x512xf32>
  tile.store %d, %v[%c0, %c0] : tensor<1x512xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A column reduction across 8 warps: each lane holds partials of several
// columns, so the partials go to scratch as [warp][column] with one word of
// padding per 32 (index + index >> 5), which keeps the 32 lanes of a store
// in 32 different banks; each thread then reads the 8 warps' partials of
// its columns at the same padded places.
// CHECK-LABEL: llvm.func @column_max
// CHECK: nvvm.barrier0
// CHECK: %[[W:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[I:.*]] = llvm.add %[[W]], %{{.*}} : i32
// CHECK: %[[P:.*]] = llvm.lshr %[[I]], %{{.*}} : i32
// CHECK: llvm.add %[[I]], %[[P]] : i32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.lshr
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
func.func @column_max(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %w = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x128xf32>
  %r = tile.reduce max %t along 0 : tensor<64x128xf32> -> tensor<128xf32>
  tile.store %r, %w[%c0] : tensor<128xf32>, !tile.view<?xf32>
  return
}

// -----

// Element-wise ops on tiles become one scalar op per held element; the
// grid query becomes the special register.
// CHECK-LABEL: llvm.func @scale
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK-COUNT-2: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.mulf
// CHECK: llvm.return
func.func @scale(%p: !tile.ptr<f32>, %n: i32, %s: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c1 = arith.constant 1 : i32
  %pid = tile.program_id x
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%pid] : !tile.view<?xf32> -> tensor<64xf32>
  %k = tile.splat %s : tensor<64xf32>
  %r = arith.mulf %t, %k : tensor<64xf32>
  tile.store %r, %v[%pid] : tensor<64xf32>, !tile.view<?xf32>
  return
}

// -----

// Loops carry the registers of their tiles.
// CHECK-LABEL: llvm.func @accumulate
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32) : i32
func.func @accumulate(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %acc = scf.for %i = %c0 to %n step %c64 iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
    %t = tile.load %v[%i] : !tile.view<?xf32> -> tensor<64xf32>
    %s = arith.addf %a, %t : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  tile.store %acc, %v[%c0] : tensor<64xf32>, !tile.view<?xf32>
  return
}

// -----

// A tile.noalias argument becomes an LLVM noalias pointer, so that LLVM's
// alias analysis has the caller's promise too.
// CHECK-LABEL: llvm.func @noalias_arg(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1> {llvm.noalias}, %{{.*}}: i32)
func.func @noalias_arg(%a: !tile.ptr<f32>, %o: !tile.ptr<f32> {tile.noalias}, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %a[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %w = tile.make_view %o[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  tile.store %t, %w[%c0] : tensor<64xf32>, !tile.view<?xf32>
  return
}

// -----

// A sum of 64 elements over 4 warps: warps 2 and 3 hold replicas, which
// take the identity (-0.0, so that a sum of -0s stays -0) before the
// combine, so that each element counts once.
// CHECK-LABEL: llvm.func @sum_replicated
// CHECK-DAG: %[[Z:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[E:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: %[[OWN:.*]] = llvm.icmp "ult" %{{.*}}, %[[E]] : i32
// CHECK: arith.select %[[OWN]], %{{.*}}, %[[Z]] : f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK: nvvm.barrier0
func.func @sum_replicated(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  %s = tile.reduce add %t along 0 : tensor<64xf32>
  %o = tile.splat %s : tensor<1xf32>
  tile.store %o, %v[%c0] : tensor<1xf32>, !tile.view<?xf32>
  return
}
