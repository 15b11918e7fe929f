// Reductions and scans of tiles narrower than the CTA along the combined
// dimension (the threads hold replicas there), exercised on the GPU by
// narrow_tiles_gpu_test.cc. Each kernel runs as one program of 4 warps
// (128 threads) over x (64 f32) and xi (64 i32).

#wide = #tile.blocked<size = [8], threads = [32], warps = [4], order = [0]>

// out: [0] sum of x[0:64), [1] sum of x[0:16), [2:6) row sums and [6:14)
// column sums of x[0:32) as 4x8, [14] product of x[0:8).
// outi: [0] sum, [1] xor of xi[0:64), [2] product of xi[0:16), [3] sum of
// xi[0:4) held 8 to a thread (replicas inside the thread), [4] max of
// xi[0:16).
func.func @reduce_narrow(%x: !tile.ptr<f32>, %xi: !tile.ptr<i32>,
    %out: !tile.ptr<f32>, %outi: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %xv = tile.make_view %x[64] strides[1] : !tile.view<?xf32>
  %x2 = tile.make_view %x[4, 8] strides[8, 1] : !tile.view<?x?xf32>
  %iv = tile.make_view %xi[64] strides[1] : !tile.view<?xi32>
  %ov = tile.make_view %out[16] strides[1] : !tile.view<?xf32>
  %oi = tile.make_view %outi[8] strides[1] : !tile.view<?xi32>

  %t64 = tile.load %xv[0] : tensor<64xf32>
  %s64 = tile.reduce add %t64 along 0 : tensor<64xf32>
  %t16 = tile.load %xv[0] : tensor<16xf32>
  %s16 = tile.reduce add %t16 along 0 : tensor<16xf32>
  %t8 = tile.load %xv[0] : tensor<8xf32>
  %p8 = tile.reduce mul %t8 along 0 : tensor<8xf32>
  %s64T = tile.splat %s64 : tensor<1xf32>
  %s16T = tile.splat %s16 : tensor<1xf32>
  %p8T = tile.splat %p8 : tensor<1xf32>
  tile.store %s64T, %ov[0] : tensor<1xf32>
  tile.store %s16T, %ov[1] : tensor<1xf32>
  tile.store %p8T, %ov[14] : tensor<1xf32>
  %t2 = tile.load %x2[0, 0] : tensor<4x8xf32>
  %rows = tile.reduce add %t2 along 1 : tensor<4x8xf32> -> tensor<4xf32>
  %cols = tile.reduce add %t2 along 0 : tensor<4x8xf32> -> tensor<8xf32>
  tile.store %rows, %ov[2] : tensor<4xf32>
  tile.store %cols, %ov[6] : tensor<8xf32>

  %i64 = tile.load %iv[0] : tensor<64xi32>
  %is = tile.reduce add %i64 along 0 : tensor<64xi32>
  %ix = tile.reduce xor %i64 along 0 : tensor<64xi32>
  %i16 = tile.load %iv[0] : tensor<16xi32>
  %ip = tile.reduce mul %i16 along 0 : tensor<16xi32>
  %im = tile.reduce max %i16 along 0 : tensor<16xi32>
  %i4 = tile.load %iv[0] : tensor<4xi32, #wide>
  %i4s = tile.reduce add %i4 along 0 : tensor<4xi32, #wide>
  %isT = tile.splat %is : tensor<1xi32>
  %ixT = tile.splat %ix : tensor<1xi32>
  %ipT = tile.splat %ip : tensor<1xi32>
  %i4T = tile.splat %i4s : tensor<1xi32>
  %imT = tile.splat %im : tensor<1xi32>
  tile.store %isT, %oi[0] : tensor<1xi32>
  tile.store %ixT, %oi[1] : tensor<1xi32>
  tile.store %ipT, %oi[2] : tensor<1xi32>
  tile.store %i4T, %oi[3] : tensor<1xi32>
  tile.store %imT, %oi[4] : tensor<1xi32>
  return
}

// y (f32): [0:64) inclusive sums of x[0:64).
// yi (i32), each a scan of a prefix of xi: [0:64) inclusive sums of 64,
// [64:128) exclusive sums of 64, [128:192) reversed inclusive sums of 64,
// [192:208) inclusive sums of 16, [208:224) reversed inclusive sums of 16,
// [224:228) inclusive sums of 4 held 8 to a thread, [228:260) inclusive
// sums along the rows of xi[0:32) as 4x8.
func.func @scan_narrow(%x: !tile.ptr<f32>, %xi: !tile.ptr<i32>,
    %y: !tile.ptr<f32>, %yi: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %xv = tile.make_view %x[64] strides[1] : !tile.view<?xf32>
  %iv = tile.make_view %xi[64] strides[1] : !tile.view<?xi32>
  %i2 = tile.make_view %xi[4, 8] strides[8, 1] : !tile.view<?x?xi32>
  %yv = tile.make_view %y[64] strides[1] : !tile.view<?xf32>
  %ov = tile.make_view %yi[264] strides[1] : !tile.view<?xi32>
  %o2 = tile.make_view %yi[33, 8] strides[8, 1] : !tile.view<?x?xi32>

  %t64 = tile.load %xv[0] : tensor<64xf32>
  %f = tile.scan add %t64 along 0 : tensor<64xf32>
  tile.store %f, %yv[0] : tensor<64xf32>

  %i64 = tile.load %iv[0] : tensor<64xi32>
  %a = tile.scan add %i64 along 0 : tensor<64xi32>
  %b = tile.scan add %i64 along 0 exclusive : tensor<64xi32>
  %c = tile.scan add %i64 along 0 reverse : tensor<64xi32>
  tile.store %a, %ov[0] : tensor<64xi32>
  tile.store %b, %ov[64] : tensor<64xi32>
  tile.store %c, %ov[128] : tensor<64xi32>
  %i16 = tile.load %iv[0] : tensor<16xi32>
  %d = tile.scan add %i16 along 0 : tensor<16xi32>
  %e = tile.scan add %i16 along 0 reverse : tensor<16xi32>
  tile.store %d, %ov[192] : tensor<16xi32>
  tile.store %e, %ov[208] : tensor<16xi32>
  %i4 = tile.load %iv[0] : tensor<4xi32, #wide>
  %g = tile.scan add %i4 along 0 : tensor<4xi32, #wide>
  tile.store %g, %ov[224] : tensor<4xi32, #wide>
  %t2 = tile.load %i2[0, 0] : tensor<4x8xi32>
  %h = tile.scan add %t2 along 1 : tensor<4x8xi32>
  tile.store %h, %o2[29, 0] : tensor<4x8xi32>
  return
}

// Scans of a 64x128 tile along its rows over 8 warps, where each column's
// 64 elements cross 8 repetitions of 8 warps: the chunk totals are combined
// line by line (one thread per column scans them). x[i][j] = xi[i] +
// j·(i + 1). yi: [0:8192) inclusive sums down each column, row-major,
// [8192:16384) exclusive, [16384:24576) reversed inclusive, [24576:24704)
// the column totals (from the scan's total).
func.func @scan_lines(%x: !tile.ptr<f32>, %xi: !tile.ptr<i32>,
    %y: !tile.ptr<f32>, %yi: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c1 = arith.constant 1 : i32
  // xi[i] repeated along the columns (column stride 0).
  %iv2 = tile.make_view %xi[64, 128] strides[1, 0] : !tile.view<?x?xi32>
  %ov = tile.make_view %yi[193, 128] strides[128, 1] : !tile.view<?x?xi32>
  %base = tile.load %iv2[0, 0] : tensor<64x128xi32>
  %i = tile.iota : tensor<64xi32>
  %iE = tile.expand_dims %i at 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rows = tile.broadcast %iE : tensor<64x1xi32> -> tensor<64x128xi32>
  %j = tile.iota : tensor<128xi32>
  %cols = tile.broadcast %j along 0 : tensor<128xi32> -> tensor<64x128xi32>
  %ones = tile.splat %c1 : tensor<64x128xi32>
  %rows1 = arith.addi %rows, %ones : tensor<64x128xi32>
  %step = arith.muli %cols, %rows1 : tensor<64x128xi32>
  %t = arith.addi %base, %step : tensor<64x128xi32>
  %a, %total = tile.scan add %t along 0 : tensor<64x128xi32> total tensor<128xi32>
  %b = tile.scan add %t along 0 exclusive : tensor<64x128xi32>
  %c = tile.scan add %t along 0 reverse : tensor<64x128xi32>
  tile.store %a, %ov[0, 0] : tensor<64x128xi32>
  tile.store %b, %ov[64, 0] : tensor<64x128xi32>
  tile.store %c, %ov[128, 0] : tensor<64x128xi32>
  %totalE = tile.expand_dims %total at 0 : tensor<128xi32> -> tensor<1x128xi32>
  tile.store %totalE, %ov[192, 0] : tensor<1x128xi32>
  return
}
