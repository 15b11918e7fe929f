// RUN: kernel-opt %s -split-input-file -canonicalize | FileCheck %s

// Dividing a tile by a broadcast row statistic takes one division per
// element of the statistic and a multiply per element of the tile.
// CHECK-LABEL: func.func @divide_rows
// CHECK-SAME:   (%{{.*}}: tensor<8x256xf32>, %[[S:.*]]: tensor<8xf32>
// CHECK:      %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK:      %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : tensor<8xf32>
// CHECK:      %[[B:.*]] = tile.broadcast %[[R]] along 1 : tensor<8xf32> -> tensor<8x256xf32>
// CHECK:      arith.mulf %{{.*}}, %[[B]] : tensor<8x256xf32>
// CHECK-NOT:  arith.divf {{.*}} : tensor<8x256xf32>
func.func @divide_rows(%t: tensor<8x256xf32>, %s: tensor<8xf32>)
    -> tensor<8x256xf32> {
  %b = tile.broadcast %s along 1 : tensor<8xf32> -> tensor<8x256xf32>
  %r = arith.divf %t, %b : tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}

// -----

// The same through a unit dimension: an expand_dims and a broadcast are
// one broadcast along the new dimension first.
// CHECK-LABEL: func.func @divide_rows_expanded
// CHECK-NOT:  tile.expand_dims
// CHECK:      arith.divf %{{.*}}, %{{.*}} : tensor<8xf32>
// CHECK:      tile.broadcast %{{.*}} along 1 : tensor<8xf32> -> tensor<8x256xf32>
// CHECK-NOT:  arith.divf {{.*}} : tensor<8x256xf32>
func.func @divide_rows_expanded(%t: tensor<8x256xf32>, %s: tensor<8xf32>)
    -> tensor<8x256xf32> {
  %e = tile.expand_dims %s at 1 : tensor<8xf32> -> tensor<8x1xf32>
  %b = tile.broadcast %e : tensor<8x1xf32> -> tensor<8x256xf32>
  %r = arith.divf %t, %b : tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}

// -----

// Broadcast chains collapse to one op.
// CHECK-LABEL: func.func @broadcast_chains
// CHECK-SAME:   (%[[X:[^:]*]]: f32, %[[V:[^:]*]]: tensor<8xf32>, %[[U:[^:]*]]: tensor<1x8xf32>
// CHECK-NEXT: %[[A:.*]] = tile.splat %[[X]] : tensor<8x256xf32>
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[V]] along 0 : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[C:.*]] = tile.broadcast %[[U]] : tensor<1x8xf32> -> tensor<16x8xf32>
// Growing a dimension of the operand is not a broadcast along one.
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[U]] at 2
// CHECK-NEXT: %[[D:.*]] = tile.broadcast %[[E]] : tensor<1x8x1xf32> -> tensor<4x8x2xf32>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @broadcast_chains(%x: f32, %v: tensor<8xf32>, %u: tensor<1x8xf32>)
    -> (tensor<8x256xf32>, tensor<4x8xf32>, tensor<16x8xf32>,
        tensor<4x8x2xf32>) {
  %s = tile.splat %x : tensor<8x1xf32>
  %a = tile.broadcast %s : tensor<8x1xf32> -> tensor<8x256xf32>
  %b1 = tile.broadcast %v along 0 : tensor<8xf32> -> tensor<1x8xf32>
  %b = tile.broadcast %b1 : tensor<1x8xf32> -> tensor<4x8xf32>
  %c1 = tile.broadcast %u : tensor<1x8xf32> -> tensor<1x8xf32>
  %c = tile.broadcast %c1 : tensor<1x8xf32> -> tensor<16x8xf32>
  %e = tile.expand_dims %u at 2 : tensor<1x8xf32> -> tensor<1x8x1xf32>
  %d = tile.broadcast %e : tensor<1x8x1xf32> -> tensor<4x8x2xf32>
  return %a, %b, %c, %d : tensor<8x256xf32>, tensor<4x8xf32>,
      tensor<16x8xf32>, tensor<4x8x2xf32>
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

// -----

// Division by a splat scalar: one reciprocal, where the splat is (out of
// the loop), and a multiply per element.
// CHECK-LABEL: func.func @divide_by_splat
// CHECK-SAME:   (%{{.*}}: tensor<256xf32>, %[[S:.*]]: f32,
// CHECK:      %[[R:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK:      %[[B:.*]] = tile.splat %[[R]] : tensor<256xf32>
// CHECK:      scf.for
// CHECK:      arith.mulf %{{.*}}, %[[B]] : tensor<256xf32>
// CHECK-NOT:  arith.divf
func.func @divide_by_splat(%t: tensor<256xf32>, %s: f32, %n: i32)
    -> tensor<256xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = tile.splat %s : tensor<256xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %t) -> (tensor<256xf32>) : i32 {
    %q = arith.divf %a, %b : tensor<256xf32>
    scf.yield %q : tensor<256xf32>
  }
  return %r : tensor<256xf32>
}
