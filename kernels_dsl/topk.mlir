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
