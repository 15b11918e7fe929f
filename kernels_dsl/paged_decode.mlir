// Paged-attention decode: out = softmax(q·Kᵀ/√D)·V per batch entry over its
// first seq_lens[b] tokens, K and V read through a page table.
//
// query (B, H, D) bf16; kv_cache (pages, 16, Hkv, 2·D) bf16 packed [K | V];
// block_table (B, W) i32; seq_lens (B,) i32, read here at run time. Query
// head h uses kv head h / G, G = H / Hkv.
//
// @paged_decode_d{64,128}: program (s, c, b) takes batch entry b, the c-th
// group of 16 query heads of one kv head (c = kvh * ceil(G / 16) + j), and
// split s: tokens [s·T_s, (s+1)·T_s) of the sequence, T_s = 16·pps. Those
// heads are the 16 MMA rows (padding rows compute and are not stored), so
// each K/V byte is read once per program. Per step of 64 tokens:
//  - the page of each token comes from a tile.gather of block_table, its
//    row of the cache view (pages·16·Hkv, 2·D) from the page; tokens at or
//    past the end of this split's span (or of seq_lens[b]) get row -1,
//    which reads zeros (no stale cache read, and no read at all for the
//    steps the ring copies past the loop's end);
//  - K and V are tile.gathers of those rows (16-byte runs: the row index is
//    constant along D), and Q is loaded in the loop too, so that
//    tile-pipeline-loads stages all three through a cp.async ring of
//    tile.num_stages stages (4 for D = 64, 2 for D = 128: 18 and 36 KiB a
//    stage), copies running num_stages - 1 steps ahead of the dots, which
//    read Q, K (transposed) and V (with ldmatrix.trans) in place. Q from
//    the ring costs one 4 KiB copy per step from L2 and saves restaging a
//    register tile (two barriers a step); two stages at D = 128 let three
//    programs share an SM. On the H200 (bench/RESULTS.md, 2026-12-05) this
//    took the D = 128 deck shapes 1-14% below three stages with Q in
//    registers;
//  - S = Q·Kᵀ on mma.sync (bf16, fp32 accumulation), scaled, masked to -inf
//    past the split's span (and the length); online softmax in fp32
//    (running max m, rescaled sums and accumulator); P in bf16 registers,
//    acc = acc·α + P·V on mma.sync. The sums are kept per column (a 16×64
//    tile, l·α + P), so the only reduction across warps in a step is the
//    maximum; l is their sum after the loop.
// With one split (S = 1) the program stores out = acc / l. Otherwise the
// partials (m, l, acc), unnormalized, go to the split's slot of its tile
// t = b·Y + c (Y programs along y): pm/pl (S, T, 32) and pacc (S, T, R,
// D), T = B·Y, R = min(G, 16), so no cache line holds two tiles' partials;
// empty splits write m = -inf, l = 0, acc = 0. The split then fences and
// takes the tile's ticket in `tickets` (T, zero before the launch); the
// last to arrive fences, sets the ticket back to zero and merges the S
// slots in order of s in one pass, as the steps do: a running maximum M
// and the sums and accumulator rescaled by e^(M_old - M) as it grows,
// out = Σ e^(m_s-M)·acc_s / Σ e^(m_s-M)·l_s, and 0 where no split saw a
// token (seq_len 0). The merge loop loads four slots ahead
// (tile.load_ahead), so the S slots' loads overlap. On an H100 (bench/
// RESULTS.md, 2026-12-05) the one-pass merge took the split shapes 0-7%
// below the two passes (max, then the weighted sums) it replaced.
//
// The D = 64 and D = 128 functions are the same code but for D and the
// layouts named below. The D = 128 function is also made on 8 warps with
// three stages (paged_decode_d128_w8; tile-instantiate spreads the named
// layouts' 4 warps over 8 along the same dimensions), which the runtime
// runs on grids of at most 128 programs unsplit, about one per SM, in
// spans of at least 64 pages when they leave it 64 programs or more, else
// in the 4-warp kernel's shorter spans: it keeps more of each program's
// K/V in flight.
//
// runtime/paged_decode.cc picks the kernel and pps (a multiple of 4
// pages) from B, Hkv and W so that the grid fills the GPU.

// Layouts of the hot tiles, named so that no value changes layout inside
// the loop: the K/V rows (16-byte runs along D) and their row and column
// vectors; the MMA accumulator (16 rows over 4 warps along N) and its row
// (m, l) and column (token) vectors.
#kv64 = #tile.blocked<size = [1, 8], threads = [4, 8], warps = [4, 1], order = [1, 0]>
#kvt64 = #tile.blocked<size = [8, 1], threads = [8, 4], warps = [1, 4], order = [0, 1]>
#row64 = #tile.slice<dim = 1, parent = #kv64>
#col64 = #tile.slice<dim = 0, parent = #kv64>
#kv128 = #tile.blocked<size = [1, 8], threads = [2, 16], warps = [4, 1], order = [1, 0]>
#kvt128 = #tile.blocked<size = [8, 1], threads = [16, 2], warps = [1, 4], order = [0, 1]>
#row128 = #tile.slice<dim = 1, parent = #kv128>
#col128 = #tile.slice<dim = 0, parent = #kv128>
#mma = #tile.mma<version = 2, warps = [1, 4], instr = [16, 8, 16]>
#srow = #tile.slice<dim = 1, parent = #mma>
#scol = #tile.slice<dim = 0, parent = #mma>

func.func @paged_decode_d64(%q: !tile.ptr<bf16>, %kv: !tile.ptr<bf16>,
    %block_table: !tile.ptr<i32>, %seq_lens: !tile.ptr<i32>,
    %pm: !tile.ptr<f32>, %pl: !tile.ptr<f32>, %pacc: !tile.ptr<f32>,
    %tickets: !tile.ptr<i32>, %out: !tile.ptr<bf16>,
    %B: i32, %H: i32, %Hkv: i32, %W: i32, %pages: i32, %S: i32, %pps: i32,
    %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 4 : i32} {
  %c4 = arith.constant 4 : i32
  %c15 = arith.constant 15 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %cD = arith.constant 64 : i32
  %cm1 = arith.constant -1 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zf = arith.constant 0.0 : f32
  %s = tile.program_id x
  %c = tile.program_id y
  %b = tile.program_id z
  %G = arith.divsi %H, %Hkv : i32
  %G15 = arith.addi %G, %c15 : i32
  %chunks = arith.divsi %G15, %c16 : i32
  %kvh = arith.divsi %c, %chunks : i32
  %j = arith.remsi %c, %chunks : i32
  %kvhG = arith.muli %kvh, %G : i32
  %j16 = arith.muli %j, %c16 : i32
  %head0 = arith.addi %kvhG, %j16 : i32
  %left = arith.subi %G, %j16 : i32
  %nrows = arith.minsi %left, %c16 : i32
  %bH = arith.muli %b, %H : i32
  %qrow = arith.addi %bH, %head0 : i32

  %lensV = tile.make_view %seq_lens[%B] strides[1] : !tile.view<?xi32>
  %lenT = tile.load %lensV[%b] : tensor<1xi32>
  %lenRaw = tile.reduce max %lenT along 0 : tensor<1xi32>
  %W16 = arith.muli %W, %c16 : i32
  %len = arith.minsi %lenRaw, %W16 : i32
  %span = arith.muli %pps, %c16 : i32
  %tok0 = arith.muli %s, %span : i32
  %tokSpanEnd = arith.addi %tok0, %span : i32
  %tokEnd = arith.minsi %len, %tokSpanEnd : i32

  %BH = arith.muli %B, %H : i32
  %qv = tile.make_view %q[%BH, 64] strides[64, 1] : !tile.view<?x?xbf16>
  %kvRows0 = arith.muli %pages, %c16 : i32
  %kvRows = arith.muli %kvRows0, %Hkv : i32
  %kvv = tile.make_view %kv[%kvRows, 128] strides[128, 1] : !tile.view<?x?xbf16>
  %btv = tile.make_view %block_table[%B, %W] strides[%W, 1]
      : !tile.view<?x?xi32>

  %iotaT = tile.iota : tensor<64xi32, #row64>
  %bT = tile.splat %b : tensor<64xi32, #row64>
  %c4T = tile.splat %c4 : tensor<64xi32, #row64>
  %c15T = tile.splat %c15 : tensor<64xi32, #row64>
  %m1T = tile.splat %cm1 : tensor<64xi32, #row64>
  %HkvT = tile.splat %Hkv : tensor<64xi32, #row64>
  %kvhT = tile.splat %kvh : tensor<64xi32, #row64>
  %endT64 = tile.splat %tokEnd : tensor<64xi32, #row64>
  %pagesT = tile.splat %pages : tensor<64xi32, #row64>
  %iotaD = tile.iota : tensor<64xi32, #col64>
  %colE = tile.expand_dims %iotaD at 0
      : tensor<64xi32, #col64> -> tensor<1x64xi32, #kv64>
  %colK = tile.broadcast %colE
      : tensor<1x64xi32, #kv64> -> tensor<64x64xi32, #kv64>
  %cDT = tile.splat %cD : tensor<64x64xi32, #kv64>
  %colV = arith.addi %colK, %cDT : tensor<64x64xi32, #kv64>
  %iotaS = tile.iota : tensor<64xi32, #scol>
  %endS = tile.splat %tokEnd : tensor<64xi32, #scol>
  %scaleT = tile.splat %scale : tensor<16x64xf32, #mma>
  %ninfT = tile.splat %ninf : tensor<16x64xf32, #mma>

  %m0 = tile.splat %ninf : tensor<16xf32, #srow>
  %l0 = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %acc0 = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %zS = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %res:3 = scf.for %t = %tok0 to %tokEnd step %c64
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<16xf32, #srow>, tensor<16x64xf32, #mma>,
          tensor<16x64xf32, #mma>) : i32 {
    // The query, re-read each step: the ring holds it beside K and V.
    %qt = tile.load %qv[%qrow, 0] : tensor<16x64xbf16>
    // Cache rows of the 64 tokens, in the layout the K/V gathers read.
    %tT = tile.splat %t : tensor<64xi32, #row64>
    %tok = arith.addi %iotaT, %tT : tensor<64xi32, #row64>
    %valid = arith.cmpi slt, %tok, %endT64 : tensor<64xi32, #row64>
    %slot = arith.shrui %tok, %c4T : tensor<64xi32, #row64>
    %page = tile.gather %btv[%bT, %slot] : !tile.view<?x?xi32>,
        tensor<64xi32, #row64>, tensor<64xi32, #row64>
        -> tensor<64xi32, #row64>
    %p16 = arith.shli %page, %c4T : tensor<64xi32, #row64>
    %inPage = arith.andi %tok, %c15T : tensor<64xi32, #row64>
    %slotRow = arith.addi %p16, %inPage : tensor<64xi32, #row64>
    %rowH = arith.muli %slotRow, %HkvT : tensor<64xi32, #row64>
    %row = arith.addi %rowH, %kvhT : tensor<64xi32, #row64>
    // Tokens past the split (or the length), and pages outside the cache,
    // read zeros.
    %inCache = arith.cmpi ult, %page, %pagesT : tensor<64xi32, #row64>
    %use = arith.andi %valid, %inCache : tensor<64xi1, #row64>
    %rowOk = arith.select %use, %row, %m1T
        : tensor<64xi1, #row64>, tensor<64xi32, #row64>
    %rowE = tile.expand_dims %rowOk at 1
        : tensor<64xi32, #row64> -> tensor<64x1xi32, #kv64>
    %rows = tile.broadcast %rowE
        : tensor<64x1xi32, #kv64> -> tensor<64x64xi32, #kv64>
    %k = tile.gather %kvv[%rows, %colK] : !tile.view<?x?xbf16>,
        tensor<64x64xi32, #kv64>, tensor<64x64xi32, #kv64>
        -> tensor<64x64xbf16, #kv64>
    %v = tile.gather %kvv[%rows, %colV] : !tile.view<?x?xbf16>,
        tensor<64x64xi32, #kv64>, tensor<64x64xi32, #kv64>
        -> tensor<64x64xbf16, #kv64>
    %kt = tile.transpose %k
        : tensor<64x64xbf16, #kv64> -> tensor<64x64xbf16, #kvt64>
    %sRaw = tile.dot %qt, %kt, %zS
        : tensor<16x64xbf16>, tensor<64x64xbf16, #kvt64>
        -> tensor<16x64xf32, #mma>
    %sScaled = arith.mulf %sRaw, %scaleT : tensor<16x64xf32, #mma>
    // The same tokens' validity along the columns of S.
    %tS = tile.splat %t : tensor<64xi32, #scol>
    %tokS = arith.addi %iotaS, %tS : tensor<64xi32, #scol>
    %validS = arith.cmpi slt, %tokS, %endS : tensor<64xi32, #scol>
    %validE = tile.expand_dims %validS at 0
        : tensor<64xi1, #scol> -> tensor<1x64xi1, #mma>
    %validB = tile.broadcast %validE
        : tensor<1x64xi1, #mma> -> tensor<16x64xi1, #mma>
    %sc = arith.select %validB, %sScaled, %ninfT
        : tensor<16x64xi1, #mma>, tensor<16x64xf32, #mma>
    // Online softmax: running max, rescaled sums and accumulator.
    %mt = tile.reduce max %sc along 1
        : tensor<16x64xf32, #mma> -> tensor<16xf32, #srow>
    %mn = arith.maximumf %m, %mt : tensor<16xf32, #srow>
    %dm = arith.subf %m, %mn : tensor<16xf32, #srow>
    %alpha = math.exp %dm : tensor<16xf32, #srow>
    %mnE = tile.expand_dims %mn at 1
        : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
    %mnB = tile.broadcast %mnE
        : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
    %sd = arith.subf %sc, %mnB : tensor<16x64xf32, #mma>
    %p = math.exp %sd : tensor<16x64xf32, #mma>
    %aE = tile.expand_dims %alpha at 1
        : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
    %aS = tile.broadcast %aE
        : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
    %la = arith.mulf %l, %aS : tensor<16x64xf32, #mma>
    %ln = arith.addf %la, %p : tensor<16x64xf32, #mma>
    %aB = tile.broadcast %aE
        : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
    %accA = arith.mulf %acc, %aB : tensor<16x64xf32, #mma>
    %pb = arith.truncf %p
        : tensor<16x64xf32, #mma> to tensor<16x64xbf16, #mma>
    %accN = tile.dot %pb, %v, %accA
        : tensor<16x64xbf16, #mma>, tensor<64x64xbf16, #kv64>
        -> tensor<16x64xf32, #mma>
    scf.yield %mn, %ln, %accN : tensor<16xf32, #srow>, tensor<16x64xf32, #mma>,
        tensor<16x64xf32, #mma>
  }

  // The row sums, kept per column through the loop.
  %lsum = tile.reduce add %res#1 along 1
      : tensor<16x64xf32, #mma> -> tensor<16xf32, #srow>
  // One split: this program's rows are the output. Several: each split
  // stores its partials (m, l, acc) in its slot of the (b, c) tile's
  // partials, takes the tile's ticket, and the last split to arrive merges
  // the S slots in order of s (the same sum whichever split is last) and
  // stores the output; tickets go back to zero for the next launch.
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %iota16 = tile.iota : tensor<16xi32, #srow>
  %nrowsT = tile.splat %nrows : tensor<16xi32, #srow>
  %rowMask = arith.cmpi slt, %iota16, %nrowsT : tensor<16xi32, #srow>
  %rmE = tile.expand_dims %rowMask at 1
      : tensor<16xi1, #srow> -> tensor<16x1xi1, #mma>
  %rmB = tile.broadcast %rmE
      : tensor<16x1xi1, #mma> -> tensor<16x64xi1, #mma>
  %ov = tile.make_view %out[%BH, 64] strides[64, 1] : !tile.view<?x?xbf16>
  %zR = tile.splat %zf : tensor<16xf32, #srow>
  %oneR = tile.splat %one : tensor<16xf32, #srow>
  %ninfR = tile.splat %ninf : tensor<16xf32, #srow>
  %single = arith.cmpi eq, %S, %c1 : i32
  %true = arith.constant true
  %sum:3 = scf.if %single
      -> (tensor<16xf32, #srow>, tensor<16x64xf32, #mma>, i1) {
    scf.yield %lsum, %res#2, %true
        : tensor<16xf32, #srow>, tensor<16x64xf32, #mma>, i1
  } else {
    // Slots of 32 floats (m, l) and of R = min(G, 16) rows (acc, at least
    // 256 bytes) per (split, tile), so that no cache line holds two tiles'
    // partials; a tile's rows past its own heads are never stored or read.
    %Y = tile.num_programs y
    %bY = arith.muli %b, %Y : i32
    %tix = arith.addi %bY, %c : i32
    %T = arith.muli %B, %Y : i32
    %ST = arith.muli %S, %T : i32
    %ST32 = arith.muli %ST, %c32 : i32
    %R = arith.minsi %G, %c16 : i32
    %STR = arith.muli %ST, %R : i32
    %pmv = tile.make_view %pm[%ST32] strides[1] : !tile.view<?xf32>
    %plv = tile.make_view %pl[%ST32] strides[1] : !tile.view<?xf32>
    %pav = tile.make_view %pacc[%STR, 64] strides[64, 1]
        : !tile.view<?x?xf32>
    %sT = arith.muli %s, %T : i32
    %slot = arith.addi %sT, %tix : i32
    %slot32 = arith.muli %slot, %c32 : i32
    %slotR = arith.muli %slot, %R : i32
    tile.store %res#0, %pmv[%slot32] mask %rowMask : tensor<16xf32, #srow>
    tile.store %lsum, %plv[%slot32] mask %rowMask : tensor<16xf32, #srow>
    tile.store %res#2, %pav[%slotR, 0] mask %rmB : tensor<16x64xf32, #mma>
    tile.fence
    %tv = tile.make_view %tickets[%T] strides[1] : !tile.view<?xi32>
    %at = tile.splat %tix : tensor<1xi32>
    %oneI = tile.splat %c1 : tensor<1xi32>
    %old = tile.atomic add %tv[%at], %oneI
        : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
    %ticket = tile.reduce max %old along 0 : tensor<1xi32>
    %Sm1 = arith.subi %S, %c1 : i32
    %isLast = arith.cmpi eq, %ticket, %Sm1 : i32
    %merged:2 = scf.if %isLast
        -> (tensor<16xf32, #srow>, tensor<16x64xf32, #mma>) {
      tile.fence
      %zero1 = tile.splat %c0 : tensor<1xi32>
      tile.store %zero1, %tv[%tix] : tensor<1xi32>
      %a0 = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
      %acc:3 = scf.for %u = %c0 to %S step %c1
          iter_args(%mm = %ninfR, %ll = %zR, %aa = %a0)
          -> (tensor<16xf32, #srow>, tensor<16xf32, #srow>,
              tensor<16x64xf32, #mma>) : i32 {
        %uT = arith.muli %u, %T : i32
        %us = arith.addi %uT, %tix : i32
        %uo = arith.muli %us, %c32 : i32
        %uoR = arith.muli %us, %R : i32
        %ms = tile.load %pmv[%uo] mask %rowMask pad -inf
            : tensor<16xf32, #srow>
        %ls = tile.load %plv[%uo] mask %rowMask : tensor<16xf32, #srow>
        %as = tile.load %pav[%uoR, 0] mask %rmB : tensor<16x64xf32, #mma>
        // Running maximum; no split so far saw a token: weights e^(-inf).
        %mn = arith.maximumf %mm, %ms : tensor<16xf32, #srow>
        %none = arith.cmpf oeq, %mn, %ninfR : tensor<16xf32, #srow>
        %ref = arith.select %none, %zR, %mn
            : tensor<16xi1, #srow>, tensor<16xf32, #srow>
        %do = arith.subf %mm, %ref : tensor<16xf32, #srow>
        %wo = math.exp %do : tensor<16xf32, #srow>
        %d = arith.subf %ms, %ref : tensor<16xf32, #srow>
        %w = math.exp %d : tensor<16xf32, #srow>
        %lo = arith.mulf %ll, %wo : tensor<16xf32, #srow>
        %lw = arith.mulf %ls, %w : tensor<16xf32, #srow>
        %ln = arith.addf %lo, %lw : tensor<16xf32, #srow>
        %woE = tile.expand_dims %wo at 1
            : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
        %woB = tile.broadcast %woE
            : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
        %wE = tile.expand_dims %w at 1
            : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
        %wB = tile.broadcast %wE
            : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
        %ao = arith.mulf %aa, %woB : tensor<16x64xf32, #mma>
        %aw = arith.mulf %as, %wB : tensor<16x64xf32, #mma>
        %an = arith.addf %ao, %aw : tensor<16x64xf32, #mma>
        scf.yield %mn, %ln, %an : tensor<16xf32, #srow>, tensor<16xf32, #srow>,
            tensor<16x64xf32, #mma>
      } {tile.load_ahead = 4 : i32}
      scf.yield %acc#1, %acc#2 : tensor<16xf32, #srow>, tensor<16x64xf32, #mma>
    } else {
      scf.yield %lsum, %res#2 : tensor<16xf32, #srow>, tensor<16x64xf32, #mma>
    }
    scf.yield %merged#0, %merged#1, %isLast
        : tensor<16xf32, #srow>, tensor<16x64xf32, #mma>, i1
  }
  // out = acc / l, and 0 where no token was seen (l = 0).
  scf.if %sum#2 {
    %pos = arith.cmpf ogt, %sum#0, %zR : tensor<16xf32, #srow>
    %lsafe = arith.select %pos, %sum#0, %oneR
        : tensor<16xi1, #srow>, tensor<16xf32, #srow>
    %inv = arith.divf %oneR, %lsafe : tensor<16xf32, #srow>
    %invw = arith.select %pos, %inv, %zR
        : tensor<16xi1, #srow>, tensor<16xf32, #srow>
    %iE = tile.expand_dims %invw at 1
        : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
    %iB = tile.broadcast %iE
        : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
    %o = arith.mulf %sum#1, %iB : tensor<16x64xf32, #mma>
    %ob = arith.truncf %o : tensor<16x64xf32, #mma> to tensor<16x64xbf16, #mma>
    tile.store %ob, %ov[%qrow, 0] mask %rmB : tensor<16x64xbf16, #mma>
  }
  return
}

func.func @paged_decode_d128(%q: !tile.ptr<bf16>, %kv: !tile.ptr<bf16>,
    %block_table: !tile.ptr<i32>, %seq_lens: !tile.ptr<i32>,
    %pm: !tile.ptr<f32>, %pl: !tile.ptr<f32>, %pacc: !tile.ptr<f32>,
    %tickets: !tile.ptr<i32>, %out: !tile.ptr<bf16>,
    %B: i32, %H: i32, %Hkv: i32, %W: i32, %pages: i32, %S: i32, %pps: i32,
    %scale: f32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 2 : i32,
                tile.params = {},
                tile.instances = {
                  paged_decode_d128 = {},
                  paged_decode_d128_w8 = {"tile.num_warps" = 8,
                                          "tile.num_stages" = 3}}} {
  %c4 = arith.constant 4 : i32
  %c15 = arith.constant 15 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %cD = arith.constant 128 : i32
  %cm1 = arith.constant -1 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %zf = arith.constant 0.0 : f32
  %s = tile.program_id x
  %c = tile.program_id y
  %b = tile.program_id z
  %G = arith.divsi %H, %Hkv : i32
  %G15 = arith.addi %G, %c15 : i32
  %chunks = arith.divsi %G15, %c16 : i32
  %kvh = arith.divsi %c, %chunks : i32
  %j = arith.remsi %c, %chunks : i32
  %kvhG = arith.muli %kvh, %G : i32
  %j16 = arith.muli %j, %c16 : i32
  %head0 = arith.addi %kvhG, %j16 : i32
  %left = arith.subi %G, %j16 : i32
  %nrows = arith.minsi %left, %c16 : i32
  %bH = arith.muli %b, %H : i32
  %qrow = arith.addi %bH, %head0 : i32

  %lensV = tile.make_view %seq_lens[%B] strides[1] : !tile.view<?xi32>
  %lenT = tile.load %lensV[%b] : tensor<1xi32>
  %lenRaw = tile.reduce max %lenT along 0 : tensor<1xi32>
  %W16 = arith.muli %W, %c16 : i32
  %len = arith.minsi %lenRaw, %W16 : i32
  %span = arith.muli %pps, %c16 : i32
  %tok0 = arith.muli %s, %span : i32
  %tokSpanEnd = arith.addi %tok0, %span : i32
  %tokEnd = arith.minsi %len, %tokSpanEnd : i32

  %BH = arith.muli %B, %H : i32
  %qv = tile.make_view %q[%BH, 128] strides[128, 1] : !tile.view<?x?xbf16>
  %kvRows0 = arith.muli %pages, %c16 : i32
  %kvRows = arith.muli %kvRows0, %Hkv : i32
  %kvv = tile.make_view %kv[%kvRows, 256] strides[256, 1] : !tile.view<?x?xbf16>
  %btv = tile.make_view %block_table[%B, %W] strides[%W, 1]
      : !tile.view<?x?xi32>

  %iotaT = tile.iota : tensor<64xi32, #row128>
  %bT = tile.splat %b : tensor<64xi32, #row128>
  %c4T = tile.splat %c4 : tensor<64xi32, #row128>
  %c15T = tile.splat %c15 : tensor<64xi32, #row128>
  %m1T = tile.splat %cm1 : tensor<64xi32, #row128>
  %HkvT = tile.splat %Hkv : tensor<64xi32, #row128>
  %kvhT = tile.splat %kvh : tensor<64xi32, #row128>
  %endT64 = tile.splat %tokEnd : tensor<64xi32, #row128>
  %pagesT = tile.splat %pages : tensor<64xi32, #row128>
  %iotaD = tile.iota : tensor<128xi32, #col128>
  %colE = tile.expand_dims %iotaD at 0
      : tensor<128xi32, #col128> -> tensor<1x128xi32, #kv128>
  %colK = tile.broadcast %colE
      : tensor<1x128xi32, #kv128> -> tensor<64x128xi32, #kv128>
  %cDT = tile.splat %cD : tensor<64x128xi32, #kv128>
  %colV = arith.addi %colK, %cDT : tensor<64x128xi32, #kv128>
  %iotaS = tile.iota : tensor<64xi32, #scol>
  %endS = tile.splat %tokEnd : tensor<64xi32, #scol>
  %scaleT = tile.splat %scale : tensor<16x64xf32, #mma>
  %ninfT = tile.splat %ninf : tensor<16x64xf32, #mma>

  %m0 = tile.splat %ninf : tensor<16xf32, #srow>
  %l0 = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %acc0 = arith.constant dense<0.0> : tensor<16x128xf32, #mma>
  %zS = arith.constant dense<0.0> : tensor<16x64xf32, #mma>
  %res:3 = scf.for %t = %tok0 to %tokEnd step %c64
      iter_args(%m = %m0, %l = %l0, %acc = %acc0)
      -> (tensor<16xf32, #srow>, tensor<16x64xf32, #mma>,
          tensor<16x128xf32, #mma>) : i32 {
    // The query, re-read each step: the ring holds it beside K and V.
    %qt = tile.load %qv[%qrow, 0] : tensor<16x128xbf16>
    // Cache rows of the 64 tokens, in the layout the K/V gathers read.
    %tT = tile.splat %t : tensor<64xi32, #row128>
    %tok = arith.addi %iotaT, %tT : tensor<64xi32, #row128>
    %valid = arith.cmpi slt, %tok, %endT64 : tensor<64xi32, #row128>
    %slot = arith.shrui %tok, %c4T : tensor<64xi32, #row128>
    %page = tile.gather %btv[%bT, %slot] : !tile.view<?x?xi32>,
        tensor<64xi32, #row128>, tensor<64xi32, #row128>
        -> tensor<64xi32, #row128>
    %p16 = arith.shli %page, %c4T : tensor<64xi32, #row128>
    %inPage = arith.andi %tok, %c15T : tensor<64xi32, #row128>
    %slotRow = arith.addi %p16, %inPage : tensor<64xi32, #row128>
    %rowH = arith.muli %slotRow, %HkvT : tensor<64xi32, #row128>
    %row = arith.addi %rowH, %kvhT : tensor<64xi32, #row128>
    // Tokens past the split (or the length), and pages outside the cache,
    // read zeros.
    %inCache = arith.cmpi ult, %page, %pagesT : tensor<64xi32, #row128>
    %use = arith.andi %valid, %inCache : tensor<64xi1, #row128>
    %rowOk = arith.select %use, %row, %m1T
        : tensor<64xi1, #row128>, tensor<64xi32, #row128>
    %rowE = tile.expand_dims %rowOk at 1
        : tensor<64xi32, #row128> -> tensor<64x1xi32, #kv128>
    %rows = tile.broadcast %rowE
        : tensor<64x1xi32, #kv128> -> tensor<64x128xi32, #kv128>
    %k = tile.gather %kvv[%rows, %colK] : !tile.view<?x?xbf16>,
        tensor<64x128xi32, #kv128>, tensor<64x128xi32, #kv128>
        -> tensor<64x128xbf16, #kv128>
    %v = tile.gather %kvv[%rows, %colV] : !tile.view<?x?xbf16>,
        tensor<64x128xi32, #kv128>, tensor<64x128xi32, #kv128>
        -> tensor<64x128xbf16, #kv128>
    %kt = tile.transpose %k
        : tensor<64x128xbf16, #kv128> -> tensor<128x64xbf16, #kvt128>
    %sRaw = tile.dot %qt, %kt, %zS
        : tensor<16x128xbf16>, tensor<128x64xbf16, #kvt128>
        -> tensor<16x64xf32, #mma>
    %sScaled = arith.mulf %sRaw, %scaleT : tensor<16x64xf32, #mma>
    // The same tokens' validity along the columns of S.
    %tS = tile.splat %t : tensor<64xi32, #scol>
    %tokS = arith.addi %iotaS, %tS : tensor<64xi32, #scol>
    %validS = arith.cmpi slt, %tokS, %endS : tensor<64xi32, #scol>
    %validE = tile.expand_dims %validS at 0
        : tensor<64xi1, #scol> -> tensor<1x64xi1, #mma>
    %validB = tile.broadcast %validE
        : tensor<1x64xi1, #mma> -> tensor<16x64xi1, #mma>
    %sc = arith.select %validB, %sScaled, %ninfT
        : tensor<16x64xi1, #mma>, tensor<16x64xf32, #mma>
    // Online softmax: running max, rescaled sums and accumulator.
    %mt = tile.reduce max %sc along 1
        : tensor<16x64xf32, #mma> -> tensor<16xf32, #srow>
    %mn = arith.maximumf %m, %mt : tensor<16xf32, #srow>
    %dm = arith.subf %m, %mn : tensor<16xf32, #srow>
    %alpha = math.exp %dm : tensor<16xf32, #srow>
    %mnE = tile.expand_dims %mn at 1
        : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
    %mnB = tile.broadcast %mnE
        : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
    %sd = arith.subf %sc, %mnB : tensor<16x64xf32, #mma>
    %p = math.exp %sd : tensor<16x64xf32, #mma>
    %aE = tile.expand_dims %alpha at 1
        : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
    %aS = tile.broadcast %aE
        : tensor<16x1xf32, #mma> -> tensor<16x64xf32, #mma>
    %la = arith.mulf %l, %aS : tensor<16x64xf32, #mma>
    %ln = arith.addf %la, %p : tensor<16x64xf32, #mma>
    %aB = tile.broadcast %aE
        : tensor<16x1xf32, #mma> -> tensor<16x128xf32, #mma>
    %accA = arith.mulf %acc, %aB : tensor<16x128xf32, #mma>
    %pb = arith.truncf %p
        : tensor<16x64xf32, #mma> to tensor<16x64xbf16, #mma>
    %accN = tile.dot %pb, %v, %accA
        : tensor<16x64xbf16, #mma>, tensor<64x128xbf16, #kv128>
        -> tensor<16x128xf32, #mma>
    scf.yield %mn, %ln, %accN : tensor<16xf32, #srow>, tensor<16x64xf32, #mma>,
        tensor<16x128xf32, #mma>
  }

  // The row sums, kept per column through the loop.
  %lsum = tile.reduce add %res#1 along 1
      : tensor<16x64xf32, #mma> -> tensor<16xf32, #srow>
  // One split: this program's rows are the output. Several: each split
  // stores its partials (m, l, acc) in its slot of the (b, c) tile's
  // partials, takes the tile's ticket, and the last split to arrive merges
  // the S slots in order of s (the same sum whichever split is last) and
  // stores the output; tickets go back to zero for the next launch.
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %iota16 = tile.iota : tensor<16xi32, #srow>
  %nrowsT = tile.splat %nrows : tensor<16xi32, #srow>
  %rowMask = arith.cmpi slt, %iota16, %nrowsT : tensor<16xi32, #srow>
  %rmE = tile.expand_dims %rowMask at 1
      : tensor<16xi1, #srow> -> tensor<16x1xi1, #mma>
  %rmB = tile.broadcast %rmE
      : tensor<16x1xi1, #mma> -> tensor<16x128xi1, #mma>
  %ov = tile.make_view %out[%BH, 128] strides[128, 1] : !tile.view<?x?xbf16>
  %zR = tile.splat %zf : tensor<16xf32, #srow>
  %oneR = tile.splat %one : tensor<16xf32, #srow>
  %ninfR = tile.splat %ninf : tensor<16xf32, #srow>
  %single = arith.cmpi eq, %S, %c1 : i32
  %true = arith.constant true
  %sum:3 = scf.if %single
      -> (tensor<16xf32, #srow>, tensor<16x128xf32, #mma>, i1) {
    scf.yield %lsum, %res#2, %true
        : tensor<16xf32, #srow>, tensor<16x128xf32, #mma>, i1
  } else {
    // Slots of 32 floats (m, l) and of R = min(G, 16) rows (acc, at least
    // 256 bytes) per (split, tile), so that no cache line holds two tiles'
    // partials; a tile's rows past its own heads are never stored or read.
    %Y = tile.num_programs y
    %bY = arith.muli %b, %Y : i32
    %tix = arith.addi %bY, %c : i32
    %T = arith.muli %B, %Y : i32
    %ST = arith.muli %S, %T : i32
    %ST32 = arith.muli %ST, %c32 : i32
    %R = arith.minsi %G, %c16 : i32
    %STR = arith.muli %ST, %R : i32
    %pmv = tile.make_view %pm[%ST32] strides[1] : !tile.view<?xf32>
    %plv = tile.make_view %pl[%ST32] strides[1] : !tile.view<?xf32>
    %pav = tile.make_view %pacc[%STR, 128] strides[128, 1]
        : !tile.view<?x?xf32>
    %sT = arith.muli %s, %T : i32
    %slot = arith.addi %sT, %tix : i32
    %slot32 = arith.muli %slot, %c32 : i32
    %slotR = arith.muli %slot, %R : i32
    tile.store %res#0, %pmv[%slot32] mask %rowMask : tensor<16xf32, #srow>
    tile.store %lsum, %plv[%slot32] mask %rowMask : tensor<16xf32, #srow>
    tile.store %res#2, %pav[%slotR, 0] mask %rmB : tensor<16x128xf32, #mma>
    tile.fence
    %tv = tile.make_view %tickets[%T] strides[1] : !tile.view<?xi32>
    %at = tile.splat %tix : tensor<1xi32>
    %oneI = tile.splat %c1 : tensor<1xi32>
    %old = tile.atomic add %tv[%at], %oneI
        : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
    %ticket = tile.reduce max %old along 0 : tensor<1xi32>
    %Sm1 = arith.subi %S, %c1 : i32
    %isLast = arith.cmpi eq, %ticket, %Sm1 : i32
    %merged:2 = scf.if %isLast
        -> (tensor<16xf32, #srow>, tensor<16x128xf32, #mma>) {
      tile.fence
      %zero1 = tile.splat %c0 : tensor<1xi32>
      tile.store %zero1, %tv[%tix] : tensor<1xi32>
      %a0 = arith.constant dense<0.0> : tensor<16x128xf32, #mma>
      %acc:3 = scf.for %u = %c0 to %S step %c1
          iter_args(%mm = %ninfR, %ll = %zR, %aa = %a0)
          -> (tensor<16xf32, #srow>, tensor<16xf32, #srow>,
              tensor<16x128xf32, #mma>) : i32 {
        %uT = arith.muli %u, %T : i32
        %us = arith.addi %uT, %tix : i32
        %uo = arith.muli %us, %c32 : i32
        %uoR = arith.muli %us, %R : i32
        %ms = tile.load %pmv[%uo] mask %rowMask pad -inf
            : tensor<16xf32, #srow>
        %ls = tile.load %plv[%uo] mask %rowMask : tensor<16xf32, #srow>
        %as = tile.load %pav[%uoR, 0] mask %rmB : tensor<16x128xf32, #mma>
        // Running maximum; no split so far saw a token: weights e^(-inf).
        %mn = arith.maximumf %mm, %ms : tensor<16xf32, #srow>
        %none = arith.cmpf oeq, %mn, %ninfR : tensor<16xf32, #srow>
        %ref = arith.select %none, %zR, %mn
            : tensor<16xi1, #srow>, tensor<16xf32, #srow>
        %do = arith.subf %mm, %ref : tensor<16xf32, #srow>
        %wo = math.exp %do : tensor<16xf32, #srow>
        %d = arith.subf %ms, %ref : tensor<16xf32, #srow>
        %w = math.exp %d : tensor<16xf32, #srow>
        %lo = arith.mulf %ll, %wo : tensor<16xf32, #srow>
        %lw = arith.mulf %ls, %w : tensor<16xf32, #srow>
        %ln = arith.addf %lo, %lw : tensor<16xf32, #srow>
        %woE = tile.expand_dims %wo at 1
            : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
        %woB = tile.broadcast %woE
            : tensor<16x1xf32, #mma> -> tensor<16x128xf32, #mma>
        %wE = tile.expand_dims %w at 1
            : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
        %wB = tile.broadcast %wE
            : tensor<16x1xf32, #mma> -> tensor<16x128xf32, #mma>
        %ao = arith.mulf %aa, %woB : tensor<16x128xf32, #mma>
        %aw = arith.mulf %as, %wB : tensor<16x128xf32, #mma>
        %an = arith.addf %ao, %aw : tensor<16x128xf32, #mma>
        scf.yield %mn, %ln, %an : tensor<16xf32, #srow>, tensor<16xf32, #srow>,
            tensor<16x128xf32, #mma>
      } {tile.load_ahead = 4 : i32}
      scf.yield %acc#1, %acc#2 : tensor<16xf32, #srow>, tensor<16x128xf32, #mma>
    } else {
      scf.yield %lsum, %res#2 : tensor<16xf32, #srow>, tensor<16x128xf32, #mma>
    }
    scf.yield %merged#0, %merged#1, %isLast
        : tensor<16xf32, #srow>, tensor<16x128xf32, #mma>, i1
  }
  // out = acc / l, and 0 where no token was seen (l = 0).
  scf.if %sum#2 {
    %pos = arith.cmpf ogt, %sum#0, %zR : tensor<16xf32, #srow>
    %lsafe = arith.select %pos, %sum#0, %oneR
        : tensor<16xi1, #srow>, tensor<16xf32, #srow>
    %inv = arith.divf %oneR, %lsafe : tensor<16xf32, #srow>
    %invw = arith.select %pos, %inv, %zR
        : tensor<16xi1, #srow>, tensor<16xf32, #srow>
    %iE = tile.expand_dims %invw at 1
        : tensor<16xf32, #srow> -> tensor<16x1xf32, #mma>
    %iB = tile.broadcast %iE
        : tensor<16x1xf32, #mma> -> tensor<16x128xf32, #mma>
    %o = arith.mulf %sum#1, %iB : tensor<16x128xf32, #mma>
    %ob = arith.truncf %o : tensor<16x128xf32, #mma> to tensor<16x128xbf16, #mma>
    tile.store %ob, %ov[%qrow, 0] mask %rmB : tensor<16x128xbf16, #mma>
  }
  return
}
