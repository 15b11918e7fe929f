// A loop of gathers through an index table feeding a dot, which
// tile-pipeline-loads stages in a cp.async ring (tile.async_gather),
// exercised on the GPU by gather_ring_gpu_test.cc. The rows come from a
// view that starts `shift` elements past x: at 0 every 16-byte run is
// aligned and a thread's runs go under one branch; at 1 none is, and each
// run falls back to element loads.
//
// y (16x64 f32) = sum over four steps s of q (16x64) · V_s, V_s[k][j] =
// row table[64·s + k] of the view at column j; a row outside the view
// (-1, or past `rows`) reads zeros.

#kv = #tile.blocked<size = [1, 8], threads = [4, 8], warps = [4, 1], order = [1, 0]>
#row = #tile.slice<dim = 1, parent = #kv>
#col = #tile.slice<dim = 0, parent = #kv>

func.func @gather_ring(%x: !tile.ptr<bf16>, %table: !tile.ptr<i32>,
    %q: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %rows: i32, %shift: i64)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 3 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %xs = tile.addptr %x, %shift : !tile.ptr<bf16>, i64
  %xv = tile.make_view %xs[%rows, 64] strides[64, 1] : !tile.view<?x?xbf16>
  %tv = tile.make_view %table[256] strides[1] : !tile.view<?xi32>
  %qv = tile.make_view %q[16, 64] strides[64, 1] : !tile.view<?x?xbf16>
  %yv = tile.make_view %y[16, 64] strides[64, 1] : !tile.view<?x?xf32>
  %qt = tile.load %qv[0, 0] : tensor<16x64xbf16>
  %i = tile.iota : tensor<64xi32, #col>
  %iE = tile.expand_dims %i at 0 : tensor<64xi32, #col> -> tensor<1x64xi32, #kv>
  %cols = tile.broadcast %iE : tensor<1x64xi32, #kv> -> tensor<64x64xi32, #kv>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum = scf.for %t = %c0 to %c256 step %c64 iter_args(%acc = %zero)
      -> (tensor<16x64xf32>) : i32 {
    %r = tile.load %tv[%t] : tensor<64xi32, #row>
    %rE = tile.expand_dims %r at 1 : tensor<64xi32, #row> -> tensor<64x1xi32, #kv>
    %rB = tile.broadcast %rE : tensor<64x1xi32, #kv> -> tensor<64x64xi32, #kv>
    %v = tile.gather %xv[%rB, %cols] : !tile.view<?x?xbf16>,
        tensor<64x64xi32, #kv>, tensor<64x64xi32, #kv>
        -> tensor<64x64xbf16, #kv>
    %next = tile.dot %qt, %v, %acc
        : tensor<16x64xbf16>, tensor<64x64xbf16, #kv> -> tensor<16x64xf32>
    scf.yield %next : tensor<16x64xf32>
  }
  tile.store %sum, %yv[0, 0] : tensor<16x64xf32>
  return
}
