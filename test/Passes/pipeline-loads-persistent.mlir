// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads="target=sm_90a wgmma-stage-box=true" -canonicalize -cse | FileCheck %s

// A ring in the loop over tiles of a persistent kernel (tile-persistent's
// scf.for) runs across the tiles. Its buffers, barriers and tensor maps
// are set up once, before the loop; the producer warp walks the same tiles
// (recomputing the tile's row) and counts iterations on from the earlier
// tiles' trip counts, i = (t - pid) / nprog * trips + k / 64, as the
// consumers do, so the barrier phases stay in step and the producer fills
// the next tile's stages while the consumers store the last.
// CHECK-LABEL: func.func @warp_specialized
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[RA:.*]] = tile.alloc_shared
// CHECK: %[[RB:.*]] = tile.alloc_shared
// CHECK: %[[MA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK: %[[WA:.*]] = tile.make_tensor_map {{.*}} -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: %[[MB:.*]] = tile.make_tensor_map
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK: %[[OK:.*]] = tile.view_aligned
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK: tile.warp_specialize producer_warps 4 registers(40, 232) {
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: scf.for %[[PT:[a-z0-9_]+]] = %[[PID]] to %{{.*}} step %[[NP]] : i32 {
// CHECK-NEXT:   %[[PD:.*]] = arith.subi %[[PT]], %[[PID]]
// CHECK-NEXT:   %[[PN:.*]] = arith.divui %[[PD]], %[[NP]]
// CHECK:        %[[TRIPS:.*]] = arith.maxsi
// CHECK-NEXT:   %[[PBASE:.*]] = arith.muli %[[PN]], %[[TRIPS]]
// CHECK-NEXT:   %[[PROW:.*]] = arith.muli %[[PT]], %[[C128]]
// CHECK-NEXT:   scf.for %[[IV:[a-z0-9_]+]] = %[[C0]] to %{{.*}} step %[[C64]] : i32 {
// CHECK-NEXT:     %[[LOCAL:.*]] = arith.divui %[[IV]], %[[C64]]
// CHECK-NEXT:     %[[IT:.*]] = arith.addi %[[PBASE]], %[[LOCAL]]
// CHECK-NEXT:     %[[STAGE:.*]] = arith.remui %[[IT]]
// CHECK:          tile.mbarrier_wait %[[EMPTY]][%[[STAGE]]]
// CHECK-NEXT:     tile.mbarrier_expect %[[FULL]][%[[STAGE]]], 32768
// A's stage moves in one box when it starts at a multiple of 128 rows
// and ends inside the view, else (the last tile of rows) in 8-row boxes.
// CHECK-NEXT:     %[[LAST:.*]] = arith.subi %arg3, %[[C128]]
// CHECK-NEXT:     %[[INSIDE:.*]] = arith.cmpi sle, %[[PROW]], %[[LAST]]
// CHECK-NEXT:     %[[REM:.*]] = arith.remsi %[[PROW]], %[[C128]]
// CHECK-NEXT:     %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %[[C0]]
// CHECK-NEXT:     %[[POS:.*]] = arith.cmpi sge, %[[PROW]], %[[C0]]
// CHECK-NEXT:     %[[STARTS:.*]] = arith.andi %[[POS]], %[[ALIGNED]]
// CHECK-NEXT:     %[[WHOLE:.*]] = arith.andi %[[STARTS]], %[[INSIDE]]
// CHECK-NEXT:     scf.if %[[WHOLE]] {
// CHECK-NEXT:     tile.tma_copy %[[WA]][%[[PROW]], %[[IV]]], %[[RA]][%[[STAGE]]]
// CHECK-NEXT:     } else {
// CHECK-NEXT:     tile.tma_copy %[[MA]][%[[PROW]], %[[IV]]], %[[RA]][%[[STAGE]]]
// CHECK-NEXT:     }
// CHECK-NEXT:     tile.tma_copy %[[MB]][%[[C0]], %[[IV]]], %[[RB]][%[[STAGE]]]
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } consumers {
// CHECK-NEXT: scf.for %[[T:[a-z0-9_]+]] = %[[PID]] to %{{.*}} step %[[NP]] : i32 {
// CHECK-NEXT:   %[[D:.*]] = arith.subi %[[T]], %[[PID]]
// CHECK-NEXT:   %[[N:.*]] = arith.divui %[[D]], %[[NP]]
// CHECK:        %[[CTRIPS:.*]] = arith.maxsi
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[N]], %[[CTRIPS]]
// CHECK-NEXT:   %[[ROW:.*]] = arith.muli %[[T]], %[[C128]]
// CHECK-NEXT:   %[[ACC:.*]] = scf.if %[[OK]]
// CHECK-NEXT:   scf.for %[[CIV:[a-z0-9_]+]] =
// CHECK-NEXT:     %[[CLOCAL:.*]] = arith.divui %[[CIV]], %[[C64]]
// CHECK-NEXT:     %[[CIT:.*]] = arith.addi %[[BASE]], %[[CLOCAL]]
// CHECK-NEXT:     %[[READ:.*]] = arith.remui %[[CIT]]
// CHECK:          tile.mbarrier_wait %[[FULL]][%[[READ]]]
// The stage of a tile's last dot is released after the next tile's first.
// CHECK:          arith.cmpi ugt, %[[CIT]], %[[C0]]
// CHECK:          tile.mbarrier_arrive %[[EMPTY]]
// CHECK:        tile.dot_wait {{.*}} pending 0
// The cp.async version (unaligned views) keeps its ring per tile, after a
// barrier: the threads may still read the previous tile's stages.
// CHECK:        } else {
// CHECK-NEXT:     tile.barrier
// CHECK-NEXT:     arith.cmpi sgt
// CHECK-NEXT:     scf.if
// CHECK-NEXT:     tile.async_copy
// CHECK:        tile.store %[[ACC]], %{{.*}}[%[[ROW]], %[[C0]]]
// CHECK-NEXT: } {tile.persistent_loop}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @warp_specialized(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32, %tiles: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.warp_specialize = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %pid = tile.program_id x
  %np = tile.num_programs x
  scf.for %t = %pid to %tiles step %np : i32 {
    %row = arith.muli %t, %c128 : i32
    %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta = tile.load %va[%row, %kk] : tensor<128x64xbf16>
      %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
      %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
      %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tile.store %acc, %vy[%row, %c0] : tensor<128x128xf32>
  } {tile.persistent_loop}
  return
}

// -----

// Without a producer warp, each tile's ring takes its trip count plus the
// two copies issued past its end (waited for after its loop), so the next
// tile starts at i = (t - pid) / nprog * (trips + 2). Its prologue waits
// at a barrier first: the stages it refills may still be read.
// CHECK-LABEL: func.func @shared_ring
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[FULL:.*]] = tile.alloc_shared : !tile.smem<4xi64>
// CHECK: tile.mbarrier_init %[[FULL]] count 1
// CHECK: %[[OK:.*]] = tile.view_aligned
// CHECK: scf.for %[[T:[a-z0-9_]+]] = %[[PID]] to %{{.*}} step %[[NP]] : i32 {
// CHECK-NEXT:   %[[D:.*]] = arith.subi %[[T]], %[[PID]]
// CHECK-NEXT:   %[[N:.*]] = arith.divui %[[D]], %[[NP]]
// CHECK:        %[[TRIPS:.*]] = arith.maxsi
// CHECK-NEXT:   %[[SPAN:.*]] = arith.addi %[[TRIPS]], %[[C2]]
// CHECK-NEXT:   %[[BASE:.*]] = arith.muli %[[N]], %[[SPAN]]
// CHECK:        scf.if %[[OK]]
// CHECK-NEXT:     tile.barrier
// CHECK-NEXT:     %[[S0:.*]] = arith.remui %[[BASE]], %[[C4]]
// CHECK-NEXT:     arith.cmpi sgt
// CHECK-NEXT:     scf.if
// CHECK-NEXT:     tile.mbarrier_expect %[[FULL]][%[[S0]]]
// CHECK:          %[[B1:.*]] = arith.addi %[[BASE]], %[[C1]]
// CHECK-NEXT:     %[[S1:.*]] = arith.remui %[[B1]], %[[C4]]
// CHECK-NEXT:     arith.cmpi sgt
// CHECK-NEXT:     scf.if
// CHECK-NEXT:     tile.mbarrier_expect %[[FULL]][%[[S1]]]
// CHECK:          scf.for
// CHECK:            %[[IT:.*]] = arith.addi %[[BASE]]
// CHECK-NEXT:       %[[READ:.*]] = arith.remui %[[IT]], %[[C4]]
// CHECK:            tile.mbarrier_wait %[[FULL]][%[[READ]]]
// After the loop, the copies past the end: iterations base + trips and
// base + trips + 1.
// CHECK:          %[[END:.*]] = arith.addi %[[BASE]], %[[TRIPS]]
// CHECK:          tile.mbarrier_wait %[[FULL]]
// CHECK:          arith.addi %[[END]], %[[C1]]
// CHECK:          tile.mbarrier_wait %[[FULL]]
// CHECK: } {tile.persistent_loop}
func.func @shared_ring(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32, %tiles: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %pid = tile.program_id x
  %np = tile.num_programs x
  scf.for %t = %pid to %tiles step %np : i32 {
    %row = arith.muli %t, %c128 : i32
    %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta = tile.load %va[%row, %kk] : tensor<128x64xbf16>
      %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
      %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
      %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    tile.store %acc, %vy[%row, %c0] : tensor<128x128xf32>
  } {tile.persistent_loop}
  return
}
