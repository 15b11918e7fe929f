// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads="target=sm_90a wgmma-stage-box=true" -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_80 -canonicalize -tile-pipeline-loads=target=sm_80 -canonicalize -cse | FileCheck %s --check-prefix=SM80
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads=target=sm_90a -canonicalize -cse | FileCheck %s --check-prefix=BOXES --implicit-check-not="tensor_map<128x64xbf16, #tile.swizzle<128, wgmma" --implicit-check-not="tensor_map<64x64xbf16, #tile.swizzle<128, wgmma"

// Without wgmma-stage-box, A's stages always move in 8-row boxes: no map
// in wgmma order is made, and each copy is unconditional.
// BOXES-LABEL: func.func @k_loop
// BOXES: %[[MA:.*]] = tile.make_tensor_map %{{.*}} : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// BOXES: tile.mbarrier_expect %{{.*}}, 32768
// BOXES-NEXT: tile.tma_copy %[[MA]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}
// BOXES-NEXT: tile.tma_copy

// On a target with TMA the loop is versioned on the views' alignment: TMA
// copies into the ring when both views are 16-byte aligned, the cp.async
// ring otherwise; both versions fill the same buffers. A's rows are staged
// in wgmma order: a second tensor map lands a whole stage in that order
// with one box, used while the stage's rows lie inside the view (here, the
// first tile: when M >= 128); the last, partial tile moves in 8-row boxes
// whose bounds zero the rows past M. B's map moves whole 128-row tiles.
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
// CHECK: %[[MA:.*]] = tile.make_tensor_map %[[VA]] : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK: %[[WA:.*]] = tile.make_tensor_map %[[VA]] : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[MB:.*]] = tile.make_tensor_map %[[VB]] : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[BARS:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK: tile.mbarrier_init %[[BARS]] count 1
// CHECK: %[[OK:.*]] = tile.view_aligned %[[VA]], %[[VB]]
// CHECK: scf.if %[[OK]]
// Prologue: iterations 0 and 1, each stage's 32 KiB announced on its
// barrier before its copies; a stage past the loop's end is announced
// with no bytes and not copied.
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi sgt, %[[K:.*]], %[[C0]]
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK-NEXT: tile.mbarrier_expect %[[BARS]][%[[C0]]], 32768
// CHECK-NEXT: %[[LAST1:.*]] = arith.subi %arg3, %[[C128]]
// CHECK-NEXT: %[[WHOLE1:.*]] = arith.cmpi sge, %[[LAST1]], %[[C0]]
// CHECK-NEXT: scf.if %[[WHOLE1]] {
// CHECK-NEXT: tile.tma_copy %[[WA]][%[[C0]], %[[C0]]], %[[RA]][%[[C0]]], %[[BARS]][%[[C0]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.tma_copy %[[MA]][%[[C0]], %[[C0]]], %[[RA]][%[[C0]]], %[[BARS]][%[[C0]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.tma_copy %[[MB]][%[[C0]], %[[C0]]], %[[RB]][%[[C0]]], %[[BARS]][%[[C0]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.mbarrier_expect %[[BARS]][%[[C0]]], 0
// CHECK-NEXT: }
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi sgt, %[[K]], %[[C64]]
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: tile.mbarrier_expect %[[BARS]][%[[C1]]], 32768
// CHECK-NEXT: %[[LAST2:.*]] = arith.subi %arg3, %[[C128]]
// CHECK-NEXT: %[[WHOLE2:.*]] = arith.cmpi sge, %[[LAST2]], %[[C0]]
// CHECK-NEXT: scf.if %[[WHOLE2]] {
// CHECK-NEXT: tile.tma_copy %[[WA]][%[[C0]], %[[C64]]], %[[RA]][%[[C1]]], %[[BARS]][%[[C1]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.tma_copy %[[MA]][%[[C0]], %[[C64]]], %[[RA]][%[[C1]]], %[[BARS]][%[[C1]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.tma_copy %[[MB]][%[[C0]], %[[C64]]], %[[RB]][%[[C1]]], %[[BARS]][%[[C1]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.mbarrier_expect %[[BARS]][%[[C1]]], 0
// CHECK-NEXT: }
// Iteration i waits for phase (i / 4) % 2 of barrier i % 4, then (after a
// barrier of all threads) refills stage (i + 2) % 4.
// CHECK-NEXT: scf.for %[[IV:[a-z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT:   %[[IT:.*]] = arith.divui %[[IV]], %[[C64]]
// CHECK-NEXT:   %[[READ:.*]] = arith.remui %[[IT]], %[[C4]]
// CHECK-NEXT:   %[[ROUND:.*]] = arith.divui %[[IT]], %[[C4]]
// CHECK-NEXT:   %[[PHASE:.*]] = arith.andi %[[ROUND]], %[[C1]]
// CHECK-NEXT:   tile.mbarrier_wait %[[BARS]][%[[READ]]] phase %[[PHASE]]
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   %[[IT2:.*]] = arith.addi %[[IT]], %{{.*}}
// CHECK-NEXT:   %[[WRITE:.*]] = arith.remui %[[IT2]], %[[C4]]
// CHECK-NEXT:   %[[NEXT:.*]] = arith.addi %[[IV]], %{{.*}}
// CHECK-NEXT:   %[[INNEXT:.*]] = arith.cmpi slt, %[[NEXT]], %[[K]]
// CHECK-NEXT:   scf.if %[[INNEXT]] {
// CHECK-NEXT:   tile.mbarrier_expect %[[BARS]][%[[WRITE]]], 32768
// CHECK-NEXT:   %[[LAST3:.*]] = arith.subi %arg3, %[[C128]]
// CHECK-NEXT:   %[[WHOLE3:.*]] = arith.cmpi sge, %[[LAST3]], %[[C0]]
// CHECK-NEXT:   scf.if %[[WHOLE3]] {
// CHECK-NEXT:   tile.tma_copy %[[WA]][%[[C0]], %[[NEXT]]], %[[RA]][%[[WRITE]]], %[[BARS]][%[[WRITE]]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:   tile.tma_copy %[[MA]][%[[C0]], %[[NEXT]]], %[[RA]][%[[WRITE]]], %[[BARS]][%[[WRITE]]]
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.tma_copy %[[MB]][%[[C0]], %[[NEXT]]], %[[RB]][%[[WRITE]]], %[[BARS]][%[[WRITE]]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:   tile.mbarrier_expect %[[BARS]][%[[WRITE]]], 0
// CHECK-NEXT:   }
// CHECK-NEXT:   tile.load_stage %[[RA]][%[[READ]]]
// CHECK-NEXT:   tile.load_stage %[[RB]][%[[READ]]]
// CHECK-NEXT:   tile.transpose
// CHECK-NEXT:   tile.dot {{.*}} async
// CHECK-NEXT:   tile.dot_wait {{.*}} pending 1
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: }
// After the loop: the two copies still in flight are waited for.
// CHECK-NEXT: tile.dot_wait {{.*}} pending 0
// CHECK-COUNT-2: tile.mbarrier_wait %[[BARS]]
// CHECK: } else {
// CHECK: tile.async_copy %[[VA]][%[[C0]], %[[C0]]], %[[RA]][%[[C0]]]
// CHECK: tile.async_wait 1
// CHECK: tile.async_wait 0
// CHECK: }
// SM80-LABEL: func.func @k_loop
// SM80-NOT: tile.tma_copy
// SM80-NOT: tile.view_aligned
// SM80: tile.async_copy
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

// One warpgroup over 64-row tiles of A at a program's row: A's one-box map
// lands 64-row blocks (16 · 4 warps), and the copy takes it only from a
// row that is a multiple of 64, not negative, and at most M - 64.
// CHECK-LABEL: func.func @four_warps
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.smem<4x64x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>
// CHECK: %[[MA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK: %[[WA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<64x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>
// CHECK: tile.mbarrier_expect
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %arg3, %[[C64]]
// CHECK-NEXT: %[[INSIDE:.*]] = arith.cmpi sle, %[[ROW:.*]], %[[LAST]]
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[ROW]], %[[C64]]
// CHECK-NEXT: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %[[C0]]
// CHECK-NEXT: %[[POS:.*]] = arith.cmpi sge, %[[ROW]], %[[C0]]
// CHECK-NEXT: %[[STARTS:.*]] = arith.andi %[[POS]], %[[ALIGNED]]
// CHECK-NEXT: %[[WHOLE:.*]] = arith.andi %[[STARTS]], %[[INSIDE]]
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK-NEXT: tile.tma_copy %[[WA]][%[[ROW]], %{{.*}}], %[[RA]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.tma_copy %[[MA]][%[[ROW]], %{{.*}}], %[[RA]]
// CHECK-NEXT: }
func.func @four_warps(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.program_id x
  %row = arith.muli %pid, %c64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %va[%row, %kk] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%row, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A view whose extents are computed in the kernel cannot be described by a
// tensor map the runtime encodes from the arguments: cp.async only.
// CHECK-LABEL: func.func @computed_view
// CHECK-NOT: tile.make_tensor_map
// CHECK-NOT: tile.view_aligned
// CHECK: tile.async_copy
func.func @computed_view(%a: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %half = arith.divui %m, %c64 : i32
  %va = tile.make_view %a[%half, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tb = tile.load %va[%c0, %kk] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %vy = tile.make_view %a[%m, %m] strides[%m, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %vy[%c0, %c0] : tensor<128x128xbf16>, !tile.view<?x?xbf16>
  return
}
