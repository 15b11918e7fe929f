// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=target=sm_100a -canonicalize -cse | FileCheck %s

// tile.multicast = 2 on a CTA pair: two pairs side by side along grid y
// (a cluster of four: ranks 0, 1 the first pair, 2, 3 the second) compute
// the same 128 columns, so B is the same for both. Each program still
// stages its own A rows (the tensor map's box is all 128 rows) and its
// pair half of B (64 rows at %col + 64 * (rank & 1)), but copies only part
// rank / 2 of that half: one box of 32 rows, multicast to the programs of
// the same rank in both pairs (5 << (rank & 1): ranks 0 and 2, or 1 and 3).
// Each leader still announces both programs' whole stages (49152 bytes).
// The consumed barriers count two commits per phase, one per pair leader,
// each of which reaches the whole cluster (15): a stage of any program is
// refilled only once both pairs' dots are done with it.
// CHECK-LABEL: func.func @gemm_pair_multicast
// CHECK-DAG: %[[A:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// CHECK-DAG: %[[B:.*]] = tile.alloc_shared : !tile.smem<4x64x64xbf16, #tile.swizzle<128>>
// CHECK: %[[DONE:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[DONE]] count 2
// CHECK: %[[AMAP:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[BMAP:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<32x64xbf16, #tile.swizzle<128>>
// CHECK: %[[READY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[READY]] count 1
// CHECK-NEXT: %[[CRANK:.*]] = tile.cluster_rank
// CHECK-NEXT: %[[RANK:.*]] = arith.andi %[[CRANK]], %c1_i32
// CHECK-NEXT: %[[LEADER:.*]] = arith.cmpi eq, %[[RANK]], %c0_i32
// CHECK-NEXT: %[[PART:.*]] = arith.divui %[[CRANK]], %c2_i32
// CHECK-NEXT: %[[MASK:.*]] = arith.shli %c5_i32, %[[RANK]]
// CHECK-NEXT: tile.cluster_barrier
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: tile.mbarrier_expect %[[READY]][%c0_i32], 49152
// CHECK: tile.tma_copy %[[AMAP]][{{.*}}], %[[A]][%c0_i32], %[[READY]][%c0_i32] {leader_barrier}
// CHECK: %[[HALF:.*]] = arith.muli %[[RANK]], %c64_i32
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[HALF]]
// CHECK: tile.tma_copy %[[BMAP]][%[[ROW]], %c0_i32], %[[B]][%c0_i32], %[[READY]][%c0_i32] multicast %[[MASK]] part %[[PART]] of 2 {leader_barrier}
// CHECK: scf.for
// CHECK: tile.dot {{.*}} async
// CHECK-NEXT: tile.dot_commit %[[DONE]][{{.*}}] multicast %c15_i32
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: tile.tma_copy %[[AMAP]]{{.*}} {leader_barrier}
// CHECK: tile.tma_copy %[[BMAP]]{{.*}} multicast %[[MASK]] part %[[PART]] of 2 {leader_barrier}
// CHECK: scf.yield
// CHECK-NOT: tile.async_copy
// CHECK: return
func.func @gemm_pair_multicast(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                               %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true,
                tile.multicast = 2 : i32} {
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

// tile.multicast = 2 without pairs: two programs along y (cluster ranks 0
// and 1) share B. Each copies its 64-row half (part = rank) to both (3),
// and announces and waits for its whole stage (32768 bytes) itself. Its
// consumed barriers count both programs' commits, each sent to both.
// CHECK-LABEL: func.func @gemm_multicast
// CHECK: %[[DONE:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[DONE]] count 2
// CHECK: %[[BMAP:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>
// CHECK: %[[READY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[READY]] count 1
// CHECK-NEXT: %[[RANK:.*]] = tile.cluster_rank
// CHECK-NEXT: tile.cluster_barrier
// CHECK-NEXT: arith.cmpi sgt
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.mbarrier_expect %[[READY]][%c0_i32], 32768
// CHECK: tile.tma_copy {{.*}}, %[[READY]][%c0_i32] :
// CHECK: tile.tma_copy %[[BMAP]][{{.*}}], %{{.*}}[%c0_i32], %[[READY]][%c0_i32] multicast %c3_i32 part %[[RANK]] of 2 :
// CHECK: scf.for
// CHECK: tile.mbarrier_wait %[[READY]]
// CHECK: tile.dot {{.*}} async
// CHECK-NEXT: tile.dot_commit %[[DONE]][{{.*}}] multicast %c3_i32
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: tile.tma_copy %[[BMAP]]{{.*}} multicast %c3_i32 part %[[RANK]] of 2 :
// CHECK: scf.yield
// CHECK: return
func.func @gemm_multicast(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                          %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.multicast = 2 : i32} {
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
