// REQUIRES: ptxas
// RUN: for f in %aot/sm_80/*.ptx; do %ptxas -arch=sm_80 $f -o %t.o || exit 1; done
// RUN: for f in %aot/sm_90a/*.ptx; do %ptxas -arch=sm_90a $f -o %t.o || exit 1; done
// RUN: for f in %aot/sm_100a/*.ptx; do %ptxas -arch=sm_100a $f -o %t.o || exit 1; done
// RUN: FileCheck %s < %aot/sm_100a/gemm.ptx

// Every kernel the build compiled ahead of time (and the runtime embeds)
// is accepted by ptxas for its target; on sm_100a the GEMM kernels are the
// tcgen05 ones (lowering/TensorCore/Tcgen05Lowering.cpp).
// CHECK-LABEL: .entry gemm_bf16
// CHECK: tcgen05.alloc
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// CHECK: tcgen05.ld.sync.aligned.32x32b
// CHECK: tcgen05.dealloc
// CHECK-LABEL: .entry gemm_fp8
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4
