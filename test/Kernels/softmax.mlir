// kernels_dsl/softmax.mlir through the whole pipeline, for every target.
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_90a | FileCheck %s
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_90a --emit=mlir | FileCheck %s --check-prefix=IR
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_90a -o /dev/null --metadata-out=- | FileCheck %s --check-prefix=META

// One kernel per instance of the templates, in name order.
// CHECK-LABEL: .entry softmax_bf16_c1024(
// CHECK: .reqntid 512, 1, 1
// CHECK: .maxnreg 64
// CHECK-DAG: cvt.f32.bf16
// CHECK-DAG: cvt.rn.bf16.f32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-LABEL: .entry softmax_f32_c8192(
// CHECK: .reqntid 256, 1, 1
// Coalesced 16-byte loads and stores, the exponential on the SFU, warp
// shuffles and a cross-warp exchange for the row reductions.
// CHECK-DAG: ld.global.{{v4.b32|v2.b64}}
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: bar.sync 0;
// CHECK-DAG: st.global.{{v4.b32|v2.b64}}
// CHECK-NOT: cvt.f32.bf16
// CHECK-LABEL: .entry softmax_bf16_wide(
// CHECK-LABEL: .entry softmax_f32_wide(

// IR: llvm.func @softmax_f32_c8192({{.*}}) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>
// IR-NOT: tile.{{load|store|reduce|splat|make_view|program_id}}

// META: "format": "tilec-metadata-v1"
// META: "block": [
// META-NEXT: 512,
// META: "name": "softmax_bf16_c1024"
// META: "elem": "bf16",
// META: "name": "softmax_f32_c8192"
// META: "elem": "f32",
// META-NEXT: "kind": "ptr",
// META-NEXT: "name": "x"
// META: "kind": "i32",
// META-NEXT: "name": "rows"
// META: "kind": "i32",
// META-NEXT: "name": "cols"
// META: "shared_bytes": 32
// META: "target": "sm_90a"
