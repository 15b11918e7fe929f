// Copies a row-major matrix of `rows` rows of `cols` bytes, rows
// `src_stride` bytes apart, into rows of `padded` bytes (zeros past
// `cols`), rows `padded` bytes apart.
//
// The GEMM entry point uses it when the operands' rows are not 16-byte
// aligned (K = 4127): tensor cores then read the padded copies through TMA,
// which is far faster than element loads inside the GEMM's K loop, and the
// zero columns add nothing to the products. Program (r, c) of a grid of
// (ceil(rows / 4), ceil(padded / 1024)) copies the 4 x 1024-byte tile at
// (4 r, 1024 c); the loads past `cols` read the padding zeros.
//
// One byte per thread along the rows: a warp's load reads 32 consecutive
// bytes however the row is aligned. With 16 bytes per thread (the default
// layout), which an unaligned row cannot load as one vector, each of a
// thread's 16 byte loads touched 16 sectors per warp: 4-6% slower on the
// GEMM's operands (bench/pad_rows_variants.py at 02248f2, bench/RESULTS.md).
#bytes = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [4, 2],
                       order = [1, 0]>
func.func @pad_rows(%src: !tile.ptr<i8>, %dst: !tile.ptr<i8>, %rows: i32,
                    %cols: i32, %src_stride: i32, %padded: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c4 = arith.constant 4 : i32
  %c1024 = arith.constant 1024 : i32
  %rb = tile.program_id x
  %cb = tile.program_id y
  %row = arith.muli %rb, %c4 : i32
  %col = arith.muli %cb, %c1024 : i32
  %in = tile.make_view %src[%rows, %cols] strides[%src_stride, 1]
      : !tile.view<?x?xi8>
  %out = tile.make_view %dst[%rows, %padded] strides[%padded, 1]
      : !tile.view<?x?xi8>
  %t = tile.load %in[%row, %col] pad 0 : tensor<4x1024xi8, #bytes>
  tile.store %t, %out[%row, %col] : tensor<4x1024xi8, #bytes>
  return
}
