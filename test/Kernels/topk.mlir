// kernels_dsl/topk.mlir through the whole pipeline for sm_90a, and ptxas
// for sm_90a and sm_100a.
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a | FileCheck %s
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a | FileCheck %s --check-prefix=FENCE
// RUN: emit-ptx %kernels/topk.mlir --target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a | FileCheck %s --check-prefix=ROWS
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a | FileCheck %s --check-prefix=BUDGET
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a -o /dev/null --metadata-out=- | FileCheck %s --check-prefix=META
// RUN: %if ptxas %{ emit-ptx %kernels/topk.mlir --target=sm_90a -o %t.sm90a.ptx && %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ emit-ptx %kernels/topk.mlir --target=sm_100a -o %t.sm100a.ptx && %ptxas -arch=sm_100a -v %t.sm100a.ptx -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The split kernel: 16-byte loads of each thread's 16 columns, the group
// maxima sorted within warps by butterfly shuffles, 64-bit compares of the
// rank matrix, the radix fallback's shared-memory histogram (a predicated
// shared reduction per element), and the two hand-offs: through part 0's
// shared buffer in a cluster (mapa, st.shared::cluster, the cluster
// barrier), else an acquire-release fence between barriers around the
// ticket's global atomic.
// The one-program-per-row kernel, and its instance behind the direct
// guessed start, which first reads its row's candidate count (word 6163
// of the row's state, byte 24652) and computes the row only if the guess
// failed.
// CHECK-LABEL: .entry topk_f32(
// CHECK-NOT: +24652]
// CHECK-LABEL: .entry topk_f32_unguessed(
// CHECK: ld.global.b32 {{.*}}+24652];
// CHECK: ld.global.v4.b32
// CHECK-LABEL: .entry topk_split_f32(
// CHECK: .reqntid 256, 1, 1
// CHECK-DAG: ld.global.v4.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: setp.gt.s64
// CHECK-DAG: red.shared.add.u32
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: ld.global.v2.b64
// CHECK-DAG: mapa.shared::cluster.u64
// CHECK-DAG: st.shared::cluster.b{{32|64}}
// CHECK-DAG: barrier.cluster.arrive.aligned;
// CHECK-DAG: barrier.cluster.wait.aligned;
// FENCE-LABEL: .entry topk_split_f32(
// FENCE: fence.acq_rel.gpu;
// FENCE-NEXT: bar.sync 0;
// FENCE: atom.global.add.u32

// The split template's two instances differ in their register budget only
// (tile.instances): one program per SM, or two.
// BUDGET-LABEL: .entry topk_split_f32(
// BUDGET: .maxnreg 168
// BUDGET-LABEL: .entry topk_split_f32_r128(
// BUDGET: .maxnreg 128

// sm_80 has no clusters: each program is a cluster of one.
// SM80-LABEL: .entry topk_split_f32(
// SM80-NOT: barrier.cluster
// SM80-NOT: mapa

// META: "name": "topk_split_f32"
// META: "name": "work"
// META: "name": "tickets"
// META: "name": "parts"

// The argmax kernel for k = 1: one reduction of packed (key, column).
// CHECK-LABEL: .entry top1_f32(
// CHECK-DAG: ld.global.v4.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: st.global.b32

// The large-k kernels: survivors compacted into scratch by predicated
// stores (tile.scatter_store: no atomics), chunks sorted in place, merges
// by merge path: gathered probes of a strided search, then the two runs'
// stretches merged by the sort's last levels (shared memory across warps,
// shuffles within them).
// CHECK-LABEL: .entry topk_select_f32(
// CHECK-DAG: red.shared.add.u32
// CHECK-DAG: shfl.sync.up.b32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry topk_sort_chunks(
// CHECK-DAG: ld.global.v2.b64
// CHECK-DAG: st.global.v2.b64
// CHECK-LABEL: .entry topk_merge_f32(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: setp.gt.s64
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: st.shared.b64
// CHECK-DAG: st.global.b32

// Whole short rows sorted in registers, per width: rows within a warp
// (shuffles) or, one row per program, across warps too; k = 1 a max
// reduction.
// CHECK-LABEL: .entry topk_rows_w1024_r1(
// CHECK-DAG: setp.nan.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry topk_rows_w256(
// CHECK-LABEL: .entry topk_rows_w256_r1(
// CHECK-LABEL: .entry topk_rows_w64(
// CHECK-LABEL: .entry topk_rows_w64_r8(
// CHECK-LABEL: .entry topk_rows_max_w1024(
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry topk_rows_max_w256(
// CHECK-LABEL: .entry topk_rows_max_w64(
// Small k: a loop of row maxima, each stored as one column of the output.
// CHECK-LABEL: .entry topk_rows_select_w1024(
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry topk_rows_select_w1024_r1(
// CHECK-LABEL: .entry topk_rows_select_w256(
// CHECK-LABEL: .entry topk_rows_select_w256_r1(
// CHECK-LABEL: .entry topk_rows_select_w64(
// CHECK-LABEL: .entry topk_rows_select_w64_r8(

// Barriers of the short-row sorts: none per network stage within a warp
// (the row of column numbers is an iota, rebuilt in the key tile's layout
// rather than moved into it); across the warps of a one-row program, one
// per stage whose pairs lie on two warps (6 of 55 for 1024 columns) and
// one before the first.
// ROWS-LABEL: .entry topk_rows_w1024_r1(
// ROWS-COUNT-7: bar.sync
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_w256(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_w256_r1(
// ROWS-LABEL: .entry topk_rows_w64(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_w64_r8(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_max_w1024(
// A round of topk_rows_select within a warp needs no barrier; across the
// warps of a one-row program, two (the exchange of the warps' maxima).
// ROWS-LABEL: .entry topk_rows_select_w1024(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_select_w1024_r1(
// ROWS-COUNT-2: bar.sync
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_select_w256(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_select_w256_r1(
// ROWS-LABEL: .entry topk_rows_select_w64(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_rows_select_w64_r8(
// ROWS-NOT: bar.sync
// ROWS-LABEL: .entry topk_gather_f32(

// Few long rows: each program's histogram added to the row's (global
// atomics, one bin per thread), and one atomic reserving a chunk's slots.
// The bins of a program stay in shared memory across its chunks
// (tile-accumulate-histograms): its loop over the row has no barrier, only
// the shared adds.
// CHECK-LABEL: .entry topk_gather_f32(
// CHECK-DAG: red.shared.add.u32
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry topk_hist_f32(
// CHECK: @p red.shared.add.u32
// CHECK-NOT: bar.sync
// CHECK-COUNT-7: @p red.shared.add.u32
// CHECK: bar.sync
// CHECK: atom.global.add.u32
// CHECK-LABEL: .entry topk_collect_f32(
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: st.global.b32

// The guessed start of the long-rows path: the sample's radix select in
// shared-memory histograms; the gathering kernel's 16-byte loads, one
// atomic per program and its scattered candidates; the per-row select
// writing the 64-bit slots of work (each as two 32-bit stores).
// CHECK-LABEL: .entry topk_guess_f32(
// CHECK: red.shared.add.u32
// CHECK-LABEL: .entry topk_guess_gather_f32(
// CHECK: ld.global.v4.b32
// CHECK: atom.global.add.u32
// CHECK: st.global.b32
// CHECK-LABEL: .entry topk_guess_select_f32(
// CHECK: st.global.b32
// In its direct form the select reads back its collection after a fence
// (more candidates than the sort's slots), then sorts and stores the row.
// CHECK: fence.acq_rel.gpu;
// CHECK: shfl.sync.bfly.b32

// META: "name": "topk_select_f32"
// META: "name": "work"
// META: "name": "topk_sort_chunks"
// META: "name": "topk_merge_f32"
// META: "name": "steps"
// META: "name": "topk_rows_w1024_r1"
// META: "name": "topk_rows_max_w1024"
// META: "name": "topk_rows_select_w1024"
// META: "name": "topk_gather_f32"
// META: "name": "cand"
// META: "name": "cap"
// META: "name": "topk_hist_f32"
// META: "name": "pass"
// META: "name": "partLen"
// META: "name": "topk_collect_f32"
// META: "name": "guessOn"
// META: "name": "topk_guess_f32"
// META: "name": "rank"
// META: "name": "topk_guess_gather_f32"
// META: "name": "topk_guess_select_f32"
// META: "name": "values"
// META: "name": "direct"

// The kernels assemble without spills.
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
