// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// A ticket: every thread holds the one-element tile, one thread takes the
// ticket and all of them read it back. The fence orders the store before.
// The atomic's own leading barrier would follow the fence's second one with
// nothing between them: it is dropped.
// CHECK-LABEL: llvm.func @ticket
// CHECK: nvvm.barrier0
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: nvvm.barrier0
// The one-element ticket is replicated over the CTA: only the thread whose
// coordinate does not wrap (thread 0) takes it, with no election.
// CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// CHECK-NOT: nvvm.barrier0
// CHECK: scf.if
// CHECK: llvm.atomicrmw add %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// PTX-LABEL: .entry ticket
// PTX: bar.sync 0
// PTX-NEXT: fence.acq_rel.gpu
// PTX-NEXT: bar.sync 0
// PTX: atom.global.add.u32
func.func @ticket(%data: !tile.ptr<f32>, %counter: !tile.ptr<i32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %data[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<512xf32>
  tile.store %t, %v[%c0] : tensor<512xf32>, !tile.view<?xf32>
  tile.fence
  %cv = tile.make_view %counter[%c1] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %at = tile.splat %c0 : tensor<1xi32>
  %one = tile.splat %c1 : tensor<1xi32>
  %old = tile.atomic add %cv[%at], %one : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
  tile.store %old, %cv[%c0] : tensor<1xi32>, !tile.view<?xi32>
  return
}

// Per-element float maxima; out-of-bounds coordinates are skipped.
// CHECK-LABEL: llvm.func @scatter_max
// CHECK: llvm.icmp "ult"
// CHECK: llvm.atomicrmw fmax
// PTX-LABEL: .entry scatter_max
func.func @scatter_max(%p: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %r = tile.iota : tensor<256xi32>
  %x = arith.sitofp %r : tensor<256xi32> to tensor<256xf32>
  %old = tile.atomic max %v[%r], %x : !tile.view<?xf32>[tensor<256xi32>], tensor<256xf32>
  return
}
