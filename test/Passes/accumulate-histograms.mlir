// RUN: kernel-opt %s -split-input-file -tile-accumulate-histograms | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-accumulate-histograms -canonicalize | FileCheck %s --check-prefix=CANON

// A loop summing a histogram per iteration: the bins live in a shared
// buffer, set from the initial bins, counted into without barriers, and
// read once after the loop.
// CHECK-LABEL: func.func @running
// CHECK: %[[BUF:.*]] = tile.alloc_shared : !tile.smem<256xi32>
// CHECK: tile.barrier
// CHECK-NEXT: tile.store_shared %{{.*}}, %[[BUF]][%{{.*}}] : tensor<256xi32>, !tile.smem<256xi32>
// CHECK-NEXT: tile.barrier
// CHECK: scf.for
// CHECK-NOT: tile.histogram %
// CHECK-NOT: tile.barrier
// CHECK: tile.histogram_add %{{.*}} mask %{{.*}}, %[[BUF]] : tensor<1024xi32>, !tile.smem<256xi32>
// CHECK-NOT: tile.barrier
// CHECK: scf.yield
// CHECK: tile.barrier
// CHECK-NEXT: %[[SUM:.*]] = tile.load_shared %[[BUF]][%{{.*}}] : !tile.smem<256xi32> -> tensor<256xi32>
// CHECK: tile.store %[[SUM]]
// The carried bins are gone from the loop once canonicalized.
// CANON-LABEL: func.func @running
// CANON: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
func.func @running(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xi32>
  %zero = tile.splat %c0 : tensor<256xi32>
  %zt = tile.splat %c0 : tensor<1024xi32>
  %h = scf.for %j = %c0 to %n step %c1024 iter_args(%acc = %zero)
      -> (tensor<256xi32>) : i32 {
    %t = tile.load %v[%j] : tensor<1024xi32>
    %m = arith.cmpi sgt, %t, %zt : tensor<1024xi32>
    %hc = tile.histogram %t mask %m : tensor<1024xi32> -> tensor<256xi32>
    %next = arith.addi %hc, %acc : tensor<256xi32>
    scf.yield %next : tensor<256xi32>
  }
  tile.store %h, %v[0] : tensor<256xi32>
  return
}

// -----

// A loop in a loop: the buffer is set again for each run of the inner loop,
// after a barrier that waits for the last run's reads.
// CHECK-LABEL: func.func @nested
// CHECK: tile.alloc_shared : !tile.smem<2048xi32>
// CHECK: scf.for
// CHECK: tile.barrier
// CHECK-NEXT: tile.store_shared
// CHECK-NEXT: tile.barrier
// CHECK: scf.for
// CHECK: tile.histogram_add
// CHECK: tile.barrier
// CHECK-NEXT: tile.load_shared
func.func @nested(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4096 = arith.constant 4096 : i32
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xi32>
  %zero = tile.splat %c0 : tensor<2048xi32>
  %r = scf.for %pass = %c0 to %c3 step %c1 iter_args(%s = %c0) -> (i32) : i32 {
    %h = scf.for %j = %c0 to %n step %c4096 iter_args(%acc = %zero)
        -> (tensor<2048xi32>) : i32 {
      %t = tile.load %v[%j] : tensor<4096xi32>
      %hc = tile.histogram %t : tensor<4096xi32> -> tensor<2048xi32>
      %next = arith.addi %acc, %hc : tensor<2048xi32>
      scf.yield %next : tensor<2048xi32>
    }
    %m = tile.reduce max %h along 0 : tensor<2048xi32>
    %ns = arith.addi %s, %m : i32
    scf.yield %ns : i32
  }
  %out = tile.splat %r : tensor<2xi32>
  tile.store %out, %v[0] : tensor<2xi32>
  return
}

// -----

// Left alone: the running bins are read inside the loop, and a histogram
// that only some iterations count.
// CHECK-LABEL: func.func @not_a_plain_sum
// CHECK-NOT: tile.alloc_shared
// CHECK-NOT: tile.histogram_add
// CHECK: tile.histogram %
// CHECK: tile.histogram %
func.func @not_a_plain_sum(%p: !tile.ptr<i32>, %n: i32, %flag: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %f = arith.cmpi ne, %flag, %c0 : i32
  %c1024 = arith.constant 1024 : i32
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xi32>
  %zero = tile.splat %c0 : tensor<256xi32>
  %h:2 = scf.for %j = %c0 to %n step %c1024 iter_args(%acc = %zero, %b = %zero)
      -> (tensor<256xi32>, tensor<256xi32>) : i32 {
    %t = tile.load %v[%j] : tensor<1024xi32>
    %hc = tile.histogram %t : tensor<1024xi32> -> tensor<256xi32>
    %next = arith.addi %acc, %hc : tensor<256xi32>
    tile.store %acc, %v[%j] : tensor<256xi32>
    %nb = scf.if %f -> (tensor<256xi32>) {
      %hb = tile.histogram %t : tensor<1024xi32> -> tensor<256xi32>
      %s = arith.addi %b, %hb : tensor<256xi32>
      scf.yield %s : tensor<256xi32>
    } else {
      scf.yield %b : tensor<256xi32>
    }
    scf.yield %next, %nb : tensor<256xi32>, tensor<256xi32>
  }
  tile.store %h#0, %v[0] : tensor<256xi32>
  tile.store %h#1, %v[0] : tensor<256xi32>
  return
}
