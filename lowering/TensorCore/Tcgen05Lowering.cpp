//===- Tcgen05Lowering.cpp - tile.dot on tcgen05 and tensor memory --------===//
//
// A dot whose accumulator has a `#tile.mma<version = 5, warps = [4, W],
// instr = [128, N, k]>` layout (tile-assign-layouts on sm_100a) runs on the
// fifth-generation tensor cores: `tcgen05.mma` issued by one thread reads
// both operands from shared memory through matrix descriptors and
// accumulates in tensor memory (TMEM), not in registers. So:
//
//  - The accumulator tile converts to one i1 per thread: whether TMEM holds
//    a value yet. The zero it starts from is `false` (no instruction); the
//    first tcgen05.mma of a dot then runs with enable-input-d = that bit,
//    so D = A·B overwrites whatever TMEM held, and later ones accumulate.
//  - Kernels with such a dot get, at entry, a TMEM allocation by warp 0
//    (`tcgen05.alloc` of a power of two >= 32 columns, writing the TMEM
//    address into the first of the kernel's tcgen05 words, the last 16
//    bytes of its dynamic shared memory (kTcgen05WordsBytes), then
//    `tcgen05.relinquish_alloc_permit`), published by fences around a CTA
//    barrier; before each return every thread's TMEM reads are done (a
//    barrier) and warp 0 `tcgen05.dealloc`s it. All tcgen05 accumulators
//    of a kernel start at column 0: tile-assign-layouts gives at most one
//    accumulator chain per kernel version 5.
//  - tile.dot: thread 0 issues, per K step, one `tcgen05.mma
//    .cta_group::1.kind::f16` (bf16/f16) or `.kind::f8f6f4` (e4m3/e5m2) on
//    two shared-memory descriptors (Tcgen05Descriptors.h) whose start
//    addresses advance 32 bytes along the rows, and the instruction
//    descriptor of the M x N shape. The operands are K-major rows in the
//    32/64/128-byte swizzle of their width: read in place from the stages
//    tile-pipeline-loads filled or, for a dot it did not pipeline, staged
//    from registers as for wgmma. An async dot (pipelined) is not awaited
//    here; a synchronous one is: thread 0 commits to the kernel's dot
//    mbarrier (the second tcgen05 word, initialized at entry), arrives on
//    it and waits for the phase its arrival belongs to, then a CTA
//    barrier lets every thread go on.
//  - tile.dot_commit: thread 0 (the issuing thread) `tcgen05.commit`s, so
//    the mbarrier receives an arrival once those mma have completed; the
//    pipeline's tile.mbarrier_wait on it guards stage reuse and the final
//    read of the accumulator.
//  - tile.convert_layout from the accumulator to getTmemLoadLayout reads
//    TMEM into registers: `tcgen05.ld.sync.aligned.32x32b.x{32,...}` (warp
//    w reads lanes 32·(w % 4) .. +31, its column block), then
//    `tcgen05.wait::ld` (inline PTX, see loadAndWait); f32 values, or zeros
//    where the bit says TMEM was never written (a loop of no iterations). The
//    epilogue (scale, cast, store) then runs on registers as on Hopper.
//
// CTA pairs (tile.cta_pair: the accumulator's instr M is 256) use
// cta_group::2 throughout: both programs allocate and free their tensor
// memory together (the free after a cluster barrier), thread 0 of the even
// program alone issues the M = 256 mma over both programs' stages and
// commits to the consumed barrier of both (the `multicast` mask of
// tile.dot_commit, which tile-pipeline-loads sets), and each program reads
// its own 128 rows back as above. With a cluster (pairs, tile.multicast), no
// program frees its tensor memory and exits before a cluster barrier: the
// others may still copy into its shared memory and arrive on its barriers.
//
// Nothing of this has run on Blackwell hardware: it is checked by ptxas
// (sm_100a) and FileCheck only.
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"
#include "lowering/TensorCore/OperandStaging.h"
#include "lowering/TensorCore/Tcgen05Descriptors.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"
#include "dialect/TileLayouts.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The kernel's dynamic shared-memory size, which ends with its tcgen05
/// words (kTcgen05WordsBytes, placed by tile-allocate-shared): from the
/// func.func before it is lowered, or from the metadata of the llvm.func
/// after.
std::optional<int64_t> getSharedBytes(Operation *op) {
  IntegerAttr bytes;
  if (auto func = dyn_cast<func::FuncOp>(op))
    bytes = func->getAttrOfType<IntegerAttr>(TileDialect::kSharedBytesAttrName);
  else if (auto func = op->getParentOfType<func::FuncOp>())
    bytes = func->getAttrOfType<IntegerAttr>(TileDialect::kSharedBytesAttrName);
  else if (auto func = op->getParentOfType<LLVM::LLVMFuncOp>())
    if (auto metadata =
            func->getAttrOfType<DictionaryAttr>(TileDialect::kMetadataAttrName))
      bytes = metadata.getAs<IntegerAttr>("shared_bytes");
  if (!bytes || bytes.getInt() < kTcgen05WordsBytes)
    return std::nullopt;
  return bytes.getInt();
}

/// The shared address (ptr<3>) `offset` bytes before the end of the
/// kernel's dynamic shared memory `bytes`.
Value sharedWord(OpBuilder &b, Location loc, int64_t bytes, int64_t offset) {
  return scratchByte(b, loc, bytes - offset, i32Const(b, loc, 0));
}

MmaLayoutAttr getTcgen05Layout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isTensorMemoryLayout(tensor.getEncoding()))
    return {};
  return cast<MmaLayoutAttr>(tensor.getEncoding());
}

Value threadId(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

Value isThreadZero(OpBuilder &b, Location loc) {
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, threadId(b, loc),
                              i32Const(b, loc, 0));
}

/// Whether `mma` is the layout of a CTA pair's dot: one M = 256
/// instruction (cta_group::2) over both programs' 128-row tiles.
bool isPairLayout(MmaLayoutAttr mma) { return mma.getInstrShape()[0] == 256; }

/// Whether the kernel around `op` runs its tcgen05 dot on CTA pairs
/// (tile.cta_pair, which the lowering keeps on the llvm.func).
bool isCtaPairKernel(Operation *op) {
  Operation *func = isa<func::FuncOp, LLVM::LLVMFuncOp>(op)
                        ? op
                        : op->getParentOfType<FunctionOpInterface>();
  return func && isCtaPair(func);
}

NVVM::CTAGroupKind getCtaGroup(bool paired) {
  return paired ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
}

/// Whether this program is the even one of its CTA pair, which issues the
/// pair's tcgen05.mma and commits.
Value isPairLeader(OpBuilder &b, Location loc) {
  Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  return LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::eq,
      LLVM::AndOp::create(b, loc, rank, i32Const(b, loc, 1)),
      i32Const(b, loc, 0));
}

/// The thread that issues tcgen05.mma and tcgen05.commit: thread 0, of the
/// pair's even program with CTA pairs.
Value isIssuingThread(OpBuilder &b, Location loc, bool paired) {
  Value first = isThreadZero(b, loc);
  return paired ? LLVM::AndOp::create(b, loc, first, isPairLeader(b, loc))
                : first;
}

/// barrier.cluster.arrive (release) and barrier.cluster.wait (acquire) by
/// every thread.
void clusterBarrier(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
}

Value isWarpZero(OpBuilder &b, Location loc) {
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult,
                              threadId(b, loc), i32Const(b, loc, 32));
}

/// Runs `body` in one branch taken where `cond` holds.
void emitIf(OpBuilder &b, Location loc, Value cond,
            function_ref<void(OpBuilder &)> body) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder then = OpBuilder::atBlockBegin(ifOp.thenBlock());
  then.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(then);
}

/// The mbarrier a synchronous tcgen05 dot waits on: two arrivals per phase,
/// thread 0's own and its tcgen05.commit's (see DotTcgen05Lowering).
Value getDotBarrier(OpBuilder &b, Location loc, int64_t bytes) {
  return sharedWord(b, loc, bytes, 8);
}

/// The shared word tcgen05.alloc writes the TMEM address into.
Value getTmemSlot(OpBuilder &b, Location loc, int64_t bytes) {
  return sharedWord(b, loc, bytes, 16);
}

/// The TMEM address of the kernel's allocation (i32: lane 0, column 0).
Value loadTmemBase(OpBuilder &b, Location loc, int64_t bytes) {
  return LLVM::LoadOp::create(b, loc, b.getI32Type(),
                              getTmemSlot(b, loc, bytes));
}

Value asTmemPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), address);
}

void tcgen05Fence(OpBuilder &b, Location loc, NVVM::Tcgen05FenceKind kind) {
  NVVM::Tcgen05FenceOp::create(b, loc, kind);
}

std::optional<tcgen05::OperandType> getOperandType(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return tcgen05::OperandType::E4M3;
  if (isa<Float8E5M2Type>(element))
    return tcgen05::OperandType::E5M2;
  if (element.isBF16())
    return tcgen05::OperandType::BF16;
  if (element.isF16())
    return tcgen05::OperandType::F16;
  return std::nullopt;
}

/// A shared-memory descriptor: the constant fields `bits` and the start
/// address of the rows at `address` (i32 shared address).
Value makeDescriptor(OpBuilder &b, Location loc, Value address, uint64_t bits) {
  Value field = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, address, i32Const(b, loc, 4)),
      i32Const(b, loc, 0x3FFF));
  Value wide = LLVM::ZExtOp::create(b, loc, b.getI64Type(), field);
  return LLVM::OrOp::create(b, loc, wide, i64Const(b, loc, int64_t(bits)));
}

struct DotTcgen05Lowering : public OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MmaLayoutAttr mma = getTcgen05Layout(op.getResult().getType());
    if (!mma)
      return failure();
    std::optional<DotStaging> s = getDotStaging(op);
    auto aType = cast<RankedTensorType>(op.getA().getType());
    std::optional<tcgen05::OperandType> type =
        getOperandType(aType.getElementType());
    ArrayRef<unsigned> instr = mma.getInstrShape();
    // A CTA pair's instruction spans both programs' rows.
    bool paired = isPairLayout(mma);
    unsigned group = paired ? 2 : 1;
    std::optional<uint32_t> idesc =
        type ? tcgen05::getInstrDescriptor(*type, *type, instr[0], instr[1],
                                           group)
             : std::nullopt;
    std::optional<uint64_t> descBits =
        tcgen05::getSmemDescriptorBits(s->rowBytes, s->swizzleBytes);
    if (!idesc || !descBits || s->m * group != instr[0] || s->n != instr[1] ||
        instr[2] != tcgen05::getInstrK(*type) || s->k % instr[2] != 0)
      return op.emitOpError("does not fit tcgen05.mma m")
             << instr[0] << "n" << instr[1] << "k" << instr[2]
             << " (needs M = 128 per program, N a multiple of 16 up to 256, "
                "K rows of 32-128 bytes of bf16, f16 or fp8)";
    if (paired && !op.getAsync())
      return op.emitOpError("of a CTA pair runs only as an async dot on "
                            "the stages tile-pipeline-loads fills");

    std::optional<int64_t> bytes = getSharedBytes(op);
    if (!bytes)
      return op.emitOpError("needs the kernel's tcgen05 words in shared "
                            "memory; run tile-allocate-shared first");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    FailureOr<OperandRows> aRows =
        getOperandRows(rewriter, loc, op, op.getA(), 0, *s, 0, 0);
    FailureOr<OperandRows> bRows =
        getOperandRows(rewriter, loc, op, op.getB(), 1, *s, s->offsetB, 0);
    if (failed(aRows) || failed(bRows))
      return failure();
    if ((!aRows->inPlace || !bRows->inPlace) && op.getAsync())
      return op.emitOpError("an async tcgen05 dot must read both operands "
                            "from the buffer stages tile-pipeline-loads fills");
    if (!aRows->inPlace || !bRows->inPlace) {
      // Staged from registers as for wgmma (rows in natural order), after
      // a barrier that protects scratch an earlier op may still read.
      auto aType = cast<RankedTensorType>(op.getA().getType());
      auto bType = cast<RankedTensorType>(op.getB().getType());
      ctaBarrier(b, loc);
      if ((!aRows->inPlace &&
           failed(stageOperand(b, loc, op, aType, adaptor.getA(), /*rowDim=*/0,
                               0, *s))) ||
          (!bRows->inPlace &&
           failed(stageOperand(b, loc, op, bType, adaptor.getB(), /*rowDim=*/1,
                               s->offsetB, *s))))
        return failure();
      // The tensor cores read shared memory through the async proxy.
      NVVM::FenceProxyOp::create(
          b, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(b.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      ctaBarrier(b, loc);
    }

    Value aBase = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), aRows->base);
    Value bBase = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), bRows->base);
    Value accumulate = adaptor.getAcc().front();
    auto kind = tcgen05::getMmaKind(*type) == tcgen05::MmaKind::F8F6F4
                    ? NVVM::Tcgen05MMAKind::F8F6F4
                    : NVVM::Tcgen05MMAKind::F16;
    // One thread issues the whole dot; the tensor cores run it
    // asynchronously, ordered after the waits that made the stages full.
    emitIf(b, loc, isIssuingThread(b, loc, paired), [&](OpBuilder &t) {
      tcgen05Fence(t, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      Value tmem = asTmemPointer(t, loc, loadTmemBase(t, loc, *bytes));
      Value idescValue = i32Const(t, loc, int64_t(*idesc));
      Value enable = accumulate;
      for (int64_t ks = 0; ks < s->k / instr[2]; ++ks) {
        Value step = i32Const(t, loc, 32 * ks);
        Value descA = makeDescriptor(
            t, loc, LLVM::AddOp::create(t, loc, aBase, step), *descBits);
        Value descB = makeDescriptor(
            t, loc, LLVM::AddOp::create(t, loc, bBase, step), *descBits);
        NVVM::Tcgen05MMAOp::create(
            t, loc, NVVM::Tcgen05MMAKindAttr::get(t.getContext(), kind),
            NVVM::CTAGroupKindAttr::get(t.getContext(), getCtaGroup(paired)),
            NVVM::Tcgen05MMACollectorOpAttr::get(
                t.getContext(), NVVM::Tcgen05MMACollectorOp::DISCARD),
            /*aShift=*/nullptr, tmem, descA, descB, idescValue, enable,
            /*scaleInputD=*/Value(), /*disableOutputLane=*/Value());
        enable = LLVM::ConstantOp::create(t, loc, t.getI1Type(),
                                          t.getBoolAttr(true));
      }
      if (op.getAsync())
        return;
      // A synchronous dot: thread 0 arrives on the dot barrier and commits
      // to it, and waits for the phase its own arrival returned, which
      // completes once the mma have (no parity to track across calls).
      Value barrier = getDotBarrier(t, loc, *bytes);
      NVVM::Tcgen05CommitOp::create(t, loc, barrier, /*multicastMask=*/Value(),
                                    NVVM::CTAGroupKind::CTA_1);
      Value state =
          NVVM::MBarrierArriveOp::create(t, loc, t.getI64Type(), barrier,
                                         /*count=*/Value())
              .getResult(0);
      auto wait = scf::WhileOp::create(t, loc, TypeRange{}, ValueRange{});
      Block *before = t.createBlock(&wait.getBefore());
      OpBuilder w = OpBuilder::atBlockBegin(before);
      Value done =
          NVVM::MBarrierTryWaitOp::create(w, loc, w.getI1Type(), barrier, state,
                                          /*ticks=*/Value())
              .getResult();
      Value pending = LLVM::XOrOp::create(
          w, loc, done,
          LLVM::ConstantOp::create(w, loc, w.getI1Type(), w.getBoolAttr(true)));
      scf::ConditionOp::create(w, loc, pending, ValueRange{});
      Block *after = t.createBlock(&wait.getAfter());
      OpBuilder a = OpBuilder::atBlockBegin(after);
      scf::YieldOp::create(a, loc);
      t.setInsertionPointAfter(wait);
      tcgen05Fence(t, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    });
    // Every thread goes on once the accumulator is written and the staged
    // operands are read.
    if (!op.getAsync()) {
      ctaBarrier(b, loc);
      tcgen05Fence(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    }
    SmallVector<Value> written = {
        LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true))};
    rewriter.replaceOpWithMultiple(op, {written});
    return success();
  }
};

struct DotCommitLowering : public OpConversionPattern<DotCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DotCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value barrier = sharedByte(
        b, loc, adaptor.getBarriers(),
        LLVM::MulOp::create(b, loc, adaptor.getIndex(), i32Const(b, loc, 8))
            .getResult());
    // tcgen05.commit tracks the async tcgen05 work of the executing thread:
    // thread 0, which issued the dots, and only it, so that each commit is
    // one arrival on each barrier it reaches.
    bool paired = isCtaPairKernel(op);
    emitIf(b, loc, isIssuingThread(b, loc, paired), [&](OpBuilder &t) {
      Value mask;
      if (Value multicast = adaptor.getMulticast())
        mask = LLVM::TruncOp::create(t, loc, t.getI16Type(), multicast);
      NVVM::Tcgen05CommitOp::create(t, loc, barrier, mask, getCtaGroup(paired));
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The accumulator's zero start: TMEM not written yet.
struct TmemZeroLowering : public OpConversionPattern<arith::ConstantOp> {
  TmemZeroLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getTcgen05Layout(op.getType()))
      return failure();
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    auto zero = dense ? dyn_cast<FloatAttr>(dense.getSplatValue<Attribute>())
                      : FloatAttr();
    if (!zero || !zero.getValue().isZero())
      return op.emitOpError("a tcgen05 accumulator can only start at zero");
    SmallVector<Value> empty = {
        LLVM::ConstantOp::create(rewriter, op.getLoc(), rewriter.getI1Type(),
                                 rewriter.getBoolAttr(false))};
    rewriter.replaceOpWithMultiple(op, {empty});
    return success();
  }
};

/// `tcgen05.ld.sync.aligned.32x32b.x<count>.b32` of the TMEM address `at`
/// (i32), then `tcgen05.wait::ld`, as one inline-PTX statement. Inline PTX
/// rather than nvvm.tcgen05.ld + nvvm.tcgen05.wait: the typed load's result
/// is an ordinary SSA value, so LLVM may read its registers (packing moves)
/// before the wait, which the ISA forbids; here the registers are defined
/// only once the wait has completed.
SmallVector<Value> loadAndWait(OpBuilder &b, Location loc, Value at,
                               int64_t count) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tcgen05.ld.sync.aligned.32x32b.x" << count << ".b32 {";
  std::string constraints;
  for (int64_t i = 0; i < count; ++i) {
    os << (i ? ", " : "") << "$" << i;
    constraints += "=r,";
  }
  os << "}, [$" << count << "];\n\ttcgen05.wait::ld.sync.aligned;";
  constraints += "r";
  Type i32 = b.getI32Type();
  Type result = count == 1 ? i32
                           : LLVM::LLVMStructType::getLiteral(
                                 b.getContext(), SmallVector<Type>(count, i32));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, result, ValueRange{at}, b.getStringAttr(text),
      b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
      /*is_align_stack=*/nullptr, LLVM::TailCallKindAttr(),
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/nullptr);
  if (count == 1)
    return {asmOp.getResult(0)};
  SmallVector<Value> words;
  for (int64_t i = 0; i < count; ++i)
    words.push_back(
        LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return words;
}

/// Tensor memory to registers: the accumulator in getTmemLoadLayout.
struct TmemLoadLowering : public OpConversionPattern<ConvertLayoutOp> {
  TmemLoadLowering(TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MmaLayoutAttr mma = getTcgen05Layout(op.getSrc().getType());
    if (!mma)
      return failure();
    auto result = cast<RankedTensorType>(op.getResult().getType());
    BlockedLayoutAttr layout = getTmemLoadLayout(mma);
    if (!layout || result.getEncoding() != layout ||
        !result.getElementType().isF32())
      return op.emitOpError("reads a tcgen05 accumulator only into ")
             << layout << " (tcgen05.ld 32x32b), f32";
    std::optional<int64_t> bytes = getSharedBytes(op);
    if (!bytes)
      return op.emitOpError("needs the kernel's tcgen05 words in shared "
                            "memory; run tile-allocate-shared first");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    int64_t columns = layout.getSizePerThread()[1];
    int64_t chunk = std::min<int64_t>(columns, 32);
    // The waits before (an mbarrier the dots committed to) are the thread
    // synchronization this fence orders the loads after.
    tcgen05Fence(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value warp =
        LLVM::LShrOp::create(b, loc, threadId(b, loc), i32Const(b, loc, 5));
    Value quarter = LLVM::AndOp::create(b, loc, warp, i32Const(b, loc, 3));
    Value block = LLVM::LShrOp::create(b, loc, warp, i32Const(b, loc, 2));
    // Lane 32·quarter in bits 16-31, column block·columns in bits 0-15.
    Value address = LLVM::AddOp::create(
        b, loc, loadTmemBase(b, loc, *bytes),
        LLVM::AddOp::create(
            b, loc,
            LLVM::ShlOp::create(b, loc, quarter, i32Const(b, loc, 5 + 16)),
            LLVM::MulOp::create(b, loc, block, i32Const(b, loc, columns))));
    SmallVector<Value> words;
    for (int64_t c = 0; c < columns; c += chunk) {
      Value at = LLVM::AddOp::create(b, loc, address, i32Const(b, loc, c));
      llvm::append_range(words, loadAndWait(b, loc, at, chunk));
    }
    Value written = adaptor.getSrc().front();
    Value zero =
        LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0));
    SmallVector<Value> values;
    for (Value word : words)
      values.push_back(LLVM::SelectOp::create(
          b, loc, written,
          LLVM::BitcastOp::create(b, loc, b.getF32Type(), word), zero));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

LogicalResult mlir::tile::allocateTensorMemory(ModuleOp module) {
  WalkResult result = module.walk([&](func::FuncOp func) {
    unsigned width = 0;
    bool synchronous = false, paired = false;
    func.walk([&](DotOp dot) {
      if (MmaLayoutAttr mma = getTcgen05Layout(dot.getResult().getType())) {
        width = std::max(width, mma.getInstrShape()[1]);
        synchronous |= !dot.getAsync();
        paired |= isPairLayout(mma);
      }
    });
    if (!width || func.getBody().empty())
      return WalkResult::advance();
    std::optional<unsigned> columns = tcgen05::getTmemColumns(width);
    if (!columns) {
      func.emitError() << "a tcgen05 accumulator of " << width
                       << " columns does not fit tensor memory (512)";
      return WalkResult::interrupt();
    }
    std::optional<int64_t> bytes = getSharedBytes(func);
    if (!bytes) {
      func.emitError() << "kernel '" << func.getSymName()
                       << "' has tcgen05 dots but no room for their shared "
                          "words; run tile-allocate-shared first";
      return WalkResult::interrupt();
    }
    Location loc = func.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    Value count = i32Const(b, loc, *columns);
    // Warp 0 allocates (tcgen05.alloc is warp-wide) and gives up the right
    // to allocate again, so that other CTAs on the SM are not kept waiting.
    // A CTA pair allocates the same columns in both programs: warp 0 of
    // each takes part in one cta_group::2 allocation.
    NVVM::CTAGroupKind group = getCtaGroup(paired);
    emitIf(b, loc, isWarpZero(b, loc), [&](OpBuilder &t) {
      NVVM::Tcgen05AllocOp::create(t, loc, getTmemSlot(t, loc, *bytes), count,
                                   group);
      NVVM::Tcgen05RelinquishAllocPermitOp::create(t, loc, group);
    });
    if (synchronous) {
      NVVM::MBarrierInitOp::create(b, loc, getDotBarrier(b, loc, *bytes),
                                   i32Const(b, loc, 2), isThreadZero(b, loc));
      // Published to the tensor cores' arrivals as the TMA rings' are.
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    tcgen05Fence(b, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    ctaBarrier(b, loc);
    tcgen05Fence(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    func.walk([&](func::ReturnOp ret) {
      OpBuilder r(ret);
      Location at = ret.getLoc();
      // Every warp's tcgen05.ld is complete (tcgen05.wait::ld) before the
      // barrier; then warp 0 releases the columns. A cluster waits for all
      // its programs: a pair's leader's dots read the other's shared
      // memory, whose last copies the leader waited for, both free the
      // columns together, and multicast copies and commits of the others
      // may still land in this program's shared memory.
      tcgen05Fence(r, at, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
      if (getClusterPrograms(func) > 1)
        clusterBarrier(r, at);
      else
        ctaBarrier(r, at);
      emitIf(r, at, isWarpZero(r, at), [&](OpBuilder &t) {
        tcgen05Fence(t, at, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        NVVM::Tcgen05DeallocOp::create(
            t, at, asTmemPointer(t, at, loadTmemBase(t, at, *bytes)),
            i32Const(t, at, *columns), group);
      });
    });
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void mlir::tile::populateTcgen05Patterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<DotTcgen05Lowering, DotCommitLowering, TmemZeroLowering,
               TmemLoadLowering>(converter, patterns.getContext());
}
