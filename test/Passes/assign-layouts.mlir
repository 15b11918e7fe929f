// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts -canonicalize | FileCheck %s

// Loads get a coalesced layout: 16 bytes per thread along the row, lanes
// along the row, warps down the rows.
// CHECK-DAG: #[[F32:.*]] = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[ROWS:.*]] = #tile.slice<dim = 1, parent = #[[F32]]>
// CHECK-LABEL: func.func @rows
// CHECK: tile.load {{.*}} : tensor<4x128xf32, #[[F32]]>
// CHECK: tile.reduce max {{.*}} : tensor<4x128xf32, #[[F32]]>{{ *$}}
// The expand_dims and broadcast become one broadcast along the rows.
// CHECK: tile.broadcast {{.*}} along 1 : tensor<4xf32, #[[ROWS]]> -> tensor<4x128xf32, #[[F32]]>
// CHECK: arith.subf {{.*}} : tensor<4x128xf32, #[[F32]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
func.func @rows(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %m = tile.reduce max %t along 1 : tensor<4x128xf32> -> tensor<4xf32>
  %e = tile.expand_dims %m at 1 : tensor<4xf32> -> tensor<4x1xf32>
  %b = tile.broadcast %e : tensor<4x1xf32> -> tensor<4x128xf32>
  %d = arith.subf %t, %b : tensor<4x128xf32>
  tile.store %d, %v[%c0, %c0] : tensor<4x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// bf16 rows get 8 elements (16 bytes) per thread; tile.num_warps decides
// the warp count; a single long row spreads warps along it.
// CHECK-DAG: #[[BF16:.*]] = #tile.blocked<size = [1, 8], threads = [1, 32], warps = [1, 8], order = [1, 0]>
// CHECK-LABEL: func.func @long_row
// CHECK: tile.load {{.*}} : tensor<1x4096xbf16, #[[BF16]]>
func.func @long_row(%p: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<1x4096xbf16>
  tile.store %t, %v[%c0, %c0] : tensor<1x4096xbf16>, !tile.view<?x?xbf16>
  return
}

// -----

// A broadcast along a new dimension takes the slice of the result's
// layout: a row statistic goes back to its rows without moving.
// CHECK-DAG: #[[F32:.*]] = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[ROWS:.*]] = #tile.slice<dim = 1, parent = #[[F32]]>
// CHECK-LABEL: func.func @broadcast_along
// CHECK: %[[M:.*]] = tile.reduce max {{.*}} : tensor<4x128xf32, #[[F32]]>{{ *$}}
// CHECK: tile.broadcast %[[M]] along 1 : tensor<4xf32, #[[ROWS]]> -> tensor<4x128xf32, #[[F32]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
func.func @broadcast_along(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %v = tile.make_view %p[%n, %n] strides[%n, 1] : !tile.view<?x?xf32>
  %t = tile.load %v[0, 0] : tensor<4x128xf32>
  %m = tile.reduce max %t along 1 : tensor<4x128xf32>
  %b = tile.broadcast %m along 1 : tensor<4xf32> -> tensor<4x128xf32>
  %d = arith.subf %t, %b : tensor<4x128xf32>
  tile.store %d, %v[0, 0] : tensor<4x128xf32>
  return
}

// -----

// A broadcast along a new dimension of an operand without the slice
// layout converts the operand, not the result.
// CHECK-LABEL: func.func @broadcast_along_converts
// CHECK: %[[C:.*]] = tile.convert_layout {{.*}} -> tensor<128xf32, #[[S:.*]]>
// CHECK: tile.broadcast %[[C]] along 0 : tensor<128xf32, #[[S]]> -> tensor<4x128xf32, #{{.*}}>
func.func @broadcast_along_converts(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %v = tile.make_view %p[%n, %n] strides[%n, 1] : !tile.view<?x?xf32>
  %w = tile.make_view %p[%n] strides[1] : !tile.view<?xf32>
  %t = tile.load %v[0, 0] : tensor<4x128xf32>
  %s = tile.load %w[0] : tensor<128xf32>
  %b = tile.broadcast %s along 0 : tensor<128xf32> -> tensor<4x128xf32>
  %d = arith.mulf %t, %b : tensor<4x128xf32>
  tile.store %d, %v[0, 0] : tensor<4x128xf32>
  return
}

// -----

// Where two layouts meet, a conversion is inserted; the operand that is
// expensive to move (here the reduction) keeps its layout.
// CHECK-LABEL: func.func @meet
// CHECK: %[[R:.*]] = tile.reduce add {{.*}} : tensor<4x128xf32, #{{.*}}>{{ *$}}
// CHECK: %[[U:.*]] = tile.load {{.*}} : tensor<4xf32, #[[L:.*]]>
// CHECK: %[[C:.*]] = tile.convert_layout %[[U]] : tensor<4xf32, #[[L]]> -> tensor<4xf32, #[[S:slice[0-9]*]]>
// CHECK: arith.addf %[[R]], %[[C]] : tensor<4xf32, #[[S]]>
func.func @meet(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %w = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %r = tile.reduce add %t along 1 : tensor<4x128xf32> -> tensor<4xf32>
  %u = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<4xf32>
  %s = arith.addf %r, %u : tensor<4xf32>
  tile.store %s, %w[%c0] : tensor<4xf32>, !tile.view<?xf32>
  return
}

// -----

// A splat feeding a conversion is rebuilt in the wanted layout.
// CHECK-LABEL: func.func @splat_remat
// CHECK-NOT: tile.convert_layout
// CHECK: tile.splat {{.*}} : tensor<4xf32, #slice
// CHECK-NOT: tile.convert_layout
func.func @splat_remat(%p: !tile.ptr<f32>, %n: i32, %x: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %w = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %r = tile.reduce add %t along 1 : tensor<4x128xf32> -> tensor<4xf32>
  %b = tile.splat %x : tensor<4xf32>
  %s = arith.mulf %b, %r : tensor<4xf32>
  tile.store %s, %w[%c0] : tensor<4xf32>, !tile.view<?xf32>
  return
}

// -----

// Loop-carried tiles keep their initial layout; the yield converts to it.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128xf32, #[[L:.*]]>)
// CHECK: scf.yield {{.*}} : tensor<128xf32, #[[L]]>
func.func @loop(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %r = scf.for %i = %c0 to %n step %c128 iter_args(%acc = %zero) -> (tensor<128xf32>) : i32 {
    %t = tile.load %v[%i] : !tile.view<?xf32> -> tensor<128xf32>
    %s = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %s : tensor<128xf32>
  }
  tile.store %r, %v[%c0] : tensor<128xf32>, !tile.view<?xf32>
  return
}

// -----

func.func @while_tiles(%x: f32) attributes {tile.kernel} {
  %t = tile.splat %x : tensor<4xf32>
  // expected-error @+1 {{carrying tiles through scf.while is not supported yet}}
  %r = scf.while (%a = %t) : (tensor<4xf32>) -> tensor<4xf32> {
    %c = arith.constant true
    scf.condition(%c) %a : tensor<4xf32>
  } do {
  ^bb0(%a: tensor<4xf32>):
    scf.yield %a : tensor<4xf32>
  }
  return
}

// -----

// Masks follow the tile they guard: an i32-derived mask is converted to the
// layout of an i64 load's result and of an i64 store's value, and since it
// is an index compared with a bound, canonicalization rebuilds it in that
// layout (iota, splat, cmpi) instead of moving it.
// CHECK-DAG: #[[I64:.*]] = #tile.blocked<size = [2], threads = [32], warps = [4], order = [0]>
// CHECK-LABEL: func.func @wide_masks
// CHECK-NOT: tile.convert_layout
// CHECK: %[[I:.*]] = tile.iota : tensor<1024xi32, #[[I64]]>
// CHECK: %[[LM:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : tensor<1024xi32, #[[I64]]>
// CHECK: tile.load %{{.*}} mask %[[LM]]{{.*}} : tensor<1024xi64, #[[I64]]>
// CHECK: %[[SM:.*]] = arith.cmpi slt, %{{.*}} : tensor<1024xi32, #[[I64]]>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store %{{.*}} mask %[[SM]] : tensor<1024xi64, #[[I64]]>
func.func @wide_masks(%p: !tile.ptr<i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
  %i = tile.iota : tensor<1024xi32>
  %nT = tile.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %i, %nT : tensor<1024xi32>
  %t = tile.load %v[%c0] mask %m : !tile.view<?xi64> -> tensor<1024xi64>
  tile.store %t, %v[%c0] mask %m : tensor<1024xi64>, !tile.view<?xi64>
  return
}

// -----

// An index tile compared with a bound (rebuildable by every thread) does
// not decide the layout of the select it feeds: the loaded tile keeps its
// layout, and the mask is rebuilt in it (iota, expand_dims, broadcast,
// cmpi) rather than the loaded tile being moved.
// CHECK-LABEL: func.func @index_masks_follow_data
// CHECK-NOT: tile.convert_layout
// CHECK: %[[T:.*]] = tile.load %{{.*}} : tensor<64x128xf32, #[[L:.*]]>
// CHECK: tile.iota : tensor<64xi32, #{{.*}}>
// CHECK: tile.broadcast %{{.*}} -> tensor<64x128xi32, #[[L]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, %{{.*}} : tensor<64x128xi32, #[[L]]>
// CHECK: arith.select %[[M]], %[[T]], %{{.*}} : tensor<64x128xi1, #[[L]]>, tensor<64x128xf32, #[[L]]>
// CHECK-NOT: tile.convert_layout
func.func @index_masks_follow_data(%x: !tile.ptr<f32>, %o: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %zf = arith.constant 0.0 : f32
  %v = tile.make_view %x[%c64, %c128] strides[%c128, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : tensor<64x128xf32>
  %i = tile.iota : tensor<64xi32>
  %ie = tile.expand_dims %i at 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ib = tile.broadcast %ie : tensor<64x1xi32> -> tensor<64x128xi32>
  %bound = tile.splat %c8 : tensor<64x128xi32>
  %m = arith.cmpi slt, %ib, %bound : tensor<64x128xi32>
  %z = tile.splat %zf : tensor<64x128xf32>
  %r = arith.select %m, %t, %z : tensor<64x128xi1>, tensor<64x128xf32>
  tile.store %r, %v[%c0, %c0] : tensor<64x128xf32>
  return
}

// -----

// An f32 load whose tile (through an exp) meets a widened bf16 load's tile
// of its shape is read in the bf16 tile's layout, 8 elements a thread (two
// 16-byte vectors): nothing converts. (Reading the bf16 tile in the f32
// tile's layout instead, 4 elements a thread, made kda_prep slower on the
// H100; converting where the two meet was slower still.)
// CHECK-DAG: #[[BF16L:.*]] = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [8, 1], order = [1, 0]>
// CHECK-LABEL: func.func @f32_load_takes_partner_layout
// CHECK: tile.load {{.*}} : tensor<64x128xf32, #[[BF16L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: math.exp {{.*}} : tensor<64x128xf32, #[[BF16L]]>
// CHECK-NOT: tile.convert_layout
// CHECK: arith.mulf {{.*}} : tensor<64x128xf32, #[[BF16L]]>
func.func @f32_load_takes_partner_layout(%g: !tile.ptr<f32>, %k: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %gv = tile.make_view %g[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %kv = tile.make_view %k[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %gt = tile.load %gv[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x128xf32>
  %e = math.exp %gt : tensor<64x128xf32>
  %kt = tile.load %kv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %kf = arith.extf %kt : tensor<64x128xbf16> to tensor<64x128xf32>
  %p = arith.mulf %kf, %e : tensor<64x128xf32>
  tile.store %p, %gv[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A row broadcast over a tile: the element-wise op takes the tile's layout
// even with the broadcast first (converting the broadcast moves one row),
// and the row, read from shared memory, is read straight into the slice of
// that layout each thread broadcasts: no conversion of the tile, no
// conversion of the row through scratch.
// CHECK-DAG: #[[BF16L:.*]] = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [8, 1], order = [1, 0]>
// CHECK-DAG: #[[ROW:.*]] = #tile.slice<dim = 0, parent = #[[BF16L]]>
// CHECK-LABEL: func.func @broadcast_row_follows_tile
// CHECK-NOT: tile.convert_layout
// CHECK: tile.load_shared {{.*}} -> tensor<128xf32, #[[ROW]]>
// CHECK-NOT: tile.convert_layout
// CHECK: arith.subf {{.*}} : tensor<64x128xf32, #[[BF16L]]>
func.func @broadcast_row_follows_tile(%k: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %kv = tile.make_view %k[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %buf = tile.alloc_shared : !tile.smem<128xf32>
  %row = tile.load_shared %buf[%c0] : !tile.smem<128xf32> -> tensor<128xf32>
  %rows = tile.broadcast %row along 0 : tensor<128xf32> -> tensor<64x128xf32>
  %kt = tile.load %kv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %kf = arith.extf %kt : tensor<64x128xbf16> to tensor<64x128xf32>
  %d = arith.subf %rows, %kf : tensor<64x128xf32>
  %y = arith.truncf %d : tensor<64x128xf32> to tensor<64x128xbf16>
  tile.store %y, %kv[%c0, %c0] : tensor<64x128xbf16>, !tile.view<?x?xbf16>
  return
}

// -----

// A transposed tile (its threads hold runs down the columns) is converted
// to the default layout before a store to global memory, which then writes
// 16-byte vectors along the rows instead of an element per row.
// CHECK-DAG: #[[T:.*]] = #tile.blocked<size = [8, 1], threads = [16, 2], warps = [1, 8], order = [0, 1]>
// CHECK-DAG: #[[D:.*]] = #tile.blocked<size = [1, 8], threads = [4, 8], warps = [8, 1], order = [1, 0]>
// CHECK-LABEL: func.func @transposed_store_coalesces
// CHECK: tile.transpose {{.*}} -> tensor<128x64xbf16, #[[T]]>
// CHECK: tile.convert_layout {{.*}} : tensor<128x64xbf16, #[[T]]> -> tensor<128x64xbf16, #[[D]]>
// CHECK: tile.store {{.*}} : tensor<128x64xbf16, #[[D]]>
func.func @transposed_store_coalesces(%k: !tile.ptr<bf16>, %o: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %kv = tile.make_view %k[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %ov = tile.make_view %o[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %kt = tile.load %kv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %t = tile.transpose %kt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  tile.store %t, %ov[%c0, %c0] : tensor<128x64xbf16>, !tile.view<?x?xbf16>
  return
}

// -----

// A widened bf16 load (here a softmax row) keeps 16-byte vectors (8
// elements a thread).
// CHECK-DAG: #[[ROW16:.*]] = #tile.blocked<size = [1, 8], threads = [1, 32], warps = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @widened_alone
// CHECK: tile.load {{.*}} : tensor<4x256xbf16, #[[ROW16]]>
// CHECK: arith.subf {{.*}} : tensor<4x256xf32, #[[ROW16]]>
func.func @widened_alone(%p: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<4x256xbf16>
  %x = arith.extf %t : tensor<4x256xbf16> to tensor<4x256xf32>
  %m = tile.reduce max %x along 1 : tensor<4x256xf32> -> tensor<4xf32>
  %b = tile.broadcast %m along 1 : tensor<4xf32> -> tensor<4x256xf32>
  %d = arith.subf %x, %b : tensor<4x256xf32>
  %y = arith.truncf %d : tensor<4x256xf32> to tensor<4x256xbf16>
  tile.store %y, %v[%c0, %c0] : tensor<4x256xbf16>, !tile.view<?x?xbf16>
  return
}

// -----

// In an innermost loop, where a conversion would cost two barriers every
// iteration, loads feeding a dot's accumulator (here wgmma's; through a
// widening and a scale) and a row broadcast over its result are read
// straight into the accumulator's layout and its slice: nothing converts
// in the loop.
// CHECK-DAG: #[[MMA:.*]] = #tile.mma<version = 3, warps = [4, 1], instr = [64, 32, 16]>
// CHECK-DAG: #[[ROW:.*]] = #tile.slice<dim = 0, parent = #[[MMA]]>
// CHECK-LABEL: func.func @loop_loads_in_accumulator_layout
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout
// CHECK: tile.load {{.*}} : tensor<64x32xbf16, #[[MMA]]>
// CHECK: tile.dot
// CHECK: tile.load {{.*}} : tensor<32xf32, #[[ROW]]>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @loop_loads_in_accumulator_layout(%a: !tile.ptr<bf16>, %r: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: i32, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %av = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %rv = tile.make_view %r[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %ov = tile.make_view %o[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %x = tile.load %av[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %w = tile.load %av[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %u = tile.load %av[%i, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %uf = arith.extf %u : tensor<64x32xbf16> to tensor<64x32xf32>
    %s = tile.splat %scale : tensor<64x32xf32>
    %us = arith.mulf %uf, %s : tensor<64x32xf32>
    %d = tile.dot %x, %w, %us : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    %row = tile.load %rv[%i] : !tile.view<?xf32> -> tensor<32xf32>
    %rows = tile.broadcast %row along 0 : tensor<32xf32> -> tensor<64x32xf32>
    %dr = arith.mulf %rows, %d : tensor<64x32xf32>
    tile.store %dr, %ov[%i, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
  }
  return
}

// -----

// Outside a loop the global loads keep their 16-byte vectors and convert.
// CHECK-LABEL: func.func @straight_line_loads_convert
// CHECK: tile.load {{.*}} : tensor<64x32xbf16, #blocked
// CHECK: tile.convert_layout
// CHECK: tile.dot
func.func @straight_line_loads_convert(%a: !tile.ptr<bf16>, %o: !tile.ptr<f32>, %n: i32, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %av = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %ov = tile.make_view %o[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %x = tile.load %av[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %w = tile.load %av[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  %u = tile.load %av[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  %uf = arith.extf %u : tensor<64x32xbf16> to tensor<64x32xf32>
  %s = tile.splat %scale : tensor<64x32xf32>
  %us = arith.mulf %uf, %s : tensor<64x32xf32>
  %d = tile.dot %x, %w, %us : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
  tile.store %d, %ov[%c0, %c0] : tensor<64x32xf32>, !tile.view<?x?xf32>
  return
}

// -----

// Into a view whose columns are contiguous (row stride 1, column stride a
// known 128), the transposed tile's runs down the columns are already the
// coalesced order: no conversion. (A dynamic column stride is taken to be
// a row-major view's, as the default layouts take it.)
// CHECK-LABEL: func.func @transposed_store_column_major
// CHECK: tile.transpose
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
func.func @transposed_store_column_major(%k: !tile.ptr<bf16>, %o: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %kv = tile.make_view %k[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %c128 = arith.constant 128 : i32
  %ov = tile.make_view %o[%n, %n] strides[%c1, %c128] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %kt = tile.load %kv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %t = tile.transpose %kt : tensor<64x128xbf16> -> tensor<128x64xbf16>
  tile.store %t, %ov[%c0, %c0] : tensor<128x64xbf16>, !tile.view<?x?xbf16>
  return
}
