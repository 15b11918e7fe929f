// RUN: kernel-opt %s -split-input-file -verify-diagnostics -convert-tile-to-llvm=target=sm_80

// TMA copies and mbarrier transactions exist from sm_90 on: on sm_80 they
// are a located error, not an abort of the NVPTX backend.
func.func @tma_on_sm80(%x: !tile.ptr<bf16>, %m: i32, %k: i32) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %x[%m, %k] strides[%k, %c1] : !tile.ptr<bf16> -> !tile.view<?x?xbf16>
  // expected-error @+1 {{'tile.make_tensor_map' op needs a target with TMA and mbarrier transactions (sm_90a, sm_100a), not 'sm_80'}}
  %map = tile.make_tensor_map %v : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
  %ring = tile.alloc_shared {offset = 0 : i64} : !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>
  %bars = tile.alloc_shared {offset = 32768 : i64} : !tile.smem<2xi64>
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.tma_copy %map[%c0, %c0], %ring[%c0], %bars[%c0] : !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>, !tile.smem<2x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>, !tile.smem<2xi64>
  return
}

// -----

func.func @mbarrier_on_sm80() attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %bars = tile.alloc_shared {offset = 0 : i64} : !tile.smem<2xi64>
  // expected-error @+1 {{'tile.mbarrier_init' op needs a target with TMA and mbarrier transactions (sm_90a, sm_100a), not 'sm_80'}}
  tile.mbarrier_init %bars count 1 : !tile.smem<2xi64>
  tile.mbarrier_wait %bars[%c0] phase %c0 : !tile.smem<2xi64>
  return
}
