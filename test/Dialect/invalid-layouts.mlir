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
