// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=target=sm_100a -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=num-stages=2 -canonicalize -cse | FileCheck %s --check-prefix=S2

// tcgen05 dots (sm_100a) keep the TMA and cp.async rings of sm_90a, but
// complete on mbarriers: a second ring of "consumed" barriers (%[[DONE]]),
// one per stage, receives a tile.dot_commit after each iteration's async
// dot; the copy into the stage the previous iteration read follows the
// dot, behind a wait on that iteration's commit (parity ((i+3)/4 + 1) % 2,
// which a fresh barrier passes at i = 0); copies run S - 1 = 3 ahead. After
// the loop, a wait for the last commit, before the accumulator is read.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[DONE:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[DONE]] count 1
// CHECK: %[[READY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[READY]] count 1
// CHECK: scf.if
// CHECK-COUNT-3: tile.mbarrier_expect %[[READY]]
// CHECK: scf.for
// CHECK: %[[I:.*]] = arith.divui
// CHECK: %[[READ:.*]] = arith.remui %[[I]], %c4_i32
// CHECK: tile.mbarrier_wait %[[READY]][%[[READ]]]
// CHECK-NEXT: tile.barrier
// CHECK: tile.dot {{.*}} async
// CHECK-NEXT: tile.dot_commit %[[DONE]][%[[READ]]]
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[I]], %c3_i32
// CHECK-NEXT: %[[Q:.*]] = arith.divui %[[J]], %c4_i32
// CHECK-NEXT: %[[Q1:.*]] = arith.addi %[[Q]], %c1_i32
// CHECK-NEXT: %[[P:.*]] = arith.andi %[[Q1]], %c1_i32
// CHECK-NEXT: %[[W:.*]] = arith.remui %[[J]], %c4_i32
// CHECK-NEXT: tile.mbarrier_wait %[[DONE]][%[[W]]] phase %[[P]]
// CHECK: tile.mbarrier_expect %[[READY]][%[[W]]]
// CHECK: tile.tma_copy {{.*}}, {{.*}}[%[[W]]], %[[READY]][%[[W]]]
// CHECK: scf.yield
// CHECK-NOT: tile.dot_wait
// CHECK: tile.mbarrier_wait %[[DONE]]
// The cp.async version, into the same stages, with the same barriers.
// CHECK: } else {
// CHECK: scf.for
// CHECK: tile.async_wait 2
// CHECK: tile.dot {{.*}} async
// CHECK-NEXT: tile.dot_commit %[[DONE]]
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: tile.async_copy
// CHECK: tile.async_commit
// CHECK-NEXT: scf.yield
// CHECK: tile.async_wait 0
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: tile.convert_layout
// With two stages tcgen05 dots are still async (wgmma needs three), one
// copy ahead.
// S2-LABEL: func.func @gemm
// S2: tile.alloc_shared : !tile.smem<2x128x64xbf16
// S2: tile.dot {{.*}} async
// S2-NEXT: tile.dot_commit
// S2: tile.async_copy
func.func @gemm(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>,
                %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
