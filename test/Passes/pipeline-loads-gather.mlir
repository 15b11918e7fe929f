// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -canonicalize -tile-pipeline-loads=num-stages=3 -canonicalize -cse | FileCheck %s
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_80 -canonicalize -tile-pipeline-loads -canonicalize -cse | FileCheck %s --check-prefix=S4

// Paged attention's inner loop: per 64-token step, the page of each token
// is read from a page table (a gather of i32s), K and V rows are gathered
// through it. K is gathered as N rows of K and transposed (Q·Kᵀ's B); V as
// K rows of N, straight into P·V's B. Both gathers become tile.async_gather
// into one cp.async ring of 3 stages (64 rows of 128 bytes each: 128-byte
// swizzle), copies two iterations ahead of the dots (mma.sync dots are
// synchronous). The page-table read runs one iteration further ahead:
// the prologue reads the pages of iterations 0, 1 and 2 before its first
// copy; iteration i reads those of i + 3 (iv + 192) and carries them to
// the next iteration, whose copies (of i + 3) use them without waiting.
// The dots read the stages in place.
// CHECK-LABEL: func.func @paged
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : i32
// CHECK: %[[RK:.*]] = tile.alloc_shared : !tile.smem<3x64x64xbf16, #tile.swizzle<128>>
// CHECK-NEXT: %[[RV:.*]] = tile.alloc_shared : !tile.smem<3x64x64xbf16, #tile.swizzle<128>>
// Prologue: the pages of iterations 0, 1, 2, then iterations 0 and 1 into
// stages 0 and 1, one group each.
// CHECK: tile.gather %{{.*}} : !tile.view<?x?xi32>
// CHECK: tile.gather %{{.*}} : !tile.view<?x?xi32>
// CHECK: %[[PAGES2:.*]] = tile.gather %{{.*}} : !tile.view<?x?xi32>
// CHECK-NOT: tile.gather
// CHECK: tile.async_gather %[[KV:.*]][%[[ROWS0:.*]], %[[COLK:.*]]], %[[RK]][%[[C0]]]
// CHECK-NEXT: tile.async_gather %[[KV]][%[[ROWS0]], %[[COLV:.*]]], %[[RV]][%[[C0]]]
// CHECK-NEXT: tile.async_commit
// CHECK-NOT: tile.gather
// CHECK: tile.async_gather %[[KV]][%[[ROWS1:.*]], %[[COLK]]], %[[RK]][%[[C1]]]
// CHECK-NEXT: tile.async_gather %[[KV]][%[[ROWS1]], %[[COLV]]], %[[RV]][%[[C1]]]
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: scf.for %[[IV:[a-z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PAGES:.*]] = %[[PAGES2]])
// CHECK-NEXT:   %[[IT:.*]] = arith.divui %[[IV]], %[[C64]]
// CHECK-NEXT:   %[[READ:.*]] = arith.remui %[[IT]], %[[C3]]
// CHECK-NEXT:   %[[IT2:.*]] = arith.addi %[[IT]], %{{.*}}
// CHECK-NEXT:   %[[WRITE:.*]] = arith.remui %[[IT2]], %[[C3]]
// CHECK:        %[[FURTHER:.*]] = arith.addi %[[IV]], %[[C192]]
// CHECK-NEXT:   tile.splat %[[FURTHER]]
// CHECK:        %[[NEXTPAGES:.*]] = tile.gather %{{.*}} : !tile.view<?x?xi32>
// CHECK-NOT:    tile.gather
// CHECK:        arith.shli %[[PAGES]]
// CHECK:        tile.async_wait 1
// CHECK-NEXT:   tile.async_gather %[[KV]][%[[ROWS:.*]], %[[COLK]]], %[[RK]][%[[WRITE]]]
// CHECK-NEXT:   tile.async_gather %[[KV]][%[[ROWS]], %[[COLV]]], %[[RV]][%[[WRITE]]]
// CHECK-NEXT:   tile.async_commit
// CHECK-NEXT:   %[[K:.*]] = tile.load_stage %[[RK]][%[[READ]]]
// CHECK-NEXT:   %[[V:.*]] = tile.load_stage %[[RV]][%[[READ]]]
// CHECK-NEXT:   %[[KT:.*]] = tile.transpose %[[K]]
// CHECK-NEXT:   %[[S:.*]] = tile.dot %{{.*}}, %[[KT]], %{{.*}} : tensor<16x64xbf16
// CHECK-NEXT:   %[[P:.*]] = arith.truncf %[[S]]
// CHECK-NEXT:   %[[O:.*]] = tile.dot %[[P]], %[[V]], %[[ACC]]
// CHECK-NEXT:   scf.yield %[[O]], %[[NEXTPAGES]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait 0
// Four stages (the pass's default) on sm_80: copies three ahead.
// S4-LABEL: func.func @paged
// S4: tile.alloc_shared : !tile.smem<4x64x64xbf16, #tile.swizzle<128>>
// S4: tile.alloc_shared : !tile.smem<4x64x64xbf16, #tile.swizzle<128>>
// S4-COUNT-3: tile.async_commit
// S4: scf.for
// S4: tile.async_wait 2
// S4-NOT: tile.gather {{.*}} -> tensor<64x64xbf16
func.func @paged(%q: !tile.ptr<bf16>, %kv: !tile.ptr<bf16>, %bt: !tile.ptr<i32>,
    %out: !tile.ptr<f32>, %pages: i32, %len: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c15 = arith.constant 15 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %rows = arith.muli %pages, %c16 : i32
  %kvv = tile.make_view %kv[%rows, %c128] strides[%c128, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %btv = tile.make_view %bt[%c1, %pages] strides[%pages, %c1]
      : !tile.ptr<i32> -> !tile.view<?x?xi32>
  %qv = tile.make_view %q[%c16, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %qt = tile.load %qv[%c0, %c0] : tensor<16x64xbf16>
  %iota = tile.iota : tensor<64xi32>
  %zeros = tile.splat %c0 : tensor<64xi32>
  %c4T = tile.splat %c4 : tensor<64xi32>
  %c15T = tile.splat %c15 : tensor<64xi32>
  %iotaD = tile.iota : tensor<64xi32>
  %colE = tile.expand_dims %iotaD at 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colK = tile.broadcast %colE : tensor<1x64xi32> -> tensor<64x64xi32>
  %c64T = tile.splat %c64 : tensor<64x64xi32>
  %colV = arith.addi %colK, %c64T : tensor<64x64xi32>
  %zS = arith.constant dense<0.0> : tensor<16x64xf32>
  %res = scf.for %t = %c0 to %len step %c64 iter_args(%acc = %zS)
      -> (tensor<16x64xf32>) : i32 {
    %tT = tile.splat %t : tensor<64xi32>
    %tok = arith.addi %iota, %tT : tensor<64xi32>
    %slot = arith.shrui %tok, %c4T : tensor<64xi32>
    %page = tile.gather %btv[%zeros, %slot] : !tile.view<?x?xi32>,
        tensor<64xi32>, tensor<64xi32> -> tensor<64xi32>
    %p16 = arith.shli %page, %c4T : tensor<64xi32>
    %inPage = arith.andi %tok, %c15T : tensor<64xi32>
    %row = arith.addi %p16, %inPage : tensor<64xi32>
    %rowE = tile.expand_dims %row at 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rowB = tile.broadcast %rowE : tensor<64x1xi32> -> tensor<64x64xi32>
    %k = tile.gather %kvv[%rowB, %colK] : !tile.view<?x?xbf16>,
        tensor<64x64xi32>, tensor<64x64xi32> -> tensor<64x64xbf16>
    %v = tile.gather %kvv[%rowB, %colV] : !tile.view<?x?xbf16>,
        tensor<64x64xi32>, tensor<64x64xi32> -> tensor<64x64xbf16>
    %kt = tile.transpose %k : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %s = tile.dot %qt, %kt, %zS
        : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
    %p = arith.truncf %s : tensor<16x64xf32> to tensor<16x64xbf16>
    %o = tile.dot %p, %v, %acc
        : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
    scf.yield %o : tensor<16x64xf32>
  }
  %ov = tile.make_view %out[%c16, %c64] strides[%c64, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %res, %ov[%c0, %c0] : tensor<16x64xf32>
  return
}

// -----

// A gathered tile that is not itself a dot operand (scaled first) stays a
// gather into registers; nothing is staged.
// CHECK-LABEL: func.func @scaled
// CHECK-NOT: tile.async_gather
// CHECK: scf.for
// CHECK: tile.gather
// S4-LABEL: func.func @scaled
// S4-NOT: tile.async_gather
func.func @scaled(%kv: !tile.ptr<bf16>, %idx: !tile.ptr<i32>,
    %out: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %v = tile.make_view %kv[%n, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %iv = tile.make_view %idx[%n] strides[%c1]
      : !tile.ptr<i32> -> !tile.view<?xi32>
  %iota = tile.iota : tensor<64xi32>
  %colE = tile.expand_dims %iota at 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cols = tile.broadcast %colE : tensor<1x64xi32> -> tensor<64x64xi32>
  %two = arith.constant dense<2.0> : tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %res = scf.for %t = %c0 to %n step %c64 iter_args(%acc = %z)
      -> (tensor<64x64xf32>) : i32 {
    %r = tile.load %iv[%t] : tensor<64xi32>
    %rE = tile.expand_dims %r at 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tile.broadcast %rE : tensor<64x1xi32> -> tensor<64x64xi32>
    %g = tile.gather %v[%rows, %cols] : !tile.view<?x?xbf16>,
        tensor<64x64xi32>, tensor<64x64xi32> -> tensor<64x64xbf16>
    %gs = arith.mulf %g, %two : tensor<64x64xbf16>
    %o = tile.dot %gs, %gs, %acc
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %o : tensor<64x64xf32>
  }
  %ov = tile.make_view %out[%c64, %c64] strides[%c64, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  tile.store %res, %ov[%c0, %c0] : tensor<64x64xf32>
  return
}

// -----

// A loop that writes memory is left alone: a copy issued ahead could read
// what an earlier iteration has not written yet.
// CHECK-LABEL: func.func @writes
// CHECK-NOT: tile.async_gather
// S4-LABEL: func.func @writes
// S4-NOT: tile.async_gather
func.func @writes(%kv: !tile.ptr<bf16>, %idx: !tile.ptr<i32>,
    %out: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %v = tile.make_view %kv[%n, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %iv = tile.make_view %idx[%n] strides[%c1]
      : !tile.ptr<i32> -> !tile.view<?xi32>
  %ov = tile.make_view %out[%n, %c64] strides[%c64, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %iota = tile.iota : tensor<64xi32>
  %colE = tile.expand_dims %iota at 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cols = tile.broadcast %colE : tensor<1x64xi32> -> tensor<64x64xi32>
  %a = arith.constant dense<1.0> : tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  scf.for %t = %c0 to %n step %c64 : i32 {
    %r = tile.load %iv[%t] : tensor<64xi32>
    %rE = tile.expand_dims %r at 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rows = tile.broadcast %rE : tensor<64x1xi32> -> tensor<64x64xi32>
    %g = tile.gather %v[%rows, %cols] : !tile.view<?x?xbf16>,
        tensor<64x64xi32>, tensor<64x64xi32> -> tensor<64x64xbf16>
    %o = tile.dot %a, %g, %z
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %o, %ov[%t, %c0] : tensor<64x64xf32>
  }
  return
}

// -----

// The row table read with tile.load rather than tile.gather: the load
// feeds only the gather's indices, so it is not queued in registers (its
// loop-carried value would hide the indices from the ring); the ring
// reads it one iteration ahead of its copies, as it does a gathered table.
// CHECK-LABEL: func.func @table_load
// S4-LABEL: func.func @table_load
// CHECK-COUNT-3: tile.load %{{.*}} : tensor<64xi32
// CHECK: tile.async_gather
// CHECK: tile.async_gather
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ROWS:.*]] = %{{.*}}) -> (tensor<16x64xf32, #{{.*}}>, tensor<64xi32, #{{.*}}>)
// CHECK:   %[[NEXT:.*]] = tile.load %{{.*}} : tensor<64xi32
// CHECK:   tile.async_wait
// CHECK:   tile.async_gather
// CHECK:   scf.yield %{{.*}}, %[[NEXT]]
func.func @table_load(%x: !tile.ptr<bf16>, %table: !tile.ptr<i32>,
    %q: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %rows: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %xv = tile.make_view %x[%rows, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %tv = tile.make_view %table[%c256] strides[%c1]
      : !tile.ptr<i32> -> !tile.view<?xi32>
  %qv = tile.make_view %q[%c16, %c64] strides[%c64, %c1]
      : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %yv = tile.make_view %y[%c16, %c64] strides[%c64, %c1]
      : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %qt = tile.load %qv[%c0, %c0] : tensor<16x64xbf16>
  %i = tile.iota : tensor<64xi32>
  %iE = tile.expand_dims %i at 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cols = tile.broadcast %iE : tensor<1x64xi32> -> tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum = scf.for %t = %c0 to %c256 step %c64 iter_args(%acc = %zero)
      -> (tensor<16x64xf32>) : i32 {
    %r = tile.load %tv[%t] : tensor<64xi32>
    %rE = tile.expand_dims %r at 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rB = tile.broadcast %rE : tensor<64x1xi32> -> tensor<64x64xi32>
    %v = tile.gather %xv[%rB, %cols] : !tile.view<?x?xbf16>,
        tensor<64x64xi32>, tensor<64x64xi32> -> tensor<64x64xbf16>
    %next = tile.dot %qt, %v, %acc
        : tensor<16x64xbf16>, tensor<64x64xbf16> -> tensor<16x64xf32>
    scf.yield %next : tensor<16x64xf32>
  }
  tile.store %sum, %yv[%c0, %c0] : tensor<16x64xf32>
  return
}
