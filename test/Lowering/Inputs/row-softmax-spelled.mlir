// The kernel of ../sugar-ptx.mlir in the spelled-out forms: constants for
// every index, pointer and view types, expand_dims then broadcast, and
// written reduction results.
func.func @row_softmax(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32,
                       %cols: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %pid = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %r0 = arith.muli %pid, %c4 : i32
  %t = tile.load %in[%r0, %c0] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<4x256xf32>
  %m = tile.reduce max %t along 1 : tensor<4x256xf32> -> tensor<4xf32>
  %me = tile.expand_dims %m at 1 : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %me : tensor<4x1xf32> -> tensor<4x256xf32>
  %d = arith.subf %t, %mb : tensor<4x256xf32>
  %e = math.exp %d : tensor<4x256xf32>
  %s = tile.reduce add %e along 1 : tensor<4x256xf32> -> tensor<4xf32>
  %se = tile.expand_dims %s at 1 : tensor<4xf32> -> tensor<4x1xf32>
  %sb = tile.broadcast %se : tensor<4x1xf32> -> tensor<4x256xf32>
  %r = arith.divf %e, %sb : tensor<4x256xf32>
  tile.store %r, %out[%r0, %c0] : tensor<4x256xf32>, !tile.view<?x?xf32>
  return
}
