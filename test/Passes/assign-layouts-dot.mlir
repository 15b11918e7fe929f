// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts=target=sm_90a -canonicalize | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts=target=sm_80 -canonicalize | FileCheck %s --check-prefixes=CHECK,SM80

// A dot's result gets the accumulator layout of the target's tensor-core
// instruction: on sm_90a wgmma (version 3, two warpgroups each taking
// m64n128 blocks), on sm_80 mma.sync with the warps split so that each
// warp reads the fewest operand rows (4x2 for 128x128 on 8 warps). The loop-carried accumulator starts in that layout, so nothing
// is converted inside the loop; the transposed weight tile keeps the
// registers of its load with the dimensions swapped.
// SM90-DAG: #[[ACC:.*]] = #tile.mma<version = 3, warps = [8, 1], instr = [64, 128, 16]>
// SM80-DAG: #[[ACC:.*]] = #tile.mma<version = 2, warps = [4, 2], instr = [16, 8, 16]>
// CHECK-DAG: #[[LOAD:.*]] = #tile.blocked<size = [1, 8], threads = [4, 8], warps = [8, 1], order = [1, 0]>
// CHECK-DAG: #[[LOADT:.*]] = #tile.blocked<size = [8, 1], threads = [8, 4], warps = [1, 8], order = [0, 1]>
// SM90: module attributes {tile.target = "sm_90a"}
// SM80: module attributes {tile.target = "sm_80"}
// CHECK-LABEL: func.func @gemm_tile
// CHECK: arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[ACC]]>
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout
// CHECK: tile.transpose {{.*}} : tensor<128x64xbf16, #[[LOAD]]> -> tensor<64x128xbf16, #[[LOADT]]>
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[ACC]]>
// CHECK-NEXT: scf.yield
func.func @gemm_tile(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>,
                     %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%k, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%k, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%k, %k] strides[%k, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %k step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %i] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%c0, %i] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// fp8 multiplies as fp8 (wgmma m64n64k32) on sm_90a; sm_80 widens to
// bf16 (mma.sync m16n8k16). A per-column scale broadcast over the accumulator is
// converted as one row, not as the whole tile.
// SM90-DAG: #[[ACC8:.*]] = #tile.mma<version = 3, warps = [4, 1], instr = [64, 64, 32]>
// SM80-DAG: #[[ACC8:.*]] = #tile.mma<version = 2, warps = [2, 2], instr = [16, 8, 16]>
// CHECK-DAG: #[[ROW:.*]] = #tile.slice<dim = 0, parent = #[[ACC8]]>
// CHECK-LABEL: func.func @fp8_scaled
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[ACC8]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<64xf32, #[[ROW]]>
// CHECK: tile.broadcast {{.*}} along 0 : tensor<64xf32, #[[ROW]]> -> tensor<64x64xf32, #[[ACC8]]>
// CHECK: arith.mulf {{.*}} : tensor<64x64xf32, #[[ACC8]]>
func.func @fp8_scaled(%x: !tile.ptr<f8E4M3FN>, %s: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                      %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%k, %k] strides[%k, %c1] : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %sv = tile.make_view %s[%k] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%k, %k] strides[%k, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %a, %zero : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  %sc = tile.load %sv[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  %se = tile.expand_dims %sc at 0 : tensor<64xf32> -> tensor<1x64xf32>
  %sb = tile.broadcast %se : tensor<1x64xf32> -> tensor<64x64xf32>
  %r = arith.mulf %d, %sb : tensor<64x64xf32>
  tile.store %r, %yv[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}

// -----

func.func @too_small(%y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = arith.constant dense<1.0> : tensor<16x16xbf16>
  %zero = arith.constant dense<0.0> : tensor<16x8xf32>
  %b = arith.constant dense<1.0> : tensor<16x8xbf16>
  // expected-error @+1 {{a 16x8 accumulator cannot be split over 8 warps in m16n8 fragments}}
  %d = tile.dot %a, %b, %zero : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  %yv = tile.make_view %y[%c1, %c1] strides[%c1, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<16x8xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A loop that replaces its tiles with dot results each iteration (powers
// of a matrix) carries them in the accumulator layout: the initial values
// are converted once before the loop, and nothing inside it.
// CHECK-DAG: #[[SQ:.*]] = #tile.mma<version = 2, warps = [4, 2], instr = [16, 8, 8]>
// CHECK-LABEL: func.func @powers
// CHECK: tile.convert_layout {{.*}} -> tensor<64x64xf32, #[[SQ]]>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #[[SQ]]>, tensor<64x64xf32, #[[SQ]]>)
// CHECK-NOT: tile.convert_layout
// CHECK: scf.yield
func.func @powers(%a: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %av = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %m = tile.load %av[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %x0 = arith.addf %m, %one : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%x = %x0, %p = %m)
      -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
    %p2 = tile.dot %p, %p, %zero : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    %x2 = tile.dot %x, %p2, %x : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %x2, %p2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  tile.store %r#0, %av[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}
