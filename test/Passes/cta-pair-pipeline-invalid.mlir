// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts=target=sm_100a -tile-pipeline-loads=target=sm_100a

// The pair shares B: its rows must not depend on the program's y
// coordinate (the pairing dimension), or the two programs would stage
// halves of different tiles.
func.func @b_rows_follow_y(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%row, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    // expected-error @+1 {{'tile.dot' op of a CTA pair (tile.cta_pair) must be pipelined with TMA}}
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%row, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// Unpipelined (one stage), a pair has no ring to share.
func.func @one_stage(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true,
                tile.num_stages = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    // expected-error @+1 {{'tile.dot' op of a CTA pair (tile.cta_pair) must be pipelined with TMA}}
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A pair needs a dot that runs on tcgen05: 64 rows do not.
// expected-error @+1 {{tile.cta_pair needs a GEMM-shaped dot that runs on tcgen05}}
func.func @rows_64(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.cta_pair = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<64x64xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %wt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.transpose %wt : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %xt, %b, %a : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}
