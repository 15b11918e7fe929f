// RUN: kernel-opt %s -tile-assign-layouts -convert-tile-to-llvm -verify-diagnostics

// i1 tiles are bytes in registers with no arithmetic to combine them.
func.func @scan_i1(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %b = arith.cmpi sgt, %t, %z : tensor<64xi32>
  // expected-error @+2 {{scans of i1 tiles are not supported}}
  // expected-error @+1 {{failed to legalize operation 'tile.scan'}}
  %s = tile.scan or %b along 0 : tensor<64xi1>
  %e = arith.extui %s : tensor<64xi1> to tensor<64xi32>
  tile.store %e, %v[%c0] : tensor<64xi32>, !tile.view<?xi32>
  return
}
