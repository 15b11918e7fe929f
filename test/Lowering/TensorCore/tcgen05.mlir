// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=target=sm_100a -canonicalize -cse -tile-allocate-shared -convert-tile-to-llvm=target=sm_100a | FileCheck %s
// RUN: emit-ptx %s --target=sm_100a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.ptx -o %t.o %}
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_100a -canonicalize -tile-pipeline-loads=num-stages=1 -tile-allocate-shared -convert-tile-to-llvm=target=sm_100a | FileCheck %s --check-prefix=SYNC
// RUN: emit-ptx %s --target=sm_100a --num-stages=1 -o %t.sync.ptx && FileCheck %s --check-prefix=SYNC-PTX < %t.sync.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.sync.ptx -o %t.sync.o %}

// tile.dot on tcgen05 (lowering/TensorCore/Tcgen05Lowering.cpp), after
// tile-pipeline-loads made it async and staged its operands:
// - at entry, warp 0 allocates 128 columns of tensor memory, writing
//   their address into the first of the kernel's tcgen05 words, the last
//   16 bytes of its shared memory (two 4-stage rings of 16 KiB, two
//   4-barrier buffers, then the words: 131136 + 16 bytes), and
//   relinquishes the right to allocate; fences around a barrier publish
//   the address;
// - thread 0 issues four tcgen05.mma kind::f16 (K = 64 in steps of 16) on
//   descriptors whose constant part is 0x4000404000010000 (128-byte
//   swizzle, mode 2 in bits 61-63; version 1 in bits 46-48; 1024 bytes
//   between 8-row groups; leading offset 1) and instruction descriptor
//   0x08200490 (f32 D, bf16 A and B, N >> 3 = 16, M >> 4 = 8); the first
//   accumulates only if the loop-carried bit says TMEM holds a value;
// - tile.dot_commit is thread 0's tcgen05.commit onto the stage's barrier;
// - after the loop, each warp reads its 32 lanes x 64 columns with two
//   tcgen05.ld 32x32b.x32, each with its tcgen05.wait::ld in one inline
//   PTX statement (so no register is read before the wait);
// - before the return, a barrier, then warp 0 frees the columns.
// CHECK-LABEL: llvm.func @gemm_bf16
// CHECK-SAME: shared_bytes = 131152
// CHECK: %[[COLS:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: scf.if
// CHECK: llvm.mlir.constant(131136 : i32) : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr
// CHECK-NEXT: nvvm.tcgen05.alloc %[[SLOT]], %[[COLS]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: llvm.mlir.constant(136316048 : i32) : i32
// CHECK: llvm.mlir.constant(4611756662049538048 : i64) : i64
// CHECK-COUNT-4: nvvm.tcgen05.mma {{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: scf.if
// CHECK-NEXT: nvvm.tcgen05.commit {{.*}} : !llvm.ptr<3>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK-COUNT-2: llvm.inline_asm has_side_effects asm_dialect = att "tcgen05.ld.sync.aligned.32x32b.x32.b32 {$0, {{.*}}, $31}, [$32];\0A\09tcgen05.wait::ld.sync.aligned;"
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier0
// CHECK: scf.if
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.dealloc {{.*}} : !llvm.ptr<6>, i32
// CHECK: llvm.return
// PTX-NOT: {{^\.shared}}
// PTX-LABEL: .entry gemm_bf16
// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [__tile_smem+{{[0-9]+}}], {{%r[0-9]+}};
// PTX-NEXT: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// PTX-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-NEXT: tcgen05.wait::ld.sync.aligned;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-NEXT: tcgen05.wait::ld.sync.aligned;
// In emit-ptx's pipeline the accumulator leaves through shared memory and
// a TMA store (tile-stage-stores): each thread's row of 64 f32 as 16-byte
// stores into the swizzled boxes.
// PTX: st.shared.{{v4.b32|v2.b64}}
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// Unpipelined (num-stages=1), the dot is synchronous with its operands in
// registers: they are staged into scratch as for wgmma (16-byte stores,
// a proxy fence and a barrier), thread 0 issues the mma, commits to the
// kernel's dot barrier, the second tcgen05 word (scratch for the staged
// operands, 32768 bytes, then the words: the barrier at 32776),
// initialized at entry for two arrivals, arrives on it itself and waits
// for the phase of its own arrival; a barrier then lets every thread go on.
// SYNC-LABEL: llvm.func @gemm_bf16
// SYNC-SAME: shared_bytes = 32784
// SYNC: nvvm.tcgen05.alloc
// SYNC: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// SYNC: llvm.mlir.constant(32776 : i32) : i32
// SYNC: %[[BAR:.*]] = llvm.getelementptr
// SYNC-NEXT: nvvm.mbarrier.init %[[BAR]], %[[TWO]], predicate = {{.*}} : !llvm.ptr<3>, i32, i1
// SYNC-NEXT: nvvm.fence.mbarrier.init
// SYNC: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<3>
// SYNC: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// SYNC-NEXT: nvvm.barrier0
// SYNC-COUNT-4: nvvm.tcgen05.mma
// SYNC: llvm.mlir.constant(32776 : i32) : i32
// SYNC: %[[DONE:.*]] = llvm.getelementptr
// SYNC-NEXT: nvvm.tcgen05.commit %[[DONE]] : !llvm.ptr<3>
// SYNC-NEXT: %[[STATE:.*]] = nvvm.mbarrier.arrive %[[DONE]] : !llvm.ptr<3> -> i64
// SYNC-NEXT: scf.while
// SYNC-NEXT: nvvm.mbarrier.try_wait %[[DONE]], %[[STATE]] : !llvm.ptr<3>, i64 -> i1
// SYNC: nvvm.tcgen05.fence <before>
// SYNC: nvvm.barrier0
// SYNC-NEXT: nvvm.tcgen05.fence <after>
// SYNC: tcgen05.ld.sync.aligned.32x32b.x32.b32
// SYNC: nvvm.tcgen05.dealloc
// SYNC-PTX-LABEL: .entry gemm_bf16
// SYNC-PTX: mbarrier.init.shared.b64 [{{%r[0-9]+}}], 2;
// SYNC-PTX: tcgen05.mma.cta_group::1.kind::f16
// In emit-ptx's pipeline the staged epilogue adds a 32 KiB buffer, so
// the barrier is at 65544 there.
// SYNC-PTX: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [__tile_smem+65544];
// SYNC-PTX-NEXT: mbarrier.arrive.shared.b64 {{%rd[0-9]+}}, [__tile_smem+65544];
// SYNC-PTX: mbarrier.try_wait.shared.b64 {{%p[0-9]+}}, [__tile_smem+65544], {{%rd[0-9]+}};
func.func @gemm_bf16(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %y: !tile.ptr<f32>,
                     %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// fp8 e4m3 on four warps, K tiles of 64 bytes: kind::f8f6f4, two K steps of
// 32, descriptors with the 64-byte swizzle (mode 4 in bits 61-63, 512 bytes
// between 8-row groups: 0x8000402000010000), instruction descriptor
// 0x08100010 (e4m3 is type 0; N >> 3 = 8); 64 columns of TMEM, the
// smallest power of two >= 32 that holds N = 64, read with two x32 loads.
// CHECK-LABEL: llvm.func @gemm_fp8
// CHECK: %[[COLS:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: nvvm.tcgen05.alloc {{.*}}, %[[COLS]]
// CHECK: llvm.mlir.constant(135266320 : i32) : i32
// CHECK: llvm.mlir.constant(-9223301530671579136 : i64) : i64
// CHECK-COUNT-2: nvvm.tcgen05.mma {{.*}} kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.commit
// CHECK-COUNT-2: llvm.inline_asm {{.*}}tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: nvvm.tcgen05.dealloc
// PTX-LABEL: .entry gemm_fp8
// PTX-COUNT-2: tcgen05.mma.cta_group::1.kind::f8f6f4
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
func.func @gemm_fp8(%x: !tile.ptr<f8E4M3FN>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%K, %K] strides[%K, %c1] : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %yv = tile.make_view %y[%K, %K] strides[%K, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x64xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
    %wt = tile.load %xv[%c0, %k] : !tile.view<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = tile.transpose %wt : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %d = tile.dot %xt, %b, %a : tensor<128x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x64xf32>, !tile.view<?x?xf32>
  return
}
