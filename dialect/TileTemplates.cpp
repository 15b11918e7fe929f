//===- TileTemplates.cpp - kernel templates ------------------------------===//
//
// A kernel template is a func.func with `tile.params`: named integer and
// type parameters with default values. Its tiles say which parameter each
// extent is (`#tile.sym`), `tile.param` ops give integer parameters as
// values, and `tile.elem = "T"` on a pointer argument or on an op (a
// conversion, say) names the type parameter its element type is; tiles
// loaded from a view, and results of ops whose element type is their
// operand's, follow without being named. The written types are the
// defaults, so a template is verified as the kernel its defaults make;
// `tile.instances` lists the configurations tile-instantiate makes from it.
//
//===----------------------------------------------------------------------===//

#include "dialect/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// #tile.sym
//===----------------------------------------------------------------------===//

/// `<[BM, 1, BK]>`: parameter names or fixed extents.
Attribute SymbolicShapeAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<Attribute> dims;
  auto parseDim = [&]() -> ParseResult {
    int64_t extent;
    OptionalParseResult number = parser.parseOptionalInteger(extent);
    if (number.has_value()) {
      if (failed(*number))
        return failure();
      dims.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), extent));
      return success();
    }
    StringRef name;
    if (parser.parseKeyword(&name))
      return failure();
    dims.push_back(StringAttr::get(ctx, name));
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<SymbolicShapeAttr>(ctx, ArrayAttr::get(ctx, dims));
}

void SymbolicShapeAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getDims(), printer, [&](Attribute dim) {
    if (auto name = dyn_cast<StringAttr>(dim))
      printer << name.getValue();
    else
      printer << cast<IntegerAttr>(dim).getInt();
  });
  printer << "]>";
}

LogicalResult
SymbolicShapeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayAttr dims) {
  for (Attribute dim : dims) {
    auto extent = dyn_cast<IntegerAttr>(dim);
    if (!isa<StringAttr>(dim) && !(extent && extent.getInt() >= 1))
      return emitError() << "#tile.sym dimensions are parameter names or "
                            "extents >= 1";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// tile.param
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  auto func = (*this)->getParentOfType<func::FuncOp>();
  auto params =
      func ? func->getAttrOfType<DictionaryAttr>(TileDialect::kParamsAttrName)
           : DictionaryAttr();
  if (!params)
    return emitOpError() << "is only valid in a kernel template (a function "
                            "with '"
                         << TileDialect::kParamsAttrName << "')";
  Attribute value = params.get(getName());
  if (!value)
    return emitOpError() << "names no parameter of the template: '" << getName()
                         << "'";
  if (!isa<IntegerAttr>(value))
    return emitOpError() << "parameter '" << getName()
                         << "' is a type, not an integer";
  return success();
}

//===----------------------------------------------------------------------===//
// Template verification
//===----------------------------------------------------------------------===//

/// Checks that `type`, written in template `func`, names known parameters
/// of the right kind and spells their defaults.
static LogicalResult verifyTemplateType(Operation *at, Type type,
                                        DictionaryAttr params) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto sym = tensor ? dyn_cast_or_null<SymbolicShapeAttr>(tensor.getEncoding())
                    : SymbolicShapeAttr();
  if (!sym)
    return success();
  if (sym.getDims().size() != size_t(tensor.getRank()))
    return at->emitOpError()
           << "type " << type << " names " << sym.getDims().size()
           << " dimensions for a rank-" << tensor.getRank() << " tile";
  for (auto [index, dim] : llvm::enumerate(sym.getDims())) {
    int64_t expected;
    if (auto name = dyn_cast<StringAttr>(dim)) {
      auto value = dyn_cast_or_null<IntegerAttr>(params.get(name));
      if (!value)
        return at->emitOpError()
               << "type " << type << " names '" << name.getValue()
               << "', which is not an integer parameter of the template";
      expected = value.getInt();
    } else {
      expected = cast<IntegerAttr>(dim).getInt();
    }
    if (tensor.getDimSize(index) != expected)
      return at->emitOpError()
             << "type " << type << " has extent " << tensor.getDimSize(index)
             << " in dimension " << index << " where its #tile.sym gives "
             << expected;
  }
  return success();
}

/// Checks `tile.elem` on op `at` (whose results are of the named type
/// parameter) against the template's `params`.
static LogicalResult verifyElementParam(Operation *at, DictionaryAttr params) {
  auto name = at->getAttrOfType<StringAttr>(TileDialect::kElementParamAttrName);
  if (!name) {
    if (at->hasAttr(TileDialect::kElementParamAttrName))
      return at->emitOpError() << "'" << TileDialect::kElementParamAttrName
                               << "' must name a type parameter";
    return success();
  }
  auto value = dyn_cast_or_null<TypeAttr>(params.get(name));
  if (!value)
    return at->emitOpError()
           << "'" << TileDialect::kElementParamAttrName << " = " << name
           << "' is not a type parameter of the template";
  for (Type type : at->getResultTypes())
    if (getElementTypeOrSelf(type) != value.getValue())
      return at->emitOpError()
             << "result " << type << " has element type "
             << getElementTypeOrSelf(type) << " where parameter '"
             << name.getValue() << "' defaults to " << value.getValue();
  return success();
}

static bool isValidInstanceValue(Attribute value, Attribute defaultValue) {
  if (isa<TypeAttr>(defaultValue))
    return isa<TypeAttr>(value);
  return isa<IntegerAttr>(value);
}

LogicalResult mlir::tile::verifyTemplateParams(func::FuncOp func,
                                               Attribute attr) {
  auto params = dyn_cast<DictionaryAttr>(attr);
  if (!params)
    return func.emitError() << "'" << TileDialect::kParamsAttrName
                            << "' must be a dictionary of parameters";
  for (NamedAttribute param : params) {
    if (!isa<IntegerAttr, TypeAttr>(param.getValue()))
      return func.emitError()
             << "template parameter '" << param.getName().getValue()
             << "' must default to an integer or a type";
    if (param.getName().getValue().starts_with("tile."))
      return func.emitError()
             << "template parameter '" << param.getName().getValue()
             << "' must not start with 'tile.' (reserved for function "
                "attributes of instances)";
  }
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    auto name = func.getArgAttrOfType<StringAttr>(
        index, TileDialect::kElementParamAttrName);
    if (!name)
      continue;
    auto value = dyn_cast_or_null<TypeAttr>(params.get(name));
    auto ptr = dyn_cast<PtrType>(arg.getType());
    if (!value || !ptr || ptr.getElementType() != value.getValue())
      return func.emitError()
             << "argument #" << index << " of type " << arg.getType()
             << " is marked '" << TileDialect::kElementParamAttrName << " = "
             << name << "'; it must be a !tile.ptr whose element type is "
             << "that type parameter's default";
  }
  WalkResult walk = func.walk([&](Operation *op) {
    if (op != func.getOperation() && failed(verifyElementParam(op, params)))
      return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (failed(verifyTemplateType(op, type, params)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (failed(verifyTemplateType(op, type, params)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult mlir::tile::verifyTemplateInstances(func::FuncOp func,
                                                  Attribute attr) {
  auto params =
      func->getAttrOfType<DictionaryAttr>(TileDialect::kParamsAttrName);
  if (!params)
    return func.emitError()
           << "'" << TileDialect::kInstancesAttrName << "' needs '"
           << TileDialect::kParamsAttrName << "' on the same function";
  auto instances = dyn_cast<DictionaryAttr>(attr);
  if (!instances || instances.empty())
    return func.emitError()
           << "'" << TileDialect::kInstancesAttrName
           << "' must map instance names to dictionaries of parameter values";
  for (NamedAttribute instance : instances) {
    auto values = dyn_cast<DictionaryAttr>(instance.getValue());
    if (!values)
      return func.emitError() << "instance '" << instance.getName().getValue()
                              << "' must be a dictionary of parameter values";
    for (NamedAttribute value : values) {
      StringRef key = value.getName().getValue();
      if (key.starts_with("tile."))
        continue; // a function attribute of the instance, checked there
      Attribute defaultValue = params.get(key);
      if (!defaultValue)
        return func.emitError()
               << "instance '" << instance.getName().getValue() << "' sets '"
               << key << "', which is not a parameter of @"
               << func.getSymName();
      if (!isValidInstanceValue(value.getValue(), defaultValue))
        return func.emitError()
               << "instance '" << instance.getName().getValue() << "' sets '"
               << key << "' to " << value.getValue() << "; expected "
               << (isa<TypeAttr>(defaultValue) ? "a type" : "an integer");
    }
  }
  return success();
}
