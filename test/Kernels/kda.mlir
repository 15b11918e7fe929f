// REQUIRES: ptxas
// RUN: emit-ptx %kernels/kda.mlir --target=sm_90a -o %t.sm90a.ptx --metadata-out=%t.sm90a.json && %ptxas -arch=sm_90a %t.sm90a.ptx -o %t.cubin
// RUN: emit-ptx %kernels/kda.mlir --target=sm_80 -o %t.sm80.ptx && %ptxas -arch=sm_80 %t.sm80.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefixes=PTX,PTX90 < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=META < %t.sm90a.json
// RUN: FileCheck %s --check-prefix=SEG < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=PREP < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=PREP < %t.sm80.ptx

// The KDA kernels on both targets: every product of the tf32 instances a
// tf32 dot on mma.sync (m16n8k8, operands rounded with cvt.rna while
// staged), the cumulative decay a scan (shfl.sync.up), exponentials on
// ex2; one instance per head dim of each of the three templates, and the
// prep's and chain's bf16 instances, whose products are bf16 mma.sync (and,
// for the 128×32 update of a block of state columns on sm_90a, wgmma).
// PTX-DAG: .entry kda_fwd_d128(
// PTX-DAG: .entry kda_fwd_d64(
// PTX-DAG: .entry kda_prep_d128(
// PTX-DAG: .entry kda_prep_d64(
// PTX-DAG: .entry kda_chain_d128(
// PTX-DAG: .entry kda_chain_d64(
// PTX-DAG: .entry kda_chain_bf16_d128(
// PTX-DAG: .entry kda_chain_bf16_d64(
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX90-DAG: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// PTX-DAG: cvt.rna.tf32.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-DAG: shfl.sync.up
// PTX-DAG: ex2.approx

// Metadata of the three kernels the runtime launches.
// META-DAG: "name": "kda_fwd_d128"
// META-DAG: "name": "kda_prep_d128"
// META-DAG: "name": "kda_chain_d128"
// META-DAG: "name": "kda_chain_bf16_d128"

// The segmented scan: kda_compose is the chain's template with COMPOSE = 1
// (two dots per chunk, the state's map and no output: no bf16 store of o),
// kda_seg_scan one tf32 product M_s·E_s per segment.
// META-DAG: "name": "kda_compose_d128"
// META-DAG: "name": "kda_compose_bf16_d128"
// META-DAG: "name": "kda_seg_scan_d128"
// SEG-LABEL: .entry kda_chain_d128(
// SEG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// SEG: st.global.v2.b16
// SEG-LABEL: .entry kda_compose_d128(
// SEG-NOT: st.global{{.*}}.b16
// SEG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// SEG-NOT: st.global{{.*}}.b16
// SEG-LABEL: .entry kda_compose_d64(
// SEG-LABEL: .entry kda_seg_scan_d128(
// SEG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// SEG: st.global

// The bf16 prep: A_qk, L, the WY inverse, W and U all on bf16 operands, no
// tf32 left; the f32 prep keeps tf32.
// PREP-LABEL: .entry kda_prep_bf16_d128(
// PREP-NOT: tf32
// PREP: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PREP-NOT: tf32
// PREP-LABEL: .entry kda_prep_bf16_d64(
// PREP-NOT: tf32
// PREP-LABEL: .entry kda_prep_d128(
// PREP: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
