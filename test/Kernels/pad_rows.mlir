// REQUIRES: ptxas
// kernels_dsl/pad_rows.mlir, the GEMM entry point's copy of unaligned rows.
// RUN: emit-ptx %kernels/pad_rows.mlir --target=sm_90a -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: FileCheck %s < %t.ptx

// One byte per thread along the rows (the layout the source gives, kept by
// tile-assign-layouts): 16 byte loads and 16 byte stores per thread, no
// vector access.
// CHECK-LABEL: .entry pad_rows(
// CHECK-COUNT-16: ld.global.b8
// CHECK-COUNT-16: st.global.b8
// CHECK-NOT: .v4
// CHECK: ret;
