// The same source compiles for each target; FileCheck the instruction mix
// and let ptxas assemble the result where the CUDA toolkit is installed.
// RUN: emit-ptx %s --target=sm_80 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: emit-ptx %s --target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: emit-ptx %s --target=sm_100a | FileCheck %s --check-prefixes=CHECK,SM100

// SM80: .version 8.0
// SM80: .target sm_80
// SM90: .version 8.4
// SM90: .target sm_90a
// SM100: .version 8.6
// SM100: .target sm_100a
// CHECK: .extern .shared .align 1024 .b8 __tile_smem[];
// CHECK-LABEL: .entry row_sum(
// CHECK: .reqntid 128, 1, 1
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// 16-byte vector loads (LLVM picks v4.b32 or v2.b64 by target).
// CHECK: ld.global.{{v4.b32|v2.b64}}
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// CHECK: st.shared.b32
// CHECK: ld.shared
// CHECK: st.global.b32
func.func @row_sum(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32, %cols: i32)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %row = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %out = tile.make_view %y[%rows] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %in[%row, %c0] : !tile.view<?x?xf32> -> tensor<1x2048xf32>
  %s = tile.reduce add %t along 1 : tensor<1x2048xf32> -> tensor<1xf32>
  tile.store %s, %out[%row] : tensor<1xf32>, !tile.view<?xf32>
  return
}
