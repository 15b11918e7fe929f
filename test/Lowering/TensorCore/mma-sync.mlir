// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-allocate-shared -convert-tile-to-llvm=target=sm_90a | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.sm90.ptx && FileCheck %s --check-prefix=PTX90 < %t.sm90.ptx
// RUN: emit-ptx %s --target=sm_80 -o %t.sm80.ptx && FileCheck %s --check-prefix=PTX80 < %t.sm80.ptx
// RUN: awk '/entry dot_bf16/,/^}/' %t.sm90.ptx | grep -c ldmatrix.sync.aligned.m8n8.x4.shared.b16 | FileCheck %s --check-prefix=LDMATRIX
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90.ptx -o %t.90.o %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o %t.80.o %}
// RUN: awk '/entry tf32_powers/,/^}/' %t.sm90.ptx | grep -c bar.sync | FileCheck %s --check-prefix=POWBAR
// RUN: awk '/entry tf32_powers/,/^}/' %t.sm90.ptx | grep -c mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 | FileCheck %s --check-prefix=POWMMA

// tile.dot on mma.sync (lowering/TensorCore/MmaSyncLowering.cpp): the
// operands are staged in scratch (A 64x32 bf16 = 4096 bytes, then B
// transposed, 64 rows of 64 bytes), then each warp reads its fragments with
// ldmatrix and issues one m16n8k16 per fragment and K step. 64x64 on 2
// warps (too few for a wgmma warpgroup, so sm_90a uses mma.sync too): 2x1
// warps, 2 m-fragments x 8 n-fragments x 2 K steps = 32 mma per warp; per
// K step two ldmatrix.x4 for A and four for B's eight n8 blocks.
// CHECK-LABEL: llvm.func @dot_bf16
// CHECK-SAME: shared_bytes = 8192
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// PTX90-LABEL: .entry dot_bf16
// LDMATRIX: 12
// PTX90-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX80-LABEL: .entry dot_bf16
// PTX80-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @dot_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  %w = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  %b = tile.transpose %w : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}

// -----

// A 16-bit B operand whose threads hold runs along N (here loaded as K
// rows of N, as a tile computed row by row is held) is staged as K rows of
// N in 16-byte vectors and read with ldmatrix.trans, rather than stored
// transposed element by element.
// CHECK-LABEL: llvm.func @dot_b_rows_bf16
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<row>
// CHECK: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<col>
// PTX90-LABEL: .entry dot_b_rows_bf16
// PTX90: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX90-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @dot_b_rows_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
  %b = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}

// -----

// fp8 on sm_90a multiplies as e4m3 (m16n8k32; the NVPTX intrinsic, which
// the NVVM op does not cover yet); on sm_80 the operands are widened to
// bf16 while they are staged and multiplied as m16n8k16.
// CHECK-LABEL: llvm.func @dot_fp8
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"
// PTX90-LABEL: .entry dot_fp8
// PTX90: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// PTX80-LABEL: .entry dot_fp8
// PTX80-NOT: e4m3
// PTX80: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @dot_fp8(%x: !tile.ptr<f8E4M3FN>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %w = tile.load %xv[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %b = tile.transpose %w : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}

// -----

// f32 operands multiply as tf32 on m16n8k8: each element is rounded to
// nearest tf32 (cvt.rna) as it is staged, 32 bytes of K per step as for
// bf16, so 64x32 on 2 warps is 2 m-fragments x 8 n-fragments x 4 K steps
// = 64 mma per warp. The same on sm_90a (wgmma takes no f32 here).
// CHECK-LABEL: llvm.func @dot_tf32
// CHECK: nvvm.convert.float.to.tf32 {{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// PTX90-LABEL: .entry dot_tf32
// PTX90: cvt.rna.tf32.f32
// PTX90-COUNT-64: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX80-LABEL: .entry dot_tf32
// PTX80-COUNT-64: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
func.func @dot_tf32(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : tensor<64x32xf32>
  %w = tile.load %xv[%c0, %c0] : tensor<64x32xf32>
  %b = tile.transpose %w : tensor<64x32xf32> -> tensor<32x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<64x64xf32>
  return
}

// -----

// Powers of a tf32 matrix carried by a loop (kda_prep's WY inverse by
// doubling): both carried tiles stay in the accumulator layout, so each dot
// stages its operands straight from accumulator registers (A included)
// between its two barriers, and nothing else moves. Two conversions
// before the loop (two barriers each) and two dots in it: 8 barriers; 2
// dots x 32 m16n8k8 per warp (64x64x64 on 4x2 warps).
// POWBAR: 8
// POWMMA: 64
func.func @tf32_powers(%a: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %av = tile.make_view %a[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %m = tile.load %av[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %x0 = arith.addf %m, %one : tensor<64x64xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%x = %x0, %p = %m)
      -> (tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
    %p2 = tile.dot %p, %p, %zero : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    %x2 = tile.dot %x, %p2, %x : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
    scf.yield %x2, %p2 : tensor<64x64xf32>, tensor<64x64xf32>
  }
  tile.store %r#0, %av[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}
