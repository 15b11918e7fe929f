// RUN: kernel-opt %s -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=target=sm_100a -canonicalize -cse | FileCheck %s
// RUN: emit-ptx %s --target=sm_100a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.ptx -o %t.o %}

// A tcgen05 ring fed by a producer warp (tile.warp_specialize): the
// tensor cores release each stage themselves, so the producer waits on
// the ring's consumed barriers (the dots' tile.dot_commit, one arrival per
// phase) where a wgmma ring's producer waits on empty barriers the
// consumer threads arrive on; no empty barriers are made. The consumers
// wait for each stage's copies, pass a barrier of their own (so that no
// consumer thread falls two phases behind: only the dots' commits gate the
// refills), issue the dots and commit them; after the loop they wait for
// the last commit, which completes the accumulator. The cp.async version
// (else) is the consumers' own, as without a producer.
// CHECK-LABEL: func.func @gemm_tcgen05_ws
// CHECK: %[[DONE:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[DONE]] count 1
// CHECK: %[[READY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[READY]] count 1
// CHECK-NOT: tile.alloc_shared
// CHECK: tile.warp_specialize producer_warps 4 registers(40, 232) {
// CHECK: scf.for
// CHECK: %[[STAGE:.*]] = arith.remui
// CHECK: %[[FREED:.*]] = arith.andi
// CHECK-NEXT: tile.mbarrier_wait %[[DONE]][%[[STAGE]]] phase %[[FREED]]
// CHECK-NEXT: tile.mbarrier_expect %[[READY]][%[[STAGE]]], 32768
// CHECK-NEXT: tile.tma_copy
// CHECK-NEXT: tile.tma_copy
// CHECK: } consumers {
// CHECK: scf.for
// CHECK: tile.mbarrier_wait %[[READY]]
// CHECK-NEXT: tile.barrier
// CHECK: tile.dot {{.*}} async
// CHECK-NEXT: tile.dot_commit %[[DONE]]
// CHECK-NEXT: scf.yield
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: } else {
// CHECK: tile.async_copy

// The producer warpgroup (threads 256..383) gives up registers and issues
// the copies; the consumers take them, wait, pass their named barrier and
// thread 0 issues tcgen05.mma and commits.
// PTX-LABEL: .entry gemm_tcgen05_ws
// PTX: .reqntid 384, 1, 1
// PTX: tcgen05.alloc.cta_group::1
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: mbarrier.try_wait.parity
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: mbarrier.try_wait.parity
// PTX: bar.sync 1, 256;
// PTX: tcgen05.mma.cta_group::1.kind::f16
// PTX: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX: tcgen05.ld.sync.aligned.32x32b
// PTX: bar.sync 0;
// PTX: tcgen05.dealloc.cta_group::1
func.func @gemm_tcgen05_ws(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                           %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.warp_specialize = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %col = arith.muli %n0, %c128 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%col, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%row, %col] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
