// Kernels lowered and compiled apart on several threads (each through the
// MLIR passes and the NVPTX backend in a module of its own) give the very
// PTX and metadata the whole module gives on one: the same bytes for
// softmax's ten kernels (local labels and spill depots renumbered by
// function) and for KDA's fourteen, several of which spill.
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_90a --compile-threads=1 -o %t.one.ptx --metadata-out=%t.one.json
// RUN: emit-ptx %kernels/softmax.mlir --target=sm_90a --compile-threads=4 -o %t.four.ptx --metadata-out=%t.four.json
// RUN: cmp %t.one.ptx %t.four.ptx
// RUN: cmp %t.one.json %t.four.json
// RUN: emit-ptx %kernels/kda.mlir --target=sm_80 --compile-threads=1 -o %t.kda1.ptx
// RUN: emit-ptx %kernels/kda.mlir --target=sm_80 --compile-threads=3 -o %t.kda3.ptx
// RUN: cmp %t.kda1.ptx %t.kda3.ptx
// RUN: FileCheck %s < %t.four.ptx

// One header, one declaration of the scratch area, then every kernel.
// CHECK-COUNT-1: .version
// CHECK-COUNT-1: .extern .shared .align 1024 .b8 __tile_smem[];
// CHECK: .entry softmax_bf16_c1024(
// CHECK: $L__BB0_
// CHECK: .entry softmax_bf16_c256(
// CHECK: $L__BB1_
// CHECK: .entry softmax_f32_wide(
// CHECK: $L__BB9_
// CHECK-NOT: .version
