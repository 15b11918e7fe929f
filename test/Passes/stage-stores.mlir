// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-stage-stores=target=sm_90a -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_80 -canonicalize -tile-stage-stores=target=sm_80 | FileCheck %s --check-prefix=SM80

// A GEMM epilogue other than the fp8 kernel's: bias, SiLU and a residual
// added to the accumulator in its registers, then the bf16 tile goes out
// through shared memory: on aligned views, written as two 128 x 64 boxes
// (128-byte rows under the 128-byte swizzle) and copied by TMA; the plain
// store stays for views TMA cannot describe. The program waits for its
// copies before it returns.
// CHECK-LABEL: func.func @bias_silu_residual
// CHECK: %[[ROW:.*]] = arith.muli
// CHECK: %[[COL:.*]] = arith.muli
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: %[[OUT:.*]] = arith.truncf {{.*}} to tensor<128x128xbf16, #mma>
// CHECK-NEXT: %[[BUF:.*]] = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
// CHECK-NEXT: %[[MAP:.*]] = tile.make_tensor_map %[[VY:.*]] : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>
// CHECK-NEXT: %[[OK:.*]] = tile.view_aligned %[[VY]]
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT:   tile.tma_store_wait 0 read
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.store_boxes %[[OUT]], %[[BUF]] column 0
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.tma_store %[[MAP]][%[[ROW]], %[[COL]]], %[[BUF]]
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.store %[[OUT]], %[[VY]][%[[ROW]], %[[COL]]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.tma_store_wait 0
// CHECK-NEXT: return
// sm_80 has no TMA: the store stays.
// SM80-LABEL: func.func @bias_silu_residual
// SM80-NOT: tile.tma_store
// SM80: tile.store
// SM80-NOT: tile.tma_store
// SM80: return
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

// -----

// A 128 x 256 bf16 tile is 64 KiB of boxes: it goes out in two chunks of
// two boxes through one 32 KiB buffer, the second after the first copy
// has read it.
// CHECK-LABEL: func.func @wide
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: %[[BUF:.*]] = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
// CHECK: scf.if
// CHECK-NEXT: tile.tma_store_wait 0 read
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store_boxes %{{.*}}, %[[BUF]] column 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.tma_store %{{.*}}[%{{.*}}, %[[COL:.*]]], %[[BUF]]
// CHECK-NEXT: tile.tma_store_wait 0 read
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store_boxes %{{.*}}, %[[BUF]] column 128
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[COL2:.*]] = arith.addi %[[COL]], %[[C128]]
// CHECK-NEXT: tile.tma_store %{{.*}}[%{{.*}}, %[[COL2]]], %[[BUF]]
func.func @wide(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %m: i32, %n: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%n, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vy = tile.make_view %y[%m, %n] strides[%n, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %px = tile.program_id x
  %col = arith.muli %px, %c256 : i32
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : tensor<128x64xbf16>
    %tb = tile.load %vb[%col, %kk] : tensor<256x64xbf16>
    %tbt = tile.transpose %tb : tensor<256x64xbf16> -> tensor<64x256xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %t = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %t, %vy[%c0, %col] : tensor<128x256xbf16>
  return
}

// -----

// Stores that stay: a tile not in an accumulator layout, a masked store,
// and a view whose base is computed in the kernel (no tensor map can be
// encoded for it at launch).
// CHECK-LABEL: func.func @not_staged
// CHECK-NOT: tile.tma_store
// CHECK-NOT: tile.alloc_shared
// CHECK: return
func.func @not_staged(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %va = tile.make_view %a[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vb = tile.make_view %b[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %vy = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %shifted = tile.addptr %y, %m : !tile.ptr<bf16>, i32
  %vs = tile.make_view %shifted[%m, %m] strides[%m, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %va[%c0, %kk] : tensor<128x64xbf16>
    %tb = tile.load %vb[%c0, %kk] : tensor<128x64xbf16>
    %tbt = tile.transpose %tb : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tbt, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %t = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  %copy = tile.load %va[%c0, %c0] : tensor<128x128xbf16>
  tile.store %copy, %vy[%c0, %c0] : tensor<128x128xbf16>
  %iota = tile.iota : tensor<128xi32>
  %ie = tile.expand_dims %iota at 0 : tensor<128xi32> -> tensor<1x128xi32>
  %ib = tile.broadcast %ie : tensor<1x128xi32> -> tensor<128x128xi32>
  %lim = tile.splat %m : tensor<128x128xi32>
  %mask = arith.cmpi slt, %ib, %lim : tensor<128x128xi32>
  tile.store %t, %vy[%c0, %c0] mask %mask : tensor<128x128xbf16>
  tile.store %t, %vs[%c0, %c0] : tensor<128x128xbf16>
  return
}
