// kernels_dsl/topk.mlir through the whole pipeline for sm_90a, and ptxas
// for sm_90a and sm_100a.
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a | FileCheck %s
// RUN: emit-ptx %kernels/topk.mlir --target=sm_90a -o /dev/null --metadata-out=- | FileCheck %s --check-prefix=META
// RUN: %if ptxas %{ emit-ptx %kernels/topk.mlir --target=sm_90a -o %t.sm90a.ptx && %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ emit-ptx %kernels/topk.mlir --target=sm_100a -o %t.sm100a.ptx && %ptxas -arch=sm_100a -v %t.sm100a.ptx -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The split kernel: 16-byte loads of each thread's 16 columns, the group
// maxima sorted within warps by butterfly shuffles, 64-bit compares of the
// rank matrix, the radix fallback's shared-memory histogram (match.any
// groups lanes with one bin), and the hand-off: an acquire-release fence
// between barriers around the ticket's global atomic.
// CHECK-LABEL: .entry topk_split_f32(
// CHECK: .reqntid 256, 1, 1
// CHECK-DAG: ld.global.v4.b32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: setp.gt.s64
// CHECK-DAG: match.any.sync.b32
// CHECK-DAG: atom.shared.add.u32
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: ld.global.v2.b64
// CHECK: bar.sync 0;
// CHECK: fence.acq_rel.gpu;
// CHECK-NEXT: bar.sync 0;

// META: "name": "topk_split_f32"
// META: "name": "work"
// META: "name": "tickets"
// META: "name": "parts"

// Both kernels assemble without spills.
// PTXAS-LABEL: Function properties for topk_split_f32
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: Function properties for topk_f32
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
