// RUN: kernel-opt %s -split-input-file -tile-persistent -canonicalize | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize -tile-persistent | FileCheck %s --check-prefix=TCGEN05

// The kernel gains the tile grid as its last two parameters and walks it
// from its program id in steps of the launch's program count. Tile t lies
// in group t / (4 * tiles_x) of 4 tile rows, down the rows first. The
// program ids become the tile's column and row; num_programs y is tiles_y
// everywhere, so what depends on it alone (the splat) runs once, before
// the loop, with the views. The load and the store run per tile.
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32, %{{.*}}: i32, %[[TX:.*]]: i32, %[[TY:.*]]: i32)
// CHECK-SAME: tile.persistent = 4
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: %[[VA:.*]] = tile.make_view
// CHECK: %[[VY:.*]] = tile.make_view
// CHECK: %[[SPLAT:.*]] = tile.splat
// CHECK: %[[TILES:.*]] = arith.muli %[[TX]], %[[TY]]
// CHECK: %[[NP:.*]] = tile.num_programs x
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %[[TILES]] step %[[NP]] : i32 {
// CHECK-NEXT: %[[PER:.*]] = arith.muli %[[TX]], %[[C4]]
// CHECK-NEXT: %[[G:.*]] = arith.divui %[[T]], %[[PER]]
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[G]], %[[C4]]
// CHECK-NEXT: %[[LEFT:.*]] = arith.subi %[[TY]], %[[FIRST]]
// CHECK-NEXT: %[[ROWS:.*]] = arith.minui %[[LEFT]], %[[C4]]
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[T]], %[[PER]]
// CHECK-NEXT: %[[DOWN:.*]] = arith.remui %[[IN]], %[[ROWS]]
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[FIRST]], %[[DOWN]]
// CHECK-NEXT: %[[X:.*]] = arith.divui %[[IN]], %[[ROWS]]
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[X]], %[[C64]]
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[Y]], %[[C64]]
// CHECK-NEXT: %[[TILE:.*]] = tile.load %[[VA]][%[[ROW]], %[[COL]]]
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[TILE]], %[[SPLAT]]
// CHECK-NEXT: tile.store %[[R]], %[[VY]][%[[ROW]], %[[COL]]]
// CHECK-NEXT: } {tile.persistent_loop}
// CHECK-NEXT: return
func.func @tiles(%a: !tile.ptr<f32>, %y: !tile.ptr<f32>, %m: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.persistent = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vy = tile.make_view %y[%m, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %px = tile.program_id x
  %py = tile.program_id y
  %gy = tile.num_programs y
  %col = arith.muli %px, %c64 : i32
  %row = arith.muli %py, %c64 : i32
  %t = tile.load %va[%row, %col] : tensor<64x64xf32>
  %last = arith.subi %gy, %c1 : i32
  %s = arith.sitofp %last : i32 to f32
  %sp = tile.splat %s : tensor<64x64xf32>
  %r = arith.mulf %t, %sp : tensor<64x64xf32>
  tile.store %r, %vy[%row, %col] : tensor<64x64xf32>
  return
}

// -----

// Dots that accumulate in tensor memory (sm_100a) keep one program per
// tile: the kernel is left as it is and loses the attribute, so its
// metadata does not call it persistent.
// TCGEN05-LABEL: func.func @tcgen05
// TCGEN05-SAME: (%{{.*}}: !tile.ptr<bf16>, %{{.*}}: !tile.ptr<bf16>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32, %{{.*}}: i32)
// TCGEN05-NOT: tile.persistent
// TCGEN05: tile.program_id y
// TCGEN05-NOT: tile.persistent_loop
// TCGEN05: return
func.func @tcgen05(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.persistent = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %py = tile.program_id y
  %row = arith.muli %py, %c128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%row, %kk] : tensor<128x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%row, %c0] : tensor<128x128xf32>
  return
}
