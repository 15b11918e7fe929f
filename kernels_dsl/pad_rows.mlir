// Copies a row-major matrix of `rows` rows of `cols` bytes, rows
// `src_stride` bytes apart, into rows of `padded` bytes (zeros past
// `cols`), rows `padded` bytes apart.
//
// The GEMM entry point pads its operands when their rows are not 16-byte
// aligned (K = 4127): tensor cores then read the padded copies through TMA,
// which is far faster than element loads inside the GEMM's K loop, and the
// zero columns add nothing to the products. It launches @pad_rows_pair
// below (both operands at once); @pad_rows, one operand a byte per thread,
// is the baseline bench/pad_rows_variants.py times it against. Program (r, c) of a grid of
// (ceil(rows / 4), ceil(padded / 1024)) copies the 4 x 1024-byte tile at
// (4 r, 1024 c); the loads past `cols` read the padding zeros.
//
// One byte per thread along the rows: a warp's load reads 32 consecutive
// bytes however the row is aligned. With 16 bytes per thread (the default
// layout), which an unaligned row cannot load as one vector, each of a
// thread's 16 byte loads touched 16 sectors per warp: 4-6% slower on the
// GEMM's operands (bench/pad_rows_variants.py at 02248f2, bench/RESULTS.md).
#bytes = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [4, 2],
                       order = [1, 0]>
func.func @pad_rows(%src: !tile.ptr<i8>, %dst: !tile.ptr<i8>, %rows: i32,
                    %cols: i32, %src_stride: i32, %padded: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c4 = arith.constant 4 : i32
  %c1024 = arith.constant 1024 : i32
  %rb = tile.program_id x
  %cb = tile.program_id y
  %row = arith.muli %rb, %c4 : i32
  %col = arith.muli %cb, %c1024 : i32
  %in = tile.make_view %src[%rows, %cols] strides[%src_stride, 1]
      : !tile.view<?x?xi8>
  %out = tile.make_view %dst[%rows, %padded] strides[%padded, 1]
      : !tile.view<?x?xi8>
  %t = tile.load %in[%row, %col] pad 0 : tensor<4x1024xi8, #bytes>
  tile.store %t, %out[%row, %col] : tensor<4x1024xi8, #bytes>
  return
}

// Both GEMM operands in one launch, a 32-bit word per thread: a grid of
// (ceil(rows0 / 4) + ceil(rows1 / 4), ceil(padded / 1024)) programs, the
// first ones copying operand 0 and the rest operand 1, each a 4 x 1024-byte
// tile as above.
//
// Each operand comes as `bytes` (its first byte) and `words`, that address
// rounded down to 4 bytes (never before the buffer: allocations are
// aligned), `shift` = bytes - words. Destination word j of a row is the
// funnel shift of the source words holding its 4 bytes (the second only
// when the bytes reach into it), masked to zero past `cols`; words past the
// row read nothing (index -1). A word read may reach 3 bytes past a needed
// byte, which belong to the following rows except near the operand's end:
// the program holding the last rows (those with fewer than 3 bytes of the
// operand after them) assembles its words from byte loads instead. Each program's views start at its first
// row (64-bit pointer arithmetic), so indices stay small.
#words = #tile.blocked<size = [1, 1], threads = [1, 32], warps = [4, 2],
                       order = [1, 0]>
#wrow = #tile.slice<dim = 1, parent = #words>
#wcol = #tile.slice<dim = 0, parent = #words>
func.func @pad_rows_pair(%bytes0: !tile.ptr<i8>, %words0: !tile.ptr<i32>,
                         %shift0: i32, %dst0: !tile.ptr<i32>, %rows0: i32,
                         %bytes1: !tile.ptr<i8>, %words1: !tile.ptr<i32>,
                         %shift1: i32, %dst1: !tile.ptr<i32>, %rows1: i32,
                         %cols: i32, %src_stride: i32, %padded: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c8 = arith.constant 8 : i32
  %c32 = arith.constant 32 : i32
  %c256 = arith.constant 256 : i32
  %c512 = arith.constant 512 : i32
  %cm1 = arith.constant -1 : i32
  %true = arith.constant true
  %c2w = arith.constant 2 : i64
  %rb = tile.program_id x
  %cb = tile.program_id y
  %rows0p3 = arith.addi %rows0, %c3 : i32
  %blocks0 = arith.divui %rows0p3, %c4 : i32
  %first = arith.cmpi ult, %rb, %blocks0 : i32
  %op:6 = scf.if %first -> (!tile.ptr<i8>, !tile.ptr<i32>, i32,
                            !tile.ptr<i32>, i32, i32) {
    scf.yield %bytes0, %words0, %shift0, %dst0, %rows0, %rb
        : !tile.ptr<i8>, !tile.ptr<i32>, i32, !tile.ptr<i32>, i32, i32
  } else {
    %rb1 = arith.subi %rb, %blocks0 : i32
    scf.yield %bytes1, %words1, %shift1, %dst1, %rows1, %rb1
        : !tile.ptr<i8>, !tile.ptr<i32>, i32, !tile.ptr<i32>, i32, i32
  }
  %row0 = arith.muli %op#5, %c4 : i32
  %left = arith.subi %op#4, %row0 : i32
  %wc = arith.muli %cb, %c256 : i32
  // The program's first source row starts `at` bytes past `words`, `lead`
  // bytes into the word `src` points at.
  %row64 = arith.extui %row0 : i32 to i64
  %stride64 = arith.extui %src_stride : i32 to i64
  %shift64 = arith.extui %op#2 : i32 to i64
  %rowBytes = arith.muli %row64, %stride64 : i64
  %at = arith.addi %rowBytes, %shift64 : i64
  %atWord = arith.shrui %at, %c2w : i64
  %src = tile.addptr %op#1, %atWord : !tile.ptr<i32>, i64
  %atLow = arith.trunci %at : i64 to i32
  %lead = arith.andi %atLow, %c3 : i32
  %pw = arith.divui %padded, %c4 : i32
  %pw64 = arith.extui %pw : i32 to i64
  %dstAt = arith.muli %row64, %pw64 : i64
  %dst = tile.addptr %op#3, %dstAt : !tile.ptr<i32>, i64
  %dv = tile.make_view %dst[%left, %pw] strides[%pw, 1] : !tile.view<?x?xi32>

  // Byte position p (from `src`) of every destination word's first byte.
  %ri = tile.iota : tensor<4xi32, #wrow>
  %re = tile.expand_dims %ri at 1 : tensor<4xi32, #wrow> -> tensor<4x1xi32, #words>
  %r = tile.broadcast %re : tensor<4x1xi32, #words> -> tensor<4x256xi32, #words>
  %ji = tile.iota : tensor<256xi32, #wcol>
  %je = tile.expand_dims %ji at 0 : tensor<256xi32, #wcol> -> tensor<1x256xi32, #words>
  %jb = tile.broadcast %je : tensor<1x256xi32, #words> -> tensor<4x256xi32, #words>
  %wcT = tile.splat %wc : tensor<4x256xi32, #words>
  %j = arith.addi %jb, %wcT : tensor<4x256xi32, #words>
  %c4T = tile.splat %c4 : tensor<4x256xi32, #words>
  %col = arith.muli %j, %c4T : tensor<4x256xi32, #words>
  %strideT = tile.splat %src_stride : tensor<4x256xi32, #words>
  %rowAt = arith.muli %r, %strideT : tensor<4x256xi32, #words>
  %leadT = tile.splat %lead : tensor<4x256xi32, #words>
  %rowLead = arith.addi %rowAt, %leadT : tensor<4x256xi32, #words>
  %p = arith.addi %rowLead, %col : tensor<4x256xi32, #words>
  %c2T = tile.splat %c2 : tensor<4x256xi32, #words>
  %q = arith.shrui %p, %c2T : tensor<4x256xi32, #words>
  // Words at or past the row's end, and rows past the operand, read none.
  %colsT = tile.splat %cols : tensor<4x256xi32, #words>
  %inRow = arith.cmpi slt, %col, %colsT : tensor<4x256xi32, #words>
  %leftT = tile.splat %left : tensor<4x256xi32, #words>
  %isRow = arith.cmpi slt, %r, %leftT : tensor<4x256xi32, #words>
  %use = arith.andi %inRow, %isRow : tensor<4x256xi1, #words>
  %m1T = tile.splat %cm1 : tensor<4x256xi32, #words>
  %c1T = tile.splat %c1 : tensor<4x256xi32, #words>
  // Whole words reach at most 3 bytes past a needed byte: the program's
  // rows must be followed by 3 more bytes of the operand ((left - 4) ·
  // stride >= 3), else it takes the byte path.
  %c7 = arith.constant 7 : i32
  %after = arith.cmpi sgt, %left, %c4 : i32
  %wide = arith.cmpi sge, %src_stride, %c3 : i32
  %many = arith.cmpi sge, %left, %c7 : i32
  %enough = arith.ori %wide, %many : i1
  %wordsOk = arith.andi %after, %enough : i1
  %lastRows = arith.xori %wordsOk, %true : i1
  %w:2 = scf.if %lastRows
      -> (tensor<4x256xi32, #words>, tensor<4x256xi32, #words>) {
    // Byte k of the pair (q, q + 1) is byte 4q + k - lead of the rows'
    // exact bytes; before them (index < 0) and past the last row's `cols`
    // bytes read zero.
    %sb = tile.addptr %op#0, %rowBytes : !tile.ptr<i8>, i64
    %leftM1 = arith.subi %left, %c1 : i32
    %spanRows = arith.muli %leftM1, %src_stride : i32
    %span = arith.addi %spanRows, %cols : i32
    %bv = tile.make_view %sb[%span] strides[1] : !tile.view<?xi8>
    %q4 = arith.muli %q, %c4T : tensor<4x256xi32, #words>
    %base = arith.subi %q4, %leadT : tensor<4x256xi32, #words>
    %zero = arith.constant dense<0> : tensor<4x256xi32, #words>
    %ws:2 = scf.for %k = %c0 to %c8 step %c1
        iter_args(%lo = %zero, %hi = %zero)
        -> (tensor<4x256xi32, #words>, tensor<4x256xi32, #words>) : i32 {
      %kT = tile.splat %k : tensor<4x256xi32, #words>
      %bk = arith.addi %base, %kT : tensor<4x256xi32, #words>
      %bi = arith.select %use, %bk, %m1T
          : tensor<4x256xi1, #words>, tensor<4x256xi32, #words>
      %v8 = tile.gather %bv[%bi] : !tile.view<?xi8>,
          tensor<4x256xi32, #words> -> tensor<4x256xi8, #words>
      %v32 = arith.extui %v8
          : tensor<4x256xi8, #words> to tensor<4x256xi32, #words>
      %k4 = arith.remui %k, %c4 : i32
      %k8 = arith.muli %k4, %c8 : i32
      %k8T = tile.splat %k8 : tensor<4x256xi32, #words>
      %placed = arith.shli %v32, %k8T : tensor<4x256xi32, #words>
      %upper = arith.cmpi uge, %k, %c4 : i32
      %nx:2 = scf.if %upper
          -> (tensor<4x256xi32, #words>, tensor<4x256xi32, #words>) {
        %hi2 = arith.ori %hi, %placed : tensor<4x256xi32, #words>
        scf.yield %lo, %hi2 : tensor<4x256xi32, #words>, tensor<4x256xi32, #words>
      } else {
        %lo2 = arith.ori %lo, %placed : tensor<4x256xi32, #words>
        scf.yield %lo2, %hi : tensor<4x256xi32, #words>, tensor<4x256xi32, #words>
      }
      scf.yield %nx#0, %nx#1 : tensor<4x256xi32, #words>, tensor<4x256xi32, #words>
    }
    scf.yield %ws#0, %ws#1 : tensor<4x256xi32, #words>, tensor<4x256xi32, #words>
  } else {
    %ext0 = arith.addi %src_stride, %pw : i32
    %ext = arith.addi %ext0, %c512 : i32
    %sv = tile.make_view %src[%ext] strides[1] : !tile.view<?xi32>
    %qa = arith.select %use, %q, %m1T
        : tensor<4x256xi1, #words>, tensor<4x256xi32, #words>
    // The second word only where the needed bytes reach into it.
    %c3T1 = tile.splat %c3 : tensor<4x256xi32, #words>
    %pIn = arith.andi %p, %c3T1 : tensor<4x256xi32, #words>
    %remW = arith.subi %colsT, %col : tensor<4x256xi32, #words>
    %need = arith.minsi %remW, %c4T : tensor<4x256xi32, #words>
    %reach = arith.addi %pIn, %need : tensor<4x256xi32, #words>
    %crosses = arith.cmpi sgt, %reach, %c4T : tensor<4x256xi32, #words>
    %useB = arith.andi %use, %crosses : tensor<4x256xi1, #words>
    %qn = arith.addi %q, %c1T : tensor<4x256xi32, #words>
    %qb = arith.select %useB, %qn, %m1T
        : tensor<4x256xi1, #words>, tensor<4x256xi32, #words>
    %a = tile.gather %sv[%qa] : !tile.view<?xi32>,
        tensor<4x256xi32, #words> -> tensor<4x256xi32, #words>
    %b = tile.gather %sv[%qb] : !tile.view<?xi32>,
        tensor<4x256xi32, #words> -> tensor<4x256xi32, #words>
    scf.yield %a, %b : tensor<4x256xi32, #words>, tensor<4x256xi32, #words>
  }
  // Bytes [p, p + 4) out of the words q and q + 1.
  %c3T = tile.splat %c3 : tensor<4x256xi32, #words>
  %pLow = arith.andi %p, %c3T : tensor<4x256xi32, #words>
  %c8T = tile.splat %c8 : tensor<4x256xi32, #words>
  %sh = arith.muli %pLow, %c8T : tensor<4x256xi32, #words>
  %c32T = tile.splat %c32 : tensor<4x256xi32, #words>
  %shUp = arith.subi %c32T, %sh : tensor<4x256xi32, #words>
  %low = arith.shrui %w#0, %sh : tensor<4x256xi32, #words>
  %high = arith.shli %w#1, %shUp : tensor<4x256xi32, #words>
  %zT = tile.splat %c0 : tensor<4x256xi32, #words>
  %aligned = arith.cmpi eq, %sh, %zT : tensor<4x256xi32, #words>
  %highOk = arith.select %aligned, %zT, %high
      : tensor<4x256xi1, #words>, tensor<4x256xi32, #words>
  %word = arith.ori %low, %highOk : tensor<4x256xi32, #words>
  // Zeros past `cols` in the row's last word.
  %rem = arith.subi %colsT, %col : tensor<4x256xi32, #words>
  %full = arith.cmpi sge, %rem, %c4T : tensor<4x256xi32, #words>
  %remPos = arith.maxsi %rem, %zT : tensor<4x256xi32, #words>
  %remBits = arith.muli %remPos, %c8T : tensor<4x256xi32, #words>
  %bit = arith.shli %c1T, %remBits : tensor<4x256xi32, #words>
  %partMask = arith.subi %bit, %c1T : tensor<4x256xi32, #words>
  %keep = arith.select %full, %m1T, %partMask
      : tensor<4x256xi1, #words>, tensor<4x256xi32, #words>
  %out = arith.andi %word, %keep : tensor<4x256xi32, #words>
  tile.store %out, %dv[0, %wc] : tensor<4x256xi32, #words>
  return
}
