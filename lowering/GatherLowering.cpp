//===- GatherLowering.cpp - accesses at per-element coordinates ----------===//
//
// tile.gather reads element i of its result from view[idx0[i], idx1[i], ...].
// Each thread loads the elements it holds. Where the layout gives a thread a
// run of elements along the contiguous dimension (the same runs tile.load
// moves as one vector), the run is loaded with one 16-byte (or narrower)
// access when, at run time, its coordinates are consecutive along the last
// dimension and equal along the others, it lies in bounds, the view's inner
// stride is 1 and the address is aligned. Index tiles built from iotas and
// broadcasts (a page table's rows expanded over the columns of a page) make
// the consecutiveness test fold away in LLVM, so a row gather costs what a
// tile.load of the same rows costs. Otherwise elements are loaded one at a
// time; out-of-bounds coordinates read zero.
//
// tile.scatter_store writes element i of its value to view[idx0[i], ...]:
// the one holder of each element whose coordinate does not wrap (replicated
// layouts hold an element in several threads) stores it, one element at a
// time, where its mask bit is set and its coordinates are in bounds.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Elements per vector access: the thread's run along the last dimension,
/// capped at 16 bytes (as for tile.load).
unsigned getRunLength(const Distribution &dist, Type elementType) {
  unsigned rank = dist.blockedRank();
  if (dist.tileDims.size() != rank)
    return 1;
  unsigned last = rank - 1;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (dist.blocked.getOrder()[0] != last || dist.wraps(last) || bits < 8)
    return 1;
  return std::min<unsigned>(dist.blocked.getSizePerThread()[last],
                            std::max(1u, 128 / bits));
}

struct GatherLowering : public OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    FailureOr<Distribution> dist = getLaidOutDistribution(op, type);
    if (failed(dist) ||
        failed(requireLayoutOf(op, op.getIndices(), type,
                               "indices must have the layout of the result")))
      return failure();

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    Type elementType = getTypeConverter()->convertType(type.getElementType());
    unsigned rank = op.getIndices().size(), last = rank - 1;
    ValueRange view = adaptor.getView();
    Value base = view[0];
    ValueRange sizes = view.slice(1, rank),
               strides = view.slice(1 + rank, rank);
    SmallVector<ValueRange> indices(adaptor.getIndices().begin(),
                                    adaptor.getIndices().end());
    Value zero = LLVM::ConstantOp::create(b, loc, elementType,
                                          b.getZeroAttr(elementType));

    // Coordinates of element e, its address and whether it is in bounds.
    auto place = [&](OpBuilder &ob, int64_t e, Value &address,
                     Value &inBounds) {
      Value linear = i64Const(ob, loc, 0);
      inBounds = {};
      for (unsigned d = 0; d < rank; ++d) {
        Value coord = LLVM::SExtOp::create(ob, loc, i64, indices[d][e]);
        // Unsigned compare also rejects negative coordinates.
        Value inside = LLVM::ICmpOp::create(ob, loc, LLVM::ICmpPredicate::ult,
                                            coord, sizes[d]);
        inBounds =
            inBounds ? LLVM::AndOp::create(ob, loc, inBounds, inside) : inside;
        linear = LLVM::AddOp::create(
            ob, loc, linear, LLVM::MulOp::create(ob, loc, coord, strides[d]));
      }
      address = LLVM::GEPOp::create(ob, loc, base.getType(), elementType, base,
                                    ValueRange{linear});
    };
    auto scalarLoad = [&](OpBuilder &ob, int64_t e) -> Value {
      Value address, inBounds;
      place(ob, e, address, inBounds);
      auto ifOp = scf::IfOp::create(
          ob, loc, inBounds,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(
                tb, l,
                LLVM::LoadOp::create(tb, l, elementType, address).getResult());
          },
          [&](OpBuilder &eb, Location l) {
            scf::YieldOp::create(eb, l, zero);
          });
      return ifOp.getResult(0);
    };

    unsigned vec = getRunLength(*dist, elementType);
    unsigned bytes = vec * elementType.getIntOrFloatBitWidth() / 8;
    auto vecType = VectorType::get({vec}, elementType);
    Value unitStride;
    if (vec > 1)
      unitStride = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                        strides[last], i64Const(b, loc, 1));
    SmallVector<Value> results(dist->numElements());
    for (int64_t e = 0, n = dist->numElements(); e < n; e += vec) {
      if (vec == 1) {
        results[e] = scalarLoad(b, e);
        continue;
      }
      Value address, inBounds;
      place(b, e, address, inBounds);
      Value firstCol = LLVM::SExtOp::create(b, loc, i64, indices[last][e]);
      Value lastCol =
          LLVM::AddOp::create(b, loc, firstCol, i64Const(b, loc, vec - 1));
      Value fast = LLVM::AndOp::create(b, loc, unitStride, inBounds);
      fast = LLVM::AndOp::create(b, loc, fast,
                                 LLVM::ICmpOp::create(b, loc,
                                                      LLVM::ICmpPredicate::ult,
                                                      lastCol, sizes[last]));
      Value addressBits = LLVM::PtrToIntOp::create(b, loc, i64, address);
      fast = LLVM::AndOp::create(
          b, loc, fast,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                               LLVM::AndOp::create(b, loc, addressBits,
                                                   i64Const(b, loc, bytes - 1)),
                               i64Const(b, loc, 0)));
      // The run is one vector only if its coordinates step by one along
      // the last dimension and stay put along the others.
      for (unsigned k = 1; k < vec; ++k) {
        for (unsigned d = 0; d < rank; ++d) {
          Value expected = indices[d][e];
          if (d == last) {
            Type t = expected.getType();
            expected = LLVM::AddOp::create(
                b, loc, expected,
                LLVM::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, k)));
          }
          fast = LLVM::AndOp::create(
              b, loc, fast,
              LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                   indices[d][e + k], expected));
        }
      }
      auto ifOp = scf::IfOp::create(
          b, loc, fast,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(
                tb, l,
                LLVM::LoadOp::create(tb, l, vecType, address, bytes)
                    .getResult());
          },
          [&](OpBuilder &eb, Location l) {
            Value v = LLVM::PoisonOp::create(eb, l, vecType);
            for (unsigned k = 0; k < vec; ++k)
              v = LLVM::InsertElementOp::create(eb, l, v, scalarLoad(eb, e + k),
                                                i32Const(eb, l, k));
            scf::YieldOp::create(eb, l, v);
          });
      for (unsigned k = 0; k < vec; ++k)
        results[e + k] = LLVM::ExtractElementOp::create(
            b, loc, ifOp.getResult(0), i32Const(b, loc, k));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};
struct ScatterStoreLowering : public OpConversionPattern<ScatterStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getValue().getType());
    FailureOr<Distribution> dist = getLaidOutDistribution(op, type);
    if (failed(dist) ||
        failed(requireLayoutOf(op, op.getIndices(), type,
                               "indices must have the layout of the value")))
      return failure();
    if (Value mask = op.getMask())
      if (failed(requireLayoutOf(op, mask, type,
                                 "mask must have the layout of the value")))
        return failure();

    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    unsigned rank = op.getIndices().size();
    ValueRange view = adaptor.getView();
    Value base = view[0];
    ValueRange sizes = view.slice(1, rank),
               strides = view.slice(1 + rank, rank);
    ValueRange values = adaptor.getValue();
    ValueRange mask = adaptor.getMask();
    Type elementType = values.front().getType();
    ThreadPosition pos = getThreadPosition(b, loc, *dist);
    for (int64_t e = 0, n = dist->numElements(); e < n; ++e) {
      Value cond = isElementOwner(b, loc, *dist, pos, e);
      if (!mask.empty())
        cond = LLVM::AndOp::create(b, loc, cond, mask[e]);
      SmallVector<Value> coords;
      for (unsigned d = 0; d < rank; ++d) {
        Value coord = getViewCoord(b, loc, adaptor.getIndices()[d][e], Value());
        coords.push_back(coord);
        // Unsigned compare also rejects negative coordinates.
        cond = LLVM::AndOp::create(
            b, loc, cond,
            LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, coord,
                                 sizes[d]));
      }
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
      OpBuilder tb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      Value address =
          getViewElementAddress(tb, loc, base, elementType, strides, coords);
      LLVM::StoreOp::create(tb, loc, values[e], address);
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateGatherPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<GatherLowering, ScatterStoreLowering>(converter,
                                                     patterns.getContext());
}
