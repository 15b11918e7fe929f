// RUN: emit-ptx %s --target=sm_100a -o %t.ptx --metadata-out=%t.json && FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=META < %t.json
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.ptx -o %t.o %}

// tile.multicast on tcgen05 kernels (the ring is tile-pipeline-loads',
// see test/Passes/multicast.mlir; the copies lowering/TmaLowering.cpp, the
// commits, the allocation and the cluster barrier before the free
// lowering/TensorCore/Tcgen05Lowering.cpp).

// Two CTA pairs share B: clusters of four along y. B's part is one 32-row
// box of the pair half, copied with cta_group::2 (its bytes counting on the
// leader's barrier, a mapa to rank & ~1) and multicast to the programs of
// the same rank in both pairs; the leader's commits reach all four
// programs (and so count twice on each consumed barrier: init 2).
// CHECK-LABEL: .entry gemm_pair_multicast
// CHECK: .reqnctapercluster 1, 4, 1
// CHECK: tcgen05.alloc.cta_group::2
// CHECK-COUNT-5: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 2;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: mapa.shared::cluster.u64
// CHECK: cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [
// CHECK: cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}], %rs{{[0-9]+}};
// CHECK: tcgen05.mma.cta_group::2
// CHECK: mov.b16 [[ALL:%rs[0-9]+]], 15;
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 {{.*}}, [[ALL]];
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: tcgen05.dealloc.cta_group::2

// Two single programs share B: clusters of two, each copying a 64-row
// half to both, commits to both.
// CHECK-LABEL: .entry gemm_multicast
// CHECK: .reqnctapercluster 1, 2, 1
// CHECK: tcgen05.alloc.cta_group::1
// CHECK-COUNT-5: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 2;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}},%r{{[0-9]+}}} ], [%r{{[0-9]+}}], %rs{{[0-9]+}};
// CHECK: tcgen05.mma.cta_group::1
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: tcgen05.dealloc.cta_group::1

// The launch shape and the boxes: B's tensor map has the part's rows.
// META: "cluster": [
// META-NEXT: 1,
// META-NEXT: 4,
// META: "name": "gemm_pair_multicast"
// META: "box": [
// META-NEXT: 128,
// META: "box": [
// META-NEXT: 32,
// META-NEXT: 64
// META: "cluster": [
// META-NEXT: 1,
// META-NEXT: 2,
// META: "name": "gemm_multicast"
// META: "box": [
// META-NEXT: 128,
// META: "box": [
// META-NEXT: 64,
// META-NEXT: 64

func.func @gemm_pair_multicast(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                               %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.cta_pair = true,
                tile.multicast = 2 : i32} {
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

func.func @gemm_multicast(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                          %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.multicast = 2 : i32} {
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
