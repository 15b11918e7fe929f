// Kernels lowered apart, on threads of their own, report their errors as
// the whole module would: each located at its kernel, in kernel order
// (whichever thread finishes first), and emit-ptx exits non-zero.
// RUN: not emit-ptx %s --target=sm_90a --compile-threads=2 2>&1 | FileCheck %s
// RUN: not emit-ptx %s --target=sm_90a --compile-threads=1 2>&1 | FileCheck %s --check-prefix=ONE

// CHECK: emit-ptx-apart-errors.mlir:[[@LINE+4]]:1: error: tile.cta_pair needs a target with tcgen05 (sm_100a), not 'sm_90a'
// CHECK-NOT: error:
// CHECK: emit-ptx-apart-errors.mlir:[[@LINE+7]]:1: error: tile.cta_pair needs a target with tcgen05 (sm_100a), not 'sm_90a'
// ONE: emit-ptx-apart-errors.mlir:[[@LINE+1]]:1: error: tile.cta_pair needs a target with tcgen05 (sm_100a), not 'sm_90a'
func.func @first(%y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.cta_pair = true} {
  return
}

func.func @second(%y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.cta_pair = true} {
  return
}
