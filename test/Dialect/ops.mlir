// RUN: kernel-opt %s -split-input-file | kernel-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @memory
// CHECK: tile.program_id x
// CHECK: tile.num_programs y
// CHECK: tile.make_view %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}, %{{.*}}] : !tile.view<?x?xf32>{{ *$}}
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] pad -inf : tensor<4x128xf32>
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : tensor<4x128xf32>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x128xf32>{{ *$}}
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : tensor<4x128xf32>{{ *$}}
func.func @memory(%p: !tile.ptr<f32>, %m: i32, %n: i32, %mask: tensor<4x128xi1>) {
  %c1 = arith.constant 1 : i32
  %pid = tile.program_id x
  %np = tile.num_programs y
  %v = tile.make_view %p[%m, %n] strides[%n, %c1] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  %t = tile.load %v[%pid, %np] pad 0xFF800000 : f32 : !tile.view<?x?xf32> -> tensor<4x128xf32>
  %u = tile.load %v[%pid, %np] mask %mask : !tile.view<?x?xf32> -> tensor<4x128xf32>
  tile.store %t, %v[%pid, %np] : tensor<4x128xf32>, !tile.view<?x?xf32>
  tile.store %u, %v[%pid, %np] mask %mask : tensor<4x128xf32>, !tile.view<?x?xf32>
  return
}

// -----

// Padding named or written as a number of the tile's element type; the
// view's type follows from the tile's.
// CHECK-LABEL: func.func @padding
// CHECK: tile.load %{{.*}}[%{{.*}}] pad nan : tensor<8xf32>
// CHECK: tile.load %{{.*}}[%{{.*}}] pad inf : tensor<8xf32>
// CHECK: tile.load %{{.*}}[%{{.*}}] pad -1.5{{.*}} : tensor<8xf32>
// CHECK: tile.load %{{.*}}[%{{.*}}] pad 0.0{{.*}} : tensor<8xf32>
// CHECK: tile.load %{{.*}}[%{{.*}}] pad -inf : tensor<8xbf16>
// CHECK: tile.load %{{.*}}[%{{.*}}] pad -7 : tensor<8xi32>
// CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}] : tensor<8xi32>{{ *$}}
func.func @padding(%f: !tile.view<?xf32>, %b: !tile.view<?xbf16>,
                   %i: !tile.view<?xi32>, %at: i32) {
  %0 = tile.load %f[%at] pad nan : tensor<8xf32>
  %1 = tile.load %f[%at] pad inf : tensor<8xf32>
  %2 = tile.load %f[%at] pad -1.5 : tensor<8xf32>
  %3 = tile.load %f[%at] pad 0 : tensor<8xf32>
  %4 = tile.load %b[%at] pad -inf : tensor<8xbf16>
  %5 = tile.load %i[%at] pad -7 : tensor<8xi32>
  tile.store %5, %i[%at] : tensor<8xi32>
  return
}

// -----

// CHECK-LABEL: func.func @addptr
// CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<f32>, i64
// CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<bf16>, i32
func.func @addptr(%p: !tile.ptr<f32>, %q: !tile.ptr<bf16>, %at: i64, %n: i32) {
  %r = tile.addptr %p, %at : !tile.ptr<f32>, i64
  %s = tile.addptr %q, %n : !tile.ptr<bf16>, i32
  return
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK: tile.splat %{{.*}} : tensor<128xf32>
// CHECK: tile.iota : tensor<128xi32>
// CHECK: tile.expand_dims %{{.*}} at 0 : tensor<128xf32> -> tensor<1x128xf32>
// CHECK: tile.broadcast %{{.*}} : tensor<1x128xf32> -> tensor<8x128xf32>
// CHECK: tile.reduce max %{{.*}} along 1 : tensor<8x128xf32>{{ *$}}
// CHECK: tile.reduce add %{{.*}} along 0 : tensor<8xf32>{{ *$}}
// CHECK: tile.scan add %{{.*}} along 0 reverse exclusive : tensor<128xi32>
// CHECK: tile.scan max %{{.*}} along 1 : tensor<8x128xf32> total tensor<8xf32>
// CHECK: tile.sort %{{.*}}, %{{.*}} along 0 descending : tensor<128xf32>, tensor<128xi32>
// CHECK: tile.sort %{{.*}} along 0 runs 32 : tensor<128xi32>
// CHECK: tile.histogram %{{.*}} : tensor<128xi32> -> tensor<256xi32>
func.func @shapes(%s: f32) -> f32 {
  %a = tile.splat %s : tensor<128xf32>
  %i = tile.iota : tensor<128xi32>
  %e = tile.expand_dims %a at 0 : tensor<128xf32> -> tensor<1x128xf32>
  %b = tile.broadcast %e : tensor<1x128xf32> -> tensor<8x128xf32>
  %r = tile.reduce max %b along 1 : tensor<8x128xf32> -> tensor<8xf32>
  %t = tile.reduce add %r along 0 : tensor<8xf32> -> f32
  %c = tile.scan add %i along 0 reverse exclusive : tensor<128xi32>
  %cm, %cmax = tile.scan max %b along 1 : tensor<8x128xf32> total tensor<8xf32>
  %k, %v = tile.sort %a, %i along 0 descending : tensor<128xf32>, tensor<128xi32>
  %m = tile.sort %i along 0 runs 32 : tensor<128xi32>
  %h = tile.histogram %c : tensor<128xi32> -> tensor<256xi32>
  return %t : f32
}

// -----

// CHECK-LABEL: func.func @gather_atomic_dot
// CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] : !tile.view<?x?xbf16>, tensor<16x64xi32>, tensor<16x64xi32> -> tensor<16x64xbf16>
// CHECK: tile.atomic add %{{.*}}[%{{.*}}], %{{.*}} : !tile.view<?xi32>[tensor<256xi32>], tensor<256xi32>
// CHECK: tile.atomic max %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.view<?x?xf32>[tensor<16x64xi32>, tensor<16x64xi32>], tensor<16x64xf32>
// CHECK: tile.fence
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x128xf32>
// CHECK: tile.transpose %{{.*}} : tensor<64x128xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
func.func @gather_atomic_dot(%kv: !tile.view<?x?xbf16>, %rows: tensor<16x64xi32>,
    %cols: tensor<16x64xi32>, %hist: !tile.view<?xi32>, %bins: tensor<256xi32>,
    %a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>,
    %acc: tensor<128x128xf32>, %acc2d: !tile.view<?x?xf32>,
    %vals: tensor<16x64xf32>) {
  %g = tile.gather %kv[%rows, %cols] : !tile.view<?x?xbf16>, tensor<16x64xi32>, tensor<16x64xi32> -> tensor<16x64xbf16>
  %old = tile.atomic add %hist[%bins], %bins : !tile.view<?xi32>[tensor<256xi32>], tensor<256xi32>
  %m = tile.atomic max %acc2d[%rows, %cols], %vals : !tile.view<?x?xf32>[tensor<16x64xi32>, tensor<16x64xi32>], tensor<16x64xf32>
  tile.fence
  %d = tile.dot %a, %b, %acc : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x128xf32>
  %t = tile.transpose %b : tensor<64x128xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
  return
}

// -----

// Layout attributes and pass-introduced types round-trip (printed with
// short aliases).
// CHECK-DAG: #[[B:blocked]] = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[S:slice]] = #tile.slice<dim = 1, parent = #[[B]]>
// CHECK-DAG: #[[M:mma]] = #tile.mma<version = 3, warps = [4, 1], instr = [64, 128, 16]>
// CHECK-DAG: #[[D:dot_op]] = #tile.dot_operand<index = 0, parent = #[[M]], k_width = 2>
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<4x128xf32, #[[B]]>
// CHECK-SAME: tensor<4xf32, #[[S]]>
// CHECK-SAME: tensor<64x128xf32, #[[M]]>
// CHECK-SAME: tensor<64x16xbf16, #[[D]]>
// CHECK-SAME: !tile.smem<4x128x64xf8E4M3FN, #tile.swizzle<128>>
// CHECK-SAME: !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
func.func @layouts(
    %a: tensor<4x128xf32, #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>>,
    %b: tensor<4xf32, #tile.slice<dim = 1, parent = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>>>,
    %c: tensor<64x128xf32, #tile.mma<version = 3, warps = [4, 1], instr = [64, 128, 16]>>,
    %d: tensor<64x16xbf16, #tile.dot_operand<index = 0, parent = #tile.mma<version = 3, warps = [4, 1], instr = [64, 128, 16]>, k_width = 2>>,
    %e: !tile.smem<4x128x64xf8E4M3FN, #tile.swizzle<128>>,
    %f: !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>) {
  return
}

// -----

// The TMA pipeline's ops round-trip.
// CHECK-LABEL: func.func @tma
// CHECK: %[[MAP:.*]] = tile.make_tensor_map %{{.*}} : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
// CHECK: %[[OK:.*]] = tile.view_aligned %{{.*}}, %{{.*}} : !tile.view<?x?xbf16>, !tile.view<?x?xbf16>
// CHECK: tile.mbarrier_init %[[BARS:.*]] count 1 : !tile.smem<2xi64>
// CHECK: tile.mbarrier_expect %[[BARS]][%{{.*}}], 16384 : !tile.smem<2xi64>
// CHECK: tile.tma_copy %[[MAP]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %[[BARS]][%{{.*}}] : !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
// CHECK: tile.mbarrier_wait %[[BARS]][%{{.*}}] phase %{{.*}} : !tile.smem<2xi64>
// CHECK: tile.barrier
func.func @tma(%x: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %x[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
  %ok = tile.view_aligned %v, %v : !tile.view<?x?xbf16>, !tile.view<?x?xbf16>
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.mbarrier_expect %bars[%c0], 16384 : !tile.smem<2xi64>
  tile.tma_copy %map[%c0, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  tile.mbarrier_wait %bars[%c0] phase %c0 : !tile.smem<2xi64>
  tile.barrier
  return
}

// -----

// A map in wgmma order moves a whole stage in one box.
// CHECK-LABEL: func.func @tma_wgmma_stage
// CHECK: %[[MAP:.*]] = tile.make_tensor_map %{{.*}} : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: tile.tma_copy %[[MAP]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
func.func @tma_wgmma_stage(%x: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %x[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.mbarrier_expect %bars[%c0], 16384 : !tile.smem<2xi64>
  tile.tma_copy %map[%c0, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

// The staged epilogue's ops round-trip.
// CHECK-LABEL: func.func @tma_store
// CHECK: tile.store_boxes %{{.*}}, %[[BUF:.*]] column 64 : tensor<64x128xbf16>, !tile.smem<1x64x64xbf16, #tile.swizzle<128>>
// CHECK: tile.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %[[BUF]] : !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>, !tile.smem<1x64x64xbf16, #tile.swizzle<128>>
// CHECK: tile.tma_store_wait 0 read
// CHECK: tile.tma_store_wait 1{{$}}
func.func @tma_store(%y: !tile.ptr<bf16>, %m: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %t = arith.constant dense<1.0> : tensor<64x128xbf16>
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %y[%m, %m] strides[%m, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>
  %buf = tile.alloc_shared : !tile.smem<1x64x64xbf16, #tile.swizzle<128>>
  tile.store_boxes %t, %buf column 64 : tensor<64x128xbf16>, !tile.smem<1x64x64xbf16, #tile.swizzle<128>>
  tile.tma_store %map[%c0, %c0], %buf : !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>, !tile.smem<1x64x64xbf16, #tile.swizzle<128>>
  tile.tma_store_wait 0 read
  tile.tma_store_wait 1
  return
}

// -----

// CHECK-LABEL: func.func @scatter
// CHECK: tile.scatter %{{.*}} into %{{.*}}[%{{.*}}] mask %{{.*}} : tensor<128xf32>, tensor<128xi32> -> tensor<16xf32>
// CHECK: tile.scatter %{{.*}} into %{{.*}}[%{{.*}}] : tensor<128xf32>, tensor<128xi32> -> tensor<16xf32>
func.func @scatter(%v: tensor<128xf32>, %i: tensor<128xi32>, %m: tensor<128xi1>, %d: tensor<16xf32>) {
  %a = tile.scatter %v into %d[%i] mask %m : tensor<128xf32>, tensor<128xi32> -> tensor<16xf32>
  %b = tile.scatter %v into %a[%i] : tensor<128xf32>, tensor<128xi32> -> tensor<16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @cluster_buffers
// CHECK: %[[B:.*]] = tile.alloc_shared : !tile.smem<128xi64>
// CHECK: tile.cluster_rank
// CHECK: tile.cluster_size
// CHECK: tile.store_shared %{{.*}}, %[[B]][%{{.*}}] rank %{{.*}} mask %{{.*}} : tensor<64xi64>, !tile.smem<128xi64>
// CHECK: tile.store_shared %{{.*}}, %[[B]][%{{.*}}] : tensor<64xi64>, !tile.smem<128xi64>
// CHECK: tile.cluster_barrier
// CHECK: tile.load_shared %[[B]][%{{.*}}] mask %{{.*}} pad -1 : i64 : !tile.smem<128xi64> -> tensor<128xi64>
// CHECK: tile.load_shared %[[B]][%{{.*}}] : !tile.smem<128xi64> -> tensor<2x64xi64>
func.func @cluster_buffers(%v: tensor<64xi64>, %m: tensor<64xi1>, %lm: tensor<128xi1>, %at: i32) {
  %buf = tile.alloc_shared : !tile.smem<128xi64>
  %r = tile.cluster_rank
  %n = tile.cluster_size
  tile.store_shared %v, %buf[%at] rank %r mask %m : tensor<64xi64>, !tile.smem<128xi64>
  tile.store_shared %v, %buf[%at] : tensor<64xi64>, !tile.smem<128xi64>
  tile.cluster_barrier
  %a = tile.load_shared %buf[%at] mask %lm pad -1 : i64 : !tile.smem<128xi64> -> tensor<128xi64>
  %b = tile.load_shared %buf[%at] : !tile.smem<128xi64> -> tensor<2x64xi64>
  return
}

// -----

// Staged buffers and the async copies the pipelining pass makes.
// CHECK-LABEL: func.func @async_copies
// CHECK: %[[R:.*]] = tile.alloc_shared : !tile.smem<3x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[R]][%{{.*}}] : !tile.view<?x?xbf16>, !tile.smem<3x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
// CHECK: tile.async_commit
// CHECK: tile.async_wait 1
// CHECK: tile.load_stage %[[R]][%{{.*}}] : !tile.smem<3x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>> -> tensor<128x64xbf16>
// CHECK: tile.alloc_shared : !tile.smem<2x64x32xf8E4M3FN, #tile.swizzle<32>>
func.func @async_copies(%v: !tile.view<?x?xbf16>, %at: i32, %b: tensor<64x128xbf16>, %acc: tensor<128x128xf32>) {
  %ring = tile.alloc_shared : !tile.smem<3x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  tile.async_copy %v[%at, %at], %ring[%at] : !tile.view<?x?xbf16>, !tile.smem<3x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  tile.async_commit
  tile.async_wait 1
  %a = tile.load_stage %ring[%at] : !tile.smem<3x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>> -> tensor<128x64xbf16>
  %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %fp8 = tile.alloc_shared : !tile.smem<2x64x32xf8E4M3FN, #tile.swizzle<32>>
  return
}

// -----

// A gather of rows into a buffer stage (tile-pipeline-loads' form of a
// tile.gather that feeds a dot).
// CHECK-LABEL: func.func @async_gather
// CHECK: tile.async_gather %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.view<?x?xbf16>, tensor<64x64xi32>, tensor<64x64xi32>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
func.func @async_gather(%v: !tile.view<?x?xbf16>, %rows: tensor<64x64xi32>, %cols: tensor<64x64xi32>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  tile.async_gather %v[%rows, %cols], %ring[%at] : !tile.view<?x?xbf16>, tensor<64x64xi32>, tensor<64x64xi32>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  tile.async_commit
  return
}

// -----

// CHECK-LABEL: func.func @async_dot
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} async : tensor<64x16xbf16>, tensor<16x64xbf16> -> tensor<64x64xf32>
// CHECK: tile.dot_wait %[[D]] pending 0 : tensor<64x64xf32>
func.func @async_dot(%a: tensor<64x16xbf16>, %b: tensor<16x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %d = tile.dot %a, %b, %c async : tensor<64x16xbf16>, tensor<16x64xbf16> -> tensor<64x64xf32>
  %e = tile.dot_wait %d pending 0 : tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @scatter_store
// CHECK: tile.scatter_store %{{.*}}, %{{.*}}[%{{.*}}] : !tile.view<?xi64>[tensor<256xi32>], tensor<256xi64>
// CHECK: tile.scatter_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : !tile.view<?x?xf32>[tensor<16x64xi32>, tensor<16x64xi32>], tensor<16x64xf32>
func.func @scatter_store(%out: !tile.view<?xi64>, %pos: tensor<256xi32>,
    %keys: tensor<256xi64>, %out2d: !tile.view<?x?xf32>,
    %rows: tensor<16x64xi32>, %cols: tensor<16x64xi32>,
    %vals: tensor<16x64xf32>, %take: tensor<16x64xi1>) {
  tile.scatter_store %keys, %out[%pos] : !tile.view<?xi64>[tensor<256xi32>], tensor<256xi64>
  tile.scatter_store %vals, %out2d[%rows, %cols] mask %take : !tile.view<?x?xf32>[tensor<16x64xi32>, tensor<16x64xi32>], tensor<16x64xf32>
  return
}
