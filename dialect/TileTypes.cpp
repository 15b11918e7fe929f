//===- TileTypes.cpp - tile dialect types --------------------------------===//

#include "dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_TYPEDEF_CLASSES
#include "dialect/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/TileTypes.cpp.inc"
      >();
}

/// Parses `<` dims `x` element-type `>` with `?` allowed for extents.
static LogicalResult parseShapedBody(AsmParser &parser,
                                     SmallVectorImpl<int64_t> &shape,
                                     Type &elementType) {
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      printer << "?";
    else
      printer << dim;
    printer << "x";
  }
}

Type ViewType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (failed(parseShapedBody(parser, shape, elementType)) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<ViewType>(parser.getContext(), shape, elementType);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<";
  printShape(printer, getShape());
  printer << getElementType() << ">";
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "view must have rank at least 1";
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim))
      return emitError() << "view extents are given at run time; write '?' "
                            "for every dimension";
  if (!elementType.isIntOrFloat())
    return emitError() << "view element type must be an integer or float, got "
                       << elementType;
  return success();
}

Type SharedBufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute swizzle;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(swizzle))
    return {};
  if (parser.parseGreater())
    return {};
  return SharedBufferType::get(parser.getContext(), shape, elementType,
                               swizzle);
}

Type TensorMapType::parse(AsmParser &parser) {
  SmallVector<int64_t> box;
  Type elementType;
  Attribute swizzle;
  if (parser.parseLess() ||
      parser.parseDimensionList(box, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(swizzle) || parser.parseGreater())
    return {};
  return TensorMapType::get(parser.getContext(), box, elementType, swizzle);
}

void TensorMapType::print(AsmPrinter &printer) const {
  printer << "<";
  printShape(printer, getBox());
  printer << getElementType() << ", " << getSwizzle() << ">";
}

void SharedBufferType::print(AsmPrinter &printer) const {
  printer << "<";
  printShape(printer, getShape());
  printer << getElementType();
  if (getSwizzle())
    printer << ", " << getSwizzle();
  printer << ">";
}
