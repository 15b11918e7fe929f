// REQUIRES: ptxas
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_80 -o %t.sm80.ptx && %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_90a -o %t.sm90a.ptx && %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_100a -o %t.sm100a.ptx && %ptxas -arch=sm_100a -v %t.sm100a.ptx -o %t.cubin 2>&1 | FileCheck %s

// Every instance assembles without spilling; the bf16 ones honour their
// 64-register cap (tile.max_registers). ptxas reports in reverse order.
// CHECK-LABEL: Compiling entry function 'softmax_f32_wide'
// CHECK-NEXT: Function properties for softmax_f32_wide
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-LABEL: Compiling entry function 'softmax_bf16_wide'
// CHECK-NEXT: Function properties for softmax_bf16_wide
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used {{(6[0-4]|[1-5][0-9])}} registers
// CHECK-COUNT-4: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-LABEL: Compiling entry function 'softmax_bf16_c8192'
// CHECK-NEXT: Function properties for softmax_bf16_c8192
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used {{(6[0-4]|[1-5][0-9])}} registers
// CHECK-COUNT-3: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
