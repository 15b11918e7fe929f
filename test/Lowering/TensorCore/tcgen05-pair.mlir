// RUN: kernel-opt %s -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=target=sm_100a -canonicalize -cse -tile-allocate-shared -convert-tile-to-llvm=target=sm_100a | FileCheck %s
// RUN: emit-ptx %s --target=sm_100a -o %t.ptx --metadata-out=%t.json && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=META < %t.json
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.ptx -o %t.o %}

// A CTA pair's tcgen05 dot (lowering/TensorCore/Tcgen05Lowering.cpp; the
// ring is tile-pipeline-loads', the copies lowering/TmaLowering.cpp):
// - both programs allocate their tensor memory in one cta_group::2
//   allocation (warp 0 of each) and free it after a cluster barrier;
// - the copies of both programs complete on the leader's barrier: its
//   shared::cluster address (mapa to rank & ~1) in a cta_group::2 TMA copy;
// - thread 0 of the even program alone issues tcgen05.mma.cta_group::2
//   with the M = 256 instruction descriptor 0x10200490 (bf16, N = 128,
//   M >> 4 = 16), and commits with a multicast to both programs' consumed
//   barriers (mask 3 << (rank & ~1));
// - the kernel runs in clusters of (1, 2, 1): .reqnctapercluster in the
//   PTX, "cluster" in the metadata, and its tensor maps are "required"
//   (no cp.async version to fall back on).
// CHECK-LABEL: llvm.func @gemm_pair
// CHECK-SAME: nvvm.cluster_dim = array<i32: 1, 2, 1>
// CHECK-SAME: tile.cta_pair = true
// CHECK: nvvm.tcgen05.alloc {{.*}} {group = #nvvm.cta_group<cta_2>}
// CHECK: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.mapa
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $5, 0;\0A\09@p cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];\0A\09}"
// CHECK: llvm.mlir.constant(270533776 : i32) : i32
// CHECK: nvvm.tcgen05.mma {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
// CHECK: nvvm.tcgen05.commit {{.*}}, multicast_mask = {{.*}} {group = #nvvm.cta_group<cta_2>}
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK: nvvm.tcgen05.dealloc {{.*}} {group = #nvvm.cta_group<cta_2>}
// PTX-LABEL: .entry gemm_pair
// PTX: .reqnctapercluster 1, 2, 1
// PTX: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// PTX: tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
// PTX: barrier.cluster.arrive
// PTX: mapa.shared::cluster
// PTX: cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-COUNT-4: tcgen05.mma.cta_group::2.kind::f16
// PTX: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.dealloc.cta_group::2.sync.aligned.b32
// META: "cluster": [
// META-NEXT: 1,
// META-NEXT: 2,
// META-NEXT: 1
// META: "required": true
// META: "required": true
func.func @gemm_pair(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>,
                     %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %col = arith.muli %n0, %c128 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%col, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%row, %col] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}
