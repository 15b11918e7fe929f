// RUN: kernel-opt %s -tile-assign-layouts=target=sm_100a -canonicalize -tile-stage-stores=target=sm_100a -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -tile-assign-layouts=target=sm_100a -canonicalize -tile-stage-stores=target=sm_100a -tile-pipeline-loads=target=sm_100a -canonicalize -cse -tile-allocate-shared -convert-tile-to-llvm=target=sm_100a | FileCheck %s --check-prefix=LLVM

// A tcgen05 accumulator's epilogue (scale, cast) on the registers tcgen05.ld
// leaves it in (a row per lane, 64 columns per thread) goes out as on
// sm_90a: into two 128 x 64 boxes of a 128-byte-swizzled buffer, then one
// TMA store, behind a tile.view_aligned switch that keeps the plain store
// for views no tensor map describes.
// CHECK-LABEL: func.func @epilogue
// CHECK: tile.convert_layout %{{.*}} : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #[[LD:.*]]>
// CHECK: %[[BUF:.*]] = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[MAP:.*]] = tile.make_tensor_map %{{.*}} : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>
// CHECK: %[[OK:.*]] = tile.view_aligned
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: tile.tma_store_wait 0 read
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store_boxes %{{.*}}, %[[BUF]] column 0 : tensor<128x128xbf16, #[[LD]]>
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.tma_store %[[MAP]]
// CHECK: } else {
// CHECK-NEXT: tile.store
// The boxes of a thread's run of columns are found at run time (its base
// column follows its warp): an unsigned range test, the box and the
// column in it, then 16-byte stores of eight bf16.
// LLVM-LABEL: llvm.func @epilogue
// LLVM: llvm.icmp "ult"
// LLVM: llvm.udiv
// LLVM: llvm.urem
// LLVM: llvm.store {{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<3>
// LLVM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// LLVM: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @epilogue(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>, %s: !tile.ptr<f32>,
                    %y: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %sv = tile.make_view %s[%N] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%c0, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %sc = tile.load %sv[%c0] : !tile.view<?xf32> -> tensor<128xf32>
  %sb = tile.broadcast %sc along 0 : tensor<128xf32> -> tensor<128x128xf32>
  %scaled = arith.mulf %acc, %sb : tensor<128x128xf32>
  %out = arith.truncf %scaled : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %yv[%c0, %c0] : tensor<128x128xbf16>, !tile.view<?x?xbf16>
  return
}
