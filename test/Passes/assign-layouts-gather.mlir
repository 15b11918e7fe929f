// RUN: kernel-opt %s -tile-assign-layouts | FileCheck %s

// A gather takes the default layout of its result; index tiles are
// converted to it, since each thread reads the elements it holds.
// CHECK-DAG: #[[L:.*]] = #tile.blocked<size = [1, 8], threads = [4, 8], warps = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @gather
// CHECK: %[[R:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xi32, #{{.*}}> -> tensor<64x64xi32, #[[L]]>
// CHECK: tile.gather %{{.*}}[%[[R]], %{{.*}}] : !tile.view<?x?xbf16>, tensor<64x64xi32, #[[L]]>, tensor<64x64xi32, #[[L]]> -> tensor<64x64xbf16, #[[L]]>
func.func @gather(%src: !tile.ptr<bf16>, %idx: !tile.ptr<i32>,
                  %dst: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %v = tile.make_view %src[%n, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %rows = tile.make_view %idx[%c64, %c64] strides[%c64, %c1]
      : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %out = tile.make_view %dst[%c64, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %r = tile.load %rows[%c0, %c0] : !tile.view<?x?xi32> -> tensor<64x64xi32>
  %i = tile.iota : tensor<64xi32>
  %ie = tile.expand_dims %i at 0 : tensor<64xi32> -> tensor<1x64xi32>
  %ib = tile.broadcast %ie : tensor<1x64xi32> -> tensor<64x64xi32>
  %g = tile.gather %v[%r, %ib] : !tile.view<?x?xbf16>, tensor<64x64xi32>,
      tensor<64x64xi32> -> tensor<64x64xbf16>
  tile.store %g, %out[%c0, %c0] : tensor<64x64xbf16>, !tile.view<?x?xbf16>
  return
}
