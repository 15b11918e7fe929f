// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-assign-layouts=target=sm_90a

// CTA pairs exist for tcgen05 only.
// expected-error @+1 {{tile.cta_pair needs a target with tcgen05 (sm_100a), not 'sm_90a'}}
func.func @pair_on_hopper(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
