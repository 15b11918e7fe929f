// RUN: kernel-opt %s -split-input-file | kernel-opt -split-input-file | FileCheck %s
// RUN: kernel-opt %s -split-input-file -mlir-print-op-generic | kernel-opt -split-input-file | FileCheck %s
// RUN: kernel-opt %s -split-input-file -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The forms kernel text is written in: literal integers mixed with values
// in index lists, a view type that fixes its pointer's type, a broadcast
// along a new dimension, and reductions whose result type follows from the
// operand. Each prints back as written, in custom and generic form.

// CHECK-LABEL: func.func @literal_indices
// CHECK: tile.make_view %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}, 1] : !tile.view<?x?xf32>{{ *$}}
// CHECK: tile.make_view %{{.*}}[64, %{{.*}}] strides[1, 64] : !tile.view<?x?xf32>{{ *$}}
// CHECK: tile.load %{{.*}}[%{{.*}}, 0] pad -inf : tensor<4x128xf32>
// CHECK: tile.load %{{.*}}[-4, %{{.*}}] mask %{{.*}} : tensor<4x128xf32>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, 128] : tensor<4x128xf32>{{ *$}}
// CHECK: tile.store %{{.*}}, %{{.*}}[0, 0] mask %{{.*}} : tensor<4x128xf32>{{ *$}}
// A list of values alone carries no static entries.
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x128xf32>
// GENERIC-LABEL: sym_name = "literal_indices"
// GENERIC: "tile.make_view"({{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1>, static_strides = array<i64: -9223372036854775808, 1>}>
// GENERIC: "tile.make_view"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0>, static_sizes = array<i64: 64, -9223372036854775808>, static_strides = array<i64: 1, 64>}>
// GENERIC: "tile.load"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0>, padding = 0xFF800000 : f32, static_offsets = array<i64: -9223372036854775808, 0>}>
// GENERIC: "tile.load"({{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 0>}>
func.func @literal_indices(%p: !tile.ptr<f32>, %m: i32, %n: i32,
                           %mask: tensor<4x128xi1>) {
  %pid = tile.program_id x
  %v = tile.make_view %p[%m, %n] strides[%n, 1] : !tile.view<?x?xf32>
  %w = tile.make_view %p[64, %n] strides[1, 64] : !tile.view<?x?xf32>
  %t = tile.load %v[%pid, 0] pad -inf : tensor<4x128xf32>
  %u = tile.load %w[-4, %pid] mask %mask : tensor<4x128xf32>
  tile.store %t, %v[%pid, 128] : tensor<4x128xf32>
  tile.store %u, %w[0, 0] mask %mask : tensor<4x128xf32>
  %x = tile.load %v[%pid, %pid] : tensor<4x128xf32>
  return
}

// -----

// The older spelling with the pointer's type still parses, and prints
// short; a pointer type that the view does not fix prints long (the
// verifier then rejects it: see sugar-invalid.mlir).
// CHECK-LABEL: func.func @pointer_of_view
// CHECK: tile.make_view %{{.*}}[%{{.*}}] strides[1] : !tile.view<?xbf16>{{ *$}}
func.func @pointer_of_view(%p: !tile.ptr<bf16>, %n: i32) {
  %v = tile.make_view %p[%n] strides[1] : !tile.ptr<bf16> -> !tile.view<?xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @broadcast_along
// CHECK: tile.broadcast %{{.*}} along 1 : tensor<8xf32> -> tensor<8x128xf32>
// CHECK: tile.broadcast %{{.*}} along 0 : tensor<128xf32> -> tensor<8x128xf32>
// GENERIC-LABEL: sym_name = "broadcast_along"
// GENERIC: "tile.broadcast"(%{{.*}}) <{along = 1 : i32}> : (tensor<8xf32>) -> tensor<8x128xf32>
func.func @broadcast_along(%row: tensor<8xf32>, %col: tensor<128xf32>) {
  %a = tile.broadcast %row along 1 : tensor<8xf32> -> tensor<8x128xf32>
  %b = tile.broadcast %col along 0 : tensor<128xf32> -> tensor<8x128xf32>
  return
}

// -----

// The result type follows from the operand: its shape without the
// dimension, a scalar for rank 1, the slice of a layout, a #tile.sym
// without the entry. It prints only where it does not follow.
// CHECK-LABEL: func.func @reduce_results
// CHECK: %[[R:.*]] = tile.reduce max %{{.*}} along 1 : tensor<8x128xf32>{{ *$}}
// CHECK: tile.reduce add %[[R]] along 0 : tensor<8xf32>{{ *$}}
// CHECK: tile.reduce add %{{.*}} along 0 : tensor<8x128xf32, #blocked>{{ *$}}
// CHECK: tile.reduce add %{{.*}} along 1 : tensor<8x128xf32, #blocked> -> tensor<8xf32>{{ *$}}
// GENERIC-LABEL: sym_name = "reduce_results"
// GENERIC: "tile.reduce"(%{{.*}}) <{dim = 1 : i32, kind = #tile<combine max>}> : (tensor<8x128xf32>) -> tensor<8xf32>
// GENERIC: "tile.reduce"(%{{.*}}) <{dim = 0 : i32, kind = #tile<combine add>}> : (tensor<8xf32>) -> f32
// GENERIC: "tile.reduce"(%{{.*}}) <{dim = 0 : i32, kind = #tile<combine add>}> : (tensor<8x128xf32, #blocked>) -> tensor<128xf32, #slice>
#blocked = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>
func.func @reduce_results(%t: tensor<8x128xf32>,
                          %l: tensor<8x128xf32, #blocked>) {
  %r = tile.reduce max %t along 1 : tensor<8x128xf32>
  %s = tile.reduce add %r along 0 : tensor<8xf32>
  %c = tile.reduce add %l along 0 : tensor<8x128xf32, #blocked>
  %d = tile.reduce add %l along 1 : tensor<8x128xf32, #blocked> -> tensor<8xf32>
  return
}

// -----

// In a kernel template, the result keeps the names of the extents left.
// CHECK-LABEL: func.func @reduce_symbolic
// CHECK: tile.reduce max %{{.*}} along 1 : tensor<64x256xf32, #tile.sym<[R, C]>>{{ *$}}
// GENERIC-LABEL: sym_name = "reduce_symbolic"
// GENERIC: (tensor<64x256xf32, #tile.sym<[R, C]>>) -> tensor<64xf32, #tile.sym<[R]>>
func.func @reduce_symbolic(%v: !tile.view<?x?xf32>)
    attributes {tile.params = {R = 64, C = 256}} {
  %t = tile.load %v[0, 0] : tensor<64x256xf32, #tile.sym<[R, C]>>
  %m = tile.reduce max %t along 1 : tensor<64x256xf32, #tile.sym<[R, C]>>
  return
}
