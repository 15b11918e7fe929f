// RUN: kernel-opt %s -tile-assign-layouts -convert-tile-to-llvm -verify-diagnostics

// 16 elements over 64 threads: lanes hold replicas along the scanned
// dimension, which a prefix would count twice.
func.func @replicated(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<16xi32>
  // expected-error @+2 {{scans a tile narrower than the CTA along dimension 0}}
  // expected-error @+1 {{failed to legalize operation 'tile.scan'}}
  %s = tile.scan add %t along 0 : tensor<16xi32>
  tile.store %s, %v[%c0] : tensor<16xi32>, !tile.view<?xi32>
  return
}
