// RUN: kernel-opt %s -tile-assign-layouts=target=sm_90a -canonicalize -tile-allocate-shared -convert-tile-to-llvm=target=sm_90a -verify-diagnostics

// A stage laid out for another reader is refused where the dot is.
func.func @mismatched_stage(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %ra = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<64>>
  %a = tile.load_stage %ra[%c0] : !tile.smem<2x128x64xbf16, #tile.swizzle<64>> -> tensor<128x64xbf16>
  %w = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %b = tile.transpose %w : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  // expected-error @below {{operand 0 is read from a buffer laid out as '!tile.smem<2x128x64xbf16, #tile.swizzle<64>>', not as this dot reads it (128-byte rows, 128-byte swizzle, wgmma rows)}}
  // expected-error @below {{failed to legalize operation 'tile.dot'}}
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
