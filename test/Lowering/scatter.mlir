// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// The destination is staged in scratch, selected in-range elements
// overwrite their slots, and the result is read back.
// CHECK-LABEL: llvm.func @compact
// CHECK-SAME: shared_bytes = 256
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.icmp "ult"
// CHECK: scf.if
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// PTX-LABEL: .entry compact
// PTX: st.shared.b32
func.func @compact(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f0 = arith.constant 0.0 : f32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<1024xf32>
  %z = tile.splat %f0 : tensor<1024xf32>
  %m = arith.cmpf ogt, %t, %z : tensor<1024xf32>
  %one = arith.extui %m : tensor<1024xi1> to tensor<1024xi32>
  %pos = tile.scan add %one along 0 exclusive : tensor<1024xi32>
  %d = tile.splat %f0 : tensor<64xf32>
  %r = tile.scatter %t into %d[%pos] mask %m : tensor<1024xf32>, tensor<1024xi32> -> tensor<64xf32>
  tile.store %r, %v[%c0] : tensor<64xf32>, !tile.view<?xf32>
  return
}
