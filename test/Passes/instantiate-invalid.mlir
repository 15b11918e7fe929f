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
