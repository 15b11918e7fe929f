// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads=num-stages=2 -canonicalize -cse | FileCheck %s --check-prefix=S2
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_80 -canonicalize -tile-pipeline-loads -canonicalize -cse | FileCheck %s --check-prefix=SM80

// A K loop whose loads are a dot's operands (A as rows of K, B as rows of K
// transposed): each load becomes an async copy into a four-stage ring laid
// out as the dot reads it (128-byte swizzle for 128-byte rows; A's rows in
// wgmma order for 8 warps on sm_90a). On sm_90a the dot runs async: copies
// go two iterations ahead, one dot stays in flight.
// CHECK-LABEL: func.func @k_loop
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: %[[VA:.*]] = tile.make_view %arg0
// CHECK: %[[VB:.*]] = tile.make_view %arg1
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// Prologue: iterations 0 and 1 into stages 0 and 1, one group each (an
// empty group for an iteration past the loop's end).
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi sgt, %[[K:.*]], %[[C0]]
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK-NEXT: tile.async_copy %[[VA]][%[[C0]], %[[C0]]], %[[RA]][%[[C0]]]
// CHECK-NEXT: tile.async_copy %[[VB]][%[[C0]], %[[C0]]], %[[RB]][%[[C0]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi sgt, %[[K]], %[[C64]]
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: tile.async_copy %[[VA]][%[[C0]], %[[C64]]], %[[RA]][%[[C1]]]
// CHECK-NEXT: tile.async_copy %[[VB]][%[[C0]], %[[C64]]], %[[RB]][%[[C1]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_commit
// Iteration i reads stage i % 4 once its group has landed, after copying
// iteration i + 2 into stage (i + 2) % 4 (last read by the dot of i - 2,
// which the previous iteration's dot_wait saw complete).
// CHECK-NEXT: scf.for %[[IV:[a-z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:   %[[IT:.*]] = arith.divui %[[IV]], %[[C64]]
// CHECK-NEXT:   %[[READ:.*]] = arith.remui %[[IT]], %[[C4]]
// CHECK-NEXT:   %[[IT2:.*]] = arith.addi %[[IT]], %{{.*}}
// CHECK-NEXT:   %[[WRITE:.*]] = arith.remui %[[IT2]], %[[C4]]
// CHECK-NEXT:   tile.async_wait 1
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[IV]], %[[C128]]
// CHECK-NEXT:   %[[INNEXT:.*]] = arith.cmpi slt, %[[NEXT]], %[[K]]
// CHECK-NEXT:   scf.if %[[INNEXT]] {
// CHECK-NEXT:   tile.async_copy %[[VA]][%[[C0]], %[[NEXT]]], %[[RA]][%[[WRITE]]]
// CHECK-NEXT:   tile.async_copy %[[VB]][%[[C0]], %[[NEXT]]], %[[RB]][%[[WRITE]]]
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.async_commit
// CHECK-NEXT:   %[[A:.*]] = tile.load_stage %[[RA]][%[[READ]]]
// CHECK-NEXT:   %[[B:.*]] = tile.load_stage %[[RB]][%[[READ]]]
// CHECK-NEXT:   %[[BT:.*]] = tile.transpose %[[B]]
// CHECK-NEXT:   %[[D:.*]] = tile.dot %[[A]], %[[BT]], %[[ACC]] async
// CHECK-NEXT:   %[[W:.*]] = tile.dot_wait %[[D]] pending 1
// CHECK-NEXT:   scf.yield %[[W]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[DONE:.*]] = tile.dot_wait %{{.*}} pending 0
// CHECK-NEXT: tile.async_wait 0
// CHECK: tile.store %[[DONE]]
// Two stages: no room for a dot in flight; copies one iteration ahead.
// S2-LABEL: func.func @k_loop
// S2: tile.alloc_shared : !tile.smem<2x128x64xbf16
// S2: scf.for
// S2: tile.async_wait 0
// S2: tile.async_copy
// S2: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor
// S2-NOT: tile.dot_wait
// sm_80: mma.sync is synchronous; copies three iterations ahead.
// SM80-LABEL: func.func @k_loop
// SM80: tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// SM80: tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// SM80: scf.for
// SM80: tile.async_wait 2
// SM80-NOT: tile.dot_wait
func.func @k_loop(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// Operands that cannot be copied as they are read stay in registers, issued
// ahead (one iteration): a masked load, a B loaded as K rows of N (it
// would need a transposing copy), and a load used twice.
// CHECK-LABEL: func.func @register_operands
// CHECK-NOT: tile.alloc_shared
// CHECK: scf.for %[[IV:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}})
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}}
// CHECK-NEXT: tile.load %{{.*}}[%{{.*}}, %[[NEXT]]] mask
// CHECK-NEXT: tile.load %{{.*}}[%[[NEXT]], %{{.*}}]
// CHECK-NEXT: tile.load %{{.*}}[%{{.*}}, %[[NEXT]]]
// CHECK-NEXT: tile.dot %[[A]], %[[B]]
// CHECK-NEXT: tile.dot %[[C]], %[[C]]
func.func @register_operands(%a: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %mask = arith.constant dense<true> : tensor<64x64xi1>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] mask %mask : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %tb = tile.load %va[%kk, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %tc = tile.load %va[%c64, %kk] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %e = tile.dot %tc, %tc, %d : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %e : tensor<64x64xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}

// -----

// tile.shared_reserve keeps shared memory out of a kernel's rings: of the
// 164 KiB assumed without a target, 116 KiB reserved leave 48 KiB, which
// hold three stages of A (16 KiB each) but not two of A and B, so A takes
// the ring (loads in program order go first) and B stays a load in the
// loop.
// CHECK-LABEL: func.func @ring_cap
// CHECK: tile.alloc_shared : !tile.smem<3x128x64xbf16
// CHECK-NOT: tile.alloc_shared : !tile.smem<{{[0-9]+}}x128x64xbf16
// CHECK: scf.for
// CHECK: tile.load %{{.*}} : tensor<128x64xbf16
// CHECK: tile.dot
func.func @ring_cap(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.shared_reserve = 118784 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
