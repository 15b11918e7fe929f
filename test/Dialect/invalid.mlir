// RUN: kernel-opt %s -split-input-file -verify-diagnostics

func.func @view_arity(%p: !tile.ptr<f32>, %n: i32) {
  // expected-error @+1 {{expects 2 extents and strides for a rank-2 view, got 1 and 1}}
  %v = tile.make_view %p[%n] strides[%n] : !tile.ptr<f32> -> !tile.view<?x?xf32>
  return
}

// -----

func.func @addptr_offset(%p: !tile.ptr<f32>, %n: i16) {
  // expected-error @+1 {{operand #1 must be 32-bit signless integer or 64-bit signless integer, but got 'i16'}}
  %q = tile.addptr %p, %n : !tile.ptr<f32>, i16
  return
}

// -----

func.func @addptr_result(%p: !tile.ptr<f32>, %n: i64) {
  // expected-error @+1 {{all of {ptr, result} have same type}}
  %q = "tile.addptr"(%p, %n) : (!tile.ptr<f32>, i64) -> !tile.ptr<f16>
  return
}

// -----

func.func @view_element(%p: !tile.ptr<f16>, %n: i32) {
  // expected-error @+1 {{pointer element type 'f16' does not match view element type 'f32'}}
  %v = tile.make_view %p[%n] strides[%n] : !tile.ptr<f16> -> !tile.view<?xf32>
  return
}

// -----

// expected-error @+1 {{view extents are given at run time; write '?' for every dimension}}
func.func @static_view(%v: !tile.view<4xf32>) {
  return
}

// -----

func.func @load_offsets(%v: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @+1 {{expects 2 offsets for a rank-2 view, got 1}}
  %t = tile.load %v[%i] : !tile.view<?x?xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @load_rank(%v: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @+1 {{tile rank 1 does not match view rank 2}}
  %t = tile.load %v[%i, %i] : !tile.view<?x?xf32> -> tensor<4xf32>
  return
}

// -----

func.func @load_element(%v: !tile.view<?xf32>, %i: i32) {
  // expected-error @+1 {{tile element type 'bf16' does not match view element type 'f32'}}
  %t = tile.load %v[%i] : !tile.view<?xf32> -> tensor<4xbf16>
  return
}

// -----

func.func @load_padding(%v: !tile.view<?xf32>, %i: i32) {
  // expected-error @+1 {{padding must be a 'f32' constant}}
  %t = tile.load %v[%i] pad 0 : i32 : !tile.view<?xf32> -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_tile(%v: !tile.view<?xf32>, %i: i32) {
  // expected-error @+1 {{'tile.load' op result #0 must be tile (statically shaped tensor, optional tile layout encoding), but got 'tensor<?xf32>'}}
  %t = tile.load %v[%i] : !tile.view<?xf32> -> tensor<?xf32>
  return
}

// -----

func.func @store_element(%v: !tile.view<?xf32>, %t: tensor<8xf16>, %i: i32) {
  // expected-error @+1 {{tile element type 'f16' does not match view element type 'f32'}}
  tile.store %t, %v[%i] : tensor<8xf16>, !tile.view<?xf32>
  return
}

// -----

func.func @gather_shape(%v: !tile.view<?xf32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{index tiles must have the result shape 16}}
  %g = tile.gather %v[%i] : !tile.view<?xf32>, tensor<8xi32> -> tensor<16xf32>
  return
}

// -----

func.func @scatter_store_arity(%v: !tile.view<?x?xf32>, %i: tensor<8xi32>,
                               %x: tensor<8xf32>) {
  // expected-error @+1 {{expects one index tile per view dimension (2), got 1}}
  tile.scatter_store %x, %v[%i] : !tile.view<?x?xf32>[tensor<8xi32>], tensor<8xf32>
  return
}

// -----

func.func @scatter_store_shape(%v: !tile.view<?xf32>, %i: tensor<8xi32>,
                               %x: tensor<16xf32>) {
  // expected-error @+1 {{index tiles must have the value shape 16}}
  tile.scatter_store %x, %v[%i] : !tile.view<?xf32>[tensor<8xi32>], tensor<16xf32>
  return
}

// -----

func.func @scatter_store_type(%v: !tile.view<?xf32>, %i: tensor<8xi32>,
                              %x: tensor<8xi32>) {
  // expected-error @+1 {{value element type 'i32' does not match view element type 'f32'}}
  tile.scatter_store %x, %v[%i] : !tile.view<?xf32>[tensor<8xi32>], tensor<8xi32>
  return
}

// -----

func.func @atomic_mul(%v: !tile.view<?xi32>, %i: tensor<8xi32>) {
  // expected-error @+1 {{'mul' has no atomic form}}
  %o = tile.atomic mul %v[%i], %i : !tile.view<?xi32>[tensor<8xi32>], tensor<8xi32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error @+1 {{result must have rank 1, got rank 2}}
  %i = tile.iota : tensor<4x4xi32>
  return
}

// -----

func.func @expand(%t: tensor<4xf32>) {
  // expected-error @+1 {{dimension 2 is out of range for a rank-1 tile}}
  %e = tile.expand_dims %t at 2 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @expand_shape(%t: tensor<4xf32>) {
  // expected-error @+1 {{result must be 'tensor<1x4xf32>'}}
  %e = tile.expand_dims %t at 0 : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @broadcast(%t: tensor<2x4xf32>) {
  // expected-error @+1 {{dimension 0 of extent 2 cannot broadcast to 8}}
  %b = tile.broadcast %t : tensor<2x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @reduce_dim(%t: tensor<4x4xf32>) {
  // expected-error @+1 {{dimension 2 is out of range for a rank-2 tile}}
  %r = tile.reduce add %t along 2 : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_scalar(%t: tensor<4xf32>) {
  // expected-error @+1 {{reducing a rank-1 tile yields a scalar 'f32', got 'tensor<1xf32>'}}
  %r = tile.reduce add %t along 0 : tensor<4xf32> -> tensor<1xf32>
  return
}

// -----

func.func @reduce_shape(%t: tensor<4x8xf32>) {
  // expected-error @+1 {{result must be a 'tensor<4xf32>' tile}}
  %r = tile.reduce add %t along 1 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @reduce_bitwise(%t: tensor<4xf32>) {
  // expected-error @+1 {{'xor' needs integer elements, got 'f32'}}
  %r = tile.reduce xor %t along 0 : tensor<4xf32> -> f32
  return
}

// -----

#blocked = #tile.blocked<size = [1, 4], threads = [1, 32], warps = [4, 1], order = [1, 0]>
#other = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [4, 1], order = [1, 0]>
func.func @reduce_layout(%t: tensor<4x128xf32, #blocked>) {
  // expected-error @+1 {{result layout must be the slice along 1 of the operand layout}}
  %r = tile.reduce add %t along 1 : tensor<4x128xf32, #blocked> -> tensor<4xf32, #tile.slice<dim = 1, parent = #other>>
  return
}

// -----

func.func @scan_exch(%t: tensor<4xi32>) {
  // expected-error @+1 {{'exch' is not an associative combiner}}
  %r = tile.scan exch %t along 0 : tensor<4xi32>
  return
}

// -----

func.func @sort_extent(%t: tensor<12xf32>) {
  // expected-error @+1 {{sorted extent must be a power of two, got 12}}
  %r = tile.sort %t along 0 : tensor<12xf32>
  return
}

// -----

func.func @sort_runs_not_power_of_two(%t: tensor<16xf32>) {
  // expected-error @+1 {{runs must be a power of two in [1, 16], got 3}}
  %r = tile.sort %t along 0 runs 3 : tensor<16xf32>
  return
}

// -----

func.func @sort_runs_too_long(%t: tensor<16xf32>) {
  // expected-error @+1 {{runs must be a power of two in [1, 16], got 32}}
  %r = tile.sort %t along 0 runs 32 : tensor<16xf32>
  return
}

// -----

func.func @histogram_counts(%t: tensor<16xi32>) {
  // expected-error @+1 {{counts are i32, got 'i64'}}
  %h = tile.histogram %t : tensor<16xi32> -> tensor<8xi64>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{K extents differ: A is 16x32, B is 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @transpose_shape(%a: tensor<16x32xf16>) {
  // expected-error @+1 {{result must be 'tensor<32x16xf16>' (dimensions swapped), got 'tensor<16x32xf16>'}}
  %t = tile.transpose %a : tensor<16x32xf16> -> tensor<16x32xf16>
  return
}

// -----

func.func @transpose_rank(%a: tensor<16xf16>) {
  // expected-error @+1 {{transposes rank-2 tiles, got rank 1}}
  %t = tile.transpose %a : tensor<16xf16> -> tensor<16xf16>
  return
}

// -----

func.func @dot_types(%a: tensor<16x16xf8E4M3FN>, %b: tensor<16x16xf8E4M3FN>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{unsupported element types 'f8E4M3FN' x 'f8E4M3FN' -> 'f16'}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf16>
  return
}

// -----

// expected-error @+1 {{kernel @k must not return values}}
func.func @k() -> i32 attributes {tile.kernel} {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

// expected-error @+1 {{kernel parameter #0 has type 'tensor<4xf32>'; kernels take !tile.ptr<...>, i32, i64, f32 or f64}}
func.func @k(%t: tensor<4xf32>) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two in [1, 32]}}
func.func @k() attributes {tile.kernel, tile.num_warps = 3 : i32} {
  return
}

// -----

// expected-error @+1 {{blocked layout: threads per warp multiply to 16, expected 32}}
func.func @bad_layout(%t: tensor<4xf32, #tile.blocked<size = [1], threads = [16], warps = [4], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout: order must be a permutation of [0, 2)}}
func.func @bad_order(%t: tensor<4x4xf32, #tile.blocked<size = [1, 1], threads = [1, 32], warps = [1, 1], order = [1, 1]>>) {
  return
}

// -----

// expected-error @+1 {{mma version must be 2 (mma.sync), 3 (wgmma) or 5 (tcgen05), got 4}}
func.func @bad_mma(%t: tensor<64x64xf32, #tile.mma<version = 4, warps = [4, 1], instr = [64, 64, 16]>>) {
  return
}

// -----

// expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 48}}
func.func @bad_swizzle(%t: !tile.smem<64x64xf16, #tile.swizzle<48>>) {
  return
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.kernal'}}
func.func @typo() attributes {tile.kernal} {
  return
}

// -----

func.func @scatter_rank(%v: tensor<16xf32>, %i: tensor<16xi32>, %d: tensor<4x4xf32>) {
  // expected-error @+1 {{destination must be a rank-1 tile, got rank 2}}
  %r = tile.scatter %v into %d[%i] : tensor<16xf32>, tensor<16xi32> -> tensor<4x4xf32>
  return
}

// -----

func.func @scatter_indices(%v: tensor<16xf32>, %i: tensor<8xi32>, %d: tensor<4xf32>) {
  // expected-error @+1 {{indices must have the source shape 16}}
  %r = tile.scatter %v into %d[%i] : tensor<16xf32>, tensor<8xi32> -> tensor<4xf32>
  return
}

// -----

func.func @scatter_elements(%v: tensor<16xf32>, %i: tensor<16xi32>, %d: tensor<4xi32>) {
  // expected-error @+1 {{source elements 'f32' differ from destination elements 'i32'}}
  %r = tile.scatter %v into %d[%i] : tensor<16xf32>, tensor<16xi32> -> tensor<4xi32>
  return
}

// -----

// expected-error @+1 {{'tile.max_registers' must be an integer in [24, 255]}}
func.func @k() attributes {tile.kernel, tile.max_registers = 300 : i32} {
  return
}

// -----

func.func @alloc_rank2() {
  // expected-error @below {{needs a staged buffer (stages x rows x columns, with a #tile.swizzle)}}
  %b = tile.alloc_shared : !tile.smem<2x64xf32>
  return
}

// -----

func.func @alloc_swizzled() {
  // expected-error @below {{rank-1 buffers are unswizzled}}
  %b = tile.alloc_shared : !tile.smem<64xf32, #tile.swizzle<128>>
  return
}

// -----

func.func @store_shared_elements(%v: tensor<64xf32>, %b: !tile.smem<64xi32>, %at: i32) {
  // expected-error @below {{tile elements 'f32' differ from buffer elements 'i32'}}
  tile.store_shared %v, %b[%at] : tensor<64xf32>, !tile.smem<64xi32>
  return
}

// -----

func.func @load_shared_rank(%b: !tile.smem<2x64xf32>, %at: i32) {
  // expected-error @below {{shared buffer must be rank-1, got rank 2}}
  %t = tile.load_shared %b[%at] : !tile.smem<2x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @load_shared_pad(%b: !tile.smem<64xf32>, %at: i32) {
  // expected-error @below {{padding must be a 'f32' constant}}
  %t = tile.load_shared %b[%at] pad 0 : i32 : !tile.smem<64xf32> -> tensor<64xf32>
  return
}

// -----

// expected-error @+1 {{'tile.no_hoist' is a unit attribute of scf.for}}
func.func @no_hoist_on_func() attributes {tile.no_hoist} {
  return
}

// -----

func.func @no_hoist_not_unit(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.no_hoist' is a unit attribute of scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.no_hoist = 1 : i32}
  return
}

// -----

// expected-error @+1 {{'tile.load_ahead' is an integer in [1, 8] on an scf.for}}
func.func @load_ahead_on_func() attributes {tile.load_ahead = 1 : i32} {
  return
}

// -----

func.func @load_ahead_zero(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.load_ahead' is an integer in [1, 8] on an scf.for}}
  scf.for %i = %c0 to %n step %c1 {
  } {tile.load_ahead = 0 : i32}
  return
}

// -----

// Tile ops are per-program work: at module level nothing runs them.
// expected-error @+1 {{'tile.cluster_barrier' op must be inside a kernel body (a func.func with `tile.kernel`), not in 'builtin.module'}}
tile.cluster_barrier

// -----

// expected-error @+1 {{'tile.program_id' op must be inside a kernel body}}
%pid = tile.program_id x

// -----

func.func @staged_row_too_narrow() {
  // expected-error @below {{rows of 32 bytes must be whole 16-byte chunks and hold the 128-byte swizzle pattern}}
  %b = tile.alloc_shared : !tile.smem<2x64x16xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @staged_wgmma_rows() {
  // expected-error @below {{96 rows do not split into the m64 blocks of 8 warps}}
  %b = tile.alloc_shared : !tile.smem<2x96x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  return
}

// -----

func.func @swizzle_wgmma_warps() {
  // expected-error @below {{wgmma_warps must be a power of two multiple of 4 (whole warpgroups), got 6}}
  %b = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128, wgmma_warps = 6>>
  return
}

// -----

func.func @async_copy_elements(%v: !tile.view<?x?xf16>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{view elements 'f16' differ from buffer elements 'bf16'}}
  tile.async_copy %v[%at, %at], %ring[%at] : !tile.view<?x?xf16>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @async_copy_rank(%v: !tile.view<?xbf16>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{copies from a rank-2 view with two offsets, got rank 1 and 1 offsets}}
  tile.async_copy %v[%at], %ring[%at] : !tile.view<?xbf16>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @async_gather_shape(%v: !tile.view<?x?xbf16>, %r: tensor<32x64xi32>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{index tiles must have the shape of one stage (64x64), got 'tensor<32x64xi32>'}}
  tile.async_gather %v[%r, %r], %ring[%at] : !tile.view<?x?xbf16>, tensor<32x64xi32>, tensor<32x64xi32>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @async_gather_rank(%v: !tile.view<?xbf16>, %r: tensor<64x64xi32>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{gathers from a rank-2 view with two index tiles, got rank 1 and 1 index tiles}}
  tile.async_gather %v[%r], %ring[%at] : !tile.view<?xbf16>, tensor<64x64xi32>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @async_copy_unstaged(%v: !tile.view<?x?xbf16>, %at: i32) {
  %buf = tile.alloc_shared : !tile.smem<64xbf16>
  // expected-error @below {{needs a staged buffer}}
  tile.async_copy %v[%at, %at], %buf[%at] : !tile.view<?x?xbf16>, !tile.smem<64xbf16>
  return
}

// -----

func.func @load_stage_shape(%at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{result 'tensor<64x32xbf16>' is not one stage of the buffer}}
  %t = tile.load_stage %ring[%at] : !tile.smem<2x64x64xbf16, #tile.swizzle<128>> -> tensor<64x32xbf16>
  return
}

// -----

func.func @load_stage_users(%at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{is read by tile.dot only (directly or through tile.transpose), not by 'arith.addf'}}
  %t = tile.load_stage %ring[%at] : !tile.smem<2x64x64xbf16, #tile.swizzle<128>> -> tensor<64x64xbf16>
  %u = arith.addf %t, %t : tensor<64x64xbf16>
  return
}

// -----

func.func @async_dot_read(%a: tensor<64x16xbf16>, %b: tensor<16x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @below {{is async: its result feeds only dot accumulators, tile.dot_wait or a loop's yield, not 'arith.addf'}}
  %d = tile.dot %a, %b, %c async : tensor<64x16xbf16>, tensor<16x64xbf16> -> tensor<64x64xf32>
  %e = arith.addf %d, %d : tensor<64x64xf32>
  return
}

// -----

func.func @tensor_map_box(%v: !tile.view<?x?xbf16>) {
  // expected-error @below {{box 8x128 of 256-byte rows does not fit a TMA box}}
  %m = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<8x128xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @tensor_map_elements(%v: !tile.view<?x?xbf16>) {
  // expected-error @below {{view elements 'bf16' differ from the tensor map's 'f16'}}
  %m = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xf16, #tile.swizzle<128>>
  return
}

// -----

func.func @barriers_type(%at: i32) {
  %bars = tile.alloc_shared : !tile.smem<4xi32>
  // expected-error @below {{needs a rank-1 buffer of i64 mbarriers, got '!tile.smem<4xi32>'}}
  tile.mbarrier_init %bars count 1 : !tile.smem<4xi32>
  return
}

// -----

func.func @tma_wgmma_rows(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  // expected-error @below {{fills rows in wgmma order with boxes of 8 rows, got 128}}
  tile.tma_copy %m[%at, %at], %ring[%at], %bars[%at] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

// A map in wgmma order for 8 warps lands whole 128-row blocks.
func.func @tensor_map_wgmma_rows(%v: !tile.view<?x?xbf16>) {
  // expected-error @below {{lands rows in wgmma order for 8 warps in boxes of a multiple of 128 rows, got 64}}
  %m = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<64x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  return
}

// -----

func.func @tma_wgmma_map_order(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  // expected-error @below {{copies a map in wgmma order for 4 warps only as one box per stage of a buffer in the same order, neither shared nor for a pair's leader}}
  tile.tma_copy %m[%at, %at], %ring[%at], %bars[%at] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 4>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

// Each program of a multicast group copies some 8-row boxes; a map that
// lands the whole stage at once cannot be split so.
func.func @tma_wgmma_map_multicast(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  // expected-error @below {{copies a map in wgmma order for 8 warps only as one box per stage}}
  tile.tma_copy %m[%at, %at], %ring[%at], %bars[%at] multicast %at part %at of 2 : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

func.func @tma_wgmma_map_row(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  %row = arith.constant 64 : i32
  // expected-error @below {{copies a map in wgmma order from row 64, not a multiple of 128}}
  tile.tma_copy %m[%row, %at], %ring[%at], %bars[%at] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

// One box per stage: a 128-row box does not fill a 256-row stage.
func.func @tma_wgmma_map_stage_rows(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x256x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  // expected-error @below {{copies a map in wgmma order for 8 warps only as one box per stage}}
  tile.tma_copy %m[%at, %at], %ring[%at], %bars[%at] : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x256x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

func.func @tma_store_wgmma_map(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, %at: i32) {
  %buf = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{are not boxes of the tensor map}}
  tile.tma_store %m[%at, %at], %buf : !tile.tensor_map<128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @tma_box_columns(%m: !tile.tensor_map<64x32xbf16, #tile.swizzle<64>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  // expected-error @below {{boxes 64x32 under a 64-byte swizzle do not tile stages of 128x64 under a 128-byte swizzle}}
  tile.tma_copy %m[%at, %at], %ring[%at], %bars[%at] : !tile.tensor_map<64x32xbf16, #tile.swizzle<64>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128>>, !tile.smem<2xi64>
  return
}

// -----

// Multicast parts take whole boxes: a 128-row stage in 64-row boxes has
// two, which four programs cannot share.
func.func @tma_multicast_parts(%m: !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>, %at: i32) {
  %ring = tile.alloc_shared : !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
  %bars = tile.alloc_shared : !tile.smem<2xi64>
  // expected-error @below {{cannot share 2 boxes among 4 parts}}
  tile.tma_copy %m[%at, %at], %ring[%at], %bars[%at] multicast %at part %at of 4 : !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128>>, !tile.smem<2xi64>
  return
}

// -----

func.func @store_boxes_rows(%t: tensor<64x128xbf16>) {
  %buf = tile.alloc_shared : !tile.smem<2x64x32xbf16, #tile.swizzle<64>>
  // expected-error @below {{writes stages of 128-byte rows under a 128-byte swizzle, got '!tile.smem<2x64x32xbf16, #tile.swizzle<64>>'}}
  tile.store_boxes %t, %buf column 0 : tensor<64x128xbf16>, !tile.smem<2x64x32xbf16, #tile.swizzle<64>>
  return
}

// -----

func.func @store_boxes_columns(%t: tensor<64x128xbf16>) {
  %buf = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{columns 64 .. +128 of 'tensor<64x128xbf16>' do not fill the stages of '!tile.smem<2x64x64xbf16, #tile.swizzle<128>>'}}
  tile.store_boxes %t, %buf column 64 : tensor<64x128xbf16>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @tma_store_box(%m: !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>, %at: i32) {
  %buf = tile.alloc_shared : !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  // expected-error @below {{stages of '!tile.smem<2x64x64xbf16, #tile.swizzle<128>>' are not boxes of the tensor map '!tile.tensor_map<128x64xbf16, #tile.swizzle<128>>'}}
  tile.tma_store %m[%at, %at], %buf : !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>, !tile.smem<2x64x64xbf16, #tile.swizzle<128>>
  return
}

// -----

func.func @pad_inf_int(%v: !tile.view<?xi32>, %i: i32) {
  // expected-error @+1 {{'inf' pads only float tiles, not 'i32'}}
  %t = tile.load %v[%i] pad inf : tensor<8xi32>
  return
}

// -----

func.func @pad_float_int(%v: !tile.view<?xi32>, %i: i32) {
  // expected-error @+1 {{padding of an integer tile must be an integer}}
  %t = tile.load %v[%i] pad 1.5 : tensor<8xi32>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @load_view_type(%v: !tile.view<?x?xf32>, %i: i32) {
  // expected-error @+1 {{use of value '%v' expects different type than prior uses}}
  %t = tile.load %v[%i] : tensor<8xf32>
  return
}

// -----

// expected-error @+1 {{'tile.noalias' is a unit attribute of a !tile.ptr function argument}}
func.func @noalias_not_ptr(%n: i32 {tile.noalias}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.noalias' is a unit attribute of a !tile.ptr function argument}}
func.func @noalias_not_unit(%p: !tile.ptr<f32> {tile.noalias = 1 : i32}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{unknown tile dialect argument attribute 'tile.restrict'}}
func.func @unknown_arg_attr(%p: !tile.ptr<f32> {tile.restrict}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.shared_reserve' is a non-negative integer on a func.func}}
func.func @shared_reserve_negative() attributes {tile.kernel, tile.shared_reserve = -1 : i64} {
  return
}

// -----

func.func @histogram_add_counts(%t: tensor<16xi32>) {
  %b = tile.alloc_shared : !tile.smem<8xi64>
  // expected-error @+1 {{counts into an i32 buffer, got 'i64'}}
  tile.histogram_add %t, %b : tensor<16xi32>, !tile.smem<8xi64>
  return
}

// -----

func.func @histogram_add_rank(%t: tensor<16xi32>, %b: !tile.smem<2x8xi32>) {
  // expected-error @+1 {{counts into a rank-1 buffer of bins, got rank 2}}
  tile.histogram_add %t, %b : tensor<16xi32>, !tile.smem<2x8xi32>
  return
}

// -----

func.func @scan_total_float_add(%t: tensor<64xf32>) -> f32 {
  // expected-error @+1 {{a total needs integer elements or 'max' or 'min', got 'add' of 'f32'}}
  %s, %total = tile.scan add %t along 0 : tensor<64xf32> total f32
  return %total : f32
}

// -----

func.func @scan_total_type(%t: tensor<4x64xi32>) -> tensor<64xi32> {
  // expected-error @+1 {{total must be a 'tensor<4xi32>' tile}}
  %s, %total = tile.scan add %t along 1 : tensor<4x64xi32> total tensor<64xi32>
  return %total : tensor<64xi32>
}
