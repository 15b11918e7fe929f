//===- SortLowering.cpp - bitonic sort in registers and scratch ----------===//
//
// A bitonic network over the sorted dimension. Where the layout allows, it
// runs on the registers: pairs held by one thread compare-exchange in
// place, pairs on two lanes of a warp swap through shfl.bfly, and pairs on
// two warps swap through shared scratch (each thread writes its elements,
// one CTA barrier, each reads its partners'; two buffers alternate so one
// barrier per such stage suffices). That needs every element of the
// dimension held once: no replicas across lanes, and warps either spread
// over the dimension without replicas or only replicate a warp-local one.
// The network is unrolled, so spread-over-warps sorts take it only up to
// 528 element-steps per thread (getSortNetwork: 2048 keys, 8 per thread).
// It is written as merges of sorted runs, which lets `runs N` skip the
// levels below N.
//
// Other layouts (and larger sorts) go through scratch for the whole network: keys and payloads
// are written row-major, every stage (k, j) has each thread compare-exchange
// pairs `i`, `i + j` with a barrier after it, and the result is read back.
// Those stages are loops, so code size does not grow with the extent.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "passes/SharedMemory.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct SortLowering : public OpConversionPattern<SortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SortOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto keysType = cast<RankedTensorType>(op.getKeys().getType());
    FailureOr<Distribution> dist = getLaidOutDistribution(op, keysType);
    if (failed(dist) ||
        failed(requireLayoutOf(op, op.getPayloads(), keysType,
                               "payloads must have the layout of the keys")))
      return failure();
    Type keyElement = keysType.getElementType();
    if (!keyElement.isIntOrFloat() || keyElement.isInteger(1))
      return op.emitOpError("sorts integer or float keys, got ") << keyElement;

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SmallVector<ValueRange> inputs = {adaptor.getKeys()};
    llvm::append_range(inputs, adaptor.getPayloads());
    SortNetwork network = getSortNetwork(op);
    if (network != SortNetwork::Scratch) {
      SmallVector<SmallVector<Value>> results =
          emitRegisterNetwork(b, loc, op, *dist, inputs, network);
      SmallVector<ValueRange> replacements(results.begin(), results.end());
      rewriter.replaceOpWithMultiple(op, replacements);
      return success();
    }
    SmallVector<Type> types;
    for (ValueRange input : inputs)
      types.push_back(input.front().getType());
    ArrayRef<int64_t> shape = keysType.getShape();
    int64_t numElements = keysType.getNumElements();
    int64_t total = 0;
    SmallVector<int64_t> byteOffsets =
        getScratchArrayOffsets(types, numElements, total);
    // Array starts in units of each array's element.
    SmallVector<Value> starts;
    for (auto [type, offset] : llvm::zip(types, byteOffsets))
      starts.push_back(i32Const(b, loc, offset / getScratchElementBytes(type)));
    auto slot = [&](OpBuilder &ob, unsigned array, Value index) -> Value {
      return LLVM::AddOp::create(ob, loc, starts[array], index);
    };

    // Registers to scratch.
    ctaBarrier(b, loc);
    ThreadPosition pos = getThreadPosition(b, loc, *dist);
    SmallVector<Value> linear;
    for (int64_t e = 0; e < dist->numElements(); ++e)
      linear.push_back(
          linearize(b, loc, getElementCoords(b, loc, *dist, pos, e), shape));
    for (auto [array, input] : llvm::enumerate(inputs))
      for (int64_t e = 0; e < dist->numElements(); ++e)
        storeScratch(b, loc, op, input[e], slot(b, array, linear[e]));
    ctaBarrier(b, loc);

    emitNetwork(b, loc, op, *dist, types, slot);

    // Scratch to registers.
    SmallVector<SmallVector<Value>> results(inputs.size());
    for (auto [array, type] : llvm::enumerate(types))
      for (int64_t e = 0; e < dist->numElements(); ++e)
        results[array].push_back(
            loadScratch(b, loc, op, type, slot(b, array, linear[e])));
    SmallVector<ValueRange> replacements(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, replacements);
    return success();
  }

  /// The bitonic network on the registers: in-thread pairs in place, lane
  /// pairs through shfl.bfly, and (for SortNetwork::Exchange) warp pairs
  /// through two alternating scratch buffers. Written as merges of sorted
  /// runs: each level first compares element i of a block of size k with
  /// element k-1-i (both halves sorted the same way), then halves with
  /// distances k/4, ..., 1, every pair ordered in the final direction.
  /// Levels up to the op's `runs` are skipped. Returns the sorted lists.
  SmallVector<SmallVector<Value>>
  emitRegisterNetwork(OpBuilder &b, Location loc, SortOp op,
                      const Distribution &dist, ArrayRef<ValueRange> inputs,
                      SortNetwork network) const {
    SmallVector<SmallVector<Value>> cur;
    for (ValueRange input : inputs)
      cur.emplace_back(input.begin(), input.end());
    unsigned dim = op.getDim();
    unsigned bd = dist.tileDims[dim];
    auto keysType = cast<RankedTensorType>(op.getKeys().getType());
    ArrayRef<int64_t> shape = keysType.getShape();
    int64_t extent = shape[dim];
    int64_t size = dist.blocked.getSizePerThread()[bd];
    int64_t lanes = dist.blocked.getThreadsPerWarp()[bd];
    // Warps spread over the dimension only in an exchange network; warps
    // of a warp-local one replicate it.
    int64_t warps = network == SortNetwork::Exchange
                        ? dist.blocked.getWarpsPerCTA()[bd]
                        : 1;
    // Coordinate bits along the dimension: [in-thread | lane | warp |
    // repeat], the in-thread and repeat bits both in the local index.
    int64_t laneSpan = size * lanes, warpSpan = laneSpan * warps;
    bool descending = op.getDescending();
    bool isFloat = isa<FloatType>(cur[0].front().getType());
    bool singleCompare = !isFloat && cur.size() == 1;
    auto c = [&](int64_t v) { return i32Const(b, loc, v); };
    // Whether x belongs before y in the sorted order.
    auto before = [&](Value x, Value y) -> Value {
      if (isFloat)
        return LLVM::FCmpOp::create(b, loc,
                                    descending ? LLVM::FCmpPredicate::ogt
                                               : LLVM::FCmpPredicate::olt,
                                    x, y);
      return LLVM::ICmpOp::create(b, loc,
                                  descending ? LLVM::ICmpPredicate::sgt
                                             : LLVM::ICmpPredicate::slt,
                                  x, y);
    };
    auto bitClear = [&](Value coord, int64_t bit) -> Value {
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                  LLVM::AndOp::create(b, loc, coord, c(bit)),
                                  c(0));
    };
    ThreadPosition pos = getThreadPosition(b, loc, dist);
    int64_t numElements = dist.numElements();
    SmallVector<Value> coord, linear;
    for (int64_t e = 0; e < numElements; ++e) {
      SmallVector<Value> coords = getElementCoords(b, loc, dist, pos, e);
      coord.push_back(coords[dim]);
      if (network == SortNetwork::Exchange)
        linear.push_back(linearize(b, loc, coords, shape));
    }
    // Exchange buffers: per array, two halves of the scratch arrays.
    SmallVector<Type> types;
    for (ValueRange input : inputs)
      types.push_back(input.front().getType());
    int64_t numTile = keysType.getNumElements();
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
      inner *= shape[d];
    int64_t total = 0;
    SmallVector<int64_t> byteOffsets =
        getScratchArrayOffsets(types, 2 * numTile, total);
    int exchanges = 0;

    // One step: element at coordinate x pairs with x ^ mask; the one with
    // bit `high` (mask's top bit) clear keeps the key that goes first.
    auto step = [&](int64_t mask, int64_t high) {
      // The partner's local index along the dimension: in-thread and
      // repeat bits of the mask flipped.
      int64_t localFlip = (mask & (size - 1)) + (mask / warpSpan) * size;
      int64_t laneMask = (mask / size) & (lanes - 1);
      int64_t warpMask = (mask / laneSpan) & (warps - 1);
      auto partnerOf = [&](int64_t e) {
        SmallVector<int64_t> local = dist.localIndex(e);
        local[bd] ^= localFlip;
        return dist.elementOf(local);
      };
      if (laneMask == 0 && warpMask == 0) {
        // Both elements of every pair are in this thread.
        for (int64_t e = 0; e < numElements; ++e) {
          int64_t f = partnerOf(e);
          SmallVector<int64_t> local = dist.localIndex(e);
          // Visit each pair once, from its element with bit `high` clear
          // (a static property of the local index here).
          int64_t offset = (local[bd] / size) * warpSpan + local[bd] % size;
          if (offset & high)
            continue;
          Value swap = before(cur[0][f], cur[0][e]);
          for (auto &array : cur) {
            Value x = array[e], y = array[f];
            array[e] = LLVM::SelectOp::create(b, loc, swap, y, x);
            array[f] = LLVM::SelectOp::create(b, loc, swap, x, y);
          }
        }
        return;
      }
      // Each thread computes its own elements from the partners'.
      SmallVector<SmallVector<Value>> others(cur.size());
      if (warpMask == 0) {
        unsigned lanesXor = laneMask * dist.laneStride(bd);
        for (size_t array = 0; array < cur.size(); ++array)
          for (int64_t e = 0; e < numElements; ++e)
            others[array].push_back(
                shuffleXor(b, loc, cur[array][partnerOf(e)], lanesXor));
      } else {
        // Through scratch buffer `exchanges % 2`. Before the first write,
        // earlier users of scratch must be done; later writes go to the
        // other buffer than the last reads.
        if (exchanges == 0)
          ctaBarrier(b, loc);
        int64_t half = (exchanges++ % 2) * numTile;
        auto slot = [&](size_t array, Value index) -> Value {
          int64_t start =
              byteOffsets[array] / getScratchElementBytes(types[array]);
          return LLVM::AddOp::create(b, loc, c(start + half), index);
        };
        for (size_t array = 0; array < cur.size(); ++array)
          for (int64_t e = 0; e < numElements; ++e)
            storeScratch(b, loc, op, cur[array][e], slot(array, linear[e]));
        ctaBarrier(b, loc);
        for (int64_t e = 0; e < numElements; ++e) {
          // Partner index: coordinate xor mask along the dimension.
          Value partnerCoord = LLVM::XOrOp::create(b, loc, coord[e], c(mask));
          Value delta = LLVM::MulOp::create(
              b, loc, LLVM::SubOp::create(b, loc, partnerCoord, coord[e]),
              c(inner));
          Value partner = LLVM::AddOp::create(b, loc, linear[e], delta);
          for (size_t array = 0; array < cur.size(); ++array)
            others[array].push_back(
                loadScratch(b, loc, op, types[array], slot(array, partner)));
        }
      }
      for (int64_t e = 0; e < numElements; ++e) {
        // The first of the pair takes the partner's key if it goes first,
        // the second if it goes after. Integer keys with no payload need
        // one comparison: the second takes the partner's key unless it
        // goes first, which differs only for equal keys, and those are the
        // same element (not so for a NaN, or for payloads).
        Value x = cur[0][e], y = others[0][e];
        Value first = bitClear(coord[e], high);
        Value take;
        if (singleCompare)
          take = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                      before(y, x), first);
        else
          take =
              LLVM::SelectOp::create(b, loc, first, before(y, x), before(x, y));
        for (size_t array = 0; array < cur.size(); ++array)
          cur[array][e] = LLVM::SelectOp::create(b, loc, take, others[array][e],
                                                 cur[array][e]);
      }
    };

    for (int64_t k = 2 * op.getRuns(); k <= extent; k *= 2) {
      step(k - 1, k / 2);
      for (int64_t j = k / 4; j >= 1; j /= 2)
        step(j, j);
    }
    return cur;
  }

  /// The bitonic network on the scratch arrays, one barrier per stage.
  template <typename SlotFn>
  void emitNetwork(OpBuilder &b, Location loc, SortOp op,
                   const Distribution &dist, ArrayRef<Type> types,
                   SlotFn slot) const {
    auto keysType = cast<RankedTensorType>(op.getKeys().getType());
    ArrayRef<int64_t> shape = keysType.getShape();
    unsigned dim = op.getDim();
    int64_t extent = shape[dim];
    if (extent < 2)
      return;
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
      inner *= shape[d];
    int64_t pairs = keysType.getNumElements() / 2;
    int64_t threads = 32;
    for (unsigned w : dist.blocked.getWarpsPerCTA())
      threads *= w;
    unsigned logExtent = llvm::Log2_64(extent);
    bool descending = op.getDescending();
    bool isFloat = isa<FloatType>(types[0]);

    auto c = [&](OpBuilder &ob, int64_t v) { return i32Const(ob, loc, v); };
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    auto stages =
        scf::ForOp::create(b, loc, c(b, 1), c(b, logExtent + 1), c(b, 1));
    OpBuilder sb = OpBuilder::atBlockBegin(stages.getBody());
    Value logK = stages.getInductionVar();
    auto steps = scf::ForOp::create(sb, loc, c(sb, 0), logK, c(sb, 1));
    OpBuilder jb = OpBuilder::atBlockBegin(steps.getBody());
    // j = 2^(logK - 1 - t): halving distances within each merge.
    Value logJ = LLVM::SubOp::create(
        jb, loc, LLVM::SubOp::create(jb, loc, logK, c(jb, 1)),
        steps.getInductionVar());
    Value j = LLVM::ShlOp::create(jb, loc, c(jb, 1), logJ);
    Value k = LLVM::ShlOp::create(jb, loc, c(jb, 1), logK);
    auto pairLoop =
        scf::ForOp::create(jb, loc, tid, c(jb, pairs), c(jb, threads));
    {
      OpBuilder pb = OpBuilder::atBlockBegin(pairLoop.getBody());
      Value p = pairLoop.getInductionVar();
      // p = (outer, pair, innerIndex) with pair < extent/2.
      Value innerIdx = LLVM::URemOp::create(pb, loc, p, c(pb, inner));
      Value rest = LLVM::UDivOp::create(pb, loc, p, c(pb, inner));
      Value pair = LLVM::URemOp::create(pb, loc, rest, c(pb, extent / 2));
      Value outer = LLVM::UDivOp::create(pb, loc, rest, c(pb, extent / 2));
      // Insert a zero bit at log2(j): the lower element of the pair.
      Value low = LLVM::AndOp::create(
          pb, loc, pair, LLVM::SubOp::create(pb, loc, j, c(pb, 1)));
      Value high = LLVM::ShlOp::create(
          pb, loc, LLVM::LShrOp::create(pb, loc, pair, logJ), c(pb, 1));
      high = LLVM::ShlOp::create(pb, loc, high, logJ);
      Value first = LLVM::OrOp::create(pb, loc, high, low);
      Value base = LLVM::MulOp::create(pb, loc, outer, c(pb, extent));
      Value li = LLVM::AddOp::create(
          pb, loc,
          LLVM::MulOp::create(
              pb, loc, LLVM::AddOp::create(pb, loc, base, first), c(pb, inner)),
          innerIdx);
      Value lj = LLVM::AddOp::create(
          pb, loc, li, LLVM::MulOp::create(pb, loc, j, c(pb, inner)));
      // Blocks with bit k clear merge in the final direction.
      Value finalDir = LLVM::ICmpOp::create(
          pb, loc, LLVM::ICmpPredicate::eq,
          LLVM::AndOp::create(pb, loc, first, k), c(pb, 0));
      Value a = loadScratch(pb, loc, op, types[0], slot(pb, 0, li));
      Value bv = loadScratch(pb, loc, op, types[0], slot(pb, 0, lj));
      // Out of order for an ascending pair: a > b.
      Value greater =
          isFloat
              ? LLVM::FCmpOp::create(pb, loc, LLVM::FCmpPredicate::ogt, a, bv)
                    .getResult()
              : LLVM::ICmpOp::create(pb, loc, LLVM::ICmpPredicate::sgt, a, bv)
                    .getResult();
      Value less =
          isFloat
              ? LLVM::FCmpOp::create(pb, loc, LLVM::FCmpPredicate::olt, a, bv)
                    .getResult()
              : LLVM::ICmpOp::create(pb, loc, LLVM::ICmpPredicate::slt, a, bv)
                    .getResult();
      Value ascendingSwap = descending ? less : greater;
      Value descendingSwap = descending ? greater : less;
      Value swap = LLVM::SelectOp::create(pb, loc, finalDir, ascendingSwap,
                                          descendingSwap);
      auto ifOp = scf::IfOp::create(pb, loc, swap, /*withElse=*/false);
      OpBuilder tb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      for (auto [array, type] : llvm::enumerate(types)) {
        Value x = array == 0
                      ? a
                      : loadScratch(tb, loc, op, type, slot(tb, array, li));
        Value y = array == 0
                      ? bv
                      : loadScratch(tb, loc, op, type, slot(tb, array, lj));
        storeScratch(tb, loc, op, y, slot(tb, array, li));
        storeScratch(tb, loc, op, x, slot(tb, array, lj));
      }
    }
    jb.setInsertionPointAfter(pairLoop);
    ctaBarrier(jb, loc);
  }
};
} // namespace

void mlir::tile::populateSortPatterns(TileTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<SortLowering>(converter, patterns.getContext());
}
