// y = bf16(float(x @ w^T) * scale), fp32 accumulation.
//
// x is (M, K) and w is (N, K), both row-major (K-major); scale is (N,) f32,
// one factor per output column (per weight row); y is (M, N) bf16, row-major.
// Program (n, m) of a grid of (ceil(N / BN), ceil(M / BM)) computes the
// BM x BN output tile at (BM m, BN n): a loop over K in steps of BK loads a
// tile of x and of w, and multiplies x by the transpose of w into the
// accumulator. Loads outside the matrices read zero, so any M, N, K >= 1
// works (a ragged K tail adds zeros); stores outside y are dropped.
//
// One template, instantiated per input type T and tile shape by
// tile-instantiate (each instance a kernel of its own, named
// gemm_<T>[_<BM>x<BN>][_s<stages>][_ws][_p|_sk][_mc2], 128 x 128 when unnamed;
// runtime/gemm_configs.cc picks one per shape): BK is 128 bytes of T, the
// row one swizzle span holds. 64-row tiles take one warpgroup (4 warps),
// others two; _s8 rings are 8 deep, for skinny products with one program
// per SM; _ws instances feed their ring from a producer warp of its own
// (tile-pipeline-loads' warp specialization); _p instances are
// persistent (tile-persistent): one wave of programs walks the tiles in
// groups of 8 tile rows, the producer warp loading the next tile while the
// consumers store the last; _sk instances split the K loop over grid z
// (tile-split-k), for products with fewer tiles than SMs: the programs of
// a tile add their partial sums, and the last to finish applies the scale
// and the cast. _pair instances exist for sm_100a only
// (tile.targets): programs m and m + 1 of a cluster of two share one
// tcgen05 instruction of 256 rows (tile.cta_pair), each staging half of
// the w tile; _pair_mc2 instances put two pairs of the same columns in a
// cluster of four (tile.multicast), which load each w tile once between
// them, multicast to both. gemm_fp8_ws_mc2 (sm_90a) does the same for two
// programs of the same columns on wgmma, each producer warp multicasting
// half of the w tile; it measured even with gemm_fp8_ws on an H100 (the
// products it would serve are not bound by L2), so the runtime's rule
// does not pick it, and its GPU test keeps the wgmma multicast ring
// checked.
//
// The passes choose where the operands go and which tensor-core
// instruction multiplies them (wgmma on sm_90a; mma.sync m16n8k16 for
// bf16, m16n8k32 for fp8 from sm_89 on, fp8 widened to bf16 on sm_80); the
// accumulator stays in registers for the scale and the cast.

!x_tile = tensor<128x64xbf16, #tile.sym<[BM, BK]>>
!w_tile = tensor<128x64xbf16, #tile.sym<[BN, BK]>>
!wt_tile = tensor<64x128xbf16, #tile.sym<[BK, BN]>>
!acc = tensor<128x128xf32, #tile.sym<[BM, BN]>>
!row = tensor<128xf32, #tile.sym<[BN]>>
!out = tensor<128x128xbf16, #tile.sym<[BM, BN]>>

func.func @gemm(%x: !tile.ptr<bf16> {tile.elem = "T"},
                %w: !tile.ptr<bf16> {tile.elem = "T"},
                %scale: !tile.ptr<f32>, %y: !tile.ptr<bf16>,
                %M: i32, %N: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {T = bf16, BM = 128 : i32, BN = 128 : i32,
                               BK = 64 : i32},
                tile.instances = {
                  gemm_bf16 = {},
                  gemm_bf16_128x256 = {BN = 256 : i32},
                  gemm_bf16_64x128 = {BM = 64 : i32,
                                      "tile.num_warps" = 4 : i32},
                  gemm_bf16_64x64 = {BM = 64 : i32, BN = 64 : i32,
                                     "tile.num_warps" = 4 : i32},
                  gemm_fp8 = {T = f8E4M3FN, BK = 128 : i32},
                  gemm_fp8_128x256 = {T = f8E4M3FN, BK = 128 : i32,
                                      BN = 256 : i32},
                  gemm_fp8_64x128 = {T = f8E4M3FN, BK = 128 : i32,
                                     BM = 64 : i32,
                                     "tile.num_warps" = 4 : i32},
                  gemm_fp8_64x64 = {T = f8E4M3FN, BK = 128 : i32,
                                    BM = 64 : i32, BN = 64 : i32,
                                    "tile.num_warps" = 4 : i32},
                  gemm_fp8_64x64_s8 = {T = f8E4M3FN, BK = 128 : i32,
                                       BM = 64 : i32, BN = 64 : i32,
                                       "tile.num_warps" = 4 : i32,
                                       "tile.num_stages" = 8 : i32},
                  gemm_bf16_64x64_s8 = {BM = 64 : i32, BN = 64 : i32,
                                        "tile.num_warps" = 4 : i32,
                                        "tile.num_stages" = 8 : i32},
                  gemm_bf16_ws = {"tile.warp_specialize" = true},
                  gemm_bf16_128x256_ws = {BN = 256 : i32,
                                          "tile.warp_specialize" = true},
                  gemm_bf16_64x128_ws = {BM = 64 : i32,
                                         "tile.num_warps" = 4 : i32,
                                         "tile.warp_specialize" = true},
                  gemm_fp8_ws = {T = f8E4M3FN, BK = 128 : i32,
                                 "tile.warp_specialize" = true},
                  gemm_fp8_128x256_ws = {T = f8E4M3FN, BK = 128 : i32,
                                         BN = 256 : i32,
                                         "tile.warp_specialize" = true},
                  gemm_fp8_64x128_ws = {T = f8E4M3FN, BK = 128 : i32,
                                        BM = 64 : i32,
                                        "tile.num_warps" = 4 : i32,
                                        "tile.warp_specialize" = true},
                  gemm_bf16_ws_p = {"tile.warp_specialize" = true,
                                    "tile.persistent" = 8 : i32},
                  gemm_bf16_128x256_ws_p = {BN = 256 : i32,
                                            "tile.warp_specialize" = true,
                                            "tile.persistent" = 8 : i32},
                  gemm_fp8_ws_p = {T = f8E4M3FN, BK = 128 : i32,
                                   "tile.warp_specialize" = true,
                                   "tile.persistent" = 8 : i32},
                  gemm_fp8_128x256_ws_p = {T = f8E4M3FN, BK = 128 : i32,
                                           BN = 256 : i32,
                                           "tile.warp_specialize" = true,
                                           "tile.persistent" = 8 : i32},
                  gemm_bf16_64x64_sk = {BM = 64 : i32, BN = 64 : i32,
                                        "tile.num_warps" = 4 : i32,
                                        "tile.split_k" = true},
                  gemm_fp8_64x64_sk = {T = f8E4M3FN, BK = 128 : i32,
                                       BM = 64 : i32, BN = 64 : i32,
                                       "tile.num_warps" = 4 : i32,
                                       "tile.split_k" = true},
                  gemm_bf16_64x128_ws_sk = {BM = 64 : i32,
                                            "tile.num_warps" = 4 : i32,
                                            "tile.warp_specialize" = true,
                                            "tile.split_k" = true},
                  gemm_fp8_64x128_ws_sk = {T = f8E4M3FN, BK = 128 : i32,
                                           BM = 64 : i32,
                                           "tile.num_warps" = 4 : i32,
                                           "tile.warp_specialize" = true,
                                           "tile.split_k" = true},
                  gemm_fp8_128x256_ws_sk = {T = f8E4M3FN, BK = 128 : i32,
                                            BN = 256 : i32,
                                            "tile.warp_specialize" = true,
                                            "tile.split_k" = true},
                  gemm_fp8_ws_mc2 = {T = f8E4M3FN, BK = 128 : i32,
                                     "tile.warp_specialize" = true,
                                     "tile.multicast" = 2 : i32,
                                     "tile.targets" = ["sm_90a"]},
                  gemm_bf16_pair = {BN = 256 : i32, "tile.cta_pair" = true,
                                    "tile.targets" = ["sm_100a"]},
                  gemm_fp8_pair = {T = f8E4M3FN, BK = 128 : i32,
                                   BN = 256 : i32, "tile.cta_pair" = true,
                                   "tile.targets" = ["sm_100a"]},
                  gemm_bf16_pair_mc2 = {BN = 256 : i32,
                                        "tile.cta_pair" = true,
                                        "tile.multicast" = 2 : i32,
                                        "tile.targets" = ["sm_100a"]},
                  gemm_fp8_pair_mc2 = {T = f8E4M3FN, BK = 128 : i32,
                                       BN = 256 : i32, "tile.cta_pair" = true,
                                       "tile.multicast" = 2 : i32,
                                       "tile.targets" = ["sm_100a"]}}} {
  %c0 = arith.constant 0 : i32
  %bm = tile.param "BM" : i32
  %bn = tile.param "BN" : i32
  %bk = tile.param "BK" : i32
  %n0 = tile.program_id x
  %m0 = tile.program_id y
  %row = arith.muli %m0, %bm : i32
  %col = arith.muli %n0, %bn : i32
  %xv = tile.make_view %x[%M, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %wv = tile.make_view %w[%N, %K] strides[%K, 1] : !tile.view<?x?xbf16>
  %sv = tile.make_view %scale[%N] strides[1] : !tile.view<?xf32>
  %yv = tile.make_view %y[%M, %N] strides[%N, 1] : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : !acc
  %acc = scf.for %k = %c0 to %K step %bk iter_args(%a = %zero) -> (!acc)
      : i32 {
    %xt = tile.load %xv[%row, %k] : !x_tile
    %wt = tile.load %wv[%col, %k] : !w_tile
    %b = tile.transpose %wt : !w_tile -> !wt_tile
    %d = tile.dot %xt, %b, %a : !x_tile, !wt_tile -> !acc
    scf.yield %d : !acc
  }
  %s = tile.load %sv[%col] : !row
  %sb = tile.broadcast %s along 0 : !row -> !acc
  %scaled = arith.mulf %acc, %sb : !acc
  %out = arith.truncf %scaled : !acc to !out
  tile.store %out, %yv[%row, %col] : !out
  return
}
