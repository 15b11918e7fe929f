// RUN: kernel-opt %s -tile-assign-layouts=target=sm_100a -canonicalize | FileCheck %s --check-prefix=LAYOUT
// RUN: kernel-opt %s -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=target=sm_100a -canonicalize -cse | FileCheck %s

// tile.cta_pair: the programs of a cluster of two along grid y share one
// tcgen05 instruction of 256 rows (tile-assign-layouts gives the dot
// instr = [256, N, k]; each program's accumulator is still its own
// 128 x N tile).
// LAYOUT: #[[MMA:.*]] = #tile.mma<version = 5, warps = [4, 2], instr = [256, 128, 16]>
// LAYOUT: tile.dot {{.*}} -> tensor<128x128xf32, #[[MMA]]>

// tile-pipeline-loads stages A whole (128 rows) and B by halves (64 rows
// per program, at row %col + 64 * rank), on TMA alone (no tile.view_aligned
// switch, no cp.async version). Every copy counts on the leader's barrier
// of its stage; the leader (rank 0) alone announces both programs' bytes
// (2 x (16384 + 8192)) and waits for them, then issues the dot; both
// programs wait on their own consumed barriers, which the leader's commit
// reaches (multicast to the pair: 3 << (rank & ~1)), before refilling
// their stages. A cluster barrier after the
// barriers' initialization lets neither program copy or commit into the
// other's barriers before they exist.
// CHECK-LABEL: func.func @gemm_pair
// CHECK-NOT: tile.view_aligned
// CHECK-DAG: %[[B:.*]] = tile.alloc_shared : !tile.smem<4x64x64xbf16, #tile.swizzle<128>>
// CHECK-DAG: %[[A:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[DONE:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[DONE]] count 1
// CHECK: %[[BMAP:.*]] = tile.make_tensor_map {{.*}} : {{.*}} -> !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>
// CHECK: %[[READY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK-NEXT: tile.mbarrier_init %[[READY]] count 1
// CHECK-NEXT: %[[CRANK:.*]] = tile.cluster_rank
// CHECK-NEXT: %[[RANK:.*]] = arith.andi %[[CRANK]], %c1_i32
// CHECK-NEXT: %[[LEADER:.*]] = arith.cmpi eq, %[[RANK]], %c0_i32
// CHECK-NEXT: %[[EVEN:.*]] = arith.andi %[[CRANK]], %c-2_i32
// CHECK-NEXT: %[[PAIR:.*]] = arith.shli %c3_i32, %[[EVEN]]
// CHECK-NEXT: tile.cluster_barrier
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: tile.mbarrier_expect %[[READY]][%c0_i32], 49152
// CHECK: %[[HALF:.*]] = arith.muli %[[RANK]], %c64_i32
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[HALF]]
// CHECK: tile.tma_copy %[[BMAP]][%[[ROW]], %c0_i32], %[[B]][%c0_i32], %[[READY]][%c0_i32] {leader_barrier}
// CHECK: scf.for
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: tile.mbarrier_wait %[[READY]]
// CHECK: tile.load_stage %[[B]][{{.*}}] {paired} : !tile.smem<4x64x64xbf16, #tile.swizzle<128>> -> tensor<128x64xbf16
// CHECK: tile.dot {{.*}} async
// CHECK-NEXT: tile.dot_commit %[[DONE]][{{.*}}] multicast %[[PAIR]]
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: tile.mbarrier_expect %[[READY]]{{.*}}, 49152
// CHECK: tile.tma_copy {{.*}} {leader_barrier}
// CHECK: tile.tma_copy {{.*}} {leader_barrier}
// CHECK: scf.yield
// CHECK: tile.mbarrier_wait %[[DONE]]
// CHECK: scf.if %[[LEADER]] {
// CHECK-COUNT-3: tile.mbarrier_wait %[[READY]]
// CHECK-NOT: tile.async_copy
// CHECK: return
func.func @gemm_pair(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>,
                     %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true} {
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
