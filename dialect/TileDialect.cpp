//===- TileDialect.cpp - tile dialect registration and helpers -----------===//

#include "dialect/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tile;

#include "dialect/TileDialect.cpp.inc"

namespace {
/// Short aliases (`#blocked`, `#slice`, ...) keep laid-out IR readable.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr))
      os << "blocked";
    else if (isa<SliceLayoutAttr>(attr))
      os << "slice";
    else if (isa<MmaLayoutAttr>(attr))
      os << "mma";
    else if (isa<DotOperandLayoutAttr>(attr))
      os << "dot_op";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialect/TileOps.cpp.inc"
      >();
}

bool mlir::tile::isTileType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  Attribute encoding = tensor.getEncoding();
  return !encoding || isa<LayoutAttrInterface>(encoding);
}

Type mlir::tile::getMaskType(Type tileType) {
  auto tensor = cast<RankedTensorType>(tileType);
  return RankedTensorType::get(tensor.getShape(),
                               IntegerType::get(tensor.getContext(), 1),
                               tensor.getEncoding());
}

LayoutAttrInterface mlir::tile::getLayout(Type tileType) {
  auto tensor = dyn_cast<RankedTensorType>(tileType);
  if (!tensor)
    return {};
  return dyn_cast_or_null<LayoutAttrInterface>(tensor.getEncoding());
}

bool mlir::tile::isKernel(Operation *func) {
  return func->hasAttr(TileDialect::kKernelAttrName);
}

unsigned mlir::tile::getNumWarps(Operation *func) {
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(TileDialect::kNumWarpsAttrName))
    return attr.getInt();
  return 4;
}

static bool isKernelParamType(Type type) {
  return isa<PtrType>(type) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(64) || type.isF32() || type.isF64();
}

/// Checks the discardable `tile.*` attributes where they appear, so that a
/// malformed kernel signature is reported at its source location.
LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kKernelAttrName) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError()
             << "'" << name << "' may only be placed on a func.func";
    if (func.getFunctionType().getNumResults() != 0)
      return op->emitError()
             << "kernel @" << func.getSymName() << " must not return values";
    for (auto [index, type] :
         llvm::enumerate(func.getFunctionType().getInputs()))
      if (!isKernelParamType(type))
        return op->emitError()
               << "kernel parameter #" << index << " has type " << type
               << "; kernels take !tile.ptr<...>, i32, i64, f32 or f64";
    return success();
  }
  if (name == kNumWarpsAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 1 || value.getInt() > 32 ||
        !llvm::isPowerOf2_64(value.getInt()))
      return op->emitError()
             << "'" << name << "' must be a power of two in [1, 32]";
    return success();
  }
  if (name == kMaxRegistersAttrName) {
    // ptxas accepts .maxnreg in this range; fewer registers than 24 cannot
    // hold a thread's addressing state.
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 24 || value.getInt() > 255)
      return op->emitError()
             << "'" << name << "' must be an integer in [24, 255]";
    return success();
  }
  if (name == kArgNamesAttrName) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    auto func = dyn_cast<func::FuncOp>(op);
    if (!names || !func ||
        names.size() != func.getFunctionType().getNumInputs() ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError()
             << "'" << name << "' must list one string per kernel parameter";
    return success();
  }
  if (name == kNoHoistAttrName) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' is a unit attribute of scf.for";
    return success();
  }
  if (name == kTargetAttrName) {
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' is a string attribute of the module";
    return success();
  }
  if (name == kSharedBytesAttrName || name == kMetadataAttrName)
    return success();
  return op->emitError() << "unknown tile dialect attribute '" << name << "'";
}
