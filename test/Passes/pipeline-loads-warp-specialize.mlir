// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads="target=sm_90a wgmma-stage-box=true" -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads="target=sm_90a warp-specialize=true wgmma-stage-box=true" -canonicalize -cse | FileCheck %s --check-prefix=OPTION

// A kernel with tile.warp_specialize: its TMA ring is fed by a producer
// warp. The kernel's ops from the versioned loop on move into the consumer
// region; the producer copies every iteration into stage i % 4 once the
// consumers have released it (empty barrier, phase ((i / 4) + 1) % 2); the
// consumers wait on the full barrier only and release the stage of the
// previous iteration after its dot has retired. 8 consumer warps and a
// producer warpgroup make 384 threads: registers are redistributed and
// the kernel capped at 65536 / 384.
// CHECK-LABEL: func.func @k_loop
// CHECK-SAME: tile.max_registers = 168
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.smem<4x128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[MA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK: %[[WA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[MB:.*]] = tile.make_tensor_map
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK: tile.mbarrier_init %[[FULL]] count 1
// CHECK: %[[OK:.*]] = tile.view_aligned
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK: tile.mbarrier_init %[[EMPTY]] count 256
// CHECK: tile.warp_specialize producer_warps 4 registers(40, 232) {
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: scf.for %[[IV:[a-z0-9_]+]] = %[[C0]] to %{{.*}} step %[[C64]] : i32 {
// CHECK-NEXT:   %[[IT:.*]] = arith.divui %[[IV]], %[[C64]]
// CHECK-NEXT:   %[[STAGE:.*]] = arith.remui %[[IT]], %[[C4]]
// CHECK-NEXT:   %[[ROUND:.*]] = arith.divui %[[IT]], %[[C4]]
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[ROUND]], %[[C1]]
// CHECK-NEXT:   %[[FREED:.*]] = arith.andi %[[NEXT]], %[[C1]]
// CHECK-NEXT:   tile.mbarrier_wait %[[EMPTY]][%[[STAGE]]] phase %[[FREED]]
// CHECK-NEXT:   tile.mbarrier_expect %[[FULL]][%[[STAGE]]], 32768
// A's stage in one box while it lies inside the view, else in 8-row boxes.
// CHECK-NEXT:   %[[LAST:.*]] = arith.subi
// CHECK-NEXT:   %[[WHOLE:.*]] = arith.cmpi sge, %[[LAST]], %[[C0]]
// CHECK-NEXT:   scf.if %[[WHOLE]] {
// CHECK-NEXT:   tile.tma_copy %[[WA]][%[[C0]], %[[IV]]], %[[RA]][%[[STAGE]]], %[[FULL]][%[[STAGE]]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:   tile.tma_copy %[[MA]][%[[C0]], %[[IV]]], %[[RA]][%[[STAGE]]], %[[FULL]][%[[STAGE]]]
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.tma_copy %[[MB]][%[[C0]], %[[IV]]], %[[RB]][%[[STAGE]]], %[[FULL]][%[[STAGE]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } consumers {
// CHECK-NEXT: %[[ACC:.*]] = scf.if %[[OK]]
// CHECK-NEXT: scf.for %[[CIV:[a-z0-9_]+]] =
// CHECK-NEXT:   %[[CIT:.*]] = arith.divui %[[CIV]], %[[C64]]
// CHECK-NEXT:   %[[READ:.*]] = arith.remui %[[CIT]], %[[C4]]
// CHECK-NEXT:   %[[CROUND:.*]] = arith.divui %[[CIT]], %[[C4]]
// CHECK-NEXT:   %[[PHASE:.*]] = arith.andi %[[CROUND]], %[[C1]]
// CHECK-NEXT:   tile.mbarrier_wait %[[FULL]][%[[READ]]] phase %[[PHASE]]
// CHECK-NOT:    tile.barrier
// CHECK-NEXT:   tile.load_stage %[[RA]][%[[READ]]]
// CHECK-NEXT:   tile.load_stage %[[RB]][%[[READ]]]
// CHECK-NEXT:   tile.transpose
// CHECK-NEXT:   tile.dot {{.*}} async
// CHECK-NEXT:   tile.dot_wait {{.*}} pending 1
// CHECK-NEXT:   %[[LATER:.*]] = arith.cmpi ugt, %[[CIT]], %[[C0]]
// CHECK-NEXT:   scf.if %[[LATER]] {
// CHECK-NEXT:     %[[PREV:.*]] = arith.addi %[[CIT]], %[[C3]]
// CHECK-NEXT:     %[[PSTAGE:.*]] = arith.remui %[[PREV]], %[[C4]]
// CHECK-NEXT:     tile.mbarrier_arrive %[[EMPTY]][%[[PSTAGE]]]
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// Nothing is left in flight after the loop.
// CHECK-NEXT: tile.dot_wait {{.*}} pending 0
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK: tile.async_copy
// CHECK: tile.async_wait 0
// CHECK: }
// CHECK: tile.store %[[ACC]]
// CHECK-NEXT: }
// CHECK-NEXT: return
// OPTION-LABEL: func.func @k_loop
// OPTION: tile.warp_specialize producer_warps 4 registers(40, 232)
func.func @k_loop(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.warp_specialize = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : tensor<128x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<128x128xf32>
  return
}

// -----

// One consumer warpgroup and the producer's make 256 threads: every
// thread may hold 255 registers already, so none are redistributed. The
// kernel's attribute wins over the pass option.
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: tile.max_registers
// CHECK: tile.warp_specialize producer_warps 4 {
// OPTION-LABEL: func.func @one_warpgroup
// OPTION: tile.warp_specialize producer_warps 4 {
func.func @one_warpgroup(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.warp_specialize = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : tensor<64x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<64x128xf32>
  return
}

// -----

// A kernel that turns specialization off keeps the shared ring, even under
// the pass option.
// CHECK-LABEL: func.func @not_specialized
// CHECK-NOT: tile.warp_specialize producer
// CHECK: tile.barrier
// OPTION-LABEL: func.func @not_specialized
// OPTION-NOT: tile.warp_specialize producer
func.func @not_specialized(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.warp_specialize = false} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : tensor<64x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<64x128xf32>
  return
}

// -----

// A ring inside another loop (one program walking several tiles) is not
// at the top level of its kernel: it keeps the shared ring.
// CHECK-LABEL: func.func @nested_ring
// CHECK-NOT: tile.warp_specialize producer
// CHECK: tile.barrier
func.func @nested_ring(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.warp_specialize = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  scf.for %t = %c0 to %c2 step %c1 : i32 {
    %row = arith.muli %t, %c64 : i32
    %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
      %ta = tile.load %va[%row, %kk] : tensor<64x64xbf16>
      %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
      %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
      %d = tile.dot %ta, %tbt, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
      scf.yield %d : tensor<64x128xf32>
    }
    tile.store %acc, %vy[%row, %c0] : tensor<64x128xf32>
  }
  return
}
