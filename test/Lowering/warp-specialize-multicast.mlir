// A warp-specialized wgmma ring shared by a cluster of two (tile.multicast,
// the ring tile-pipeline-loads', see test/Passes/multicast-hopper.mlir) in
// PTX: the kernel launches in clusters of two along y (KernelLowering);
// every thread passes the cluster barrier after the barriers' init
// (ClusterLowering.cpp); the producer copies its A rows to itself and its
// half of B to both programs (cp.async.bulk.tensor ... multicast::cluster,
// TmaLowering.cpp); lanes 0 and 1 of each consumer warp release a stage on
// the empty barriers of programs 0 and 1 (mapa, then
// mbarrier.arrive.shared::cluster, TmaLowering.cpp), which count 8 warps
// of 2 programs.
// RUN: emit-ptx %s --target=sm_90a --wgmma-stage-box -o %t.ptx --metadata-out=%t.json && FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=META < %t.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: .entry gemm_multicast(
// CHECK-DAG: .reqntid 384, 1, 1
// CHECK-DAG: .reqnctapercluster 1, 2, 1
// CHECK: mbarrier.init.shared.b64 [%{{.*}}], 16;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// A's 8-row boxes (a partial last tile) and B's shared copy are laid out
// ahead of the loop's wait; then the wait, the announced bytes and A's
// stage in one rank-5 box.
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, 32768;
// CHECK: cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mapa.shared::cluster.u64 %[[REMOTE:rd[0-9]+]], %{{rd[0-9]+}}, %{{r[0-9]+}};
// CHECK-NEXT: cvt.u32.u64 %[[REMOTE32:r[0-9]+]], %[[REMOTE]];
// CHECK: setp.lt.u32 p, %{{r[0-9]+}}, 2;
// CHECK-NEXT: @p mbarrier.arrive.shared::cluster.b64 _, [%[[REMOTE32]]];
// CHECK: ret;

// Clusters of two along y; A's boxes are 8-row wgmma atoms, or the whole
// stage through the rank-5 map (dimensions j, w, h, g, column: staged row
// g + 8h + 16w + 128j holds row g + 8w + 64h + 128j, so the row strides are
// 128, 8, 64 and 1 rows, and the outer size counts whole 128-row blocks);
// B's boxes are the half of the stage's rows one program copies.
// META: "cluster": [
// META-NEXT: 1,
// META-NEXT: 2,
// META: "name": "gemm_multicast"
// META: "box": [
// META-NEXT: 8,
// META: "box": [
// META-NEXT: 1,
// META-NEXT: 8,
// META-NEXT: 2,
// META-NEXT: 8,
// META-NEXT: 64
// META: "sizes": [
// META-NEXT: {
// META-NEXT: "arg": 3,
// META-NEXT: "div": 128
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "value": 8
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "value": 2
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "value": 8
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "arg": 5
// META-NEXT: }
// META: "strides": [
// META-NEXT: {
// META-NEXT: "arg": 5,
// META-NEXT: "mul": 128
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "arg": 5,
// META-NEXT: "mul": 8
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "arg": 5,
// META-NEXT: "mul": 64
// META-NEXT: },
// META-NEXT: {
// META-NEXT: "arg": 5
// META-NEXT: },
// META: "whole_outer": true
// META: "box": [
// META-NEXT: 64,
// META-NEXT: 64
func.func @gemm_multicast(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                          %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.warp_specialize = true, tile.multicast = 2 : i32} {
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
