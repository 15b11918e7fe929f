// The named pipeline and MLIR's standard debugging flags work in kernel-opt.
// RUN: kernel-opt %s --pass-pipeline='builtin.module(tile-to-ptx{target=sm_80 num-warps=2})' | FileCheck %s
// RUN: kernel-opt %s --tile-to-ptx --mlir-print-ir-after=tile-assign-layouts -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: kernel-opt %s --tile-to-ptx --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// CHECK: llvm.func @copy({{.*}}) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 64, 1, 1>
// CHECK-SAME: target = "sm_80"
// AFTER: IR Dump After TileAssignLayouts (tile-assign-layouts)
// AFTER: tensor<256xf32, #blocked>
// TIMING: Execution time report
// TIMING: TileAssignLayouts
// TIMING: ConvertTileToLLVM
func.func @copy(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %pid = tile.program_id x
  %c256 = arith.constant 256 : i32
  %off = arith.muli %pid, %c256 : i32
  %in = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %out = tile.make_view %y[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %in[%off] : !tile.view<?xf32> -> tensor<256xf32>
  tile.store %t, %out[%off] : tensor<256xf32>, !tile.view<?xf32>
  return
}
