// Row-wise softmax of a row-major (rows, cols) matrix: one program per row.
//
// Rows of up to 8192 elements are read once into registers (one tile) and
// written once. Longer rows take two passes over 8192-element chunks: an
// online max/sum (rescaling the running sum when the max grows), then the
// normalization. Math is fp32; the bf16 kernel converts on load and store.

func.func @softmax_f32(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32,
                       %cols: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %chunk = arith.constant 8192 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %row = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %fits = arith.cmpi sle, %cols, %chunk : i32
  scf.if %fits {
    %t = tile.load %in[%row, %c0] pad 0xFF800000 : f32
        : !tile.view<?x?xf32> -> tensor<1x8192xf32>
    %mr = tile.reduce max %t along 1 : tensor<1x8192xf32> -> tensor<1xf32>
    %m = tile.reduce max %mr along 0 : tensor<1xf32> -> f32
    %mt = tile.splat %m : tensor<1x8192xf32>
    %d = arith.subf %t, %mt : tensor<1x8192xf32>
    %e = math.exp %d : tensor<1x8192xf32>
    %sr = tile.reduce add %e along 1 : tensor<1x8192xf32> -> tensor<1xf32>
    %s = tile.reduce add %sr along 0 : tensor<1xf32> -> f32
    %inv = arith.divf %one, %s : f32
    %invt = tile.splat %inv : tensor<1x8192xf32>
    %r = arith.mulf %e, %invt : tensor<1x8192xf32>
    tile.store %r, %out[%row, %c0] : tensor<1x8192xf32>, !tile.view<?x?xf32>
  } else {
    %stats:2 = scf.for %j = %c0 to %cols step %chunk
        iter_args(%m = %ninf, %s = %zero) -> (f32, f32) : i32 {
      %t = tile.load %in[%row, %j] pad 0xFF800000 : f32
          : !tile.view<?x?xf32> -> tensor<1x8192xf32>
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
    scf.for %j = %c0 to %cols step %chunk : i32 {
      %t = tile.load %in[%row, %j] pad 0xFF800000 : f32
          : !tile.view<?x?xf32> -> tensor<1x8192xf32>
      %d = arith.subf %t, %mt : tensor<1x8192xf32>
      %e = math.exp %d : tensor<1x8192xf32>
      %r = arith.mulf %e, %invt : tensor<1x8192xf32>
      tile.store %r, %out[%row, %j] : tensor<1x8192xf32>, !tile.view<?x?xf32>
    }
  }
  return
}

func.func @softmax_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %rows: i32,
                        %cols: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %chunk = arith.constant 8192 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %row = tile.program_id x
  %in = tile.make_view %x[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %out = tile.make_view %y[%rows, %cols] strides[%cols, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %fits = arith.cmpi sle, %cols, %chunk : i32
  scf.if %fits {
    %tb = tile.load %in[%row, %c0] pad 0xFF80 : bf16
        : !tile.view<?x?xbf16> -> tensor<1x8192xbf16>
    %t = arith.extf %tb : tensor<1x8192xbf16> to tensor<1x8192xf32>
    %mr = tile.reduce max %t along 1 : tensor<1x8192xf32> -> tensor<1xf32>
    %m = tile.reduce max %mr along 0 : tensor<1xf32> -> f32
    %mt = tile.splat %m : tensor<1x8192xf32>
    %d = arith.subf %t, %mt : tensor<1x8192xf32>
    %e = math.exp %d : tensor<1x8192xf32>
    %sr = tile.reduce add %e along 1 : tensor<1x8192xf32> -> tensor<1xf32>
    %s = tile.reduce add %sr along 0 : tensor<1xf32> -> f32
    %inv = arith.divf %one, %s : f32
    %invt = tile.splat %inv : tensor<1x8192xf32>
    %r = arith.mulf %e, %invt : tensor<1x8192xf32>
    %rb = arith.truncf %r : tensor<1x8192xf32> to tensor<1x8192xbf16>
    tile.store %rb, %out[%row, %c0] : tensor<1x8192xbf16>, !tile.view<?x?xbf16>
  } else {
    %stats:2 = scf.for %j = %c0 to %cols step %chunk
        iter_args(%m = %ninf, %s = %zero) -> (f32, f32) : i32 {
      %tb = tile.load %in[%row, %j] pad 0xFF80 : bf16
          : !tile.view<?x?xbf16> -> tensor<1x8192xbf16>
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
    scf.for %j = %c0 to %cols step %chunk : i32 {
      %tb = tile.load %in[%row, %j] pad 0xFF80 : bf16
          : !tile.view<?x?xbf16> -> tensor<1x8192xbf16>
      %t = arith.extf %tb : tensor<1x8192xbf16> to tensor<1x8192xf32>
      %d = arith.subf %t, %mt : tensor<1x8192xf32>
      %e = math.exp %d : tensor<1x8192xf32>
      %r = arith.mulf %e, %invt : tensor<1x8192xf32>
      %rb = arith.truncf %r : tensor<1x8192xf32> to tensor<1x8192xbf16>
      tile.store %rb, %out[%row, %j] : tensor<1x8192xbf16>, !tile.view<?x?xbf16>
    }
  }
  return
}
