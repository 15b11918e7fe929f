//===- AsyncCopyLowering.cpp - cp.async into staged shared buffers --------===//
//
// tile.async_copy moves an R×C tile of a global view into one stage of a
// staged buffer, 16 bytes per `cp.async.cg` (chunks spread over the
// program's threads, each written to its swizzled place: the layout the
// tensor-core lowerings read, see OperandStaging.h). Elements past the
// view's extents are zero-filled by the copy's source size.
//
// cp.async copies 16 bytes from 16-byte aligned sources (.cg), or 8 or 4
// from sources aligned to that (.ca). Whether the view's base, row stride
// and column offset give 16 is known only at run time (a K of 4127 bf16
// gives rows 8254 bytes apart), so the copy tests it once per program (a
// uniform branch) and otherwise moves each 16-byte chunk with element
// loads and one 16-byte shared store: slower, equally correct. With the
// pass's async-copy-min-bytes at 8 (or 4), sources aligned to 8 (or 4)
// bytes take two (or four) cp.async per chunk before element loads (K =
// 1000 fp8: rows 1000 bytes apart). The default, 16, leaves those tiers
// out: they add code to every ring's fallback, and ptxas's register count
// of the whole kernel with it.
//
// tile.async_commit and tile.async_wait are the cp.async group
// instructions; the wait adds the barrier that makes every thread's copies
// visible, and on sm_90 and later the proxy fence that makes them visible
// to wgmma. tile.load_stage produces no code: the dots that read the stage
// take its address (getStagedOperand).
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"
#include "lowering/TensorCore/OperandStaging.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Threads of the kernel `op` is in, before or after its function is
/// converted (nvvm.reqntid then holds the block size).
int64_t getKernelThreads(Operation *op) {
  // In a warp-specialized kernel the consumers copy alone.
  if (int64_t consumers = getConsumerThreads(op))
    return consumers;
  if (auto func = op->getParentOfType<func::FuncOp>())
    return 32 * int64_t(getNumWarps(func));
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  auto block = func->getAttrOfType<DenseI32ArrayAttr>(
      NVVM::NVVMDialect::getReqntidAttrName());
  return block.asArrayRef()[0];
}

Value i64Arith(OpBuilder &b, Location loc, Value v) {
  return v.getType().isInteger(64)
             ? v
             : LLVM::SExtOp::create(b, loc, b.getI64Type(), v).getResult();
}

struct AsyncCopyLowering : public OpConversionPattern<AsyncCopyOp> {
  AsyncCopyLowering(TypeConverter &converter, MLIRContext *context,
                    unsigned minCopyBytes)
      : OpConversionPattern(converter, context), minCopyBytes(minCopyBytes) {}

  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SharedBufferType bufferType = op.getBuffer().getType();
    DotStaging stage = getStageLayout(bufferType);
    auto swizzle = cast<SwizzleAttr>(bufferType.getSwizzle());
    int64_t eb = stage.elementBytes;
    int64_t perChunk = 16 / eb;
    int64_t chunksPerRow = stage.rowBytes / 16;
    int64_t chunks = stage.m * chunksPerRow;
    int64_t threads = getKernelThreads(op);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto c32 = [&](int64_t v) { return i32Const(b, loc, v); };
    auto c64 = [&](int64_t v) { return i64Const(b, loc, v); };

    ValueRange view = adaptor.getView();
    Value base = view[0];
    Value rows = view[1], cols = view[2], rowStride = view[3],
          colStride = view[4];
    Value row0 = i64Arith(b, loc, adaptor.getOffsets()[0].front());
    Value col0 = i64Arith(b, loc, adaptor.getOffsets()[1].front());
    auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
    Value stageIndex = adaptor.getStage().front();
    Value stageBase = LLVM::GEPOp::create(
        b, loc, sharedPtr, b.getI8Type(), adaptor.getBuffer().front(),
        ValueRange{LLVM::MulOp::create(b, loc, stageIndex,
                                       c32(getStageBytes(bufferType)))});

    // Sources aligned to `bytes`: base, row stride and first column all
    // multiples of it and the columns contiguous. The same for every thread
    // of the program.
    auto isZero = [&](Value v) {
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, v, c64(0));
    };
    Value baseInt = LLVM::PtrToIntOp::create(b, loc, i64, base);
    Value rowBytes = LLVM::MulOp::create(b, loc, rowStride, c64(eb));
    Value colBytes = LLVM::MulOp::create(b, loc, col0, c64(eb));
    llvm::SmallDenseMap<int64_t, Value> alignedTo;
    for (int64_t bytes = 16; bytes >= int64_t(minCopyBytes); bytes /= 2) {
      Value aligned = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                           colStride, c64(1));
      for (Value v : {baseInt, rowBytes, colBytes})
        aligned = LLVM::AndOp::create(
            b, loc, aligned,
            isZero(LLVM::AndOp::create(b, loc, v, c64(bytes - 1))));
      alignedTo[bytes] = aligned;
    }

    Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
    Type elementInt = b.getIntegerType(8 * eb);
    auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
    // `unit`: the bytes of each cp.async (16, 8 or 4), or 0 for element
    // loads.
    auto copyChunks = [&](OpBuilder &b, Location loc, int64_t unit) {
      for (int64_t first = 0; first < chunks; first += threads) {
        Value chunk = LLVM::AddOp::create(b, loc, tid, c32(first));
        auto copyOne = [&](OpBuilder &b, Location loc) {
          Value row = LLVM::UDivOp::create(b, loc, chunk, c32(chunksPerRow));
          Value inRow = LLVM::URemOp::create(b, loc, chunk, c32(chunksPerRow));
          Value col = LLVM::MulOp::create(b, loc, inRow, c32(perChunk));
          Value stagedRow =
              swizzle.getWgmmaWarps()
                  ? getWgmmaStagedRow(b, loc, row, swizzle.getWgmmaWarps())
                  : row;
          Value dst = LLVM::GEPOp::create(
              b, loc, sharedPtr, b.getI8Type(), stageBase,
              ValueRange{stagedOffset(b, loc, stage, stagedRow, col)});
          Value gRow = LLVM::AddOp::create(
              b, loc, row0, LLVM::ZExtOp::create(b, loc, i64, row));
          Value gCol = LLVM::AddOp::create(
              b, loc, col0, LLVM::ZExtOp::create(b, loc, i64, col));
          // Elements of this chunk inside the view: clamp(cols - gCol,
          // 0, perChunk), none when the row is outside.
          Value avail = LLVM::SubOp::create(b, loc, cols, gCol);
          avail = LLVM::SMaxOp::create(b, loc, avail, c64(0));
          avail = LLVM::SMinOp::create(b, loc, avail, c64(perChunk));
          Value rowInside = LLVM::ICmpOp::create(
              b, loc, LLVM::ICmpPredicate::slt, gRow, rows);
          Value valid =
              LLVM::SelectOp::create(b, loc, rowInside, avail, c64(0));
          Value rowStart = LLVM::MulOp::create(b, loc, gRow, rowStride);
          if (unit) {
            Value offset = LLVM::MulOp::create(
                b, loc, LLVM::AddOp::create(b, loc, rowStart, gCol), c64(eb));
            // A chunk that reads nothing still names a valid address.
            offset = LLVM::SelectOp::create(
                b, loc,
                LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sgt, valid,
                                     c64(0)),
                offset, c64(0));
            Value validBytes = LLVM::MulOp::create(b, loc, valid, c64(eb));
            if (unit == 16) {
              Value src = LLVM::GEPOp::create(b, loc, globalPtr, b.getI8Type(),
                                              base, ValueRange{offset});
              NVVM::CpAsyncOp::create(
                  b, loc, dst, src, b.getI32IntegerAttr(16),
                  NVVM::LoadCacheModifierKindAttr::get(
                      b.getContext(), NVVM::LoadCacheModifierKind::CG),
                  LLVM::TruncOp::create(b, loc, i32, validBytes));
              return;
            }
            // Piece p of the chunk reads clamp(validBytes - p·unit, 0,
            // unit) bytes from its own aligned address (the chunk's when it
            // reads none); the rest of it is zero-filled.
            for (int64_t at = 0; at < 16; at += unit) {
              Value pieceBytes = LLVM::SMinOp::create(
                  b, loc,
                  LLVM::SMaxOp::create(
                      b, loc, LLVM::SubOp::create(b, loc, validBytes, c64(at)),
                      c64(0)),
                  c64(unit));
              Value pieceOffset = offset;
              if (at > 0)
                pieceOffset = LLVM::SelectOp::create(
                    b, loc,
                    LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sgt,
                                         pieceBytes, c64(0)),
                    LLVM::AddOp::create(b, loc, offset, c64(at)), offset);
              Value src = LLVM::GEPOp::create(b, loc, globalPtr, b.getI8Type(),
                                              base, ValueRange{pieceOffset});
              Value pieceDst =
                  at == 0
                      ? dst
                      : LLVM::GEPOp::create(b, loc, sharedPtr, b.getI8Type(),
                                            dst, ValueRange{c32(at)})
                            .getResult();
              NVVM::CpAsyncOp::create(
                  b, loc, pieceDst, src, b.getI32IntegerAttr(unit),
                  NVVM::LoadCacheModifierKindAttr::get(
                      b.getContext(), NVVM::LoadCacheModifierKind::CA),
                  LLVM::TruncOp::create(b, loc, i32, pieceBytes));
            }
            return;
          }
          auto vecType = VectorType::get({perChunk}, elementInt);
          Value packed = LLVM::ZeroOp::create(b, loc, vecType);
          for (int64_t e = 0; e < perChunk; ++e) {
            Value inside = LLVM::ICmpOp::create(
                b, loc, LLVM::ICmpPredicate::sgt, valid, c64(e));
            auto load = scf::IfOp::create(
                b, loc, inside,
                [&](OpBuilder &tb, Location l) {
                  Value colE = LLVM::AddOp::create(tb, l, gCol, c64(e));
                  Value index = LLVM::AddOp::create(
                      tb, l, rowStart,
                      LLVM::MulOp::create(tb, l, colE, colStride));
                  Value addr = LLVM::GEPOp::create(tb, l, globalPtr, elementInt,
                                                   base, ValueRange{index});
                  scf::YieldOp::create(
                      tb, l,
                      ValueRange{LLVM::LoadOp::create(tb, l, elementInt, addr)
                                     .getResult()});
                },
                [&](OpBuilder &tb, Location l) {
                  scf::YieldOp::create(
                      tb, l,
                      ValueRange{LLVM::ConstantOp::create(
                                     tb, l, elementInt,
                                     tb.getIntegerAttr(elementInt, 0))
                                     .getResult()});
                });
            packed = LLVM::InsertElementOp::create(b, loc, packed,
                                                   load.getResult(0), c32(e));
          }
          LLVM::StoreOp::create(b, loc, packed, dst, /*alignment=*/16);
        };
        if (first + threads <= chunks) {
          copyOne(b, loc);
          continue;
        }
        Value inTile = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult,
                                            chunk, c32(chunks));
        scf::IfOp::create(b, loc, inTile, [&](OpBuilder &tb, Location l) {
          copyOne(tb, l);
          scf::YieldOp::create(tb, l);
        });
      }
    };
    // 16-byte copies, else 8, else 4 (only while a chunk holds at least
    // one whole element per piece), else element loads.
    std::function<void(OpBuilder &, Location, int64_t)> tiers =
        [&](OpBuilder &tb, Location l, int64_t unit) {
          if (unit < int64_t(minCopyBytes) || unit < eb) {
            copyChunks(tb, l, /*unit=*/0);
            return;
          }
          scf::IfOp::create(
              tb, l, alignedTo[unit],
              [&](OpBuilder &ab, Location al) {
                copyChunks(ab, al, unit);
                scf::YieldOp::create(ab, al);
              },
              [&](OpBuilder &nb, Location nl) {
                tiers(nb, nl, unit / 2);
                scf::YieldOp::create(nb, nl);
              });
        };
    tiers(b, loc, 16);
    rewriter.eraseOp(op);
    return success();
  }

  // The smallest cp.async (16, 8 or 4 bytes) before element loads.
  unsigned minCopyBytes;
};

/// tile.async_gather: each thread copies the elements its index tiles'
/// layout gives it into their swizzled places in the stage. A run of the
/// thread's elements along the last dimension that fills 16 bytes goes as
/// one `cp.async.cg` when, at run time, its coordinates are consecutive
/// columns of one row inside the view's columns, the inner stride is 1
/// and the source is aligned (the test folds for index tiles built from
/// iotas and broadcasts, as for tile.gather); a row outside the view
/// (a masked token's row -1, say) then copies zero bytes, which zero-fills
/// the chunk without reading memory. Any other run moves element by
/// element, out-of-bounds coordinates reading zero. When every run of the
/// thread qualifies (an aligned view, columns in range: the usual case)
/// one branch takes them all to cp.async, with no branch per run.
struct AsyncGatherLowering : public OpConversionPattern<AsyncGatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncGatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto indexType = cast<RankedTensorType>(op.getIndices()[0].getType());
    FailureOr<Distribution> dist = getDistribution(indexType);
    if (failed(dist))
      return op.emitOpError("index tiles have no register layout; run "
                            "tile-assign-layouts first");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    SharedBufferType bufferType = op.getBuffer().getType();
    DotStaging stage = getStageLayout(bufferType);
    int64_t eb = stage.elementBytes;
    Type elementType =
        getTypeConverter()->convertType(bufferType.getElementType());
    auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
    auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
    auto c64 = [&](int64_t v) { return i64Const(b, loc, v); };

    ValueRange view = adaptor.getView();
    Value base = view[0];
    Value rows = view[1], cols = view[2], rowStride = view[3],
          colStride = view[4];
    ValueRange rowIdx = adaptor.getIndices()[0],
               colIdx = adaptor.getIndices()[1];
    Value stageBase = LLVM::GEPOp::create(
        b, loc, sharedPtr, b.getI8Type(), adaptor.getBuffer().front(),
        ValueRange{LLVM::MulOp::create(b, loc, adaptor.getStage().front(),
                                       i32Const(b, loc, stage.totalBytes))});

    // Runs along the last dimension: 16 bytes, or single elements.
    int64_t vec = 1;
    unsigned last = dist->blockedRank() - 1;
    if (dist->tileDims.size() == 2 && dist->blockedRank() == 2 &&
        dist->blocked.getOrder()[0] == last && !dist->wraps(last) &&
        dist->blocked.getSizePerThread()[last] % (16 / eb) == 0)
      vec = 16 / eb;
    Value unitStride = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                            colStride, c64(1));
    Value baseInt = LLVM::PtrToIntOp::create(b, loc, i64, base);
    ThreadPosition pos = getThreadPosition(b, loc, *dist);

    // Shared address of the element at tile coordinates (r, c).
    auto sharedAt = [&](OpBuilder &ob, Location l, Value r, Value c) {
      return LLVM::GEPOp::create(ob, l, sharedPtr, ob.getI8Type(), stageBase,
                                 ValueRange{stagedOffset(ob, l, stage, r, c)});
    };
    // Copies element e of the thread, zero when outside the view.
    auto copyElement = [&](OpBuilder &ob, Location l, int64_t e,
                           ArrayRef<Value> coords) {
      Value row = LLVM::SExtOp::create(ob, l, i64, rowIdx[e]);
      Value col = LLVM::SExtOp::create(ob, l, i64, colIdx[e]);
      Value inside = LLVM::AndOp::create(
          ob, l,
          LLVM::ICmpOp::create(ob, l, LLVM::ICmpPredicate::ult, row, rows),
          LLVM::ICmpOp::create(ob, l, LLVM::ICmpPredicate::ult, col, cols));
      Value index =
          LLVM::AddOp::create(ob, l, LLVM::MulOp::create(ob, l, row, rowStride),
                              LLVM::MulOp::create(ob, l, col, colStride));
      auto value = scf::IfOp::create(
          ob, l, inside,
          [&](OpBuilder &tb, Location tl) {
            Value addr = LLVM::GEPOp::create(tb, tl, globalPtr, elementType,
                                             base, ValueRange{index});
            scf::YieldOp::create(
                tb, tl,
                ValueRange{LLVM::LoadOp::create(tb, tl, elementType, addr)
                               .getResult()});
          },
          [&](OpBuilder &tb, Location tl) {
            scf::YieldOp::create(
                tb, tl,
                ValueRange{LLVM::ConstantOp::create(tb, tl, elementType,
                                                    tb.getZeroAttr(elementType))
                               .getResult()});
          });
      LLVM::StoreOp::create(ob, l, value.getResult(0),
                            sharedAt(ob, l, coords[0], coords[1]));
    };

    if (vec == 1) {
      for (int64_t e = 0, n = dist->numElements(); e < n; ++e)
        copyElement(b, loc, e, getElementCoords(b, loc, *dist, pos, e));
      rewriter.eraseOp(op);
      return success();
    }

    // Whether the view's base and row stride keep every 16-byte-aligned
    // column run aligned: one test for the whole gather.
    Value viewAligned = LLVM::AndOp::create(
        b, loc, unitStride,
        LLVM::AndOp::create(
            b, loc,
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                 LLVM::AndOp::create(b, loc, baseInt, c64(15)),
                                 c64(0)),
            LLVM::ICmpOp::create(
                b, loc, LLVM::ICmpPredicate::eq,
                LLVM::AndOp::create(
                    b, loc, LLVM::MulOp::create(b, loc, rowStride, c64(eb)),
                    c64(15)),
                c64(0))));
    struct Chunk {
      int64_t e;
      SmallVector<Value> coords;
      Value src, dst, bytes, fast;
    };
    SmallVector<Chunk> chunkList;
    Value allFast = viewAligned;
    for (int64_t e = 0, n = dist->numElements(); e < n; e += vec) {
      Chunk chunk{e, getElementCoords(b, loc, *dist, pos, e), {}, {}, {}, {}};
      Value row = LLVM::SExtOp::create(b, loc, i64, rowIdx[e]);
      Value col = LLVM::SExtOp::create(b, loc, i64, colIdx[e]);
      Value lastCol = LLVM::AddOp::create(b, loc, col, c64(vec - 1));
      // The run is vec consecutive columns of one row inside the view's
      // columns (folds for index tiles built from iotas).
      Value columns =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, lastCol, cols);
      columns = LLVM::AndOp::create(
          b, loc, columns,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, col, c64(0)));
      for (int64_t k = 1; k < vec; ++k) {
        Type t = colIdx[e].getType();
        Value nextCol = LLVM::AddOp::create(
            b, loc, colIdx[e],
            LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, k)));
        columns = LLVM::AndOp::create(
            b, loc, columns,
            LLVM::AndOp::create(
                b, loc,
                LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                     colIdx[e + k], nextCol),
                LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                     rowIdx[e + k], rowIdx[e])));
      }
      Value rowInside =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, row, rows);
      // A row outside the view reads nothing, from the view's base.
      Value offset = LLVM::SelectOp::create(
          b, loc, rowInside,
          LLVM::MulOp::create(
              b, loc,
              LLVM::AddOp::create(
                  b, loc, LLVM::MulOp::create(b, loc, row, rowStride), col),
              c64(eb)),
          c64(0));
      chunk.src = LLVM::GEPOp::create(b, loc, globalPtr, b.getI8Type(), base,
                                      ValueRange{offset});
      Value srcBits = LLVM::AddOp::create(b, loc, baseInt, offset);
      chunk.fast = LLVM::AndOp::create(
          b, loc, LLVM::AndOp::create(b, loc, unitStride, columns),
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                               LLVM::AndOp::create(b, loc, srcBits, c64(15)),
                               c64(0)));
      // Under an aligned view, an aligned first column makes an aligned
      // source.
      allFast = LLVM::AndOp::create(
          b, loc, allFast,
          LLVM::AndOp::create(
              b, loc, columns,
              LLVM::ICmpOp::create(
                  b, loc, LLVM::ICmpPredicate::eq,
                  LLVM::AndOp::create(b, loc,
                                      LLVM::MulOp::create(b, loc, col, c64(eb)),
                                      c64(15)),
                  c64(0))));
      chunk.bytes = LLVM::SelectOp::create(
          b, loc, rowInside, i32Const(b, loc, 16), i32Const(b, loc, 0));
      chunk.dst = sharedAt(b, loc, chunk.coords[0], chunk.coords[1]);
      chunkList.push_back(std::move(chunk));
    }
    auto cpAsync = [&](OpBuilder &ob, Location l, const Chunk &chunk) {
      NVVM::CpAsyncOp::create(
          ob, l, chunk.dst, chunk.src, ob.getI32IntegerAttr(16),
          NVVM::LoadCacheModifierKindAttr::get(ob.getContext(),
                                               NVVM::LoadCacheModifierKind::CG),
          chunk.bytes);
    };
    // Every run of the thread qualifies (the usual case: a row-major view
    // gathered by rows): one cp.async per run, no branch per run. Else each
    // run decides for itself.
    scf::IfOp::create(
        b, loc, allFast,
        [&](OpBuilder &tb, Location l) {
          for (const Chunk &chunk : chunkList)
            cpAsync(tb, l, chunk);
          scf::YieldOp::create(tb, l);
        },
        [&](OpBuilder &tb, Location l) {
          for (const Chunk &chunk : chunkList)
            scf::IfOp::create(
                tb, l, chunk.fast,
                [&](OpBuilder &ib, Location il) {
                  cpAsync(ib, il, chunk);
                  scf::YieldOp::create(ib, il);
                },
                [&](OpBuilder &ib, Location il) {
                  for (int64_t k = 0; k < vec; ++k) {
                    SmallVector<Value> at = {
                        chunk.coords[0],
                        LLVM::AddOp::create(ib, il, chunk.coords[1],
                                            i32Const(ib, il, k))};
                    copyElement(ib, il, chunk.e + k, at);
                  }
                  scf::YieldOp::create(ib, il);
                });
          scf::YieldOp::create(tb, l);
        });
    (void)i32;
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitLowering : public OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : public OpConversionPattern<AsyncWaitOp> {
  AsyncWaitLowering(TypeConverter &converter, MLIRContext *context,
                    StringRef target)
      : OpConversionPattern(converter, context), asyncProxy(target != "sm_80") {
  }

  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::CpAsyncWaitGroupOp::create(rewriter, loc, op.getPending());
    // cp.async writes through the generic proxy; wgmma reads through the
    // async proxy.
    if (asyncProxy)
      NVVM::FenceProxyOp::create(
          rewriter, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    ctaBarrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

  bool asyncProxy;
};

/// The stage is read in place by the dots that use it; the registers the
/// tile would occupy are never read (see LoadStageOp's verifier).
struct LoadStageLowering : public OpConversionPattern<LoadStageOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadStageOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(
            getTypeConverter()->convertType(op.getResult().getType(), types)))
      return op.emitOpError("tile has no register layout; run "
                            "tile-assign-layouts first");
    SmallVector<Value> values;
    for (Type type : types)
      values.push_back(LLVM::PoisonOp::create(rewriter, op.getLoc(), type));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tile::populateAsyncCopyPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           StringRef target,
                                           unsigned minCopyBytes) {
  patterns.add<AsyncGatherLowering, AsyncCommitLowering, LoadStageLowering>(
      converter, patterns.getContext());
  patterns.add<AsyncCopyLowering>(converter, patterns.getContext(),
                                  minCopyBytes);
  patterns.add<AsyncWaitLowering>(converter, patterns.getContext(), target);
}
