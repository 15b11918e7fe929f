// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared | FileCheck %s

// A reduction across 4 warps exchanges one f32 per (row, warp): 1 row x 4
// warps x 4 bytes = 16 bytes.
// CHECK-LABEL: func.func @cross_warp
// CHECK-SAME: tile.shared_bytes = 16 : i64
func.func @cross_warp(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<1x1024xf32>
  %r = tile.reduce add %t along 1 : tensor<1x1024xf32> -> tensor<1xf32>
  return
}

// -----

// Rows owned by single warps reduce with shuffles alone: no scratch.
// CHECK-LABEL: func.func @in_warp
// CHECK-SAME: tile.shared_bytes = 0 : i64
func.func @in_warp(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %r = tile.reduce add %t along 1 : tensor<4x128xf32> -> tensor<4xf32>
  return
}

// -----

// A layout conversion stages the whole tile: 4 x 4 bytes, rounded to 16.
// CHECK-LABEL: func.func @convert
// CHECK-SAME: tile.shared_bytes = 16 : i64
func.func @convert(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %w = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %r = tile.reduce add %t along 1 : tensor<4x128xf32> -> tensor<4xf32>
  %u = tile.load %w[%c0] : !tile.view<?xf32> -> tensor<4xf32>
  %s = arith.addf %r, %u : tensor<4xf32>
  tile.store %s, %w[%c0] : tensor<4xf32>, !tile.view<?xf32>
  return
}

// -----

// Cross-warp partials of more rows than a bank period are padded one word
// per 32: 128 rows x 8 warps = 1024 partials, 31 words of padding, (1024 +
// 31) x 4 bytes rounded to 16.
// CHECK-LABEL: func.func @padded_partials
// CHECK-SAME: tile.shared_bytes = 4224 : i64
func.func @padded_partials(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x128xf32>
  %r = tile.reduce max %t along 0 : tensor<64x128xf32> -> tensor<128xf32>
  return
}
