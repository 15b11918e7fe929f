// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-instantiate | FileCheck %s
// RUN: kernel-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | kernel-opt -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=ROUNDTRIP

// One template, two instances: every tile extent that names BK or BN
// takes the instance's value, tile.param becomes a constant, pointers
// marked tile.elem take T, and the views made from them, the tiles loaded
// from those and the transpose of such a tile follow; "tile.*" keys become
// function attributes. BM and BN share the default 128 and stay
// apart, since substitution follows the names, not the values.
// CHECK-LABEL: func.func @mm_bf16(
// CHECK-SAME:      %{{.*}}: !tile.ptr<bf16>, %{{.*}}: !tile.ptr<bf16>, %{{.*}}: !tile.ptr<f32>
// CHECK-SAME:      attributes {tile.kernel, tile.num_warps = 8 : i32}
// CHECK:         arith.constant 64 : i32
// CHECK:         tile.make_view {{.*}} : !tile.view<?x?xbf16>
// CHECK:         arith.constant dense<0.000000e+00> : tensor<128x64xf32>
// CHECK:         tile.load {{.*}} : tensor<128x64xbf16>
// CHECK:         tile.dot {{.*}} -> tensor<128x64xf32>
// CHECK-LABEL: func.func @mm_fp8(
// CHECK-SAME:      %{{.*}}: !tile.ptr<f8E4M3FN>, %{{.*}}: !tile.ptr<f8E4M3FN>, %{{.*}}: !tile.ptr<f32>
// CHECK-SAME:      tile.num_stages = 3 : i32
// CHECK:         arith.constant 128 : i32
// CHECK:         tile.make_view {{.*}} : !tile.view<?x?xf8E4M3FN>
// CHECK:         arith.constant dense<0.000000e+00> : tensor<128x256xf32>
// CHECK:         tile.load {{.*}} : tensor<128x128xf8E4M3FN>
// CHECK:         tile.dot {{.*}} -> tensor<128x256xf32>
// CHECK-NOT:     tile.param
// CHECK-NOT:     #tile.sym
// CHECK-NOT:     @mm(
// ROUNDTRIP-LABEL: func.func @mm(
// ROUNDTRIP-SAME:  tile.elem = "T"
// ROUNDTRIP:       tile.param "BK" : i32
// ROUNDTRIP:       tensor<128x64xbf16, #tile.sym<[BM, BK]>>
func.func @mm(%x: !tile.ptr<bf16> {tile.elem = "T"},
              %w: !tile.ptr<bf16> {tile.elem = "T"},
              %y: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {BM = 128 : i32, BN = 64 : i32, BK = 64 : i32,
                               T = bf16},
                tile.instances = {
                  mm_bf16 = {},
                  // Integers need no type: parameters take the type of
                  // their use, function attributes are i32.
                  mm_fp8 = {BK = 128, BN = 256, T = f8E4M3FN,
                            "tile.num_stages" = 3}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bk = tile.param "BK" : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #tile.sym<[BM, BN]>>
  %acc = scf.for %k = %c0 to %K step %bk iter_args(%a = %zero)
      -> (tensor<128x64xf32, #tile.sym<[BM, BN]>>) : i32 {
    %xt = tile.load %xv[%c0, %k] : !tile.view<?x?xbf16>
        -> tensor<128x64xbf16, #tile.sym<[BM, BK]>>
    %wt = tile.load %wv[%c0, %k] : !tile.view<?x?xbf16>
        -> tensor<64x64xbf16, #tile.sym<[BN, BK]>>
    %b = tile.transpose %wt : tensor<64x64xbf16, #tile.sym<[BN, BK]>>
        -> tensor<64x64xbf16, #tile.sym<[BK, BN]>>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16, #tile.sym<[BM, BK]>>,
        tensor<64x64xbf16, #tile.sym<[BK, BN]>>
        -> tensor<128x64xf32, #tile.sym<[BM, BN]>>
    scf.yield %d : tensor<128x64xf32, #tile.sym<[BM, BN]>>
  }
  tile.store %acc, %yv[%c0, %c0] : tensor<128x64xf32, #tile.sym<[BM, BN]>>,
      !tile.view<?x?xf32>
  return
}

// -----

// A kernel that widens its element type T to f32 serves T = f32 too: the
// conversions the substitution makes identities go, and the padding value
// is converted to the instance's element type. An op's tile.elem names the
// type parameter of its result (here the narrowing back to T). Instances
// come in the order of their names. A template without
// tile.instances becomes the kernel of its defaults.
// CHECK-LABEL: func.func @rows_bf16(
// CHECK-SAME:      tile.num_warps = 16 : i32
// CHECK:         tile.load {{.*}} pad -inf : tensor<64x256xbf16>
// CHECK:         arith.extf {{.*}} : tensor<64x256xbf16> to tensor<64x256xf32>
// CHECK:         arith.truncf {{.*}} : tensor<64x256xf32> to tensor<64x256xbf16>
// CHECK-LABEL: func.func @rows_f32(
// CHECK:         tile.load {{.*}} pad -inf : tensor<8x1024xf32>
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         tile.store
func.func @rows(%x: !tile.ptr<bf16> {tile.elem = "T"},
                %y: !tile.ptr<bf16> {tile.elem = "T"}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {R = 64 : i32, C = 256 : i32, T = bf16},
                tile.instances = {
                  rows_f32 = {R = 8 : i32, C = 1024 : i32, T = f32},
                  rows_bf16 = {"tile.num_warps" = 16 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %in = tile.make_view %x[%n, %n] strides[%n, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %out = tile.make_view %y[%n, %n] strides[%n, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %in[%c0, %c0] pad 0xFF80 : bf16 : !tile.view<?x?xbf16>
      -> tensor<64x256xbf16, #tile.sym<[R, C]>>
  %f = arith.extf %t : tensor<64x256xbf16, #tile.sym<[R, C]>>
      to tensor<64x256xf32, #tile.sym<[R, C]>>
  %e = math.exp %f : tensor<64x256xf32, #tile.sym<[R, C]>>
  %r = arith.truncf %e {tile.elem = "T"} : tensor<64x256xf32, #tile.sym<[R, C]>>
      to tensor<64x256xbf16, #tile.sym<[R, C]>>
  tile.store %r, %out[%c0, %c0] : tensor<64x256xbf16, #tile.sym<[R, C]>>,
      !tile.view<?x?xbf16>
  return
}

// -----

// A conversion to a type parameter that the instance makes an identity
// disappears only after the ops that follow it have taken the instance's
// type: the transpose of the narrowed operand is f32 in dot_f32.
// CHECK-LABEL: func.func @dot_bf16(
// CHECK:         arith.truncf {{.*}} : tensor<64x32xf32> to tensor<64x32xbf16>
// CHECK:         tile.transpose {{.*}} : tensor<64x32xbf16> -> tensor<32x64xbf16>
// CHECK:         tile.dot {{.*}} : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
// CHECK-LABEL: func.func @dot_f32(
// CHECK-NOT:     arith.truncf
// CHECK:         tile.transpose {{.*}} : tensor<64x32xf32> -> tensor<32x64xf32>
// CHECK:         tile.dot {{.*}} : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
func.func @dot(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.params = {P = bf16},
                tile.instances = {dot_bf16 = {}, dot_f32 = {P = f32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %xv = tile.make_view %x[%n, %n] strides[%n, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %a = tile.load %xv[%c0, %c0] : tensor<64x32xf32>
  %ap = arith.truncf %a {tile.elem = "P"} : tensor<64x32xf32> to tensor<64x32xbf16>
  %bt = tile.transpose %ap : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %ap, %bt, %z : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %d, %yv[%c0, %c0] : tensor<64x64xf32>
  return
}

// -----

// A scalar constant of a type parameter is converted to the instance's.
// CHECK-LABEL: func.func @defaults(
// CHECK:         arith.constant 32 : i32
// CHECK:         arith.constant 1.000000e+00 : f32
// CHECK:         tile.splat {{.*}} : tensor<32x1xf32>
// CHECK-LABEL: func.func @half(
// CHECK:         arith.constant 1.000000e+00 : f16
// CHECK:         tile.splat {{.*}} : tensor<32x1xf16>
func.func @defaults(%p: !tile.ptr<f32>)
    attributes {tile.kernel, tile.params = {R = 32 : i32, T = f32},
                tile.instances = {defaults = {}, half = {T = f16}}} {
  %r = tile.param "R" : i32
  %one = arith.constant {tile.elem = "T"} 1.0 : f32
  %s = tile.splat %one : tensor<32x1xf32, #tile.sym<[R, 1]>>
  return
}

// -----

// A parameter's value may lead the operands of the ops that follow their
// first operand's type (here arith.muli, arith.addi).
// CHECK-LABEL: func.func @param_first_w8(
// CHECK:         %[[P:.*]] = arith.constant 8 : i32
// CHECK:         %[[M:.*]] = arith.muli %[[P]], %{{.*}} : i32
// CHECK:         arith.addi %[[M]], %[[P]] : i32
// ROUNDTRIP-LABEL: func.func @param_first(
func.func @param_first(%n: i32)
    attributes {tile.kernel, tile.params = {W = 4 : i32},
                tile.instances = {param_first_w8 = {W = 8 : i32}}} {
  %w = tile.param "W" : i32
  %m = arith.muli %w, %n : i32
  %s = arith.addi %m, %w : i32
  return
}

// -----

// An instance that changes tile.num_warps spreads the layouts its kernel
// names over its warps: the dimension holding the most warps takes the
// change, slices follow their parents, and loop-carried tiles keep one
// layout. The instance under the template's name stays as written.
// CHECK-DAG:     #[[B4:.*]] = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>
// CHECK-DAG:     #[[B2:.*]] = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [2, 1], order = [1, 0]>
// CHECK-DAG:     #[[B8:.*]] = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [8, 1], order = [1, 0]>
// CHECK-DAG:     #[[M4:.*]] = #tile.mma<version = 2, warps = [1, 4], instr = [16, 8, 16]>
// CHECK-DAG:     #[[M2:.*]] = #tile.mma<version = 2, warps = [1, 2], instr = [16, 8, 16]>
// CHECK-DAG:     #[[M8:.*]] = #tile.mma<version = 2, warps = [1, 8], instr = [16, 8, 16]>
// CHECK-DAG:     #[[S4:.*]] = #tile.slice<dim = 1, parent = #[[M4]]>
// CHECK-DAG:     #[[S2:.*]] = #tile.slice<dim = 1, parent = #[[M2]]>
// CHECK-DAG:     #[[S8:.*]] = #tile.slice<dim = 1, parent = #[[M8]]>
// CHECK-LABEL: func.func @named(
// CHECK-SAME:      tile.num_warps = 4 : i32
// CHECK:         tile.load {{.*}} : tensor<64x128xbf16, #[[B4]]>
// CHECK:         scf.for {{.*}} -> (tensor<16x64xf32, #[[M4]]>)
// CHECK:         tile.iota : tensor<16xi32, #[[S4]]>
// CHECK-LABEL: func.func @named_w2(
// CHECK-SAME:      tile.num_warps = 2 : i32
// CHECK:         tile.load {{.*}} : tensor<64x128xbf16, #[[B2]]>
// CHECK:         scf.for {{.*}} -> (tensor<16x64xf32, #[[M2]]>)
// CHECK:         tile.iota : tensor<16xi32, #[[S2]]>
// CHECK-LABEL: func.func @named_w8(
// CHECK-SAME:      tile.num_warps = 8 : i32
// CHECK:         tile.load {{.*}} : tensor<64x128xbf16, #[[B8]]>
// CHECK:         scf.for {{.*}} -> (tensor<16x64xf32, #[[M8]]>)
// CHECK:         tile.iota : tensor<16xi32, #[[S8]]>
// ROUNDTRIP-LABEL: func.func @named(
#rows = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>
#acc = #tile.mma<version = 2, warps = [1, 4], instr = [16, 8, 16]>
func.func @named(%p: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.params = {},
                tile.instances = {named = {},
                                  named_w8 = {"tile.num_warps" = 8},
                                  named_w2 = {"tile.num_warps" = 2}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32, #acc>
  %v = tile.make_view %p[%n, %n] strides[%n, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16>
      -> tensor<64x128xbf16, #rows>
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%x = %zero)
      -> (tensor<16x64xf32, #acc>) : i32 {
    scf.yield %x : tensor<16x64xf32, #acc>
  }
  %r = tile.iota : tensor<16xi32, #tile.slice<dim = 1, parent = #acc>>
  return
}
