// REQUIRES: ptxas
// RUN: emit-ptx %s --target=sm_80 -o %t.sm80.ptx && %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: emit-ptx %s --target=sm_90a -o %t.sm90a.ptx && %ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin
// RUN: emit-ptx %s --target=sm_100a -o %t.sm100a.ptx && %ptxas -arch=sm_100a %t.sm100a.ptx -o %t.sm100a.cubin

// bf16 in, f32 math (exp through ex2.approx), bf16 out.
func.func @exp_rows(%x: !tile.ptr<bf16>, %rows: i32, %cols: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %row = tile.program_id x
  %v = tile.make_view %x[%rows, %cols] strides[%cols, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %t = tile.load %v[%row, %c0] : !tile.view<?x?xbf16> -> tensor<1x1024xbf16>
  %f = arith.extf %t : tensor<1x1024xbf16> to tensor<1x1024xf32>
  %e = math.exp %f : tensor<1x1024xf32>
  %b = arith.truncf %e : tensor<1x1024xf32> to tensor<1x1024xbf16>
  tile.store %b, %v[%row, %c0] : tensor<1x1024xbf16>, !tile.view<?x?xbf16>
  return
}
