// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize | FileCheck %s --check-prefix=SM90

// On sm_100a the GEMM-shaped dot of a K loop gets the tcgen05 accumulator
// (version 5, in tensor memory): 128 rows on the four lane quarters, the
// eight warps split N in two blocks of 64 columns. The zero it starts from
// is created in that layout; the store after the loop reads it through a
// convert_layout to the tcgen05.ld layout (one row per lane, 64 columns
// per thread, warps along rows first).
// CHECK-DAG: #[[LD:.*]] = #tile.blocked<size = [1, 64], threads = [32, 1], warps = [4, 2], order = [0, 1]>
// CHECK-DAG: #[[MMA:.*]] = #tile.mma<version = 5, warps = [4, 2], instr = [128, 128, 16]>
// CHECK-LABEL: func.func @gemm
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[ZERO]]) -> (tensor<128x128xf32, #[[MMA]]>)
// CHECK: %[[D:.*]] = tile.dot {{.*}}, %[[A]] : {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: %[[R:.*]] = tile.convert_layout %[[ACC]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #[[LD]]>
// CHECK: tile.store %[[R]]
// On sm_90a the same source gets wgmma, a register layout read in place.
// SM90-LABEL: func.func @gemm
// SM90: tile.dot {{.*}} -> tensor<128x128xf32, #mma>
// SM90-NOT: tile.convert_layout
// SM90: tile.store
func.func @gemm(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>,
                %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// fp8 with four warps: K steps of 32, one column block of 64 (N = 64).
// CHECK-DAG: #[[LD:.*]] = #tile.blocked<size = [1, 64], threads = [32, 1], warps = [4, 1], order = [0, 1]>
// CHECK-DAG: #[[MMA:.*]] = #tile.mma<version = 5, warps = [4, 1], instr = [128, 64, 32]>
// CHECK-LABEL: func.func @gemm_fp8
// CHECK: tile.dot {{.*}} -> tensor<128x64xf32, #[[MMA]]>
// CHECK: arith.mulf {{.*}} : tensor<128x64xf32, #[[LD]]>
func.func @gemm_fp8(%x: !tile.ptr<f8E4M3FN>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %wt = tile.load %xv[%c0, %k] : !tile.view<?x?xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
    %b = tile.transpose %wt : tensor<64x128xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
    %d = tile.dot %xt, %b, %a : tensor<128x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  %two = arith.constant dense<2.0> : tensor<128x64xf32>
  %s = arith.mulf %acc, %two : tensor<128x64xf32>
  tile.store %s, %yv[%c0, %c0] : tensor<128x64xf32>, !tile.view<?x?xf32>
  return
}

// -----

// Not the GEMM form tcgen05 is lowered for: a dot outside a loop, and a
// 64-row tile, stay on mma.sync (version 2) on sm_100a.
// CHECK-NOT: version = 5
// CHECK-DAG: #mma = #tile.mma<version = 2, warps = [4, 2], instr = [16, 8, 16]>
// CHECK-DAG: #mma1 = #tile.mma<version = 2, warps = [2, 4], instr = [16, 8, 16]>
// CHECK-LABEL: func.func @not_in_loop
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #mma>
// CHECK-LABEL: func.func @m64
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32, #mma1>
func.func @not_in_loop(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %w = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %b = tile.transpose %w : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

func.func @m64(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<64x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %wt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<64x128xf32>, !tile.view<?x?xf32>
  return
}
