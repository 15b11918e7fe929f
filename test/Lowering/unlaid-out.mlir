// RUN: kernel-opt %s -convert-tile-to-llvm -verify-diagnostics

// The lowering needs layouts; without tile-assign-layouts it says so.
func.func @no_layout(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  // expected-error @+1 {{tile has no register layout; run tile-assign-layouts first}}
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  tile.store %t, %v[%c0] : tensor<64xf32>, !tile.view<?xf32>
  return
}
