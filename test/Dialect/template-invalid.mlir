// RUN: kernel-opt %s -split-input-file -verify-diagnostics

func.func @param_outside_template() {
  // expected-error @+1 {{is only valid in a kernel template (a function with 'tile.params')}}
  %n = tile.param "N" : i32
  return
}

// -----

func.func @unknown_param() attributes {tile.params = {N = 4 : i32}} {
  // expected-error @+1 {{names no parameter of the template: 'M'}}
  %n = tile.param "M" : i32
  return
}

// -----

func.func @type_param_as_value() attributes {tile.params = {T = f32}} {
  // expected-error @+1 {{parameter 'T' is a type, not an integer}}
  %n = tile.param "T" : i32
  return
}

// -----

// The written extent must be the parameter's default.
func.func @extent_not_default(%v: f32) attributes {tile.params = {N = 32 : i32}} {
  // expected-error @+1 {{'tile.splat' op type 'tensor<16xf32, #tile.sym<[N]>>' has extent 16 in dimension 0 where its #tile.sym gives 32}}
  %s = tile.splat %v : tensor<16xf32, #tile.sym<[N]>>
  return
}

// -----

func.func @unknown_dim(%v: f32) attributes {tile.params = {N = 32 : i32}} {
  // expected-error @+1 {{type 'tensor<32xf32, #tile.sym<[M]>>' names 'M', which is not an integer parameter of the template}}
  %s = tile.splat %v : tensor<32xf32, #tile.sym<[M]>>
  return
}

// -----

func.func @element_not_default(%v: f32) attributes {tile.params = {T = bf16}} {
  // expected-error @+1 {{result 'tensor<32xf32>' has element type 'f32' where parameter 'T' defaults to 'bf16'}}
  %s = tile.splat %v {tile.elem = "T"} : tensor<32xf32>
  return
}

// -----

func.func @element_not_type(%v: f32) attributes {tile.params = {N = 2 : i32}} {
  // expected-error @+1 {{'tile.elem = "N"' is not a type parameter of the template}}
  %s = tile.splat %v {tile.elem = "N"} : tensor<32xf32>
  return
}

// -----

func.func @element_outside_template(%v: f32) {
  // expected-error @+1 {{'tile.elem' is only valid in a kernel template}}
  %s = tile.splat %v {tile.elem = "T"} : tensor<32xf32>
  return
}

// -----

func.func @rank(%v: f32) attributes {tile.params = {N = 32 : i32}} {
  // expected-error @+1 {{names 2 dimensions for a rank-1 tile}}
  %s = tile.splat %v : tensor<32xf32, #tile.sym<[N, 1]>>
  return
}

// -----

// expected-error @+1 {{argument #0 of type '!tile.ptr<f32>' is marked 'tile.elem = "T"'; it must be a !tile.ptr whose element type is that type parameter's default}}
func.func @elem_arg(%p: !tile.ptr<f32> {tile.elem = "T"})
    attributes {tile.params = {T = bf16}} {
  return
}

// -----

// expected-error @+1 {{instance 'big' sets 'BQ', which is not a parameter of @inst}}
func.func @inst() attributes {tile.params = {BK = 64 : i32},
                              tile.instances = {big = {BQ = 128 : i32}}} {
  return
}

// -----

// expected-error @+1 {{instance 'big' sets 'T' to 64 : i32; expected a type}}
func.func @inst_kind() attributes {tile.params = {T = f32},
                                   tile.instances = {big = {T = 64 : i32}}} {
  return
}

// -----

// expected-error @+1 {{'tile.instances' needs 'tile.params' on the same function}}
func.func @no_params() attributes {tile.instances = {a = {}}} {
  return
}

// -----

// expected-error @+1 {{template parameter 'T' must default to an integer or a type}}
func.func @bad_default() attributes {tile.params = {T = "f32"}} {
  return
}

// -----

func.func @bad_sym(%v: f32) attributes {tile.params = {N = 32 : i32}} {
  // expected-error @+1 {{#tile.sym dimensions are parameter names or extents >= 1}}
  %s = tile.splat %v : tensor<32xf32, #tile.sym<[0]>>
  return
}

// -----

// expected-error @+1 {{'tile.num_stages' is an integer in [1, 16] on a func.func}}
func.func @stages() attributes {tile.num_stages = 0 : i32} {
  return
}
