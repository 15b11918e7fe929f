// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-scan-totals | FileCheck %s

// A compaction's count and positions: the sum of the predicate becomes the
// total of its exclusive scan (one pass across the threads, not two).
// CHECK-LABEL: func.func @count_and_place
// CHECK: %[[POS:.*]], %[[COUNT:.*]] = tile.scan add %{{.*}} along 0 exclusive : tensor<4096xi32, #{{.*}}> total i32
// CHECK-NOT: tile.reduce
// CHECK: tile.splat %[[COUNT]]
// CHECK: arith.addi %[[POS]]
func.func @count_and_place(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xi32>
  %t = tile.load %v[0] : tensor<4096xi32>
  %count = tile.reduce add %t along 0 : tensor<4096xi32>
  %pos = tile.scan add %t along 0 exclusive : tensor<4096xi32>
  %countT = tile.splat %count : tensor<4096xi32>
  %at = arith.addi %pos, %countT : tensor<4096xi32>
  tile.store %at, %v[0] : tensor<4096xi32>
  return
}

// -----

// The scan before the reduction, reversed; the total of a rank-2 tile
// along 1 takes the slice of the scan's layout, as the reduction's did.
// CHECK: #[[SLICE:.*]] = #tile.slice<dim = 1, parent = #[[L:.*]]>
// CHECK-LABEL: func.func @rows
// CHECK: %{{.*}}, %[[MAX:.*]] = tile.scan max %{{.*}} along 1 reverse : tensor<16x256xi32, #[[L]]> total tensor<16xi32, #[[SLICE]]>
// CHECK-NOT: tile.reduce
func.func @rows(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %v = tile.make_view %p[16, 256] strides[256, 1] : !tile.view<?x?xi32>
  %w = tile.make_view %q[16] strides[1] : !tile.view<?xi32>
  %t = tile.load %v[0, 0] : tensor<16x256xi32>
  %s = tile.scan max %t along 1 reverse : tensor<16x256xi32>
  %m = tile.reduce max %t along 1 : tensor<16x256xi32> -> tensor<16xi32>
  tile.store %s, %v[0, 0] : tensor<16x256xi32>
  tile.store %m, %w[0] : tensor<16xi32>
  return
}

// -----

// Left alone: a float sum (the scan adds in another order than the
// reduction), another combine, another dimension, another block, and a
// tile narrower than the program (replicas scan as separate segments).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: tile.reduce
// CHECK-NOT: total
func.func @kept(%pf: !tile.ptr<f32>, %p: !tile.ptr<i32>, %flag: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %zero = arith.constant 0 : i32
  %c = arith.cmpi ne, %flag, %zero : i32
  %vf = tile.make_view %pf[4096] strides[1] : !tile.view<?xf32>
  %v = tile.make_view %p[4096] strides[1] : !tile.view<?xi32>
  %f = tile.load %vf[0] : tensor<1024xf32>
  %fs = tile.scan add %f along 0 : tensor<1024xf32>
  %fr = tile.reduce add %f along 0 : tensor<1024xf32>
  tile.store %fs, %vf[0] : tensor<1024xf32>
  %i = tile.load %v[0] : tensor<1024xi32>
  %is = tile.scan max %i along 0 : tensor<1024xi32>
  %ir = tile.reduce add %i along 0 : tensor<1024xi32>
  tile.store %is, %v[0] : tensor<1024xi32>
  %v2 = tile.make_view %p[16, 64] strides[64, 1] : !tile.view<?x?xi32>
  %t2 = tile.load %v2[0, 0] : tensor<16x64xi32>
  %s2 = tile.scan add %t2 along 0 : tensor<16x64xi32>
  %r2 = tile.reduce add %t2 along 1 : tensor<16x64xi32> -> tensor<16xi32>
  tile.store %s2, %v2[0, 0] : tensor<16x64xi32>
  %j = tile.load %v[1] : tensor<1024xi32>
  %jr = tile.reduce add %j along 0 : tensor<1024xi32>
  scf.if %c {
    %js = tile.scan add %j along 0 : tensor<1024xi32>
    tile.store %js, %v[1] : tensor<1024xi32>
  }
  %k = tile.load %v[2] : tensor<64xi32>
  %ks = tile.scan add %k along 0 : tensor<64xi32>
  %kr = tile.reduce add %k along 0 : tensor<64xi32>
  tile.store %ks, %v[2] : tensor<64xi32>
  %sum0 = arith.addi %ir, %jr : i32
  %sum1 = arith.addi %sum0, %kr : i32
  %s1 = tile.splat %sum1 : tensor<1xi32>
  tile.store %s1, %v[0] : tensor<1xi32>
  %frs = tile.splat %fr : tensor<1xf32>
  tile.store %frs, %vf[0] : tensor<1xf32>
  %r2s = tile.make_view %p[16] strides[1] : !tile.view<?xi32>
  tile.store %r2, %r2s[0] : tensor<16xi32>
  return
}
