// y = bf16(float(x @ w^T) * scale), fp32 accumulation.
//
// x is (M, K) and w is (N, K), both row-major (K-major); scale is (N,) f32,
// one factor per output column (per weight row); y is (M, N) bf16, row-major.
// Program (n, m) of a grid of (ceil(N / 128), ceil(M / 128)) computes the
// 128 x 128 output tile at (128 m, 128 n): a loop over K in steps of 64
// (bf16) or 128 (fp8) elements loads a tile of x and of w, and multiplies
// x by the transpose of w into the accumulator. Loads outside the matrices
// read zero, so any M, N, K >= 1 works (a ragged K tail adds zeros); stores
// outside y are dropped.
//
// The passes choose where the operands go and which tensor-core
// instruction multiplies them (mma.sync m16n8k16 for bf16, m16n8k32 for
// fp8 from sm_89 on; fp8 widened to bf16 on sm_80); the accumulator stays
// in registers for the scale and the cast.

func.func @gemm_bf16(%x: !tile.ptr<bf16>, %w: !tile.ptr<bf16>,
                     %scale: !tile.ptr<f32>, %y: !tile.ptr<bf16>,
                     %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %col = arith.muli %n0, %c128 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %sv = tile.make_view %scale[%N] strides[%c1]
      : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero)
      -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %wt = tile.load %wv[%col, %k] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.transpose %wt : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %xt, %b, %a : tensor<128x64xbf16>, tensor<64x128xbf16>
        -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = tile.load %sv[%col] : !tile.view<?xf32> -> tensor<128xf32>
  %se = tile.expand_dims %s at 0 : tensor<128xf32> -> tensor<1x128xf32>
  %sb = tile.broadcast %se : tensor<1x128xf32> -> tensor<128x128xf32>
  %scaled = arith.mulf %acc, %sb : tensor<128x128xf32>
  %out = arith.truncf %scaled : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %yv[%row, %col] : tensor<128x128xbf16>, !tile.view<?x?xbf16>
  return
}

func.func @gemm_fp8(%x: !tile.ptr<f8E4M3FN>, %w: !tile.ptr<f8E4M3FN>,
                    %scale: !tile.ptr<f32>, %y: !tile.ptr<bf16>,
                    %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c128 = arith.constant 128 : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %c128 : i32
  %col = arith.muli %n0, %c128 : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, %c1]
      : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %wv = tile.make_view %w[%N, %K] strides[%K, %c1]
      : !tile.ptr<f8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %sv = tile.make_view %scale[%N] strides[%c1]
      : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%M, %N] strides[%N, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%a = %zero)
      -> (tensor<128x128xf32>) : i32 {
    %xt = tile.load %xv[%row, %k]
        : !tile.view<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %wt = tile.load %wv[%col, %k]
        : !tile.view<?x?xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %b = tile.transpose %wt
        : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %d = tile.dot %xt, %b, %a
        : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>
        -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = tile.load %sv[%col] : !tile.view<?xf32> -> tensor<128xf32>
  %se = tile.expand_dims %s at 0 : tensor<128xf32> -> tensor<1x128xf32>
  %sb = tile.broadcast %se : tensor<1x128xf32> -> tensor<128x128xf32>
  %scaled = arith.mulf %acc, %sb : tensor<128x128xf32>
  %out = arith.truncf %scaled : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %yv[%row, %col] : tensor<128x128xbf16>, !tile.view<?x?xbf16>
  return
}
