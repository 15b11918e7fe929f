// Row-wise softmax of a row-major (rows, cols) matrix, fp32 math.
//
// Each program reads its rows once into registers and writes them once.
// How many rows a program takes depends on the row width, so that every
// width keeps 32 elements in each thread's registers and 64 KiB of loads in
// flight per SM (bf16 runs twice the threads and rows, capped at 64
// registers so two CTAs stay resident, to move as many bytes as f32):
//
//   cols <=  256:  32 rows per program (f32), 64 (bf16)
//   cols <= 1024:   8 rows,                    16
//   cols <= 4096:   2 rows,                     4
//   cols <= 8192:   1 row,                      2
//   wider:          1 row, two passes over 8192-wide chunks (an online
//                   max/sum that rescales the running sum when the max
//                   grows, then the normalization)
//
// runtime/softmax.cc launches ceil(rows / rows-per-program) programs.
// Padding lanes load -inf, which adds exp(-inf) = 0 to the sums; rows and
// columns outside the matrix are never stored.

func.func @softmax_f32(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32,
                    %cols: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c256 = arith.constant 256 : i32
  %c1024 = arith.constant 1024 : i32
  %c4096 = arith.constant 4096 : i32
  %c8192 = arith.constant 8192 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %pid = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %fits256 = arith.cmpi sle, %cols, %c256 : i32
  scf.if %fits256 {
    // 32 rows of up to 256 per program.
    %r0 = arith.muli %pid, %c32 : i32
    %t = tile.load %in[%r0, %c0] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<32x256xf32>
    %m = tile.reduce max %t along 1 : tensor<32x256xf32> -> tensor<32xf32>
    %me = tile.expand_dims %m at 1 : tensor<32xf32> -> tensor<32x1xf32>
    %mb = tile.broadcast %me : tensor<32x1xf32> -> tensor<32x256xf32>
    %d = arith.subf %t, %mb : tensor<32x256xf32>
    %e = math.exp %d : tensor<32x256xf32>
    %s = tile.reduce add %e along 1 : tensor<32x256xf32> -> tensor<32xf32>
    %ones = tile.splat %one : tensor<32xf32>
    %inv = arith.divf %ones, %s : tensor<32xf32>
    %ie = tile.expand_dims %inv at 1 : tensor<32xf32> -> tensor<32x1xf32>
    %ib = tile.broadcast %ie : tensor<32x1xf32> -> tensor<32x256xf32>
    %r = arith.mulf %e, %ib : tensor<32x256xf32>
    tile.store %r, %out[%r0, %c0] : tensor<32x256xf32>, !tile.view<?x?xf32>
  } else {
    %fits1024 = arith.cmpi sle, %cols, %c1024 : i32
    scf.if %fits1024 {
      // 8 rows of up to 1024 per program.
      %r0 = arith.muli %pid, %c8 : i32
      %t = tile.load %in[%r0, %c0] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<8x1024xf32>
      %m = tile.reduce max %t along 1 : tensor<8x1024xf32> -> tensor<8xf32>
      %me = tile.expand_dims %m at 1 : tensor<8xf32> -> tensor<8x1xf32>
      %mb = tile.broadcast %me : tensor<8x1xf32> -> tensor<8x1024xf32>
      %d = arith.subf %t, %mb : tensor<8x1024xf32>
      %e = math.exp %d : tensor<8x1024xf32>
      %s = tile.reduce add %e along 1 : tensor<8x1024xf32> -> tensor<8xf32>
      %ones = tile.splat %one : tensor<8xf32>
      %inv = arith.divf %ones, %s : tensor<8xf32>
      %ie = tile.expand_dims %inv at 1 : tensor<8xf32> -> tensor<8x1xf32>
      %ib = tile.broadcast %ie : tensor<8x1xf32> -> tensor<8x1024xf32>
      %r = arith.mulf %e, %ib : tensor<8x1024xf32>
      tile.store %r, %out[%r0, %c0] : tensor<8x1024xf32>, !tile.view<?x?xf32>
    } else {
      %fits4096 = arith.cmpi sle, %cols, %c4096 : i32
      scf.if %fits4096 {
        // 2 rows of up to 4096 per program.
        %r0 = arith.muli %pid, %c2 : i32
        %t = tile.load %in[%r0, %c0] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<2x4096xf32>
        %m = tile.reduce max %t along 1 : tensor<2x4096xf32> -> tensor<2xf32>
        %me = tile.expand_dims %m at 1 : tensor<2xf32> -> tensor<2x1xf32>
        %mb = tile.broadcast %me : tensor<2x1xf32> -> tensor<2x4096xf32>
        %d = arith.subf %t, %mb : tensor<2x4096xf32>
        %e = math.exp %d : tensor<2x4096xf32>
        %s = tile.reduce add %e along 1 : tensor<2x4096xf32> -> tensor<2xf32>
        %ones = tile.splat %one : tensor<2xf32>
        %inv = arith.divf %ones, %s : tensor<2xf32>
        %ie = tile.expand_dims %inv at 1 : tensor<2xf32> -> tensor<2x1xf32>
        %ib = tile.broadcast %ie : tensor<2x1xf32> -> tensor<2x4096xf32>
        %r = arith.mulf %e, %ib : tensor<2x4096xf32>
        tile.store %r, %out[%r0, %c0] : tensor<2x4096xf32>, !tile.view<?x?xf32>
      } else {
        %fits8192 = arith.cmpi sle, %cols, %c8192 : i32
        scf.if %fits8192 {
          // 1 row of up to 8192 per program.
          %r0 = arith.muli %pid, %c1 : i32
          %t = tile.load %in[%r0, %c0] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<1x8192xf32>
          %m = tile.reduce max %t along 1 : tensor<1x8192xf32> -> tensor<1xf32>
          %me = tile.expand_dims %m at 1 : tensor<1xf32> -> tensor<1x1xf32>
          %mb = tile.broadcast %me : tensor<1x1xf32> -> tensor<1x8192xf32>
          %d = arith.subf %t, %mb : tensor<1x8192xf32>
          %e = math.exp %d : tensor<1x8192xf32>
          %s = tile.reduce add %e along 1 : tensor<1x8192xf32> -> tensor<1xf32>
          %ones = tile.splat %one : tensor<1xf32>
          %inv = arith.divf %ones, %s : tensor<1xf32>
          %ie = tile.expand_dims %inv at 1 : tensor<1xf32> -> tensor<1x1xf32>
          %ib = tile.broadcast %ie : tensor<1x1xf32> -> tensor<1x8192xf32>
          %r = arith.mulf %e, %ib : tensor<1x8192xf32>
          tile.store %r, %out[%r0, %c0] : tensor<1x8192xf32>, !tile.view<?x?xf32>
        } else {
          // Wider rows: online max/sum over 8192-wide chunks, then normalize.
          %stats:2 = scf.for %j = %c0 to %cols step %c8192
              iter_args(%m = %ninf, %s = %zero) -> (f32, f32) : i32 {
            %t = tile.load %in[%pid, %j] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<1x8192xf32>
            %cr = tile.reduce max %t along 1 : tensor<1x8192xf32> -> tensor<1xf32>
            %cm = tile.reduce max %cr along 0 : tensor<1xf32> -> f32
            %nm = arith.maximumf %m, %cm : f32
            %mt = tile.splat %nm : tensor<1x8192xf32>
            %d = arith.subf %t, %mt : tensor<1x8192xf32>
            %e = math.exp %d : tensor<1x8192xf32>
            %er = tile.reduce add %e along 1 : tensor<1x8192xf32> -> tensor<1xf32>
            %es = tile.reduce add %er along 0 : tensor<1xf32> -> f32
            %dm = arith.subf %m, %nm : f32
            %scale = math.exp %dm : f32
            %rescaled = arith.mulf %s, %scale : f32
            %ns = arith.addf %rescaled, %es : f32
            scf.yield %nm, %ns : f32, f32
          }
          %inv = arith.divf %one, %stats#1 : f32
          %mt = tile.splat %stats#0 : tensor<1x8192xf32>
          %invt = tile.splat %inv : tensor<1x8192xf32>
          scf.for %j = %c0 to %cols step %c8192 : i32 {
            %t = tile.load %in[%pid, %j] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<1x8192xf32>
            %d = arith.subf %t, %mt : tensor<1x8192xf32>
            %e = math.exp %d : tensor<1x8192xf32>
            %r = arith.mulf %e, %invt : tensor<1x8192xf32>
            tile.store %r, %out[%pid, %j] : tensor<1x8192xf32>, !tile.view<?x?xf32>
          }
        }
      }
    }
  }
  return
}

func.func @softmax_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %rows: i32,
                     %cols: i32)
    attributes {tile.kernel, tile.num_warps = 16 : i32, tile.max_registers = 64 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %c1024 = arith.constant 1024 : i32
  %c4096 = arith.constant 4096 : i32
  %c8192 = arith.constant 8192 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %pid = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %fits256 = arith.cmpi sle, %cols, %c256 : i32
  scf.if %fits256 {
    // 64 rows of up to 256 per program.
    %r0 = arith.muli %pid, %c64 : i32
    %tb = tile.load %in[%r0, %c0] pad 0xFF80 : bf16 : !tile.view<?x?xbf16> -> tensor<64x256xbf16>
    %t = arith.extf %tb : tensor<64x256xbf16> to tensor<64x256xf32>
    %m = tile.reduce max %t along 1 : tensor<64x256xf32> -> tensor<64xf32>
    %me = tile.expand_dims %m at 1 : tensor<64xf32> -> tensor<64x1xf32>
    %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x256xf32>
    %d = arith.subf %t, %mb : tensor<64x256xf32>
    %e = math.exp %d : tensor<64x256xf32>
    %s = tile.reduce add %e along 1 : tensor<64x256xf32> -> tensor<64xf32>
    %ones = tile.splat %one : tensor<64xf32>
    %inv = arith.divf %ones, %s : tensor<64xf32>
    %ie = tile.expand_dims %inv at 1 : tensor<64xf32> -> tensor<64x1xf32>
    %ib = tile.broadcast %ie : tensor<64x1xf32> -> tensor<64x256xf32>
    %r = arith.mulf %e, %ib : tensor<64x256xf32>
    %rb = arith.truncf %r : tensor<64x256xf32> to tensor<64x256xbf16>
    tile.store %rb, %out[%r0, %c0] : tensor<64x256xbf16>, !tile.view<?x?xbf16>
  } else {
    %fits1024 = arith.cmpi sle, %cols, %c1024 : i32
    scf.if %fits1024 {
      // 16 rows of up to 1024 per program.
      %r0 = arith.muli %pid, %c16 : i32
      %tb = tile.load %in[%r0, %c0] pad 0xFF80 : bf16 : !tile.view<?x?xbf16> -> tensor<16x1024xbf16>
      %t = arith.extf %tb : tensor<16x1024xbf16> to tensor<16x1024xf32>
      %m = tile.reduce max %t along 1 : tensor<16x1024xf32> -> tensor<16xf32>
      %me = tile.expand_dims %m at 1 : tensor<16xf32> -> tensor<16x1xf32>
      %mb = tile.broadcast %me : tensor<16x1xf32> -> tensor<16x1024xf32>
      %d = arith.subf %t, %mb : tensor<16x1024xf32>
      %e = math.exp %d : tensor<16x1024xf32>
      %s = tile.reduce add %e along 1 : tensor<16x1024xf32> -> tensor<16xf32>
      %ones = tile.splat %one : tensor<16xf32>
      %inv = arith.divf %ones, %s : tensor<16xf32>
      %ie = tile.expand_dims %inv at 1 : tensor<16xf32> -> tensor<16x1xf32>
      %ib = tile.broadcast %ie : tensor<16x1xf32> -> tensor<16x1024xf32>
      %r = arith.mulf %e, %ib : tensor<16x1024xf32>
      %rb = arith.truncf %r : tensor<16x1024xf32> to tensor<16x1024xbf16>
      tile.store %rb, %out[%r0, %c0] : tensor<16x1024xbf16>, !tile.view<?x?xbf16>
    } else {
      %fits4096 = arith.cmpi sle, %cols, %c4096 : i32
      scf.if %fits4096 {
        // 4 rows of up to 4096 per program.
        %r0 = arith.muli %pid, %c4 : i32
        %tb = tile.load %in[%r0, %c0] pad 0xFF80 : bf16 : !tile.view<?x?xbf16> -> tensor<4x4096xbf16>
        %t = arith.extf %tb : tensor<4x4096xbf16> to tensor<4x4096xf32>
        %m = tile.reduce max %t along 1 : tensor<4x4096xf32> -> tensor<4xf32>
        %me = tile.expand_dims %m at 1 : tensor<4xf32> -> tensor<4x1xf32>
        %mb = tile.broadcast %me : tensor<4x1xf32> -> tensor<4x4096xf32>
        %d = arith.subf %t, %mb : tensor<4x4096xf32>
        %e = math.exp %d : tensor<4x4096xf32>
        %s = tile.reduce add %e along 1 : tensor<4x4096xf32> -> tensor<4xf32>
        %ones = tile.splat %one : tensor<4xf32>
        %inv = arith.divf %ones, %s : tensor<4xf32>
        %ie = tile.expand_dims %inv at 1 : tensor<4xf32> -> tensor<4x1xf32>
        %ib = tile.broadcast %ie : tensor<4x1xf32> -> tensor<4x4096xf32>
        %r = arith.mulf %e, %ib : tensor<4x4096xf32>
        %rb = arith.truncf %r : tensor<4x4096xf32> to tensor<4x4096xbf16>
        tile.store %rb, %out[%r0, %c0] : tensor<4x4096xbf16>, !tile.view<?x?xbf16>
      } else {
        %fits8192 = arith.cmpi sle, %cols, %c8192 : i32
        scf.if %fits8192 {
          // 2 rows of up to 8192 per program.
          %r0 = arith.muli %pid, %c2 : i32
          %tb = tile.load %in[%r0, %c0] pad 0xFF80 : bf16 : !tile.view<?x?xbf16> -> tensor<2x8192xbf16>
          %t = arith.extf %tb : tensor<2x8192xbf16> to tensor<2x8192xf32>
          %m = tile.reduce max %t along 1 : tensor<2x8192xf32> -> tensor<2xf32>
          %me = tile.expand_dims %m at 1 : tensor<2xf32> -> tensor<2x1xf32>
          %mb = tile.broadcast %me : tensor<2x1xf32> -> tensor<2x8192xf32>
          %d = arith.subf %t, %mb : tensor<2x8192xf32>
          %e = math.exp %d : tensor<2x8192xf32>
          %s = tile.reduce add %e along 1 : tensor<2x8192xf32> -> tensor<2xf32>
          %ones = tile.splat %one : tensor<2xf32>
          %inv = arith.divf %ones, %s : tensor<2xf32>
          %ie = tile.expand_dims %inv at 1 : tensor<2xf32> -> tensor<2x1xf32>
          %ib = tile.broadcast %ie : tensor<2x1xf32> -> tensor<2x8192xf32>
          %r = arith.mulf %e, %ib : tensor<2x8192xf32>
          %rb = arith.truncf %r : tensor<2x8192xf32> to tensor<2x8192xbf16>
          tile.store %rb, %out[%r0, %c0] : tensor<2x8192xbf16>, !tile.view<?x?xbf16>
        } else {
          // Wider rows: online max/sum over 8192-wide chunks, then normalize.
          %stats:2 = scf.for %j = %c0 to %cols step %c8192
              iter_args(%m = %ninf, %s = %zero) -> (f32, f32) : i32 {
            %tb = tile.load %in[%pid, %j] pad 0xFF80 : bf16 : !tile.view<?x?xbf16> -> tensor<1x8192xbf16>
            %t = arith.extf %tb : tensor<1x8192xbf16> to tensor<1x8192xf32>
            %cr = tile.reduce max %t along 1 : tensor<1x8192xf32> -> tensor<1xf32>
            %cm = tile.reduce max %cr along 0 : tensor<1xf32> -> f32
            %nm = arith.maximumf %m, %cm : f32
            %mt = tile.splat %nm : tensor<1x8192xf32>
            %d = arith.subf %t, %mt : tensor<1x8192xf32>
            %e = math.exp %d : tensor<1x8192xf32>
            %er = tile.reduce add %e along 1 : tensor<1x8192xf32> -> tensor<1xf32>
            %es = tile.reduce add %er along 0 : tensor<1xf32> -> f32
            %dm = arith.subf %m, %nm : f32
            %scale = math.exp %dm : f32
            %rescaled = arith.mulf %s, %scale : f32
            %ns = arith.addf %rescaled, %es : f32
            scf.yield %nm, %ns : f32, f32
          }
          %inv = arith.divf %one, %stats#1 : f32
          %mt = tile.splat %stats#0 : tensor<1x8192xf32>
          %invt = tile.splat %inv : tensor<1x8192xf32>
          scf.for %j = %c0 to %cols step %c8192 : i32 {
            %tb = tile.load %in[%pid, %j] pad 0xFF80 : bf16 : !tile.view<?x?xbf16> -> tensor<1x8192xbf16>
            %t = arith.extf %tb : tensor<1x8192xbf16> to tensor<1x8192xf32>
            %d = arith.subf %t, %mt : tensor<1x8192xf32>
            %e = math.exp %d : tensor<1x8192xf32>
            %r = arith.mulf %e, %invt : tensor<1x8192xf32>
            %rb = arith.truncf %r : tensor<1x8192xf32> to tensor<1x8192xbf16>
            tile.store %rb, %out[%pid, %j] : tensor<1x8192xbf16>, !tile.view<?x?xbf16>
          }
        }
      }
    }
  }
  return
}
