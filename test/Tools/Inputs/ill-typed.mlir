// Parses, but fails verification.
func.func @k(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %t = tile.splat %c1 : tensor<4x8xi32>
  %r = tile.reduce add %t along 1 : tensor<4x8xi32> -> tensor<8xi32>
  return
}
