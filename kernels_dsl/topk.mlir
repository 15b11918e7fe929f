// Top-k kernels. runtime/topk.cc picks one path per (batch, n, k)
// (ChooseTopKStrategy; docs/runtime.md "Top-k strategies"):
//   topk_rows_w64/w256/w1024, _w64_r8/_w256_r1/_w1024_r1
//                             whole short rows sorted, many or few rows
//   topk_rows_select_*        2 <= k <= 8 on short rows: k row maxima,
//                             the layouts of topk_rows
//   topk_rows_max_w64/w256/w1024
//                             k = 1 on short rows, several per program
//   top1_f32                  k = 1, rows of at most 4096 columns
//   topk_split_f32, _r128     k <= 64, rows split into parts of 4096
//   topk_f32                  one program per row, k <= 2048
//   topk_f32_unguessed        the same behind the direct guessed start:
//                             only rows whose guess failed
//   topk_hist_f32, topk_gather_f32, topk_collect_f32
//                             few long rows: the radix select and the
//                             compaction split over programs, the
//                             candidates gathered after the first digit
//   topk_select_f32           one program per row, survivors into scratch
//   topk_sort_chunks, topk_merge_f32
//                             the survivors of the last two sorted in
//                             scratch, for any k
//   topk_guess_f32, topk_guess_gather_f32, topk_guess_select_f32
//                             long rows read once: candidates above a
//                             threshold guessed from a sample, selected
//                             (and, from 128 rows, sorted) per row
//
// The long-rows passes, the collection, the sort and the merge are a chain
// of launches that on a few rows each fill a fraction of the GPU, so they
// set tile.dependent_launch: each may be scheduled while the one before it
// runs (with TILEC_DEPENDENT_LAUNCH=1, for grids of at most one program
// per SM; on an H100, one row of 131072 columns, k = 1024, took 37 us
// against 44).
//
// Top-k of each row of a row-major (batch, n) fp32 matrix: the k largest
// values in descending order and their int64 column indices, with the
// contract of torch.topk(largest=True, sorted=True): NaN ranks above +inf.
// One program per row; any n, 1 <= k <= 2048.
//
// 1. Keys: each float maps to a uint32 whose unsigned order is the float
//    order (negatives flip every bit, positives the sign bit, NaN is all
//    ones).
// 2. Radix select, digits of 11, 11 and 10 bits from the top (three passes
//    over the row, not the four of 8-bit digits): a 2048-bin histogram of
//    the digit over the elements that match the digits chosen so far, a
//    reverse scan of it, and the digit where the count from the top reaches
//    the number still wanted. The result is the k-th largest key `thr` and
//    how many elements equal to it are needed (`need`).
// 3. Collect: elements above `thr`, then the first `need` equal to it, are
//    compacted by a prefix sum into a tile of P >= k slots, which a bitonic
//    sort orders; the first k are stored. P is 64 for k <= 64 (the common
//    case; a short sort), 256 for k <= 256, 2048 otherwise. The slots hold
//    (key, column); values are the keys mapped back.
// A row is latency-bound (three radix passes and the collection, each of
// dependent 4096-column steps), so
// rows in flight matter more than registers: at most 128 per thread (no
// spills) lets two programs share an SM, against one at ptxas's 180; and
// every pass loads its next 4096 columns while it works on these
// (tile.load_ahead).

func.func @topk_f32(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                    %indices: !tile.ptr<i64>, %batch: i32, %n: i32, %k: i32,
                    %state: !tile.ptr<i32>, %cap: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.max_registers = 128 : i32,
                tile.params = {GUESSED = 0 : i32},
                tile.instances = {
                  topk_f32 = {}, topk_f32_unguessed = {GUESSED = 1}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c10 = arith.constant 10 : i32
  %c11 = arith.constant 11 : i32
  %c16 = arith.constant 16 : i32
  %c21 = arith.constant 21 : i32
  %c1023 = arith.constant 1023 : i32
  %c2047 = arith.constant 2047 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %cm1 = arith.constant -1 : i32
  %c31 = arith.constant 31 : i32
  %low16 = arith.constant 65535 : i32
  %kmin = arith.constant -2147483648 : i32
  %zerof = arith.constant 0.0 : f32
  %chunk = arith.constant 4096 : i32
  %row = tile.program_id x
  // topk_f32_unguessed runs behind the guessed long-rows start: a row
  // whose guess held is already done (topk_guess_select_f32 wrote it), so
  // only rows whose guess failed are computed, from the row itself.
  %guessParam = tile.param "GUESSED" : i32
  %guessOnB = arith.cmpi ne, %guessParam, %c0 : i32
  %guessed = scf.if %guessOnB -> (i1) {
    %stateLen = arith.constant 6176 : i64
    %rowS = arith.extui %row : i32 to i64
    %sAt = arith.muli %rowS, %stateLen : i64
    %sRow = tile.addptr %state, %sAt : !tile.ptr<i32>, i64
    %sv = tile.make_view %sRow[6176] strides[1] : !tile.view<?xi32>
    %countT = tile.load %sv[6163] : tensor<1xi32>
    %count = tile.reduce max %countT along 0 : tensor<1xi32>
    %enough = arith.cmpi sge, %count, %k : i32
    %fits = arith.cmpi sle, %count, %cap : i32
    %both = arith.andi %enough, %fits : i1
    scf.yield %both : i1
  } else {
    %no = arith.constant false
    scf.yield %no : i1
  }
  %true = arith.constant true
  %unguessed = arith.xori %guessed, %true : i1
  scf.if %unguessed {
    // Views start at the program's row: batch * n may pass 2^31, which a
    // view's 32-bit extents and offsets cannot reach; row bases are 64-bit.
    %row64 = arith.extui %row : i32 to i64
    %n64 = arith.extui %n : i32 to i64
    %k64 = arith.extui %k : i32 to i64
    %xAt = arith.muli %row64, %n64 : i64
    %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
    %src = tile.make_view %xRow[%n] strides[1] : !tile.view<?xf32>
    %lane = tile.iota : tensor<4096xi32>
    %nT = tile.splat %n : tensor<4096xi32>
    %zeroT = tile.splat %c0 : tensor<4096xi32>
    %onesT = tile.splat %cm1 : tensor<4096xi32>
    %signT = tile.splat %kmin : tensor<4096xi32>
    %bins = tile.iota : tensor<2048xi32>
    %zeroH = tile.splat %c0 : tensor<2048xi32>
    %noneH = tile.splat %cm1 : tensor<2048xi32>

    // 2. Radix select.
    %sel:2 = scf.for %pass = %c0 to %c3 step %c1
        iter_args(%prefix = %c0, %rem = %k) -> (i32, i32) : i32 {
      // Digits of 11, 11 and 10 bits from the top: shifts 21, 10, 0.
      %first = arith.cmpi eq, %pass, %c0 : i32
      %last = arith.cmpi eq, %pass, %c2 : i32
      %laterShift = arith.select %last, %c0, %c10 : i32
      %shift = arith.select %first, %c21, %laterShift : i32
      %digitMask = arith.select %last, %c1023, %c2047 : i32
      // Bits decided by earlier passes: ~0 << (shift + width), none at first.
      %width = arith.select %last, %c10, %c11 : i32
      %decided = arith.addi %shift, %width : i32
      %safeShift = arith.select %first, %c0, %decided : i32
      %hiBits = arith.shli %cm1, %safeShift : i32
      %hiMask = arith.select %first, %c0, %hiBits : i32
      %hiMaskT = tile.splat %hiMask : tensor<4096xi32>
      %prefixT = tile.splat %prefix : tensor<4096xi32>
      %shiftT = tile.splat %shift : tensor<4096xi32>
      %c255T = tile.splat %digitMask : tensor<4096xi32>
      %hist = scf.for %j = %c0 to %n step %chunk
          iter_args(%h = %zeroH) -> (tensor<2048xi32>) : i32 {
        %jT = tile.splat %j : tensor<4096xi32>
        %cols = arith.addi %lane, %jT : tensor<4096xi32>
        %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
        %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
        %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
        %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
        %flip = arith.select %neg, %onesT, %signT
            : tensor<4096xi1>, tensor<4096xi32>
        %ordered = arith.xori %bits, %flip : tensor<4096xi32>
        %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
        %key = arith.select %nan, %onesT, %ordered
            : tensor<4096xi1>, tensor<4096xi32>
        %hi = arith.andi %key, %hiMaskT : tensor<4096xi32>
        %match = arith.cmpi eq, %hi, %prefixT : tensor<4096xi32>
        %counted = arith.andi %valid, %match : tensor<4096xi1>
        %sh = arith.shrui %key, %shiftT : tensor<4096xi32>
        %digit = arith.andi %sh, %c255T : tensor<4096xi32>
        %hc = tile.histogram %digit mask %counted
            : tensor<4096xi32> -> tensor<2048xi32>
        %hn = arith.addi %h, %hc : tensor<2048xi32>
        scf.yield %hn : tensor<2048xi32>
      } {tile.load_ahead = 1 : i32}
      // Elements with this digit or a larger one, per digit.
      %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
      %remT = tile.splat %rem : tensor<2048xi32>
      %enough = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
      %cand = arith.select %enough, %bins, %noneH
          : tensor<2048xi1>, tensor<2048xi32>
      %d = tile.reduce max %cand along 0 : tensor<2048xi32>
      %dT = tile.splat %d : tensor<2048xi32>
      %above = arith.cmpi sgt, %bins, %dT : tensor<2048xi32>
      %aboveH = arith.select %above, %hist, %zeroH
          : tensor<2048xi1>, tensor<2048xi32>
      %skipped = tile.reduce add %aboveH along 0 : tensor<2048xi32>
      %dsh = arith.shli %d, %shift : i32
      %np = arith.ori %prefix, %dsh : i32
      %nr = arith.subi %rem, %skipped : i32
      scf.yield %np, %nr : i32, i32
    }
    %thrT = tile.splat %sel#0 : tensor<4096xi32>
    %needT = tile.splat %sel#1 : tensor<4096xi32>
    %above = arith.subi %k, %sel#1 : i32
    %aboveT = tile.splat %above : tensor<4096xi32>
    %low16T = tile.splat %low16 : tensor<4096xi32>
    %c16T = tile.splat %c16 : tensor<4096xi32>

    // 3. Collect, sort, store.
    %outAt = arith.muli %row64, %k64 : i64
    %valuesRow = tile.addptr %values, %outAt : !tile.ptr<f32>, i64
    %indicesRow = tile.addptr %indices, %outAt : !tile.ptr<i64>, i64
    %outV = tile.make_view %valuesRow[%k] strides[1] : !tile.view<?xf32>
    %outI = tile.make_view %indicesRow[%k] strides[1] : !tile.view<?xi64>
    %short = arith.cmpi sle, %k, %c64 : i32
    scf.if %short {
      %initK = tile.splat %kmin : tensor<64xi32>
      %initI = tile.splat %c0 : tensor<64xi32>
      // Slots: elements above the threshold first, then the needed equal ones;
      // one scan counts both (low and high 16 bits: a chunk has < 2^16).
      %got:4 = scf.for %j = %c0 to %n step %chunk
          iter_args(%gOff = %c0, %eOff = %c0, %ak = %initK, %ai = %initI)
          -> (i32, i32, tensor<64xi32>, tensor<64xi32>) : i32 {
          %jT = tile.splat %j : tensor<4096xi32>
          %cols = arith.addi %lane, %jT : tensor<4096xi32>
          %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
          %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
          %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
          %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
          %flip = arith.select %neg, %onesT, %signT
              : tensor<4096xi1>, tensor<4096xi32>
          %ordered = arith.xori %bits, %flip : tensor<4096xi32>
          %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
          %key = arith.select %nan, %onesT, %ordered
              : tensor<4096xi1>, tensor<4096xi32>
        %isAbove = arith.cmpi ugt, %key, %thrT : tensor<4096xi32>
        %gt = arith.andi %valid, %isAbove : tensor<4096xi1>
        %isEq = arith.cmpi eq, %key, %thrT : tensor<4096xi32>
        %eq = arith.andi %valid, %isEq : tensor<4096xi1>
        %g32 = arith.extui %gt : tensor<4096xi1> to tensor<4096xi32>
        %e32 = arith.extui %eq : tensor<4096xi1> to tensor<4096xi32>
        %eHigh = arith.shli %e32, %c16T : tensor<4096xi32>
        %both = arith.ori %g32, %eHigh : tensor<4096xi32>
        %before = tile.scan add %both along 0 exclusive : tensor<4096xi32>
        %gOffT = tile.splat %gOff : tensor<4096xi32>
        %eOffT = tile.splat %eOff : tensor<4096xi32>
        %lowBefore = arith.andi %before, %low16T : tensor<4096xi32>
        %gpos = arith.addi %lowBefore, %gOffT : tensor<4096xi32>
        %highBefore = arith.shrui %before, %c16T : tensor<4096xi32>
        %erank = arith.addi %highBefore, %eOffT : tensor<4096xi32>
        %wanted = arith.cmpi slt, %erank, %needT : tensor<4096xi32>
        %takeEq = arith.andi %eq, %wanted : tensor<4096xi1>
        %epos = arith.addi %erank, %aboveT : tensor<4096xi32>
        %pos = arith.select %gt, %gpos, %epos : tensor<4096xi1>, tensor<4096xi32>
        %take = arith.ori %gt, %takeEq : tensor<4096xi1>
        %skey = arith.xori %key, %signT : tensor<4096xi32>
        %nk = tile.scatter %skey into %ak[%pos] mask %take
            : tensor<4096xi32>, tensor<4096xi32> -> tensor<64xi32>
        %ni = tile.scatter %cols into %ai[%pos] mask %take
            : tensor<4096xi32>, tensor<4096xi32> -> tensor<64xi32>
        %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32>
        %chunkGt = arith.andi %chunkCounts, %low16 : i32
        %chunkEq = arith.shrui %chunkCounts, %c16 : i32
        %ng = arith.addi %gOff, %chunkGt : i32
        %ne = arith.addi %eOff, %chunkEq : i32
        scf.yield %ng, %ne, %nk, %ni
            : i32, i32, tensor<64xi32>, tensor<64xi32>
      } {tile.load_ahead = 1 : i32}
      // Signed order of the flipped keys is the float order; the value is
      // the key mapped back (its own inverse; NaN comes back as a NaN), not
      // a third array carried through the collection and the sort.
      %sk, %si = tile.sort %got#2, %got#3 along 0 descending
          : tensor<64xi32>, tensor<64xi32>
      %c31S = tile.splat %c31 : tensor<64xi32>
      %c1S = tile.splat %c1 : tensor<64xi32>
      %ksign = arith.shrsi %sk, %c31S : tensor<64xi32>
      %kmag = arith.shrui %ksign, %c1S : tensor<64xi32>
      %vbits = arith.xori %sk, %kmag : tensor<64xi32>
      %sv = arith.bitcast %vbits : tensor<64xi32> to tensor<64xf32>
      %slot = tile.iota : tensor<64xi32>
      %kT = tile.splat %k : tensor<64xi32>
      %keep = arith.cmpi slt, %slot, %kT : tensor<64xi32>
      %si64 = arith.extui %si : tensor<64xi32> to tensor<64xi64>
      tile.store %sv, %outV[0] mask %keep : tensor<64xf32>
      tile.store %si64, %outI[0] mask %keep : tensor<64xi64>
    } else {
      // 65 <= k <= 256: 256 slots, one per thread, which tile.sort orders on
      // the registers (36 stages, 6 across warps) rather than the 2048
      // slots' network in shared memory (66 stages, each a barrier).
      %mid = arith.cmpi sle, %k, %c256 : i32
      scf.if %mid {
        %initK = tile.splat %kmin : tensor<256xi32>
        %initI = tile.splat %c0 : tensor<256xi32>
        // Slots: elements above the threshold first, then the needed equal ones;
        // one scan counts both (low and high 16 bits: a chunk has < 2^16).
        %got:4 = scf.for %j = %c0 to %n step %chunk
            iter_args(%gOff = %c0, %eOff = %c0, %ak = %initK, %ai = %initI)
            -> (i32, i32, tensor<256xi32>, tensor<256xi32>) : i32 {
            %jT = tile.splat %j : tensor<4096xi32>
            %cols = arith.addi %lane, %jT : tensor<4096xi32>
            %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
            %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
            %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
            %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
            %flip = arith.select %neg, %onesT, %signT
                : tensor<4096xi1>, tensor<4096xi32>
            %ordered = arith.xori %bits, %flip : tensor<4096xi32>
            %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
            %key = arith.select %nan, %onesT, %ordered
                : tensor<4096xi1>, tensor<4096xi32>
          %isAbove = arith.cmpi ugt, %key, %thrT : tensor<4096xi32>
          %gt = arith.andi %valid, %isAbove : tensor<4096xi1>
          %isEq = arith.cmpi eq, %key, %thrT : tensor<4096xi32>
          %eq = arith.andi %valid, %isEq : tensor<4096xi1>
          %g32 = arith.extui %gt : tensor<4096xi1> to tensor<4096xi32>
          %e32 = arith.extui %eq : tensor<4096xi1> to tensor<4096xi32>
          %eHigh = arith.shli %e32, %c16T : tensor<4096xi32>
          %both = arith.ori %g32, %eHigh : tensor<4096xi32>
          %before = tile.scan add %both along 0 exclusive : tensor<4096xi32>
          %gOffT = tile.splat %gOff : tensor<4096xi32>
          %eOffT = tile.splat %eOff : tensor<4096xi32>
          %lowBefore = arith.andi %before, %low16T : tensor<4096xi32>
          %gpos = arith.addi %lowBefore, %gOffT : tensor<4096xi32>
          %highBefore = arith.shrui %before, %c16T : tensor<4096xi32>
          %erank = arith.addi %highBefore, %eOffT : tensor<4096xi32>
          %wanted = arith.cmpi slt, %erank, %needT : tensor<4096xi32>
          %takeEq = arith.andi %eq, %wanted : tensor<4096xi1>
          %epos = arith.addi %erank, %aboveT : tensor<4096xi32>
          %pos = arith.select %gt, %gpos, %epos : tensor<4096xi1>, tensor<4096xi32>
          %take = arith.ori %gt, %takeEq : tensor<4096xi1>
          %skey = arith.xori %key, %signT : tensor<4096xi32>
          %nk = tile.scatter %skey into %ak[%pos] mask %take
              : tensor<4096xi32>, tensor<4096xi32> -> tensor<256xi32>
          %ni = tile.scatter %cols into %ai[%pos] mask %take
              : tensor<4096xi32>, tensor<4096xi32> -> tensor<256xi32>
          %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32>
          %chunkGt = arith.andi %chunkCounts, %low16 : i32
          %chunkEq = arith.shrui %chunkCounts, %c16 : i32
          %ng = arith.addi %gOff, %chunkGt : i32
          %ne = arith.addi %eOff, %chunkEq : i32
          scf.yield %ng, %ne, %nk, %ni
              : i32, i32, tensor<256xi32>, tensor<256xi32>
        } {tile.load_ahead = 1 : i32}
        // Signed order of the flipped keys is the float order; the value is
        // the key mapped back (its own inverse; NaN comes back as a NaN), not
        // a third array carried through the collection and the sort.
        %sk, %si = tile.sort %got#2, %got#3 along 0 descending
            : tensor<256xi32>, tensor<256xi32>
        %c31S = tile.splat %c31 : tensor<256xi32>
        %c1S = tile.splat %c1 : tensor<256xi32>
        %ksign = arith.shrsi %sk, %c31S : tensor<256xi32>
        %kmag = arith.shrui %ksign, %c1S : tensor<256xi32>
        %vbits = arith.xori %sk, %kmag : tensor<256xi32>
        %sv = arith.bitcast %vbits : tensor<256xi32> to tensor<256xf32>
        %slot = tile.iota : tensor<256xi32>
        %kT = tile.splat %k : tensor<256xi32>
        %keep = arith.cmpi slt, %slot, %kT : tensor<256xi32>
        %si64 = arith.extui %si : tensor<256xi32> to tensor<256xi64>
        tile.store %sv, %outV[0] mask %keep : tensor<256xf32>
        tile.store %si64, %outI[0] mask %keep : tensor<256xi64>
      } else {
        %initK = tile.splat %kmin : tensor<2048xi32>
        %initI = tile.splat %c0 : tensor<2048xi32>
        // Slots: elements above the threshold first, then the needed equal ones;
        // one scan counts both (low and high 16 bits: a chunk has < 2^16).
        %got:4 = scf.for %j = %c0 to %n step %chunk
            iter_args(%gOff = %c0, %eOff = %c0, %ak = %initK, %ai = %initI)
            -> (i32, i32, tensor<2048xi32>, tensor<2048xi32>) : i32 {
            %jT = tile.splat %j : tensor<4096xi32>
            %cols = arith.addi %lane, %jT : tensor<4096xi32>
            %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
            %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
            %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
            %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
            %flip = arith.select %neg, %onesT, %signT
                : tensor<4096xi1>, tensor<4096xi32>
            %ordered = arith.xori %bits, %flip : tensor<4096xi32>
            %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
            %key = arith.select %nan, %onesT, %ordered
                : tensor<4096xi1>, tensor<4096xi32>
          %isAbove = arith.cmpi ugt, %key, %thrT : tensor<4096xi32>
          %gt = arith.andi %valid, %isAbove : tensor<4096xi1>
          %isEq = arith.cmpi eq, %key, %thrT : tensor<4096xi32>
          %eq = arith.andi %valid, %isEq : tensor<4096xi1>
          %g32 = arith.extui %gt : tensor<4096xi1> to tensor<4096xi32>
          %e32 = arith.extui %eq : tensor<4096xi1> to tensor<4096xi32>
          %eHigh = arith.shli %e32, %c16T : tensor<4096xi32>
          %both = arith.ori %g32, %eHigh : tensor<4096xi32>
          %before = tile.scan add %both along 0 exclusive : tensor<4096xi32>
          %gOffT = tile.splat %gOff : tensor<4096xi32>
          %eOffT = tile.splat %eOff : tensor<4096xi32>
          %lowBefore = arith.andi %before, %low16T : tensor<4096xi32>
          %gpos = arith.addi %lowBefore, %gOffT : tensor<4096xi32>
          %highBefore = arith.shrui %before, %c16T : tensor<4096xi32>
          %erank = arith.addi %highBefore, %eOffT : tensor<4096xi32>
          %wanted = arith.cmpi slt, %erank, %needT : tensor<4096xi32>
          %takeEq = arith.andi %eq, %wanted : tensor<4096xi1>
          %epos = arith.addi %erank, %aboveT : tensor<4096xi32>
          %pos = arith.select %gt, %gpos, %epos : tensor<4096xi1>, tensor<4096xi32>
          %take = arith.ori %gt, %takeEq : tensor<4096xi1>
          %skey = arith.xori %key, %signT : tensor<4096xi32>
          %nk = tile.scatter %skey into %ak[%pos] mask %take
              : tensor<4096xi32>, tensor<4096xi32> -> tensor<2048xi32>
          %ni = tile.scatter %cols into %ai[%pos] mask %take
              : tensor<4096xi32>, tensor<4096xi32> -> tensor<2048xi32>
          %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32>
          %chunkGt = arith.andi %chunkCounts, %low16 : i32
          %chunkEq = arith.shrui %chunkCounts, %c16 : i32
          %ng = arith.addi %gOff, %chunkGt : i32
          %ne = arith.addi %eOff, %chunkEq : i32
          scf.yield %ng, %ne, %nk, %ni
              : i32, i32, tensor<2048xi32>, tensor<2048xi32>
        } {tile.load_ahead = 1 : i32}
        // Signed order of the flipped keys is the float order; the value is
        // the key mapped back (its own inverse; NaN comes back as a NaN), not
        // a third array carried through the collection and the sort.
        %sk, %si = tile.sort %got#2, %got#3 along 0 descending
            : tensor<2048xi32>, tensor<2048xi32>
        %c31S = tile.splat %c31 : tensor<2048xi32>
        %c1S = tile.splat %c1 : tensor<2048xi32>
        %ksign = arith.shrsi %sk, %c31S : tensor<2048xi32>
        %kmag = arith.shrui %ksign, %c1S : tensor<2048xi32>
        %vbits = arith.xori %sk, %kmag : tensor<2048xi32>
        %sv = arith.bitcast %vbits : tensor<2048xi32> to tensor<2048xf32>
        %slot = tile.iota : tensor<2048xi32>
        %kT = tile.splat %k : tensor<2048xi32>
        %keep = arith.cmpi slt, %slot, %kT : tensor<2048xi32>
        %si64 = arith.extui %si : tensor<2048xi32> to tensor<2048xi64>
        tile.store %sv, %outV[0] mask %keep : tensor<2048xf32>
        tile.store %si64, %outI[0] mask %keep : tensor<2048xi64>
      }
    }
  }
  return
}

// The same contract for k <= 64, with a row split into parts of 4096
// columns: program (row, part) keeps its part in registers and finds the
// part's top k, sorted; a row of one part writes its result directly,
// otherwise each part stores its candidates to `work` and takes a ticket,
// and the last part of the row to arrive selects the final top k from the
// parts * k <= 4096 candidates. The runtime supplies `work` (batch * 4096)
// and `tickets` (batch, zero before the first call); the last part sets its
// row's ticket back to zero. When the runtime launches a row's parts as
// one thread-block cluster (up to 8 parts, at most 128 candidates), the
// parts write their candidates into part 0's shared buffer instead, and
// after a cluster barrier part 0 selects from them: no global round trip.
//
// Elements travel as i64 (signed-order key << 32 | column), so elements are
// unique and one value carries key and index; past the row the key is
// INT32_MIN, below every float. A part is an 8 x 32 x 16 tile, 16
// consecutive columns per thread, so grouped reductions stay in registers
// and lanes.
//
// Selection, in each stage:
// 1. A key threshold T with at least k elements >= T, from groups that are
//    cheap to reduce. Stage 0: every group of 16 columns has a maximum;
//    each row of 32 groups sorts its maxima (within a warp) and offers its
//    j-th largest, j = ceil(k / 8), and T is the smallest offer (8 rows * j
//    >= k elements are >= T). Stage 1: each part's list is sorted, so if m
//    parts have their j-th candidate >= T and m * j >= k, T will do: T is
//    the m-th largest of the parts' j-th candidates (j about 4, a warp
//    sort of up to 64 lists); with at most 256 candidates all are kept,
//    and at most 128 are taken directly from `work` (or, in a cluster,
//    from part 0's shared buffer).
// 2. The survivors (elements >= T, typically about 2k) are compacted by a
//    prefix count into 64, 128 or 256 slots and put in order: up to 128 by
//    rank (the number of survivors above each, a 64 x 64 or 128 x 128
//    matrix of compares; ranks below k are the result's slots), 129-256 by
//    a bitonic sort. Direct stage-1 lists of a multiple of 32 are sorted
//    runs and are only merged (tile.sort ... runs 32).
// 3. When more than 256 survive (heavy ties, few valid columns), a radix
//    select on 11/11/10-bit digits finds the k-th key exactly and the k
//    elements are taken instead.
// Rows of 16-32 parts (k >= 8) first try a shortcut when the last part
// arrives: the parts' first 8 candidates, merged as sorted runs of 8, hold
// the row's top k unless some part's 8th is among their k largest (that
// part may hold more); only then does stage 1 load all candidates.
// k = 1 is a single max reduction (rows of one part use top1_f32 below).

#part = #tile.blocked<size = [1, 1, 16], threads = [1, 32, 1], warps = [8, 1, 1], order = [2, 1, 0]>
#groups = #tile.slice<dim = 2, parent = #part>
#rows = #tile.slice<dim = 1, parent = #groups>
#cols = #tile.slice<dim = 0, parent = #groups>
#inner = #tile.slice<dim = 0, parent = #tile.slice<dim = 0, parent = #part>>
#lists = #tile.blocked<size = [1, 2], threads = [1, 32], warps = [8, 1], order = [1, 0]>
#rank64 = #tile.blocked<size = [2, 8], threads = [4, 8], warps = [8, 1], order = [1, 0]>
#rank128 = #tile.blocked<size = [4, 16], threads = [4, 8], warps = [8, 1], order = [1, 0]>
#flat = #tile.blocked<size = [1], threads = [32], warps = [8], order = [0]>
#pairs = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [2, 4], order = [1, 0]>
#sample = #tile.blocked<size = [1, 1], threads = [4, 8], warps = [8, 1], order = [1, 0]>
!pi1 = tensor<8x32x16xi1, #part>
!pi32 = tensor<8x32x16xi32, #part>
!pi64 = tensor<8x32x16xi64, #part>
!pf32 = tensor<8x32x16xf32, #part>
!gi1 = tensor<8x32xi1, #groups>
!gi32 = tensor<8x32xi32, #groups>
!gi64 = tensor<8x32xi64, #groups>
!ri32 = tensor<8xi32, #rows>
!ri64 = tensor<8xi64, #rows>
!row64 = tensor<64xi64, #tile.slice<dim = 1, parent = #rank64>>
!rank64 = tensor<64xi32, #tile.slice<dim = 1, parent = #rank64>>
!row128 = tensor<128xi64, #tile.slice<dim = 1, parent = #rank128>>
!rank128 = tensor<128xi32, #tile.slice<dim = 1, parent = #rank128>>
!flat256 = tensor<256xi64, #flat>
!lists64 = tensor<2x128xi64, #pairs>
!lists32 = tensor<2x128xi32, #pairs>
!lists1 = tensor<2x128xi1, #pairs>
!sample64 = tensor<32x8xi64, #sample>
!sample32 = tensor<32x8xi32, #sample>
!flatPos = tensor<256xi32, #flat>

// Two register budgets: 168 lets one program per SM run its row's
// dependent steps fastest (grids of at most one program per SM); at 128
// (114 used, no spills) two programs share an SM, which pays once the grid
// has more programs than SMs (runtime/topk.cc, kSplitWideGridPrograms).
func.func @topk_split(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                      %indices: !tile.ptr<i64>, %work: !tile.ptr<i64>,
                      %tickets: !tile.ptr<i32>, %batch: i32, %n: i32,
                      %k: i32, %parts: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.max_registers = 168 : i32, tile.params = {},
                tile.instances = {
                  topk_split_f32 = {},
                  topk_split_f32_r128 = {"tile.max_registers" = 128 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c10 = arith.constant 10 : i32
  %c16 = arith.constant 16 : i32
  %c21 = arith.constant 21 : i32
  %c32 = arith.constant 32 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %c512 = arith.constant 512 : i32
  %c1023 = arith.constant 1023 : i32
  %c2047 = arith.constant 2047 : i32
  %kmin = arith.constant -2147483648 : i32
  %kmax = arith.constant 2147483647 : i32
  %kmin1 = arith.constant -2147483647 : i32
  %c31 = arith.constant 31 : i32
  %partLen = arith.constant 4096 : i32
  %true = arith.constant true
  %false = arith.constant false
  %l20 = arith.constant 20 : i64
  %l32 = arith.constant 32 : i64
  %l40 = arith.constant 40 : i64
  %lm1 = arith.constant -1 : i64
  %low20 = arith.constant 1048575 : i64
  %lmin = arith.constant -9223372036854775808 : i64
  %l0 = arith.constant 0 : i64
  %l2p31 = arith.constant 2147483648 : i64

  %row = tile.program_id x
  %part = tile.program_id y
  // Views start at the program's row of x, work and the outputs: batch * n
  // may pass 2^31 (and batch * 4096 does from 2^19 rows), which a view's
  // 32-bit extents and offsets cannot reach; row bases are 64-bit.
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %k64 = arith.extui %k : i32 to i64
  %partLen64 = arith.extui %partLen : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %workAt = arith.muli %row64, %partLen64 : i64
  %workRow = tile.addptr %work, %workAt : !tile.ptr<i64>, i64
  %base = arith.muli %part, %partLen : i32
  %single = arith.cmpi eq, %parts, %c1 : i32
  %isK1 = arith.cmpi eq, %k, %c1 : i32

  // Position a * 512 + b * 16 + c of element (a, b, c) within the part.
  %ia = tile.iota : !ri32
  %ea1 = tile.expand_dims %ia at 1 : !ri32 -> tensor<8x1xi32, #groups>
  %ea = tile.expand_dims %ea1 at 2 : tensor<8x1xi32, #groups> -> tensor<8x1x1xi32, #part>
  %ib = tile.iota : tensor<32xi32, #cols>
  %eb1 = tile.expand_dims %ib at 0 : tensor<32xi32, #cols> -> tensor<1x32xi32, #groups>
  %eb = tile.expand_dims %eb1 at 2 : tensor<1x32xi32, #groups> -> tensor<1x32x1xi32, #part>
  %ic = tile.iota : tensor<16xi32, #inner>
  %ec1 = tile.expand_dims %ic at 0 : tensor<16xi32, #inner> -> tensor<1x16xi32, #tile.slice<dim = 0, parent = #part>>
  %ec = tile.expand_dims %ec1 at 0 : tensor<1x16xi32, #tile.slice<dim = 0, parent = #part>> -> tensor<1x1x16xi32, #part>
  %pa = tile.broadcast %ea : tensor<8x1x1xi32, #part> -> !pi32
  %pb = tile.broadcast %eb : tensor<1x32x1xi32, #part> -> !pi32
  %pc = tile.broadcast %ec : tensor<1x1x16xi32, #part> -> !pi32
  %c512T = tile.splat %c512 : !pi32
  %c16T = tile.splat %c16 : !pi32
  %sa = arith.muli %pa, %c512T : !pi32
  %sb = arith.muli %pb, %c16T : !pi32
  %sab = arith.addi %sa, %sb : !pi32
  %place = arith.addi %sab, %pc : !pi32

  // Keys of this part; columns past the row are empty slots.
  %baseT = tile.splat %base : !pi32
  %cols = arith.addi %place, %baseT : !pi32
  %nT = tile.splat %n : !pi32
  %valid = arith.cmpi slt, %cols, %nT : !pi32
  %src = tile.make_view %xRow[8, 32, %n] strides[512, 16, 1]
      : !tile.view<?x?x?xf32>
  %t = tile.load %src[0, 0, %base] mask %valid : !pf32
  %c31T = tile.splat %c31 : !pi32
  %c1T = tile.splat %c1 : !pi32
  %signT = tile.splat %kmin : !pi32
  %maxKeyT = tile.splat %kmax : !pi32
  %l32T = tile.splat %l32 : !pi64
  // Signed-order key: negatives flip all bits but the sign; NaN is the
  // largest key, as torch orders it; past the row, the smallest.
  %bits = arith.bitcast %t : !pf32 to !pi32
  %sign = arith.shrsi %bits, %c31T : !pi32
  %magnitude = arith.shrui %sign, %c1T : !pi32
  %ordered = arith.xori %bits, %magnitude : !pi32
  %nan = arith.cmpf uno, %t, %t : !pf32
  %keyN = arith.select %nan, %maxKeyT, %ordered : !pi1, !pi32
  %skey0 = arith.select %valid, %keyN, %signT : !pi1, !pi32
  %skey64 = arith.extsi %skey0 : !pi32 to !pi64
  %keyHigh = arith.shli %skey64, %l32T : !pi64
  %col64 = arith.extui %cols : !pi32 to !pi64
  %packed = arith.ori %keyHigh, %col64 : !pi64

  %slot = tile.iota : tensor<64xi32>
  %slotZero = tile.splat %c0 : tensor<64xi32>
  %kT64 = tile.splat %k : tensor<64xi32>
  %keep = arith.cmpi slt, %slot, %kT64 : tensor<64xi32>
  %emptySlots = tile.splat %lmin : tensor<64xi64>
  %perRow = arith.muli %parts, %k : i32
  // Launched in clusters of one row's parts (at most 128 candidates), the
  // parts hand their candidates to part 0's shared buffer instead.
  %clusterSize = tile.cluster_size
  %clustered = arith.cmpi sgt, %clusterSize, %c1 : i32
  %handoff = tile.alloc_shared : !tile.smem<128xi64>
  // Stage 1 over more than 128 candidates first tries the parts' first 8
  // (up to 32 parts, at least 2k of them, k >= 8; see the hand-off).
  %manyCand = arith.cmpi sgt, %perRow, %c128 : i32
  %parts8 = arith.muli %parts, %c8 : i32
  %k2 = arith.muli %k, %c2 : i32
  %sampleFits = arith.cmpi sge, %parts8, %k2 : i32
  %partsFit = arith.cmpi sle, %parts, %c32 : i32
  %kFits = arith.cmpi sge, %k, %c8 : i32
  %fastA = arith.andi %manyCand, %sampleFits : i1
  %fastB = arith.andi %partsFit, %kFits : i1
  %fastOK = arith.andi %fastA, %fastB : i1

  // Stage 0 selects among the part's elements, stage 1 (last part only)
  // among the candidates of all parts. The stages take different branches,
  // so nothing invariant is hoisted out of the loop (tile.no_hoist): every
  // program would compute stage 1's values up front and keep them live.
  %done:4 = scf.for %stage = %c0 to %c2 step %c1
      iter_args(%cur = %packed, %live = %true, %res = %emptySlots,
                %got = %false)
      -> (!pi64, i1, tensor<64xi64>, i1) : i32 {
    %next:4 = scf.if %live -> (!pi64, i1, tensor<64xi64>, i1) {
      %isStage0 = arith.cmpi eq, %stage, %c0 : i32
      %cand = scf.if %isK1 -> (tensor<64xi64>) {
        %m2 = tile.reduce max %cur along 2 : !pi64 -> !gi64
        %m1 = tile.reduce max %m2 along 1 : !gi64 -> !ri64
        %best = tile.reduce max %m1 along 0 : !ri64 -> i64
        %bestT = tile.splat %best : tensor<64xi64>
        %first = arith.cmpi eq, %slot, %slotZero : tensor<64xi32>
        %one = arith.select %first, %bestT, %emptySlots
            : tensor<64xi1>, tensor<64xi64>
        scf.yield %one : tensor<64xi64>
      } else {
        // Stage 1 with at most 128 candidates ranks them all directly.
        %stage1 = arith.cmpi eq, %stage, %c1 : i32
        %fewCand = arith.cmpi sle, %perRow, %c128 : i32
        %direct = arith.andi %stage1, %fewCand : i1
        // 65 to 128 candidates in global lists of a multiple of 32 are
        // sorted runs of 32: merging them beats ranking them.
        %kMod32 = arith.remui %k, %c32 : i32
        %kRuns = arith.cmpi eq, %kMod32, %c0 : i32
        %over64d = arith.cmpi sgt, %perRow, %c64 : i32
        %global = arith.xori %clustered, %true : i1
        %mergeA = arith.andi %direct, %kRuns : i1
        %mergeB = arith.andi %mergeA, %over64d : i1
        %mergeLists = arith.andi %mergeB, %global : i1
        %prep:5 = scf.if %direct -> (!row128, i1, !pi1, !pi32, i32) {
          %slotsR = tile.iota : !rank128
          %perRowR = tile.splat %perRow : !rank128
          %inRowR = arith.cmpi slt, %slotsR, %perRowR : !rank128
          %over64 = arith.cmpi sgt, %perRow, %c64 : i32
          %empty128d = tile.splat %lmin : !row128
          %noMerge = arith.xori %mergeLists, %true : i1
          %loadRow = arith.andi %over64, %noMerge : i1
          %srd = scf.if %loadRow -> (!row128) {
           %srdc = scf.if %clustered -> (!row128) {
            %fromShared = tile.load_shared %handoff[%c0] mask %inRowR
                pad -9223372036854775808 : i64
                : !tile.smem<128xi64> -> !row128
            scf.yield %fromShared : !row128
          } else {
            %wv1 = tile.make_view %workRow[4096] strides[1] : !tile.view<?xi64>
            %fromWork = tile.load %wv1[0] mask %inRowR
                pad -9223372036854775808 : !row128
            scf.yield %fromWork : !row128
           }
           scf.yield %srdc : !row128
          } else {
            scf.yield %empty128d : !row128
          }
          %noTake = tile.splat %false : !pi1
          %noPos = tile.splat %c0 : !pi32
          scf.yield %srd, %over64, %noTake, %noPos, %perRow
              : !row128, i1, !pi1, !pi32, i32
        } else {
          // 1. The threshold, on keys (the high word).
          %l32K = tile.splat %l32 : !pi64
          %hk = arith.shrui %cur, %l32K : !pi64
          %ckey = arith.trunci %hk : !pi64 to !pi32
          %few = arith.cmpi sle, %perRow, %c256 : i32
          %takeAll = arith.select %isStage0, %false, %few : i1
          %thr = scf.if %takeAll -> (i32) {
            scf.yield %kmin1 : i32
          } else {
            %offer = scf.if %isStage0 -> (i32) {
              %gmax = tile.reduce max %ckey along 2 : !pi32 -> !gi32
              %sorted = tile.sort %gmax along 1 descending : !gi32
              %k7 = arith.addi %k, %c7 : i32
              %j = arith.divui %k7, %c8 : i32
              %jm1 = arith.subi %j, %c1 : i32
              %ibc = tile.iota : tensor<32xi32, #cols>
              %ibe = tile.expand_dims %ibc at 0 : tensor<32xi32, #cols> -> tensor<1x32xi32, #groups>
              %lane = tile.broadcast %ibe : tensor<1x32xi32, #groups> -> !gi32
              %jT = tile.splat %jm1 : !gi32
              %isJ = arith.cmpi eq, %lane, %jT : !gi32
              %maxT = tile.splat %kmax : !gi32
              %offers = arith.select %isJ, %sorted, %maxT : !gi1, !gi32
              %perRowMin = tile.reduce min %offers along 1 : !gi32 -> !ri32
              %o = tile.reduce min %perRowMin along 0 : !ri32 -> i32
              scf.yield %o : i32
            } else {
              // The parts' lists are sorted: if m parts each have j
              // candidates >= T and m * j >= k, T is low enough. With at
              // most 64 parts, j = max(ceil(k / parts), min(4, k)) and T is
              // the m-th largest of the parts' j-th candidates,
              // m = ceil(k / j); otherwise T is the smallest of them.
              %pk = arith.addi %parts, %k : i32
              %pk1 = arith.subi %pk, %c1 : i32
              %jLow = arith.divui %pk1, %parts : i32
              %j4 = arith.minsi %k, %c4 : i32
              %fewParts = arith.cmpi sle, %parts, %c64 : i32
              %jMany = arith.maxsi %jLow, %j4 : i32
              %j = arith.select %fewParts, %jMany, %jLow : i32
              %jm1 = arith.subi %j, %c1 : i32
              %o = scf.if %fewParts -> (i32) {
                %kj = arith.addi %k, %jm1 : i32
                %m = arith.divui %kj, %j : i32
                %mm1 = arith.subi %m, %c1 : i32
                %listsV = tile.make_view %workRow[4096, 64] strides[1, %k]
                    : !tile.view<?x?xi64>
                %pIdx = tile.iota : tensor<64xi32, #tile.slice<dim = 0, parent = #lists>>
                %pIdx2 = tile.expand_dims %pIdx at 0 : tensor<64xi32, #tile.slice<dim = 0, parent = #lists>> -> tensor<1x64xi32, #lists>
                %partsL = tile.splat %parts : tensor<1x64xi32, #lists>
                %isPart = arith.cmpi slt, %pIdx2, %partsL : tensor<1x64xi32, #lists>
                %vj = tile.load %listsV[%jm1, 0] mask %isPart
                    pad -9223372036854775808 : tensor<1x64xi64, #lists>
                %vj1 = tile.reduce max %vj along 0 : tensor<1x64xi64, #lists> -> tensor<64xi64>
                %l32V = tile.splat %l32 : tensor<64xi64>
                %vjh = arith.shrui %vj1, %l32V : tensor<64xi64>
                %vjk = arith.trunci %vjh : tensor<64xi64> to tensor<64xi32>
                %vs = tile.sort %vjk along 0 descending : tensor<64xi32>
                %vi = tile.iota : tensor<64xi32>
                %mT = tile.splat %mm1 : tensor<64xi32>
                %isM = arith.cmpi eq, %vi, %mT : tensor<64xi32>
                %maxV = tile.splat %kmax : tensor<64xi32>
                %vm = arith.select %isM, %vs, %maxV : tensor<64xi1>, tensor<64xi32>
                %om = tile.reduce min %vm along 0 : tensor<64xi32>
                scf.yield %om : i32
              } else {
                %kT = tile.splat %k : !pi32
                %inList = arith.remui %place, %kT : !pi32
                %jT = tile.splat %jm1 : !pi32
                %isJ = arith.cmpi eq, %inList, %jT : !pi32
                %perRowT = tile.splat %perRow : !pi32
                %isCand = arith.cmpi slt, %place, %perRowT : !pi32
                %sel = arith.andi %isJ, %isCand : !pi1
                %maxT = tile.splat %kmax : !pi32
                %offers = arith.select %sel, %ckey, %maxT : !pi1, !pi32
                %o2 = tile.reduce min %offers along 2 : !pi32 -> !gi32
                %o1 = tile.reduce min %o2 along 1 : !gi32 -> !ri32
                %o0 = tile.reduce min %o1 along 0 : !ri32 -> i32
                scf.yield %o0 : i32
              }
              scf.yield %o : i32
            }
            scf.yield %offer : i32
          }
          // Empty slots (key INT32_MIN) never survive.
          %thrReal = arith.maxsi %thr, %kmin1 : i32
          %thrT = tile.splat %thrReal : !pi32
          %fast = arith.cmpi sge, %ckey, %thrT : !pi32
          // 2. Survivors in position order: slot = survivors before it.
          %f32 = arith.extui %fast : !pi1 to !pi32
          %fc2 = tile.reduce add %f32 along 2 : !pi32 -> !gi32
          %frow = tile.reduce add %fc2 along 1 : !gi32 -> !ri32
          %ftaken = tile.reduce add %frow along 0 : !ri32 -> i32
          %frowBefore = tile.scan add %frow along 0 exclusive : !ri32
          %fgroupIncl = tile.scan add %fc2 along 1 : !gi32
          %fgroupExcl = arith.subi %fgroupIncl, %fc2 : !gi32
          %frb = tile.expand_dims %frowBefore at 1 : !ri32 -> tensor<8x1xi32, #groups>
          %frbB = tile.broadcast %frb : tensor<8x1xi32, #groups> -> !gi32
          %fgroupBefore = arith.addi %fgroupExcl, %frbB : !gi32
          %fgb = tile.expand_dims %fgroupBefore at 2 : !gi32 -> tensor<8x32x1xi32, #part>
          %fgbB = tile.broadcast %fgb : tensor<8x32x1xi32, #part> -> !pi32
          %finner = tile.scan add %f32 along 2 exclusive : !pi32
          %fpos = arith.addi %finner, %fgbB : !pi32
          %fits = arith.cmpi sle, %ftaken, %c256 : i32
          %chosen:3 = scf.if %fits -> (!pi1, !pi32, i32) {
            scf.yield %fast, %fpos, %ftaken : !pi1, !pi32, i32
          } else {
            // 3. Radix select of the k-th key: it lies in bucket `prefix` of
            // the decided bits `mask`; `rem` of the bucket's elements are
            // wanted.
            %key = arith.xori %ckey, %signT : !pi32
            %bins = tile.iota : tensor<2048xi32>
            %bins64 = arith.extui %bins : tensor<2048xi32> to tensor<2048xi64>
            %l40H = tile.splat %l40 : tensor<2048xi64>
            %l20H = tile.splat %l20 : tensor<2048xi64>
            %noneH = tile.splat %lm1 : tensor<2048xi64>
            %binField = arith.shli %bins64, %l40H : tensor<2048xi64>
            %sel:4 = scf.for %pass = %c0 to %c3 step %c1
                iter_args(%prefix = %c0, %mask = %c0, %rem = %k, %go = %true)
                -> (i32, i32, i32, i1) : i32 {
              %o:4 = scf.if %go -> (i32, i32, i32, i1) {
                %p0 = arith.cmpi eq, %pass, %c0 : i32
                %p2 = arith.cmpi eq, %pass, %c2 : i32
                %s12 = arith.select %p2, %c0, %c10 : i32
                %shift = arith.select %p0, %c21, %s12 : i32
                %dmask = arith.select %p2, %c1023, %c2047 : i32
                %maskT = tile.splat %mask : !pi32
                %prefixT = tile.splat %prefix : !pi32
                %shiftT = tile.splat %shift : !pi32
                %dmaskT = tile.splat %dmask : !pi32
                %hi = arith.andi %key, %maskT : !pi32
                %match = arith.cmpi eq, %hi, %prefixT : !pi32
                %sh = arith.shrui %key, %shiftT : !pi32
                %digit = arith.andi %sh, %dmaskT : !pi32
                %hist = tile.histogram %digit mask %match
                    : !pi32 -> tensor<2048xi32>
                // The bucket where the count from the top reaches `rem`.
                %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
                %aboveH = arith.subi %fromTop, %hist : tensor<2048xi32>
                %remT = tile.splat %rem : tensor<2048xi32>
                %under = arith.cmpi slt, %aboveH, %remT : tensor<2048xi32>
                %reach = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
                %hit = arith.andi %under, %reach : tensor<2048xi1>
                // One reduction finds the bucket, what remains wanted in it
                // and its size: bin << 40 | rem' << 20 | count.
                %nr = arith.subi %remT, %aboveH : tensor<2048xi32>
                %nr64 = arith.extui %nr : tensor<2048xi32> to tensor<2048xi64>
                %nrField = arith.shli %nr64, %l20H : tensor<2048xi64>
                %cnt64 = arith.extui %hist : tensor<2048xi32> to tensor<2048xi64>
                %f1 = arith.ori %binField, %nrField : tensor<2048xi64>
                %f2 = arith.ori %f1, %cnt64 : tensor<2048xi64>
                %fields = arith.select %hit, %f2, %noneH
                    : tensor<2048xi1>, tensor<2048xi64>
                %best = tile.reduce max %fields along 0
                    : tensor<2048xi64> -> i64
                %bd = arith.shrui %best, %l40 : i64
                %d = arith.trunci %bd : i64 to i32
                %br = arith.shrui %best, %l20 : i64
                %brm = arith.andi %br, %low20 : i64
                %newRem = arith.trunci %brm : i64 to i32
                %bc = arith.andi %best, %low20 : i64
                %count = arith.trunci %bc : i64 to i32
                %dsh = arith.shli %d, %shift : i32
                %np = arith.ori %prefix, %dsh : i32
                %msh = arith.shli %dmask, %shift : i32
                %nm = arith.ori %mask, %msh : i32
                %partial = arith.cmpi ne, %count, %newRem : i32
                scf.yield %np, %nm, %newRem, %partial : i32, i32, i32, i1
              } else {
                scf.yield %prefix, %mask, %rem, %go : i32, i32, i32, i1
              }
              scf.yield %o#0, %o#1, %o#2, %o#3 : i32, i32, i32, i1
            }
            // Elements above the bucket, and the first `need` in it in
            // position order.
            %maskT = tile.splat %sel#1 : !pi32
            %prefixT = tile.splat %sel#0 : !pi32
            %needT = tile.splat %sel#2 : !pi32
            %hi = arith.andi %key, %maskT : !pi32
            %gt = arith.cmpi ugt, %hi, %prefixT : !pi32
            %eq = arith.cmpi eq, %hi, %prefixT : !pi32
            %e32 = arith.extui %eq : !pi1 to !pi32
            %ec2 = tile.reduce add %e32 along 2 : !pi32 -> !gi32
            %erow = tile.reduce add %ec2 along 1 : !gi32 -> !ri32
            %erowBefore = tile.scan add %erow along 0 exclusive : !ri32
            %egroupIncl = tile.scan add %ec2 along 1 : !gi32
            %egroupExcl = arith.subi %egroupIncl, %ec2 : !gi32
            %erb = tile.expand_dims %erowBefore at 1 : !ri32 -> tensor<8x1xi32, #groups>
            %erbB = tile.broadcast %erb : tensor<8x1xi32, #groups> -> !gi32
            %egroupBefore = arith.addi %egroupExcl, %erbB : !gi32
            %egb = tile.expand_dims %egroupBefore at 2 : !gi32 -> tensor<8x32x1xi32, #part>
            %egbB = tile.broadcast %egb : tensor<8x32x1xi32, #part> -> !pi32
            %einner = tile.scan add %e32 along 2 exclusive : !pi32
            %erank = arith.addi %einner, %egbB : !pi32
            %wanted = arith.cmpi slt, %erank, %needT : !pi32
            %takeEq = arith.andi %eq, %wanted : !pi1
            %exact = arith.ori %gt, %takeEq : !pi1
            %x32 = arith.extui %exact : !pi1 to !pi32
            %xc2 = tile.reduce add %x32 along 2 : !pi32 -> !gi32
            %xrow = tile.reduce add %xc2 along 1 : !gi32 -> !ri32
            %xtaken = tile.reduce add %xrow along 0 : !ri32 -> i32
            %xrowBefore = tile.scan add %xrow along 0 exclusive : !ri32
            %xgroupIncl = tile.scan add %xc2 along 1 : !gi32
            %xgroupExcl = arith.subi %xgroupIncl, %xc2 : !gi32
            %xrb = tile.expand_dims %xrowBefore at 1 : !ri32 -> tensor<8x1xi32, #groups>
            %xrbB = tile.broadcast %xrb : tensor<8x1xi32, #groups> -> !gi32
            %xgroupBefore = arith.addi %xgroupExcl, %xrbB : !gi32
            %xgb = tile.expand_dims %xgroupBefore at 2 : !gi32 -> tensor<8x32x1xi32, #part>
            %xgbB = tile.broadcast %xgb : tensor<8x32x1xi32, #part> -> !pi32
            %xinner = tile.scan add %x32 along 2 exclusive : !pi32
            %xpos = arith.addi %xinner, %xgbB : !pi32
            scf.yield %exact, %xpos, %xtaken : !pi1, !pi32, i32
          }
          // Survivors in slots of 128 when 65 to 128 survive; 64 and 256
          // slots below.
          %fit128 = arith.cmpi sle, %chosen#2, %c128 : i32
          %over64s = arith.cmpi sgt, %chosen#2, %c64 : i32
          %small = arith.andi %fit128, %over64s : i1
          %empty128 = tile.splat %lmin : !row128
          %srs = scf.if %small -> (!row128) {
            %sr = tile.scatter %cur into %empty128[%chosen#1] mask %chosen#0
                : !pi64, !pi32 -> !row128
            scf.yield %sr : !row128
          } else {
            scf.yield %empty128 : !row128
          }
          scf.yield %srs, %small, %chosen#0, %chosen#1, %chosen#2
              : !row128, i1, !pi1, !pi32, i32
        }
        // Rank = survivors above; ranks below k are the result's slots.
        %tiny = arith.cmpi sle, %prep#4, %c64 : i32
        %ranked = scf.if %tiny -> (tensor<64xi64>) {
          // At most 64 survivors: a 64 x 64 rank matrix.
          %empty64 = tile.splat %lmin : !row64
          %s64 = scf.if %direct -> (!row64) {
            %slots64 = tile.iota : !rank64
            %perRow64 = tile.splat %perRow : !rank64
            %in64 = arith.cmpi slt, %slots64, %perRow64 : !rank64
            %d64 = scf.if %clustered -> (!row64) {
              %fromShared = tile.load_shared %handoff[%c0] mask %in64
                  pad -9223372036854775808 : i64
                  : !tile.smem<128xi64> -> !row64
              scf.yield %fromShared : !row64
            } else {
              %wv2 = tile.make_view %workRow[4096] strides[1]
                  : !tile.view<?xi64>
              %fromWork = tile.load %wv2[0] mask %in64
                  pad -9223372036854775808 : !row64
              scf.yield %fromWork : !row64
            }
            scf.yield %d64 : !row64
          } else {
            %sc64 = tile.scatter %cur into %empty64[%prep#3] mask %prep#2
                : !pi64, !pi32 -> !row64
            scf.yield %sc64 : !row64
          }
          %sc = tile.convert_layout %s64 : !row64
              -> tensor<64xi64, #tile.slice<dim = 0, parent = #rank64>>
          %er = tile.expand_dims %s64 at 1 : !row64 -> tensor<64x1xi64, #rank64>
          %ecc = tile.expand_dims %sc at 0
              : tensor<64xi64, #tile.slice<dim = 0, parent = #rank64>>
              -> tensor<1x64xi64, #rank64>
          %mine = tile.broadcast %er : tensor<64x1xi64, #rank64>
              -> tensor<64x64xi64, #rank64>
          %others = tile.broadcast %ecc : tensor<1x64xi64, #rank64>
              -> tensor<64x64xi64, #rank64>
          %gtm = arith.cmpi sgt, %others, %mine : tensor<64x64xi64, #rank64>
          %g32 = arith.extui %gtm : tensor<64x64xi1, #rank64> to tensor<64x64xi32, #rank64>
          %rank = tile.reduce add %g32 along 1
              : tensor<64x64xi32, #rank64> -> !rank64
          %kR = tile.splat %k : !rank64
          %inTop = arith.cmpi slt, %rank, %kR : !rank64
          %top = tile.scatter %s64 into %emptySlots[%rank] mask %inTop
              : !row64, !rank64 -> tensor<64xi64>
          scf.yield %top : tensor<64xi64>
        } else {
        %rankedM = scf.if %mergeLists -> (tensor<64xi64>) {
          // Row 0 holds the lists (row 1 lies outside the view: empty).
          %wvM = tile.make_view %workRow[1, 4096] strides[128, 1]
              : !tile.view<?x?xi64>
          %colsM1 = tile.iota : tensor<128xi32, #tile.slice<dim = 0, parent = #pairs>>
          %colsM2 = tile.expand_dims %colsM1 at 0
              : tensor<128xi32, #tile.slice<dim = 0, parent = #pairs>>
              -> tensor<1x128xi32, #pairs>
          %colsM = tile.broadcast %colsM2 : tensor<1x128xi32, #pairs> -> !lists32
          %rowsM1 = tile.iota : tensor<2xi32, #tile.slice<dim = 1, parent = #pairs>>
          %rowsM2 = tile.expand_dims %rowsM1 at 1
              : tensor<2xi32, #tile.slice<dim = 1, parent = #pairs>>
              -> tensor<2x1xi32, #pairs>
          %rowsM = tile.broadcast %rowsM2 : tensor<2x1xi32, #pairs> -> !lists32
          %perRowM = tile.splat %perRow : !lists32
          %inRowM = arith.cmpi slt, %colsM, %perRowM : !lists32
          %lists = tile.load %wvM[0, 0] mask %inRowM
              pad -9223372036854775808 : !lists64
          %merged = tile.sort %lists along 1 descending runs 32 : !lists64
          %zeroM = tile.splat %c0 : !lists32
          %firstRow = arith.cmpi eq, %rowsM, %zeroM : !lists32
          %kM = tile.splat %k : !lists32
          %inK = arith.cmpi slt, %colsM, %kM : !lists32
          %takeM = arith.andi %firstRow, %inK : !lists1
          %topM = tile.scatter %merged into %emptySlots[%colsM] mask %takeM
              : !lists64, !lists32 -> tensor<64xi64>
          scf.yield %topM : tensor<64xi64>
        } else {
        %ranked128 = scf.if %prep#1 -> (tensor<64xi64>) {
          %sc = tile.convert_layout %prep#0 : !row128
              -> tensor<128xi64, #tile.slice<dim = 0, parent = #rank128>>
          %er = tile.expand_dims %prep#0 at 1
              : !row128
              -> tensor<128x1xi64, #rank128>
          %ecc = tile.expand_dims %sc at 0
              : tensor<128xi64, #tile.slice<dim = 0, parent = #rank128>>
              -> tensor<1x128xi64, #rank128>
          %mine = tile.broadcast %er : tensor<128x1xi64, #rank128>
              -> tensor<128x128xi64, #rank128>
          %others = tile.broadcast %ecc : tensor<1x128xi64, #rank128>
              -> tensor<128x128xi64, #rank128>
          %gtm = arith.cmpi sgt, %others, %mine : tensor<128x128xi64, #rank128>
          %g32 = arith.extui %gtm : tensor<128x128xi1, #rank128> to tensor<128x128xi32, #rank128>
          %rank = tile.reduce add %g32 along 1
              : tensor<128x128xi32, #rank128> -> !rank128
          %kR = tile.splat %k : !rank128
          %inTop = arith.cmpi slt, %rank, %kR : !rank128
          %top = tile.scatter %prep#0 into %emptySlots[%rank] mask %inTop
              : !row128, !rank128
              -> tensor<64xi64>
          scf.yield %top : tensor<64xi64>
        } else {
          // 129 to 256 survivors: a bitonic sort (one per thread) is far
          // cheaper than a 256 x 256 rank matrix.
          %empty = tile.splat %lmin : !flat256
          %sr = tile.scatter %cur into %empty[%prep#3] mask %prep#2
              : !pi64, !pi32 -> !flat256
          %ss = tile.sort %sr along 0 descending : !flat256
          %pos = tile.iota : !flatPos
          %kF = tile.splat %k : !flatPos
          %inTop = arith.cmpi slt, %pos, %kF : !flatPos
          %top = tile.scatter %ss into %emptySlots[%pos] mask %inTop
              : !flat256, !flatPos -> tensor<64xi64>
          scf.yield %top : tensor<64xi64>
        }
        scf.yield %ranked128 : tensor<64xi64>
        }
        scf.yield %rankedM : tensor<64xi64>
        }
        scf.yield %ranked : tensor<64xi64>
      }

      %lastStage = arith.cmpi eq, %stage, %c1 : i32
      %final = arith.ori %single, %lastStage : i1
      %r:4 = scf.if %final -> (!pi64, i1, tensor<64xi64>, i1) {
        scf.yield %cur, %false, %cand, %true : !pi64, i1, tensor<64xi64>, i1
      } else {
        %h:4 = scf.if %clustered -> (!pi64, i1, tensor<64xi64>, i1) {
          // Into part 0's buffer; after the barrier part 0 goes on.
          %slotAt = arith.muli %part, %k : i32
          tile.store_shared %cand, %handoff[%slotAt] rank %c0 mask %keep
              : tensor<64xi64>, !tile.smem<128xi64>
          tile.cluster_barrier
          %lead = arith.cmpi eq, %part, %c0 : i32
          scf.yield %cur, %lead, %res, %got : !pi64, i1, tensor<64xi64>, i1
        } else {
          // Hand the sorted candidates over; the last part of the row goes
          // on. Rows are 4096 slots apart, so no cache sector holds two rows'
          // slots (one row's last part must not cache another's before it is
          // written).
          %wv = tile.make_view %workRow[4096] strides[1] : !tile.view<?xi64>
          %wOff = arith.muli %part, %k : i32
          tile.store %cand, %wv[%wOff] mask %keep
              : tensor<64xi64>
          tile.fence
          %tv = tile.make_view %tickets[%batch] strides[1] : !tile.view<?xi32>
          %at = tile.splat %row : tensor<1xi32>
          %one = tile.splat %c1 : tensor<1xi32>
          %old = tile.atomic add %tv[%at], %one
              : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
          %ticket = tile.reduce max %old along 0 : tensor<1xi32>
          %lastPart = arith.subi %parts, %c1 : i32
          %isLast = arith.cmpi eq, %ticket, %lastPart : i32
          %tk:4 = scf.if %isLast -> (!pi64, i1, tensor<64xi64>, i1) {
            tile.fence
            %zero1 = tile.splat %c0 : tensor<1xi32>
            tile.store %zero1, %tv[%row] : tensor<1xi32>
            // Slots past the row's candidates (never written in this call)
            // read as empty. The direct path loads its own.
            %fast:2 = scf.if %fastOK -> (tensor<64xi64>, i1) {
            // The parts' first 8 candidates are sorted runs of 8; merged, the
            // k largest are the row's top k unless some part's 8th is among
            // them (that part may hold more; then the general path runs).
            %wvS = tile.make_view %workRow[%parts, 4096] strides[%k, 1]
                : !tile.view<?x?xi64>
            %firsts = tile.load %wvS[0, 0]
                pad -9223372036854775808 : !sample64
            %sp1 = tile.iota : tensor<32xi32, #tile.slice<dim = 1, parent = #sample>>
            %sp2 = tile.expand_dims %sp1 at 1
                : tensor<32xi32, #tile.slice<dim = 1, parent = #sample>>
                -> tensor<32x1xi32, #sample>
            %sp = tile.broadcast %sp2 : tensor<32x1xi32, #sample> -> !sample32
            %si1 = tile.iota : tensor<8xi32, #tile.slice<dim = 0, parent = #sample>>
            %si2 = tile.expand_dims %si1 at 0
                : tensor<8xi32, #tile.slice<dim = 0, parent = #sample>>
                -> tensor<1x8xi32, #sample>
            %si = tile.broadcast %si2 : tensor<1x8xi32, #sample> -> !sample32
            %c8S = tile.splat %c8 : !sample32
            %sp8 = arith.muli %sp, %c8S : !sample32
            %slotS = arith.addi %sp8, %si : !sample32
            %empty256S = tile.splat %lmin : !flat256
            // Each part's 8th carries bit 31 of its column word (columns are
            // below 2^31); it only reorders equal keys, and a top k holding
            // it is never stored (the general path runs instead).
            %c7S = tile.splat %c7 : !sample32
            %is8thS = arith.cmpi eq, %si, %c7S : !sample32
            %flagBit = tile.splat %l2p31 : !sample64
            %noBit = tile.splat %l0 : !sample64
            %mark = arith.select %is8thS, %flagBit, %noBit
                : tensor<32x8xi1, #sample>, !sample64
            %marked = arith.ori %firsts, %mark : !sample64
            %flatS = tile.scatter %marked into %empty256S[%slotS]
                : !sample64, !sample32 -> !flat256
            %sortedS = tile.sort %flatS along 0 descending runs 8 : !flat256
            %posS = tile.iota : !flatPos
            %kS = tile.splat %k : !flatPos
            %inTopS = arith.cmpi slt, %posS, %kS : !flatPos
            %flagF = tile.splat %l2p31 : !flat256
            %flagged = arith.andi %sortedS, %flagF : !flat256
            %zeroF = tile.splat %l0 : !flat256
            %badS = arith.select %inTopS, %flagged, %zeroF
                : tensor<256xi1, #flat>, !flat256
            %anyBad = tile.reduce max %badS along 0 : !flat256 -> i64
            %failed = arith.cmpi ne, %anyBad, %l0 : i64
            %topS = tile.scatter %sortedS into %emptySlots[%posS] mask %inTopS
                : !flat256, !flatPos -> tensor<64xi64>
            scf.yield %topS, %failed : tensor<64xi64>, i1
            } else {
              scf.yield %emptySlots, %true : tensor<64xi64>, i1
            }
            // Stage 1 runs unless the fast path found the top k.
            %gotFast = arith.xori %fast#1, %true : i1
            %many = arith.cmpi sgt, %perRow, %c128 : i32
            %manyLoad = arith.andi %many, %fast#1 : i1
            %need = arith.ori %manyLoad, %isK1 : i1
            %all = scf.if %need -> (!pi64) {
              %perRowT = tile.splat %perRow : !pi32
              %inRow = arith.cmpi slt, %place, %perRowT : !pi32
              %wv3 = tile.make_view %workRow[8, 32, 4096] strides[512, 16, 1]
                  : !tile.view<?x?x?xi64>
              %loaded = tile.load %wv3[0, 0, 0] mask %inRow
                  pad -9223372036854775808 : !pi64
              scf.yield %loaded : !pi64
            } else {
              scf.yield %cur : !pi64
            }
            scf.yield %all, %fast#1, %fast#0, %gotFast
                : !pi64, i1, tensor<64xi64>, i1
          } else {
            scf.yield %cur, %false, %res, %got : !pi64, i1, tensor<64xi64>, i1
          }
          scf.yield %tk#0, %tk#1, %tk#2, %tk#3 : !pi64, i1, tensor<64xi64>, i1
        }
        scf.yield %h#0, %h#1, %h#2, %h#3 : !pi64, i1, tensor<64xi64>, i1
      }
      scf.yield %r#0, %r#1, %r#2, %r#3 : !pi64, i1, tensor<64xi64>, i1
    } else {
      scf.yield %cur, %false, %res, %got : !pi64, i1, tensor<64xi64>, i1
    }
    scf.yield %next#0, %next#1, %next#2, %next#3
        : !pi64, i1, tensor<64xi64>, i1
  } {tile.no_hoist}
  // The program that finished the row stores its top k.
  scf.if %done#3 {
    // Key back to float bits (the mapping is its own inverse).
    %l32S = tile.splat %l32 : tensor<64xi64>
    %c31S = tile.splat %c31 : tensor<64xi32>
    %c1S = tile.splat %c1 : tensor<64xi32>
    %sh = arith.shrui %done#2, %l32S : tensor<64xi64>
    %sk = arith.trunci %sh : tensor<64xi64> to tensor<64xi32>
    %ksign = arith.shrsi %sk, %c31S : tensor<64xi32>
    %kmag = arith.shrui %ksign, %c1S : tensor<64xi32>
    %vbits = arith.xori %sk, %kmag : tensor<64xi32>
    %v = arith.bitcast %vbits : tensor<64xi32> to tensor<64xf32>
    %ci = arith.trunci %done#2 : tensor<64xi64> to tensor<64xi32>
    %i64 = arith.extui %ci : tensor<64xi32> to tensor<64xi64>
    %outAt = arith.muli %row64, %k64 : i64
    %valuesRow = tile.addptr %values, %outAt : !tile.ptr<f32>, i64
    %indicesRow = tile.addptr %indices, %outAt : !tile.ptr<i64>, i64
    %outV = tile.make_view %valuesRow[%k] strides[1] : !tile.view<?xf32>
    %outI = tile.make_view %indicesRow[%k] strides[1] : !tile.view<?xi64>
    tile.store %v, %outV[0] mask %keep
        : tensor<64xf32>
    tile.store %i64, %outI[0] mask %keep
        : tensor<64xi64>
  }
  return
}

// k = 1 on rows of at most 4096 columns: one program per row, one max
// reduction of (key << 32 | column) over the row. A small kernel on its
// own, so it does not pay for the split kernel's code and registers.

func.func @top1_f32(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                    %indices: !tile.ptr<i64>, %batch: i32, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %kmin = arith.constant -2147483648 : i32
  %kmax = arith.constant 2147483647 : i32
  %l32 = arith.constant 32 : i64
  %lowMask = arith.constant 4294967295 : i64
  %row = tile.program_id x
  // The view starts at the row: batch * n may pass 2^31.
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %src = tile.make_view %xRow[%n] strides[1] : !tile.view<?xf32>
  %cols = tile.iota : tensor<4096xi32>
  %nT = tile.splat %n : tensor<4096xi32>
  %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
  %t = tile.load %src[0] mask %valid : tensor<4096xf32>
  // The signed-order key of the split kernel; NaN largest.
  %c31T = tile.splat %c31 : tensor<4096xi32>
  %c1T = tile.splat %c1 : tensor<4096xi32>
  %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
  %sign = arith.shrsi %bits, %c31T : tensor<4096xi32>
  %magnitude = arith.shrui %sign, %c1T : tensor<4096xi32>
  %ordered = arith.xori %bits, %magnitude : tensor<4096xi32>
  %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
  %maxKeyT = tile.splat %kmax : tensor<4096xi32>
  %minKeyT = tile.splat %kmin : tensor<4096xi32>
  %keyN = arith.select %nan, %maxKeyT, %ordered
      : tensor<4096xi1>, tensor<4096xi32>
  %key = arith.select %valid, %keyN, %minKeyT
      : tensor<4096xi1>, tensor<4096xi32>
  %key64 = arith.extsi %key : tensor<4096xi32> to tensor<4096xi64>
  %l32T = tile.splat %l32 : tensor<4096xi64>
  %high = arith.shli %key64, %l32T : tensor<4096xi64>
  %col64 = arith.extui %cols : tensor<4096xi32> to tensor<4096xi64>
  %packed = arith.ori %high, %col64 : tensor<4096xi64>
  %best = tile.reduce max %packed along 0 : tensor<4096xi64>
  // Back to the float and its column.
  %bk = arith.shrui %best, %l32 : i64
  %sk = arith.trunci %bk : i64 to i32
  %ks = arith.shrsi %sk, %c31 : i32
  %km = arith.shrui %ks, %c1 : i32
  %vbits = arith.xori %sk, %km : i32
  %v = arith.bitcast %vbits : i32 to f32
  %col = arith.andi %best, %lowMask : i64
  %vT = tile.splat %v : tensor<1xf32>
  %iT = tile.splat %col : tensor<1xi64>
  %outV = tile.make_view %values[%batch] strides[1] : !tile.view<?xf32>
  %outI = tile.make_view %indices[%batch] strides[1] : !tile.view<?xi64>
  tile.store %vT, %outV[%row] : tensor<1xf32>
  tile.store %iT, %outI[%row] : tensor<1xi64>
  return
}

// Large k (beyond the 2048 slots of topk_f32), in three kernels over a
// scratch `work` of (batch, k) i64 elements (signed-order key << 32 |
// column, as in topk_split_f32: unique, one value carrying key and index):
// 1. topk_select_f32, one program per row: the radix select of topk_f32
//    finds the k-th key and how many equal to it are needed; the survivors
//    (elements above it, then the first `need` equal to it) are compacted
//    by a prefix count and written to the row of `work` at their slots
//    (tile.scatter_store), in column order.
// 2. topk_sort_chunks, one program per (row, chunk of 2048 slots): a
//    bitonic sort of the chunk, descending, in place.
// 3. topk_merge_f32, one program per (row, chunk of 2048 slots), once per
//    doubling of the sorted runs: each element's place in the merged run is
//    its place in its own run plus the number of elements of the partner
//    run above it (a binary search by gathers: elements are unique, so no
//    two compare equal); it is stored there (tile.scatter_store), into
//    `dst`, or, when the merged run is the whole row, as a value and an
//    index into the outputs.
// The runtime launches 1, 2, then 3 with runs of 2048, 4096, ... until one
// run covers k, alternating between two scratch rows.

func.func @topk_select_f32(%x: !tile.ptr<f32>,
                           %work: !tile.ptr<i64> {tile.noalias},
                           %batch: i32, %n: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c10 = arith.constant 10 : i32
  %c11 = arith.constant 11 : i32
  %c16 = arith.constant 16 : i32
  %c21 = arith.constant 21 : i32
  %c1023 = arith.constant 1023 : i32
  %c2047 = arith.constant 2047 : i32
  %cm1 = arith.constant -1 : i32
  %low16 = arith.constant 65535 : i32
  %kmin = arith.constant -2147483648 : i32
  %l32 = arith.constant 32 : i64
  %chunk = arith.constant 4096 : i32
  %slice = arith.constant 2048 : i32
  %row = tile.program_id x
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %k64 = arith.extui %k : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %src = tile.make_view %xRow[%n] strides[1] : !tile.view<?xf32>
  %lane = tile.iota : tensor<4096xi32>
  %nT = tile.splat %n : tensor<4096xi32>
  %zeroT = tile.splat %c0 : tensor<4096xi32>
  %onesT = tile.splat %cm1 : tensor<4096xi32>
  %signT = tile.splat %kmin : tensor<4096xi32>
  %bins = tile.iota : tensor<2048xi32>
  %zeroH = tile.splat %c0 : tensor<2048xi32>
  %noneH = tile.splat %cm1 : tensor<2048xi32>

  // The radix select of topk_f32.
  %sel:2 = scf.for %pass = %c0 to %c3 step %c1
      iter_args(%prefix = %c0, %rem = %k) -> (i32, i32) : i32 {
    %first = arith.cmpi eq, %pass, %c0 : i32
    %last = arith.cmpi eq, %pass, %c2 : i32
    %laterShift = arith.select %last, %c0, %c10 : i32
    %shift = arith.select %first, %c21, %laterShift : i32
    %digitMask = arith.select %last, %c1023, %c2047 : i32
    %width = arith.select %last, %c10, %c11 : i32
    %decided = arith.addi %shift, %width : i32
    %safeShift = arith.select %first, %c0, %decided : i32
    %hiBits = arith.shli %cm1, %safeShift : i32
    %hiMask = arith.select %first, %c0, %hiBits : i32
    %hiMaskT = tile.splat %hiMask : tensor<4096xi32>
    %prefixT = tile.splat %prefix : tensor<4096xi32>
    %shiftT = tile.splat %shift : tensor<4096xi32>
    %c255T = tile.splat %digitMask : tensor<4096xi32>
    %hist = scf.for %j = %c0 to %n step %chunk
        iter_args(%h = %zeroH) -> (tensor<2048xi32>) : i32 {
      %jT = tile.splat %j : tensor<4096xi32>
      %cols = arith.addi %lane, %jT : tensor<4096xi32>
      %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
      %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
      %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
      %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
      %flip = arith.select %neg, %onesT, %signT
          : tensor<4096xi1>, tensor<4096xi32>
      %ordered = arith.xori %bits, %flip : tensor<4096xi32>
      %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
      %key = arith.select %nan, %onesT, %ordered
          : tensor<4096xi1>, tensor<4096xi32>
      %hi = arith.andi %key, %hiMaskT : tensor<4096xi32>
      %match = arith.cmpi eq, %hi, %prefixT : tensor<4096xi32>
      %counted = arith.andi %valid, %match : tensor<4096xi1>
      %sh = arith.shrui %key, %shiftT : tensor<4096xi32>
      %digit = arith.andi %sh, %c255T : tensor<4096xi32>
      %hc = tile.histogram %digit mask %counted
          : tensor<4096xi32> -> tensor<2048xi32>
      %hn = arith.addi %h, %hc : tensor<2048xi32>
      scf.yield %hn : tensor<2048xi32>
    } {tile.load_ahead = 1 : i32}
    %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
    %remT = tile.splat %rem : tensor<2048xi32>
    %enough = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
    %cand = arith.select %enough, %bins, %noneH
        : tensor<2048xi1>, tensor<2048xi32>
    %d = tile.reduce max %cand along 0 : tensor<2048xi32>
    %dT = tile.splat %d : tensor<2048xi32>
    %above = arith.cmpi sgt, %bins, %dT : tensor<2048xi32>
    %aboveH = arith.select %above, %hist, %zeroH
        : tensor<2048xi1>, tensor<2048xi32>
    %skipped = tile.reduce add %aboveH along 0 : tensor<2048xi32>
    %dsh = arith.shli %d, %shift : i32
    %np = arith.ori %prefix, %dsh : i32
    %nr = arith.subi %rem, %skipped : i32
    scf.yield %np, %nr : i32, i32
  }

  // Compaction into the row of `work`, 2048 columns at a time.
  %lane2 = tile.iota : tensor<2048xi32>
  %nS = tile.splat %n : tensor<2048xi32>
  %zeroS = tile.splat %c0 : tensor<2048xi32>
  %onesS = tile.splat %cm1 : tensor<2048xi32>
  %signS = tile.splat %kmin : tensor<2048xi32>
  %thrS = tile.splat %sel#0 : tensor<2048xi32>
  %needS = tile.splat %sel#1 : tensor<2048xi32>
  %aboveK = arith.subi %k, %sel#1 : i32
  %aboveS = tile.splat %aboveK : tensor<2048xi32>
  %low16S = tile.splat %low16 : tensor<2048xi32>
  %c16S = tile.splat %c16 : tensor<2048xi32>
  %l32S = tile.splat %l32 : tensor<2048xi64>
  %wAt = arith.muli %row64, %k64 : i64
  %wRow = tile.addptr %work, %wAt : !tile.ptr<i64>, i64
  %wv = tile.make_view %wRow[%k] strides[1] : !tile.view<?xi64>
  %got:2 = scf.for %j = %c0 to %n step %slice
      iter_args(%gOff = %c0, %eOff = %c0) -> (i32, i32) : i32 {
    %jT = tile.splat %j : tensor<2048xi32>
    %cols = arith.addi %lane2, %jT : tensor<2048xi32>
    %valid = arith.cmpi slt, %cols, %nS : tensor<2048xi32>
    %t = tile.load %src[%j] mask %valid : tensor<2048xf32>
    %bits = arith.bitcast %t : tensor<2048xf32> to tensor<2048xi32>
    %neg = arith.cmpi slt, %bits, %zeroS : tensor<2048xi32>
    %flip = arith.select %neg, %onesS, %signS
        : tensor<2048xi1>, tensor<2048xi32>
    %ordered = arith.xori %bits, %flip : tensor<2048xi32>
    %nan = arith.cmpf uno, %t, %t : tensor<2048xf32>
    %key = arith.select %nan, %onesS, %ordered
        : tensor<2048xi1>, tensor<2048xi32>
    %isAbove = arith.cmpi ugt, %key, %thrS : tensor<2048xi32>
    %gt = arith.andi %valid, %isAbove : tensor<2048xi1>
    %isEq = arith.cmpi eq, %key, %thrS : tensor<2048xi32>
    %eq = arith.andi %valid, %isEq : tensor<2048xi1>
    %g32 = arith.extui %gt : tensor<2048xi1> to tensor<2048xi32>
    %e32 = arith.extui %eq : tensor<2048xi1> to tensor<2048xi32>
    %eHigh = arith.shli %e32, %c16S : tensor<2048xi32>
    %both = arith.ori %g32, %eHigh : tensor<2048xi32>
    %before = tile.scan add %both along 0 exclusive : tensor<2048xi32>
    %gOffT = tile.splat %gOff : tensor<2048xi32>
    %eOffT = tile.splat %eOff : tensor<2048xi32>
    %lowBefore = arith.andi %before, %low16S : tensor<2048xi32>
    %gpos = arith.addi %lowBefore, %gOffT : tensor<2048xi32>
    %highBefore = arith.shrui %before, %c16S : tensor<2048xi32>
    %erank = arith.addi %highBefore, %eOffT : tensor<2048xi32>
    %wanted = arith.cmpi slt, %erank, %needS : tensor<2048xi32>
    %takeEq = arith.andi %eq, %wanted : tensor<2048xi1>
    %epos = arith.addi %erank, %aboveS : tensor<2048xi32>
    %pos = arith.select %gt, %gpos, %epos : tensor<2048xi1>, tensor<2048xi32>
    %take = arith.ori %gt, %takeEq : tensor<2048xi1>
    // Signed order of the flipped keys is the float order.
    %skey = arith.xori %key, %signS : tensor<2048xi32>
    %skey64 = arith.extsi %skey : tensor<2048xi32> to tensor<2048xi64>
    %keyHigh = arith.shli %skey64, %l32S : tensor<2048xi64>
    %col64 = arith.extui %cols : tensor<2048xi32> to tensor<2048xi64>
    %packed = arith.ori %keyHigh, %col64 : tensor<2048xi64>
    tile.scatter_store %packed, %wv[%pos] mask %take
        : !tile.view<?xi64>[tensor<2048xi32>], tensor<2048xi64>
    %chunkCounts = tile.reduce add %both along 0 : tensor<2048xi32>
    %chunkGt = arith.andi %chunkCounts, %low16 : i32
    %chunkEq = arith.shrui %chunkCounts, %c16 : i32
    %ng = arith.addi %gOff, %chunkGt : i32
    %ne = arith.addi %eOff, %chunkEq : i32
    scf.yield %ng, %ne : i32, i32
  } {tile.load_ahead = 1 : i32}
  return
}

// Sorts each chunk of S slots of every row of `work` (batch, k),
// descending; slots past k read as the smallest element and stay unwritten.
// When one chunk holds the row (k <= S), the sorted row goes straight to
// `values` and `indices`, as topk_merge_f32 would write it, and no merge
// follows. The sort runs on the registers (8 keys per
// thread, tile.sort's exchange network); capped at 96 registers it takes
// 80 on sm_80 to sm_100a, three programs per SM (uncapped, ptxas for
// sm_80 spilled 8 bytes). Rows of at most 1024 slots take the 1024-slot
// instance: half the network's levels and keys of the 2048 one, whose
// upper half would be all padding.
!sort_slots = tensor<2048xi64, #tile.sym<[S]>>
!sort_keys = tensor<2048xi32, #tile.sym<[S]>>
!sort_values = tensor<2048xf32, #tile.sym<[S]>>
func.func @topk_sort_chunks(%work: !tile.ptr<i64>, %values: !tile.ptr<f32>,
                            %indices: !tile.ptr<i64>, %batch: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.max_registers = 96 : i32, tile.dependent_launch = true,
                tile.params = {S = 2048},
                tile.instances = {
                  topk_sort_chunks = {},
                  topk_sort_chunks_1024 = {S = 1024, "tile.num_warps" = 4}}} {
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %l32 = arith.constant 32 : i64
  %slice = tile.param "S" : i32
  %part = tile.program_id x
  %row = tile.program_id y
  %row64 = arith.extui %row : i32 to i64
  %k64 = arith.extui %k : i32 to i64
  %at = arith.muli %row64, %k64 : i64
  %wRow = tile.addptr %work, %at : !tile.ptr<i64>, i64
  %wv = tile.make_view %wRow[%k] strides[1] : !tile.view<?xi64>
  %base = arith.muli %part, %slice : i32
  %t = tile.load %wv[%base] pad -9223372036854775808 : !sort_slots
  %s = tile.sort %t along 0 descending : !sort_slots
  %oneChunk = arith.cmpi sle, %k, %slice : i32
  scf.if %oneChunk {
    // Key back to float bits (the mapping is its own inverse); the column
    // is the low word.
    %l32T = tile.splat %l32 : !sort_slots
    %c31T = tile.splat %c31 : !sort_keys
    %c1T = tile.splat %c1 : !sort_keys
    %sh = arith.shrui %s, %l32T : !sort_slots
    %sk = arith.trunci %sh : !sort_slots to !sort_keys
    %ksign = arith.shrsi %sk, %c31T : !sort_keys
    %kmag = arith.shrui %ksign, %c1T : !sort_keys
    %vbits = arith.xori %sk, %kmag : !sort_keys
    %vals = arith.bitcast %vbits : !sort_keys to !sort_values
    %ci = arith.trunci %s : !sort_slots to !sort_keys
    %ci64 = arith.extui %ci : !sort_keys to !sort_slots
    %valuesRow = tile.addptr %values, %at : !tile.ptr<f32>, i64
    %indicesRow = tile.addptr %indices, %at : !tile.ptr<i64>, i64
    %outV = tile.make_view %valuesRow[%k] strides[1] : !tile.view<?xf32>
    %outI = tile.make_view %indicesRow[%k] strides[1] : !tile.view<?xi64>
    tile.store %vals, %outV[%base] : !sort_values
    tile.store %ci64, %outI[%base] : !sort_slots
  } else {
    tile.store %s, %wv[%base] : !sort_slots
  }
  return
}

// One merge of sorted runs of `run` slots (a power of two, a multiple of
// 2048) of every row of `src` (batch, k) into runs of 2 * run in `dst`;
// when one merged run covers the row, into `values` and `indices` instead.
//
// Merge path: program p writes the 2048 slots of the row's output from
// p * 2048, which lie in the merge of one pair of runs A, B from offset o.
// The first o slots of that merge take `i` elements of A: a 2048-ary
// search over `steps` rounds (2048^steps >= run) counts the A elements
// among them (A[t - 1] is among the first o exactly when it is above
// B[o - t]). The next 2048 slots are the 2048 largest of A[i ..] and
// B[o - i ..]: both descending, so one tile of 4096 holding the two
// stretches is two sorted runs, and tile.sort `runs 2048` merges them in
// 12 levels. Every load is a contiguous stretch or a strided probe, not a
// binary search per element. 80 registers (77 used, no spills) fit three
// programs per SM against two at 105 (H200, 16384 x 32000, k = 16384:
// 27262 -> 25665 us).
func.func @topk_merge_f32(%src: !tile.ptr<i64>, %dst: !tile.ptr<i64>,
                          %values: !tile.ptr<f32>, %indices: !tile.ptr<i64>,
                          %batch: i32, %k: i32, %run: i32, %steps: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.max_registers = 80 : i32,
                tile.dependent_launch = true} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c11 = arith.constant 11 : i32
  %c31 = arith.constant 31 : i32
  %c2047 = arith.constant 2047 : i32
  %slice = arith.constant 2048 : i32
  %l32 = arith.constant 32 : i64
  %none = arith.constant -9223372036854775808 : i64
  %part = tile.program_id x
  %row = tile.program_id y
  %row64 = arith.extui %row : i32 to i64
  %k64 = arith.extui %k : i32 to i64
  %at = arith.muli %row64, %k64 : i64
  %srcRow = tile.addptr %src, %at : !tile.ptr<i64>, i64
  %sv = tile.make_view %srcRow[%k] strides[1] : !tile.view<?xi64>
  %base = arith.muli %part, %slice : i32
  // The pair of runs holding slot `base`: A from aStart, B after it (the
  // last pair may be short, or have no B). Unsigned: 2 * run may reach
  // 2^31.
  %run2 = arith.addi %run, %run : i32
  %pairIdx = arith.divui %base, %run2 : i32
  %aStart = arith.muli %pairIdx, %run2 : i32
  %o = arith.subi %base, %aStart : i32
  %afterA = arith.subi %k, %aStart : i32
  %lenA = arith.minui %afterA, %run : i32
  %bStart = arith.addi %aStart, %lenA : i32
  %lenB0 = arith.subi %k, %bStart : i32
  %lenB = arith.minui %lenB0, %run : i32
  // i lies in [o - lenB, min(o, lenA)].
  %oMinusB = arith.subi %o, %lenB : i32
  %lo0 = arith.maxsi %oMinusB, %c0 : i32
  %hi0 = arith.minui %o, %lenA : i32
  %lane = tile.iota : tensor<2048xi32>
  %oneT = tile.splat %c1 : tensor<2048xi32>
  %probeStep = arith.addi %lane, %oneT : tensor<2048xi32>
  %zeroT = tile.splat %c0 : tensor<2048xi32>
  %oT = tile.splat %o : tensor<2048xi32>
  %lenBT = tile.splat %lenB : tensor<2048xi32>
  %aBaseT = tile.splat %aStart : tensor<2048xi32>
  %bStartT = tile.splat %bStart : tensor<2048xi32>
  %search:2 = scf.for %step = %c0 to %steps step %c1
      iter_args(%lo = %lo0, %hi = %hi0) -> (i32, i32) : i32 {
    // Probes lo + stride, lo + 2 * stride, ...: the count of those whose
    // A element is among the first o narrows i to one stride.
    %span = arith.subi %hi, %lo : i32
    %spanUp = arith.addi %span, %c2047 : i32
    %strideRaw = arith.shrui %spanUp, %c11 : i32
    %stride = arith.maxui %strideRaw, %c1 : i32
    %strideT = tile.splat %stride : tensor<2048xi32>
    %loT = tile.splat %lo : tensor<2048xi32>
    %hiT = tile.splat %hi : tensor<2048xi32>
    %offs = arith.muli %probeStep, %strideT : tensor<2048xi32>
    %t = arith.addi %loT, %offs : tensor<2048xi32>
    %inRange = arith.cmpi sle, %t, %hiT : tensor<2048xi32>
    %tIn = arith.select %inRange, %t, %oneT : tensor<2048xi1>, tensor<2048xi32>
    %aAt0 = arith.addi %aBaseT, %tIn : tensor<2048xi32>
    %aAt = arith.subi %aAt0, %oneT : tensor<2048xi32>
    %a = tile.gather %sv[%aAt] : !tile.view<?xi64>, tensor<2048xi32>
        -> tensor<2048xi64>
    // B[o - t], below every key past B's end.
    %bOff = arith.subi %oT, %tIn : tensor<2048xi32>
    %bIn = arith.cmpi slt, %bOff, %lenBT : tensor<2048xi32>
    %bOffIn = arith.select %bIn, %bOff, %zeroT : tensor<2048xi1>, tensor<2048xi32>
    %bAt = arith.addi %bStartT, %bOffIn : tensor<2048xi32>
    %b = tile.gather %sv[%bAt] : !tile.view<?xi64>, tensor<2048xi32>
        -> tensor<2048xi64>
    %above = arith.cmpi sgt, %a, %b : tensor<2048xi64>
    %bOut = arith.xori %bIn, %inRange : tensor<2048xi1>
    %ok = arith.ori %above, %bOut : tensor<2048xi1>
    %taken = arith.andi %ok, %inRange : tensor<2048xi1>
    %taken32 = arith.extui %taken : tensor<2048xi1> to tensor<2048xi32>
    %count = tile.reduce add %taken32 along 0 : tensor<2048xi32>
    %jump = arith.muli %count, %stride : i32
    %nlo = arith.addi %lo, %jump : i32
    %last = arith.addi %nlo, %stride : i32
    %lastIn = arith.subi %last, %c1 : i32
    %nhi = arith.minsi %hi, %lastIn : i32
    scf.yield %nlo, %nhi : i32, i32
  }
  %j = arith.subi %o, %search#0 : i32
  // A[i .. i + 2048) then B[j .. j + 2048), the slots past each run's end
  // below every key.
  %lane4 = tile.iota : tensor<4096xi32>
  %sliceT = tile.splat %slice : tensor<4096xi32>
  %fromA = arith.cmpi slt, %lane4, %sliceT : tensor<4096xi32>
  %inB = arith.subi %lane4, %sliceT : tensor<4096xi32>
  %iT = tile.splat %search#0 : tensor<4096xi32>
  %jT = tile.splat %j : tensor<4096xi32>
  %offA = arith.addi %iT, %lane4 : tensor<4096xi32>
  %offB = arith.addi %jT, %inB : tensor<4096xi32>
  %lenAT = tile.splat %lenA : tensor<4096xi32>
  %lenB4 = tile.splat %lenB : tensor<4096xi32>
  %validA = arith.cmpi slt, %offA, %lenAT : tensor<4096xi32>
  %validB = arith.cmpi slt, %offB, %lenB4 : tensor<4096xi32>
  %valid = arith.select %fromA, %validA, %validB
      : tensor<4096xi1>, tensor<4096xi1>
  %aStart4 = tile.splat %aStart : tensor<4096xi32>
  %bStart4 = tile.splat %bStart : tensor<4096xi32>
  %atA = arith.addi %aStart4, %offA : tensor<4096xi32>
  %atB = arith.addi %bStart4, %offB : tensor<4096xi32>
  %at4 = arith.select %fromA, %atA, %atB : tensor<4096xi1>, tensor<4096xi32>
  %zero4 = tile.splat %c0 : tensor<4096xi32>
  %atIn = arith.select %valid, %at4, %zero4 : tensor<4096xi1>, tensor<4096xi32>
  %got = tile.gather %sv[%atIn] : !tile.view<?xi64>, tensor<4096xi32>
      -> tensor<4096xi64>
  %noneT = tile.splat %none : tensor<4096xi64>
  %cand = arith.select %valid, %got, %noneT : tensor<4096xi1>, tensor<4096xi64>
  // A pair without B (the row's last run, or a row of one run) is sorted.
  %alone = arith.cmpi eq, %lenB, %c0 : i32
  %merged = scf.if %alone -> (tensor<4096xi64>) {
    scf.yield %cand : tensor<4096xi64>
  } else {
    %m = tile.sort %cand along 0 descending runs 2048 : tensor<4096xi64>
    scf.yield %m : tensor<4096xi64>
  }
  %base4 = tile.splat %base : tensor<4096xi32>
  %pos = arith.addi %base4, %lane4 : tensor<4096xi32>
  %kT = tile.splat %k : tensor<4096xi32>
  %inRow = arith.cmpi slt, %pos, %kT : tensor<4096xi32>
  %keep = arith.andi %inRow, %fromA : tensor<4096xi1>
  // The merged run covers the row: 2 * run >= k.
  %rest = arith.subi %k, %run : i32
  %final = arith.cmpi sge, %run, %rest : i32
  scf.if %final {
    // Key back to float bits (the mapping is its own inverse).
    %l32T = tile.splat %l32 : tensor<4096xi64>
    %c31T = tile.splat %c31 : tensor<4096xi32>
    %c1T = tile.splat %c1 : tensor<4096xi32>
    %sh = arith.shrui %merged, %l32T : tensor<4096xi64>
    %sk = arith.trunci %sh : tensor<4096xi64> to tensor<4096xi32>
    %ksign = arith.shrsi %sk, %c31T : tensor<4096xi32>
    %kmag = arith.shrui %ksign, %c1T : tensor<4096xi32>
    %vbits = arith.xori %sk, %kmag : tensor<4096xi32>
    %vals = arith.bitcast %vbits : tensor<4096xi32> to tensor<4096xf32>
    %ci = arith.trunci %merged : tensor<4096xi64> to tensor<4096xi32>
    %ci64 = arith.extui %ci : tensor<4096xi32> to tensor<4096xi64>
    %valuesRow = tile.addptr %values, %at : !tile.ptr<f32>, i64
    %indicesRow = tile.addptr %indices, %at : !tile.ptr<i64>, i64
    %outV = tile.make_view %valuesRow[%k] strides[1] : !tile.view<?xf32>
    %outI = tile.make_view %indicesRow[%k] strides[1] : !tile.view<?xi64>
    tile.scatter_store %vals, %outV[%pos] mask %keep
        : !tile.view<?xf32>[tensor<4096xi32>], tensor<4096xf32>
    tile.scatter_store %ci64, %outI[%pos] mask %keep
        : !tile.view<?xi64>[tensor<4096xi32>], tensor<4096xi64>
  } else {
    %dstRow = tile.addptr %dst, %at : !tile.ptr<i64>, i64
    %dv = tile.make_view %dstRow[%k] strides[1] : !tile.view<?xi64>
    tile.scatter_store %merged, %dv[%pos] mask %keep
        : !tile.view<?xi64>[tensor<4096xi32>], tensor<4096xi64>
  }
  return
}

// Many short rows (n <= W): R rows of W columns per program, each row
// sorted whole as W elements (signed-order key << 32 | ~column) and its
// first k stored (the outputs' extent k masks the rest). Any k <= n. The
// runtime picks the narrowest width with W >= n and launches ceil(batch /
// R) programs.
//
// Columns past n load as -inf (pad) and carry the complement of their
// column, as every element does: among equal keys the lower column ranks
// first, so a padding slot ranks below any real -inf of the row and is
// never among its first n. The tile keeps the layout of its load
// (tile-assign-layouts follows the first operand that is not an iota or a
// splat), which sets how the sort runs:
// - warps along the rows only (R >= num_warps, W a multiple of 4 * 32 or
//   within one warp): every row sorts inside one warp, in-thread pairs and
//   shuffles, no barrier (topk_rows_w64, _w64_r8, _w256);
// - one row over all warps (R = 1, W / 4 elements per warp, within
//   tile.sort's bound on unrolled element-steps per thread): shuffles
//   within warps and one barrier per stage across them (topk_rows_w256_r1
//   for few rows, _w1024_r1 for any number: a 1024-column row per warp,
//   32 keys per thread, unrolls into 16k instructions that take ptxas, and
//   so the driver's JIT, about 2 s, for about as many instructions per row
//   as the one-row program).
// A key tile whose layout came from the column iota (1 x 32 lanes, warps
// along the row) instead took the scratch network: a loop over the
// log2(W) (log2(W) + 1) / 2 stages, each a barrier and R * W / 512 pairs
// per thread compared and swapped through shared memory one after another.

!rows64 = tensor<64x64xi64, #tile.sym<[R, W]>>
!rows32 = tensor<64x64xi32, #tile.sym<[R, W]>>
!rowsF = tensor<64x64xf32, #tile.sym<[R, W]>>
!rows1 = tensor<64x64xi1, #tile.sym<[R, W]>>
!rowCols = tensor<64xi32, #tile.sym<[W]>>
!rowLow = tensor<64xi64, #tile.sym<[W]>>

func.func @topk_rows(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                     %indices: !tile.ptr<i64>, %batch: i32, %n: i32,
                     %k: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {R = 64 : i32, W = 64 : i32},
                tile.instances = {
                  topk_rows_w64 = {R = 64 : i32, W = 64 : i32},
                  topk_rows_w64_r8 = {R = 8 : i32, W = 64 : i32},
                  topk_rows_w256 = {R = 16 : i32, W = 256 : i32},
                  topk_rows_w256_r1 = {R = 1 : i32, W = 256 : i32},
                  topk_rows_w1024_r1 = {R = 1 : i32, W = 1024 : i32}}} {
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %kmax = arith.constant 2147483647 : i32
  %ones = arith.constant -1 : i32
  %l32 = arith.constant 32 : i64
  %R = tile.param "R" : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %R : i32
  // 2-D views address in 64 bits: batch * n may pass 2^31.
  %in = tile.make_view %x[%batch, %n] strides[%n, 1] : !tile.view<?x?xf32>
  %outV = tile.make_view %values[%batch, %k] strides[%k, 1]
      : !tile.view<?x?xf32>
  %outI = tile.make_view %indices[%batch, %k] strides[%k, 1]
      : !tile.view<?x?xi64>
  %t = tile.load %in[%r0, 0] pad -inf : !rowsF
  // Signed-order key: negatives flip all bits but the sign; NaN is the
  // largest key, as torch orders it.
  %c31T = tile.splat %c31 : !rows32
  %c1T = tile.splat %c1 : !rows32
  %maxKeyT = tile.splat %kmax : !rows32
  %bits = arith.bitcast %t : !rowsF to !rows32
  %sign = arith.shrsi %bits, %c31T : !rows32
  %magnitude = arith.shrui %sign, %c1T : !rows32
  %ordered = arith.xori %bits, %magnitude : !rows32
  %nan = arith.cmpf uno, %t, %t : !rowsF
  %key = arith.select %nan, %maxKeyT, %ordered : !rows1, !rows32
  %key64 = arith.extsi %key : !rows32 to !rows64
  %l32T = tile.splat %l32 : !rows64
  %high = arith.shli %key64, %l32T : !rows64
  // ~column on one row of W, then broadcast: moved to the key tile's
  // layout as one row, not as R rows.
  %ci = tile.iota : !rowCols
  %onesW = tile.splat %ones : !rowCols
  %notCols = arith.xori %ci, %onesW : !rowCols
  %low1 = arith.extui %notCols : !rowCols to !rowLow
  %low = tile.broadcast %low1 along 0 : !rowLow -> !rows64
  %packed = arith.ori %high, %low : !rows64
  %sorted = tile.sort %packed along 1 descending : !rows64
  // Key back to float bits (the mapping is its own inverse).
  %sh = arith.shrui %sorted, %l32T : !rows64
  %sk = arith.trunci %sh : !rows64 to !rows32
  %ksign = arith.shrsi %sk, %c31T : !rows32
  %kmag = arith.shrui %ksign, %c1T : !rows32
  %vbits = arith.xori %sk, %kmag : !rows32
  %v = arith.bitcast %vbits : !rows32 to !rowsF
  %sc = arith.trunci %sorted : !rows64 to !rows32
  %onesT = tile.splat %ones : !rows32
  %col = arith.xori %sc, %onesT : !rows32
  %si = arith.extui %col : !rows32 to !rows64
  tile.store %v, %outV[%r0, 0] : !rowsF
  tile.store %si, %outI[%r0, 0] : !rows64
  return
}

// k = 1 on short rows (n <= W): R rows of W columns per program, one max
// reduction of (key << 32 | ~column) along each row, padding as in
// topk_rows (the lowest column wins a tie). A sort would take log2(W)
// (log2(W) + 1) / 2 network stages for one element per row; the
// reduction is log2 of the row's lanes in shuffles and, where warps share
// a row, one exchange through shared memory.

!maxRows = tensor<64xi64, #tile.sym<[R]>>
!maxRows32 = tensor<64xi32, #tile.sym<[R]>>
!maxRowsF = tensor<64xf32, #tile.sym<[R]>>

func.func @topk_rows_max(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                         %indices: !tile.ptr<i64>, %batch: i32, %n: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {R = 64 : i32, W = 64 : i32},
                tile.instances = {
                  topk_rows_max_w64 = {R = 64 : i32, W = 64 : i32},
                  topk_rows_max_w256 = {R = 16 : i32, W = 256 : i32},
                  topk_rows_max_w1024 = {R = 4 : i32, W = 1024 : i32}}} {
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %kmax = arith.constant 2147483647 : i32
  %ones = arith.constant -1 : i32
  %l32 = arith.constant 32 : i64
  %R = tile.param "R" : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %R : i32
  // 2-D views address in 64 bits: batch * n may pass 2^31.
  %in = tile.make_view %x[%batch, %n] strides[%n, 1] : !tile.view<?x?xf32>
  %outV = tile.make_view %values[%batch] strides[1] : !tile.view<?xf32>
  %outI = tile.make_view %indices[%batch] strides[1] : !tile.view<?xi64>
  %t = tile.load %in[%r0, 0] pad -inf : !rowsF
  // The signed-order key of topk_rows; NaN largest.
  %c31T = tile.splat %c31 : !rows32
  %c1T = tile.splat %c1 : !rows32
  %maxKeyT = tile.splat %kmax : !rows32
  %bits = arith.bitcast %t : !rowsF to !rows32
  %sign = arith.shrsi %bits, %c31T : !rows32
  %magnitude = arith.shrui %sign, %c1T : !rows32
  %ordered = arith.xori %bits, %magnitude : !rows32
  %nan = arith.cmpf uno, %t, %t : !rowsF
  %key = arith.select %nan, %maxKeyT, %ordered : !rows1, !rows32
  %key64 = arith.extsi %key : !rows32 to !rows64
  %l32T = tile.splat %l32 : !rows64
  %high = arith.shli %key64, %l32T : !rows64
  // ~column on one row of W, then broadcast: moved to the key tile's
  // layout as one row, not as R rows.
  %ci = tile.iota : !rowCols
  %onesW = tile.splat %ones : !rowCols
  %notCols = arith.xori %ci, %onesW : !rowCols
  %low1 = arith.extui %notCols : !rowCols to !rowLow
  %low = tile.broadcast %low1 along 0 : !rowLow -> !rows64
  %packed = arith.ori %high, %low : !rows64
  %best = tile.reduce max %packed along 1 : !rows64
  // Key back to float bits (the mapping is its own inverse).
  %l32R = tile.splat %l32 : !maxRows
  %c31R = tile.splat %c31 : !maxRows32
  %c1R = tile.splat %c1 : !maxRows32
  %onesR = tile.splat %ones : !maxRows32
  %sh = arith.shrui %best, %l32R : !maxRows
  %sk = arith.trunci %sh : !maxRows to !maxRows32
  %ksign = arith.shrsi %sk, %c31R : !maxRows32
  %kmag = arith.shrui %ksign, %c1R : !maxRows32
  %vbits = arith.xori %sk, %kmag : !maxRows32
  %v = arith.bitcast %vbits : !maxRows32 to !maxRowsF
  %sc = arith.trunci %best : !maxRows to !maxRows32
  %col = arith.xori %sc, %onesR : !maxRows32
  %si = arith.extui %col : !maxRows32 to !maxRows
  tile.store %v, %outV[%r0] : !maxRowsF
  tile.store %si, %outI[%r0] : !maxRows
  return
}

// Small k (2 <= k <= 8, the runtime's bound) on short rows: k rounds, each
// a max reduction of (key << 32 | ~column) along every row, stored as the
// round's column of the outputs, and that element replaced by INT64_MIN
// (below every real or padding element). Padding, layouts and instances
// as in topk_rows: per round an in-thread maximum, log2 of the row's lanes
// in shuffles and, where warps share a row (_r1), one exchange through
// shared memory; about 240 instructions a round for a 1024-column row in
// one warp, against 16.4k for its sort.

!selCol = tensor<64x1xi64, #tile.sym<[R, 1]>>
!selColF = tensor<64x1xf32, #tile.sym<[R, 1]>>

func.func @topk_rows_select(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                            %indices: !tile.ptr<i64>, %batch: i32, %n: i32,
                            %k: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.params = {R = 64 : i32, W = 64 : i32},
                tile.instances = {
                  topk_rows_select_w64 = {R = 64 : i32, W = 64 : i32},
                  topk_rows_select_w64_r8 = {R = 8 : i32, W = 64 : i32},
                  topk_rows_select_w256 = {R = 16 : i32, W = 256 : i32},
                  topk_rows_select_w256_r1 = {R = 1 : i32, W = 256 : i32},
                  topk_rows_select_w1024 = {R = 8 : i32, W = 1024 : i32},
                  topk_rows_select_w1024_r1 = {R = 1 : i32,
                                               W = 1024 : i32}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c31 = arith.constant 31 : i32
  %kmax = arith.constant 2147483647 : i32
  %ones = arith.constant -1 : i32
  %l32 = arith.constant 32 : i64
  %removed = arith.constant -9223372036854775808 : i64
  %R = tile.param "R" : i32
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %R : i32
  // 2-D views address in 64 bits: batch * n may pass 2^31.
  %in = tile.make_view %x[%batch, %n] strides[%n, 1] : !tile.view<?x?xf32>
  %outV = tile.make_view %values[%batch, %k] strides[%k, 1]
      : !tile.view<?x?xf32>
  %outI = tile.make_view %indices[%batch, %k] strides[%k, 1]
      : !tile.view<?x?xi64>
  %t = tile.load %in[%r0, 0] pad -inf : !rowsF
  // The signed-order key of topk_rows; NaN largest.
  %c31T = tile.splat %c31 : !rows32
  %c1T = tile.splat %c1 : !rows32
  %maxKeyT = tile.splat %kmax : !rows32
  %bits = arith.bitcast %t : !rowsF to !rows32
  %sign = arith.shrsi %bits, %c31T : !rows32
  %magnitude = arith.shrui %sign, %c1T : !rows32
  %ordered = arith.xori %bits, %magnitude : !rows32
  %nan = arith.cmpf uno, %t, %t : !rowsF
  %key = arith.select %nan, %maxKeyT, %ordered : !rows1, !rows32
  %key64 = arith.extsi %key : !rows32 to !rows64
  %l32T = tile.splat %l32 : !rows64
  %high = arith.shli %key64, %l32T : !rows64
  // ~column on one row of W, then broadcast, as in topk_rows.
  %ci = tile.iota : !rowCols
  %onesW = tile.splat %ones : !rowCols
  %notCols = arith.xori %ci, %onesW : !rowCols
  %low1 = arith.extui %notCols : !rowCols to !rowLow
  %low = tile.broadcast %low1 along 0 : !rowLow -> !rows64
  %packed = arith.ori %high, %low : !rows64
  %removedT = tile.splat %removed : !rows64
  %l32R = tile.splat %l32 : !maxRows
  %c31R = tile.splat %c31 : !maxRows32
  %c1R = tile.splat %c1 : !maxRows32
  %onesR = tile.splat %ones : !maxRows32
  %left = scf.for %j = %c0 to %k step %c1
      iter_args(%cur = %packed) -> (!rows64) : i32 {
    %best = tile.reduce max %cur along 1 : !rows64
    // Key back to float bits (the mapping is its own inverse).
    %sh = arith.shrui %best, %l32R : !maxRows
    %sk = arith.trunci %sh : !maxRows to !maxRows32
    %ksign = arith.shrsi %sk, %c31R : !maxRows32
    %kmag = arith.shrui %ksign, %c1R : !maxRows32
    %vbits = arith.xori %sk, %kmag : !maxRows32
    %v = arith.bitcast %vbits : !maxRows32 to !maxRowsF
    %sc = arith.trunci %best : !maxRows to !maxRows32
    %col = arith.xori %sc, %onesR : !maxRows32
    %si = arith.extui %col : !maxRows32 to !maxRows
    %v2 = tile.expand_dims %v at 1 : !maxRowsF -> !selColF
    %si2 = tile.expand_dims %si at 1 : !maxRows -> !selCol
    tile.store %v2, %outV[%r0, %j] : !selColF
    tile.store %si2, %outI[%r0, %j] : !selCol
    %bestT = tile.broadcast %best along 1 : !maxRows -> !rows64
    %hit = arith.cmpi eq, %cur, %bestT : !rows64
    %next = arith.select %hit, %removedT, %cur : !rows1, !rows64
    scf.yield %next : !rows64
  }
  return
}

// Few long rows: the radix select of topk_f32 split over programs, reading
// the rows from global memory twice rather than four times. Each row's
// `state` of 6176 words (zero before the first kernel) holds three digit
// histograms of 2048 bins (11, 11 and 10 bits from the top, as topk_f32)
// and, from word 6144, how many elements above the threshold and equal to
// it have been placed, how many candidates pass 1 gathered, a ticket per
// pass (6147-6149), how many candidates pass 1 finds (6150, from pass 0's
// histogram), per pass the digits chosen so far and how many elements are
// still wanted (6152 + 2 pass, + 1), and for the guessed path below the
// guessed threshold (6160) and how many candidates it found (6163).
// Program (part, row) covers `partLen` columns (a multiple of 4096) of the
// row, or the same share of its candidates.
// - topk_hist_f32, passes 0 and 2: every program histograms the digit of
//   its elements that match the digits chosen so far, and adds its non-zero
//   bins to the row's histogram of this pass (global atomics). The last
//   program of the row to take the pass's ticket (after a fence) chooses
//   the digit (the same scan and choice as topk_f32) and stores it with
//   what is still wanted, for the next pass; a launch per pass is the
//   grid-wide barrier between passes.
// - topk_gather_f32, pass 1 (the same template with GATHER = 1): the same,
//   and it gathers the row's candidates, every element whose first digit
//   is at least the chosen one (all that can still be among the k largest:
//   k plus about one 2048th of the row for spread values), into the row's
//   `cap` slots of `cand` (keys, then columns). Each program counts its
//   candidates per lane position, reserves their slots with one atomic, and
//   reads its columns again (from L2) to write them, each lane position
//   filling its own run of slots.
// - topk_collect_f32: every program reads the k-th key `thr` and `need`
//   that the third pass left, and per chunk of 4096 reserves slots for its
//   elements above `thr` and equal to it with one atomic on the row's two
//   counts, then writes them to the row of `work` (elements equal to `thr`
//   only while their rank among those is below `need`). The slots of a row
//   are thus filled in no particular order; topk_sort_chunks and
//   topk_merge_f32 sort them.
// A row gathers, and pass 2 and the collection read its candidates instead
// of its columns, when all of them fit in `cap` (cap = 0: no gathering,
// topk_hist_f32 runs pass 1); a row of many equal or closely spaced values,
// whose candidates would not fit, gathers nothing and is read again.
// Programs with nothing to read return at once.

// A pass streams the row at the rate of the programs in flight: 16 warps
// of 8 columns per thread at 40 registers (three programs, 48 warps per
// SM; 56 and two programs for the gathering instance) rather than 8 warps
// of 16 columns, whose 61 and 96 registers left 32 and 16 warps per SM
// (H200, 256 x 131072: 58.6 us for the first pass, 133 for the gathering
// one).
func.func @topk_hist(%x: !tile.ptr<f32>, %state: !tile.ptr<i32>,
                     %cand: !tile.ptr<i32>, %batch: i32, %n: i32, %k: i32,
                     %pass: i32, %partLen: i32, %cap: i32,
                     %guessOn: i32)
    attributes {tile.kernel, tile.num_warps = 16 : i32,
                tile.max_registers = 40 : i32, tile.dependent_launch = true,
                tile.params = {GATHER = 0 : i32},
                tile.instances = {
                  topk_hist_f32 = {},
                  topk_gather_f32 = {GATHER = 1, "tile.max_registers" = 56}}} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c10 = arith.constant 10 : i32
  %c11 = arith.constant 11 : i32
  %c21 = arith.constant 21 : i32
  %c1023 = arith.constant 1023 : i32
  %c2047 = arith.constant 2047 : i32
  %c2048 = arith.constant 2048 : i32
  %cm1 = arith.constant -1 : i32
  %kmin = arith.constant -2147483648 : i32
  %chunk = arith.constant 4096 : i32
  %stateLen = arith.constant 6176 : i32
  %candAt = arith.constant 6146 : i32
  %c6147 = arith.constant 6147 : i32
  %c6152 = arith.constant 6152 : i32
  %true = arith.constant true
  %gatherParam = tile.param "GATHER" : i32
  %isGather = arith.cmpi ne, %gatherParam, %c0 : i32
  %part = tile.program_id x
  %row = tile.program_id y
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %src = tile.make_view %xRow[%n] strides[1] : !tile.view<?xf32>
  %stateLen64 = arith.extui %stateLen : i32 to i64
  %sAt = arith.muli %row64, %stateLen64 : i64
  %sRow = tile.addptr %state, %sAt : !tile.ptr<i32>, i64
  %sv = tile.make_view %sRow[6176] strides[1] : !tile.view<?xi32>
  %cap64 = arith.extui %cap : i32 to i64
  %cap2 = arith.addi %cap64, %cap64 : i64
  %cAt = arith.muli %row64, %cap2 : i64
  %cRow = tile.addptr %cand, %cAt : !tile.ptr<i32>, i64
  %cLen = arith.addi %cap, %cap : i32
  %cv = tile.make_view %cRow[%cLen] strides[1] : !tile.view<?xi32>
  // Pass 2 reads the candidates of pass 1 when they all fit; the gathering
  // instance runs pass 1 only.
  // A row gathers only if all its candidates fit: pass 0's last program
  // counted them (word 6150).
  %capOn = arith.cmpi sgt, %cap, %c0 : i32
  %expectT = tile.load %sv[6150] : tensor<1xi32>
  %expected = tile.reduce max %expectT along 0 : tensor<1xi32>
  %fitsAll = arith.cmpi sle, %expected, %cap : i32
  %fits = arith.andi %capOn, %fitsAll : i1
  %gather = arith.andi %isGather, %fits : i1
  %counted1 = tile.load %sv[6146] : tensor<1xi32>
  %candCount = tile.reduce max %counted1 along 0 : tensor<1xi32>
  %afterGather = arith.cmpi eq, %pass, %c2 : i32
  %notGather = arith.xori %isGather, %true : i1
  %fromCand1 = arith.andi %afterGather, %fits : i1
  %fromCand = arith.andi %fromCand1, %notGather : i1
  %limit = arith.select %fromCand, %candCount, %n : i32
  %start = arith.muli %part, %partLen : i32
  // A row that topk_guess_select_f32 finished has nothing left to do here.
  %guessOnB = arith.cmpi ne, %guessOn, %c0 : i32
  %guessed = scf.if %guessOnB -> (i1) {
    %guessedT = tile.load %sv[6163] : tensor<1xi32>
    %guessCount = tile.reduce max %guessedT along 0 : tensor<1xi32>
    %guessEnough = arith.cmpi sge, %guessCount, %k : i32
    %guessFits = arith.cmpi sle, %guessCount, %cap : i32
    %both = arith.andi %guessEnough, %guessFits : i1
    scf.yield %both : i1
  } else {
    %no = arith.constant false
    scf.yield %no : i1
  }
  %notGuessed = arith.xori %guessed, %true : i1
  %inRange = arith.cmpi slt, %start, %limit : i32
  %active = arith.andi %inRange, %notGuessed : i1
  %bins = tile.iota : tensor<2048xi32>
  %zeroH = tile.splat %c0 : tensor<2048xi32>
  %noneH = tile.splat %cm1 : tensor<2048xi32>
  // The digits chosen by the earlier passes and how many elements are still
  // wanted, as the last program of the row's previous pass left them.
  %first = arith.cmpi eq, %pass, %c0 : i32
  %sel:2 = scf.if %first -> (i32, i32) {
    scf.yield %c0, %k : i32, i32
  } else {
    %prev = arith.subi %pass, %c1 : i32
    %prev2 = arith.muli %prev, %c2 : i32
    %pAt = arith.addi %prev2, %c6152 : i32
    %rAt = arith.addi %pAt, %c1 : i32
    %pT = tile.load %sv[%pAt] : tensor<1xi32>
    %rT = tile.load %sv[%rAt] : tensor<1xi32>
    %p = tile.reduce max %pT along 0 : tensor<1xi32>
    %r = tile.reduce max %rT along 0 : tensor<1xi32>
    scf.yield %p, %r : i32, i32
  }
  // This pass's digit: shift and width as in topk_f32.
  %last = arith.cmpi eq, %pass, %c2 : i32
  %laterShift = arith.select %last, %c0, %c10 : i32
  %shift = arith.select %first, %c21, %laterShift : i32
  %digitMask = arith.select %last, %c1023, %c2047 : i32
  %width = arith.select %last, %c10, %c11 : i32
  %decided = arith.addi %shift, %width : i32
  %safeShift = arith.select %first, %c0, %decided : i32
  %hiBits = arith.shli %cm1, %safeShift : i32
  %hiMask = arith.select %first, %c0, %hiBits : i32
  scf.if %active {
    %hiMaskT = tile.splat %hiMask : tensor<4096xi32>
    %prefixT = tile.splat %sel#0 : tensor<4096xi32>
    %shiftT = tile.splat %shift : tensor<4096xi32>
    %digitMaskT = tile.splat %digitMask : tensor<4096xi32>
    %lane = tile.iota : tensor<4096xi32>
    %zeroT = tile.splat %c0 : tensor<4096xi32>
    %onesT = tile.splat %cm1 : tensor<4096xi32>
    %signT = tile.splat %kmin : tensor<4096xi32>
    %capT = tile.splat %cap : tensor<4096xi32>
    %left = arith.subi %limit, %start : i32
    %len = arith.minsi %left, %partLen : i32
    %end = arith.addi %start, %len : i32
    %endT = tile.splat %end : tensor<4096xi32>
    // Pass 1's candidates: every key from the first digit chosen up (the
    // prefix of pass 1 is that digit with the bits below it clear).
    %counts:2 = scf.for %j = %start to %end step %chunk
        iter_args(%h = %zeroH, %cands = %zeroT)
        -> (tensor<2048xi32>, tensor<4096xi32>) : i32 {
      %jT = tile.splat %j : tensor<4096xi32>
      %cols = arith.addi %lane, %jT : tensor<4096xi32>
      %valid = arith.cmpi slt, %cols, %endT : tensor<4096xi32>
      %key = scf.if %fromCand -> (tensor<4096xi32>) {
        %ckey = tile.load %cv[%j] mask %valid : tensor<4096xi32>
        scf.yield %ckey : tensor<4096xi32>
      } else {
        %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
        %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
        %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
        %flip = arith.select %neg, %onesT, %signT
            : tensor<4096xi1>, tensor<4096xi32>
        %ordered = arith.xori %bits, %flip : tensor<4096xi32>
        %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
        %xkey = arith.select %nan, %onesT, %ordered
            : tensor<4096xi1>, tensor<4096xi32>
        scf.yield %xkey : tensor<4096xi32>
      }
      %hi = arith.andi %key, %hiMaskT : tensor<4096xi32>
      %match = arith.cmpi eq, %hi, %prefixT : tensor<4096xi32>
      %counted = arith.andi %valid, %match : tensor<4096xi1>
      %sh = arith.shrui %key, %shiftT : tensor<4096xi32>
      %digit = arith.andi %sh, %digitMaskT : tensor<4096xi32>
      %hc = tile.histogram %digit mask %counted
          : tensor<4096xi32> -> tensor<2048xi32>
      %hn = arith.addi %h, %hc : tensor<2048xi32>
      // Candidates counted per lane position: no reduction per chunk.
      %atLeast = arith.cmpi uge, %key, %prefixT : tensor<4096xi32>
      %isCand = arith.andi %valid, %atLeast : tensor<4096xi1>
      %c32 = arith.extui %isCand : tensor<4096xi1> to tensor<4096xi32>
      %more = arith.select %isGather, %c32, %zeroT
          : tensor<4096xi32>
      %nc = arith.addi %cands, %more : tensor<4096xi32>
      scf.yield %hn, %nc : tensor<2048xi32>, tensor<4096xi32>
    }
    // Non-zero bins into the row's histogram of this pass; empty bins aim
    // outside the view and are skipped.
    %passAt = arith.muli %pass, %c2048 : i32
    %passT = tile.splat %passAt : tensor<2048xi32>
    %at = arith.addi %bins, %passT : tensor<2048xi32>
    %empty = arith.cmpi eq, %counts#0, %zeroH : tensor<2048xi32>
    %target = arith.select %empty, %noneH, %at
        : tensor<2048xi1>, tensor<2048xi32>
    %old = tile.atomic add %sv[%target], %counts#0
        : !tile.view<?xi32>[tensor<2048xi32>], tensor<2048xi32>
    // One atomic reserves the program's candidate slots, and one scan of the
    // per-lane counts gives each lane position its first slot; its columns,
    // just read, are read again (from L2) and lane position p of every chunk
    // takes the next slot of p's, without a scan per chunk. Rows gather only
    // when all their candidates fit, so every reservation fits; the check
    // guards the slots all the same.
    %total = tile.reduce add %counts#1 along 0 : tensor<4096xi32>
    %anyCand = arith.cmpi ne, %total, %c0 : i32
    %write = arith.andi %gather, %anyCand : i1
    scf.if %write {
      %add = tile.splat %total : tensor<1xi32>
      %candSlot = tile.splat %candAt : tensor<1xi32>
      %base = tile.atomic add %sv[%candSlot], %add
          : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
      %base0 = tile.reduce max %base along 0 : tensor<1xi32>
      %reserved = arith.addi %base0, %total : i32
      %room0 = arith.cmpi sle, %reserved, %cap : i32
      scf.if %room0 {
        %laneFirst = tile.scan add %counts#1 along 0 exclusive
            : tensor<4096xi32>
        %base0T = tile.splat %base0 : tensor<4096xi32>
        %first0 = arith.addi %laneFirst, %base0T : tensor<4096xi32>
        %fill = scf.for %j = %start to %end step %chunk
            iter_args(%pos = %first0) -> (tensor<4096xi32>) : i32 {
          %jT = tile.splat %j : tensor<4096xi32>
          %cols = arith.addi %lane, %jT : tensor<4096xi32>
          %valid = arith.cmpi slt, %cols, %endT : tensor<4096xi32>
          %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
          %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
          %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
          %flip = arith.select %neg, %onesT, %signT
              : tensor<4096xi1>, tensor<4096xi32>
          %ordered = arith.xori %bits, %flip : tensor<4096xi32>
          %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
          %key = arith.select %nan, %onesT, %ordered
              : tensor<4096xi1>, tensor<4096xi32>
          %atLeast = arith.cmpi uge, %key, %prefixT : tensor<4096xi32>
          %isCand = arith.andi %valid, %atLeast : tensor<4096xi1>
          %colPos = arith.addi %pos, %capT : tensor<4096xi32>
          tile.scatter_store %key, %cv[%pos] mask %isCand
              : !tile.view<?xi32>[tensor<4096xi32>], tensor<4096xi32>
          tile.scatter_store %cols, %cv[%colPos] mask %isCand
              : !tile.view<?xi32>[tensor<4096xi32>], tensor<4096xi32>
          %c32 = arith.extui %isCand : tensor<4096xi1> to tensor<4096xi32>
          %next = arith.addi %pos, %c32 : tensor<4096xi32>
          scf.yield %next : tensor<4096xi32>
        }
      }
    }
  }
  // The last program of the row to finish this pass chooses its digit for
  // all: its histogram is complete once every program has added to it.
  scf.if %notGuessed {
  tile.fence
  %ticketAt = arith.addi %pass, %c6147 : i32
  %ticketT = tile.splat %ticketAt : tensor<1xi32>
  %oneT = tile.splat %c1 : tensor<1xi32>
  %ticket = tile.atomic add %sv[%ticketT], %oneT
      : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
  %ticket0 = tile.reduce max %ticket along 0 : tensor<1xi32>
  %parts = tile.num_programs x
  %lastPart = arith.subi %parts, %c1 : i32
  %isLast = arith.cmpi eq, %ticket0, %lastPart : i32
  scf.if %isLast {
    tile.fence
    %hAt = arith.muli %pass, %c2048 : i32
    %hist = tile.load %sv[%hAt] : tensor<2048xi32>
    %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
    %remT = tile.splat %sel#1 : tensor<2048xi32>
    %enough = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
    %choice = arith.select %enough, %bins, %noneH
        : tensor<2048xi1>, tensor<2048xi32>
    %d = tile.reduce max %choice along 0 : tensor<2048xi32>
    %dT = tile.splat %d : tensor<2048xi32>
    %above = arith.cmpi sgt, %bins, %dT : tensor<2048xi32>
    %aboveH = arith.select %above, %hist, %zeroH
        : tensor<2048xi1>, tensor<2048xi32>
    %skipped = tile.reduce add %aboveH along 0 : tensor<2048xi32>
    %dsh = arith.shli %d, %shift : i32
    %np = arith.ori %sel#0, %dsh : i32
    %nr = arith.subi %sel#1, %skipped : i32
    %two = tile.iota : tensor<2xi32>
    %zero2 = tile.splat %c0 : tensor<2xi32>
    %isP = arith.cmpi eq, %two, %zero2 : tensor<2xi32>
    %npT = tile.splat %np : tensor<2xi32>
    %nrT = tile.splat %nr : tensor<2xi32>
    %out = arith.select %isP, %npT, %nrT : tensor<2xi1>, tensor<2xi32>
    %pass2 = arith.muli %pass, %c2 : i32
    %oAt = arith.addi %pass2, %c6152 : i32
    tile.store %out, %sv[%oAt] : tensor<2xi32>
    scf.if %first {
      // The candidates of pass 1: elements of this digit or a larger one.
      %atLeastH = arith.cmpi sge, %bins, %dT : tensor<2048xi32>
      %keptH = arith.select %atLeastH, %hist, %zeroH
          : tensor<2048xi1>, tensor<2048xi32>
      %kept = tile.reduce add %keptH along 0 : tensor<2048xi32>
      %keptT = tile.splat %kept : tensor<1xi32>
      tile.store %keptT, %sv[6150] : tensor<1xi32>
    }
  }
  }
  return
}

// Each 4096-column step waits on a reduction, a global atomic and a scan:
// the kernel is latency-bound where it reads whole rows, so programs in
// flight matter. 80 registers (no spills) fit three per SM against two at
// 109 (H200, 256 x 131072, k = 1024, every row read: 122 -> 112 us).
func.func @topk_collect_f32(%x: !tile.ptr<f32>, %state: !tile.ptr<i32>,
                            %cand: !tile.ptr<i32>, %work: !tile.ptr<i64>,
                            %batch: i32, %n: i32, %k: i32, %partLen: i32,
                            %cap: i32, %guessOn: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32, tile.max_registers = 80 : i32,
                tile.dependent_launch = true} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %cm1 = arith.constant -1 : i32
  %c6144 = arith.constant 6144 : i32
  %low16 = arith.constant 65535 : i32
  %kmin = arith.constant -2147483648 : i32
  %l32 = arith.constant 32 : i64
  %chunk = arith.constant 4096 : i32
  %stateLen = arith.constant 6176 : i32
  %part = tile.program_id x
  %row = tile.program_id y
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %k64 = arith.extui %k : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %src = tile.make_view %xRow[%n] strides[1] : !tile.view<?xf32>
  %stateLen64 = arith.extui %stateLen : i32 to i64
  %sAt = arith.muli %row64, %stateLen64 : i64
  %sRow = tile.addptr %state, %sAt : !tile.ptr<i32>, i64
  %sv = tile.make_view %sRow[6176] strides[1] : !tile.view<?xi32>
  %cap64 = arith.extui %cap : i32 to i64
  %cap2 = arith.addi %cap64, %cap64 : i64
  %cAt = arith.muli %row64, %cap2 : i64
  %cRow = tile.addptr %cand, %cAt : !tile.ptr<i32>, i64
  %cLen = arith.addi %cap, %cap : i32
  %cv = tile.make_view %cRow[%cLen] strides[1] : !tile.view<?xi32>
  %wAt = arith.muli %row64, %k64 : i64
  %wRow = tile.addptr %work, %wAt : !tile.ptr<i64>, i64
  %wv = tile.make_view %wRow[%k] strides[1] : !tile.view<?xi64>
  // The candidates of pass 1, when they all fit, instead of the row.
  %counted1 = tile.load %sv[6146] : tensor<1xi32>
  %candCount = tile.reduce max %counted1 along 0 : tensor<1xi32>
  %expectT = tile.load %sv[6150] : tensor<1xi32>
  %expected = tile.reduce max %expectT along 0 : tensor<1xi32>
  %capOn = arith.cmpi sgt, %cap, %c0 : i32
  %fits = arith.cmpi sle, %expected, %cap : i32
  %fromCand = arith.andi %capOn, %fits : i1
  %limit = arith.select %fromCand, %candCount, %n : i32
  %start = arith.muli %part, %partLen : i32
  // A row that topk_guess_select_f32 finished has nothing left to do here.
  %guessOnB = arith.cmpi ne, %guessOn, %c0 : i32
  %guessed = scf.if %guessOnB -> (i1) {
    %guessedT = tile.load %sv[6163] : tensor<1xi32>
    %guessCount = tile.reduce max %guessedT along 0 : tensor<1xi32>
    %guessEnough = arith.cmpi sge, %guessCount, %k : i32
    %guessFits = arith.cmpi sle, %guessCount, %cap : i32
    %both = arith.andi %guessEnough, %guessFits : i1
    scf.yield %both : i1
  } else {
    %no = arith.constant false
    scf.yield %no : i1
  }
  %inRange = arith.cmpi slt, %start, %limit : i32
  %true = arith.constant true
  %notGuessed = arith.xori %guessed, %true : i1
  %active = arith.andi %inRange, %notGuessed : i1
  scf.if %active {
  // The k-th key and how many equal to it are needed, as the last program
  // of the row's third pass left them.
  %thrT1 = tile.load %sv[6156] : tensor<1xi32>
  %needT1 = tile.load %sv[6157] : tensor<1xi32>
  %thr = tile.reduce max %thrT1 along 0 : tensor<1xi32>
  %need = tile.reduce max %needT1 along 0 : tensor<1xi32>
  %lane = tile.iota : tensor<4096xi32>
  %zeroT = tile.splat %c0 : tensor<4096xi32>
  %onesT = tile.splat %cm1 : tensor<4096xi32>
  %signT = tile.splat %kmin : tensor<4096xi32>
  %thrT = tile.splat %thr : tensor<4096xi32>
  %needT = tile.splat %need : tensor<4096xi32>
  %aboveK = arith.subi %k, %need : i32
  %aboveT = tile.splat %aboveK : tensor<4096xi32>
  %low16T = tile.splat %low16 : tensor<4096xi32>
  %c16T = tile.splat %c16 : tensor<4096xi32>
  %l32T = tile.splat %l32 : tensor<4096xi64>
  %two = tile.iota : tensor<2xi32>
  %zero2 = tile.splat %c0 : tensor<2xi32>
  %isGt2 = arith.cmpi eq, %two, %zero2 : tensor<2xi32>
  %base2 = tile.splat %c6144 : tensor<2xi32>
  %counters = arith.addi %two, %base2 : tensor<2xi32>
  %left = arith.subi %limit, %start : i32
  %len = arith.minsi %left, %partLen : i32
  %end = arith.addi %start, %len : i32
  %endT = tile.splat %end : tensor<4096xi32>
  scf.for %j = %start to %end step %chunk : i32 {
    %jT = tile.splat %j : tensor<4096xi32>
    %lanes = arith.addi %lane, %jT : tensor<4096xi32>
    %valid = arith.cmpi slt, %lanes, %endT : tensor<4096xi32>
    %key, %cols = scf.if %fromCand -> (tensor<4096xi32>, tensor<4096xi32>) {
      %ckey = tile.load %cv[%j] mask %valid : tensor<4096xi32>
      %jCol = arith.addi %j, %cap : i32
      %ccol = tile.load %cv[%jCol] mask %valid : tensor<4096xi32>
      scf.yield %ckey, %ccol : tensor<4096xi32>, tensor<4096xi32>
    } else {
      %t = tile.load %src[%j] mask %valid : tensor<4096xf32>
      %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
      %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
      %flip = arith.select %neg, %onesT, %signT
          : tensor<4096xi1>, tensor<4096xi32>
      %ordered = arith.xori %bits, %flip : tensor<4096xi32>
      %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
      %xkey = arith.select %nan, %onesT, %ordered
          : tensor<4096xi1>, tensor<4096xi32>
      scf.yield %xkey, %lanes : tensor<4096xi32>, tensor<4096xi32>
    }
    %isAbove = arith.cmpi ugt, %key, %thrT : tensor<4096xi32>
    %gt = arith.andi %valid, %isAbove : tensor<4096xi1>
    %isEq = arith.cmpi eq, %key, %thrT : tensor<4096xi32>
    %eq = arith.andi %valid, %isEq : tensor<4096xi1>
    %g32 = arith.extui %gt : tensor<4096xi1> to tensor<4096xi32>
    %e32 = arith.extui %eq : tensor<4096xi1> to tensor<4096xi32>
    %eHigh = arith.shli %e32, %c16T : tensor<4096xi32>
    %both = arith.ori %g32, %eHigh : tensor<4096xi32>
    // The slots' scan and the chunk's counts in one pass
    // (tile-scan-totals).
    %before = tile.scan add %both along 0 exclusive : tensor<4096xi32>
    %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32>
    %any = arith.cmpi ne, %chunkCounts, %c0 : i32
    scf.if %any {
      // One atomic reserves the chunk's slots among the row's.
      %chunkGt = arith.andi %chunkCounts, %low16 : i32
      %chunkEq = arith.shrui %chunkCounts, %c16 : i32
      %gtT = tile.splat %chunkGt : tensor<2xi32>
      %eqT = tile.splat %chunkEq : tensor<2xi32>
      %add = arith.select %isGt2, %gtT, %eqT : tensor<2xi1>, tensor<2xi32>
      %old = tile.atomic add %sv[%counters], %add
          : !tile.view<?xi32>[tensor<2xi32>], tensor<2xi32>
      %oldGt = arith.select %isGt2, %old, %zero2 : tensor<2xi1>, tensor<2xi32>
      %oldEq = arith.select %isGt2, %zero2, %old : tensor<2xi1>, tensor<2xi32>
      %gOff = tile.reduce max %oldGt along 0 : tensor<2xi32>
      %eOff = tile.reduce max %oldEq along 0 : tensor<2xi32>
      %gOffT = tile.splat %gOff : tensor<4096xi32>
      %eOffT = tile.splat %eOff : tensor<4096xi32>
      %lowBefore = arith.andi %before, %low16T : tensor<4096xi32>
      %gpos = arith.addi %lowBefore, %gOffT : tensor<4096xi32>
      %highBefore = arith.shrui %before, %c16T : tensor<4096xi32>
      %erank = arith.addi %highBefore, %eOffT : tensor<4096xi32>
      %wanted = arith.cmpi slt, %erank, %needT : tensor<4096xi32>
      %takeEq = arith.andi %eq, %wanted : tensor<4096xi1>
      %epos = arith.addi %erank, %aboveT : tensor<4096xi32>
      %pos = arith.select %gt, %gpos, %epos : tensor<4096xi1>, tensor<4096xi32>
      %take = arith.ori %gt, %takeEq : tensor<4096xi1>
      %skey = arith.xori %key, %signT : tensor<4096xi32>
      %skey64 = arith.extsi %skey : tensor<4096xi32> to tensor<4096xi64>
      %keyHigh = arith.shli %skey64, %l32T : tensor<4096xi64>
      %col64 = arith.extui %cols : tensor<4096xi32> to tensor<4096xi64>
      %packed = arith.ori %keyHigh, %col64 : tensor<4096xi64>
      tile.scatter_store %packed, %wv[%pos] mask %take
          : !tile.view<?xi64>[tensor<4096xi32>], tensor<4096xi64>
    }
  }
  }
  return
}

// Few long rows, guessed: the row's candidates gathered in one read of the
// row, before any histogram, above a threshold guessed from a sample. The
// runtime takes this ahead of the passes above for large inputs whose k is
// well below the candidate slots (runtime/topk.cc, LongRowsGuess).
// - topk_guess_f32, one program per row: clears the row's state, then
//   finds the `rank`-th largest key of a sample of `blocks` runs of 256
//   columns, `step` columns apart (spread over the whole row, so sorted or
//   drifting rows are sampled across their range), to 22 bits (the first
//   two radix passes of topk_f32; the low bits cleared can only lower it):
//   the guess T, in word 6160 of the row's state.
// - topk_guess_gather_f32, program (part, row) of one warp over 512
//   columns held in registers: every key >= T into the row's `cap`
//   candidate slots, with one atomic (on word 6163, the row's count) and
//   one warp scan per program; no fence or ticket, so a program ends as
//   soon as its stores are out. One warp per program keeps the reduction
//   and the scan in shuffles and lets 28 programs share an SM, whose
//   loads overlap the others' scans; on an H100 it gathered 256 x 131072
//   in 65 us against 87 for 8 warps over 4096 columns (the read alone:
//   46; bench/topk_gather.py).
// The kernels after it judge the guess from the count each reads: with at
// least k candidates (then the k largest are all among them, ties with the
// k-th included) that all fit, topk_guess_select_f32 (below) selects and
// collects the row from its candidates, and the radix passes and the
// collection above skip it (their `guessOn` argument says whether to
// look); otherwise the row takes those passes from the start. Either way
// the result is exact; a guess only decides how fast.
func.func @topk_guess_f32(%x: !tile.ptr<f32>, %state: !tile.ptr<i32>,
                          %batch: i32, %n: i32, %blocks: i32, %step: i32,
                          %rank: i32, %clearAll: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.max_registers = 128 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c10 = arith.constant 10 : i32
  %c16 = arith.constant 16 : i32
  %c21 = arith.constant 21 : i32
  %c64 = arith.constant 64 : i32
  %cm1 = arith.constant -1 : i32
  %kmin = arith.constant -2147483648 : i32
  %stateLen = arith.constant 6176 : i32
  %guessAt = arith.constant 6160 : i32
  %row = tile.program_id x
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %sample = tile.make_view %xRow[%blocks, 256] strides[%step, 1]
      : !tile.view<?x?xf32>
  %stateLen64 = arith.extui %stateLen : i32 to i64
  %sAt = arith.muli %row64, %stateLen64 : i64
  %sRow = tile.addptr %state, %sAt : !tile.ptr<i32>, i64
  %sv = tile.make_view %sRow[6176] strides[1] : !tile.view<?xi32>
  // The row's state starts at zero, cleared here rather than by a memset
  // launch ahead of this kernel. With `clearAll`, all of it (the passes'
  // histograms, counts and tickets follow) but word 6160, left to the
  // guess's own store below (the view's extent masks the words past the
  // state); without, only the candidates' count at 6163, all that the
  // direct path reads (24 KiB a row fewer to write: on an H100 the kernel
  // took 19.6 against 21.6 us at 256 x 131072, 98.9 against 120.5 at
  // 2048 rows).
  %all = arith.cmpi ne, %clearAll, %c0 : i32
  scf.if %all {
    %words = tile.iota : tensor<8192xi32>
    %guessAtT = tile.splat %guessAt : tensor<8192xi32>
    %cleared = arith.cmpi ne, %words, %guessAtT : tensor<8192xi32>
    %zeroState = tile.splat %c0 : tensor<8192xi32>
    tile.store %zeroState, %sv[0] mask %cleared : tensor<8192xi32>
  } else {
    %zeroCount = tile.splat %c0 : tensor<1xi32>
    tile.store %zeroCount, %sv[6163] : tensor<1xi32>
  }
  %bins = tile.iota : tensor<2048xi32>
  %zeroH = tile.splat %c0 : tensor<2048xi32>
  %noneH = tile.splat %cm1 : tensor<2048xi32>
  // A sample of 64 runs is loaded once, as one 64 x 256 tile, and both
  // passes count it from registers: its loads are all in flight at once
  // instead of a tile at a time, and the second pass reads nothing (on an
  // H100, 44.7 against 60.4 us at 1024 x 131072, 74.4 against 96.9 at
  // 2048 rows). Other samples take tiles of 16 runs, loaded once per
  // pass: held in a 64-run tile, shorter ones would count its padding,
  // whose keys all fall in one bin (13.2 against 10.2 us for 16 runs).
  %held = arith.cmpi eq, %blocks, %c64 : i32
  %zeroW = tile.splat %c0 : tensor<64x256xi32>
  %heldKeys = scf.if %held -> (tensor<64x256xi32>) {
    %t = tile.load %sample[0, 0] : tensor<64x256xf32>
    %onesW = tile.splat %cm1 : tensor<64x256xi32>
    %signW = tile.splat %kmin : tensor<64x256xi32>
    %bits = arith.bitcast %t : tensor<64x256xf32> to tensor<64x256xi32>
    %neg = arith.cmpi slt, %bits, %zeroW : tensor<64x256xi32>
    %flip = arith.select %neg, %onesW, %signW
        : tensor<64x256xi1>, tensor<64x256xi32>
    %ordered = arith.xori %bits, %flip : tensor<64x256xi32>
    %nan = arith.cmpf uno, %t, %t : tensor<64x256xf32>
    %key = arith.select %nan, %onesW, %ordered
        : tensor<64x256xi1>, tensor<64x256xi32>
    scf.yield %key : tensor<64x256xi32>
  } else {
    scf.yield %zeroW : tensor<64x256xi32>
  }
  %sel:2 = scf.for %pass = %c0 to %c2 step %c1
      iter_args(%prefix = %c0, %rem = %rank) -> (i32, i32) : i32 {
    // Digits of 11 bits at shifts 21 and 10: (key - prefix) >> shift,
    // which in pass 1 is below 2048 exactly for the keys whose first digit
    // is the one chosen (the histogram counts no digit past its bins), so
    // neither pass needs a mask.
    %first = arith.cmpi eq, %pass, %c0 : i32
    %shift = arith.select %first, %c21, %c10 : i32
    %hist = scf.if %held -> (tensor<2048xi32>) {
      %prefixW = tile.splat %prefix : tensor<64x256xi32>
      %shiftW = tile.splat %shift : tensor<64x256xi32>
      %rel = arith.subi %heldKeys, %prefixW : tensor<64x256xi32>
      %digit = arith.shrui %rel, %shiftW : tensor<64x256xi32>
      %hc = tile.histogram %digit : tensor<64x256xi32> -> tensor<2048xi32>
      scf.yield %hc : tensor<2048xi32>
    } else {
      %zeroT = tile.splat %c0 : tensor<16x256xi32>
      %onesT = tile.splat %cm1 : tensor<16x256xi32>
      %signT = tile.splat %kmin : tensor<16x256xi32>
      %prefixT = tile.splat %prefix : tensor<16x256xi32>
      %shiftT = tile.splat %shift : tensor<16x256xi32>
      %hl = scf.for %b = %c0 to %blocks step %c16
          iter_args(%h = %zeroH) -> (tensor<2048xi32>) : i32 {
        %t = tile.load %sample[%b, 0] : tensor<16x256xf32>
        %bits = arith.bitcast %t : tensor<16x256xf32> to tensor<16x256xi32>
        %neg = arith.cmpi slt, %bits, %zeroT : tensor<16x256xi32>
        %flip = arith.select %neg, %onesT, %signT
            : tensor<16x256xi1>, tensor<16x256xi32>
        %ordered = arith.xori %bits, %flip : tensor<16x256xi32>
        %nan = arith.cmpf uno, %t, %t : tensor<16x256xf32>
        %key = arith.select %nan, %onesT, %ordered
            : tensor<16x256xi1>, tensor<16x256xi32>
        %rel = arith.subi %key, %prefixT : tensor<16x256xi32>
        %digit = arith.shrui %rel, %shiftT : tensor<16x256xi32>
        %hc = tile.histogram %digit : tensor<16x256xi32> -> tensor<2048xi32>
        %hn = arith.addi %h, %hc : tensor<2048xi32>
        scf.yield %hn : tensor<2048xi32>
      } {tile.load_ahead = 1 : i32}
      scf.yield %hl : tensor<2048xi32>
    }
    %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
    %remT = tile.splat %rem : tensor<2048xi32>
    %enough = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
    %choice = arith.select %enough, %bins, %noneH
        : tensor<2048xi1>, tensor<2048xi32>
    %d = tile.reduce max %choice along 0 : tensor<2048xi32>
    %dT = tile.splat %d : tensor<2048xi32>
    %above = arith.cmpi sgt, %bins, %dT : tensor<2048xi32>
    %aboveH = arith.select %above, %hist, %zeroH
        : tensor<2048xi1>, tensor<2048xi32>
    %skipped = tile.reduce add %aboveH along 0 : tensor<2048xi32>
    %dsh = arith.shli %d, %shift : i32
    %np = arith.ori %prefix, %dsh : i32
    %nr = arith.subi %rem, %skipped : i32
    scf.yield %np, %nr : i32, i32
  }
  %guess = tile.splat %sel#0 : tensor<1xi32>
  tile.store %guess, %sv[6160] : tensor<1xi32>
  return
}

func.func @topk_guess_gather_f32(%x: !tile.ptr<f32>, %state: !tile.ptr<i32>,
                                 %cand: !tile.ptr<i32>, %batch: i32,
                                 %n: i32, %k: i32, %cap: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %cm1 = arith.constant -1 : i32
  %kmin = arith.constant -2147483648 : i32
  %partLen = arith.constant 512 : i32
  %stateLen = arith.constant 6176 : i32
  %countAt = arith.constant 6163 : i32
  %part = tile.program_id x
  %row = tile.program_id y
  %row64 = arith.extui %row : i32 to i64
  %n64 = arith.extui %n : i32 to i64
  %xAt = arith.muli %row64, %n64 : i64
  %xRow = tile.addptr %x, %xAt : !tile.ptr<f32>, i64
  %src = tile.make_view %xRow[%n] strides[1] : !tile.view<?xf32>
  %stateLen64 = arith.extui %stateLen : i32 to i64
  %sAt = arith.muli %row64, %stateLen64 : i64
  %sRow = tile.addptr %state, %sAt : !tile.ptr<i32>, i64
  %sv = tile.make_view %sRow[6176] strides[1] : !tile.view<?xi32>
  %cap64 = arith.extui %cap : i32 to i64
  %cap2 = arith.addi %cap64, %cap64 : i64
  %cAt = arith.muli %row64, %cap2 : i64
  %cRow = tile.addptr %cand, %cAt : !tile.ptr<i32>, i64
  %cLen = arith.addi %cap, %cap : i32
  %cv = tile.make_view %cRow[%cLen] strides[1] : !tile.view<?xi32>
  %guessT = tile.load %sv[6160] : tensor<1xi32>
  %guess = tile.reduce max %guessT along 0 : tensor<1xi32>
  %start = arith.muli %part, %partLen : i32
  %lane = tile.iota : tensor<512xi32>
  %startT = tile.splat %start : tensor<512xi32>
  %cols = arith.addi %lane, %startT : tensor<512xi32>
  %nT = tile.splat %n : tensor<512xi32>
  %valid = arith.cmpi slt, %cols, %nT : tensor<512xi32>
  %zeroT = tile.splat %c0 : tensor<512xi32>
  %onesT = tile.splat %cm1 : tensor<512xi32>
  %signT = tile.splat %kmin : tensor<512xi32>
  %t = tile.load %src[%start] mask %valid : tensor<512xf32>
  %bits = arith.bitcast %t : tensor<512xf32> to tensor<512xi32>
  %neg = arith.cmpi slt, %bits, %zeroT : tensor<512xi32>
  %flip = arith.select %neg, %onesT, %signT
      : tensor<512xi1>, tensor<512xi32>
  %ordered = arith.xori %bits, %flip : tensor<512xi32>
  %nan = arith.cmpf uno, %t, %t : tensor<512xf32>
  %key = arith.select %nan, %onesT, %ordered
      : tensor<512xi1>, tensor<512xi32>
  %guessK = tile.splat %guess : tensor<512xi32>
  %atLeast = arith.cmpi uge, %key, %guessK : tensor<512xi32>
  %isCand = arith.andi %valid, %atLeast : tensor<512xi1>
  %c32 = arith.extui %isCand : tensor<512xi1> to tensor<512xi32>
  %total = tile.reduce add %c32 along 0 : tensor<512xi32>
  %any = arith.cmpi ne, %total, %c0 : i32
  scf.if %any {
    // One atomic reserves the part's slots; slots past `cap` are not
    // written (the row's count then shows that they did not fit).
    %add = tile.splat %total : tensor<1xi32>
    %countSlot = tile.splat %countAt : tensor<1xi32>
    %base = tile.atomic add %sv[%countSlot], %add
        : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
    %base0 = tile.reduce max %base along 0 : tensor<1xi32>
    %before = tile.scan add %c32 along 0 exclusive : tensor<512xi32>
    %base0T = tile.splat %base0 : tensor<512xi32>
    %pos = arith.addi %before, %base0T : tensor<512xi32>
    %capT = tile.splat %cap : tensor<512xi32>
    %room = arith.cmpi slt, %pos, %capT : tensor<512xi32>
    %put = arith.andi %isCand, %room : tensor<512xi1>
    %colPos = arith.addi %pos, %capT : tensor<512xi32>
    tile.scatter_store %key, %cv[%pos] mask %put
        : !tile.view<?xi32>[tensor<512xi32>], tensor<512xi32>
    tile.scatter_store %cols, %cv[%colPos] mask %put
        : !tile.view<?xi32>[tensor<512xi32>], tensor<512xi32>
  }
  return
}

!slots2048 = tensor<2048xi64>
!keys2048 = tensor<2048xi32>

// - topk_guess_select_f32, one program per row whose guess held (at least
//   k candidates, all in their slots). One program holds the whole row, so
//   it needs no histograms in global memory, tickets or atomics.
//   - `direct` 0: the radix select of topk_f32 over the row's candidates,
//     then its collection into the row of `work` (the elements above the
//     k-th key, then the first `need` equal to it, as topk_collect_f32
//     writes them), for topk_sort_chunks and topk_merge_f32; topk_hist_f32
//     and topk_collect_f32 then skip the row.
//   - `direct` 1 (k <= 2048): the row's result, sorted, into `values` and
//     `indices`. At most 2048 candidates (the runtime aims the guess
//     below 2048 when its sample allows: LongRowsGuess) are sorted as
//     they are, with no select; more take the select and the collection
//     into `work`, which the program reads back after a fence.
//     topk_f32_unguessed then skips the row and computes only the rows
//     whose guess failed.
//   80 registers (no spills) fit three programs per SM against two at
//   ptxas's 111: on an H100, 1024 and 2048 rows of 131072 took 0.96-0.98
//   of the time, 128 and 256 rows 1.00-1.02 (bench/RESULTS.md).
func.func @topk_guess_select_f32(%state: !tile.ptr<i32>, %cand: !tile.ptr<i32>,
                                 %work: !tile.ptr<i64> {tile.noalias},
                                 %values: !tile.ptr<f32> {tile.noalias},
                                 %indices: !tile.ptr<i64> {tile.noalias},
                                 %batch: i32, %k: i32, %cap: i32,
                                 %direct: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32,
                tile.max_registers = 80 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c10 = arith.constant 10 : i32
  %c11 = arith.constant 11 : i32
  %c16 = arith.constant 16 : i32
  %c21 = arith.constant 21 : i32
  %c31 = arith.constant 31 : i32
  %c2048 = arith.constant 2048 : i32
  %c1023 = arith.constant 1023 : i32
  %c2047 = arith.constant 2047 : i32
  %cm1 = arith.constant -1 : i32
  %low16 = arith.constant 65535 : i32
  %kmin = arith.constant -2147483648 : i32
  %l32 = arith.constant 32 : i64
  %chunk = arith.constant 4096 : i32
  %stateLen = arith.constant 6176 : i32
  %row = tile.program_id x
  %row64 = arith.extui %row : i32 to i64
  %stateLen64 = arith.extui %stateLen : i32 to i64
  %sAt = arith.muli %row64, %stateLen64 : i64
  %sRow = tile.addptr %state, %sAt : !tile.ptr<i32>, i64
  %sv = tile.make_view %sRow[6176] strides[1] : !tile.view<?xi32>
  %countT1 = tile.load %sv[6163] : tensor<1xi32>
  %count = tile.reduce max %countT1 along 0 : tensor<1xi32>
  %enough = arith.cmpi sge, %count, %k : i32
  %fits = arith.cmpi sle, %count, %cap : i32
  %guessed = arith.andi %enough, %fits : i1
  scf.if %guessed {
    %cap64 = arith.extui %cap : i32 to i64
    %cap2 = arith.addi %cap64, %cap64 : i64
    %cAt = arith.muli %row64, %cap2 : i64
    %cRow = tile.addptr %cand, %cAt : !tile.ptr<i32>, i64
    %cLen = arith.addi %cap, %cap : i32
    %cv = tile.make_view %cRow[%cLen] strides[1] : !tile.view<?xi32>
    %k64 = arith.extui %k : i32 to i64
    %wAt = arith.muli %row64, %k64 : i64
    %wRow = tile.addptr %work, %wAt : !tile.ptr<i64>, i64
    %wv = tile.make_view %wRow[%k] strides[1] : !tile.view<?xi64>
    %directOn = arith.cmpi ne, %direct, %c0 : i32
    %few = arith.cmpi sle, %count, %c2048 : i32
    %quick = arith.andi %directOn, %few : i1
    %lkey = tile.splat %l32 : !slots2048
    %signS = tile.splat %kmin : !keys2048
    %slot = tile.iota : !keys2048
    %minSlot = arith.constant -9223372036854775808 : i64
    %noSlots = tile.splat %minSlot : !slots2048
    %slots = scf.if %quick -> (!slots2048) {
      // Every candidate, as one (signed-order key << 32 | column) slot;
      // past the count, key 0 and column 0: the least slot.
      %countS = tile.splat %count : !keys2048
      %inCand = arith.cmpi slt, %slot, %countS : !keys2048
      %ckey = tile.load %cv[0] mask %inCand : !keys2048
      %ccol = tile.load %cv[%cap] mask %inCand : !keys2048
      %cskey = arith.xori %ckey, %signS : !keys2048
      %cskey64 = arith.extsi %cskey : !keys2048 to !slots2048
      %chigh = arith.shli %cskey64, %lkey : !slots2048
      %ccol64 = arith.extui %ccol : !keys2048 to !slots2048
      %cslots = arith.ori %chigh, %ccol64 : !slots2048
      scf.yield %cslots : !slots2048
    } else {
      %lane = tile.iota : tensor<4096xi32>
      %countT = tile.splat %count : tensor<4096xi32>
      %bins = tile.iota : tensor<2048xi32>
      %zeroH = tile.splat %c0 : tensor<2048xi32>
      %noneH = tile.splat %cm1 : tensor<2048xi32>
      %sel:2 = scf.for %pass = %c0 to %c3 step %c1
          iter_args(%prefix = %c0, %rem = %k) -> (i32, i32) : i32 {
        // Digits of 11, 11 and 10 bits from the top, as topk_f32.
        %first = arith.cmpi eq, %pass, %c0 : i32
        %last = arith.cmpi eq, %pass, %c2 : i32
        %laterShift = arith.select %last, %c0, %c10 : i32
        %shift = arith.select %first, %c21, %laterShift : i32
        %digitMask = arith.select %last, %c1023, %c2047 : i32
        %width = arith.select %last, %c10, %c11 : i32
        %decided = arith.addi %shift, %width : i32
        %safeShift = arith.select %first, %c0, %decided : i32
        %hiBits = arith.shli %cm1, %safeShift : i32
        %hiMask = arith.select %first, %c0, %hiBits : i32
        %hiMaskT = tile.splat %hiMask : tensor<4096xi32>
        %prefixT = tile.splat %prefix : tensor<4096xi32>
        %shiftT = tile.splat %shift : tensor<4096xi32>
        %digitMaskT = tile.splat %digitMask : tensor<4096xi32>
        %hist = scf.for %j = %c0 to %count step %chunk
            iter_args(%h = %zeroH) -> (tensor<2048xi32>) : i32 {
          %jT = tile.splat %j : tensor<4096xi32>
          %slots = arith.addi %lane, %jT : tensor<4096xi32>
          %valid = arith.cmpi slt, %slots, %countT : tensor<4096xi32>
          %key = tile.load %cv[%j] mask %valid : tensor<4096xi32>
          %hi = arith.andi %key, %hiMaskT : tensor<4096xi32>
          %match = arith.cmpi eq, %hi, %prefixT : tensor<4096xi32>
          %counted = arith.andi %valid, %match : tensor<4096xi1>
          %sh = arith.shrui %key, %shiftT : tensor<4096xi32>
          %digit = arith.andi %sh, %digitMaskT : tensor<4096xi32>
          %hc = tile.histogram %digit mask %counted
              : tensor<4096xi32> -> tensor<2048xi32>
          %hn = arith.addi %h, %hc : tensor<2048xi32>
          scf.yield %hn : tensor<2048xi32>
        } {tile.load_ahead = 1 : i32}
        %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
        %remT = tile.splat %rem : tensor<2048xi32>
        %atLeast = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
        %choice = arith.select %atLeast, %bins, %noneH
            : tensor<2048xi1>, tensor<2048xi32>
        %d = tile.reduce max %choice along 0 : tensor<2048xi32>
        %dT = tile.splat %d : tensor<2048xi32>
        %above = arith.cmpi sgt, %bins, %dT : tensor<2048xi32>
        %aboveH = arith.select %above, %hist, %zeroH
            : tensor<2048xi1>, tensor<2048xi32>
        %skipped = tile.reduce add %aboveH along 0 : tensor<2048xi32>
        %dsh = arith.shli %d, %shift : i32
        %np = arith.ori %prefix, %dsh : i32
        %nr = arith.subi %rem, %skipped : i32
        scf.yield %np, %nr : i32, i32
      }
      // Slots: elements above the k-th key first, then the needed equal ones;
      // one scan counts both (low and high 16 bits: a chunk has < 2^16).
      %thrT = tile.splat %sel#0 : tensor<4096xi32>
      %needT = tile.splat %sel#1 : tensor<4096xi32>
      %aboveK = arith.subi %k, %sel#1 : i32
      %aboveT = tile.splat %aboveK : tensor<4096xi32>
      %low16T = tile.splat %low16 : tensor<4096xi32>
      %c16T = tile.splat %c16 : tensor<4096xi32>
      %signT = tile.splat %kmin : tensor<4096xi32>
      %l32T = tile.splat %l32 : tensor<4096xi64>
      %placed:2 = scf.for %j = %c0 to %count step %chunk
          iter_args(%gOff = %c0, %eOff = %c0) -> (i32, i32) : i32 {
        %jT = tile.splat %j : tensor<4096xi32>
        %slots = arith.addi %lane, %jT : tensor<4096xi32>
        %valid = arith.cmpi slt, %slots, %countT : tensor<4096xi32>
        %key = tile.load %cv[%j] mask %valid : tensor<4096xi32>
        %jCol = arith.addi %j, %cap : i32
        %cols = tile.load %cv[%jCol] mask %valid : tensor<4096xi32>
        %isAbove = arith.cmpi ugt, %key, %thrT : tensor<4096xi32>
        %gt = arith.andi %valid, %isAbove : tensor<4096xi1>
        %isEq = arith.cmpi eq, %key, %thrT : tensor<4096xi32>
        %eq = arith.andi %valid, %isEq : tensor<4096xi1>
        %g32 = arith.extui %gt : tensor<4096xi1> to tensor<4096xi32>
        %e32 = arith.extui %eq : tensor<4096xi1> to tensor<4096xi32>
        %eHigh = arith.shli %e32, %c16T : tensor<4096xi32>
        %both = arith.ori %g32, %eHigh : tensor<4096xi32>
        %before = tile.scan add %both along 0 exclusive : tensor<4096xi32>
        %gOffT = tile.splat %gOff : tensor<4096xi32>
        %eOffT = tile.splat %eOff : tensor<4096xi32>
        %lowBefore = arith.andi %before, %low16T : tensor<4096xi32>
        %gpos = arith.addi %lowBefore, %gOffT : tensor<4096xi32>
        %highBefore = arith.shrui %before, %c16T : tensor<4096xi32>
        %erank = arith.addi %highBefore, %eOffT : tensor<4096xi32>
        %wanted = arith.cmpi slt, %erank, %needT : tensor<4096xi32>
        %takeEq = arith.andi %eq, %wanted : tensor<4096xi1>
        %epos = arith.addi %erank, %aboveT : tensor<4096xi32>
        %pos = arith.select %gt, %gpos, %epos : tensor<4096xi1>, tensor<4096xi32>
        %take = arith.ori %gt, %takeEq : tensor<4096xi1>
        %skey = arith.xori %key, %signT : tensor<4096xi32>
        %skey64 = arith.extsi %skey : tensor<4096xi32> to tensor<4096xi64>
        %keyHigh = arith.shli %skey64, %l32T : tensor<4096xi64>
        %col64 = arith.extui %cols : tensor<4096xi32> to tensor<4096xi64>
        %packed = arith.ori %keyHigh, %col64 : tensor<4096xi64>
        tile.scatter_store %packed, %wv[%pos] mask %take
            : !tile.view<?xi64>[tensor<4096xi32>], tensor<4096xi64>
        %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32>
        %chunkGt = arith.andi %chunkCounts, %low16 : i32
        %chunkEq = arith.shrui %chunkCounts, %c16 : i32
        %ng = arith.addi %gOff, %chunkGt : i32
        %ne = arith.addi %eOff, %chunkEq : i32
        scf.yield %ng, %ne : i32, i32
      }
      // Read back as slots after the fence: the program's own stores.
      %back = scf.if %directOn -> (!slots2048) {
        tile.fence
        %wslots = tile.load %wv[0] pad -9223372036854775808 : !slots2048
        scf.yield %wslots : !slots2048
      } else {
        scf.yield %noSlots : !slots2048
      }
      scf.yield %back : !slots2048
    }
    scf.if %directOn {
      // Sorted; the key back to float bits (the mapping is its own
      // inverse), the column from the low word.
      %sorted = tile.sort %slots along 0 descending : !slots2048
      %c31S = tile.splat %c31 : !keys2048
      %c1S = tile.splat %c1 : !keys2048
      %sh = arith.shrui %sorted, %lkey : !slots2048
      %sk = arith.trunci %sh : !slots2048 to !keys2048
      %ksign = arith.shrsi %sk, %c31S : !keys2048
      %kmag = arith.shrui %ksign, %c1S : !keys2048
      %vbits = arith.xori %sk, %kmag : !keys2048
      %vals = arith.bitcast %vbits : !keys2048 to tensor<2048xf32>
      %ci = arith.trunci %sorted : !slots2048 to !keys2048
      %ci64 = arith.extui %ci : !keys2048 to !slots2048
      %valuesRow = tile.addptr %values, %wAt : !tile.ptr<f32>, i64
      %indicesRow = tile.addptr %indices, %wAt : !tile.ptr<i64>, i64
      %outV = tile.make_view %valuesRow[%k] strides[1] : !tile.view<?xf32>
      %outI = tile.make_view %indicesRow[%k] strides[1] : !tile.view<?xi64>
      tile.store %vals, %outV[0] : tensor<2048xf32>
      tile.store %ci64, %outI[0] : !slots2048
    }
  }
  return
}
