// RUN: kernel-opt %s -split-input-file -tile-pipeline-loads=num-stages=1 -verify-diagnostics | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-pipeline-loads=num-stages=4 -verify-diagnostics | FileCheck %s

// A loop marked tile.load_ahead queues its loads in registers although they
// feed no dot, at any num-stages: the first tile is loaded before the loop,
// each iteration loads the next one, and the mark is spent while the
// loop's other attributes stay.
// CHECK-LABEL: func.func @histogram_ahead
// CHECK: %[[LB:.*]] = arith.constant 0 : i32
// CHECK: %[[FIRST:.*]] = tile.load %{{.*}}[%[[LB]]] mask
// CHECK: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[T:.*]] = %[[FIRST]])
// CHECK:   %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}}
// CHECK:   %[[TN:.*]] = tile.load %{{.*}}[%[[NEXT]]] mask
// CHECK:   arith.bitcast %[[T]]
// CHECK:   tile.histogram
// CHECK:   scf.yield %{{.*}}, %[[TN]]
// CHECK-NEXT: } {tile.no_hoist}
// CHECK-NOT: tile.load_ahead
func.func @histogram_ahead(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c255 = arith.constant 255 : i32
  %chunk = arith.constant 1024 : i32
  %src = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %lane = tile.iota : tensor<1024xi32>
  %nT = tile.splat %n : tensor<1024xi32>
  %m = tile.splat %c255 : tensor<1024xi32>
  %zero = tile.splat %c0 : tensor<256xi32>
  %hist = scf.for %j = %c0 to %n step %chunk iter_args(%h = %zero) -> (tensor<256xi32>) : i32 {
    %jT = tile.splat %j : tensor<1024xi32>
    %cols = arith.addi %lane, %jT : tensor<1024xi32>
    %valid = arith.cmpi slt, %cols, %nT : tensor<1024xi32>
    %t = tile.load %src[%j] mask %valid : tensor<1024xf32>
    %bits = arith.bitcast %t : tensor<1024xf32> to tensor<1024xi32>
    %digit = arith.andi %bits, %m : tensor<1024xi32>
    %hc = tile.histogram %digit mask %valid : tensor<1024xi32> -> tensor<256xi32>
    %hn = arith.addi %h, %hc : tensor<256xi32>
    scf.yield %hn : tensor<256xi32>
  } {tile.load_ahead = 1 : i32, tile.no_hoist}
  return
}

// -----

// Two iterations ahead: a queue of two tiles.
// CHECK-LABEL: func.func @two_ahead
// CHECK: %[[T0:.*]] = tile.load
// CHECK: %[[T1:.*]] = tile.load
// CHECK: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[A:.*]] = %[[T0]], %[[B:.*]] = %[[T1]])
// CHECK:   %[[TN:.*]] = tile.load
// CHECK:   tile.reduce add %[[A]]
// CHECK:   scf.yield %{{.*}}, %[[B]], %[[TN]]
func.func @two_ahead(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zerof = arith.constant 0.0 : f32
  %chunk = arith.constant 1024 : i32
  %src = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %sum = scf.for %j = %c0 to %n step %chunk iter_args(%s = %zerof) -> (f32) : i32 {
    %t = tile.load %src[%j] : tensor<1024xf32>
    %r = tile.reduce add %t along 0 : tensor<1024xf32> -> f32
    %sn = arith.addf %s, %r : f32
    scf.yield %sn : f32
  } {tile.load_ahead = 2 : i32}
  return
}

// -----

// Writes through tile.noalias arguments the body does not read through,
// here a compaction (tile.scatter_store) and a counter (tile.atomic) inside
// an scf.if, cannot change what the loads read: the loads move ahead.
// CHECK-LABEL: func.func @collect_ahead
// CHECK: %[[FIRST:.*]] = tile.load
// CHECK: scf.for %{{.*}} iter_args(%[[T:.*]] = %[[FIRST]])
// CHECK:   %[[TN:.*]] = tile.load
// CHECK:   arith.cmpf ogt, %[[T]]
// CHECK:   scf.if
// CHECK:     tile.atomic add
// CHECK:     tile.scatter_store
// CHECK:   scf.yield %[[TN]]
func.func @collect_ahead(%x: !tile.ptr<f32>, %out: !tile.ptr<f32> {tile.noalias},
                         %count: !tile.ptr<i32> {tile.noalias}, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zerof = arith.constant 0.0 : f32
  %chunk = arith.constant 1024 : i32
  %src = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %dst = tile.make_view %out[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %cnt = tile.make_view %count[%c1] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %zeroT = tile.splat %zerof : tensor<1024xf32>
  %lane = tile.iota : tensor<1024xi32>
  %at = tile.splat %c0 : tensor<1xi32>
  scf.for %j = %c0 to %n step %chunk : i32 {
    %t = tile.load %src[%j] : tensor<1024xf32>
    %pos = arith.cmpf ogt, %t, %zeroT : tensor<1024xf32>
    %p32 = arith.extui %pos : tensor<1024xi1> to tensor<1024xi32>
    %any = tile.reduce add %p32 along 0 : tensor<1024xi32> -> i32
    %some = arith.cmpi ne, %any, %c0 : i32
    scf.if %some {
      %anyT = tile.splat %any : tensor<1xi32>
      %old = tile.atomic add %cnt[%at], %anyT : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
      tile.scatter_store %t, %dst[%lane] mask %pos : !tile.view<?xf32>[tensor<1024xi32>], tensor<1024xf32>
    }
  } {tile.load_ahead = 1 : i32}
  return
}

// -----

// A store through the view the loads read keeps the loop as it is, and
// says so.
// CHECK-LABEL: func.func @writes_what_it_reads
// CHECK: scf.for %[[IV:[a-z0-9_]+]] =
// CHECK-NEXT: tile.load %{{.*}}[%[[IV]]]
func.func @writes_what_it_reads(%x: !tile.ptr<f32> {tile.noalias}, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %chunk = arith.constant 1024 : i32
  %src = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  // expected-warning @+1 {{'tile.load_ahead' ignored: the loop writes memory its loads may read}}
  scf.for %j = %c0 to %n step %chunk : i32 {
    %t = tile.load %src[%j] : tensor<1024xf32>
    %u = arith.addf %t, %t : tensor<1024xf32>
    tile.store %u, %src[%j] : tensor<1024xf32>, !tile.view<?xf32>
  } {tile.load_ahead = 1 : i32}
  return
}

// -----

// A load at an offset carried by the loop cannot be issued ahead.
func.func @carried(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zerof = arith.constant 0.0 : f32
  %chunk = arith.constant 1024 : i32
  %src = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  // expected-warning @+1 {{'tile.load_ahead' ignored: no load's offsets follow the induction variable}}
  %r:2 = scf.for %j = %c0 to %n step %chunk iter_args(%s = %zerof, %at = %c0) -> (f32, i32) : i32 {
    %t = tile.load %src[%at] : tensor<1024xf32>
    %r = tile.reduce add %t along 0 : tensor<1024xf32> -> f32
    %sn = arith.addf %s, %r : f32
    %an = arith.addi %at, %chunk : i32
    scf.yield %sn, %an : f32, i32
  } {tile.load_ahead = 1 : i32}
  return
}
