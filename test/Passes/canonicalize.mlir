// RUN: kernel-opt %s -split-input-file -canonicalize | FileCheck %s

// Dividing a tile by a broadcast row statistic takes one division per
// element of the statistic and a multiply per element of the tile.
// CHECK-LABEL: func.func @divide_rows
// CHECK:      %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<8x1xf32>
// CHECK:      %[[E:.*]] = tile.expand_dims
// CHECK:      %[[R:.*]] = arith.divf %[[ONE]], %[[E]] : tensor<8x1xf32>
// CHECK:      %[[B:.*]] = tile.broadcast %[[R]] : tensor<8x1xf32> -> tensor<8x256xf32>
// CHECK:      arith.mulf %{{.*}}, %[[B]] : tensor<8x256xf32>
// CHECK-NOT:  arith.divf {{.*}} : tensor<8x256xf32>
func.func @divide_rows(%t: tensor<8x256xf32>, %s: tensor<8xf32>)
    -> tensor<8x256xf32> {
  %e = tile.expand_dims %s at 1 : tensor<8xf32> -> tensor<8x1xf32>
  %b = tile.broadcast %e : tensor<8x1xf32> -> tensor<8x256xf32>
  %r = arith.divf %t, %b : tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}

// -----

// Division by a tile of the same size stays a division.
// CHECK-LABEL: func.func @divide_tiles
// CHECK:       arith.divf %{{.*}}, %{{.*}} : tensor<8x256xf32>
func.func @divide_tiles(%t: tensor<8x256xf32>, %u: tensor<8x256xf32>)
    -> tensor<8x256xf32> {
  %r = arith.divf %t, %u : tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}
