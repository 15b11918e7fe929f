// RUN: kernel-opt %s -split-input-file -verify-diagnostics -convert-tile-to-llvm=target=sm_90a | FileCheck %s

// A tensor map is a hidden kernel parameter after the declared ones: a
// 128-byte grid constant passed by value, described in the metadata by the
// parameters its view is made of; with no tile.view_aligned switch (no
// cp.async version to fall back on) the map is required: the runtime
// refuses views it cannot describe.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i32, %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME: tensor_maps = [{base = 0 : i64, box = [8, 64], elem = "bf16", param = 3 : i64, required = true, sizes = [{arg = 1 : i64}, {arg = 2 : i64}], strides = [{arg = 2 : i64}, {value = 1 : i64}], swizzle = 128 : i64}]
// Barriers: initialized by thread 0, published, then a barrier.
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %{{.*}}
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}}, predicate = %{{.*}}
// Sixteen boxes of 8 rows, one per thread of the first warp, each at its
// rows' place in wgmma order.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[C16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK: %[[ISSUES:.*]] = llvm.icmp "ult" %[[TID]], %[[C16]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] predicate = %[[ISSUES]]
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.barrier0
func.func @k(%x: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %x[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
  %ring = tile.alloc_shared {offset = 0 : i64} : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared {offset = 32768 : i64} : !tile.smem<2xi64>
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.mbarrier_expect %bars[%c0], 16384 : !tile.smem<2xi64>
  tile.tma_copy %map[%c0, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  tile.mbarrier_wait %bars[%c0] phase %c0 : !tile.smem<2xi64>
  tile.barrier
  return
}

// -----

// The runtime can encode a tensor map only from kernel parameters and
// constants.
func.func @computed_size(%x: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %m2 = arith.muli %m, %m : i32
  %v = tile.make_view %x[%m2, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  // expected-error @below {{needs a view made by tile.make_view of kernel parameters and constants with a last stride of 1}}
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
  %bars = tile.alloc_shared {offset = 0 : i64} : !tile.smem<2xi64>
  %ring = tile.alloc_shared {offset = 1024 : i64} : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  %c0 = arith.constant 0 : i32
  tile.tma_copy %map[%c0, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128>>, !tile.smem<2xi64>
  return
}

// -----

// A map that lands a whole stage in wgmma order is a rank-5 map over the
// same view (dimensions j, w, h, g, column outermost first, with row
// strides 128, 8, 64 and 1 rows): a constant size is divided at compile
// time, the outer size counts whole 128-row blocks, and copies through it
// are one box issued by thread 0 at block row / 128.
// CHECK-LABEL: llvm.func @whole_stage(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME: tensor_maps = [{base = 0 : i64, box = [1, 8, 2, 8, 64], elem = "bf16", param = 2 : i64, required = true, sizes = [{value = 7 : i64}, {value = 8 : i64}, {value = 2 : i64}, {value = 8 : i64}, {arg = 1 : i64}], strides = [{arg = 1 : i64, mul = 128 : i64}, {arg = 1 : i64, mul = 8 : i64}, {arg = 1 : i64, mul = 64 : i64}, {arg = 1 : i64}, {value = 1 : i64}], swizzle = 128 : i64, whole_outer = true}]
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
// CHECK: %[[BLOCK:.*]] = llvm.udiv %[[ROW:.*]], %[[C128]]
// CHECK: %[[ONE:.*]] = llvm.icmp "eq"
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BLOCK]]] predicate = %[[ONE]]
func.func @whole_stage(%x: !tile.ptr<bf16>, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %m = arith.constant 1000 : i32
  %v = tile.make_view %x[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %ring = tile.alloc_shared {offset = 0 : i64} : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared {offset = 32768 : i64} : !tile.smem<2xi64>
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.mbarrier_expect %bars[%c0], 16384 : !tile.smem<2xi64>
  tile.tma_copy %map[%c256, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  tile.mbarrier_wait %bars[%c0] phase %c0 : !tile.smem<2xi64>
  tile.barrier
  return
}

// -----

// Four warps (one warpgroup): 64-row blocks, row strides 64, 8, 32 and 1
// rows; a 128-row stage is two blocks of the outer dimension.
// CHECK-LABEL: llvm.func @whole_stage_4_warps(
// CHECK-SAME: tensor_maps = [{base = 0 : i64, box = [2, 4, 2, 8, 64], elem = "bf16", param = 3 : i64, required = true, sizes = [{arg = 1 : i64, div = 64 : i64}, {value = 4 : i64}, {value = 2 : i64}, {value = 8 : i64}, {arg = 2 : i64}], strides = [{arg = 2 : i64, mul = 64 : i64}, {arg = 2 : i64, mul = 8 : i64}, {arg = 2 : i64, mul = 32 : i64}, {arg = 2 : i64}, {value = 1 : i64}], swizzle = 128 : i64, whole_outer = true}]
// CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32)
// CHECK: llvm.udiv %{{.*}}, %[[C64]]
func.func @whole_stage_4_warps(%x: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %x[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>
  %ring = tile.alloc_shared {offset = 0 : i64} : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>
  %bars = tile.alloc_shared {offset = 32768 : i64} : !tile.smem<2xi64>
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.mbarrier_expect %bars[%c0], 16384 : !tile.smem<2xi64>
  tile.tma_copy %map[%c0, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>, !tile.smem<2xi64>
  tile.mbarrier_wait %bars[%c0] phase %c0 : !tile.smem<2xi64>
  tile.barrier
  return
}
