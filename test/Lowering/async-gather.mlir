// RUN: kernel-opt %s -tile-assign-layouts=target=sm_80 -canonicalize -tile-allocate-shared -convert-tile-to-llvm=target=sm_80 | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.sm90.ptx && FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: emit-ptx %s --target=sm_80 -o %t.sm80.ptx && FileCheck %s --check-prefix=PTX < %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90.ptx -o %t.90.o %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o %t.80.o %}

// tile.async_gather (lowering/AsyncCopyLowering.cpp) of 64 rows of a
// cache through a row table: 128 threads, 8 bf16 (16 bytes) per thread
// along a row, so four runs per thread. Each run is one cp.async.cg of 16
// bytes when its columns are consecutive, inside the view and aligned (the
// consecutiveness test folds: the columns are an iota); a row outside the
// view (-1) copies 0 bytes from the view's base, zero-filling the chunk.
// Other runs move element by element (scalar loads, 2-byte shared stores).
// When all four runs qualify (the view's base and row stride 16-byte
// aligned, every run's columns in range: one test for the thread), one
// branch issues the four cp.async; otherwise each run tests itself.
// Then P·V on mma.sync reads V, held as K rows of N, in place with
// ldmatrix.trans: no scratch for B, so only A (16 rows of 128 bytes) is
// staged: 2048 bytes of scratch after the 2 x 8 KiB of the buffer.
// CHECK-LABEL: llvm.func @gather_then_dot
// CHECK-SAME: shared_bytes = 18432
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT: nvvm.cp.async.shared.global
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> bf16
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<3>
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4
// CHECK: nvvm.mma.sync
// PTX-LABEL: .entry gather_then_dot
// PTX: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %{{.*}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
#kv = #tile.blocked<size = [1, 8], threads = [4, 8], warps = [4, 1], order = [1, 0]>
#row = #tile.slice<dim = 1, parent = #kv>
#col = #tile.slice<dim = 0, parent = #kv>
func.func @gather_then_dot(%p: !tile.ptr<bf16>, %x: !tile.ptr<bf16>,
    %table: !tile.ptr<i32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%n, %c64] strides[%c64, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %tv = tile.make_view %table[%c64] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %pv = tile.make_view %p[%c16, %c64] strides[%c64, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%c16, %c64] strides[%c64, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %r = tile.load %tv[%c0] : tensor<64xi32, #row>
  %rE = tile.expand_dims %r at 1 : tensor<64xi32, #row> -> tensor<64x1xi32, #kv>
  %rows = tile.broadcast %rE : tensor<64x1xi32, #kv> -> tensor<64x64xi32, #kv>
  %i = tile.iota : tensor<64xi32, #col>
  %iE = tile.expand_dims %i at 0 : tensor<64xi32, #col> -> tensor<1x64xi32, #kv>
  %cols = tile.broadcast %iE : tensor<1x64xi32, #kv> -> tensor<64x64xi32, #kv>
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  tile.async_gather %xv[%rows, %cols], %ring[%c0] : !tile.view<?x?xbf16>, tensor<64x64xi32, #kv>, tensor<64x64xi32, #kv>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  tile.async_commit
  tile.async_wait 0
  %v = tile.load_stage %ring[%c0] : !tile.smem<2x64x64xbf16, #tile.swizzle<128>> -> tensor<64x64xbf16, #kv>
  %a = tile.load %pv[%c0, %c0] : tensor<16x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %d = tile.dot %a, %v, %zero : tensor<16x64xbf16>, tensor<64x64xbf16, #kv> -> tensor<16x64xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<16x64xf32>
  return
}
