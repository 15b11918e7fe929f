// A tile op at module level, outside any function, is a verifier error
// with its location, not a crash in translation to LLVM IR.
// RUN: not emit-ptx %s --target=sm_90a -o /dev/null 2>&1 | FileCheck %s

func.func @k(%n: i32) attributes {tile.kernel} {
  return
}

// CHECK: emit-ptx-module-level-op.mlir:[[@LINE+1]]:1: error: 'tile.cluster_barrier' op must be inside a kernel body
tile.cluster_barrier
