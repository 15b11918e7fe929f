// RUN: kernel-opt %s -split-input-file -verify-diagnostics

// Literal indices, the short view type, broadcasts along a dimension and
// inferred reduction results, given wrong.

func.func @literal_not_i32(%v: !tile.view<?xf32>) {
  // expected-error @+1 {{index 4294967296 is not an i32}}
  %t = tile.load %v[4294967296] : tensor<8xf32>
  return
}

// -----

func.func @index_expected(%v: !tile.view<?xf32>) {
  // expected-error @+1 {{expected an index: an SSA value or an integer}}
  %t = tile.load %v[x] : tensor<8xf32>
  return
}

// -----

func.func @literal_arity(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{expects 2 extents and strides for a rank-2 view, got 2 and 1}}
  %v = tile.make_view %p[%n, 8] strides[1] : !tile.view<?x?xf32>
  return
}

// -----

func.func @static_offsets_mismatch(%v: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @+1 {{`static_offsets` leaves 1 entries to values, but 2 are given}}
  %t = "tile.load"(%v, %i, %i) <{operandSegmentSizes = array<i32: 1, 2, 0>, static_offsets = array<i64: -9223372036854775808, 0>}> : (!tile.view<?x?xf32>, i32, i32) -> tensor<4x8xf32>
  return
}

// -----

func.func @static_strides_not_i32(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{literal strides entry 8589934592 is not an i32}}
  %v = "tile.make_view"(%p, %n) <{operandSegmentSizes = array<i32: 1, 1, 0>, static_strides = array<i64: 8589934592>}> : (!tile.ptr<f32>, i32) -> !tile.view<?xf32>
  return
}

// -----

func.func @view_type_expected(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{expected a !tile.view type, got '!tile.ptr<f32>'}}
  %v = tile.make_view %p[%n] strides[1] : !tile.ptr<f32>
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @view_of_other_pointer(%p: !tile.ptr<f16>, %n: i32) {
  // expected-error @+1 {{use of value '%p' expects different type than prior uses: '!tile.ptr<f32>' vs '!tile.ptr<f16>'}}
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xf32>
  return
}

// -----

func.func @broadcast_along_shape(%r: tensor<8xf32>) {
  // expected-error @+1 {{operand must be 'tensor<4xf32>' (the result without dimension 1)}}
  %b = tile.broadcast %r along 1 : tensor<8xf32> -> tensor<4x128xf32>
  return
}

// -----

func.func @broadcast_along_range(%r: tensor<8xf32>) {
  // expected-error @+1 {{dimension 2 is out of range for a rank-2 result}}
  %b = tile.broadcast %r along 2 : tensor<8xf32> -> tensor<8x128xf32>
  return
}

// -----

#l = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>
func.func @broadcast_along_layout(%r: tensor<4xf32, #l>) {
  // expected-error @+1 {{operand layout must be the slice along 1 of the result layout}}
  %b = tile.broadcast %r along 1 : tensor<4xf32, #l> -> tensor<4x128xf32, #l>
  return
}

// -----

func.func @reduce_cannot_infer(%t: tensor<8x128xf32>) {
  // expected-error @+1 {{cannot infer the result of reducing 'tensor<8x128xf32>' along 2; give it after `->`}}
  %r = tile.reduce max %t along 2 : tensor<8x128xf32>
  return
}

// -----

func.func @reduce_explicit_wrong(%t: tensor<8x128xf32>) {
  // expected-error @+1 {{result must be a 'tensor<8xf32>' tile}}
  %r = tile.reduce max %t along 1 : tensor<8x128xf32> -> tensor<128xf32>
  return
}
