// KDA (Kimi Delta Attention) chunked forward.
//
// Per (sequence, head), token t: S <- diag(exp(g_t))·S;
// S <- S + beta_t·k_t ⊗ (v_t − Sᵀk_t); o_t = scale·Sᵀq_t, S (D×D) in fp32.
//
// q, k (tokens, H, D) bf16, v (tokens, H, D) bf16, g (tokens, H, D) f32,
// beta (tokens, H) bf16, o (tokens, H, D) bf16, with tokens = B·T (B
// sequences of T tokens) or, with cu_seqlens (has_cu = 1), N sequences
// packed along T: sequence n is tokens [cu[n], cu[n+1]). h0 / ht (N, H, D,
// D) f32: the initial state, read when has_h0 = 1 (else zero), and the final
// state, written when has_ht = 1. Absent buffers are views of no rows, so
// their loads read zeros and their stores do nothing.
//
// @kda_fwd_d{128,64}: program (h, n) walks the chunks of 64 tokens of
// sequence n, head h, in order, with S on chip. Per chunk, G = cumsum(g)
// (inclusive, per channel), and, writing Γ for exp(G) row-wise:
//  - A_qk[i,j] = scale·Σ_d q_i k_j exp(G_i − G_j) (i ≥ j), and
//    L[i,j] = beta_i·Σ_d k_i k_j exp(G_i − G_j) (i > j). exp(G_i − G_j)
//    is factored through the reference row r = 16·I + 8 of the 16-row
//    block I of i: exp(G_i − G_r)·exp(G_r − G_j), both operands zero
//    outside their rows (exponent −inf), so for decays (g ≤ 0) no factor
//    exceeds exp(8 steps of decay): no overflow for long chunks of strong
//    decay, only for decays stronger than ~11 per token;
//  - T = (I + L)⁻¹ = (I − L)(I + L²)(I + L⁴)…(I + L³²) by doubling (L is
//    nilpotent, L⁶⁴ = 0): five squarings and five products on the tensor
//    cores;
//  - W = T·(beta ⊙ k ⊙ Γ), U = T·(beta ⊙ v); v_new = U − W·S;
//  - o = scale·(q ⊙ Γ)·S + A_qk·v_new;
//  - S <- diag(exp(G_last))·S + (k ⊙ exp(G_last − G))ᵀ·v_new.
// Every dot here has f32 operands (tf32 on the tensor cores, m16n8k8).
// The two-phase kernels below take bf16 operands where measured to cost
// little: the bf16 prep's A_qk, L and WY inverse (fp32 accumulation,
// within 1.2x of tf32's error), the bf16 chain's state products (about
// double the output's error).
// A chunk past the end of the sequence reads zeros (k = v = q = g = beta
// = 0), which leaves S unchanged, and its rows of o are not stored.

!kv = tensor<64x128xbf16, #tile.sym<[64, D]>>
!kvf = tensor<64x128xf32, #tile.sym<[64, D]>>
!kvi = tensor<64x128xi32, #tile.sym<[64, D]>>
!kvb = tensor<64x128xi1, #tile.sym<[64, D]>>
!kt = tensor<128x64xf32, #tile.sym<[D, 64]>>
!chan = tensor<128xf32, #tile.sym<[D]>>
!chan2 = tensor<1x128xf32, #tile.sym<[1, D]>>
!st = tensor<128x128xf32, #tile.sym<[D, D]>>
!sq = tensor<64x64xf32>
!sqi = tensor<64x64xi32>
!sqb = tensor<64x64xi1>
// kda_prep's blocks of 16 rows: of q, k, G (16×D) and of A (16×64).
!bq = tensor<16x128xbf16, #tile.sym<[16, D]>>
!bf = tensor<16x128xf32, #tile.sym<[16, D]>>
!bsq = tensor<16x64xf32>
!bsqi = tensor<16x64xi32>
!bsqb = tensor<16x64xi1>
// The chain's dot operands, of element type P (bf16 written, f32 in the
// tf32 instances, where the truncations become identities and vanish).
!kvp = tensor<64x128xbf16, #tile.sym<[64, D]>>
!ktp = tensor<128x64xbf16, #tile.sym<[D, 64]>>
!sqp = tensor<64x64xbf16>
// kda_prep's record fields, of element type R (bf16 written, f32 in the
// instances whose chain multiplies in tf32).
!kvr = tensor<64x128xbf16, #tile.sym<[64, D]>>
!ktr = tensor<128x64xbf16, #tile.sym<[D, 64]>>
!bsqr = tensor<16x64xbf16>
!sqr = tensor<64x64xbf16>
// The chain's blocks of BV state columns: S_b (D×BV), v_new and o (64×BV).
!sb = tensor<128x32xf32, #tile.sym<[D, BV]>>
!sbp = tensor<128x32xbf16, #tile.sym<[D, BV]>>
!vbf = tensor<64x32xf32, #tile.sym<[64, BV]>>
!vbb = tensor<64x32xbf16, #tile.sym<[64, BV]>>
!sbi = tensor<128x32xi32, #tile.sym<[D, BV]>>
!sbb = tensor<128x32xi1, #tile.sym<[D, BV]>>
!sbc = tensor<128x1xi32, #tile.sym<[D, 1]>>
!sbr = tensor<1x32xi32, #tile.sym<[1, BV]>>

func.func @kda_fwd(%q: !tile.ptr<bf16>, %k: !tile.ptr<bf16>,
    %v: !tile.ptr<bf16>, %g: !tile.ptr<f32>, %beta: !tile.ptr<bf16>,
    %o: !tile.ptr<bf16>, %h0: !tile.ptr<f32>, %ht: !tile.ptr<f32>,
    %cu: !tile.ptr<i32>, %T: i32, %H: i32, %N: i32, %has_h0: i32,
    %has_ht: i32, %has_cu: i32, %scale: f32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {D = 128 : i32},
                tile.instances = {
                  kda_fwd_d128 = {},
                  kda_fwd_d64 = {D = 64 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %zf = arith.constant 0.0 : f32
  %onef = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %cD = tile.param "D" : i32
  %h = tile.program_id x
  %n = tile.program_id y

  // The sequence: tokens [start, start + len).
  %n1 = arith.addi %n, %c1 : i32
  %cuLen0 = arith.addi %N, %c1 : i32
  %useCu = arith.cmpi ne, %has_cu, %c0 : i32
  %cuLen = arith.select %useCu, %cuLen0, %c0 : i32
  %cuv = tile.make_view %cu[%cuLen] strides[1] : !tile.view<?xi32>
  %cuA = tile.load %cuv[%n] : tensor<1xi32>
  %cuB = tile.load %cuv[%n1] : tensor<1xi32>
  %bosRaw = tile.reduce max %cuA along 0 : tensor<1xi32>
  %eosRaw = tile.reduce max %cuB along 0 : tensor<1xi32>
  // Offsets outside [0, T] (T is the packed length here) are clamped into
  // it, so that no view reaches outside the tensors.
  %bosLo = arith.maxsi %bosRaw, %c0 : i32
  %bos = arith.minsi %bosLo, %T : i32
  %eosLo = arith.maxsi %eosRaw, %bos : i32
  %eos = arith.minsi %eosLo, %T : i32
  %cuSpan = arith.subi %eos, %bos : i32
  %nT = arith.muli %n, %T : i32
  %start = arith.select %useCu, %bos, %nT : i32
  %len = arith.select %useCu, %cuSpan, %T : i32

  // Views of this (sequence, head): rows are tokens, H·D elements apart.
  %start64 = arith.extui %start : i32 to i64
  %H64 = arith.extui %H : i32 to i64
  %h64 = arith.extui %h : i32 to i64
  %D64 = arith.extui %cD : i32 to i64
  %tokH = arith.muli %start64, %H64 : i64
  %row0 = arith.addi %tokH, %h64 : i64
  %elem0 = arith.muli %row0, %D64 : i64
  %HD = arith.muli %H, %cD : i32
  %qh = tile.addptr %q, %elem0 : !tile.ptr<bf16>, i64
  %kh = tile.addptr %k, %elem0 : !tile.ptr<bf16>, i64
  %vh = tile.addptr %v, %elem0 : !tile.ptr<bf16>, i64
  %gh = tile.addptr %g, %elem0 : !tile.ptr<f32>, i64
  %oh = tile.addptr %o, %elem0 : !tile.ptr<bf16>, i64
  %bh = tile.addptr %beta, %row0 : !tile.ptr<bf16>, i64
  %qv = tile.make_view %qh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
  %kv = tile.make_view %kh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
  %vv = tile.make_view %vh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
  %gv = tile.make_view %gh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xf32>
  %ov = tile.make_view %oh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
  // beta_t repeated along the columns (column stride 0), in the layouts of
  // the tiles it scales.
  %bv = tile.make_view %bh[%len] strides[%H] : !tile.view<?xbf16>

  // States of (n, h): D×D, at ((n·H + h)·D·D).
  %n64 = arith.extui %n : i32 to i64
  %nH = arith.muli %n64, %H64 : i64
  %nHh = arith.addi %nH, %h64 : i64
  %DD = arith.muli %D64, %D64 : i64
  %st0 = arith.muli %nHh, %DD : i64
  %h0h = tile.addptr %h0, %st0 : !tile.ptr<f32>, i64
  %hth = tile.addptr %ht, %st0 : !tile.ptr<f32>, i64
  %useH0 = arith.cmpi ne, %has_h0, %c0 : i32
  %useHt = arith.cmpi ne, %has_ht, %c0 : i32
  %h0Rows = arith.select %useH0, %cD, %c0 : i32
  %htRows = arith.select %useHt, %cD, %c0 : i32
  %h0v = tile.make_view %h0h[%h0Rows, %cD] strides[%cD, 1] : !tile.view<?x?xf32>
  %htv = tile.make_view %hth[%htRows, %cD] strides[%cD, 1] : !tile.view<?x?xf32>
  %S0 = tile.load %h0v[0, 0] : !st

  // Row and column indices of the chunk's tiles (exclusive sums of ones,
  // so that they take the layouts of the 2-D tiles they index).
  %iota = tile.iota : tensor<64xi32>
  %rowE = tile.expand_dims %iota at 1 : tensor<64xi32> -> tensor<64x1xi32>
  %rowKV = tile.broadcast %rowE : tensor<64x1xi32> -> !kvi
  %rowSq = tile.broadcast %rowE : tensor<64x1xi32> -> !sqi
  %colSq = tile.broadcast %iota along 0 : tensor<64xi32> -> !sqi
  %lower = arith.cmpi sge, %rowSq, %colSq : !sqi
  %strict = arith.cmpi sgt, %rowSq, %colSq : !sqi
  %diag = arith.cmpi eq, %rowSq, %colSq : !sqi
  %c63KV = tile.splat %c63 : !kvi
  %isLast = arith.cmpi eq, %rowKV, %c63KV : !kvi
  %zKV = tile.splat %zf : !kvf
  %ninfKV = tile.splat %ninf : !kvf
  %zSq = tile.splat %zf : !sq
  %oneSq = tile.splat %onef : !sq
  %scaleSq = tile.splat %scale : !sq
  %scaleKV = tile.splat %scale : !kvf
  %eye = arith.select %diag, %oneSq, %zSq : !sqb, !sq

  %len63 = arith.addi %len, %c63 : i32
  %nChunks = arith.divsi %len63, %c64 : i32
  %Sfin = scf.for %c = %c0 to %nChunks step %c1 iter_args(%S = %S0)
      -> (!st) : i32 {
    %t0 = arith.muli %c, %c64 : i32
    %qb = tile.load %qv[%t0, 0] : !kv
    %kb = tile.load %kv[%t0, 0] : !kv
    %vb = tile.load %vv[%t0, 0] : !kv
    %gt = tile.load %gv[%t0, 0] : !kvf
    %bt1b = tile.load %bv[%t0] : tensor<64xbf16>
    %qf = arith.extf %qb : !kv to !kvf
    %kf = arith.extf %kb : !kv to !kvf
    %vf = arith.extf %vb : !kv to !kvf
    // beta_t along the rows of the tiles it scales.
    %bt1 = arith.extf %bt1b : tensor<64xbf16> to tensor<64xf32>
    %btE = tile.expand_dims %bt1 at 1 : tensor<64xf32> -> tensor<64x1xf32>
    %btKV = tile.broadcast %btE : tensor<64x1xf32> -> !kvf
    %btSq = tile.broadcast %btE : tensor<64x1xf32> -> !sq

    // G = cumsum(g) along the tokens; G_last, the chunk's total decay.
    %G = tile.scan add %gt along 0 : !kvf
    %GlastRows = arith.select %isLast, %G, %ninfKV : !kvb, !kvf
    %Glast = tile.reduce max %GlastRows along 0 : !kvf
    %GlastKV = tile.broadcast %Glast along 0 : !chan -> !kvf

    // A_qk and the unscaled k·kᵀ, one 16-row block I of i at a time.
    %A:2 = scf.for %I = %c0 to %c4 step %c1 iter_args(%aqk = %zSq, %akk = %zSq)
        -> (!sq, !sq) : i32 {
      %first = arith.muli %I, %c16 : i32
      %end = arith.addi %first, %c16 : i32
      %ref = arith.addi %first, %c8 : i32
      %refKV = tile.splat %ref : !kvi
      %isRef = arith.cmpi eq, %rowKV, %refKV : !kvi
      %GrefRows = arith.select %isRef, %G, %ninfKV : !kvb, !kvf
      %Gref = tile.reduce max %GrefRows along 0 : !kvf
      %GrefKV = tile.broadcast %Gref along 0 : !chan -> !kvf
      %firstKV = tile.splat %first : !kvi
      %endKV = tile.splat %end : !kvi
      %geFirst = arith.cmpi sge, %rowKV, %firstKV : !kvi
      %ltEnd = arith.cmpi slt, %rowKV, %endKV : !kvi
      %inBlock = arith.andi %geFirst, %ltEnd : !kvb
      // Right: rows j before the block's end, exp(G_r − G_j); left: rows
      // i of block I, exp(G_i − G_r).
      %dr = arith.subf %GrefKV, %G : !kvf
      %drm = arith.select %ltEnd, %dr, %ninfKV : !kvb, !kvf
      %er = math.exp %drm : !kvf
      %kr = arith.mulf %kf, %er : !kvf
      %krT = tile.transpose %kr : !kvf -> !kt
      %dl = arith.subf %G, %GrefKV : !kvf
      %dlm = arith.select %inBlock, %dl, %ninfKV : !kvb, !kvf
      %el = math.exp %dlm : !kvf
      %ql = arith.mulf %qf, %el : !kvf
      %aqkN = tile.dot %ql, %krT, %aqk : !kvf, !kt -> !sq
      %kl = arith.mulf %kf, %el : !kvf
      %akkN = tile.dot %kl, %krT, %akk : !kvf, !kt -> !sq
      scf.yield %aqkN, %akkN : !sq, !sq
    }
    %aqkS = arith.mulf %A#0, %scaleSq : !sq
    %Aqk = arith.select %lower, %aqkS, %zSq : !sqb, !sq
    %akkB = arith.mulf %A#1, %btSq : !sq
    %negA = arith.subf %zSq, %akkB : !sq
    // N = −L (strictly lower); T = Σ Nⁿ = (I + N)(I + N²)(I + N⁴)…
    %Nl = arith.select %strict, %negA, %zSq : !sqb, !sq
    %X0 = arith.addf %eye, %Nl : !sq
    %inv:2 = scf.for %s = %c0 to %c5 step %c1 iter_args(%X = %X0, %P = %Nl)
        -> (!sq, !sq) : i32 {
      %P2 = tile.dot %P, %P, %zSq : !sq, !sq -> !sq
      %X2 = tile.dot %X, %P2, %X : !sq, !sq -> !sq
      scf.yield %X2, %P2 : !sq, !sq
    }

    // W (negated) and U; v_new = U − W·S.
    %eG = math.exp %G : !kvf
    %bk = arith.mulf %kf, %btKV : !kvf
    %bkg = arith.mulf %bk, %eG : !kvf
    %nbkg = arith.subf %zKV, %bkg : !kvf
    %bvv = arith.mulf %vf, %btKV : !kvf
    %Wn = tile.dot %inv#0, %nbkg, %zKV : !sq, !kvf -> !kvf
    %U = tile.dot %inv#0, %bvv, %zKV : !sq, !kvf -> !kvf
    %vnew = tile.dot %Wn, %S, %U : !kvf, !st -> !kvf

    // o = scale·(q ⊙ Γ)·S + A_qk·v_new.
    %qg = arith.mulf %qf, %eG : !kvf
    %qgs = arith.mulf %qg, %scaleKV : !kvf
    %oIntra = tile.dot %Aqk, %vnew, %zKV : !sq, !kvf -> !kvf
    %out = tile.dot %qgs, %S, %oIntra : !kvf, !st -> !kvf
    %outb = arith.truncf %out : !kvf to !kv
    tile.store %outb, %ov[%t0, 0] : !kv

    // S <- diag(exp(G_last))·S + (k ⊙ exp(G_last − G))ᵀ·v_new.
    %dEnd = arith.subf %GlastKV, %G : !kvf
    %eEnd = math.exp %dEnd : !kvf
    %kEnd = arith.mulf %kf, %eEnd : !kvf
    %kEndT = tile.transpose %kEnd : !kvf -> !kt
    %decay = math.exp %Glast : !chan
    %decayB = tile.broadcast %decay along 1 : !chan -> !st
    %Sd = arith.mulf %S, %decayB : !st
    %Sn = tile.dot %kEndT, %vnew, %Sd : !kt, !kvf -> !st
    scf.yield %Sn : !st
  }
  tile.store %Sfin, %htv[0, 0] : !st
  return
}

// The same computation in two launches, so that everything a chunk needs
// but S is computed by parallel programs, and the serial chain per
// (sequence, head) is four dots per chunk.
//
// @kda_prep_d{128,64}: program (h, n, c) takes chunk c of sequence n, head
// h (programs past the sequence's last chunk do nothing) and writes its
// record to the workspace ws (f32): −W, U, scale·(q ⊙ Γ) (64×D each, rows
// 0-191 of a D-wide record), (k ⊙ exp(G_last − G))ᵀ (D×64, in rows
// 192-255 read as D rows of 64, so that the chain loads it as the K-major
// operand its dot takes), A_qk (64×64, after row 256), and exp(G_last) (D
// f32) to decays. Record (slot, h) starts at (slot·H + h)·REC,
// REC = 256·D + 4096, and its decays at (slot·H + h)·D,
// with slot = n·C + c (C = ceil(T / 64)), or, with
// cu_seqlens, floor(bos / 64) + n + c: sequences' slots never overlap
// since Σ_{m<n} ceil(len_m / 64) ≤ floor(bos_n / 64) + n, and there are at
// most floor(T / 64) + N + 1 of them.
// @kda_prep_bf16_d{128,64}: the same with the record in bf16 (R = bf16;
// exp(G_last) stays f32: it scales the state every chunk), for the bf16
// chain: half the bytes written here and read there.
//
// @kda_chain_d{128,64}: program (h, n, b) walks the records of its chunks
// for columns [b·BV, (b + 1)·BV) of the state and of o (the columns of S
// evolve independently: v_new, o and the update of S column j read only
// column j of S and of U). With S_b = S[:, block]:
// v_new = U_b − W·S_b, o_b = scale·(q ⊙ Γ)·S_b + A_qk·v_new,
// S_b <- diag(exp(G_last))·S_b + (k ⊙ exp(G_last − G))ᵀ·v_new, on tf32
// dots. Splitting V gives D / BV programs per (sequence, head): the chain
// is serial in the chunks, so more programs is the only way to more SMs.
// @kda_chain_bf16_d{128,64}: the same on kda_prep_bf16's records, with
// bf16 operands (S, W, v_new, ... in bf16 for the products, accumulation
// and S in fp32): the GPU tests put its output errors at 0.6-0.7% of the
// largest output (8.8e-5 to 2.0e-4), about twice the tf32 chain's. Its
// record fields are its dot operands as loaded, so the
// pipelined rings feed the dots in place.
func.func @kda_prep(%q: !tile.ptr<bf16>, %k: !tile.ptr<bf16>,
    %v: !tile.ptr<bf16>, %g: !tile.ptr<f32>, %beta: !tile.ptr<bf16>,
    %ws: !tile.ptr<bf16> {tile.elem = "R"}, %decays: !tile.ptr<f32>,
    %cu: !tile.ptr<i32>, %T: i32, %H: i32, %N: i32, %has_cu: i32,
    %scale: f32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {D = 128 : i32, R = bf16},
                tile.instances = {
                  kda_prep_d128 = {R = f32},
                  kda_prep_d64 = {D = 64 : i32, R = f32},
                  kda_prep_bf16_d128 = {},
                  kda_prep_bf16_d64 = {D = 64 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c256_64 = arith.constant 256 : i64
  %c4096 = arith.constant 4096 : i64
  %zf = arith.constant 0.0 : f32
  %onef = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %cD = tile.param "D" : i32
  %h = tile.program_id x
  %n = tile.program_id y
  %c = tile.program_id z

  %n1 = arith.addi %n, %c1 : i32
  %cuLen0 = arith.addi %N, %c1 : i32
  %useCu = arith.cmpi ne, %has_cu, %c0 : i32
  %cuLen = arith.select %useCu, %cuLen0, %c0 : i32
  %cuv = tile.make_view %cu[%cuLen] strides[1] : !tile.view<?xi32>
  %cuA = tile.load %cuv[%n] : tensor<1xi32>
  %cuB = tile.load %cuv[%n1] : tensor<1xi32>
  %bosRaw = tile.reduce max %cuA along 0 : tensor<1xi32>
  %eosRaw = tile.reduce max %cuB along 0 : tensor<1xi32>
  %bosLo = arith.maxsi %bosRaw, %c0 : i32
  %bos = arith.minsi %bosLo, %T : i32
  %eosLo = arith.maxsi %eosRaw, %bos : i32
  %eos = arith.minsi %eosLo, %T : i32
  %cuSpan = arith.subi %eos, %bos : i32
  %nT = arith.muli %n, %T : i32
  %start = arith.select %useCu, %bos, %nT : i32
  %len = arith.select %useCu, %cuSpan, %T : i32
  %len63 = arith.addi %len, %c63 : i32
  %nChunks = arith.divsi %len63, %c64 : i32
  %T63 = arith.addi %T, %c63 : i32
  %C = arith.divsi %T63, %c64 : i32
  %bos64 = arith.shrsi %bos, %c6 : i32
  %cuSlot = arith.addi %bos64, %n : i32
  %nC = arith.muli %n, %C : i32
  %slot0 = arith.select %useCu, %cuSlot, %nC : i32
  %slot = arith.addi %slot0, %c : i32
  %live = arith.cmpi slt, %c, %nChunks : i32
  scf.if %live {
    %start64 = arith.extui %start : i32 to i64
    %H64 = arith.extui %H : i32 to i64
    %h64 = arith.extui %h : i32 to i64
    %D64 = arith.extui %cD : i32 to i64
    %tokH = arith.muli %start64, %H64 : i64
    %row0 = arith.addi %tokH, %h64 : i64
    %elem0 = arith.muli %row0, %D64 : i64
    %HD = arith.muli %H, %cD : i32
    %qh = tile.addptr %q, %elem0 : !tile.ptr<bf16>, i64
    %kh = tile.addptr %k, %elem0 : !tile.ptr<bf16>, i64
    %vh = tile.addptr %v, %elem0 : !tile.ptr<bf16>, i64
    %gh = tile.addptr %g, %elem0 : !tile.ptr<f32>, i64
    %bh = tile.addptr %beta, %row0 : !tile.ptr<bf16>, i64
    %qv = tile.make_view %qh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
    %kv = tile.make_view %kh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
    %vv = tile.make_view %vh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>
    %gv = tile.make_view %gh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xf32>
    %bv = tile.make_view %bh[%len] strides[%H] : !tile.view<?xbf16>
    // This chunk's record.
    %slot64 = arith.extui %slot : i32 to i64
    %slotH = arith.muli %slot64, %H64 : i64
    %rec0 = arith.addi %slotH, %h64 : i64
    %D256 = arith.muli %D64, %c256_64 : i64
    %recLen = arith.addi %D256, %c4096 : i64
    %recAt = arith.muli %rec0, %recLen : i64
    %wsr = tile.addptr %ws, %recAt : !tile.ptr<bf16>, i64
    %recv = tile.make_view %wsr[192, %cD] strides[%cD, 1] : !tile.view<?x?xbf16>
    %wsa = tile.addptr %wsr, %D256 : !tile.ptr<bf16>, i64
    %aqv = tile.make_view %wsa[64, 64] strides[64, 1] : !tile.view<?x?xbf16>
    // The record in rows of 64: (k ⊙ exp(G_last − G))ᵀ (D×64) at row 3·D.
    %cD3 = arith.muli %cD, %c3 : i32
    %cD4 = arith.addi %cD3, %cD : i32
    %rec64 = tile.make_view %wsr[%cD4, 64] strides[64, 1] : !tile.view<?x?xbf16>
    // exp(G_last), in f32 whatever R is: it scales the state every chunk.
    %decAt = arith.muli %rec0, %D64 : i64
    %decp = tile.addptr %decays, %decAt : !tile.ptr<f32>, i64
    %decv = tile.make_view %decp[1, %cD] strides[%cD, 1] : !tile.view<?x?xf32>

    %iota = tile.iota : tensor<64xi32>
    %rowE = tile.expand_dims %iota at 1 : tensor<64xi32> -> tensor<64x1xi32>
    %rowKV = tile.broadcast %rowE : tensor<64x1xi32> -> !kvi
    %rowSq = tile.broadcast %rowE : tensor<64x1xi32> -> !sqi
    %colSq = tile.broadcast %iota along 0 : tensor<64xi32> -> !sqi
    %diag = arith.cmpi eq, %rowSq, %colSq : !sqi
    %zKV = tile.splat %zf : !kvf
    %ninfKV = tile.splat %ninf : !kvf
    %zSq = tile.splat %zf : !sq
    %oneSq = tile.splat %onef : !sq
    %scaleKV = tile.splat %scale : !kvf
    %eye = arith.select %diag, %oneSq, %zSq : !sqb, !sq

    %t0 = arith.muli %c, %c64 : i32
    %qb = tile.load %qv[%t0, 0] : !kv
    %kb = tile.load %kv[%t0, 0] : !kv
    %gt = tile.load %gv[%t0, 0] : !kvf
    %bt1b = tile.load %bv[%t0] : tensor<64xbf16>
    %qf = arith.extf %qb : !kv to !kvf
    %kf = arith.extf %kb : !kv to !kvf
    // beta_t along the rows of the tiles it scales.
    %bt1 = arith.extf %bt1b : tensor<64xbf16> to tensor<64xf32>
    %btE = tile.expand_dims %bt1 at 1 : tensor<64xf32> -> tensor<64x1xf32>
    %btKV = tile.broadcast %btE : tensor<64x1xf32> -> !kvf

    %G = tile.scan add %gt along 0 : !kvf
    // G in shared memory, where each 16-row block below reads its own rows
    // and its reference row, and the chunk's last row is G_last.
    %gbuf = tile.alloc_shared : !tile.smem<8192xf32>
    tile.store_shared %G, %gbuf[%c0] : !kvf, !tile.smem<8192xf32>
    tile.barrier
    %lastAt = arith.muli %c63, %cD : i32
    %Glast = tile.load_shared %gbuf[%lastAt] : !tile.smem<8192xf32> -> !chan
    %GlastKV = tile.broadcast %Glast along 0 : !chan -> !kvf

    // A_qk and L block by block of 16 rows i: A[i, j] over every j < the
    // block's end, from a 16-row dot, rather than a 64-row dot of which
    // 48 rows are zero. A_qk's rows go to the record; L's rows, as N =
    // −L (strictly lower), to shared memory for the inverse.
    %nbuf = tile.alloc_shared : !tile.smem<4096xf32>
    %iota16 = tile.iota : tensor<16xi32>
    %row16E = tile.expand_dims %iota16 at 1 : tensor<16xi32> -> tensor<16x1xi32>
    %row16 = tile.broadcast %row16E : tensor<16x1xi32> -> !bsqi
    %col16 = tile.broadcast %iota along 0 : tensor<64xi32> -> !bsqi
    %zB = tile.splat %zf : !bsq
    %scaleB = tile.splat %scale : !bsq
    scf.for %I = %c0 to %c4 step %c1 : i32 {
      %first = arith.muli %I, %c16 : i32
      %end = arith.addi %first, %c16 : i32
      %ref = arith.addi %first, %c8 : i32
      %refAt = arith.muli %ref, %cD : i32
      %Gref = tile.load_shared %gbuf[%refAt] : !tile.smem<8192xf32> -> !chan
      %GrefKV = tile.broadcast %Gref along 0 : !chan -> !kvf
      %GrefB = tile.broadcast %Gref along 0 : !chan -> !bf
      %blockAt = arith.muli %first, %cD : i32
      %GI = tile.load_shared %gbuf[%blockAt] : !tile.smem<8192xf32> -> !bf
      // k_j ⊙ exp(G_r − G_j) for j below the block's end, zero past it.
      %endKV = tile.splat %end : !kvi
      %ltEnd = arith.cmpi slt, %rowKV, %endKV : !kvi
      %dr = arith.subf %GrefKV, %G : !kvf
      %drm = arith.select %ltEnd, %dr, %ninfKV : !kvb, !kvf
      %er = math.exp %drm : !kvf
      %kr = arith.mulf %kf, %er : !kvf
      %krT = tile.transpose %kr : !kvf -> !kt
      // q_i and k_i ⊙ exp(G_i − G_r) for the block's rows.
      %tI = arith.addi %t0, %first : i32
      %qIb = tile.load %qv[%tI, 0] : !bq
      %kIb = tile.load %kv[%tI, 0] : !bq
      %qI = arith.extf %qIb : !bq to !bf
      %kI = arith.extf %kIb : !bq to !bf
      %dl = arith.subf %GI, %GrefB : !bf
      %el = math.exp %dl : !bf
      %ql = arith.mulf %qI, %el : !bf
      %kl = arith.mulf %kI, %el : !bf
      // In the bf16 instances A_qk and L come from bf16 operands, as the
      // inverse below takes them: records and output stay within 1.2x of
      // the tf32 operands' error (bench/RESULTS.md, 2026-12-07).
      %qlR = arith.truncf %ql {tile.elem = "R"} : !bf to !bq
      %klR = arith.truncf %kl {tile.elem = "R"} : !bf to !bq
      %krTR = arith.truncf %krT {tile.elem = "R"} : !kt to !ktr
      %aqkI = tile.dot %qlR, %krTR, %zB : !bq, !ktr -> !bsq
      %akkI = tile.dot %klR, %krTR, %zB : !bq, !ktr -> !bsq
      %firstB = tile.splat %first : !bsqi
      %rowI = arith.addi %row16, %firstB : !bsqi
      %lowerI = arith.cmpi sge, %rowI, %col16 : !bsqi
      %strictI = arith.cmpi sgt, %rowI, %col16 : !bsqi
      %aqkS = arith.mulf %aqkI, %scaleB : !bsq
      %AqkI = arith.select %lowerI, %aqkS, %zB : !bsqb, !bsq
      %AqkR = arith.truncf %AqkI {tile.elem = "R"} : !bsq to !bsqr
      tile.store %AqkR, %aqv[%first, 0] : !bsqr
      %btIb = tile.load %bv[%tI] : tensor<16xbf16>
      %btI = arith.extf %btIb : tensor<16xbf16> to tensor<16xf32>
      %btIE = tile.expand_dims %btI at 1 : tensor<16xf32> -> tensor<16x1xf32>
      %btIB = tile.broadcast %btIE : tensor<16x1xf32> -> !bsq
      %akkB = arith.mulf %akkI, %btIB : !bsq
      %negA = arith.subf %zB, %akkB : !bsq
      %NlI = arith.select %strictI, %negA, %zB : !bsqb, !bsq
      %nAt = arith.muli %first, %c64 : i32
      tile.store_shared %NlI, %nbuf[%nAt] : !bsq, !tile.smem<4096xf32>
    }
    // What needs q and the decays goes out first, so that q's registers
    // are free for the inverse.
    %eG = math.exp %G : !kvf
    %qg = arith.mulf %qf, %eG : !kvf
    %qgs = arith.mulf %qg, %scaleKV : !kvf
    %qgsR = arith.truncf %qgs {tile.elem = "R"} : !kvf to !kvr
    tile.store %qgsR, %recv[128, 0] : !kvr
    %dEnd = arith.subf %GlastKV, %G : !kvf
    %eEnd = math.exp %dEnd : !kvf
    %kEnd = arith.mulf %kf, %eEnd : !kvf
    %kEndT = tile.transpose %kEnd : !kvf -> !kt
    %kEndTR = arith.truncf %kEndT {tile.elem = "R"} : !kt to !ktr
    tile.store %kEndTR, %rec64[%cD3, 0] : !ktr
    %decay = math.exp %Glast : !chan
    %decayE = tile.expand_dims %decay at 0 : !chan -> !chan2
    tile.store %decayE, %decv[0, 0] : !chan2

    tile.barrier
    %Nl = tile.load_shared %nbuf[%c0] : !tile.smem<4096xf32> -> !sq
    %X0 = arith.addf %eye, %Nl : !sq
    // The doubling's products take R operands (X and the powers of L stay
    // f32 between steps): half the bytes staged through shared memory and
    // half the tensor-core instructions of tf32, which is what bounds this
    // kernel (its shared-memory queue).
    %inv:2 = scf.for %s = %c0 to %c5 step %c1 iter_args(%X = %X0, %P = %Nl)
        -> (!sq, !sq) : i32 {
      %PR = arith.truncf %P {tile.elem = "R"} : !sq to !sqr
      %P2 = tile.dot %PR, %PR, %zSq : !sqr, !sqr -> !sq
      %XR = arith.truncf %X {tile.elem = "R"} : !sq to !sqr
      %P2R = arith.truncf %P2 {tile.elem = "R"} : !sq to !sqr
      %X2 = tile.dot %XR, %P2R, %X : !sqr, !sqr -> !sq
      scf.yield %X2, %P2 : !sq, !sq
    }

    // W and U are stored as R, so their products take R operands: in
    // bf16 that costs about the rounding of the result itself.
    %invR = arith.truncf %inv#0 {tile.elem = "R"} : !sq to !sqr
    %bk = arith.mulf %kf, %btKV : !kvf
    %bkg = arith.mulf %bk, %eG : !kvf
    %nbkg = arith.subf %zKV, %bkg : !kvf
    %nbkgR = arith.truncf %nbkg {tile.elem = "R"} : !kvf to !kvr
    %Wn = tile.dot %invR, %nbkgR, %zKV : !sqr, !kvr -> !kvf
    %WnR = arith.truncf %Wn {tile.elem = "R"} : !kvf to !kvr
    tile.store %WnR, %recv[0, 0] : !kvr
    %vb = tile.load %vv[%t0, 0] : !kv
    %vf = arith.extf %vb : !kv to !kvf
    %bvv = arith.mulf %vf, %btKV : !kvf
    %bvvR = arith.truncf %bvv {tile.elem = "R"} : !kvf to !kvr
    %U = tile.dot %invR, %bvvR, %zKV : !sqr, !kvr -> !kvf
    %UR = arith.truncf %U {tile.elem = "R"} : !kvf to !kvr
    tile.store %UR, %recv[64, 0] : !kvr
  }
  return
}


func.func @kda_chain(%ws: !tile.ptr<bf16> {tile.elem = "P"},
    %decays: !tile.ptr<f32>, %o: !tile.ptr<bf16> {tile.noalias},
    %h0: !tile.ptr<f32>, %ht: !tile.ptr<f32>, %segs: !tile.ptr<f32>,
    %cu: !tile.ptr<i32>, %T: i32, %H: i32, %N: i32, %has_h0: i32,
    %has_ht: i32, %has_cu: i32, %L: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                // The rings of the next chunk's record leave 64 KiB to
                // the dots' operands staged from registers.
                tile.shared_reserve = 65536 : i64,
                tile.params = {D = 128 : i32, BV = 32 : i32, P = bf16,
                               COMPOSE = 0 : i32},
                tile.instances = {
                  kda_chain_d128 = {P = f32},
                  kda_chain_d64 = {D = 64 : i32, BV = 16 : i32, P = f32},
                  kda_chain_bf16_d128 = {},
                  kda_chain_bf16_d64 = {D = 64 : i32, BV = 16 : i32},
                  kda_compose_d128 = {P = f32, COMPOSE = 1 : i32},
                  kda_compose_d64 = {D = 64 : i32, BV = 16 : i32, P = f32,
                                     COMPOSE = 1 : i32},
                  // A ring of two stages (88 KiB in all, 126 registers)
                  // lets two programs share an SM: the composition has
                  // twice the chain's programs. 3-6% faster end to end
                  // on the segmented shapes, none slower (H100,
                  // bench/RESULTS.md, 2026-12-07, evening).
                  kda_compose_bf16_d128 = {COMPOSE = 1 : i32,
                                           "tile.num_stages" = 2 : i32},
                  kda_compose_bf16_d64 = {D = 64 : i32, BV = 16 : i32,
                                          COMPOSE = 1 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c6 = arith.constant 6 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %c4096 = arith.constant 4096 : i32
  %c256_64 = arith.constant 256 : i64
  %c4096_64 = arith.constant 4096 : i64
  %true = arith.constant true
  %zf = arith.constant 0.0 : f32
  %onef = arith.constant 1.0 : f32
  %cD = tile.param "D" : i32
  %cBV = tile.param "BV" : i32
  %cCompose = tile.param "COMPOSE" : i32
  %compose = arith.cmpi ne, %cCompose, %c0 : i32
  %chain = arith.xori %compose, %true : i1
  // Program (h·NB + j, n, s): head h, block j of columns, sequence n,
  // segment s, with NB = D / BV blocks of the state, or 2D / BV of [B | M]
  // when composing. A head's blocks are neighbours in launch order, so
  // they run together and read each record from L2 after the first.
  %cD2 = arith.muli %cD, %c2 : i32
  %width = arith.select %compose, %cD2, %cD : i32
  %nb = arith.divsi %width, %cBV : i32
  %x = tile.program_id x
  %n = tile.program_id y
  %s = tile.program_id z
  %h = arith.divsi %x, %nb : i32
  %j = arith.remsi %x, %nb : i32

  %n1 = arith.addi %n, %c1 : i32
  %cuLen0 = arith.addi %N, %c1 : i32
  %useCu = arith.cmpi ne, %has_cu, %c0 : i32
  %cuLen = arith.select %useCu, %cuLen0, %c0 : i32
  %cuv = tile.make_view %cu[%cuLen] strides[1] : !tile.view<?xi32>
  %cuA = tile.load %cuv[%n] : tensor<1xi32>
  %cuB = tile.load %cuv[%n1] : tensor<1xi32>
  %bosRaw = tile.reduce max %cuA along 0 : tensor<1xi32>
  %eosRaw = tile.reduce max %cuB along 0 : tensor<1xi32>
  %bosLo = arith.maxsi %bosRaw, %c0 : i32
  %bos = arith.minsi %bosLo, %T : i32
  %eosLo = arith.maxsi %eosRaw, %bos : i32
  %eos = arith.minsi %eosLo, %T : i32
  %cuSpan = arith.subi %eos, %bos : i32
  %nT = arith.muli %n, %T : i32
  %start = arith.select %useCu, %bos, %nT : i32
  %len = arith.select %useCu, %cuSpan, %T : i32
  %len63 = arith.addi %len, %c63 : i32
  %nChunks = arith.divsi %len63, %c64 : i32
  %T63 = arith.addi %T, %c63 : i32
  %C = arith.divsi %T63, %c64 : i32
  %bos64 = arith.shrsi %bos, %c6 : i32
  %cuSlot = arith.addi %bos64, %n : i32
  %nC = arith.muli %n, %C : i32
  %slot0 = arith.select %useCu, %cuSlot, %nC : i32

  %jcol = arith.muli %j, %cBV : i32
  %pastD = arith.cmpi sge, %jcol, %cD : i32
  %isM = arith.andi %compose, %pastD : i1
  %notM = arith.xori %isM, %true : i1
  %colM = arith.subi %jcol, %cD : i32
  %col = arith.select %isM, %colM, %jcol : i32
  %segFirst = arith.muli %s, %L : i32
  %segEnd0 = arith.addi %segFirst, %L : i32
  %segEnd = arith.minsi %segEnd0, %nChunks : i32
  %first = arith.cmpi eq, %s, %c0 : i32
  %later = arith.xori %first, %true : i1
  %started = arith.cmpi slt, %segFirst, %nChunks : i32
  %lastSeg = arith.cmpi eq, %segEnd, %nChunks : i32
  %notLast = arith.xori %lastSeg, %true : i1
  // The chain: segment 0 always (an empty sequence still writes its final
  // state), later segments that hold chunks. Composing: every segment
  // but the last (whose map nothing reads); segment 0's M is not needed.
  %chainLive = arith.ori %first, %started : i1
  %firstM = arith.andi %first, %isM : i1
  %notFirstM = arith.xori %firstM, %true : i1
  %mapNeeded = arith.andi %started, %notLast : i1
  %composeLive = arith.andi %mapNeeded, %notFirstM : i1
  %live = arith.select %compose, %composeLive, %chainLive : i1
  %loopEnd = arith.select %live, %segEnd, %segFirst : i32

  %start64 = arith.extui %start : i32 to i64
  %H64 = arith.extui %H : i32 to i64
  %h64 = arith.extui %h : i32 to i64
  %D64 = arith.extui %cD : i32 to i64
  %tokH = arith.muli %start64, %H64 : i64
  %row0 = arith.addi %tokH, %h64 : i64
  %elem0 = arith.muli %row0, %D64 : i64
  %HD = arith.muli %H, %cD : i32
  %oh = tile.addptr %o, %elem0 : !tile.ptr<bf16>, i64
  %ov = tile.make_view %oh[%len, %cD] strides[%HD, 1] : !tile.view<?x?xbf16>

  // The records of this (sequence, head), chunk c's H records after chunk
  // c − 1's: D-wide rows (REC / D of them per record) for −W, U, q ⊙ Γ
  // and the decayed k, 64-wide rows (REC / 64 per record) for A_qk.
  %D256 = arith.muli %D64, %c256_64 : i64
  %recLen = arith.addi %D256, %c4096_64 : i64
  %slot0_64 = arith.extui %slot0 : i32 to i64
  %slotH = arith.muli %slot0_64, %H64 : i64
  %rec0 = arith.addi %slotH, %h64 : i64
  %recAt = arith.muli %rec0, %recLen : i64
  %wsr = tile.addptr %ws, %recAt : !tile.ptr<bf16>, i64
  %recRowsD0 = arith.divsi %c4096, %cD : i32
  %recRowsD = arith.addi %recRowsD0, %c256 : i32
  %recRows64 = arith.muli %cD, %c256 : i32
  %recRows64a = arith.divsi %recRows64, %c64 : i32
  %recRowsA = arith.addi %recRows64a, %c64 : i32
  %c3 = arith.constant 3 : i32
  %cD3 = arith.muli %cD, %c3 : i32
  %strideD = arith.muli %recRowsD, %H : i32
  %strideA = arith.muli %recRowsA, %H : i32
  %rowsD = arith.muli %strideD, %nChunks : i32
  %rowsA = arith.muli %strideA, %nChunks : i32
  %recv = tile.make_view %wsr[%rowsD, %cD] strides[%cD, 1] : !tile.view<?x?xbf16>
  %rec64 = tile.make_view %wsr[%rowsA, 64] strides[64, 1] : !tile.view<?x?xbf16>
  // exp(G_last) of each chunk, D f32 at (slot·H + h)·D.
  %decAt = arith.muli %rec0, %D64 : i64
  %decp = tile.addptr %decays, %decAt : !tile.ptr<f32>, i64
  %decLen = arith.muli %nChunks, %HD : i32
  %decv = tile.make_view %decp[%decLen] strides[1] : !tile.view<?xf32>

  // States of (n, h): D×D at ((n·H + h)·D·D), this program's columns.
  %n64 = arith.extui %n : i32 to i64
  %nH = arith.muli %n64, %H64 : i64
  %nHh = arith.addi %nH, %h64 : i64
  %DD = arith.muli %D64, %D64 : i64
  %st0 = arith.muli %nHh, %DD : i64
  %h0h = tile.addptr %h0, %st0 : !tile.ptr<f32>, i64
  %hth = tile.addptr %ht, %st0 : !tile.ptr<f32>, i64
  %useH00 = arith.cmpi ne, %has_h0, %c0 : i32
  %useH01 = arith.andi %useH00, %first : i1
  %useH0 = arith.andi %useH01, %notM : i1
  %useHt0 = arith.cmpi ne, %has_ht, %c0 : i32
  %useHt1 = arith.andi %useHt0, %lastSeg : i1
  %useHt = arith.andi %useHt1, %live : i1
  %h0Rows = arith.select %useH0, %cD, %c0 : i32
  %htRows = arith.select %useHt, %cD, %c0 : i32
  %h0v = tile.make_view %h0h[%h0Rows, %cD] strides[%cD, 1] : !tile.view<?x?xf32>
  %htv = tile.make_view %hth[%htRows, %cD] strides[%cD, 1] : !tile.view<?x?xf32>

  // Segment (n, s, h) of segs: its map [B | M] (D×2D) then its entry state
  // (D×D), at ((segBase + s)·H + h)·3D², segBase = n·ceil(C / L), or with
  // cu_seqlens floor(bos / 64L) + n (no overlap, as for the records).
  %L63 = arith.addi %C, %L : i32
  %L63m = arith.subi %L63, %c1 : i32
  %segsPer = arith.divsi %L63m, %L : i32
  %nSegs = arith.muli %n, %segsPer : i32
  %tokL = arith.muli %L, %c64 : i32
  %bosL = arith.divsi %bos, %tokL : i32
  %cuSeg = arith.addi %bosL, %n : i32
  %segBase = arith.select %useCu, %cuSeg, %nSegs : i32
  %segSlot = arith.addi %segBase, %s : i32
  %segSlot64 = arith.extui %segSlot : i32 to i64
  %segH = arith.muli %segSlot64, %H64 : i64
  %segRec = arith.addi %segH, %h64 : i64
  %c3_64 = arith.constant 3 : i64
  %DD3 = arith.muli %DD, %c3_64 : i64
  %segAt = arith.muli %segRec, %DD3 : i64
  %segp = tile.addptr %segs, %segAt : !tile.ptr<f32>, i64
  %DD2 = arith.addi %DD, %DD : i64
  %entryp = tile.addptr %segp, %DD2 : !tile.ptr<f32>, i64
  // Only a live program reads its entry state: past a sequence's last
  // segment the slot is another sequence's, or past the buffer's end.
  %useEntry0 = arith.andi %chain, %later : i1
  %useEntry = arith.andi %useEntry0, %live : i1
  %entryRows = arith.select %useEntry, %cD, %c0 : i32
  %entryv = tile.make_view %entryp[%entryRows, %cD] strides[%cD, 1]
      : !tile.view<?x?xf32>
  %mapRows = arith.select %composeLive, %cD, %c0 : i32
  %mapv = tile.make_view %segp[%mapRows, %cD2] strides[%cD2, 1]
      : !tile.view<?x?xf32>

  // The state this program starts from: h0 (segment 0), the entry state
  // the segment scan wrote (later segments), or, composing, 0 for B and
  // the identity for M.
  %S0h = tile.load %h0v[0, %col] : !sb
  %S0 = scf.if %compose -> (!sb) {
    %rowsI = tile.iota : tensor<128xi32, #tile.sym<[D]>>
    %colsI = tile.iota : tensor<32xi32, #tile.sym<[BV]>>
    %rowsE = tile.expand_dims %rowsI at 1
        : tensor<128xi32, #tile.sym<[D]>> -> !sbc
    %colsE = tile.expand_dims %colsI at 0
        : tensor<32xi32, #tile.sym<[BV]>> -> !sbr
    %rowsB = tile.broadcast %rowsE : !sbc -> !sbi
    %colsB0 = tile.broadcast %colsE : !sbr -> !sbi
    %colS = tile.splat %col : !sbi
    %colsB = arith.addi %colsB0, %colS : !sbi
    %onDiag = arith.cmpi eq, %rowsB, %colsB : !sbi
    %eyeOne = arith.select %isM, %onef, %zf : f32
    %eyeB = tile.splat %eyeOne : !sb
    %zB = tile.splat %zf : !sb
    %eye = arith.select %onDiag, %eyeB, %zB : !sbb, !sb
    %S0i = arith.addf %S0h, %eye : !sb
    scf.yield %S0i : !sb
  } else {
    %S0e = tile.load %entryv[0, %col] : !sb
    %S0s = arith.addf %S0h, %S0e : !sb
    scf.yield %S0s : !sb
  }
  %zKV = tile.splat %zf : !vbf
  // Composing M, the chunk's U does not enter (M's map is linear).
  %uKeep = arith.select %isM, %zf, %onef : f32
  %uKeepB = tile.splat %uKeep : !vbf

  %Sfin = scf.for %c = %segFirst to %loopEnd step %c1 iter_args(%S = %S0)
      -> (!sb) : i32 {
    %r0 = arith.muli %c, %strideD : i32
    %r64 = arith.addi %r0, %c64 : i32
    %r128 = arith.addi %r0, %c128 : i32
    %a0 = arith.muli %c, %strideA : i32
    %aK = arith.addi %a0, %cD3 : i32
    %aA = arith.addi %a0, %recRows64a : i32
    // The record's fields are of the products' element type P.
    %WnP = tile.load %recv[%r0, 0] : !kvp
    %U0P = tile.load %recv[%r64, %col] : !vbb
    %U0 = arith.extf %U0P : !vbb to !vbf
    %qgsP = tile.load %recv[%r128, 0] : !kvp
    %kEndTP = tile.load %rec64[%aK, 0] : !ktp
    %AqkP = tile.load %rec64[%aA, 0] : !sqp
    // exp(G_last), one per row of S_b.
    %decAtC = arith.muli %c, %HD : i32
    %decay = tile.load %decv[%decAtC] : !chan
    %decayB = tile.broadcast %decay along 1 : !chan -> !sb

    // Composing M, U is multiplied by 0 (a multiply rather than a branch,
    // so that U is read straight into the dot's accumulator layout).
    %U = arith.mulf %U0, %uKeepB : !vbf
    %SP = arith.truncf %S {tile.elem = "P"} : !sb to !sbp
    %vnew = tile.dot %WnP, %SP, %U : !kvp, !sbp -> !vbf
    %vnewP = arith.truncf %vnew {tile.elem = "P"} : !vbf to !vbb
    scf.if %chain {
      %oIntra = tile.dot %AqkP, %vnewP, %zKV : !sqp, !vbb -> !vbf
      %out = tile.dot %qgsP, %SP, %oIntra : !kvp, !sbp -> !vbf
      %outb = arith.truncf %out : !vbf to !vbb
      %t0 = arith.muli %c, %c64 : i32
      tile.store %outb, %ov[%t0, %col] : !vbb
    }
    %Sd = arith.mulf %S, %decayB : !sb
    %Sn = tile.dot %kEndTP, %vnewP, %Sd : !ktp, !vbb -> !sb
    scf.yield %Sn : !sb
  }
  scf.if %compose {
    tile.store %Sfin, %mapv[0, %jcol] : !sb
  } else {
    tile.store %Sfin, %htv[0, %col] : !sb
  }
  return
}

// @kda_seg_scan_d{128,64}: program (h, n, b) carries columns [b·BV,
// (b + 1)·BV) of the entry states of sequence n's segments: E_1 = B_0 (the
// state after segment 0, which its composition started from h0), and
// E_{s+1} = M_s·E_s + B_s, written to each segment's entry slot for the
// chain. The segments are few (the runtime makes them only when the
// sequences and heads leave SMs idle), so this serial part is short.
func.func @kda_seg_scan(%segs: !tile.ptr<f32>, %cu: !tile.ptr<i32>,
    %T: i32, %H: i32, %N: i32, %has_cu: i32, %L: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {D = 128 : i32, BV = 32 : i32},
                tile.instances = {
                  kda_seg_scan_d128 = {},
                  kda_seg_scan_d64 = {D = 64 : i32, BV = 16 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c3_64 = arith.constant 3 : i64
  %cD = tile.param "D" : i32
  %cBV = tile.param "BV" : i32
  %h = tile.program_id x
  %n = tile.program_id y
  %b = tile.program_id z
  %col = arith.muli %b, %cBV : i32

  %n1 = arith.addi %n, %c1 : i32
  %cuLen0 = arith.addi %N, %c1 : i32
  %useCu = arith.cmpi ne, %has_cu, %c0 : i32
  %cuLen = arith.select %useCu, %cuLen0, %c0 : i32
  %cuv = tile.make_view %cu[%cuLen] strides[1] : !tile.view<?xi32>
  %cuA = tile.load %cuv[%n] : tensor<1xi32>
  %cuB = tile.load %cuv[%n1] : tensor<1xi32>
  %bosRaw = tile.reduce max %cuA along 0 : tensor<1xi32>
  %eosRaw = tile.reduce max %cuB along 0 : tensor<1xi32>
  %bosLo = arith.maxsi %bosRaw, %c0 : i32
  %bos = arith.minsi %bosLo, %T : i32
  %eosLo = arith.maxsi %eosRaw, %bos : i32
  %eos = arith.minsi %eosLo, %T : i32
  %cuSpan = arith.subi %eos, %bos : i32
  %len = arith.select %useCu, %cuSpan, %T : i32
  %len63 = arith.addi %len, %c63 : i32
  %nChunks = arith.divsi %len63, %c64 : i32
  %T63 = arith.addi %T, %c63 : i32
  %C = arith.divsi %T63, %c64 : i32
  %Lm = arith.subi %L, %c1 : i32
  %nc = arith.addi %nChunks, %Lm : i32
  %nSeg = arith.divsi %nc, %L : i32
  %Cs = arith.addi %C, %Lm : i32
  %segsPer = arith.divsi %Cs, %L : i32
  %nSegs = arith.muli %n, %segsPer : i32
  %tokL = arith.muli %L, %c64 : i32
  %bosL = arith.divsi %bos, %tokL : i32
  %cuSeg = arith.addi %bosL, %n : i32
  %segBase = arith.select %useCu, %cuSeg, %nSegs : i32

  %H64 = arith.extui %H : i32 to i64
  %h64 = arith.extui %h : i32 to i64
  %D64 = arith.extui %cD : i32 to i64
  %DD = arith.muli %D64, %D64 : i64
  %DD2 = arith.addi %DD, %DD : i64
  %DD3 = arith.muli %DD, %c3_64 : i64
  %cD2 = arith.muli %cD, %c2 : i32
  %segStride = arith.muli %H64, %DD3 : i64
  %base64 = arith.extui %segBase : i32 to i64
  %baseH = arith.muli %base64, %H64 : i64
  %rec0 = arith.addi %baseH, %h64 : i64
  %at0 = arith.muli %rec0, %DD3 : i64
  %segp0 = tile.addptr %segs, %at0 : !tile.ptr<f32>, i64
  %two = arith.cmpi sge, %nSeg, %c2 : i32
  %map0Rows = arith.select %two, %cD, %c0 : i32
  %map0 = tile.make_view %segp0[%map0Rows, %cD2] strides[%cD2, 1]
      : !tile.view<?x?xf32>
  %E1 = tile.load %map0[0, %col] : !sb
  %Elast = scf.for %si = %c1 to %nSeg step %c1 iter_args(%E = %E1)
      -> (!sb) : i32 {
    %si64 = arith.extui %si : i32 to i64
    %off = arith.muli %si64, %segStride : i64
    %segp = tile.addptr %segp0, %off : !tile.ptr<f32>, i64
    %entryp = tile.addptr %segp, %DD2 : !tile.ptr<f32>, i64
    %entryv = tile.make_view %entryp[%cD, %cD] strides[%cD, 1]
        : !tile.view<?x?xf32>
    tile.store %E, %entryv[0, %col] : !sb
    // Segment si's map, read unless si is the last segment.
    %si1 = arith.addi %si, %c1 : i32
    %more = arith.cmpi slt, %si1, %nSeg : i32
    %mapRows = arith.select %more, %cD, %c0 : i32
    %mapv = tile.make_view %segp[%mapRows, %cD2] strides[%cD2, 1]
        : !tile.view<?x?xf32>
    %M = tile.load %mapv[0, %cD] : !st
    %B = tile.load %mapv[0, %col] : !sb
    %En = tile.dot %M, %E, %B : !st, !sb -> !sb
    scf.yield %En : !sb
  }
  return
}
