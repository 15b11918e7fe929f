// emit-ptx --help lists emit-ptx's own options, not the hundreds LLVM
// registers for its backends; kernel-opt keeps MLIR's flags.
// RUN: emit-ptx --help | FileCheck %s
// RUN: emit-ptx --help | FileCheck %s --check-prefix=HIDDEN
// RUN: kernel-opt --help | FileCheck %s --check-prefix=OPT

// CHECK: OVERVIEW: tilec: tile kernels to PTX
// CHECK: emit-ptx options:
// CHECK-DAG: --compile-threads=<uint>
// CHECK-DAG: --emit=<value>
// CHECK-DAG: --metadata-out=<file>
// CHECK-DAG: --num-warps=<uint>
// CHECK-DAG: --print-ir-after-all
// CHECK-DAG: --resource-usage
// CHECK-DAG: --summary
// CHECK-DAG: --target=<string>
// CHECK-DAG: -o <file>

// HIDDEN-NOT: amdgpu
// HIDDEN-NOT: aarch64
// HIDDEN-NOT: --x86-
// HIDDEN-NOT: --nvptx-
// HIDDEN-NOT: --mlir-

// OPT-DAG: --mlir-timing
// OPT-DAG: --mlir-print-ir-after-all
// OPT-DAG: --tile-to-ptx
