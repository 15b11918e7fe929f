// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads="target=sm_90a wgmma-stage-box=true" -canonicalize -cse | FileCheck %s

// tile.multicast = 2 on a warp-specialized wgmma ring: two programs along
// y (cluster ranks 0 and 1) compute the same 128 columns, so B is the same
// for both. In the TMA version each producer copies its own A rows and
// part `rank` of B (one 64-row box, the tensor map's box half of the
// stage's rows) into the stages of both programs (mask 3), and announces
// its whole stage (32768 bytes). Every barrier of the cluster is
// initialized before any program copies into another's (the cluster
// barrier before the specialization). Each consumer warp releases a stage
// on the empty barriers of both programs (`across 2`: lane l on program
// l's), so that an empty barrier, counting 8 warps of 2 programs,
// completes once the warps of both programs are done with the stage; the
// last iteration's stage is released after the loop's final dot_wait. Before it leaves, a producer
// waits until the last 4 iterations are released everywhere: no program
// writes its stages or arrives on its barriers after that.
// CHECK-LABEL: func.func @gemm_multicast
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[MA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK: %[[WA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[MB:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[FULL]] count 1
// CHECK: %[[OK:.*]] = tile.view_aligned
// CHECK: %[[RANK:.*]] = tile.cluster_rank
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[EMPTY]] count 16
// CHECK-NEXT: tile.cluster_barrier
// CHECK-NEXT: tile.warp_specialize producer_warps 4 registers(40, 232) {
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: scf.for %[[IV:[a-z0-9_]+]] =
// CHECK:   tile.mbarrier_wait %[[EMPTY]]
// CHECK-NEXT:   tile.mbarrier_expect %[[FULL]][%[[STAGE:.*]]], 32768
// A, not shared, moves in one box while its stage lies inside the view.
// CHECK:        scf.if
// CHECK-NEXT:   tile.tma_copy %[[WA]][%{{.*}}, %[[IV]]], %[[RA]][%[[STAGE]]], %[[FULL]][%[[STAGE]]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:   tile.tma_copy %[[MA]][%{{.*}}, %[[IV]]], %[[RA]][%[[STAGE]]], %[[FULL]][%[[STAGE]]]
// CHECK-NOT:    multicast
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.tma_copy %[[MB]][%{{.*}}, %[[IV]]], %[[RB]][%[[STAGE]]], %[[FULL]][%[[STAGE]]] multicast %c3_i32 part %[[RANK]] of 2
// CHECK-NEXT: }
// CHECK-COUNT-4: tile.mbarrier_wait %[[EMPTY]]
// CHECK-NOT: tile.mbarrier_wait
// CHECK: } consumers {
// CHECK: scf.for
// CHECK:   tile.mbarrier_wait %[[FULL]]
// CHECK:   tile.dot {{.*}} async
// CHECK-NEXT:   tile.dot_wait {{.*}} pending 1
// CHECK:   scf.if
// CHECK:     tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] across 2
// CHECK:   scf.yield
// CHECK: tile.dot_wait {{.*}} pending 0
// CHECK: scf.if
// CHECK:   %[[LAST:.*]] = arith.subi %{{.*}}, %[[C1]]
// CHECK:   %[[LSTAGE:.*]] = arith.remui %[[LAST]], %[[C4]]
// CHECK:   tile.mbarrier_arrive %[[EMPTY]][%[[LSTAGE]]] across 2
// CHECK: } else {
// CHECK: tile.async_copy
// CHECK-NOT: across
// CHECK: return
func.func @gemm_multicast(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                          %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.warp_specialize = true, tile.multicast = 2 : i32} {
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


// -----

// The other way round: rows along x, columns along y, so A is the same
// for both programs of the cluster and B is not. A is staged in wgmma
// order (8-row boxes placed where the warpgroups' m64 blocks want them):
// its tensor map keeps 8-row boxes, and program `rank` copies every other
// one of them (part rank of 2) to both programs.
// CHECK-LABEL: func.func @gemm_multicast_a
// CHECK: %[[MA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK-NOT: wgmma_warps = 8>>
// CHECK: %[[MB:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[RANK:.*]] = tile.cluster_rank
// CHECK: tile.warp_specialize
// CHECK: tile.tma_copy %[[MA]]{{.*}} multicast %c3_i32 part %[[RANK]] of 2
// CHECK-NEXT: tile.tma_copy %[[MB]]
// CHECK-NOT: multicast
// CHECK: } consumers {
func.func @gemm_multicast_a(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                            %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.warp_specialize = true, tile.multicast = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %m0 = tile.program_id x
  %n0 = tile.program_id y
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
