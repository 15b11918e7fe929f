//===- MemoryLowering.cpp - global views, loads and stores ---------------===//
//
// A tile access becomes, per thread, one access per group of elements that
// are contiguous in memory. A group is moved with one 16-byte (or narrower)
// vector access when the view is provably contiguous and aligned at run time
// and the group lies in bounds; otherwise element by element, predicated on
// the bounds and the mask. The alignment test is uniform across the CTA, so
// the fast path costs one well-predicted branch per group.
//
// Views have 32-bit extents, strides and offsets per dimension; element
// addresses are 64-bit (getViewElementAddress), so a view may cover more
// than 2^31 elements in all.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

SmallVector<Value> flatten(ArrayRef<ValueRange> ranges) {
  SmallVector<Value> values;
  for (ValueRange range : ranges)
    llvm::append_range(values, range);
  return values;
}

/// The pieces of a lowered view.
struct ViewValues {
  Value ptr;
  SmallVector<Value> sizes, strides; // i64
  ViewValues(ValueRange flat, unsigned rank) {
    ptr = flat[0];
    sizes.assign(flat.begin() + 1, flat.begin() + 1 + rank);
    strides.assign(flat.begin() + 1 + rank, flat.begin() + 1 + 2 * rank);
  }
};

/// Per-op state shared by the load and store lowerings.
struct TileAccess {
  Location loc;
  Distribution dist;
  ViewValues view;
  SmallVector<Value> offsets; // i32, tile origin in the view
  ThreadPosition pos;
  Type elementType;
  unsigned vectorWidth = 1;
  Value vectorOK; // uniform: contiguous and aligned view
  unsigned rank() const { return offsets.size(); }
};

/// Elements per vector access: the thread's contiguous run along the last
/// dimension, capped at 16 bytes. Consecutive elements run along the last
/// dimension when it comes first in the layout's order, or when every
/// dimension before it holds one element per thread (the tcgen05.ld layout:
/// warps along rows first, a row's columns in each thread).
unsigned getVectorWidth(const Distribution &dist, Type elementType) {
  unsigned rank = dist.blockedRank();
  if (dist.tileDims.size() != rank)
    return 1; // Sliced tiles have no contiguous runs.
  unsigned last = rank - 1;
  for (unsigned d : dist.blocked.getOrder()) {
    if (d == last)
      break;
    if (dist.perThread[d] != 1)
      return 1;
  }
  if (dist.wraps(last))
    return 1;
  unsigned bytes = std::max(1u, elementType.getIntOrFloatBitWidth() / 8);
  if (elementType.getIntOrFloatBitWidth() < 8)
    return 1;
  return std::min<unsigned>(dist.blocked.getSizePerThread()[last],
                            std::max(1u, 16 / bytes));
}

TileAccess makeAccess(OpBuilder &b, Location loc, const Distribution &dist,
                      ValueRange view, ValueRange offsets, Type elementType) {
  unsigned rank = offsets.size();
  TileAccess access{loc, dist, ViewValues(view, rank), {}, {}, elementType};
  llvm::append_range(access.offsets, offsets);
  access.pos = getThreadPosition(b, loc, dist);
  access.vectorWidth = getVectorWidth(dist, elementType);
  if (access.vectorWidth > 1) {
    unsigned vec = access.vectorWidth;
    unsigned bytes = elementType.getIntOrFloatBitWidth() / 8;
    Value zero = i64Const(b, loc, 0);
    Value vecMask = i64Const(b, loc, vec - 1);
    auto isZero = [&](Value v) {
      return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, v, zero);
    };
    Value ok = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                    access.view.strides[rank - 1],
                                    i64Const(b, loc, 1));
    for (unsigned d = 0; d + 1 < rank; ++d)
      ok = LLVM::AndOp::create(
          b, loc, ok,
          isZero(LLVM::AndOp::create(b, loc, access.view.strides[d], vecMask)));
    ok = LLVM::AndOp::create(
        b, loc, ok,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                             LLVM::AndOp::create(b, loc,
                                                 access.offsets[rank - 1],
                                                 i32Const(b, loc, vec - 1)),
                             i32Const(b, loc, 0)));
    Value address =
        LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), access.view.ptr);
    ok = LLVM::AndOp::create(
        b, loc, ok,
        isZero(LLVM::AndOp::create(b, loc, address,
                                   i64Const(b, loc, vec * bytes - 1))));
    access.vectorOK = ok;
  }
  return access;
}

/// Global coordinates (i64) of element `e`, its address and whether it is in
/// bounds.
struct ElementPlace {
  SmallVector<Value> coords;
  Value address;
  Value inBounds;
};

ElementPlace placeElement(OpBuilder &b, const TileAccess &access, int64_t e) {
  Location loc = access.loc;
  ElementPlace place;
  SmallVector<Value> local =
      getElementCoords(b, loc, access.dist, access.pos, e);
  for (unsigned d = 0; d < access.rank(); ++d) {
    Value coord = getViewCoord(b, loc, access.offsets[d], local[d]);
    place.coords.push_back(coord);
    // Unsigned compare also rejects negative coordinates.
    Value inside = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, coord,
                                        access.view.sizes[d]);
    place.inBounds = place.inBounds
                         ? LLVM::AndOp::create(b, loc, place.inBounds, inside)
                         : inside;
  }
  place.address =
      getViewElementAddress(b, loc, access.view.ptr, access.elementType,
                            access.view.strides, place.coords);
  return place;
}

/// Whether the whole vector group starting at `first` is in bounds and
/// unmasked.
Value groupIsFast(OpBuilder &b, const TileAccess &access,
                  const ElementPlace &first, ArrayRef<Value> maskBits) {
  Location loc = access.loc;
  unsigned last = access.rank() - 1;
  Value lastCoord = LLVM::AddOp::create(
      b, loc, first.coords[last], i64Const(b, loc, access.vectorWidth - 1));
  Value ok = LLVM::AndOp::create(b, loc, access.vectorOK, first.inBounds);
  ok = LLVM::AndOp::create(
      b, loc, ok,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, lastCoord,
                           access.view.sizes[last]));
  for (Value bit : maskBits)
    ok = LLVM::AndOp::create(b, loc, ok, bit);
  return ok;
}

Value predicate(OpBuilder &b, Location loc, Value inBounds, Value maskBit) {
  return maskBit ? LLVM::AndOp::create(b, loc, inBounds, maskBit).getResult()
                 : inBounds;
}

struct MakeViewLowering : public OpConversionPattern<MakeViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeViewOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> values = {adaptor.getPtr().front()};
    for (Value v : flatten(adaptor.getSizes()))
      values.push_back(
          LLVM::SExtOp::create(rewriter, loc, rewriter.getI64Type(), v));
    for (Value v : flatten(adaptor.getStrides()))
      values.push_back(
          LLVM::SExtOp::create(rewriter, loc, rewriter.getI64Type(), v));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// A pointer advanced by a number of elements, in 64 bits.
struct AddPtrLowering : public OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value offset = adaptor.getOffset().front();
    if (!offset.getType().isInteger(64))
      offset =
          LLVM::SExtOp::create(rewriter, loc, rewriter.getI64Type(), offset);
    Type elementType =
        getTypeConverter()->convertType(op.getPtr().getType().getElementType());
    Value ptr = adaptor.getPtr().front();
    rewriter.replaceOpWithMultiple(
        op, {{LLVM::GEPOp::create(rewriter, loc, ptr.getType(), elementType,
                                  ptr, ValueRange{offset})
                  .getResult()}});
    return success();
  }
};

/// A choice between two pointers (what canonicalization makes of an scf.if
/// that yields one of two pointer arguments): an LLVM select.
struct PointerSelectLowering : public OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<PtrType>(op.getType()))
      return failure();
    Value ptr = LLVM::SelectOp::create(
        rewriter, op.getLoc(), adaptor.getCondition().front(),
        adaptor.getTrueValue().front(), adaptor.getFalseValue().front());
    rewriter.replaceOpWithMultiple(op, {{ptr}});
    return success();
  }
};

/// The access of `op` to a tile of `tileType`, or a diagnostic when the tile
/// has no register layout.
FailureOr<TileAccess> beginAccess(Operation *op, Type tileType, ValueRange view,
                                  ArrayRef<ValueRange> offsets,
                                  const TypeConverter &converter,
                                  OpBuilder &b) {
  auto type = cast<RankedTensorType>(tileType);
  FailureOr<Distribution> dist = getLaidOutDistribution(op, type);
  if (failed(dist))
    return failure();
  Type elementType = converter.convertType(type.getElementType());
  return makeAccess(b, op->getLoc(), *dist, view, flatten(offsets),
                    elementType);
}

/// Calls `scalar(e, place, maskBit)` for elements moved one at a time, and
/// `group(e, first, maskBits, fast)` for each vector group, `fast` being
/// whether the group can move as one vector.
template <typename ScalarFn, typename GroupFn>
void forEachGroup(OpBuilder &b, const TileAccess &access, ValueRange mask,
                  ScalarFn scalar, GroupFn group) {
  unsigned vec = access.vectorWidth;
  for (int64_t e = 0, n = access.dist.numElements(); e < n; e += vec) {
    ElementPlace first = placeElement(b, access, e);
    if (vec == 1) {
      scalar(e, first, mask.empty() ? Value() : mask[e]);
      continue;
    }
    SmallVector<Value> maskBits;
    if (!mask.empty())
      maskBits.assign(mask.begin() + e, mask.begin() + e + vec);
    group(e, first, maskBits, groupIsFast(b, access, first, maskBits));
  }
}

struct LoadLowering : public OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TileAccess> access =
        beginAccess(op, op.getResult().getType(), adaptor.getView(),
                    adaptor.getOffsets(), *getTypeConverter(), rewriter);
    if (failed(access))
      return failure();
    Location loc = op.getLoc();
    Type elementType = access->elementType;
    Attribute padAttr = op.getPaddingAttr()
                            ? op.getPaddingAttr()
                            : rewriter.getZeroAttr(getElementTypeOrSelf(
                                  op.getResult().getType()));
    Value pad = LLVM::ConstantOp::create(rewriter, loc, elementType,
                                         cast<TypedAttr>(padAttr));

    auto scalarLoad = [&](OpBuilder &b, const ElementPlace &place,
                          Value maskBit) -> Value {
      Value cond = predicate(b, loc, place.inBounds, maskBit);
      auto ifOp = scf::IfOp::create(
          b, loc, cond,
          [&](OpBuilder &tb, Location l) {
            Value v = LLVM::LoadOp::create(tb, l, elementType, place.address);
            scf::YieldOp::create(tb, l, v);
          },
          [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, pad); });
      return ifOp.getResult(0);
    };

    unsigned vec = access->vectorWidth;
    auto vecType = VectorType::get({vec}, elementType);
    unsigned bytes = vec * elementType.getIntOrFloatBitWidth() / 8;
    SmallVector<Value> results(access->dist.numElements());
    forEachGroup(
        rewriter, *access, adaptor.getMask(),
        [&](int64_t e, const ElementPlace &place, Value maskBit) {
          results[e] = scalarLoad(rewriter, place, maskBit);
        },
        [&](int64_t e, const ElementPlace &first, ArrayRef<Value> maskBits,
            Value fast) {
          auto ifOp = scf::IfOp::create(
              rewriter, loc, fast,
              [&](OpBuilder &tb, Location l) {
                Value v =
                    LLVM::LoadOp::create(tb, l, vecType, first.address, bytes);
                scf::YieldOp::create(tb, l, v);
              },
              [&](OpBuilder &eb, Location l) {
                Value v = LLVM::PoisonOp::create(eb, l, vecType);
                for (unsigned k = 0; k < vec; ++k) {
                  ElementPlace place =
                      k == 0 ? first : placeElement(eb, *access, e + k);
                  Value x = scalarLoad(
                      eb, place, maskBits.empty() ? Value() : maskBits[k]);
                  v = LLVM::InsertElementOp::create(eb, l, v, x,
                                                    i32Const(eb, l, k));
                }
                scf::YieldOp::create(eb, l, v);
              });
          for (unsigned k = 0; k < vec; ++k)
            results[e + k] = LLVM::ExtractElementOp::create(
                rewriter, loc, ifOp.getResult(0), i32Const(rewriter, loc, k));
        });
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct StoreLowering : public OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TileAccess> access =
        beginAccess(op, op.getValue().getType(), adaptor.getView(),
                    adaptor.getOffsets(), *getTypeConverter(), rewriter);
    if (failed(access))
      return failure();
    Location loc = op.getLoc();
    ValueRange values = adaptor.getValue();

    auto scalarStore = [&](OpBuilder &b, const ElementPlace &place, Value x,
                           Value maskBit) {
      Value cond = predicate(b, loc, place.inBounds, maskBit);
      scf::IfOp::create(b, loc, cond, [&](OpBuilder &tb, Location l) {
        LLVM::StoreOp::create(tb, l, x, place.address);
        scf::YieldOp::create(tb, l);
      });
    };

    unsigned vec = access->vectorWidth;
    Type elementType = access->elementType;
    auto vecType = VectorType::get({vec}, elementType);
    unsigned bytes = vec * elementType.getIntOrFloatBitWidth() / 8;
    forEachGroup(
        rewriter, *access, adaptor.getMask(),
        [&](int64_t e, const ElementPlace &place, Value maskBit) {
          scalarStore(rewriter, place, values[e], maskBit);
        },
        [&](int64_t e, const ElementPlace &first, ArrayRef<Value> maskBits,
            Value fast) {
          scf::IfOp::create(
              rewriter, loc, fast,
              [&](OpBuilder &tb, Location l) {
                Value v = LLVM::PoisonOp::create(tb, l, vecType);
                for (unsigned k = 0; k < vec; ++k)
                  v = LLVM::InsertElementOp::create(tb, l, v, values[e + k],
                                                    i32Const(tb, l, k));
                LLVM::StoreOp::create(tb, l, v, first.address, bytes);
                scf::YieldOp::create(tb, l);
              },
              [&](OpBuilder &eb, Location l) {
                for (unsigned k = 0; k < vec; ++k) {
                  ElementPlace place =
                      k == 0 ? first : placeElement(eb, *access, e + k);
                  scalarStore(eb, place, values[e + k],
                              maskBits.empty() ? Value() : maskBits[k]);
                }
                scf::YieldOp::create(eb, l);
              });
        });
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::tile::populateMemoryOpPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<AddPtrLowering, PointerSelectLowering, MakeViewLowering,
               LoadLowering, StoreLowering>(converter, patterns.getContext());
}
