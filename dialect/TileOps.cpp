//===- TileOps.cpp - tile dialect operations -----------------------------===//

#include "dialect/TileDialect.h"
#include "dialect/TileLayouts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

/// Enum attributes of ops print as a bare keyword: `tile.reduce max ...`.
template <typename EnumAttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using Enum = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Enum> value;
  if constexpr (std::is_same_v<EnumAttrT, CombineKindAttr>)
    value = symbolizeCombineKind(keyword);
  else
    value = symbolizeGridDim(keyword);
  if (!value)
    return parser.emitError(loc) << "unknown keyword '" << keyword << "'";
  attr = EnumAttrT::get(parser.getContext(), *value);
  return success();
}

template <typename EnumAttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *,
                             EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// The view a tile of `tile`'s rank and element type is read from or
/// written to: every extent is given at run time.
static Type getViewOfTile(Type tile) {
  auto tensor = cast<RankedTensorType>(tile);
  return ViewType::get(
      tile.getContext(),
      SmallVector<int64_t>(tensor.getRank(), ShapedType::kDynamic),
      tensor.getElementType());
}

/// `: tensor<...>` fixes the view's type; the older `, !tile.view<...>`
/// after it is still accepted (and checked by the verifier).
static ParseResult parseViewOfTile(OpAsmParser &parser, Type &view, Type tile) {
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(view);
  view = getViewOfTile(tile);
  return success();
}

static void printViewOfTile(OpAsmPrinter &printer, Operation *, Type view,
                            Type tile) {
  if (view != getViewOfTile(tile))
    printer << ", " << view;
}

/// `%a, 0, %b`: an index list of values and literal integers. `statics` is
/// left null when every entry is a value, so such lists keep the form they
/// had before literals were allowed.
static ParseResult
parseIndexList(OpAsmParser &parser,
               SmallVectorImpl<OpAsmParser::UnresolvedOperand> &values,
               DenseI64ArrayAttr &statics) {
  SmallVector<int64_t> entries;
  bool anyLiteral = false;
  auto parseEntry = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand value;
    OptionalParseResult operand = parser.parseOptionalOperand(value);
    if (operand.has_value()) {
      if (failed(*operand))
        return failure();
      values.push_back(value);
      entries.push_back(ShapedType::kDynamic);
      return success();
    }
    int64_t literal;
    SMLoc loc = parser.getCurrentLocation();
    OptionalParseResult integer = parser.parseOptionalInteger(literal);
    if (!integer.has_value())
      return parser.emitError(loc)
             << "expected an index: an SSA value or an integer";
    if (failed(*integer))
      return failure();
    if (literal < INT32_MIN || literal > INT32_MAX)
      return parser.emitError(loc) << "index " << literal << " is not an i32";
    entries.push_back(literal);
    anyLiteral = true;
    return success();
  };
  if (parser.parseCommaSeparatedList(parseEntry))
    return failure();
  statics = anyLiteral ? parser.getBuilder().getDenseI64ArrayAttr(entries)
                       : DenseI64ArrayAttr();
  return success();
}

static void printIndexList(OpAsmPrinter &printer, Operation *,
                           OperandRange values, DenseI64ArrayAttr statics) {
  if (!statics) {
    printer << values;
    return;
  }
  auto value = values.begin();
  llvm::interleaveComma(statics.asArrayRef(), printer, [&](int64_t entry) {
    if (ShapedType::isDynamic(entry))
      printer << *value++;
    else
      printer << entry;
  });
}

SmallVector<OpFoldResult>
mlir::tile::getMixedIndexList(OperandRange values, DenseI64ArrayAttr statics) {
  if (!statics)
    return SmallVector<OpFoldResult>(values.begin(), values.end());
  Builder b(statics.getContext());
  SmallVector<OpFoldResult> entries;
  auto value = values.begin();
  for (int64_t entry : statics.asArrayRef())
    entries.push_back(ShapedType::isDynamic(entry)
                          ? OpFoldResult(*value++)
                          : OpFoldResult(b.getI32IntegerAttr(entry)));
  return entries;
}

/// The number of entries of an index list.
static size_t getIndexListSize(OperandRange values, DenseI64ArrayAttr statics) {
  return statics ? statics.size() : values.size();
}

/// A list's literal entries and values must add up: one value per
/// ShapedType::kDynamic entry, every literal an i32.
static LogicalResult verifyIndexList(Operation *op, StringRef name,
                                     OperandRange values,
                                     DenseI64ArrayAttr statics) {
  if (!statics)
    return success();
  size_t dynamic = llvm::count_if(statics.asArrayRef(), ShapedType::isDynamic);
  if (dynamic != values.size())
    return op->emitOpError()
           << "`static_" << name << "` leaves " << dynamic
           << " entries to values, but " << values.size() << " are given";
  for (int64_t entry : statics.asArrayRef())
    if (!ShapedType::isDynamic(entry) &&
        (entry < INT32_MIN || entry > INT32_MAX))
      return op->emitOpError()
             << "literal " << name << " entry " << entry << " is not an i32";
  return success();
}

void mlir::tile::materializeIndexLists(Operation *root) {
  auto materialize = [](Operation *op, MutableOperandRange operands,
                        DenseI64ArrayAttr statics) {
    OpBuilder b(op);
    SmallVector<Value> values;
    auto value = operands.getAsOperandRange().begin();
    for (int64_t entry : statics.asArrayRef())
      values.push_back(ShapedType::isDynamic(entry)
                           ? *value++
                           : arith::ConstantOp::create(
                                 b, op->getLoc(), b.getI32IntegerAttr(entry))
                                 .getResult());
    operands.assign(values);
  };
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (DenseI64ArrayAttr statics = load.getStaticOffsetsAttr()) {
        materialize(op, load.getOffsetsMutable(), statics);
        load.removeStaticOffsetsAttr();
      }
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (DenseI64ArrayAttr statics = store.getStaticOffsetsAttr()) {
        materialize(op, store.getOffsetsMutable(), statics);
        store.removeStaticOffsetsAttr();
      }
    } else if (auto view = dyn_cast<MakeViewOp>(op)) {
      if (DenseI64ArrayAttr statics = view.getStaticSizesAttr()) {
        materialize(op, view.getSizesMutable(), statics);
        view.removeStaticSizesAttr();
      }
      if (DenseI64ArrayAttr statics = view.getStaticStridesAttr()) {
        materialize(op, view.getStridesMutable(), statics);
        view.removeStaticStridesAttr();
      }
    }
  });
}

/// `: !tile.view<...>` fixes the pointer's type (a pointer to the view's
/// elements); the older `: !tile.ptr<...> -> !tile.view<...>` still parses.
static ParseResult parsePointerOfView(OpAsmParser &parser, Type &ptr,
                                      Type &view) {
  SMLoc loc = parser.getCurrentLocation();
  Type first;
  if (parser.parseType(first))
    return failure();
  if (succeeded(parser.parseOptionalArrow())) {
    ptr = first;
    return parser.parseType(view);
  }
  auto viewType = dyn_cast<ViewType>(first);
  if (!viewType)
    return parser.emitError(loc) << "expected a !tile.view type, got " << first;
  view = viewType;
  ptr = PtrType::get(parser.getContext(), viewType.getElementType());
  return success();
}

static void printPointerOfView(OpAsmPrinter &printer, Operation *, Type ptr,
                               Type view) {
  if (ptr !=
      PtrType::get(view.getContext(), cast<ViewType>(view).getElementType()))
    printer << ptr << " -> ";
  printer << view;
}

/// The type of reducing `src` along `dim`: the element type for a rank-1
/// tile; otherwise the shape without `dim`, with the slice of the
/// operand's layout or the operand's #tile.sym without that entry. Null
/// when the operand's encoding implies no result encoding.
static Type inferReduceType(Type srcType, unsigned dim) {
  auto src = dyn_cast<RankedTensorType>(srcType);
  if (!src || dim >= src.getRank())
    return {};
  if (src.getRank() == 1)
    return src.getElementType();
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + dim);
  Attribute encoding = src.getEncoding();
  if (getLayout(src)) {
    encoding = SliceLayoutAttr::get(src.getContext(), dim, encoding);
  } else if (auto sym = dyn_cast_or_null<SymbolicShapeAttr>(encoding)) {
    SmallVector<Attribute> dims(sym.getDims().getValue());
    dims.erase(dims.begin() + dim);
    encoding = SymbolicShapeAttr::get(src.getContext(),
                                      ArrayAttr::get(src.getContext(), dims));
  } else if (encoding) {
    return {};
  }
  return RankedTensorType::get(shape, src.getElementType(), encoding);
}

/// `: tensor<...>` fixes a reduction's result type; `-> type` gives it
/// where it cannot be inferred.
static ParseResult parseReduceResult(OpAsmParser &parser, Type &result,
                                     Type src, IntegerAttr dim) {
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  result = inferReduceType(src, dim.getInt());
  if (!result)
    return parser.emitError(parser.getNameLoc())
           << "cannot infer the result of reducing " << src << " along "
           << dim.getInt() << "; give it after `->`";
  return success();
}

static void printReduceResult(OpAsmPrinter &printer, Operation *, Type result,
                              Type src, IntegerAttr dim) {
  if (result != inferReduceType(src, dim.getInt()))
    printer << "-> " << result;
}

/// `type, type, ..., buffer type`: the index tiles' types, then the
/// buffer's (a list the declarative format cannot end with a variadic in).
static ParseResult parseIndexAndBufferTypes(OpAsmParser &parser,
                                            SmallVectorImpl<Type> &indices,
                                            Type &buffer) {
  SmallVector<Type> types;
  do {
    if (parser.parseType(types.emplace_back()))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  buffer = types.pop_back_val();
  indices.append(types.begin(), types.end());
  return success();
}

static void printIndexAndBufferTypes(OpAsmPrinter &printer, Operation *,
                                     TypeRange indices, Type buffer) {
  for (Type type : indices)
    printer << type << ", ";
  printer << buffer;
}

#define GET_OP_CLASSES
#include "dialect/TileOps.cpp.inc"

LogicalResult mlir::tile::verifyInFunction(Operation *op) {
  if (op->getParentOfType<func::FuncOp>())
    return success();
  InFlightDiagnostic diag = op->emitOpError(
      "must be inside a kernel body (a func.func with `tile.kernel`)");
  if (Operation *parent = op->getParentOp())
    diag << ", not in '" << parent->getName() << "'";
  return diag;
}

namespace {
/// Prints a shape as `4x1024` for diagnostics.
std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

LogicalResult verifyViewAccess(Operation *op, ViewType view, size_t numOffsets,
                               RankedTensorType tile) {
  if (numOffsets != view.getRank())
    return op->emitOpError()
           << "expects " << view.getRank() << " offsets for a rank-"
           << view.getRank() << " view, got " << numOffsets;
  if (tile.getRank() != view.getRank())
    return op->emitOpError() << "tile rank " << tile.getRank()
                             << " does not match view rank " << view.getRank();
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError()
           << "tile element type " << tile.getElementType()
           << " does not match view element type " << view.getElementType();
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

LogicalResult MakeViewOp::verify() {
  ViewType view = getResult().getType();
  if (failed(
          verifyIndexList(*this, "sizes", getSizes(), getStaticSizesAttr())) ||
      failed(verifyIndexList(*this, "strides", getStrides(),
                             getStaticStridesAttr())))
    return failure();
  size_t numSizes = getIndexListSize(getSizes(), getStaticSizesAttr());
  size_t numStrides = getIndexListSize(getStrides(), getStaticStridesAttr());
  if (numSizes != view.getRank() || numStrides != view.getRank())
    return emitOpError() << "expects " << view.getRank()
                         << " extents and strides for a rank-" << view.getRank()
                         << " view, got " << numSizes << " and " << numStrides;
  if (getPtr().getType().getElementType() != view.getElementType())
    return emitOpError() << "pointer element type "
                         << getPtr().getType().getElementType()
                         << " does not match view element type "
                         << view.getElementType();
  return success();
}

/// A load's padding, when given, is a constant of the tile's element type.
static LogicalResult verifyPadding(Operation *op, Attribute pad,
                                   RankedTensorType tile) {
  if (!pad)
    return success();
  if (auto typed = dyn_cast<TypedAttr>(pad);
      !typed || typed.getType() != tile.getElementType())
    return op->emitOpError()
           << "padding must be a " << tile.getElementType() << " constant";
  return success();
}

/// A padding value of element type `type`: a number, `inf`, `-inf` or
/// `nan` (the element type follows from the tile).
static FailureOr<TypedAttr> parsePadding(OpAsmParser &parser, SMLoc loc,
                                         bool negative, StringRef keyword,
                                         Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (!keyword.empty()) {
    if (!floatType)
      return parser.emitError(loc)
             << "'" << keyword << "' pads only float tiles, not " << type;
    APFloat value = keyword == "inf"
                        ? APFloat::getInf(floatType.getFloatSemantics())
                        : APFloat::getNaN(floatType.getFloatSemantics());
    if (negative)
      value.changeSign();
    return TypedAttr(FloatAttr::get(type, value));
  }
  return failure();
}

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand view, mask;
  SmallVector<OpAsmParser::UnresolvedOperand> offsets;
  bool hasMask = false;
  DenseI64ArrayAttr staticOffsets;
  if (parser.parseOperand(view) || parser.parseLSquare() ||
      parseIndexList(parser, offsets, staticOffsets) || parser.parseRSquare())
    return failure();
  if (succeeded(parser.parseOptionalKeyword("mask"))) {
    hasMask = true;
    if (parser.parseOperand(mask))
      return failure();
  }
  // The padding: `inf`/`nan` (optionally negated) or a number, typed once
  // the tile's element type is known, or the older typed attribute.
  bool hasPad = false, negative = false;
  StringRef padKeyword;
  std::optional<APInt> padInteger;
  std::optional<double> padFloat;
  TypedAttr padding;
  SMLoc padLoc;
  if (succeeded(parser.parseOptionalKeyword("pad"))) {
    hasPad = true;
    padLoc = parser.getCurrentLocation();
    negative = succeeded(parser.parseOptionalMinus());
    if (succeeded(parser.parseOptionalKeyword("inf")))
      padKeyword = "inf";
    else if (succeeded(parser.parseOptionalKeyword("nan")))
      padKeyword = "nan";
    else {
      APInt integer;
      OptionalParseResult parsed = parser.parseOptionalInteger(integer);
      if (parsed.has_value()) {
        if (failed(*parsed))
          return failure();
        padInteger = negative ? -integer : integer;
      } else {
        double value;
        if (parser.parseFloat(value))
          return failure();
        padFloat = negative ? -value : value;
      }
    }
  }
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  Type first;
  if (parser.parseType(first))
    return failure();
  // `pad 0xFF800000 : f32 : ...`: the older typed padding, bits of `f32`.
  if (hasPad && padInteger && first.isIntOrFloat()) {
    if (auto floatType = dyn_cast<FloatType>(first))
      padding = FloatAttr::get(
          first, APFloat(floatType.getFloatSemantics(),
                         padInteger->zextOrTrunc(floatType.getWidth())));
    else
      padding = IntegerAttr::get(
          first, padInteger->sextOrTrunc(first.getIntOrFloatBitWidth()));
    if (parser.parseColon() || parser.parseType(first))
      return failure();
  }
  Type viewType = first, tileType = first;
  if (succeeded(parser.parseOptionalArrow())) {
    if (parser.parseType(tileType))
      return failure();
  } else {
    if (!isa<RankedTensorType>(first))
      return parser.emitError(parser.getCurrentLocation())
             << "expected the tile's type, got " << first;
    viewType = getViewOfTile(first);
  }
  auto tensor = dyn_cast<RankedTensorType>(tileType);
  if (!tensor)
    return parser.emitError(parser.getCurrentLocation())
           << "expected the tile's type, got " << tileType;
  if (hasPad && !padding) {
    Type element = tensor.getElementType();
    if (!padKeyword.empty()) {
      FailureOr<TypedAttr> attr =
          parsePadding(parser, padLoc, negative, padKeyword, element);
      if (failed(attr))
        return failure();
      padding = *attr;
    } else if (auto floatType = dyn_cast<FloatType>(element)) {
      double value = padFloat ? *padFloat : double(padInteger->getSExtValue());
      padding = FloatAttr::get(element, value);
    } else if (padInteger && element.isInteger()) {
      padding = IntegerAttr::get(
          element, padInteger->sextOrTrunc(element.getIntOrFloatBitWidth()));
    } else {
      return parser.emitError(padLoc)
             << "padding of an integer tile must be an integer";
    }
  }
  if (padding)
    result.getOrAddProperties<Properties>().padding = padding;
  if (staticOffsets)
    result.getOrAddProperties<Properties>().static_offsets = staticOffsets;
  result.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, int32_t(offsets.size()), hasMask ? 1 : 0};
  Type i32 = parser.getBuilder().getI32Type();
  if (parser.resolveOperand(view, viewType, result.operands) ||
      parser.resolveOperands(offsets, i32, result.operands) ||
      (hasMask &&
       parser.resolveOperand(mask, getMaskType(tileType), result.operands)))
    return failure();
  result.addTypes(tileType);
  return success();
}

void LoadOp::print(OpAsmPrinter &printer) {
  printer << " " << getView() << "[";
  printIndexList(printer, *this, getOffsets(), getStaticOffsetsAttr());
  printer << "]";
  if (getMask())
    printer << " mask " << getMask();
  if (TypedAttr pad = getPaddingAttr()) {
    printer << " pad ";
    if (auto fp = dyn_cast<FloatAttr>(pad)) {
      APFloat value = fp.getValue();
      if (value.isInfinity())
        printer << (value.isNegative() ? "-inf" : "inf");
      else if (value.isNaN())
        printer << "nan";
      else
        printer << value.convertToDouble();
    } else {
      printer << cast<IntegerAttr>(pad).getValue();
    }
  }
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      {"padding", "operandSegmentSizes", "static_offsets"});
  printer << " : ";
  if (getView().getType() != getViewOfTile(getResult().getType()))
    printer << getView().getType() << " -> ";
  printer << getResult().getType();
}

LogicalResult LoadOp::verify() {
  auto tile = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyIndexList(*this, "offsets", getOffsets(),
                             getStaticOffsetsAttr())) ||
      failed(verifyViewAccess(
          *this, getView().getType(),
          getIndexListSize(getOffsets(), getStaticOffsetsAttr()), tile)))
    return failure();
  return verifyPadding(*this, getPaddingAttr(), tile);
}

/// A shared buffer holds rank-1 elements of the tile's type.
static LogicalResult verifySharedAccess(Operation *op, SharedBufferType buffer,
                                        RankedTensorType tile) {
  if (buffer.getShape().size() != 1)
    return op->emitOpError() << "shared buffer must be rank-1, got rank "
                             << buffer.getShape().size();
  if (buffer.getElementType() != tile.getElementType())
    return op->emitOpError()
           << "tile elements " << tile.getElementType()
           << " differ from buffer elements " << buffer.getElementType();
  return success();
}

/// A staged buffer: stages of R rows of C elements, rows a whole number of
/// 16-byte chunks, swizzled in a pattern that fits in a row.
static LogicalResult verifyStagedBuffer(Operation *op, SharedBufferType type) {
  ArrayRef<int64_t> shape = type.getShape();
  auto swizzle = dyn_cast_or_null<SwizzleAttr>(type.getSwizzle());
  if (shape.size() != 3 || !swizzle)
    return op->emitOpError()
           << "needs a staged buffer (stages x rows x columns, with a "
              "#tile.swizzle), got "
           << type;
  if (!type.getElementType().isIntOrFloat())
    return op->emitOpError() << "buffer elements must be integers or floats";
  int64_t rowBytes =
      shape[2] *
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  if (rowBytes % 16 != 0 || swizzle.getBytes() > rowBytes)
    return op->emitOpError() << "rows of " << rowBytes
                             << " bytes must be whole 16-byte chunks and hold "
                                "the "
                             << swizzle.getBytes() << "-byte swizzle pattern";
  if (swizzle.getWgmmaWarps() != 0 &&
      shape[1] % (16 * int64_t(swizzle.getWgmmaWarps())) != 0)
    return op->emitOpError() << shape[1]
                             << " rows do not split into the m64 "
                                "blocks of "
                             << swizzle.getWgmmaWarps() << " warps";
  return success();
}

LogicalResult AllocSharedOp::verify() {
  auto type = getResult().getType();
  if (!type.getElementType().isIntOrFloat())
    return emitOpError() << "buffer elements must be integers or floats, got "
                         << type.getElementType();
  if (llvm::any_of(type.getShape(), [](int64_t d) { return d < 1; }))
    return emitOpError() << "buffer extents must be at least 1";
  if (type.getShape().size() == 1) {
    if (type.getSwizzle())
      return emitOpError() << "rank-1 buffers are unswizzled";
    return success();
  }
  return verifyStagedBuffer(*this, type);
}

LogicalResult AsyncCopyOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (failed(verifyStagedBuffer(*this, buffer)))
    return failure();
  ViewType view = getView().getType();
  if (view.getRank() != 2 || getOffsets().size() != 2)
    return emitOpError() << "copies from a rank-2 view with two offsets, got "
                            "rank "
                         << view.getRank() << " and " << getOffsets().size()
                         << " offsets";
  if (view.getElementType() != buffer.getElementType())
    return emitOpError() << "view elements " << view.getElementType()
                         << " differ from buffer elements "
                         << buffer.getElementType();
  return success();
}

LogicalResult AsyncGatherOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (failed(verifyStagedBuffer(*this, buffer)))
    return failure();
  ViewType view = getView().getType();
  if (view.getRank() != 2 || getIndices().size() != 2)
    return emitOpError() << "gathers from a rank-2 view with two index tiles, "
                            "got rank "
                         << view.getRank() << " and " << getIndices().size()
                         << " index tiles";
  if (view.getElementType() != buffer.getElementType())
    return emitOpError() << "view elements " << view.getElementType()
                         << " differ from buffer elements "
                         << buffer.getElementType();
  if (getIndices()[0].getType() != getIndices()[1].getType())
    return emitOpError() << "index tiles must have one type (and layout), got "
                         << getIndices()[0].getType() << " and "
                         << getIndices()[1].getType();
  ArrayRef<int64_t> stage = buffer.getShape().drop_front();
  for (Value index : getIndices())
    if (cast<RankedTensorType>(index.getType()).getShape() != stage)
      return emitOpError() << "index tiles must have the shape of one stage ("
                           << stage[0] << "x" << stage[1] << "), got "
                           << index.getType();
  return success();
}

/// A rank-1 buffer of i64 mbarriers.
static LogicalResult verifyBarriers(Operation *op, SharedBufferType type) {
  if (type.getShape().size() != 1 || !type.getElementType().isInteger(64) ||
      type.getSwizzle())
    return op->emitOpError()
           << "needs a rank-1 buffer of i64 mbarriers, got " << type;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  return verifyBarriers(*this, getBarriers().getType());
}

LogicalResult MBarrierExpectOp::verify() {
  return verifyBarriers(*this, getBarriers().getType());
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarriers(*this, getBarriers().getType());
}

LogicalResult MBarrierArriveOp::verify() {
  // The arrivals reach cluster ranks 0 .. m - 1: the kernel's clusters
  // must hold that many programs.
  if (std::optional<int64_t> m = getAcross()) {
    auto func = (*this)->getParentOfType<FunctionOpInterface>();
    if (!func || getMulticast(func) != *m)
      return emitOpError() << "across " << *m
                           << " must equal its kernel's tile.multicast ("
                           << (func ? getMulticast(func) : 1) << ")";
  }
  return verifyBarriers(*this, getBarriers().getType());
}

LogicalResult WarpSpecializeOp::verify() {
  auto func = dyn_cast<func::FuncOp>((*this)->getParentOp());
  Operation *next = (*this)->getNextNode();
  if (!func || !next || !isa<func::ReturnOp>(next))
    return emitOpError() << "must be the last op of a kernel's body before "
                            "its return";
  // setmaxnreg is warpgroup-wide: the producer is a whole number of them.
  if (getProducerWarps() % 4 != 0)
    return emitOpError() << "producer_warps must be a multiple of 4 (whole "
                            "warpgroups), got "
                         << getProducerWarps();
  if (getProducerRegisters().has_value() != getConsumerRegisters().has_value())
    return emitOpError() << "takes both register counts or neither";
  for (std::optional<uint32_t> count :
       {getProducerRegisters(), getConsumerRegisters()})
    if (count && (*count < 24 || *count > 256 || *count % 8 != 0))
      return emitOpError() << "register counts are multiples of 8 in [24, "
                              "256], got "
                           << *count;
  if (getProducerRegisters()) {
    int64_t producers = 32 * getProducerWarps();
    int64_t consumers = 32 * getNumWarps(func);
    if (producers * *getProducerRegisters() +
            consumers * *getConsumerRegisters() >
        65536)
      return emitOpError() << "gives " << producers << " producer threads "
                           << *getProducerRegisters() << " registers and "
                           << consumers << " consumer threads "
                           << *getConsumerRegisters()
                           << ": more than the 65536 of a block";
  }
  return success();
}

LogicalResult MakeTensorMapOp::verify() {
  ViewType view = getView().getType();
  TensorMapType map = getResult().getType();
  ArrayRef<int64_t> box = map.getBox();
  if (view.getRank() != 2 || box.size() != 2)
    return emitOpError() << "describes a rank-2 view in rank-2 boxes, got "
                            "a rank-"
                         << view.getRank() << " view and a rank-" << box.size()
                         << " box";
  if (view.getElementType() != map.getElementType())
    return emitOpError() << "view elements " << view.getElementType()
                         << " differ from the tensor map's "
                         << map.getElementType();
  auto swizzle = dyn_cast<SwizzleAttr>(map.getSwizzle());
  if (!swizzle || swizzle.getBytes() < 32)
    return emitOpError() << "needs a #tile.swizzle of 32, 64 or 128 bytes";
  if (!map.getElementType().isIntOrFloat())
    return emitOpError() << "tensor map elements must be integers or floats";
  if (unsigned warps = swizzle.getWgmmaWarps();
      warps != 0 && box[0] % (16 * warps) != 0)
    return emitOpError() << "lands rows in wgmma order for " << warps
                         << " warps in boxes of a multiple of " << 16 * warps
                         << " rows, got " << box[0];
  int64_t rowBytes =
      box[1] * std::max<int64_t>(
                   1, map.getElementType().getIntOrFloatBitWidth() / 8);
  // The TMA unit's limits: boxes of at most 256 per dimension, rows of
  // whole 16-byte units that fit in one swizzle span.
  if (box[0] < 1 || box[0] > 256 || box[1] < 1 || box[1] > 256 ||
      rowBytes % 16 != 0 || rowBytes > swizzle.getBytes())
    return emitOpError() << "box " << box[0] << "x" << box[1] << " of "
                         << rowBytes
                         << "-byte rows does not fit a TMA box (at most 256 "
                            "per dimension, rows of whole 16-byte units "
                            "within the "
                         << swizzle.getBytes() << "-byte swizzle span)";
  return success();
}

LogicalResult TmaCopyOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (failed(verifyStagedBuffer(*this, buffer)) ||
      failed(verifyBarriers(*this, getBarriers().getType())))
    return failure();
  TensorMapType map = getMap().getType();
  if (getOffsets().size() != 2)
    return emitOpError() << "copies with two offsets, got "
                         << getOffsets().size();
  if (map.getElementType() != buffer.getElementType())
    return emitOpError() << "tensor map elements " << map.getElementType()
                         << " differ from buffer elements "
                         << buffer.getElementType();
  ArrayRef<int64_t> box = map.getBox();
  ArrayRef<int64_t> stage = buffer.getShape().drop_front();
  auto swizzle = cast<SwizzleAttr>(buffer.getSwizzle());
  auto mapSwizzle = cast<SwizzleAttr>(map.getSwizzle());
  if (box[1] != stage[1] || stage[0] % box[0] != 0 ||
      mapSwizzle.getBytes() != swizzle.getBytes())
    return emitOpError() << "boxes " << box[0] << "x" << box[1] << " under a "
                         << mapSwizzle.getBytes()
                         << "-byte swizzle do not tile stages of " << stage[0]
                         << "x" << stage[1] << " under a "
                         << swizzle.getBytes() << "-byte swizzle";
  // Rows in wgmma order move in groups of eight (getWgmmaStagedRow), or in
  // one box of a map that lands them in that order.
  if (unsigned warps = mapSwizzle.getWgmmaWarps()) {
    APInt row;
    if (matchPattern(getOffsets()[0], m_ConstantInt(&row)) &&
        (row.isNegative() || row.getSExtValue() % (16 * warps) != 0))
      return emitOpError() << "copies a map in wgmma order from row "
                           << row.getSExtValue() << ", not a multiple of "
                           << 16 * warps;
    if (warps != swizzle.getWgmmaWarps() || box[0] != stage[0] ||
        getMulticast() || getLeaderBarrier())
      return emitOpError()
             << "copies a map in wgmma order for " << mapSwizzle.getWgmmaWarps()
             << " warps only as one box per stage of a buffer in the same "
                "order, neither shared nor for a pair's leader";
  } else if (swizzle.getWgmmaWarps() != 0 && box[0] != 8) {
    return emitOpError() << "fills rows in wgmma order with boxes of 8 rows, "
                            "got "
                         << box[0];
  }
  if (getMulticast() && (stage[0] / box[0]) % *getParts() != 0)
    return emitOpError() << "cannot share " << stage[0] / box[0]
                         << " boxes among " << *getParts() << " parts";
  return success();
}

LogicalResult StoreBoxesOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  auto tile = cast<RankedTensorType>(getValue().getType());
  auto swizzle = dyn_cast_or_null<SwizzleAttr>(buffer.getSwizzle());
  ArrayRef<int64_t> shape = buffer.getShape();
  if (shape.size() != 3 || !swizzle || swizzle.getBytes() != 128 ||
      swizzle.getWgmmaWarps() != 0 ||
      shape[2] * std::max<int64_t>(
                     1, buffer.getElementType().getIntOrFloatBitWidth() / 8) !=
          128)
    return emitOpError() << "writes stages of 128-byte rows under a 128-byte "
                            "swizzle, got "
                         << buffer;
  if (tile.getRank() != 2 || tile.getElementType() != buffer.getElementType() ||
      tile.getDimSize(0) != shape[1] ||
      getColumn() + shape[0] * shape[2] > tile.getDimSize(1))
    return emitOpError() << "columns " << getColumn() << " .. +"
                         << shape[0] * shape[2] << " of " << tile
                         << " do not fill the stages of " << buffer;
  return success();
}

LogicalResult TmaStoreOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  TensorMapType map = getMap().getType();
  if (getOffsets().size() != 2)
    return emitOpError() << "stores with two offsets, got "
                         << getOffsets().size();
  ArrayRef<int64_t> shape = buffer.getShape();
  auto swizzle = dyn_cast_or_null<SwizzleAttr>(buffer.getSwizzle());
  auto mapSwizzle = cast<SwizzleAttr>(map.getSwizzle());
  if (shape.size() != 3 || !swizzle ||
      map.getElementType() != buffer.getElementType() ||
      map.getBox() != shape.drop_front() ||
      mapSwizzle.getBytes() != swizzle.getBytes() ||
      mapSwizzle.getWgmmaWarps() != 0)
    return emitOpError() << "stages of " << buffer
                         << " are not boxes of the tensor map " << map;
  return success();
}

LogicalResult LoadStageOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (failed(verifyStagedBuffer(*this, buffer)))
    return failure();
  auto tile = cast<RankedTensorType>(getResult().getType());
  // A paired stage holds half of the rows (this program's of a CTA pair).
  SmallVector<int64_t> stage(buffer.getShape().drop_front());
  if (getPaired() && !stage.empty())
    stage.front() *= 2;
  if (tile.getShape() != ArrayRef<int64_t>(stage) ||
      tile.getElementType() != buffer.getElementType())
    return emitOpError() << "result " << tile << " is not "
                         << (getPaired() ? "twice the rows of " : "")
                         << "one stage of the buffer " << buffer;
  // The stage is read where the dots are, so nothing else may consume it.
  for (Operation *user : getResult().getUsers()) {
    if (isa<DotOp>(user))
      continue;
    if (isa<TransposeOp>(user) &&
        llvm::all_of(user->getUsers(),
                     [](Operation *u) { return isa<DotOp>(u); }))
      continue;
    return emitOpError() << "is read by tile.dot only (directly or through "
                            "tile.transpose), not by '"
                         << user->getName() << "'";
  }
  return success();
}

LogicalResult StoreSharedOp::verify() {
  return verifySharedAccess(*this, getBuffer().getType(),
                            cast<RankedTensorType>(getValue().getType()));
}

LogicalResult LoadSharedOp::verify() {
  auto tile = cast<RankedTensorType>(getResult().getType());
  if (failed(verifySharedAccess(*this, getBuffer().getType(), tile)))
    return failure();
  return verifyPadding(*this, getPaddingAttr(), tile);
}

LogicalResult StoreOp::verify() {
  if (failed(verifyIndexList(*this, "offsets", getOffsets(),
                             getStaticOffsetsAttr())))
    return failure();
  return verifyViewAccess(
      *this, getView().getType(),
      getIndexListSize(getOffsets(), getStaticOffsetsAttr()),
      cast<RankedTensorType>(getValue().getType()));
}

/// Element-wise accesses at per-element coordinates: one index tile per view
/// dimension, each shaped like `tile` (named `role` in messages), whose
/// elements have the view's type.
static LogicalResult verifyIndexedAccess(Operation *op, ViewType view,
                                         ValueRange indices,
                                         RankedTensorType tile,
                                         StringRef role) {
  if (indices.size() != view.getRank())
    return op->emitOpError() << "expects one index tile per view dimension ("
                             << view.getRank() << "), got " << indices.size();
  for (Value index : indices)
    if (cast<RankedTensorType>(index.getType()).getShape() != tile.getShape())
      return op->emitOpError() << "index tiles must have the " << role
                               << " shape " << shapeString(tile.getShape());
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError()
           << role << " element type " << tile.getElementType()
           << " does not match view element type " << view.getElementType();
  return success();
}

LogicalResult GatherOp::verify() {
  return verifyIndexedAccess(*this, getView().getType(), getIndices(),
                             cast<RankedTensorType>(getResult().getType()),
                             "result");
}

LogicalResult ScatterStoreOp::verify() {
  return verifyIndexedAccess(*this, getView().getType(), getIndices(),
                             cast<RankedTensorType>(getValue().getType()),
                             "value");
}

LogicalResult AtomicOp::verify() {
  auto value = cast<RankedTensorType>(getValue().getType());
  if (failed(verifyIndexedAccess(*this, getView().getType(), getIndices(),
                                 value, "value")))
    return failure();
  if (getResult().getType() != value)
    return emitOpError() << "result must have the value's type";
  if (getKind() == CombineKind::Mul)
    return emitOpError() << "'mul' has no atomic form";
  return success();
}

//===----------------------------------------------------------------------===//
// Construction and shape
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto tile = cast<ShapedType>(getResult().getType());
  if (auto scalar = dyn_cast_or_null<TypedAttr>(adaptor.getSrc()))
    return DenseElementsAttr::get(tile, scalar);
  return {};
}

LogicalResult IotaOp::verify() {
  auto tile = cast<RankedTensorType>(getResult().getType());
  if (tile.getRank() != 1)
    return emitOpError() << "result must have rank 1, got rank "
                         << tile.getRank();
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  unsigned dim = getDim();
  if (dim > src.getRank())
    return emitOpError() << "dimension " << dim
                         << " is out of range for a rank-" << src.getRank()
                         << " tile";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + dim, 1);
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "result must be "
                         << RankedTensorType::get(expected,
                                                  src.getElementType());
  if (getLayout(src) && getLayout(result)) {
    auto slice = dyn_cast<SliceLayoutAttr>(src.getEncoding());
    if (!slice || slice.getDim() != dim ||
        slice.getParent() != result.getEncoding())
      return emitOpError() << "operand layout must be the slice along " << dim
                           << " of the result layout";
  }
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (std::optional<uint32_t> along = getAlong()) {
    if (*along >= result.getRank())
      return emitOpError() << "dimension " << *along
                           << " is out of range for a rank-" << result.getRank()
                           << " result";
    SmallVector<int64_t> expected(result.getShape());
    expected.erase(expected.begin() + *along);
    if (src.getShape() != ArrayRef<int64_t>(expected) ||
        src.getElementType() != result.getElementType())
      return emitOpError() << "operand must be "
                           << RankedTensorType::get(expected,
                                                    result.getElementType())
                           << " (the result without dimension " << *along
                           << ")";
    if (getLayout(src) && getLayout(result)) {
      auto slice = dyn_cast<SliceLayoutAttr>(src.getEncoding());
      if (!slice || slice.getDim() != *along ||
          slice.getParent() != result.getEncoding())
        return emitOpError() << "operand layout must be the slice along "
                             << *along << " of the result layout";
    }
    return success();
  }
  if (src.getRank() != result.getRank())
    return emitOpError() << "operand and result ranks differ (" << src.getRank()
                         << " vs " << result.getRank() << ")";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(src.getShape(), result.getShape()))) {
    auto [from, to] = pair;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << index << " of extent " << from
                           << " cannot broadcast to " << to;
  }
  if (src.getElementType() != result.getElementType())
    return emitOpError() << "element types differ";
  if (getLayout(src) && getLayout(result) &&
      src.getEncoding() != result.getEncoding())
    return emitOpError() << "operand and result layouts differ";
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getSrc()))
    if (dense.isSplat())
      return DenseElementsAttr::get(cast<ShapedType>(getResult().getType()),
                                    dense.getSplatValue<Attribute>());
  return {};
}

LogicalResult TransposeOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (src.getRank() != 2)
    return emitOpError() << "transposes rank-2 tiles, got rank "
                         << src.getRank();
  SmallVector<int64_t> expected = {src.getDimSize(1), src.getDimSize(0)};
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != src.getElementType())
    return emitOpError() << "result must be "
                         << RankedTensorType::get(expected,
                                                  src.getElementType())
                         << " (dimensions swapped), got " << result;
  if (getLayout(src) && getLayout(result) &&
      result.getEncoding() != getTransposedLayout(src.getEncoding()))
    return emitOpError() << "result layout must be the operand's with its "
                            "dimensions swapped";
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (src.getShape() != result.getShape() ||
      src.getElementType() != result.getElementType())
    return emitOpError() << "changes only the layout: shape and element type "
                            "must match";
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getSrc()))
    if (dense.isSplat())
      return DenseElementsAttr::get(cast<ShapedType>(getResult().getType()),
                                    dense.getSplatValue<Attribute>());
  return {};
}

namespace {
/// Whether a load feeding `user` (the load itself, or an element-wise op
/// of it) may read its tile in `layout` instead of being converted: any
/// blocked layout; a slice layout (a row each thread holds in full) from
/// shared memory; and in an innermost loop, whose short iterations would
/// each pay the conversion's two barriers, a slice layout or (for 16-bit
/// elements) a tensor-core accumulator layout from global memory too
/// (element pairs, or a row's elements repeated per thread, which the L1
/// serves).
bool reloadsInto(Operation *user, Attribute layout) {
  if (isa_and_nonnull<BlockedLayoutAttr>(layout))
    return true;
  bool slice = isa_and_nonnull<SliceLayoutAttr>(layout);
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(layout);
  bool registerMma = mma && (mma.getVersion() == 2 || mma.getVersion() == 3);
  if (!slice && !registerMma)
    return false;
  if (slice && isa<LoadSharedOp>(user))
    return true;
  // A 32-bit tile read in accumulator fragments measured slower than read
  // in vectors and converted (kda_chain's f32 U, 5%).
  if (registerMma) {
    auto wideLoad = [](Value v) {
      return v.getDefiningOp<LoadOp>() &&
             cast<RankedTensorType>(v.getType())
                     .getElementType()
                     .getIntOrFloatBitWidth() >= 32;
    };
    if (wideLoad(user->getResult(0)) ||
        llvm::any_of(user->getOperands(), wideLoad))
      return false;
  }
  auto loop = user->getParentOfType<scf::ForOp>();
  if (!loop)
    return false;
  bool innermost = true;
  loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
  return innermost;
}

/// Values that every thread can compute for itself need no data movement:
/// rebuild them directly in the requested layout.
struct RematerializeConvertedSource : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    Operation *def = getOperation(op.getSrc());
    if (!def)
      return failure();
    Type type = op.getResult().getType();
    if (auto splat = dyn_cast<SplatOp>(def)) {
      rewriter.replaceOpWithNewOp<SplatOp>(op, type, splat.getSrc());
      return success();
    }
    if (isa<IotaOp>(def)) {
      rewriter.replaceOpWithNewOp<IotaOp>(op, type);
      return success();
    }
    if (auto convert = dyn_cast<ConvertLayoutOp>(def)) {
      rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, type, convert.getSrc());
      return success();
    }
    // A broadcast or an expand_dims only repeats or regroups what its
    // operand holds: convert the smaller operand instead of the result (a
    // per-column scale broadcast over a whole accumulator moves one row).
    Attribute layout = cast<RankedTensorType>(type).getEncoding();
    if (auto broadcast = dyn_cast<BroadcastOp>(def)) {
      if (!isa_and_nonnull<BlockedLayoutAttr, MmaLayoutAttr>(layout))
        return failure();
      auto srcType = cast<RankedTensorType>(broadcast.getSrc().getType());
      std::optional<uint32_t> along = broadcast.getAlong();
      Attribute srcLayout =
          along ? SliceLayoutAttr::get(op.getContext(), *along, layout)
                : layout;
      Value src = ConvertLayoutOp::create(
          rewriter, op.getLoc(),
          RankedTensorType::get(srcType.getShape(), srcType.getElementType(),
                                srcLayout),
          broadcast.getSrc());
      rewriter.replaceOpWithNewOp<BroadcastOp>(op, type, src,
                                               broadcast.getAlongAttr());
      return success();
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
      if (!isa_and_nonnull<BlockedLayoutAttr, MmaLayoutAttr>(layout))
        return failure();
      auto srcType = cast<RankedTensorType>(expand.getSrc().getType());
      Value src = ConvertLayoutOp::create(
          rewriter, op.getLoc(),
          RankedTensorType::get(
              srcType.getShape(), srcType.getElementType(),
              SliceLayoutAttr::get(op.getContext(), expand.getDim(), layout)),
          expand.getSrc());
      rewriter.replaceOpWithNewOp<ExpandDimsOp>(op, type, src, expand.getDim());
      return success();
    }
    // A load's tile used only here: read it in the new layout instead, where
    // the load was (so its order with other memory ops is kept), in the
    // layouts reloadsInto allows.
    if (isa<LoadOp, LoadSharedOp>(def) && reloadsInto(def, layout) &&
        isReloadable(op.getSrc())) {
      rewriter.setInsertionPoint(def);
      Operation *load = rewriter.clone(*def);
      load->getResult(0).setType(type);
      OpOperand *mask = nullptr;
      if (auto global = dyn_cast<LoadOp>(load); global && global.getMask())
        mask = &global.getMaskMutable()[0];
      if (auto shared = dyn_cast<LoadSharedOp>(load);
          shared && shared.getMask())
        mask = &shared.getMaskMutable()[0];
      if (mask)
        mask->set(ConvertLayoutOp::create(rewriter, def->getLoc(),
                                          getMaskType(type), mask->get()));
      rewriter.replaceOp(op, load->getResults());
      rewriter.eraseOp(def);
      return success();
    }
    // An element-wise op of rebuildable tiles (a row index compared with a
    // bound), or of a load's tiles (a bf16 load widened): rebuild its
    // operands in the new layout, then the op.
    bool reload = reloadsInto(def, layout) && isReloadable(op.getSrc());
    if (isElementwiseArith(def) &&
        (reload || isRematerializable(op.getSrc()))) {
      if (!isa_and_nonnull<BlockedLayoutAttr, MmaLayoutAttr, SliceLayoutAttr>(
              layout))
        return failure();
      SmallVector<Value> operands;
      for (Value operand : def->getOperands()) {
        auto tensor = dyn_cast<RankedTensorType>(operand.getType());
        if (!tensor) {
          operands.push_back(operand);
          continue;
        }
        operands.push_back(ConvertLayoutOp::create(
            rewriter, op.getLoc(),
            RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                                  layout),
            operand));
      }
      Operation *rebuilt =
          rewriter.create(op.getLoc(), def->getName().getIdentifier(), operands,
                          TypeRange{type}, def->getAttrs());
      rewriter.replaceOp(op, rebuilt->getResults());
      return success();
    }
    return failure();
  }
  static Operation *getOperation(Value v) { return v.getDefiningOp(); }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<RematerializeConvertedSource>(context);
}

//===----------------------------------------------------------------------===//
// Reductions, scans, sorting, histograms
//===----------------------------------------------------------------------===//

static LogicalResult verifyCombine(Operation *op, CombineKind kind,
                                   Type elementType) {
  if (kind == CombineKind::Exch)
    return op->emitOpError() << "'exch' is not an associative combiner";
  bool bitwise = kind == CombineKind::And || kind == CombineKind::Or ||
                 kind == CombineKind::Xor;
  if (bitwise && !isa<IntegerType>(elementType))
    return op->emitOpError() << "'" << stringifyCombineKind(kind)
                             << "' needs integer elements, got " << elementType;
  return success();
}

/// `resultType` is what combining `src` along `dim` gives: the element for
/// a rank-1 tile, else the tile without that dimension (with the slice of
/// the operand's layout, where both have layouts). `what` names it
/// ("result" or "total").
static LogicalResult verifyCombinedAlong(Operation *op, RankedTensorType src,
                                         unsigned dim, Type resultType,
                                         StringRef what) {
  if (src.getRank() == 1) {
    if (resultType != src.getElementType())
      return op->emitOpError()
             << (what == "result" ? "reducing a rank-1 tile yields"
                                  : "the total of a rank-1 tile is")
             << " a scalar " << src.getElementType() << ", got " << resultType;
    return success();
  }
  auto result = dyn_cast<RankedTensorType>(resultType);
  SmallVector<int64_t> expected(src.getShape());
  expected.erase(expected.begin() + dim);
  if (!result || result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != src.getElementType())
    return op->emitOpError()
           << what << " must be a "
           << RankedTensorType::get(expected, src.getElementType()) << " tile";
  if (getLayout(src) && getLayout(result)) {
    auto slice = dyn_cast<SliceLayoutAttr>(result.getEncoding());
    if (!slice || slice.getDim() != dim ||
        slice.getParent() != src.getEncoding())
      return op->emitOpError() << what << " layout must be the slice along "
                               << dim << " of the operand layout";
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  unsigned dim = getDim();
  if (dim >= src.getRank())
    return emitOpError() << "dimension " << dim
                         << " is out of range for a rank-" << src.getRank()
                         << " tile";
  if (failed(verifyCombine(*this, getKind(), src.getElementType())))
    return failure();
  return verifyCombinedAlong(*this, src, dim, getResult().getType(), "result");
}

LogicalResult ScanOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  if (getDim() >= src.getRank())
    return emitOpError() << "dimension " << getDim()
                         << " is out of range for a rank-" << src.getRank()
                         << " tile";
  if (failed(verifyCombine(*this, getKind(), src.getElementType())))
    return failure();
  Value total = getTotal();
  if (!total)
    return success();
  // Integer combines and max/min do not depend on their order; a float sum
  // would differ from the tile.reduce it stands for.
  bool orderFree = isa<IntegerType>(src.getElementType()) ||
                   getKind() == CombineKind::Max ||
                   getKind() == CombineKind::Min;
  if (!orderFree)
    return emitOpError() << "a total needs integer elements or 'max' or "
                            "'min', got '"
                         << stringifyCombineKind(getKind()) << "' of "
                         << src.getElementType();
  return verifyCombinedAlong(*this, src, getDim(), total.getType(), "total");
}

LogicalResult
SortOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                         ValueRange operands, DictionaryAttr attributes,
                         OpaqueProperties properties, RegionRange regions,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  for (Value operand : operands)
    inferredReturnTypes.push_back(operand.getType());
  return success();
}

LogicalResult SortOp::verify() {
  auto keys = cast<RankedTensorType>(getKeys().getType());
  if (getDim() >= keys.getRank())
    return emitOpError() << "dimension " << getDim()
                         << " is out of range for a rank-" << keys.getRank()
                         << " tile";
  if (!llvm::isPowerOf2_64(keys.getDimSize(getDim())))
    return emitOpError() << "sorted extent must be a power of two, got "
                         << keys.getDimSize(getDim());
  if (getRuns() < 1 || !llvm::isPowerOf2_64(getRuns()) ||
      getRuns() > keys.getDimSize(getDim()))
    return emitOpError() << "runs must be a power of two in [1, "
                         << keys.getDimSize(getDim()) << "], got " << getRuns();
  for (Value payload : getPayloads())
    if (cast<RankedTensorType>(payload.getType()).getShape() != keys.getShape())
      return emitOpError() << "payload tiles must have the key shape "
                           << shapeString(keys.getShape());
  if (getResults().size() != 1 + getPayloads().size())
    return emitOpError() << "expects one result per input";
  if (getResults()[0].getType() != keys)
    return emitOpError() << "first result must have the key type";
  for (auto [payload, result] :
       llvm::zip(getPayloads(), getResults().drop_front()))
    if (payload.getType() != result.getType())
      return emitOpError() << "payload results must have the payload types";
  return success();
}

LogicalResult HistogramOp::verify() {
  auto result = cast<RankedTensorType>(getResult().getType());
  if (result.getRank() != 1)
    return emitOpError() << "returns a rank-1 tile of bins, got rank "
                         << result.getRank();
  if (!result.getElementType().isSignlessInteger(32))
    return emitOpError() << "counts are i32, got " << result.getElementType();
  return success();
}

LogicalResult HistogramAddOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (buffer.getShape().size() != 1)
    return emitOpError() << "counts into a rank-1 buffer of bins, got rank "
                         << buffer.getShape().size();
  Type element = buffer.getElementType();
  if (!element.isSignlessInteger(32))
    return emitOpError() << "counts into an i32 buffer, got " << element;
  return success();
}

LogicalResult ScatterOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dest = cast<RankedTensorType>(getDest().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  if (dest.getRank() != 1)
    return emitOpError() << "destination must be a rank-1 tile, got rank "
                         << dest.getRank();
  if (indices.getShape() != src.getShape())
    return emitOpError() << "indices must have the source shape "
                         << shapeString(src.getShape());
  if (src.getElementType() != dest.getElementType())
    return emitOpError() << "source elements " << src.getElementType()
                         << " differ from destination elements "
                         << dest.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix multiply
//===----------------------------------------------------------------------===//

static bool isSupportedDotTypes(Type a, Type b, Type acc) {
  if (a != b)
    return false;
  if (a.isF16())
    return acc.isF32() || acc.isF16();
  if (a.isBF16() || a.isF32() || isa<Float8E4M3FNType, Float8E5M2Type>(a))
    return acc.isF32();
  if (a.isSignlessInteger(8))
    return acc.isSignlessInteger(32);
  return false;
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "operands must be rank-2 tiles";
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError() << "K extents differ: A is "
                         << shapeString(a.getShape()) << ", B is "
                         << shapeString(b.getShape());
  if (acc.getDimSize(0) != a.getDimSize(0) ||
      acc.getDimSize(1) != b.getDimSize(1))
    return emitOpError() << "accumulator must be " << a.getDimSize(0) << "x"
                         << b.getDimSize(1) << ", got "
                         << shapeString(acc.getShape());
  if (!isSupportedDotTypes(a.getElementType(), b.getElementType(),
                           acc.getElementType()))
    return emitOpError() << "unsupported element types " << a.getElementType()
                         << " x " << b.getElementType() << " -> "
                         << acc.getElementType();
  if (getAsync())
    for (OpOperand &use : getResult().getUses()) {
      Operation *user = use.getOwner();
      if (isa<DotWaitOp, scf::YieldOp>(user) ||
          (isa<DotOp>(user) && use.getOperandNumber() == 2))
        continue;
      return emitOpError() << "is async: its result feeds only dot "
                              "accumulators, tile.dot_wait or a loop's "
                              "yield, not '"
                           << user->getName() << "'";
    }
  return success();
}
