// RUN: kernel-opt %s -split-input-file -tile-split-k | FileCheck %s

// A GEMM with a scaled, cast epilogue. Part z of Z runs iterations
// [z * per, (z + 1) * per) of the K loop (per = ceil(n / Z)); its partial
// goes to slot z * tiles + t of split_partials; the last of the tile's
// parts to take its ticket sums the Z slots in order of z and runs the
// epilogue on the sum.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %[[K:[a-z0-9_]+]]: i32, %[[PARTIALS:[a-z0-9_]+]]: !tile.ptr<f32>, %[[TICKETS:[a-z0-9_]+]]: !tile.ptr<i32>)
// CHECK-SAME: tile.arg_names = ["x", "w", "scale", "y", "M", "N", "K", "split_partials", "split_tickets"]
// CHECK-SAME: tile.split_k_partial_bytes = 65536
// CHECK-NOT: tile.split_k =
// CHECK: %[[Z:.*]] = tile.program_id z
// CHECK: %[[NZ:.*]] = tile.num_programs z
// CHECK: %[[TRIPS:.*]] = arith.divui %{{.*}}, %[[STEP:.*]] : i32
// CHECK: %[[PER:.*]] = arith.divui %{{.*}}, %[[NZ]] : i32
// CHECK: %[[PERK:.*]] = arith.muli %[[PER]], %[[STEP]] : i32
// CHECK: %[[OFF:.*]] = arith.muli %[[Z]], %[[PERK]] : i32
// CHECK: %[[BEGIN:.*]] = arith.addi %{{.*}}, %[[OFF]] : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[BEGIN]], %[[PERK]] : i32
// CHECK: %[[END:.*]] = arith.minsi %[[K]], %[[NEXT]] : i32
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %[[STEP]]
// CHECK: tile.dot
// CHECK: %[[TILES:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[PV:.*]] = tile.make_view %[[PARTIALS]]
// CHECK: tile.store %[[ACC]], %[[PV]][%{{.*}}, %{{.*}}] : tensor<128x128xf32>
// CHECK-NEXT: tile.fence
// CHECK: %[[TV:.*]] = tile.make_view %[[TICKETS]][%[[TILES]]]
// CHECK: %[[OLD:.*]] = tile.atomic add %[[TV]]
// CHECK: %[[TICKET:.*]] = tile.reduce max %[[OLD]] along 0
// CHECK: %[[LASTZ:.*]] = arith.subi %[[NZ]], %{{.*}} : i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[TICKET]], %[[LASTZ]] : i32
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: tile.fence
// CHECK: tile.store %{{.*}}, %[[TV]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %[[NZ]] step %{{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (tensor<128x128xf32>)
// CHECK: %[[SLOT:.*]] = tile.load %[[PV]]
// CHECK: arith.addf %[[S]], %[[SLOT]] : tensor<128x128xf32>
// CHECK: tile.load %{{.*}} : tensor<128xf32>
// CHECK: arith.mulf %[[SUM]], %{{.*}} : tensor<128x128xf32>
// CHECK: arith.truncf
// CHECK: tile.store
// CHECK: }
// CHECK-NEXT: return
func.func @gemm(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %scale: !tile.ptr<f32>,
                %y: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.split_k = true,
                tile.arg_names = ["x", "w", "scale", "y", "M", "N", "K"]} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %col = arith.muli %n0, %c128 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %sv = tile.make_view %scale[%N] strides[1] : !tile.view<?xf32>
  %yv = tile.make_view %y[%M, %N] strides[%N, 1] : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : tensor<128x64xbf16>
    %wt = tile.load %wv[%col, %k] : tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = tile.load %sv[%col] : tensor<128xf32>
  %sb = tile.broadcast %s along 0 : tensor<128xf32> -> tensor<128x128xf32>
  %scaled = arith.mulf %acc, %sb : tensor<128x128xf32>
  %out = arith.truncf %scaled : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %yv[%row, %col] : tensor<128x128xbf16>
  return
}

// -----

// Another epilogue: bias, SiLU and a residual add, all on the sum. The
// residual's load, after the loop, moves into the last part's branch too.
// CHECK-LABEL: func.func @gemm_bias_silu_residual(
// CHECK-SAME: tile.split_k_partial_bytes = 16384
// CHECK: scf.for
// CHECK: tile.dot
// CHECK: tile.store %{{.*}} : tensor<64x64xf32>
// CHECK: scf.if
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: arith.addf %[[SUM]], %{{.*}} : tensor<64x64xf32>
// CHECK: math.exp
// CHECK: tile.load %{{.*}} : tensor<64x64xf32>
// CHECK: tile.store %{{.*}} : tensor<64x64xf32>
// CHECK: }
// CHECK-NEXT: return
func.func @gemm_bias_silu_residual(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                                   %bias: !tile.ptr<f32>, %res: !tile.ptr<f32>,
                                   %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.split_k = true} {
  %c0 = arith.constant 0 : i32
  %c0f = arith.constant 0.0 : f32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c64 : i32
  %col = arith.muli %n0, %c64 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %bv = tile.make_view %bias[%N] strides[1] : !tile.view<?xf32>
  %rv = tile.make_view %res[%M, %N] strides[%N, 1] : !tile.view<?x?xf32>
  %yv = tile.make_view %y[%M, %N] strides[%N, 1] : !tile.view<?x?xf32>
  %zero = tile.splat %c0f : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : tensor<64x32xbf16>
    %wt = tile.load %wv[%col, %k] : tensor<64x32xbf16>
    %b = tile.transpose %wt : tensor<64x32xbf16> -> tensor<32x64xbf16>
    %d = tile.dot %xt, %b, %a : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %bt = tile.load %bv[%col] : tensor<64xf32>
  %bb = tile.broadcast %bt along 0 : tensor<64xf32> -> tensor<64x64xf32>
  %pre = arith.addf %acc, %bb : tensor<64x64xf32>
  %neg = arith.negf %pre : tensor<64x64xf32>
  %e = math.exp %neg : tensor<64x64xf32>
  %den = arith.addf %one, %e : tensor<64x64xf32>
  %silu = arith.divf %pre, %den : tensor<64x64xf32>
  %r = tile.load %rv[%row, %col] : tensor<64x64xf32>
  %out = arith.addf %silu, %r : tensor<64x64xf32>
  tile.store %out, %yv[%row, %col] : tensor<64x64xf32>
  return
}
