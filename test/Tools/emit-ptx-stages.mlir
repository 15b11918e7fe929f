// emit-ptx shows the IR after each stage, LLVM IR, and ptxas's resource
// report when ptxas is present.
// RUN: emit-ptx %s --print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: emit-ptx %s --emit=llvm | FileCheck %s --check-prefix=LLVM

// STAGES: IR Dump After TileAssignLayouts
// STAGES: IR Dump After TileAllocateShared
// STAGES: IR Dump After ConvertTileToLLVM
// STAGES: IR Dump After ReconcileUnrealizedCastsPass
// LLVM: define ptx_kernel void @neg(ptr addrspace(1) {{.*}}, i32 {{.*}})
// LLVM: fneg
func.func @neg(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<512xf32>
  %r = arith.negf %t : tensor<512xf32>
  tile.store %r, %v[%c0] : tensor<512xf32>, !tile.view<?xf32>
  return
}
