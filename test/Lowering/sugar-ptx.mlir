// RUN: emit-ptx %s --target=sm_90a -o %t.sugar.ptx
// RUN: emit-ptx %S/Inputs/row-softmax-spelled.mlir --target=sm_90a -o %t.spelled.ptx
// RUN: diff %t.sugar.ptx %t.spelled.ptx
// RUN: emit-ptx %s --target=sm_80 -o %t.sugar80.ptx
// RUN: emit-ptx %S/Inputs/row-softmax-spelled.mlir --target=sm_80 -o %t.spelled80.ptx
// RUN: diff %t.sugar80.ptx %t.spelled80.ptx
// RUN: FileCheck %s < %t.sugar.ptx

// The kernel text forms are sugar: literal indices (materialized as
// constants by the passes that read index lists), the view type alone,
// a broadcast along a new dimension (the operand in the slice layout, as
// an expand_dims would leave it) and inferred reduction results give the
// PTX of the spelled-out kernel in Inputs/, byte for byte.

// The literal unit stride still proves rows contiguous: 16-byte accesses.
// CHECK: .entry row_softmax
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
func.func @row_softmax(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32,
                       %cols: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, 1] : !tile.view<?x?xf32>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, 1] : !tile.view<?x?xf32>
  %c4 = arith.constant 4 : i32
  %r0 = arith.muli %pid, %c4 : i32
  %t = tile.load %in[%r0, 0] pad -inf : tensor<4x256xf32>
  %m = tile.reduce max %t along 1 : tensor<4x256xf32>
  %mb = tile.broadcast %m along 1 : tensor<4xf32> -> tensor<4x256xf32>
  %d = arith.subf %t, %mb : tensor<4x256xf32>
  %e = math.exp %d : tensor<4x256xf32>
  %s = tile.reduce add %e along 1 : tensor<4x256xf32>
  %sb = tile.broadcast %s along 1 : tensor<4xf32> -> tensor<4x256xf32>
  %r = arith.divf %e, %sb : tensor<4x256xf32>
  tile.store %r, %out[%r0, 0] : tensor<4x256xf32>
  return
}
