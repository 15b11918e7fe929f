//===- ScanLowering.cpp - prefix combines along a tile dimension ---------===//
//
// Along the scanned dimension a thread holds `reps` runs of `size`
// consecutive elements; lanes and then warps tile each run, and runs repeat
// every CTA coverage. Each run is scanned in the thread, the run totals are
// scanned across lanes with shfl.up (shfl.down when reversed), and the
// per-(run, warp) totals meet in shared scratch, where every thread combines
// the totals that precede its own. A tile narrower than the CTA along the
// dimension is scanned as independent segments, one per set of replicas.
// The scan's `total` (the combine of the whole line) is what every thread
// sums from those same totals, or the last lane's when one warp holds the
// line: no scratch or barrier beyond the scan's own.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"
#include "passes/SharedMemory.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

Value icmp(OpBuilder &b, Location loc, LLVM::ICmpPredicate pred, Value lhs,
           int64_t rhs) {
  return LLVM::ICmpOp::create(b, loc, pred, lhs, i32Const(b, loc, rhs));
}

struct ScanLowering : public OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    FailureOr<Distribution> dist = getLaidOutDistribution(op, srcType);
    if (failed(dist))
      return failure();
    unsigned dim = op.getDim();
    unsigned bd = dist->tileDims[dim];
    if (srcType.getElementType().isInteger(1))
      return op.emitOpError("scans of i1 tiles are not supported; extend "
                            "to i32 first");

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    CombineKind kind = op.getKind();
    bool reverse = op.getReverse();
    ValueRange values = adaptor.getSrc();
    Type type = values.front().getType();
    BlockedLayoutAttr blocked = dist->blocked;
    int64_t size = blocked.getSizePerThread()[bd];
    int64_t reps = dist->perThread[bd] / size;
    int64_t lanes = blocked.getThreadsPerWarp()[bd];
    int64_t warps = blocked.getWarpsPerCTA()[bd];
    int64_t laneStride = dist->laneStride(bd);
    // A tile narrower than the CTA along the dimension wraps: coordinates
    // repeat every `extent`, so the threads form independent segments of
    // `extent` consecutive coordinates (a run of `size` elements, then
    // lanes, then warps), each scanned on its own: a thread's elements
    // restart every `extent`, and the lane and warp steps stay inside
    // `segLanes` lanes and `segWarps` warps. Without wrapping the segment
    // is the whole CTA.
    int64_t extent = dist->blockedShape[bd];
    int64_t segElems = std::min(size, extent);
    int64_t segLanes = size >= extent ? 1 : std::min(lanes, extent / size);
    int64_t segWarps = size * lanes >= extent
                           ? (dist->wraps(bd) ? 1 : warps)
                           : std::min(warps, extent / (size * lanes));
    int64_t chunks = reps * segWarps;
    Distribution rows = getReducedDistribution(*dist, dim);
    bool wantTotal = static_cast<bool>(op.getTotal());
    if (wantTotal && (segElems < size || segLanes < lanes || segWarps < warps))
      return op.emitOpError("the total of a tile narrower than the program "
                            "along the scanned dimension is not supported; "
                            "use tile.reduce");

    ThreadPosition pos = getThreadPosition(b, loc, *dist);
    Value laneIdx = LLVM::URemOp::create(
        b, loc,
        LLVM::UDivOp::create(b, loc, pos.lane, i32Const(b, loc, laneStride)),
        i32Const(b, loc, lanes));
    Value warpIdx = pos.warpIndex[bd];
    // The lane's place in its segment.
    Value segLane = segLanes == lanes
                        ? laneIdx
                        : LLVM::AndOp::create(b, loc, laneIdx,
                                              i32Const(b, loc, segLanes - 1))
                              .getResult();
    Value identity = getIdentity(b, loc, kind, type);
    auto combine = [&](Value lhs, Value rhs) {
      return combineValues(b, loc, kind, lhs, rhs);
    };
    auto select = [&](Value cond, Value t, Value f) -> Value {
      return LLVM::SelectOp::create(b, loc, cond, t, f);
    };
    // Lanes earlier in scan order have smaller (larger when reversed)
    // indices along the dimension.
    NVVM::ShflKind towards =
        reverse ? NVVM::ShflKind::down : NVVM::ShflKind::up;
    unsigned clamp = reverse ? 0x1f : 0;
    int64_t firstLane = reverse ? segLanes - 1 : 0;
    int64_t lastLane = reverse ? 0 : lanes - 1;

    // Per (row, rep): in-thread prefixes, and the lane-exclusive and warp
    // totals of the run.
    int64_t numRows = rows.numElements();
    SmallVector<SmallVector<Value>> inclusive(numRows * reps),
        exclusive(numRows * reps);
    SmallVector<Value> laneExcl(numRows * reps), warpTotal(numRows * reps);
    for (int64_t r = 0; r < numRows; ++r) {
      SmallVector<int64_t> local = rows.localIndex(r);
      for (int64_t q = 0; q < reps; ++q) {
        int64_t rq = r * reps + q;
        inclusive[rq].resize(size);
        exclusive[rq].resize(size);
        Value acc;
        for (int64_t i = 0; i < size; ++i) {
          int64_t s = reverse ? size - 1 - i : i;
          local[bd] = q * size + s;
          Value v = values[dist->elementOf(local)];
          if (i % segElems == 0)
            acc = Value();
          exclusive[rq][s] = acc ? acc : identity;
          acc = acc ? combine(acc, v) : v;
          inclusive[rq][s] = acc;
        }
        Value x = acc;
        for (int64_t off = 1; off < segLanes; off *= 2) {
          Value y = shuffle(b, loc, x, towards,
                            i32Const(b, loc, off * laneStride), clamp);
          Value inRange =
              reverse ? icmp(b, loc, LLVM::ICmpPredicate::ult, segLane,
                             segLanes - off)
                      : icmp(b, loc, LLVM::ICmpPredicate::uge, segLane, off);
          x = select(inRange, combine(y, x), x);
        }
        laneExcl[rq] = identity;
        if (segLanes > 1) {
          Value y =
              shuffle(b, loc, x, towards, i32Const(b, loc, laneStride), clamp);
          laneExcl[rq] =
              select(icmp(b, loc, LLVM::ICmpPredicate::eq, segLane, firstLane),
                     identity, y);
        }
        warpTotal[rq] = x;
        if (lanes > 1 && (chunks > 1 || wantTotal)) {
          // The run total sits in the last lane (in scan order).
          Value srcLane = LLVM::AddOp::create(
              b, loc,
              LLVM::SubOp::create(
                  b, loc, pos.lane,
                  LLVM::MulOp::create(b, loc, laneIdx,
                                      i32Const(b, loc, laneStride))),
              i32Const(b, loc, lastLane * laneStride));
          warpTotal[rq] =
              shuffle(b, loc, x, NVVM::ShflKind::idx, srcLane, 0x1f);
        }
      }
    }

    // Combined totals of the (rep, warp) chunks before each run, and of
    // the whole line (with one chunk, the run's total in every lane).
    SmallVector<Value> chunkPrefix(numRows * reps, identity);
    SmallVector<Value> totals(numRows);
    if (chunks == 1)
      totals = warpTotal;
    if (chunks > 1) {
      // Partials at [chunk][row], padded, so that the lanes of a warp,
      // which hold different rows, store to different banks.
      SmallVector<int64_t> rowShape(srcType.getShape());
      rowShape.erase(rowShape.begin() + dim);
      int64_t totalRows = 1;
      for (int64_t extent : rowShape)
        totalRows *= extent;
      SmallVector<Value> rowIndex;
      for (int64_t r = 0; r < numRows; ++r)
        rowIndex.push_back(linearize(
            b, loc, getElementCoords(b, loc, rows, pos, r), rowShape));
      auto slot = [&](Value row, Value chunk) {
        Value index = LLVM::AddOp::create(
            b, loc,
            LLVM::MulOp::create(b, loc, chunk, i32Const(b, loc, totalRows)),
            row);
        return padScratchIndex(b, loc, index, kPartialScratchPeriod);
      };
      ctaBarrier(b, loc);
      for (int64_t r = 0; r < numRows; ++r)
        for (int64_t q = 0; q < reps; ++q) {
          Value chunk =
              LLVM::AddOp::create(b, loc, warpIdx, i32Const(b, loc, q * warps));
          storeScratch(b, loc, op, warpTotal[r * reps + q],
                       slot(rowIndex[r], chunk));
        }
      ctaBarrier(b, loc);
      int64_t threads = 32;
      for (int64_t w : blocked.getWarpsPerCTA())
        threads *= w;
      bool byLine = segWarps == warps && segLanes == lanes &&
                    segElems == size &&
                    scansTotalsByLine(totalRows, chunks, reps, threads);
      if (byLine) {
        // Thread t < lines scans line t's chunk totals in place (only it
        // touches them now), in scan order, and puts the line's total
        // after them.
        Value tid = LLVM::AddOp::create(
            b, loc, LLVM::MulOp::create(b, loc, pos.warp, i32Const(b, loc, 32)),
            pos.lane);
        auto scanner = scf::IfOp::create(
            b, loc, icmp(b, loc, LLVM::ICmpPredicate::ult, tid, totalRows),
            /*withElse=*/false);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&scanner.getThenRegion().front());
          SmallVector<Value> chunkTotals;
          for (int64_t c = 0; c < chunks; ++c)
            chunkTotals.push_back(loadScratch(
                b, loc, op, type,
                slot(tid, i32Const(b, loc, reverse ? chunks - 1 - c : c))));
          Value carry = identity;
          for (int64_t c = 0; c < chunks; ++c) {
            storeScratch(
                b, loc, op, carry,
                slot(tid, i32Const(b, loc, reverse ? chunks - 1 - c : c)));
            carry = combine(carry, chunkTotals[c]);
          }
          storeScratch(b, loc, op, carry, slot(tid, i32Const(b, loc, chunks)));
        }
        ctaBarrier(b, loc);
        for (int64_t r = 0; r < numRows; ++r) {
          for (int64_t q = 0; q < reps; ++q) {
            Value chunk = LLVM::AddOp::create(b, loc, warpIdx,
                                              i32Const(b, loc, q * warps));
            chunkPrefix[r * reps + q] =
                loadScratch(b, loc, op, type, slot(rowIndex[r], chunk));
          }
          if (wantTotal)
            totals[r] = loadScratch(
                b, loc, op, type, slot(rowIndex[r], i32Const(b, loc, chunks)));
        }
      }
      for (int64_t r = 0; r < numRows && !byLine; ++r) {
        Value carry = identity;
        for (int64_t i = 0; i < reps; ++i) {
          int64_t q = reverse ? reps - 1 - i : i;
          Value before = identity, total;
          for (int64_t w = 0; w < warps; ++w) {
            Value v =
                loadScratch(b, loc, op, type,
                            slot(rowIndex[r], i32Const(b, loc, q * warps + w)));
            total = total ? combine(total, v) : v;
            if (warps == 1)
              continue;
            // Warp w precedes this one in scan order, in its segment.
            Value earlier = icmp(b, loc,
                                 reverse ? LLVM::ICmpPredicate::ult
                                         : LLVM::ICmpPredicate::ugt,
                                 warpIdx, w);
            if (segWarps < warps)
              earlier = LLVM::AndOp::create(
                  b, loc, earlier,
                  icmp(b, loc, LLVM::ICmpPredicate::eq,
                       LLVM::AndOp::create(b, loc, warpIdx,
                                           i32Const(b, loc, ~(segWarps - 1))),
                       w & ~(segWarps - 1)));
            before = select(earlier, combine(before, v), before);
          }
          chunkPrefix[r * reps + q] = combine(carry, before);
          carry = combine(carry, total);
        }
        totals[r] = carry;
      }
    }

    SmallVector<Value> results(values.size());
    for (int64_t r = 0; r < numRows; ++r) {
      SmallVector<int64_t> local = rows.localIndex(r);
      for (int64_t q = 0; q < reps; ++q) {
        int64_t rq = r * reps + q;
        Value offset = laneExcl[rq];
        if (chunks > 1)
          offset = combine(chunkPrefix[rq], offset);
        for (int64_t s = 0; s < size; ++s) {
          local[bd] = q * size + s;
          Value mine = op.getExclusive() ? exclusive[rq][s] : inclusive[rq][s];
          results[dist->elementOf(local)] = combine(offset, mine);
        }
      }
    }
    if (wantTotal)
      rewriter.replaceOpWithMultiple(op, {results, totals});
    else
      rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};
} // namespace

void mlir::tile::populateScanPatterns(TileTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ScanLowering>(converter, patterns.getContext());
}
