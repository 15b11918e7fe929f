// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// Bins are zeroed in scratch; every element adds 1 to its bin with a
// shared reduction predicated on the element being counted (in range and
// under the mask): no branch, no warp aggregation (8 elements per thread
// here); the bins are read back.
// CHECK-LABEL: llvm.func @count
// CHECK-SAME: shared_bytes = 1024
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.match.sync
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[IN:.*]] = llvm.icmp "ult"
// CHECK: %[[COUNTED:.*]] = llvm.and %[[IN]]
// CHECK: %[[FLAG:.*]] = llvm.zext %[[COUNTED]] : i1 to i32
// CHECK: llvm.inline_asm has_side_effects {{.*}}@p red.shared.add.u32 [$1], $2;{{.*}} %[[FLAG]], %{{.*}}, %[[ONE]]
// CHECK-COUNT-7: @p red.shared.add.u32
// CHECK-NOT: scf.if
// CHECK-NOT: nvvm.match.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// PTX-LABEL: .entry count
// PTX-NOT: match.any
// PTX-COUNT-8: @p red.shared.add.u32
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

// tile.histogram_add: the same predicated adds into the buffer, with no
// barrier and no scratch of its own (the buffer is 1 KiB).
// CHECK-LABEL: llvm.func @tally_into
// CHECK-SAME: shared_bytes = 1024
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-8: @p red.shared.add.u32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// PTX-LABEL: .entry tally_into
// PTX-NOT: bar.sync
// PTX-COUNT-8: @p red.shared.add.u32
// PTX-NOT: bar.sync
// PTX: ret;
func.func @tally_into(%p: !tile.ptr<i32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %buf = tile.alloc_shared : !tile.smem<256xi32>
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xi32>
  %t = tile.load %v[%c0] : tensor<1024xi32>
  tile.histogram_add %t, %buf : tensor<1024xi32>, !tile.smem<256xi32>
  return
}

// An i8 value is always below 256 bins: no bound compare (a 256 of i8
// would be 0 and count nothing).
// CHECK-LABEL: llvm.func @count_i8
// CHECK-NOT: llvm.icmp "ult"
// CHECK: red.shared.add.u32
func.func @count_i8(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.iota : tensor<1024xi32>
  %t = arith.trunci %i : tensor<1024xi32> to tensor<1024xi8>
  %h = tile.histogram %t : tensor<1024xi8> -> tensor<256xi32>
  %v = tile.make_view %p[256] strides[1] : !tile.view<?xi32>
  tile.store %h, %v[0] : tensor<256xi32>
  return
}
