// RUN: emit-ptx %s --target=sm_90a | FileCheck %s
// RUN: %if ptxas %{ emit-ptx %s --target=sm_90a -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// A staged epilogue (tile-stage-stores) in PTX: thread 0 waits until the
// previous bulk copy has read the buffer; every thread writes its bf16
// pairs into the swizzled boxes (4-byte stores) and fences them for the
// async proxy; after a barrier thread 0 copies each 128 x 64 box out with
// a bulk tensor store and commits them as one group; the program waits for
// the group before it exits.
// CHECK-LABEL: .entry bias_silu_residual
// CHECK: ex2.approx
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync 0;
// CHECK-COUNT-32: st.shared.v2.b16
// CHECK-NEXT: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.sync 0;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {{.*}}], [%r{{[0-9]+}}];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.commit_group;
// The unaligned path's plain stores.
// CHECK: st.global
// CHECK: cp.async.bulk.wait_group 0;
// CHECK: ret;
func.func @bias_silu_residual(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %bias: !tile.ptr<f32>, %res: !tile.ptr<f32>, %y: !tile.ptr<bf16>, %m: i32, %n: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%n, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vbias = tile.make_view %bias[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %vres = tile.make_view %res[%m, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %vy = tile.make_view %y[%m, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %px = tile.program_id x
  %py = tile.program_id y
  %row = arith.muli %py, %c128 : i32
  %col = arith.muli %px, %c128 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%row, %kk] : tensor<128x64xbf16>
    %tb = tile.load %vb[%col, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %bt = tile.load %vbias[%col] : tensor<128xf32>
  %be = tile.expand_dims %bt at 0 : tensor<128xf32> -> tensor<1x128xf32>
  %bb = tile.broadcast %be : tensor<1x128xf32> -> tensor<128x128xf32>
  %z = arith.addf %acc, %bb : tensor<128x128xf32>
  %nz = arith.negf %z : tensor<128x128xf32>
  %ez = math.exp %nz : tensor<128x128xf32>
  %one = arith.constant dense<1.0> : tensor<128x128xf32>
  %den = arith.addf %one, %ez : tensor<128x128xf32>
  %silu = arith.divf %z, %den : tensor<128x128xf32>
  %r = tile.load %vres[%row, %col] : tensor<128x128xf32>
  %o = arith.addf %silu, %r : tensor<128x128xf32>
  %t = arith.truncf %o : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %t, %vy[%row, %col] : tensor<128x128xbf16>
  return
}
