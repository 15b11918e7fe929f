// A warp-specialized ring in PTX: 8 consumer warps and a producer
// warpgroup. The producer (threads >= 256) gives up registers, and its
// first warp issues the copies; the consumers take registers, arrive on the
// empty barriers, and synchronize among themselves on barrier 1.
// RUN: emit-ptx %s --target=sm_90a --wgmma-stage-box | FileCheck %s
// RUN: %if ptxas %{ emit-ptx %s --target=sm_90a --wgmma-stage-box -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: emit-ptx %s --target=sm_90a | FileCheck %s --check-prefix=BOXES

// By default A's stages move in 8-row boxes only.
// BOXES-LABEL: .entry k_loop(
// BOXES: mbarrier.arrive.expect_tx.shared.b64
// BOXES: cp.async.bulk.tensor.2d.shared::cluster.global
// BOXES-NOT: cp.async.bulk.tensor.5d
// BOXES: setmaxnreg.inc.sync.aligned.u32 232;

// CHECK-LABEL: .entry k_loop(
// CHECK-DAG: .reqntid 384, 1, 1
// CHECK-DAG: .maxnreg 168
// CHECK: mov.u32 %[[TID:r[0-9]+]], %tid.x;
// CHECK: mbarrier.init.shared.b64 [%{{.*}}], 256;
// CHECK: bar.sync 0;
// CHECK: setp.lt.u32 %[[CONSUMER:p[0-9]+]], %[[TID]], 256;
// CHECK: @%[[CONSUMER]] bra [[CONSUMERS:\$L__BB[0-9_]+]];
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// The block layout puts A's 8-row boxes (the branch for a partial last
// tile) and B's copy ahead of the loop's wait; in the loop the producer
// waits for an empty stage, announces its bytes and copies A's stage in
// one rank-5 box while it lies inside the view (block row0 / 128 of the
// map's outermost dimension).
// CHECK: setp.gt.u32 %{{p[0-9]+}}, %[[TID]], 287;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%{{r[0-9]+}}], [%{{rd[0-9]+}}, {%{{r[0-9]+}},0,0,0,%{{r[0-9]+}}} ]
// CHECK: [[CONSUMERS]]:
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared.b64
// CHECK: bar.sync 1, 256;
// CHECK-NOT: bar.sync 0;
// CHECK: ret;
func.func @k_loop(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.warp_specialize = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : tensor<128x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %acc, %vy[%c0, %c0] : tensor<128x128xf32>
  return
}
