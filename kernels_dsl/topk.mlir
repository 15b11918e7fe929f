// Top-k of each row of a row-major (batch, n) fp32 matrix: the k largest
// values in descending order and their int64 column indices, with the
// contract of torch.topk(largest=True, sorted=True): NaN ranks above +inf.
// One program per row; any n, 1 <= k <= 2048.
//
// 1. Keys: each float maps to a uint32 whose unsigned order is the float
//    order (negatives flip every bit, positives the sign bit, NaN is all
//    ones).
// 2. Radix select, four 8-bit digits from the top: a histogram of the digit
//    over the elements that match the digits chosen so far, a reverse scan
//    of it, and the digit where the count from the top reaches the number
//    still wanted. The result is the k-th largest key `thr` and how many
//    elements equal to it are needed (`need`).
// 3. Collect: elements above `thr`, then the first `need` equal to it, are
//    compacted by a prefix sum into a tile of P >= k slots, which a bitonic
//    sort orders; the first k are stored. P is 64 for k <= 64 (the common
//    case; a short sort), 2048 otherwise.

func.func @topk_f32(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                    %indices: !tile.ptr<i64>, %batch: i32, %n: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c24 = arith.constant 24 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %cm1 = arith.constant -1 : i32
  %c255 = arith.constant 255 : i32
  %low16 = arith.constant 65535 : i32
  %kmin = arith.constant -2147483648 : i32
  %zerof = arith.constant 0.0 : f32
  %chunk = arith.constant 4096 : i32
  %row = tile.program_id x
  %total = arith.muli %batch, %n : i32
  %src = tile.make_view %x[%total] strides[%c1]
      : !tile.ptr<f32> -> !tile.view<?xf32>
  %rowStart = arith.muli %row, %n : i32
  %lane = tile.iota : tensor<4096xi32>
  %nT = tile.splat %n : tensor<4096xi32>
  %zeroT = tile.splat %c0 : tensor<4096xi32>
  %onesT = tile.splat %cm1 : tensor<4096xi32>
  %signT = tile.splat %kmin : tensor<4096xi32>
  %bins = tile.iota : tensor<256xi32>
  %zeroH = tile.splat %c0 : tensor<256xi32>
  %noneH = tile.splat %cm1 : tensor<256xi32>

  // 2. Radix select.
  %sel:2 = scf.for %pass = %c0 to %c4 step %c1
      iter_args(%prefix = %c0, %rem = %k) -> (i32, i32) : i32 {
    %p8 = arith.muli %pass, %c8 : i32
    %shift = arith.subi %c24, %p8 : i32
    // Bits decided by earlier passes: ~0 << (32 - 8 * pass), none at first.
    %first = arith.cmpi eq, %pass, %c0 : i32
    %hiShift = arith.subi %c32, %p8 : i32
    %safeShift = arith.select %first, %c0, %hiShift : i32
    %hiBits = arith.shli %cm1, %safeShift : i32
    %hiMask = arith.select %first, %c0, %hiBits : i32
    %hiMaskT = tile.splat %hiMask : tensor<4096xi32>
    %prefixT = tile.splat %prefix : tensor<4096xi32>
    %shiftT = tile.splat %shift : tensor<4096xi32>
    %c255T = tile.splat %c255 : tensor<4096xi32>
    %hist = scf.for %j = %c0 to %n step %chunk
        iter_args(%h = %zeroH) -> (tensor<256xi32>) : i32 {
      %jT = tile.splat %j : tensor<4096xi32>
      %cols = arith.addi %lane, %jT : tensor<4096xi32>
      %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
      %off = arith.addi %rowStart, %j : i32
      %t = tile.load %src[%off] mask %valid
          : !tile.view<?xf32> -> tensor<4096xf32>
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
          : tensor<4096xi32> -> tensor<256xi32>
      %hn = arith.addi %h, %hc : tensor<256xi32>
      scf.yield %hn : tensor<256xi32>
    }
    // Elements with this digit or a larger one, per digit.
    %fromTop = tile.scan add %hist along 0 reverse : tensor<256xi32>
    %remT = tile.splat %rem : tensor<256xi32>
    %enough = arith.cmpi sge, %fromTop, %remT : tensor<256xi32>
    %cand = arith.select %enough, %bins, %noneH
        : tensor<256xi1>, tensor<256xi32>
    %d = tile.reduce max %cand along 0 : tensor<256xi32> -> i32
    %dT = tile.splat %d : tensor<256xi32>
    %above = arith.cmpi sgt, %bins, %dT : tensor<256xi32>
    %aboveH = arith.select %above, %hist, %zeroH
        : tensor<256xi1>, tensor<256xi32>
    %skipped = tile.reduce add %aboveH along 0 : tensor<256xi32> -> i32
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
  %totalK = arith.muli %batch, %k : i32
  %outV = tile.make_view %values[%totalK] strides[%c1]
      : !tile.ptr<f32> -> !tile.view<?xf32>
  %outI = tile.make_view %indices[%totalK] strides[%c1]
      : !tile.ptr<i64> -> !tile.view<?xi64>
  %outOff = arith.muli %row, %k : i32
  %short = arith.cmpi sle, %k, %c64 : i32
  scf.if %short {
    %initK = tile.splat %kmin : tensor<64xi32>
    %initI = tile.splat %c0 : tensor<64xi32>
    %initV = tile.splat %zerof : tensor<64xf32>
    // Slots: elements above the threshold first, then the needed equal ones;
    // one scan counts both (low and high 16 bits: a chunk has < 2^16).
    %got:5 = scf.for %j = %c0 to %n step %chunk
        iter_args(%gOff = %c0, %eOff = %c0, %ak = %initK, %ai = %initI, %av = %initV)
        -> (i32, i32, tensor<64xi32>, tensor<64xi32>, tensor<64xf32>) : i32 {
        %jT = tile.splat %j : tensor<4096xi32>
        %cols = arith.addi %lane, %jT : tensor<4096xi32>
        %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
        %off = arith.addi %rowStart, %j : i32
        %t = tile.load %src[%off] mask %valid
            : !tile.view<?xf32> -> tensor<4096xf32>
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
      %nv = tile.scatter %t into %av[%pos] mask %take
          : tensor<4096xf32>, tensor<4096xi32> -> tensor<64xf32>
      %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32> -> i32
      %chunkGt = arith.andi %chunkCounts, %low16 : i32
      %chunkEq = arith.shrui %chunkCounts, %c16 : i32
      %ng = arith.addi %gOff, %chunkGt : i32
      %ne = arith.addi %eOff, %chunkEq : i32
      scf.yield %ng, %ne, %nk, %ni, %nv
          : i32, i32, tensor<64xi32>, tensor<64xi32>, tensor<64xf32>
    }
    // Signed order of the flipped keys is the float order.
    %sk, %si, %sv = tile.sort %got#2, %got#3, %got#4 along 0 descending
        : tensor<64xi32>, tensor<64xi32>, tensor<64xf32>
    %slot = tile.iota : tensor<64xi32>
    %kT = tile.splat %k : tensor<64xi32>
    %keep = arith.cmpi slt, %slot, %kT : tensor<64xi32>
    %si64 = arith.extui %si : tensor<64xi32> to tensor<64xi64>
    tile.store %sv, %outV[%outOff] mask %keep : tensor<64xf32>, !tile.view<?xf32>
    tile.store %si64, %outI[%outOff] mask %keep : tensor<64xi64>, !tile.view<?xi64>
  } else {
    %initK = tile.splat %kmin : tensor<2048xi32>
    %initI = tile.splat %c0 : tensor<2048xi32>
    %initV = tile.splat %zerof : tensor<2048xf32>
    // Slots: elements above the threshold first, then the needed equal ones;
    // one scan counts both (low and high 16 bits: a chunk has < 2^16).
    %got:5 = scf.for %j = %c0 to %n step %chunk
        iter_args(%gOff = %c0, %eOff = %c0, %ak = %initK, %ai = %initI, %av = %initV)
        -> (i32, i32, tensor<2048xi32>, tensor<2048xi32>, tensor<2048xf32>) : i32 {
        %jT = tile.splat %j : tensor<4096xi32>
        %cols = arith.addi %lane, %jT : tensor<4096xi32>
        %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
        %off = arith.addi %rowStart, %j : i32
        %t = tile.load %src[%off] mask %valid
            : !tile.view<?xf32> -> tensor<4096xf32>
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
      %nv = tile.scatter %t into %av[%pos] mask %take
          : tensor<4096xf32>, tensor<4096xi32> -> tensor<2048xf32>
      %chunkCounts = tile.reduce add %both along 0 : tensor<4096xi32> -> i32
      %chunkGt = arith.andi %chunkCounts, %low16 : i32
      %chunkEq = arith.shrui %chunkCounts, %c16 : i32
      %ng = arith.addi %gOff, %chunkGt : i32
      %ne = arith.addi %eOff, %chunkEq : i32
      scf.yield %ng, %ne, %nk, %ni, %nv
          : i32, i32, tensor<2048xi32>, tensor<2048xi32>, tensor<2048xf32>
    }
    // Signed order of the flipped keys is the float order.
    %sk, %si, %sv = tile.sort %got#2, %got#3, %got#4 along 0 descending
        : tensor<2048xi32>, tensor<2048xi32>, tensor<2048xf32>
    %slot = tile.iota : tensor<2048xi32>
    %kT = tile.splat %k : tensor<2048xi32>
    %keep = arith.cmpi slt, %slot, %kT : tensor<2048xi32>
    %si64 = arith.extui %si : tensor<2048xi32> to tensor<2048xi64>
    tile.store %sv, %outV[%outOff] mask %keep : tensor<2048xf32>, !tile.view<?xf32>
    tile.store %si64, %outI[%outOff] mask %keep : tensor<2048xi64>, !tile.view<?xi64>
  }
  return
}

// The same contract for k <= 64, with a row split into parts of 4096
// columns: program (row, part) keeps its part in registers and finds the
// part's top-k candidates; a row of one part writes its result directly,
// otherwise each part stores its candidates to `work` and takes a ticket,
// and the last part of the row to arrive selects the final top-k from the
// parts * k <= 4096 candidates. The runtime supplies `work` (batch * 4096)
// and `tickets` (batch, zero before the first call);
// the last part sets its row's ticket back to zero.
//
// Elements travel as i64 (signed-order key << 32 | column), so one scatter
// and one single-key sort move key and index together. The k-th key is
// found with three 11/11/10-bit digit histograms, stopping early once the
// chosen bucket is taken whole; k = 1 is a single max reduction.

func.func @topk_split_f32(%x: !tile.ptr<f32>, %values: !tile.ptr<f32>,
                          %indices: !tile.ptr<i64>, %work: !tile.ptr<i64>,
                          %tickets: !tile.ptr<i32>, %batch: i32, %n: i32,
                          %k: i32, %parts: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c10 = arith.constant 10 : i32
  %c16 = arith.constant 16 : i32
  %c21 = arith.constant 21 : i32
  %cm1 = arith.constant -1 : i32
  %c1023 = arith.constant 1023 : i32
  %c2047 = arith.constant 2047 : i32
  %low16 = arith.constant 65535 : i32
  %kmin = arith.constant -2147483648 : i32
  %partLen = arith.constant 4096 : i32
  %true = arith.constant true
  %false = arith.constant false
  %l20 = arith.constant 20 : i64
  %l32 = arith.constant 32 : i64
  %l40 = arith.constant 40 : i64
  %lm1 = arith.constant -1 : i64
  %low20 = arith.constant 1048575 : i64
  %lmin = arith.constant -9223372036854775808 : i64

  %row = tile.program_id x
  %part = tile.program_id y
  %total = arith.muli %batch, %n : i32
  %src = tile.make_view %x[%total] strides[%c1]
      : !tile.ptr<f32> -> !tile.view<?xf32>
  %lane = tile.iota : tensor<4096xi32>
  %zeroT = tile.splat %c0 : tensor<4096xi32>
  %onesT = tile.splat %cm1 : tensor<4096xi32>
  %signT = tile.splat %kmin : tensor<4096xi32>
  %l32T = tile.splat %l32 : tensor<4096xi64>
  %minT = tile.splat %lmin : tensor<4096xi64>

  // Keys of this part; columns past the row get key 0, below every float
  // (-inf is 0x007FFFFF).
  %base = arith.muli %part, %partLen : i32
  %baseT = tile.splat %base : tensor<4096xi32>
  %cols = arith.addi %lane, %baseT : tensor<4096xi32>
  %nT = tile.splat %n : tensor<4096xi32>
  %valid = arith.cmpi slt, %cols, %nT : tensor<4096xi32>
  %rowStart = arith.muli %row, %n : i32
  %off = arith.addi %rowStart, %base : i32
  %t = tile.load %src[%off] mask %valid
      : !tile.view<?xf32> -> tensor<4096xf32>
  %bits = arith.bitcast %t : tensor<4096xf32> to tensor<4096xi32>
  %neg = arith.cmpi slt, %bits, %zeroT : tensor<4096xi32>
  %flip = arith.select %neg, %onesT, %signT : tensor<4096xi1>, tensor<4096xi32>
  %ordered = arith.xori %bits, %flip : tensor<4096xi32>
  %nan = arith.cmpf uno, %t, %t : tensor<4096xf32>
  %keyN = arith.select %nan, %onesT, %ordered
      : tensor<4096xi1>, tensor<4096xi32>
  %key0 = arith.select %valid, %keyN, %zeroT
      : tensor<4096xi1>, tensor<4096xi32>
  %skey0 = arith.xori %key0, %signT : tensor<4096xi32>
  %skey64 = arith.extsi %skey0 : tensor<4096xi32> to tensor<4096xi64>
  %keyHigh = arith.shli %skey64, %l32T : tensor<4096xi64>
  %col64 = arith.extui %cols : tensor<4096xi32> to tensor<4096xi64>
  %packed = arith.ori %keyHigh, %col64 : tensor<4096xi64>

  %single = arith.cmpi eq, %parts, %c1 : i32
  %isK1 = arith.cmpi eq, %k, %c1 : i32
  %slot = tile.iota : tensor<64xi32>
  %slotZero = tile.splat %c0 : tensor<64xi32>
  %kT64 = tile.splat %k : tensor<64xi32>
  %keep = arith.cmpi slt, %slot, %kT64 : tensor<64xi32>
  %emptySlots = tile.splat %lmin : tensor<64xi64>
  %bins = tile.iota : tensor<2048xi32>
  %bins64 = arith.extui %bins : tensor<2048xi32> to tensor<2048xi64>
  %l40H = tile.splat %l40 : tensor<2048xi64>
  %l20H = tile.splat %l20 : tensor<2048xi64>
  %noneH = tile.splat %lm1 : tensor<2048xi64>
  %binField = arith.shli %bins64, %l40H : tensor<2048xi64>

  // Stage 0 selects among the part's elements, stage 1 (last part only)
  // among the candidates of all parts.
  %done:2 = scf.for %stage = %c0 to %c2 step %c1
      iter_args(%cur = %packed, %live = %true) -> (tensor<4096xi64>, i1) : i32 {
    %next:2 = scf.if %live -> (tensor<4096xi64>, i1) {
      %hk = arith.shrui %cur, %l32T : tensor<4096xi64>
      %hk32 = arith.trunci %hk : tensor<4096xi64> to tensor<4096xi32>
      %key = arith.xori %hk32, %signT : tensor<4096xi32>
      %cand = scf.if %isK1 -> (tensor<64xi64>) {
        %best = tile.reduce max %cur along 0 : tensor<4096xi64> -> i64
        %bestT = tile.splat %best : tensor<64xi64>
        %first = arith.cmpi eq, %slot, %slotZero : tensor<64xi32>
        %one = arith.select %first, %bestT, %emptySlots
            : tensor<64xi1>, tensor<64xi64>
        scf.yield %one : tensor<64xi64>
      } else {
        // Radix select: the k-th largest key lies in bucket `prefix` of
        // the decided bits `mask`; `rem` of the bucket's elements are
        // wanted.
        %sel:4 = scf.for %pass = %c0 to %c3 step %c1
            iter_args(%prefix = %c0, %mask = %c0, %rem = %k, %go = %true)
            -> (i32, i32, i32, i1) : i32 {
          %o:4 = scf.if %go -> (i32, i32, i32, i1) {
            %p0 = arith.cmpi eq, %pass, %c0 : i32
            %p2 = arith.cmpi eq, %pass, %c2 : i32
            %s12 = arith.select %p2, %c0, %c10 : i32
            %shift = arith.select %p0, %c21, %s12 : i32
            %dmask = arith.select %p2, %c1023, %c2047 : i32
            %maskT = tile.splat %mask : tensor<4096xi32>
            %prefixT = tile.splat %prefix : tensor<4096xi32>
            %shiftT = tile.splat %shift : tensor<4096xi32>
            %dmaskT = tile.splat %dmask : tensor<4096xi32>
            %hi = arith.andi %key, %maskT : tensor<4096xi32>
            %match = arith.cmpi eq, %hi, %prefixT : tensor<4096xi32>
            %sh = arith.shrui %key, %shiftT : tensor<4096xi32>
            %digit = arith.andi %sh, %dmaskT : tensor<4096xi32>
            %hist = tile.histogram %digit mask %match
                : tensor<4096xi32> -> tensor<2048xi32>
            // The bucket where the count from the top reaches `rem`.
            %fromTop = tile.scan add %hist along 0 reverse : tensor<2048xi32>
            %above = arith.subi %fromTop, %hist : tensor<2048xi32>
            %remT = tile.splat %rem : tensor<2048xi32>
            %under = arith.cmpi slt, %above, %remT : tensor<2048xi32>
            %reach = arith.cmpi sge, %fromTop, %remT : tensor<2048xi32>
            %hit = arith.andi %under, %reach : tensor<2048xi1>
            // One reduction finds the bucket, what remains wanted in it
            // and its size: bin << 40 | rem' << 20 | count.
            %nr = arith.subi %remT, %above : tensor<2048xi32>
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
        // Collect: elements above the bucket, then the first `need` in it,
        // into slots [0, k); one scan counts both (low and high 16 bits).
        %maskT = tile.splat %sel#1 : tensor<4096xi32>
        %prefixT = tile.splat %sel#0 : tensor<4096xi32>
        %needT = tile.splat %sel#2 : tensor<4096xi32>
        %aboveN = arith.subi %k, %sel#2 : i32
        %aboveT = tile.splat %aboveN : tensor<4096xi32>
        %low16T = tile.splat %low16 : tensor<4096xi32>
        %c16T = tile.splat %c16 : tensor<4096xi32>
        %hi = arith.andi %key, %maskT : tensor<4096xi32>
        %gt = arith.cmpi ugt, %hi, %prefixT : tensor<4096xi32>
        %eq = arith.cmpi eq, %hi, %prefixT : tensor<4096xi32>
        %g32 = arith.extui %gt : tensor<4096xi1> to tensor<4096xi32>
        %e32 = arith.extui %eq : tensor<4096xi1> to tensor<4096xi32>
        %eHigh = arith.shli %e32, %c16T : tensor<4096xi32>
        %both = arith.ori %g32, %eHigh : tensor<4096xi32>
        %before = tile.scan add %both along 0 exclusive : tensor<4096xi32>
        %gpos = arith.andi %before, %low16T : tensor<4096xi32>
        %erank = arith.shrui %before, %c16T : tensor<4096xi32>
        %wanted = arith.cmpi slt, %erank, %needT : tensor<4096xi32>
        %takeEq = arith.andi %eq, %wanted : tensor<4096xi1>
        %epos = arith.addi %erank, %aboveT : tensor<4096xi32>
        %pos = arith.select %gt, %gpos, %epos : tensor<4096xi1>, tensor<4096xi32>
        %take = arith.ori %gt, %takeEq : tensor<4096xi1>
        %got = tile.scatter %cur into %emptySlots[%pos] mask %take
            : tensor<4096xi64>, tensor<4096xi32> -> tensor<64xi64>
        scf.yield %got : tensor<64xi64>
      }
      %lastStage = arith.cmpi eq, %stage, %c1 : i32
      %final = arith.ori %single, %lastStage : i1
      %r:2 = scf.if %final -> (tensor<4096xi64>, i1) {
        %sorted = scf.if %isK1 -> (tensor<64xi64>) {
          scf.yield %cand : tensor<64xi64>
        } else {
          %s = tile.sort %cand along 0 descending : tensor<64xi64>
          scf.yield %s : tensor<64xi64>
        }
        // Key back to float bits: keys with the top bit set were positive.
        %l32S = tile.splat %l32 : tensor<64xi64>
        %signS = tile.splat %kmin : tensor<64xi32>
        %onesS = tile.splat %cm1 : tensor<64xi32>
        %zeroS = tile.splat %c0 : tensor<64xi32>
        %sh = arith.shrui %sorted, %l32S : tensor<64xi64>
        %sk = arith.trunci %sh : tensor<64xi64> to tensor<64xi32>
        %uk = arith.xori %sk, %signS : tensor<64xi32>
        %positive = arith.cmpi slt, %uk, %zeroS : tensor<64xi32>
        %undo = arith.select %positive, %signS, %onesS
            : tensor<64xi1>, tensor<64xi32>
        %vbits = arith.xori %uk, %undo : tensor<64xi32>
        %v = arith.bitcast %vbits : tensor<64xi32> to tensor<64xf32>
        %c32 = arith.trunci %sorted : tensor<64xi64> to tensor<64xi32>
        %i64 = arith.extui %c32 : tensor<64xi32> to tensor<64xi64>
        %totalK = arith.muli %batch, %k : i32
        %outV = tile.make_view %values[%totalK] strides[%c1]
            : !tile.ptr<f32> -> !tile.view<?xf32>
        %outI = tile.make_view %indices[%totalK] strides[%c1]
            : !tile.ptr<i64> -> !tile.view<?xi64>
        %outOff = arith.muli %row, %k : i32
        tile.store %v, %outV[%outOff] mask %keep
            : tensor<64xf32>, !tile.view<?xf32>
        tile.store %i64, %outI[%outOff] mask %keep
            : tensor<64xi64>, !tile.view<?xi64>
        scf.yield %cur, %false : tensor<4096xi64>, i1
      } else {
        // Hand the candidates over; the last part of the row goes on. Rows
        // are 4096 slots apart, so no cache sector holds two rows' slots
        // (one row's last part must not cache another's before it is
        // written).
        %perRow = arith.muli %parts, %k : i32
        %workLen = arith.muli %batch, %partLen : i32
        %wv = tile.make_view %work[%workLen] strides[%c1]
            : !tile.ptr<i64> -> !tile.view<?xi64>
        %rowWork = arith.muli %row, %partLen : i32
        %partWork = arith.muli %part, %k : i32
        %wOff = arith.addi %rowWork, %partWork : i32
        tile.store %cand, %wv[%wOff] mask %keep
            : tensor<64xi64>, !tile.view<?xi64>
        tile.fence
        %tv = tile.make_view %tickets[%batch] strides[%c1]
            : !tile.ptr<i32> -> !tile.view<?xi32>
        %at = tile.splat %row : tensor<1xi32>
        %one = tile.splat %c1 : tensor<1xi32>
        %old = tile.atomic add %tv[%at], %one
            : !tile.view<?xi32>[tensor<1xi32>], tensor<1xi32>
        %ticket = tile.reduce max %old along 0 : tensor<1xi32> -> i32
        %lastPart = arith.subi %parts, %c1 : i32
        %isLast = arith.cmpi eq, %ticket, %lastPart : i32
        %h:2 = scf.if %isLast -> (tensor<4096xi64>, i1) {
          tile.fence
          %zero1 = tile.splat %c0 : tensor<1xi32>
          tile.store %zero1, %tv[%row] : tensor<1xi32>, !tile.view<?xi32>
          %perRowT = tile.splat %perRow : tensor<4096xi32>
          %inRow = arith.cmpi slt, %lane, %perRowT : tensor<4096xi32>
          // Slots past the row's candidates (never written in this call)
          // are replaced below.
          %all = tile.load %wv[%rowWork]
              : !tile.view<?xi64> -> tensor<4096xi64>
          %padded = arith.select %inRow, %all, %minT
              : tensor<4096xi1>, tensor<4096xi64>
          scf.yield %padded, %true : tensor<4096xi64>, i1
        } else {
          scf.yield %cur, %false : tensor<4096xi64>, i1
        }
        scf.yield %h#0, %h#1 : tensor<4096xi64>, i1
      }
      scf.yield %r#0, %r#1 : tensor<4096xi64>, i1
    } else {
      scf.yield %cur, %false : tensor<4096xi64>, i1
    }
    scf.yield %next#0, %next#1 : tensor<4096xi64>, i1
  }
  return
}
