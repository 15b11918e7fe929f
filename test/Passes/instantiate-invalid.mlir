// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-instantiate

// An instance is verified as a kernel; the error says which one.
// expected-error @+1 {{in instance 'odd' of @rows}}
func.func @rows(%v: f32) attributes {tile.kernel,
    tile.params = {N = 32 : i32}, tile.instances = {odd = {N = 24 : i32}}} {
  // expected-error @+1 {{result 'tensor<24xf32>' has extent 24; tile extents must be powers of two}}
  %s = tile.splat %v : tensor<32xf32, #tile.sym<[N]>>
  return
}

// -----

// expected-error @+1 {{instance 'taken' of @t has the name of another symbol}}
func.func @t() attributes {tile.params = {N = 32 : i32},
                           tile.instances = {taken = {}}} {
  return
}
func.func @taken() {
  return
}

// -----

// expected-error @+1 {{in instance 'wide' of @dense}}
func.func @dense() attributes {tile.params = {N = 2 : i32},
                               tile.instances = {wide = {N = 4 : i32}}} {
  // expected-error @+1 {{is a non-splat constant of a template tile; only splats can take an instance's shape}}
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32, #tile.sym<[N]>>
  return
}

// -----

// tile.targets names supported targets, at least one.
// expected-error @+1 {{instance 'pair' of @only: tile.targets must be a non-empty array of target names (sm_80, sm_90a, sm_100a)}}
func.func @only() attributes {tile.params = {N = 2 : i32},
    tile.instances = {pair = {"tile.targets" = ["sm_101"]}}} {
  return
}

// -----

// Warps are spread in whole multiples: 4 warps do not become 6.
// expected-error @+2 {{in instance 'w6' of @uneven}}
// expected-error @+1 {{cannot spread layout #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>, written for 4 warps, over 6 warps}}
func.func @uneven(%p: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.params = {},
                tile.instances = {w6 = {"tile.num_warps" = 6}}} {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %n]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16>
      -> tensor<64x128xbf16, #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>>
  return
}
