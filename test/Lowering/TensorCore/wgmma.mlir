// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-allocate-shared -convert-tile-to-llvm=target=sm_90a | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}

// tile.dot on wgmma (lowering/TensorCore/WgmmaLowering.cpp): 128x128 on 8
// warps is two warpgroups of one m64n128 block each. A (128 rows of 64 bf16
// = 128 bytes) and B transposed (128 rows) are staged with the 128-byte
// swizzle, B at 16384; a proxy fence and a barrier hand them to the tensor
// cores; per warpgroup four K steps of m64n128k16 whose descriptors advance
// 32 bytes each, then one commit and a wait for it.
// CHECK-LABEL: llvm.func @dot_bf16
// CHECK-SAME: shared_bytes = 32768
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<8xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// PTX-LABEL: .entry dot_bf16
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-NOT: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned
func.func @dot_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %w = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %b = tile.transpose %w : tensor<128x64xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<128x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// fp8 e4m3: K steps of 32 elements (32 bytes), m64n64k32 for a 64x64 tile
// on one warpgroup; rows of 64 bytes take the 64-byte swizzle.
// CHECK-LABEL: llvm.func @dot_fp8
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// PTX-LABEL: .entry dot_fp8
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
func.func @dot_fp8(%x: !tile.ptr<f8E4M3FN>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
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

// An async dot leaves its wgmma group running; tile.dot_wait waits for all
// but `pending` groups.
// CHECK-LABEL: llvm.func @async_dot
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// PTX-LABEL: .entry async_dot
// PTX: wgmma.commit_group.sync.aligned
// PTX-NEXT: wgmma.wait_group.sync.aligned 1
func.func @async_dot(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %w = tile.load %xv[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.transpose %w : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero async : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  %e = tile.dot_wait %d pending 1 : tensor<64x64xf32>
  %f = tile.dot_wait %e pending 0 : tensor<64x64xf32>
  tile.store %f, %yv[%c0, %c0] : tensor<64x64xf32>, !tile.view<?x?xf32>
  return
}
