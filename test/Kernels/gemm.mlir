// REQUIRES: ptxas
// RUN: emit-ptx %kernels/gemm.mlir --target=sm_90a -o %t.sm90a.ptx && %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=RES
// RUN: emit-ptx %kernels/gemm.mlir --target=sm_80 -o %t.sm80.ptx && %ptxas -arch=sm_80 %t.sm80.ptx -o %t.cubin
// RUN: emit-ptx %kernels/gemm.mlir --target=sm_100a -o %t.sm100a.ptx && %ptxas -arch=sm_100a %t.sm100a.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=SM100 < %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=PAIR < %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=MULTICAST < %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=WS100 < %t.sm100a.ptx
// RUN: FileCheck %s --check-prefix=NOPAIR < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=NOPAIR < %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=MC90 < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=NOMC90 < %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=NOMC90 < %t.sm100a.ptx
// RUN: emit-ptx %kernels/gemm.mlir --target=sm_90a --tma=false -o - | FileCheck %s --check-prefix=NOTMA
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=PERSIST < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=SPLIT < %t.sm90a.ptx
// RUN: emit-ptx %kernels/gemm.mlir --target=sm_90a --metadata-out=%t.json -o /dev/null && FileCheck %s --check-prefix=META < %t.json
// RUN: emit-ptx %kernels/gemm.mlir --target=sm_90a --wgmma-stage-box -o %t.box.ptx --metadata-out=%t.box.json && %ptxas -arch=sm_90a %t.box.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=BOX < %t.box.ptx
// RUN: FileCheck %s --check-prefix=BOXMETA < %t.box.json

// The one GEMM source: on sm_90a wgmma (m64n128k16 bf16, m64n128k32 e4m3)
// on operands copied into a five-stage ring of swizzled shared memory
// (tile-pipeline-loads): by TMA, counted by mbarriers, when x and w are
// 16-byte aligned; by cp.async otherwise (K = 4127). On sm_100a tcgen05
// (lowering/TensorCore/Tcgen05Lowering.cpp) on the same rings: thread 0
// issues tcgen05.mma into tensor memory and commits to per-stage
// mbarriers, the epilogue reads the accumulator with tcgen05.ld, scales
// and casts it in registers and leaves through shared memory and a TMA
// store (tile-stage-stores), as on sm_90a. On sm_80
// mma.sync m16n8k16 with fragments read by ldmatrix from the same kind of
// ring, fp8 widened to bf16 (in registers, not copied).
// x's stages land in wgmma order, in 8-row boxes.
// SM90-LABEL: .entry gemm_bf16
// SM90: .param .align 64 .b8 gemm_bf16_param_7[128]
// SM90: .param .align 64 .b8 gemm_bf16_param_8[128]
// SM90: mbarrier.init.shared.b64
// SM90: fence.mbarrier_init.release.cluster
// SM90: mbarrier.arrive.expect_tx.shared.b64
// SM90: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// SM90-NOT: cp.async.bulk.tensor.5d
// SM90: mbarrier.try_wait.parity.shared.b64
// SM90: wgmma.fence.sync.aligned
// SM90: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90: wgmma.commit_group.sync.aligned
// SM90: wgmma.wait_group.sync.aligned 1
// SM90: wgmma.wait_group.sync.aligned 0
// The cp.async version of the loop.
// SM90: cp.async.cg.shared.global
// SM90: cp.async.commit_group
// SM90: cp.async.wait_group 2;
// SM90-NEXT: fence.proxy.async.shared::cta
// SM90-NEXT: bar.sync 0
// SM90: wgmma.wait_group.sync.aligned 0
// With --wgmma-stage-box, x's stages land in wgmma order in one rank-5
// box (its second map, param 8, rank 5 in the metadata) while the tile's
// rows lie inside x, else in 8-row boxes (its first map); the persistent
// fp8 instance too.
// BOX-LABEL: .entry gemm_bf16(
// BOX: .param .align 64 .b8 gemm_bf16_param_7[128]
// BOX: .param .align 64 .b8 gemm_bf16_param_8[128]
// BOX: .param .align 64 .b8 gemm_bf16_param_9[128]
// BOX: mbarrier.arrive.expect_tx.shared.b64
// BOX: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// BOX: cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}},0,0,0,%r{{[0-9]+}}} ]
// BOX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// BOX-LABEL: .entry gemm_fp8_128x256_ws_p(
// BOX: cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes
// BOX: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// BOXMETA: "format": "tilec-metadata-v2"
// BOXMETA: "name": "gemm_bf16"
// BOXMETA: "param": 8,
// BOXMETA: "whole_outer": true
// SM90-LABEL: .entry gemm_fp8
// SM90: cp.async.bulk.tensor.2d
// SM90: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// SM100-LABEL: .entry gemm_bf16
// SM100: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [__tile_smem+{{[0-9]+}}], {{%r[0-9]+}};
// SM100-NEXT: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// SM100: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// SM100: mbarrier.try_wait.parity.shared.b64
// Descriptors: 128-byte swizzle, version 1, 1024-byte stride (the constant
// 0x4000404000010000); instruction: f32 += bf16 x bf16, M 128, N 128.
// SM100: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538048;
// SM100: mov.b32 {{%r[0-9]+}}, 136316048;
// SM100-NEXT: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard
// SM100-COUNT-3: tcgen05.mma.cta_group::1.kind::f16
// SM100-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// SM100-NOT: wgmma
// SM100: mbarrier.try_wait.parity.shared.b64
// SM100: cp.async.bulk.tensor.2d
// The cp.async version of the loop.
// SM100: cp.async.cg.shared.global
// SM100: tcgen05.mma.cta_group::1.kind::f16
// SM100: tcgen05.ld.sync.aligned.32x32b.x32.b32
// SM100-NEXT: tcgen05.wait::ld.sync.aligned;
// SM100: tcgen05.ld.sync.aligned.32x32b.x32.b32
// SM100-NEXT: tcgen05.wait::ld.sync.aligned;
// SM100: cp.async.bulk.wait_group.read 0;
// SM100: st.shared.v4.b32
// SM100: fence.proxy.async.shared::cta;
// SM100: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// SM100: cp.async.bulk.commit_group;
// SM100: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// SM100-LABEL: .entry gemm_fp8
// SM100: tcgen05.alloc.cta_group::1
// SM100: cp.async.bulk.tensor.2d
// Instruction: f32 += e4m3 x e4m3 (type 0), M 128, N 128.
// SM100: mov.b32 {{%r[0-9]+}}, 136314896;
// SM100-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4
// SM100: tcgen05.commit.cta_group::1
// SM100: tcgen05.ld.sync.aligned.32x32b.x32.b32
// SM100: tcgen05.dealloc.cta_group::1
// The CTA-pair instances exist on sm_100a alone (tile.targets): clusters
// of (1, 2, 1), cta_group::2 everywhere, B copied by halves into the
// leader's barriers, one M = 256 instruction per K step (bf16: 0x10400490,
// N = 256; fp8: 0x10400010) from the leader, commits multicast to both.
// PAIR-LABEL: .entry gemm_bf16_pair(
// PAIR: .reqnctapercluster 1, 2, 1
// PAIR: tcgen05.alloc.cta_group::2
// PAIR: barrier.cluster.arrive
// PAIR: cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes
// PAIR: mov.b32 {{%r[0-9]+}}, 272630928;
// PAIR-NEXT: tcgen05.mma.cta_group::2.kind::f16
// PAIR-NOT: cp.async.cg
// PAIR: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// PAIR: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PAIR: tcgen05.dealloc.cta_group::2
// PAIR-LABEL: .entry gemm_fp8_pair(
// PAIR: .reqnctapercluster 1, 2, 1
// PAIR: mov.b32 {{%r[0-9]+}}, 272629776;
// PAIR-NEXT: tcgen05.mma.cta_group::2.kind::f8f6f4
// PAIR: tcgen05.commit.cta_group::2
// PAIR: tcgen05.dealloc.cta_group::2
// The _pair_mc2 instances (tile.multicast = 2): clusters of four, each
// program copying one 64-row box of its pair half of B and multicasting it
// to the program of the same rank in the other pair; the leader's commits
// reach all four programs (15).
// MULTICAST-LABEL: .entry gemm_bf16_pair_mc2(
// MULTICAST: .reqnctapercluster 1, 4, 1
// MULTICAST: cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// MULTICAST: mov.b32 {{%r[0-9]+}}, 272630928;
// MULTICAST-NEXT: tcgen05.mma.cta_group::2.kind::f16
// MULTICAST: mov.b16 [[ALL:%rs[0-9]+]], 15;
// MULTICAST-NEXT: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 {{.*}}, [[ALL]];
// MULTICAST-LABEL: .entry gemm_fp8_pair_mc2(
// MULTICAST: .reqnctapercluster 1, 4, 1
// MULTICAST: cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// MULTICAST: mov.b32 {{%r[0-9]+}}, 272629776;
// MULTICAST-NEXT: tcgen05.mma.cta_group::2.kind::f8f6f4
// MULTICAST: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// MULTICAST: tcgen05.ld.sync.aligned.32x32b.x32.b32
// MULTICAST: tcgen05.dealloc.cta_group::2
// The _ws instances on sm_100a: a producer warpgroup copies, waiting on
// the stages' consumed barriers; the consumers issue tcgen05 (what the
// runtime picks there when it does not pair).
// Instructions: M 128, N 128; bf16 0x08200490, e4m3 0x08200010.
// WS100-LABEL: .entry gemm_bf16_ws(
// WS100: .reqntid 384, 1, 1
// WS100: setmaxnreg.dec.sync.aligned.u32 40;
// WS100: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// WS100: setmaxnreg.inc.sync.aligned.u32 232;
// WS100: mov.b32 {{%r[0-9]+}}, 136316048;
// WS100-NEXT: tcgen05.mma.cta_group::1.kind::f16
// WS100: tcgen05.commit.cta_group::1
// WS100: tcgen05.ld.sync.aligned.32x32b.x32.b32
// WS100: tcgen05.dealloc.cta_group::1
// WS100-LABEL: .entry gemm_fp8_ws(
// WS100: .reqntid 384, 1, 1
// WS100: setmaxnreg.dec.sync.aligned.u32 40;
// WS100: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// WS100: setmaxnreg.inc.sync.aligned.u32 232;
// WS100: mov.b32 {{%r[0-9]+}}, 136314896;
// WS100-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4
// WS100: tcgen05.commit.cta_group::1
// WS100: tcgen05.ld.sync.aligned.32x32b.x32.b32
// WS100: tcgen05.dealloc.cta_group::1
// NOPAIR-NOT: _pair
// gemm_fp8_ws_mc2 of sm_90a (tile.multicast on a warp-specialized wgmma
// ring): clusters of two along y, the producer multicasting its half of
// the w tile to both programs, each consumer warp releasing a stage on the
// empty barriers of both.
// MC90-LABEL: .entry gemm_fp8_ws_mc2(
// MC90: .reqnctapercluster 1, 2, 1
// MC90: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// MC90: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// MC90: @p mbarrier.arrive.shared::cluster.b64
// NOMC90-NOT: _ws_mc
// --tma=false keeps the cp.async rings on sm_90a.
// NOTMA-NOT: cp.async.bulk
// NOTMA-NOT: mbarrier
// NOTMA: wgmma.mma_async
// SM80-NOT: cp.async.bulk
// SM80-LABEL: .entry gemm_bf16
// SM80: cp.async.cg.shared.global
// SM80: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80: cp.async.wait_group 3;
// SM80-NEXT: bar.sync 0
// SM80-LABEL: .entry gemm_fp8
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// The fast fp8 instance for large products: persistent (tile-persistent:
// the tile counts follow M, N and K, the programs step through the tiles
// by the grid's size), warp-specialized (a producer warpgroup with 40
// registers issuing the TMA copies, consumers with 232 issuing wgmma e4m3).
// PERSIST-LABEL: .entry gemm_fp8_128x256_ws_p(
// PERSIST: .param .u32 gemm_fp8_128x256_ws_p_param_7,
// PERSIST-NEXT: .param .u32 gemm_fp8_128x256_ws_p_param_8,
// PERSIST: .reqntid 384, 1, 1
// PERSIST: %nctaid.x
// PERSIST: setmaxnreg.dec.sync.aligned.u32 40;
// PERSIST: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PERSIST: setmaxnreg.inc.sync.aligned.u32 232;
// PERSIST: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// PERSIST: mbarrier.arrive.shared.b64
// The scaled bf16 tile leaves through shared memory and TMA stores
// (tile-stage-stores), in two chunks of two 128 x 64 boxes.
// PERSIST: cp.async.bulk.wait_group.read 0;
// PERSIST: fence.proxy.async.shared::cta;
// PERSIST-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PERSIST: cp.async.bulk.commit_group;
// PERSIST: cp.async.bulk.wait_group.read 0;
// PERSIST-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PERSIST: cp.async.bulk.wait_group 0;
// PERSIST: .entry
// The metadata tells the runtime how to launch it; on sm_100a (tcgen05)
// the instance stays one program per tile (test/Passes/persistent.mlir).
// Without --wgmma-stage-box no map needs v2: the oldest format is written.
// META: "format": "tilec-metadata-v1"
// META: "name": "gemm_fp8_128x256_ws_p",
// META: "name": "tiles_x"
// META: "name": "tiles_y"
// META: "persistent": 8,
// The split instances (tile-split-k) take the partial sums' and tickets'
// buffers after the source's parameters.
// META: "name": "gemm_fp8_64x64_sk",
// META: "name": "split_partials"
// META: "name": "split_tickets"
// META: "split_k": {
// META-NEXT: "partial_bytes": 16384

// The skinny-M fp8 instance with its K loop split over grid z
// (tile-split-k): part z's iterations from %ctaid.z of %nctaid.z; the TMA
// ring announces no bytes for stages past the part's end
// (tile-pipeline-loads: they would read the next part's data); the
// partial sum released, the tile's ticket taken; the last part's
// acquire.
// SPLIT-LABEL: .entry gemm_fp8_64x64_sk(
// SPLIT: .param .u64 .ptr .global .align 1 gemm_fp8_64x64_sk_param_7,
// SPLIT-NEXT: .param .u64 .ptr .global .align 1 gemm_fp8_64x64_sk_param_8,
// SPLIT: %ctaid.z
// SPLIT: %nctaid.z
// SPLIT: mbarrier.arrive.expect_tx.shared.b64 _, [%{{.*}}], 16384;
// SPLIT: mbarrier.arrive.expect_tx.shared.b64 _, [%{{.*}}], 0;
// SPLIT: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// SPLIT: fence.acq_rel.gpu;
// SPLIT: atom.global.add.u32
// SPLIT: fence.acq_rel.gpu;
// SPLIT: .entry

// The bf16 kernel keeps its 64 accumulators per thread without spilling.
// RES-LABEL: Compiling entry function 'gemm_bf16'
// RES-NEXT: Function properties for gemm_bf16
// RES-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
