// REQUIRES: ptxas
// RUN: emit-ptx %kernels/paged_decode.mlir --target=sm_90a -o %t.sm90a.ptx && %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=RES
// RUN: emit-ptx %kernels/paged_decode.mlir --target=sm_80 -o %t.sm80.ptx && %ptxas -arch=sm_80 %t.sm80.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm80.ptx

// Paged decode on both targets: K and V rows gathered through the page
// table by cp.async into a ring in shared memory with Q beside them
// (16-byte copies, the ring's waits: 4 stages at D = 64, 2 at D = 128,
// whose only wait is for all), Q·Kᵀ and P·V on mma.sync m16n8k16 with bf16 operands
// (M = 16 packed query heads is below wgmma's m64), V read from the ring
// with ldmatrix.trans, exponentials on ex2; the spans' partials merged by
// the last span of each group of heads, after a fence and an atomic ticket.
// PTX-LABEL: .entry paged_decode_d64(
// PTX-DAG: cp.async.cg.shared.global
// PTX-DAG: cp.async.commit_group
// PTX-DAG: cp.async.wait_group 2
// PTX-DAG: cp.async.wait_group 0
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: ex2.approx
// PTX-DAG: fence.acq_rel.gpu
// PTX-DAG: atom.global.add.u32
// PTX-LABEL: .entry paged_decode_d128(
// PTX-DAG: cp.async.cg.shared.global
// PTX-DAG: cp.async.commit_group
// PTX-DAG: cp.async.wait_group 0
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: ex2.approx
// PTX-DAG: fence.acq_rel.gpu
// PTX-DAG: atom.global.add.u32

// RES-LABEL: Function properties for paged_decode_d128
// RES-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
