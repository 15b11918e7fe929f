// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm -verify-diagnostics

func.func @float_and(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %f = arith.constant 1.0 : f32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %i = tile.iota : tensor<128xi32>
  %x = tile.splat %f : tensor<128xf32>
  // expected-error @+2 {{has no atomic form for and on 'f32'}}
  // expected-error @+1 {{failed to legalize operation 'tile.atomic'}}
  %o = tile.atomic and %v[%i], %x : !tile.view<?xf32>[tensor<128xi32>], tensor<128xf32>
  return
}
