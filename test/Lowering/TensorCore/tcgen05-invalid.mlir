// RUN: kernel-opt %s -split-input-file -tile-allocate-shared -convert-tile-to-llvm=target=sm_100a -verify-diagnostics

// A tcgen05 accumulator lives in tensor memory; a thread holds only whether
// it has been written. tile-assign-layouts gives it only to accumulators
// that start at zero; any other start is refused where it is made.
#mma = #tile.mma<version = 5, warps = [4, 2], instr = [128, 128, 16]>
#ld = #tile.blocked<size = [1, 64], threads = [32, 1], warps = [4, 2], order = [0, 1]>
func.func @nonzero_start(%y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  // expected-error @below {{'arith.constant' op a tcgen05 accumulator can only start at zero}}
  // expected-error @below {{failed to legalize operation 'arith.constant'}}
  %one = arith.constant dense<1.0> : tensor<128x128xf32, #mma>
  %r = tile.convert_layout %one : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #ld>
  tile.store %r, %yv[%c0, %c0] : tensor<128x128xf32, #ld>, !tile.view<?x?xf32>
  return
}

// -----

// It is read into registers only in the layout tcgen05.ld 32x32b gives
// (lanes along rows, warps along rows first), which the message names.
#mma = #tile.mma<version = 5, warps = [4, 2], instr = [128, 128, 16]>
#blocked = #tile.blocked<size = [1, 4], threads = [2, 16], warps = [8, 1], order = [1, 0]>
func.func @wrong_register_layout(%y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %yv = tile.make_view %y[%n, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  // expected-error @below {{'tile.convert_layout' op reads a tcgen05 accumulator only into #tile.blocked<size = [1, 64], threads = [32, 1], warps = [4, 2], order = [0, 1]> (tcgen05.ld 32x32b), f32}}
  // expected-error @below {{failed to legalize operation 'tile.convert_layout'}}
  %r = tile.convert_layout %zero : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked>
  tile.store %r, %yv[%c0, %c0] : tensor<128x128xf32, #blocked>, !tile.view<?x?xf32>
  return
}
