//===- TmaLowering.cpp - TMA bulk tensor copies and mbarriers -------------===//
//
// The ops of the TMA pipeline (tile-pipeline-loads on sm_90+):
//
// - tile.make_tensor_map is a hidden kernel parameter (KernelLowering
//   appends it, a 128-byte CUtensorMap passed by value as a grid constant)
//   and lowers to that parameter's address.
// - tile.tma_copy issues one `cp.async.bulk.tensor.2d` per box from lanes
//   of the first warp; the TMA unit writes each box in the tensor map's
//   swizzle, which, for stages that start on a 1024-byte period, is the
//   layout the tensor-core lowerings read (see OperandStaging.h). With
//   `leader_barrier` (CTA pairs) the copy is `.cta_group::2` and its bytes
//   complete on the barrier at the same offset in the pair's even program
//   (mapa).
// - tile.mbarrier_init, _expect, _wait and _arrive are mbarrier.init (then
//   the fence that publishes it and a barrier), mbarrier.arrive.expect_tx
//   by thread 0 (of the producer warp, in a warp-specialized kernel), a
//   try_wait.parity loop and an mbarrier.arrive by every thread (with
//   `across m`, by lanes 0 .. m - 1 of each warp, lane l on the barrier of
//   cluster rank l: mapa, then mbarrier.arrive.shared::cluster).
// - tile.view_aligned tests base and strides for the 16-byte alignment
//   tensor maps need, as the runtime does before it encodes one.
// - tile.barrier is bar.sync 0.
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"
#include "lowering/TensorCore/OperandStaging.h"

#include "dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The address (ptr<3>) of mbarrier `index` (i32) of a barrier buffer.
Value barrierAt(OpBuilder &b, Location loc, Value barriers, Value index) {
  return sharedByte(
      b, loc, barriers,
      LLVM::MulOp::create(b, loc, index, i32Const(b, loc, 8)).getResult());
}

struct MakeTensorMapLowering : public OpConversionPattern<MakeTensorMapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeTensorMapOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto index = op->getAttrOfType<IntegerAttr>(
        TileDialect::kTensorMapParamAttrName);
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!index || !func)
      return op.emitOpError("has no kernel parameter; it must be in a "
                            "kernel");
    rewriter.replaceOp(op, func.getArgument(index.getInt()));
    return success();
  }
};

struct ViewAlignedLowering : public OpConversionPattern<ViewAlignedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ViewAlignedOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    auto isZero = [&](Value v) {
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, v,
                                  i64Const(b, loc, 0));
    };
    auto aligned16 = [&](Value v) {
      return isZero(LLVM::AndOp::create(b, loc, v, i64Const(b, loc, 15)));
    };
    Value all = LLVM::ConstantOp::create(b, loc, b.getI1Type(),
                                         b.getBoolAttr(true));
    for (auto [view, values] : llvm::zip(op.getViews(), adaptor.getViews())) {
      auto type = cast<ViewType>(view.getType());
      int64_t rank = type.getRank();
      int64_t bytes = getScratchElementBytes(type.getElementType());
      Value base = LLVM::PtrToIntOp::create(b, loc, i64, values[0]);
      all = LLVM::AndOp::create(b, loc, all, aligned16(base));
      for (int64_t d = 0; d + 1 < rank; ++d) {
        Value stride = values[1 + rank + d];
        all = LLVM::AndOp::create(
            b, loc, all,
            aligned16(LLVM::MulOp::create(b, loc, stride,
                                          i64Const(b, loc, bytes))));
      }
      Value last = values[2 * rank];
      all = LLVM::AndOp::create(
          b, loc, all,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, last,
                               i64Const(b, loc, 1)));
    }
    rewriter.replaceOp(op, all);
    return success();
  }
};

struct MBarrierInitLowering : public OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value first = isRoleThreadZero(b, loc, op);
    Value count = i32Const(b, loc, op.getCount());
    int64_t barriers = op.getBarriers().getType().getShape()[0];
    for (int64_t i = 0; i < barriers; ++i)
      NVVM::MBarrierInitOp::create(
          b, loc, barrierAt(b, loc, adaptor.getBarriers(), i32Const(b, loc, i)),
          count, first);
    // Publish the initialized barriers to the TMA unit and every thread.
    NVVM::FenceMbarrierInitOp::create(b, loc);
    ctaBarrier(b, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierExpectLowering : public OpConversionPattern<MBarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    NVVM::MBarrierArriveExpectTxOp::create(
        b, loc, /*res=*/Type(),
        barrierAt(b, loc, adaptor.getBarriers(), adaptor.getIndex()),
        i32Const(b, loc, op.getBytes()), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, isRoleThreadZero(b, loc, op));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : public OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    // The suspend-time hint of each try (ns) before the loop tries again.
    constexpr int64_t kSuspendHint = 0x989680;
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrierAt(b, loc, adaptor.getBarriers(), adaptor.getIndex()),
        adaptor.getPhase(), i32Const(b, loc, kSuspendHint));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : public OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value barrier =
        barrierAt(b, loc, adaptor.getBarriers(), adaptor.getIndex());
    std::optional<int64_t> across = op.getAcross();
    if (!across) {
      NVVM::MBarrierArriveOp::create(b, loc, Type(), barrier, Value());
      rewriter.eraseOp(op);
      return success();
    }
    // Lane l < m of each warp arrives on the barrier at the same offset in
    // the program of cluster rank l (mapa). What the arrival releases is
    // this program's reads of its own stage, done before the arrival (the
    // wgmma.wait_group before it): the default release at CTA scope
    // suffices, as in CUTLASS's consumer release; .release.cluster cost
    // about 0.5 us per ring iteration on an H100 (bench/RESULTS.md). Lanes
    // from m on map a valid rank too, and do not arrive. Inline PTX: the
    // NVVM op takes only a barrier of this program's own shared memory.
    Value lane = LLVM::AndOp::create(b, loc, getRoleThreadId(b, loc, op),
                                     i32Const(b, loc, 31));
    Value rank =
        LLVM::AndOp::create(b, loc, lane, i32Const(b, loc, *across - 1));
    Value remote = LLVM::PtrToIntOp::create(
        b, loc, b.getI32Type(),
        NVVM::MapaOp::create(b, loc,
                             LLVM::LLVMPointerType::get(b.getContext(), 7),
                             barrier, rank));
    LLVM::InlineAsmOp::create(
        b, loc, TypeRange{}, ValueRange{remote, lane},
        "{\n\t.reg .pred p;\n\tsetp.lt.u32 p, $1, " + std::to_string(*across) +
            ";\n\t@p mbarrier.arrive.shared::cluster.b64 _, [$0];\n\t}",
        "r,r", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// `cp.async.bulk.tensor.2d.cta_group::2` of the box at `coords` (column,
/// row) of tensor map `map` into shared address `dst` (ptr<3>), its bytes
/// completing on the pair leader's mbarrier at shared::cluster address
/// `barrier` (i32), where `issues` holds; with `mask` (i16), multicast to
/// those programs of the cluster, each destination's bytes completing on
/// the barrier of its own pair's leader. Inline PTX: the NVVM op takes
/// only a barrier of this program's own shared memory.
void copyToPairLeader(OpBuilder &b, Location loc, Value dst, Value map,
                      ArrayRef<Value> coords, Value barrier, Value issues,
                      Value mask) {
  Value dstAddress = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), dst);
  Value predicate = LLVM::ZExtOp::create(b, loc, b.getI32Type(), issues);
  SmallVector<Value> operands = {dstAddress, map,     coords[0],
                                 coords[1],  barrier, predicate};
  std::string multicast, constraints = "r,l,r,r,r,r";
  if (mask) {
    operands.push_back(mask);
    multicast = ".multicast::cluster";
    constraints += ",h";
  }
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, operands,
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $5, 0;\n\t"
      "@p cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global."
      "mbarrier::complete_tx::bytes" +
          multicast + " [$0], [$1, {$2, $3}], [$4]" + (mask ? ", $6" : "") +
          ";\n\t}",
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
}

struct TmaCopyLowering : public OpConversionPattern<TmaCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmaCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SharedBufferType bufferType = op.getBuffer().getType();
    TensorMapType mapType = op.getMap().getType();
    auto swizzle = cast<SwizzleAttr>(bufferType.getSwizzle());
    DotStaging stage = getStageLayout(bufferType);
    int64_t boxRows = mapType.getBox()[0];
    int64_t boxes = stage.m / boxRows;
    Value stageBase =
        sharedByte(b, loc, adaptor.getBuffer().front(),
                   LLVM::MulOp::create(b, loc, adaptor.getStage().front(),
                                       i32Const(b, loc,
                                                getStageBytes(bufferType))));
    Value barrier =
        barrierAt(b, loc, adaptor.getBarriers().front(),
                  adaptor.getBarrier().front());
    Value row0 = adaptor.getOffsets()[0].front();
    Value col0 = adaptor.getOffsets()[1].front();
    Value tid = getRoleThreadId(b, loc, op);
    // A map in wgmma order lands the whole stage in one rank-5 box (see
    // the metadata of describeTensorMap): coordinates column, g, h, w and
    // the 16W-row block the stage starts at.
    if (int64_t warps =
            cast<SwizzleAttr>(mapType.getSwizzle()).getWgmmaWarps()) {
      Value zero = i32Const(b, loc, 0);
      Value block =
          LLVM::UDivOp::create(b, loc, row0, i32Const(b, loc, 16 * warps));
      Value issues =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, zero);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, stageBase, adaptor.getMap().front(),
          ValueRange{col0, zero, zero, zero, block}, barrier,
          /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
          /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(), issues);
      rewriter.eraseOp(op);
      return success();
    }
    // A CTA pair's copies count on the barrier of its even program: the
    // same offset in that program's shared window.
    Value leaderBarrier;
    if (op.getLeaderBarrier()) {
      Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
      Value even = LLVM::AndOp::create(b, loc, rank, i32Const(b, loc, ~1));
      leaderBarrier = LLVM::PtrToIntOp::create(
          b, loc, b.getI32Type(),
          NVVM::MapaOp::create(b, loc,
                               LLVM::LLVMPointerType::get(b.getContext(), 7),
                               barrier, even));
    }
    // Multicast: this program copies boxes part, part + parts, ... for
    // every program of the mask.
    int64_t parts = op.getParts().value_or(1);
    Value mask;
    if (op.getMulticast())
      mask = LLVM::TruncOp::create(b, loc, b.getI16Type(),
                                   adaptor.getMulticast().front());
    // This program's box j (rows (j·parts + part)·boxRows ..) is issued by
    // thread j of the role's first warp.
    int64_t ownBoxes = boxes / parts;
    for (int64_t first = 0; first < ownBoxes; first += 32) {
      Value box = LLVM::AddOp::create(b, loc, tid, i32Const(b, loc, first));
      if (mask)
        box = LLVM::AddOp::create(
            b, loc, LLVM::MulOp::create(b, loc, box, i32Const(b, loc, parts)),
            adaptor.getPart().front());
      Value issues = LLVM::ICmpOp::create(
          b, loc, LLVM::ICmpPredicate::ult, tid,
          i32Const(b, loc, std::min<int64_t>(32, ownBoxes - first)));
      Value row = LLVM::MulOp::create(b, loc, box, i32Const(b, loc, boxRows));
      Value stagedRow =
          swizzle.getWgmmaWarps()
              ? getWgmmaStagedRow(b, loc, row, swizzle.getWgmmaWarps())
              : row;
      Value dst = sharedByte(
          b, loc, stageBase,
          LLVM::MulOp::create(b, loc, stagedRow,
                              i32Const(b, loc, stage.rowBytes)));
      // Coordinates innermost first: column, then row.
      SmallVector<Value> coords = {
          col0, LLVM::AddOp::create(b, loc, row0, row).getResult()};
      if (leaderBarrier) {
        copyToPairLeader(b, loc, dst, adaptor.getMap().front(), coords,
                         leaderBarrier, issues, mask);
        continue;
      }
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, adaptor.getMap().front(), coords, barrier,
          /*im2colOffsets=*/ValueRange(), /*multicastMask=*/mask,
          /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
          /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr(), issues);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : public OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ctaBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTmaPatterns(TileTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<MakeTensorMapLowering, ViewAlignedLowering, MBarrierInitLowering,
               MBarrierExpectLowering, MBarrierWaitLowering,
               MBarrierArriveLowering, TmaCopyLowering, BarrierLowering>(
      converter, patterns.getContext());
}
