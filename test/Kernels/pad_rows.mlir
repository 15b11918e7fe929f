// REQUIRES: ptxas
// kernels_dsl/pad_rows.mlir, the GEMM entry point's copies of unaligned rows.
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

// Both operands in one launch (the operand picked by a pointer select,
// lowering/MemoryLowering.cpp; the word and byte loads are tile.gathers,
// lowering/GatherLowering.cpp; the stores tile.store, MemoryLowering):
// most programs load the two 32-bit words holding each destination word (8
// loads for the thread's 4 words), those of the last rows assemble each
// word from 8 byte loads; all store 32-bit words.
// CHECK-LABEL: .entry pad_rows_pair(
// CHECK: selp.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %p
// CHECK-COUNT-8: ld.global.b32
// CHECK-COUNT-32: ld.global.b8
// CHECK-COUNT-4: st.global.b32
// CHECK: ret;
