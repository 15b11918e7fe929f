// RUN: kernel-opt %s -split-input-file -verify-diagnostics

// Tiles the lowering cannot hold in registers (too large for a thread, or
// of extents that are not powers of two) are refused where they are made.

func.func @too_large(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %n] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<256x512xf32> // expected-error {{'tile.load' op result 'tensor<256x512xf32>' gives each thread 1024 elements; tiles are limited to 256 per thread: use smaller tiles or more warps (tile.num_warps = 4)}}
  tile.store %t, %v[%c0, %c0] : tensor<256x512xf32>, !tile.view<?x?xf32>
  return
}

// -----

// The same tile over 16 warps is 256 elements per thread, the limit.
func.func @at_limit(%p: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %n] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xf32> -> tensor<256x512xf32>
  return
}

// -----

// A layout counts as it distributes the tile: 1024 elements per thread
// where spreading the tile evenly would give 8.
#fat = #tile.blocked<size = [1024], threads = [32], warps = [4], order = [0]>
func.func @fat_layout(%x: f32) attributes {tile.kernel} {
  // expected-error @below {{'tile.splat' op result 'tensor<1024xf32, #tile.blocked<size = [1024], threads = [32], warps = [4], order = [0]>>' gives each thread 1024 elements}}
  %t = tile.splat %x : tensor<1024xf32, #fat>
  return
}

// -----

// Extents whose product overflows 64 bits saturate instead of wrapping
// into range.
func.func @huge(%x: f32) attributes {tile.kernel} {
  // expected-error @below {{'tile.splat' op result 'tensor<4294967296x4294967296xf32>' gives each thread 144115188075855872 elements}}
  %t = tile.splat %x : tensor<4294967296x4294967296xf32>
  return
}

// -----

// Extents other than powers of two have no layout.
func.func @odd_extent(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  // expected-error @below {{'tile.load' op result 'tensor<3xf32>' has extent 3; tile extents must be powers of two}}
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<3xf32>
  return
}

// -----

// Functions that are not kernels are never lowered, so not limited.
func.func @helper(%x: f32) {
  %t = tile.splat %x : tensor<256x512xf32>
  return
}


// -----

// wgmma_warps is bounded by the warps of a CTA: 2^31 passed as a power of
// two multiple of 4, then wrapped the rows check of the buffer to a
// division by zero.
func.func @huge_wgmma_warps() {
  // expected-error @below {{wgmma_warps must be at most 32 (the warps of a CTA), got 2147483648}}
  %b = tile.alloc_shared : !tile.smem<2x96x64xbf16, #tile.swizzle<128, wgmma_warps = 2147483648>>
  return
}
