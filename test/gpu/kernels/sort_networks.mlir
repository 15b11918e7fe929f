// Sorts exercised on the GPU by sort_gpu_test.cc, one per network and
// layout shape: each loads a tile of keys and a payload, sorts along a
// dimension and stores both back in place.

#flat = #tile.blocked<size = [1], threads = [32], warps = [8], order = [0]>
#rows = #tile.blocked<size = [1, 2], threads = [1, 32], warps = [2, 4], order = [1, 0]>
#lanes = #tile.blocked<size = [1], threads = [32], warps = [8], order = [0]>
#pairs = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [2, 4], order = [1, 0]>

// Exchange network, one element per thread: 256 i64 keys over 8 warps.
func.func @sort_flat256(%p: !tile.ptr<i64>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 256 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
  %w = tile.make_view %q[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %k = tile.load %v[%c0] : tensor<256xi64, #flat>
  %x = tile.load %w[%c0] : tensor<256xi32, #flat>
  %sk, %sx = tile.sort %k, %x along 0 descending
      : tensor<256xi64, #flat>, tensor<256xi32, #flat>
  tile.store %sk, %v[%c0] : tensor<256xi64, #flat>
  tile.store %sx, %w[%c0] : tensor<256xi32, #flat>
  return
}

// Exchange network at its bound: 2048 keys, eight per thread (default
// layout, 528 element-steps), ascending.
func.func @sort_2048(%p: !tile.ptr<i32>, %q: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 2048 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %w = tile.make_view %q[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %k = tile.load %v[%c0] : tensor<2048xi32>
  %x = tile.load %w[%c0] : tensor<2048xf32>
  %sk, %sx = tile.sort %k, %x along 0 : tensor<2048xi32>, tensor<2048xf32>
  tile.store %sk, %v[%c0] : tensor<2048xi32>
  tile.store %sx, %w[%c0] : tensor<2048xf32>
  return
}

// Keys alone (one comparison per lane step), 2048 i64 over 8 warps,
// descending; the payload is not touched.
func.func @sort_keys_2048(%p: !tile.ptr<i64>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 2048 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
  %k = tile.load %v[%c0] : tensor<2048xi64>
  %s = tile.sort %k along 0 descending : tensor<2048xi64>
  tile.store %s, %v[%c0] : tensor<2048xi64>
  return
}

// Exchange network over rows: 4 rows of 256 f32 keys, each row spread over
// 4 warps, sorted along dimension 1, descending.
func.func @sort_rows(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c256 = arith.constant 256 : i32
  %v = tile.make_view %p[%c4, %c256] strides[%c256, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %w = tile.make_view %q[%c4, %c256] strides[%c256, %c1]
      : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %k = tile.load %v[%c0, %c0] : tensor<4x256xf32, #rows>
  %x = tile.load %w[%c0, %c0] : tensor<4x256xi32, #rows>
  %sk, %sx = tile.sort %k, %x along 1 descending
      : tensor<4x256xf32, #rows>, tensor<4x256xi32, #rows>
  tile.store %sk, %v[%c0, %c0] : tensor<4x256xf32, #rows>
  tile.store %sx, %w[%c0, %c0] : tensor<4x256xi32, #rows>
  return
}

// Scratch network: 16 keys replicated across lanes and warps.
func.func @sort_small(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 16 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %w = tile.make_view %q[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %k = tile.load %v[%c0] : tensor<16xi32, #lanes>
  %x = tile.load %w[%c0] : tensor<16xi32, #lanes>
  %sk, %sx = tile.sort %k, %x along 0 descending
      : tensor<16xi32, #lanes>, tensor<16xi32, #lanes>
  tile.store %sk, %v[%c0] : tensor<16xi32, #lanes>
  tile.store %sx, %w[%c0] : tensor<16xi32, #lanes>
  return
}

// Exchange network with repeats: 512 keys, two per thread at coordinates
// 256 apart, descending.
func.func @sort_512(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 512 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %w = tile.make_view %q[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %k = tile.load %v[%c0] : tensor<512xi32, #flat>
  %x = tile.load %w[%c0] : tensor<512xi32, #flat>
  %sk, %sx = tile.sort %k, %x along 0 descending
      : tensor<512xi32, #flat>, tensor<512xi32, #flat>
  tile.store %sk, %v[%c0] : tensor<512xi32, #flat>
  tile.store %sx, %w[%c0] : tensor<512xi32, #flat>
  return
}

// Merge of sorted runs: 2 rows of 128 i64 keys, each row four descending
// runs of 32, merged along dimension 1 over 4 warps.
func.func @merge_runs(%p: !tile.ptr<i64>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c128 = arith.constant 128 : i32
  %v = tile.make_view %p[%c2, %c128] strides[%c128, %c1]
      : !tile.ptr<i64> -> !tile.view<?x?xi64>
  %w = tile.make_view %q[%c2, %c128] strides[%c128, %c1]
      : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %k = tile.load %v[%c0, %c0] : tensor<2x128xi64, #pairs>
  %x = tile.load %w[%c0, %c0] : tensor<2x128xi32, #pairs>
  %sk, %sx = tile.sort %k, %x along 1 descending runs 32
      : tensor<2x128xi64, #pairs>, tensor<2x128xi32, #pairs>
  tile.store %sk, %v[%c0, %c0] : tensor<2x128xi64, #pairs>
  tile.store %sx, %w[%c0, %c0] : tensor<2x128xi32, #pairs>
  return
}

// Scratch network for a large sort: 2048 keys over 4 warps, sixteen per
// thread (past the unrolled networks' bound), descending.
func.func @sort_2048_scratch(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 2048 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %w = tile.make_view %q[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %k = tile.load %v[%c0] : tensor<2048xi32>
  %x = tile.load %w[%c0] : tensor<2048xi32>
  %sk, %sx = tile.sort %k, %x along 0 descending
      : tensor<2048xi32>, tensor<2048xi32>
  tile.store %sk, %v[%c0] : tensor<2048xi32>
  tile.store %sx, %w[%c0] : tensor<2048xi32>
  return
}
