// RUN: kernel-opt %s -split-input-file -tile-pipeline-loads=num-stages=2 | FileCheck %s --check-prefixes=CHECK,S2
// RUN: kernel-opt %s -split-input-file -tile-pipeline-loads="num-stages=3 register-ahead=2" | FileCheck %s --check-prefixes=CHECK,S3
// RUN: kernel-opt %s -split-input-file -tile-pipeline-loads=num-stages=1 | FileCheck %s --check-prefix=OFF

// The two loads of a K loop feed its dot: each is issued one iteration
// ahead (two with num-stages=3), its tiles carried by the loop.
// CHECK-LABEL: func.func @k_loop
// CHECK: %[[LB:.*]] = arith.constant 0 : i32
// CHECK: %[[A0:.*]] = tile.load %{{.*}}[%{{.*}}, %[[LB]]]
// S3: %[[A1:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}]
// CHECK: %[[B0:.*]] = tile.load %{{.*}}[%{{.*}}, %[[LB]]]
// S3: %[[B1:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}]
// S2: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]])
// S3: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]], %[[AN:.*]] = %[[A1]], %[[B:.*]] = %[[B0]], %[[BN:.*]] = %[[B1]])
// S2:   %[[AHEAD:.*]] = arith.constant 1 : i32
// S3:   %[[AHEAD:.*]] = arith.constant 2 : i32
// CHECK:   %[[DIST:.*]] = arith.muli %{{.*}}, %[[AHEAD]]
// CHECK:   %[[NEXT:.*]] = arith.addi %[[IV]], %[[DIST]]
// CHECK:   %[[AP:.*]] = tile.load %{{.*}}[%{{.*}}, %[[NEXT]]]
// CHECK:   %[[BP:.*]] = tile.load %{{.*}}[%{{.*}}, %[[NEXT]]]
// CHECK:   %[[BT:.*]] = tile.transpose %[[B]]
// CHECK:   %[[D:.*]] = tile.dot %[[A]], %[[BT]], %[[ACC]]
// S2:   scf.yield %[[D]], %[[AP]], %[[BP]]
// S3:   scf.yield %[[D]], %[[AN]], %[[AP]], %[[BN]], %[[BP]]
// CHECK-NOT: tile.load %{{.*}}[%{{.*}}, %[[IV]]]
// OFF-LABEL: func.func @k_loop
// OFF: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x64xf32>)
// OFF: tile.load %{{.*}}[%{{.*}}, %[[IV]]]
func.func @k_loop(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %tb = tile.load %vb[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %tbt = tile.transpose %tb : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  return
}

// -----

// Offsets computed in the body from the induction variable are recomputed
// for the prefetched iteration.
// CHECK-LABEL: func.func @computed_offset
// CHECK: scf.for %[[IV:[a-z0-9_]+]] =
// CHECK:   %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}}
// CHECK:   %[[ROW:.*]] = arith.muli %[[NEXT]], %{{.*}}
// CHECK:   tile.load %{{.*}}[%[[ROW]], %{{.*}}]
// CHECK-NOT: arith.muli %[[IV]]
// CHECK:   tile.dot
func.func @computed_offset(%a: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %v = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %row = arith.muli %i, %c2 : i32
    %t = tile.load %v[%row, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %t, %t, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  return
}

// -----

// A body that stores is left alone: a load moved ahead of the store could
// read what the store has not written yet.
// CHECK-LABEL: func.func @body_stores
// CHECK: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK-NEXT: tile.load %{{.*}}[%[[IV]], %{{.*}}]
func.func @body_stores(%a: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %t = tile.load %v[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %t, %t, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %t, %v[%c0, %i] : tensor<64x64xbf16>, !tile.view<?x?xbf16>
    scf.yield %d : tensor<64x64xf32>
  }
  return
}

// -----

// A store through a tile.noalias argument that no load of the body reads
// through cannot change what the loads read: the loads move ahead of it.
// CHECK-LABEL: func.func @body_stores_apart
// CHECK: tile.load
// CHECK: scf.for %{{.*}} iter_args(%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %[[T:[a-z0-9_]+]] = 
// CHECK: %[[NEXT:.*]] = tile.load
// CHECK: tile.dot %[[T]], %[[T]]
// CHECK: tile.store
// CHECK: scf.yield %{{.*}}, %[[NEXT]]
func.func @body_stores_apart(%a: !tile.ptr<bf16>, %o: !tile.ptr<bf16> {tile.noalias}, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %w = tile.make_view %o[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %t = tile.load %v[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %t, %t, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %t, %w[%c0, %i] : tensor<64x64xbf16>, !tile.view<?x?xbf16>
    scf.yield %d : tensor<64x64xf32>
  }
  return
}

// -----

// The promise covers other arguments only: a store through a tile.noalias
// argument that a load of the body also reads through keeps the loop as
// it is.
// CHECK-LABEL: func.func @noalias_read_too
// CHECK: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK-NEXT: tile.load %{{.*}}[%[[IV]], %{{.*}}]
func.func @noalias_read_too(%a: !tile.ptr<bf16> {tile.noalias}, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %t = tile.load %v[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %t, %t, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %t, %v[%c0, %i] : tensor<64x64xbf16>, !tile.view<?x?xbf16>
    scf.yield %d : tensor<64x64xf32>
  }
  return
}

// -----

// Loads that feed no dot (a reduction loop) stay where they are, and so do
// loads whose offsets depend on another loop-carried value.
// CHECK-LABEL: func.func @no_dot
// CHECK: scf.for %[[IV:[a-z0-9_]+]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64xf32>)
// CHECK-NEXT: tile.load %{{.*}}[%[[IV]], %{{.*}}]
// CHECK-LABEL: func.func @carried_offset
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ROW:.*]] = %{{.*}}) -> (tensor<64x64xf32>, i32)
// CHECK-NEXT: tile.load %{{.*}}[%[[ROW]], %{{.*}}]
func.func @no_dot(%a: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %t = tile.load %v[%i, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
    %r = tile.reduce add %t along 1 : tensor<64x64xf32> -> tensor<64xf32>
    %s = arith.addf %acc, %r : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  return
}
func.func @carried_offset(%a: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %v = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %row = %c0) -> (tensor<64x64xf32>, i32) : i32 {
    %t = tile.load %v[%row, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %t, %t, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %next = arith.addi %row, %c3 : i32
    scf.yield %d, %next : tensor<64x64xf32>, i32
  }
  return
}
