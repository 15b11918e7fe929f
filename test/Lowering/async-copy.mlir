// RUN: kernel-opt %s -tile-assign-layouts=target=sm_90a -canonicalize -tile-allocate-shared -convert-tile-to-llvm=target=sm_90a | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}
// RUN: kernel-opt %s -tile-assign-layouts=target=sm_90a -canonicalize -tile-allocate-shared -convert-tile-to-llvm="target=sm_90a async-copy-min-bytes=8" | FileCheck %s --check-prefix=MIN8
// RUN: emit-ptx %s --target=sm_90a --async-copy-min-bytes=4 -o %t.min4.ptx && FileCheck %s --check-prefix=MIN4 < %t.min4.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.min4.ptx -o %t.min4.o %}
// RUN: not emit-ptx %s --target=sm_90a --async-copy-min-bytes=3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMIN
// RUN: not emit-ptx %s --target=sm_90a --async-copy-min-bytes=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMIN
// BADMIN: error: async-copy-min-bytes is {{[03]}}; cp.async copies 16, 8 or 4 bytes

// Async copies into staged buffers (lowering/AsyncCopyLowering.cpp) and a
// wgmma dot reading the stages in place (WgmmaLowering.cpp).
// tile.async_copy of a 128x64 bf16 tile over 256 threads: four 16-byte
// chunks per thread, `cp.async.cg` with the in-view byte count as source
// size when the view is 16-byte aligned (a uniform test), element loads
// and one 16-byte shared store per chunk otherwise. The wait is the group
// wait, a proxy fence (sm_90a) and a barrier. The dot stages nothing: no
// scratch, no barrier of its own, descriptors on the buffers.
// CHECK-LABEL: llvm.func @copy_then_dot
// CHECK-SAME: shared_bytes = 65536
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: } else {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> i16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xi16>, !llvm.ptr<3>
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// With async-copy-min-bytes=8, sources 8-byte aligned (but not 16) take two
// 8-byte `cp.async.ca` per chunk, each with its own source size, before the
// element loads; with 4, four 4-byte ones come after those.
// MIN8-LABEL: llvm.func @copy_then_dot
// MIN8: scf.if %{{.*}} {
// MIN8-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// MIN8: } else {
// MIN8: scf.if %{{.*}} {
// MIN8-COUNT-8: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// MIN8: } else {
// MIN8-NOT: cache = ca
// MIN8: llvm.load %{{.*}} : !llvm.ptr<1> -> i16
// MIN8: nvvm.cp.async.commit.group
// MIN4-LABEL: .entry copy_then_dot
// MIN4-COUNT-4: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %{{.*}};
// MIN4-COUNT-8: cp.async.ca.shared.global [%{{.*}}], [%{{.*}}], 8, %{{.*}};
// MIN4-COUNT-16: cp.async.ca.shared.global [%{{.*}}], [%{{.*}}], 4, %{{.*}};
// MIN4: ld.global
// PTX-LABEL: .entry copy_then_dot
// PTX: cp.async.cg.shared.global [%{{.*}}], [%{{.*}}], 16, %{{.*}};
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX-NEXT: fence.proxy.async.shared::cta;
// PTX-NEXT: bar.sync 0;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
func.func @copy_then_dot(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %ra = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %rb = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  tile.async_copy %xv[%c0, %c0], %ra[%c0] : !tile.view<?x?xbf16>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  tile.async_copy %xv[%c0, %c0], %rb[%c0] : !tile.view<?x?xbf16>, !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  tile.async_commit
  tile.async_wait 0
  %a = tile.load_stage %ra[%c0] : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>> -> tensor<128x64xbf16>
  %w = tile.load_stage %rb[%c0] : !tile.smem<2x128x64xbf16, #tile.swizzle<128>> -> tensor<128x64xbf16>
  %b = tile.transpose %w : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}


