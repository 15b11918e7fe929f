// RUN: kernel-opt %s -split-input-file -verify-diagnostics -tile-split-k

// expected-error @+1 {{'tile.split_k' is a bool on a func.func}}
func.func @not_bool(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.split_k = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.split_k' needs an scf.for at the kernel's top level that carries only a tile.dot accumulator}}
func.func @no_loop(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.split_k = true} {
  return
}

// -----

// expected-error @+1 {{'tile.split_k' splits the reduction over grid z, which the kernel uses}}
func.func @uses_z(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.split_k = true} {
  %z = tile.program_id z
  return
}

// -----

// expected-error @+1 {{'tile.split_k' and 'tile.persistent' do not combine}}
func.func @persistent(%x: !tile.ptr<f32>)
    attributes {tile.kernel, tile.split_k = true, tile.persistent = 8 : i32} {
  return
}

// -----

// Each part would add the initial accumulator once.
func.func @nonzero_start(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.split_k = true} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %xv = tile.make_view %x[16, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %yv = tile.make_view %y[16, 16] strides[16, 1] : !tile.view<?x?xf32>
  %init = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @+1 {{the accumulator of a loop split over programs must start from zero (each program adds its share)}}
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %init) -> (tensor<16x16xf32>) : i32 {
    %t = tile.load %xv[0, %k] : tensor<16x16xbf16>
    %d = tile.dot %t, %t, %a : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %acc, %yv[0, 0] : tensor<16x16xf32>
  return
}

// -----

// A loop that stores could not be split: its parts would store in another
// order.
func.func @writes(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.split_k = true} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %xv = tile.make_view %x[16, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %yv = tile.make_view %y[16, 16] strides[16, 1] : !tile.view<?x?xf32>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{a loop split over programs must not write memory}}
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %init) -> (tensor<16x16xf32>) : i32 {
    %t = tile.load %xv[0, %k] : tensor<16x16xbf16>
    %d = tile.dot %t, %t, %a : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    tile.store %d, %yv[0, 0] : tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %acc, %yv[0, 0] : tensor<16x16xf32>
  return
}

// -----

// expected-error @+1 {{'tile.split_k' needs one reduction loop; the kernel has several}}
func.func @two_loops(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.split_k = true} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %xv = tile.make_view %x[16, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %yv = tile.make_view %y[16, 16] strides[16, 1] : !tile.view<?x?xf32>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%a = %init) -> (tensor<16x16xf32>) : i32 {
    %t = tile.load %xv[0, %k] : tensor<16x16xbf16>
    %d = tile.dot %t, %t, %a : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %acc2 = scf.for %k = %c0 to %K step %c16 iter_args(%a = %init) -> (tensor<16x16xf32>) : i32 {
    %t = tile.load %xv[0, %k] : tensor<16x16xbf16>
    %d = tile.dot %t, %t, %a : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %acc, %yv[0, 0] : tensor<16x16xf32>
  return
}

// -----

// The split bounds are computed in i32, like the kernels' other indices.
func.func @index_bounds(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %K: i32)
    attributes {tile.kernel, tile.split_k = true} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %k = arith.index_cast %K : i32 to index
  %xv = tile.make_view %x[16, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %yv = tile.make_view %y[16, 16] strides[16, 1] : !tile.view<?x?xf32>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{a loop split over programs needs i32 bounds}}
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%a = %init) -> (tensor<16x16xf32>) {
    %o = arith.index_cast %i : index to i32
    %t = tile.load %xv[0, %o] : tensor<16x16xbf16>
    %d = tile.dot %t, %t, %a : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %acc, %yv[0, 0] : tensor<16x16xf32>
  return
}
