// Row-wise softmax of a row-major (rows, cols) matrix of T (f32 or bf16),
// fp32 math.
//
// Each program reads its rows once into registers and writes them once.
// How many rows R a program takes depends on the row width C, so that
// every width keeps 32 elements in each thread's registers and 64 KiB of
// loads in flight per SM (bf16 runs twice the threads and rows, capped at
// 64 registers so two CTAs stay resident, to move as many bytes as f32):
//
//   cols <=  256:  32 rows per program (f32), 64 (bf16)
//   cols <= 1024:   8 rows,                    16
//   cols <= 4096:   2 rows,                     4
//   cols <= 8192:   1 row,                      2
//   wider:          1 row, two passes over 8192-wide chunks (an online
//                   max/sum that rescales the running sum when the max
//                   grows, then the normalization): @softmax_wide
//
// softmax_bf16_c256 takes no griddepcontrol (tile.dependent_launch =
// false): on sm_100a the wait costs it the 64th register and ptxas spills.
//
// runtime/softmax.cc picks the instance for the width and launches
// ceil(rows / R) programs. Padding lanes load -inf, which adds
// exp(-inf) = 0 to the sums; rows and columns outside the matrix are never
// stored. For T = f32 the widening and narrowing conversions vanish.

!in = tensor<64x256xbf16, #tile.sym<[R, C]>>
!rows = tensor<64x256xf32, #tile.sym<[R, C]>>
!col = tensor<64xf32, #tile.sym<[R]>>

func.func @softmax(%x: !tile.ptr<bf16> {tile.elem = "T"},
                   %y: !tile.ptr<bf16> {tile.elem = "T"},
                   %rows: i32, %cols: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {T = bf16, R = 64, C = 256},
                tile.instances = {
                  softmax_f32_c256 = {T = f32, R = 32, C = 256},
                  softmax_f32_c1024 = {T = f32, R = 8, C = 1024},
                  softmax_f32_c4096 = {T = f32, R = 2, C = 4096},
                  softmax_f32_c8192 = {T = f32, R = 1, C = 8192},
                  softmax_bf16_c256 = {R = 64, C = 256, "tile.num_warps" = 16,
                                       "tile.max_registers" = 64,
                                       "tile.dependent_launch" = false},
                  softmax_bf16_c1024 = {R = 16, C = 1024, "tile.num_warps" = 16,
                                        "tile.max_registers" = 64},
                  softmax_bf16_c4096 = {R = 4, C = 4096, "tile.num_warps" = 16,
                                        "tile.max_registers" = 64},
                  softmax_bf16_c8192 = {R = 2, C = 8192, "tile.num_warps" = 16,
                                        "tile.max_registers" = 64}}} {
  %R = tile.param "R" : i32
  %pid = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, 1] : !tile.view<?x?xbf16>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, 1] : !tile.view<?x?xbf16>
  %r0 = arith.muli %pid, %R : i32
  %tb = tile.load %in[%r0, 0] pad -inf : !in
  %t = arith.extf %tb : !in to !rows
  %m = tile.reduce max %t along 1 : !rows
  %mb = tile.broadcast %m along 1 : !col -> !rows
  %d = arith.subf %t, %mb : !rows
  %e = math.exp %d : !rows
  %s = tile.reduce add %e along 1 : !rows
  %sb = tile.broadcast %s along 1 : !col -> !rows
  %r = arith.divf %e, %sb : !rows
  %rb = arith.truncf %r {tile.elem = "T"} : !rows to !in
  tile.store %rb, %out[%r0, 0] : !in
  return
}

!chunk_in = tensor<1x8192xbf16>
!chunk = tensor<1x8192xf32>

func.func @softmax_wide(%x: !tile.ptr<bf16> {tile.elem = "T"},
                        %y: !tile.ptr<bf16> {tile.elem = "T"},
                        %rows: i32, %cols: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {T = bf16},
                tile.instances = {
                  softmax_f32_wide = {T = f32},
                  softmax_bf16_wide = {"tile.num_warps" = 16,
                                       "tile.max_registers" = 64}}} {
  %c0 = arith.constant 0 : i32
  %c8192 = arith.constant 8192 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %pid = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, 1] : !tile.view<?x?xbf16>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, 1] : !tile.view<?x?xbf16>
  // Online max and sum over 8192-wide chunks.
  %stats:2 = scf.for %j = %c0 to %cols step %c8192
      iter_args(%m = %ninf, %s = %zero) -> (f32, f32) : i32 {
    %tb = tile.load %in[%pid, %j] pad -inf : !chunk_in
    %t = arith.extf %tb : !chunk_in to !chunk
    %cr = tile.reduce max %t along 1 : !chunk
    %cm = tile.reduce max %cr along 0 : tensor<1xf32>
    %nm = arith.maximumf %m, %cm : f32
    %mt = tile.splat %nm : !chunk
    %d = arith.subf %t, %mt : !chunk
    %e = math.exp %d : !chunk
    %er = tile.reduce add %e along 1 : !chunk
    %es = tile.reduce add %er along 0 : tensor<1xf32>
    %dm = arith.subf %m, %nm : f32
    %scale = math.exp %dm : f32
    %rescaled = arith.mulf %s, %scale : f32
    %ns = arith.addf %rescaled, %es : f32
    scf.yield %nm, %ns : f32, f32
  }
  // Normalization.
  %mt = tile.splat %stats#0 : !chunk
  %st = tile.splat %stats#1 : !chunk
  scf.for %j = %c0 to %cols step %c8192 : i32 {
    %tb = tile.load %in[%pid, %j] pad -inf : !chunk_in
    %t = arith.extf %tb : !chunk_in to !chunk
    %d = arith.subf %t, %mt : !chunk
    %e = math.exp %d : !chunk
    %r = arith.divf %e, %st : !chunk
    %rb = arith.truncf %r {tile.elem = "T"} : !chunk to !chunk_in
    tile.store %rb, %out[%pid, %j] : !chunk_in
  }
  return
}
