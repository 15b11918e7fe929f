// RUN: rm -rf %t && env EMIT_PTX=emit-ptx python3 %S/../../bench/decode_variants.py %t w8=4,2,w8 t128w8=4,2,t128,w8 qreg=4,3,qreg | FileCheck %s
// RUN: FileCheck %s --check-prefix=W8 < %t/w8.ptx
// RUN: FileCheck %s --check-prefix=T128 < %t/t128w8.mlir
// RUN: FileCheck %s --check-prefix=QREG < %t/qreg.mlir

// bench/decode_variants.py rewrites kernels_dsl/paged_decode.mlir into the
// variants bench/bench_decode.py times beside the embedded kernels; each
// flag must still find what it rewrites (the tool exits non-zero
// otherwise) and must change the kernel.

// CHECK: w8: d64 4 stages, d128 2 stages, 8 warps ->
// CHECK: t128w8: d64 4 stages, d128 2 stages, steps of 128 tokens, 8 warps ->
// CHECK: qreg: d64 4 stages, d128 3 stages, Q in registers ->

// W8-LABEL: .entry paged_decode_d64(
// W8: .reqntid 256, 1, 1
// W8-LABEL: .entry paged_decode_d128(
// W8: .reqntid 256, 1, 1

// T128-LABEL: func.func @paged_decode_d64(
// T128: tile.num_warps = 8 : i32
// T128: scf.for %t = %tok0 to %tokEnd step %c128
// T128: tile.dot %pb, %v, %accA
// T128-NEXT: : tensor<16x128xbf16, #mma>, tensor<128x64xbf16, #kv64>
// T128-LABEL: func.func @paged_decode_d128(
// T128: scf.for %t = %tok0 to %tokEnd step %c128

// QREG-LABEL: func.func @paged_decode_d64(
// QREG: %qt = tile.load %qv[%qrow, 0]
// QREG-NEXT: %res:3 = scf.for
// QREG-LABEL: func.func @paged_decode_d128(
// QREG: %qt = tile.load %qv[%qrow, 0]
// QREG-NEXT: %res:3 = scf.for
