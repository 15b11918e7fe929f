// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts=target=sm_100a -tile-pipeline-loads=target=sm_100a

// tile.multicast groups are 2, 4 or 8 programs (or CTA pairs).
// expected-error @+1 {{'tile.multicast' is 2, 4 or 8 on a kernel}}
func.func @three(%x: !tile.ptr<bf16>) attributes {tile.kernel, tile.multicast = 3 : i32} {
  return
}

// -----

// Eight CTA pairs would make clusters of 16 programs; at most 8 run.
// expected-error @+1 {{'tile.multicast' = 8 makes clusters of 16 programs with CTA pairs; at most 8 run}}
func.func @too_wide(%x: !tile.ptr<bf16>)
    attributes {tile.kernel, tile.cta_pair = true, tile.multicast = 8 : i32} {
  return
}

// -----

// Nothing to share: B's rows follow the program's y coordinate, which
// differs across the cluster.
// expected-error @+1 {{tile.multicast: no operand is shared by the cluster}}
func.func @b_rows_follow_y(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                           %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.multicast = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %col = arith.muli %m0, %c128 : i32
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

// -----

// Nor when the loop's bounds follow y: the programs of the cluster would
// run different iterations and wait for copies the others never make.
// expected-error @+1 {{tile.multicast: no operand is shared by the cluster}}
func.func @loop_bound_follows_y(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                           %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.multicast = 2 : i32} {
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
  %acc = scf.for %k = %m0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%col, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%row, %col] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
