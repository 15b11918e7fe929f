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
  %t = tile.load %in[%row, %col] pad 0 : tensor<4x1024xi8>
  tile.store %t, %out[%row, %col] : tensor<4x1024xi8>
  return
}

// The same copy with one byte per thread along the rows: a warp's load
// then reads 32 consecutive bytes (one sector) however the row is
// aligned, where 16 bytes per thread, which cannot be one vector load from
// an unaligned row, make each of its 16 byte loads touch 16 sectors.
#bytes = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [4, 2],
                       order = [1, 0]>
func.func @pad_rows_bytes(%src: !tile.ptr<i8>, %dst: !tile.ptr<i8>,
                          %rows: i32, %cols: i32, %src_stride: i32,
                          %padded: i32)
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

// Bytes loaded as pad_rows_bytes loads them, then exchanged through shared
// memory so that each thread stores 16 consecutive bytes, one vector store
// into the 16-byte aligned padded rows.
#vec16 = #tile.blocked<size = [1, 16], threads = [1, 32], warps = [4, 2],
                       order = [1, 0]>
func.func @pad_rows_bytes_v16(%src: !tile.ptr<i8>, %dst: !tile.ptr<i8>,
                              %rows: i32, %cols: i32, %src_stride: i32,
                              %padded: i32)
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
  %v = tile.convert_layout %t
      : tensor<4x1024xi8, #bytes> -> tensor<4x1024xi8, #vec16>
  tile.store %v, %out[%row, %col] : tensor<4x1024xi8, #vec16>
  return
}
