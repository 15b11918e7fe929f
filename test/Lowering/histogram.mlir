// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Bins are zeroed in scratch; per element, lanes with the same counted bin
// (in range and under the mask) are grouped by match.any and the lowest
// adds the group's size with a shared atomic; the bins are read back.
// CHECK-LABEL: llvm.func @count
// CHECK-SAME: shared_bytes = 1024
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: nvvm.read.ptx.sreg.lanemask.lt
// CHECK: llvm.icmp "ult"
// CHECK: %[[PEERS:.*]] = nvvm.match.sync any
// CHECK: scf.if
// CHECK: %[[SIZE:.*]] = llvm.intr.ctpop(%[[PEERS]])
// CHECK: llvm.atomicrmw add %{{.*}}, %[[SIZE]] monotonic : !llvm.ptr<3>, i32
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// PTX-LABEL: .entry count
// PTX: match.any.sync.b32
// PTX: popc.b32
// PTX: atom.shared.add.u32
func.func @count(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<1024xi32>
  %z = tile.splat %c0 : tensor<1024xi32>
  %m = arith.cmpi sgt, %t, %z : tensor<1024xi32>
  %h = tile.histogram %t mask %m : tensor<1024xi32> -> tensor<256xi32>
  tile.store %h, %v[%c0] : tensor<256xi32>, !tile.view<?xi32>
  return
}
