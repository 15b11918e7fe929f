//===- TmaStoreLowering.cpp - tiles out through shared memory and TMA ----===//
//
// The ops of a staged epilogue (tile-stage-stores on sm_90+):
//
// - tile.store_boxes: each thread st.shared's the elements it holds (runs of
//   consecutive columns as one vector) into the boxes of their columns,
//   rows of 128 bytes with 16-byte chunks XOR-swizzled by row % 8 (the
//   TMA 128-byte swizzle, stagedOffset), then fence.proxy.async so that
//   the TMA unit sees the writes after the next barrier.
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
    unsigned colBlocked = dist->tileDims[1];
    // Each element goes to one box whatever the thread: the threads' bases
    // spread one repetition over `span` columns, and boxes start at
    // multiples of it.
    int64_t span = dist->ctaTile(colBlocked);
    if (width % span != 0 || first % span != 0)
      return op.emitOpError("columns of ")
             << type << " repeat every " << span
             << ", which does not divide boxes of " << width << " from column "
             << first;
    if (dist->wraps(0) || dist->wraps(1))
      return op.emitOpError("replicated elements of ")
             << type << " are not supported";
    DotStaging box;
    box.elementBytes = getScratchElementBytes(type.getElementType());
    box.rowBytes = 128;
    box.swizzleBytes = 128;
    // Runs of consecutive columns go out as one vector of up to 16 bytes.
    int64_t vec = 1;
    if (dist->blocked.getOrder()[0] == colBlocked)
      vec = std::min<int64_t>(dist->blocked.getSizePerThread()[colBlocked],
                              16 / box.elementBytes);
    vec = std::max<int64_t>(1, vec);
    ValueRange values = adaptor.getValue();
    ThreadPosition pos = getThreadPosition(b, loc, *dist);
    Value base = adaptor.getBuffer().front();
    for (int64_t e = 0; e < dist->numElements(); e += vec) {
      // The element's column less the thread's base, fixed per element.
      int64_t column = dist->offsets(e)[colBlocked];
      if (column < first || column >= first + boxes * width)
        continue;
      int64_t index = (column - first) / width;
      SmallVector<Value> coords = getElementCoords(b, loc, *dist, pos, e);
      Value inBox = LLVM::SubOp::create(
          b, loc, coords[1], i32Const(b, loc, first + index * width));
      Value offset = LLVM::AddOp::create(
          b, loc, stagedOffset(b, loc, box, coords[0], inBox),
          i32Const(b, loc, index * stageBytes));
      Value addr = sharedByte(b, loc, base, offset);
      if (vec == 1) {
        LLVM::StoreOp::create(b, loc, values[e], addr);
        continue;
      }
      auto vecType = VectorType::get({vec}, values[e].getType());
      Value packed = LLVM::UndefOp::create(b, loc, vecType);
      for (int64_t i = 0; i < vec; ++i)
        packed = LLVM::InsertElementOp::create(b, loc, packed, values[e + i],
                                               i32Const(b, loc, i));
      LLVM::StoreOp::create(b, loc, packed, addr, vec * box.elementBytes);
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
