// tile.max_registers caps the registers of every thread of a kernel.
// RUN: emit-ptx %s --target=sm_90a | FileCheck %s

// CHECK-LABEL: .entry capped(
// CHECK-DAG: .reqntid 128, 1, 1
// CHECK-DAG: .maxnreg 40
func.func @capped(%x: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.max_registers = 40 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<512xf32>
  tile.store %t, %v[%c0] : tensor<512xf32>, !tile.view<?xf32>
  return
}
