// RUN: kernel-opt %s -split-input-file -verify-diagnostics

// Layout parameters the passes and the lowering compute with are bounded
// where the layout is written.

// A warp count whose product wraps around to 0 in 32 bits is still more
// than 32.
// expected-error @below {{blocked layout: more than 32 warps}}
func.func @wrapping_warps(%t: tensor<4x128xf32, #tile.blocked<size = [1, 1], threads = [1, 32], warps = [65536, 65536], order = [1, 0]>>) {
  return
}

// -----

// An mma layout's blocked form has its warps, so they are bounded alike.
// expected-error @below {{mma layout: more than 32 warps}}
func.func @mma_warps(%t: tensor<64x64xf32, #tile.mma<version = 2, warps = [65536, 1], instr = [16, 8, 16]>>) {
  return
}

// -----

// Shared-memory sizing of a dot divides the 32 bytes of an operand row by
// the instruction's K (a division by zero for K = 0).
// expected-error @below {{mma layout: instr K must be 16 or 32, got 0}}
func.func @mma_k(%t: tensor<64x64xf32, #tile.mma<version = 2, warps = [2, 1], instr = [16, 8, 0]>>) {
  return
}

// -----

// expected-error @below {{mma layout: instr M and N must be positive}}
func.func @mma_mn(%t: tensor<64x64xf32, #tile.mma<version = 3, warps = [4, 1], instr = [64, 0, 16]>>) {
  return
}

// -----

// A written layout spreads over the kernel's warps: one over 4 warps in a
// kernel of 8 would leave half of them without a share.
#blocked4 = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>
func.func @fewer_warps(%p: !tile.ptr<bf16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %p[%n, %n] strides[%n, %n] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  // expected-error @below {{'tile.load' op result 'tensor<64x128xbf16, #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>>' has a layout over 4 warps; the kernel has tile.num_warps = 8}}
  %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16, #blocked4>
  return
}

// -----

// Slices count their parent's warps.
#mma8 = #tile.mma<version = 2, warps = [1, 8], instr = [16, 8, 16]>
func.func @slice_warps(%p: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %p[%n] strides[%n] : !tile.ptr<f32> -> !tile.view<?xf32>
  // expected-error @below {{has a layout over 8 warps; the kernel has tile.num_warps = 4}}
  %t = tile.load %v[%c0] : !tile.view<?xf32> -> tensor<64xf32, #tile.slice<dim = 0, parent = #mma8>>
  return
}
