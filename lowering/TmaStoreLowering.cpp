//===- TmaStoreLowering.cpp - tiles out through shared memory and TMA ----===//
//
// The ops of a staged epilogue (tile-stage-stores on sm_90+):
//
// - tile.store_boxes: each thread st.shared's the elements it holds (runs of
//   consecutive columns as one vector) into the boxes of their columns,
//   rows of 128 bytes with 16-byte chunks XOR-swizzled by row % 8 (the
//   TMA 128-byte swizzle, stagedOffset), then fence.proxy.async so that
//   the TMA unit sees the writes after the next barrier. A run's box is
//   fixed per element for wgmma fragments and found at run time (the
//   store predicated on it being one of the op's boxes) for layouts whose
//   column base depends on the warp (tcgen05.ld's).
// - tile.tma_store: thread 0 of the role issues one
//   `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group` per box and
//   commits them as one bulk group.
// - tile.tma_store_wait: thread 0's `cp.async.bulk.wait_group[.read]`.
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"
#include "lowering/TensorCore/OperandStaging.h"

#include "dialect/TileDialect.h"
#include "dialect/TileLayouts.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct StoreBoxesLowering : public OpConversionPattern<StoreBoxesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreBoxesOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto type = cast<RankedTensorType>(op.getValue().getType());
    FailureOr<Distribution> dist = getDistribution(type);
    if (failed(dist))
      return op.emitOpError("value ")
             << type << " has no register layout; run tile-assign-layouts";
    SharedBufferType buffer = op.getBuffer().getType();
    int64_t boxes = buffer.getShape()[0], width = buffer.getShape()[2];
    int64_t first = op.getColumn(), stageBytes = getStageBytes(buffer);
    unsigned rowBlocked = dist->tileDims[0], colBlocked = dist->tileDims[1];
    // Each element goes to one box whatever the thread when the threads'
    // bases spread one repetition over `span` columns and boxes start at
    // multiples of it (wgmma fragments). Otherwise (a run of columns per
    // thread from a base that depends on its warp, as tcgen05.ld leaves an
    // accumulator) each run finds its box at run time, and only runs in
    // this op's boxes are stored.
    int64_t span = dist->ctaTile(colBlocked);
    bool fixedBoxes = width % span == 0 && first % span == 0;
    if (dist->wraps(0) || dist->wraps(1))
      return op.emitOpError("replicated elements of ")
             << type << " are not supported";
    DotStaging box;
    box.elementBytes = getScratchElementBytes(type.getElementType());
    box.rowBytes = 128;
    box.swizzleBytes = 128;
    // Runs of consecutive columns go out as one vector of up to 16 bytes:
    // the widest power of two whose runs of elements are consecutive
    // columns of one row.
    int64_t vec = std::max<int64_t>(
        1, std::min<int64_t>(dist->blocked.getSizePerThread()[colBlocked],
                             16 / box.elementBytes));
    auto isRun = [&](int64_t e, int64_t length) {
      SmallVector<int64_t> start = dist->offsets(e);
      for (int64_t i = 1; i < length; ++i) {
        SmallVector<int64_t> next = dist->offsets(e + i);
        if (next[rowBlocked] != start[rowBlocked] ||
            next[colBlocked] != start[colBlocked] + i)
          return false;
      }
      return true;
    };
    while (vec > 1 &&
           (dist->numElements() % vec != 0 ||
            llvm::any_of(llvm::seq<int64_t>(0, dist->numElements() / vec),
                         [&](int64_t r) { return !isRun(r * vec, vec); })))
      vec /= 2;
    ValueRange values = adaptor.getValue();
    ThreadPosition pos = getThreadPosition(b, loc, *dist);
    Value base = adaptor.getBuffer().front();
    if (!fixedBoxes && width % vec != 0)
      return op.emitOpError("runs of ") << vec << " columns of " << type
                                        << " do not tile boxes of " << width;
    for (int64_t e = 0; e < dist->numElements(); e += vec) {
      SmallVector<Value> coords;
      Value offset, inRange;
      if (fixedBoxes) {
        // The element's column less the thread's base, fixed per element.
        int64_t column = dist->offsets(e)[colBlocked];
        if (column < first || column >= first + boxes * width)
          continue;
        int64_t index = (column - first) / width;
        coords = getElementCoords(b, loc, *dist, pos, e);
        Value inBox = LLVM::SubOp::create(
            b, loc, coords[1], i32Const(b, loc, first + index * width));
        offset = LLVM::AddOp::create(
            b, loc, stagedOffset(b, loc, box, coords[0], inBox),
            i32Const(b, loc, index * stageBytes));
      } else {
        coords = getElementCoords(b, loc, *dist, pos, e);
        // Unsigned: columns before `first` are out of range too.
        Value rel =
            LLVM::SubOp::create(b, loc, coords[1], i32Const(b, loc, first));
        inRange = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, rel,
                                       i32Const(b, loc, boxes * width));
        Value index =
            LLVM::UDivOp::create(b, loc, rel, i32Const(b, loc, width));
        Value inBox =
            LLVM::URemOp::create(b, loc, rel, i32Const(b, loc, width));
        offset = LLVM::AddOp::create(
            b, loc, stagedOffset(b, loc, box, coords[0], inBox),
            LLVM::MulOp::create(b, loc, index, i32Const(b, loc, stageBytes)));
      }
      Value addr = sharedByte(b, loc, base, offset);
      Value stored = values[e];
      if (vec > 1) {
        auto vecType = VectorType::get({vec}, values[e].getType());
        stored = LLVM::UndefOp::create(b, loc, vecType);
        for (int64_t i = 0; i < vec; ++i)
          stored = LLVM::InsertElementOp::create(b, loc, stored, values[e + i],
                                                 i32Const(b, loc, i));
      }
      int64_t alignment = vec * box.elementBytes;
      if (!inRange) {
        LLVM::StoreOp::create(b, loc, stored, addr, alignment);
        continue;
      }
      scf::IfOp::create(b, loc, inRange, [&](OpBuilder &tb, Location l) {
        LLVM::StoreOp::create(tb, l, stored, addr, alignment);
        scf::YieldOp::create(tb, l);
      });
    }
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreLowering : public OpConversionPattern<TmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SharedBufferType buffer = op.getBuffer().getType();
    int64_t boxes = buffer.getShape()[0], width = buffer.getShape()[2];
    Value issues = isRoleThreadZero(b, loc, op);
    Value row = adaptor.getOffsets()[0].front();
    Value col = adaptor.getOffsets()[1].front();
    for (int64_t j = 0; j < boxes; ++j) {
      Value src = sharedByte(b, loc, adaptor.getBuffer().front(),
                             i32Const(b, loc, j * getStageBytes(buffer)));
      // Coordinates innermost first: column, then row.
      SmallVector<Value> coords = {
          LLVM::AddOp::create(b, loc, col, i32Const(b, loc, j * width))
              .getResult(),
          row};
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          b, loc, adaptor.getMap().front(), src, coords,
          /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE, issues);
    }
    scf::IfOp::create(b, loc, issues, [&](OpBuilder &tb, Location l) {
      NVVM::CpAsyncBulkCommitGroupOp::create(tb, l);
      scf::YieldOp::create(tb, l);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreWaitLowering : public OpConversionPattern<TmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    scf::IfOp::create(rewriter, loc, isRoleThreadZero(rewriter, loc, op),
                      [&](OpBuilder &tb, Location l) {
                        NVVM::CpAsyncBulkWaitGroupOp::create(
                            tb, l, op.getPending(),
                            op.getRead() ? tb.getUnitAttr() : UnitAttr());
                        scf::YieldOp::create(tb, l);
                      });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTmaStorePatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<StoreBoxesLowering, TmaStoreLowering, TmaStoreWaitLowering>(
      converter, patterns.getContext());
}
