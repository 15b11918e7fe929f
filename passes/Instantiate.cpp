//===- Instantiate.cpp - kernels from kernel templates -------------------===//
//
// Clones each kernel template once per entry of its `tile.instances` and
// substitutes the entry's parameter values into the clone's types and
// constants (dialect/TileTemplates.cpp describes templates). Substitution
// goes by what the source names (#tile.sym, tile.elem, tile.param), never
// by value, so two parameters may share a default.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/TargetInfo.h"
#include "llvm/ADT/StringExtras.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/CastInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSTANTIATE
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The parameter values of one instance: its entries over the defaults.
class Bindings {
public:
  Bindings(DictionaryAttr defaults, DictionaryAttr overrides) {
    for (NamedAttribute param : defaults)
      values[param.getName()] = param.getValue();
    for (NamedAttribute value : overrides)
      if (!value.getName().getValue().starts_with("tile."))
        values[value.getName()] = value.getValue();
  }

  int64_t getInt(StringAttr name) const {
    return cast<IntegerAttr>(values.lookup(name)).getInt();
  }
  Type getType(StringAttr name) const {
    return cast<TypeAttr>(values.lookup(name)).getValue();
  }

  /// `type` with its #tile.sym substituted and dropped, and with element
  /// type `element` when given; other types as they are.
  Type substitute(Type type, Type element = {}) const {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return element && type.isIntOrFloat() ? element : type;
    if (!element)
      element = tensor.getElementType();
    auto sym = dyn_cast_or_null<SymbolicShapeAttr>(tensor.getEncoding());
    if (!sym)
      return RankedTensorType::get(tensor.getShape(), element,
                                   tensor.getEncoding());
    SmallVector<int64_t> shape;
    for (Attribute dim : sym.getDims()) {
      if (auto name = dyn_cast<StringAttr>(dim))
        shape.push_back(getInt(name));
      else
        shape.push_back(cast<IntegerAttr>(dim).getInt());
    }
    return RankedTensorType::get(shape, element);
  }

private:
  llvm::DenseMap<StringAttr, Attribute> values;
};

/// `value` (a float or integer constant) as a constant of type `type`.
static TypedAttr convertScalar(TypedAttr value, Type type) {
  if (value.getType() == type)
    return value;
  if (auto fp = dyn_cast<FloatAttr>(value)) {
    if (auto target = dyn_cast<FloatType>(type)) {
      APFloat converted = fp.getValue();
      bool lost;
      converted.convert(target.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &lost);
      return FloatAttr::get(type, converted);
    }
  }
  if (auto integer = dyn_cast<IntegerAttr>(value))
    if (type.isIntOrIndex())
      return IntegerAttr::get(type, integer.getValue().getSExtValue());
  return {};
}

/// Whether `op`'s results have, by its definition, the element type of its
/// first operand (element-wise arithmetic, shape ops).
static bool followsOperandElement(Operation *op) {
  if (op->getNumOperands() == 0 || isa<CastOpInterface>(op))
    return false;
  return op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
         op->hasTrait<OpTrait::SameOperandsAndResultElementType>() ||
         isa<TransposeOp, BroadcastOp, ExpandDimsOp, ConvertLayoutOp, ReduceOp,
             ScanOp, SplatOp>(op);
}

/// The element type `op`'s results take in the instance, when it is not
/// the written one: the named parameter of its `tile.elem`, the element of
/// the view it reads, or that of its first operand when it follows it (and
/// that operand's changed). `written` holds the template's types of values
/// already retyped.
static std::optional<Type>
getResultElementType(Operation *op, const Bindings &bindings,
                     const llvm::DenseMap<Value, Type> &written) {
  if (auto name =
          op->getAttrOfType<StringAttr>(TileDialect::kElementParamAttrName))
    return bindings.getType(name);
  if (op->getNumResults() == 0 || isa<MakeViewOp, AddPtrOp>(op))
    return std::nullopt;
  for (Value operand : op->getOperands())
    if (auto view = dyn_cast<ViewType>(operand.getType()))
      return view.getElementType();
  Value source = isa<arith::SelectOp>(op) ? op->getOperand(1)
                 : op->getNumOperands()   ? op->getOperand(0)
                                          : Value();
  if (!source || !followsOperandElement(op))
    return std::nullopt;
  Type template_ = written.lookup(source);
  if (!template_)
    return std::nullopt;
  Type before = getElementTypeOrSelf(template_);
  Type after = getElementTypeOrSelf(source.getType());
  if (before == after)
    return std::nullopt;
  return after;
}

/// Rewrites the clone `func` of a template into the instance `bindings`
/// make. Fails, at the op, on what cannot be substituted.
static LogicalResult substitute(func::FuncOp func, const Bindings &bindings) {
  // The template's types of the values retyped so far.
  llvm::DenseMap<Value, Type> written;
  // Arguments: pointers whose element type is a parameter.
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    written[arg] = arg.getType();
    auto name = func.getArgAttrOfType<StringAttr>(
        arg.getArgNumber(), TileDialect::kElementParamAttrName);
    if (!name)
      continue;
    arg.setType(PtrType::get(func.getContext(), bindings.getType(name)));
    func.removeArgAttr(arg.getArgNumber(), TileDialect::kElementParamAttrName);
  }
  func.setFunctionType(FunctionType::get(
      func.getContext(), entry.getArgumentTypes(), /*results=*/{}));

  // Ops in program order, so operands are retyped before their users.
  SmallVector<Operation *> identities;
  WalkResult walk = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    OpBuilder builder(op);
    if (auto param = dyn_cast<ParamOp>(op)) {
      Value value = arith::ConstantOp::create(
          builder, op->getLoc(),
          IntegerAttr::get(param.getType(),
                           bindings.getInt(param.getNameAttr())));
      written[value] = value.getType();
      param.replaceAllUsesWith(value);
      identities.push_back(op);
      return WalkResult::advance();
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments()) {
          written[arg] = arg.getType();
          arg.setType(bindings.substitute(arg.getType()));
        }
    std::optional<Type> element = getResultElementType(op, bindings, written);
    for (OpResult result : op->getResults()) {
      written[result] = result.getType();
      Type type = result.getType();
      if (auto make = dyn_cast<MakeViewOp>(op))
        type = ViewType::get(op->getContext(),
                             make.getResult().getType().getShape(),
                             make.getPtr().getType().getElementType());
      else if (isa<AddPtrOp>(op))
        type = op->getOperand(0).getType();
      result.setType(bindings.substitute(type, element.value_or(Type())));
    }
    op->removeAttr(TileDialect::kElementParamAttrName);
    // Loop-carried values take the types of their initial values.
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (auto [arg, init, result] :
           llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs(),
                     loop.getResults())) {
        arg.setType(init.getType());
        result.setType(init.getType());
      }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto scalar = dyn_cast<TypedAttr>(constant.getValue());
          scalar && !isa<DenseElementsAttr>(scalar) &&
          scalar.getType() != constant.getType())
        if (TypedAttr converted = convertScalar(scalar, constant.getType()))
          constant.setValueAttr(converted);
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      auto type = dyn_cast<ShapedType>(constant.getType());
      if (dense && dense.getType() != type) {
        if (!dense.isSplat()) {
          op->emitOpError() << "is a non-splat constant of a template "
                               "tile; only splats can take an instance's "
                               "shape";
          return WalkResult::interrupt();
        }
        TypedAttr scalar = convertScalar(dense.getSplatValue<TypedAttr>(),
                                         type.getElementType());
        constant.setValueAttr(DenseElementsAttr::get(type, scalar));
      }
    }
    if (auto pad = op->getAttrOfType<TypedAttr>("padding")) {
      Type element = getElementTypeOrSelf(op->getResult(0).getType());
      if (TypedAttr converted = convertScalar(pad, element))
        op->setAttr("padding", converted);
    }
    // Identities are replaced after the walk, so that the ops after them
    // still see the retyped result they follow (e.g. a transpose of it).
    if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
        op->getOperand(0).getType() == op->getResult(0).getType())
      identities.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Operation *op : identities) {
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
  }
  // Branches yield what their regions computed.
  func.walk([&](scf::IfOp branch) {
    if (branch.getNumResults() == 0)
      return;
    for (auto [result, yielded] :
         llvm::zip(branch.getResults(), branch.thenYield().getOperands()))
      result.setType(yielded.getType());
  });
  return success();
}

/// The warps of a layout written for a kernel of `from` warps, spread over
/// `to`: the dimension holding the most warps (the first of equals) takes
/// the change. Layouts over fewer warps than `from` are kept; nullopt when
/// the change does not divide that dimension.
static std::optional<SmallVector<unsigned>>
rescaleWarps(ArrayRef<unsigned> warps, unsigned from, unsigned to) {
  SmallVector<unsigned> scaled(warps);
  unsigned total = 1;
  for (unsigned w : warps)
    total *= w;
  if (total != from || scaled.empty())
    return scaled;
  unsigned *widest = std::max_element(scaled.begin(), scaled.end());
  if (to >= from) {
    if (to % from)
      return std::nullopt;
    *widest *= to / from;
    return scaled;
  }
  if (from % to || *widest % (from / to))
    return std::nullopt;
  *widest /= from / to;
  return scaled;
}

/// Spreads the explicit layouts of instance `func`, written for a template
/// of `from` warps, over the `to` warps its `tile.num_warps` sets, so that
/// an instance can change the warp count of a kernel that names its
/// layouts. Slices and dot operands follow their parents.
static LogicalResult rescaleLayouts(func::FuncOp func, unsigned from,
                                    unsigned to) {
  if (from == to)
    return success();
  Attribute unscalable;
  // `layout` rebuilt by `make` from its warps spread over `to`.
  auto rescale = [&](auto layout, auto make) -> std::optional<Attribute> {
    std::optional<SmallVector<unsigned>> warps =
        rescaleWarps(layout.getWarpsPerCTA(), from, to);
    if (!warps) {
      unscalable = layout;
      return layout;
    }
    return make(*warps);
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](BlockedLayoutAttr layout) {
    return rescale(layout, [&](ArrayRef<unsigned> warps) {
      return BlockedLayoutAttr::get(
          layout.getContext(), layout.getSizePerThread(),
          layout.getThreadsPerWarp(), warps, layout.getOrder());
    });
  });
  replacer.addReplacement([&](MmaLayoutAttr layout) {
    return rescale(layout, [&](ArrayRef<unsigned> warps) {
      return MmaLayoutAttr::get(layout.getContext(), layout.getVersion(), warps,
                                layout.getInstrShape());
    });
  });
  replacer.recursivelyReplaceElementsIn(func, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  if (unscalable)
    return func.emitError()
           << "cannot spread layout " << unscalable << ", written for " << from
           << " warps, over " << to << " warps";
  return success();
}

struct TileInstantiate
    : public tile::impl::TileInstantiateBase<TileInstantiate> {
  using TileInstantiateBase::TileInstantiateBase;

  /// Whether instance `name` (entry `overrides`) of `tmpl` is made for this
  /// pass's target: its `tile.targets`, when present, must list supported
  /// targets, and one of them must be the pass's (any, without a target).
  FailureOr<bool> isMadeFor(func::FuncOp tmpl, StringRef name,
                            DictionaryAttr overrides) {
    Attribute attr = overrides.get(TileDialect::kTargetsAttrName);
    if (!attr)
      return true;
    auto targets = dyn_cast<ArrayAttr>(attr);
    bool made = target.empty();
    for (Attribute entry :
         targets ? targets.getValue() : ArrayRef<Attribute>{}) {
      auto named = dyn_cast<StringAttr>(entry);
      if (!named || !TargetInfo::get(named.getValue())) {
        targets = nullptr;
        break;
      }
      made |= named.getValue() == target;
    }
    if (!targets || targets.empty()) {
      tmpl.emitError() << "instance '" << name << "' of @" << tmpl.getSymName()
                       << ": tile.targets must be a non-empty array of "
                          "target names ("
                       << llvm::join(TargetInfo::getNames(), ", ") << ")";
      return failure();
    }
    return made;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> templates;
    for (auto func : module.getOps<func::FuncOp>())
      if (isTemplate(func))
        templates.push_back(func);
    for (func::FuncOp tmpl : templates) {
      auto defaults =
          tmpl->getAttrOfType<DictionaryAttr>(TileDialect::kParamsAttrName);
      auto instances =
          tmpl->getAttrOfType<DictionaryAttr>(TileDialect::kInstancesAttrName);
      SmallVector<NamedAttribute> entries;
      if (instances)
        llvm::append_range(entries, instances.getValue());
      else
        entries.push_back(NamedAttribute(tmpl.getSymNameAttr(),
                                         DictionaryAttr::get(&getContext())));
      // The template's own name is free for one of its instances.
      StringRef templateName = tmpl.getSymName();
      for (NamedAttribute entry : entries) {
        StringRef name = entry.getName().getValue();
        FailureOr<bool> wanted =
            isMadeFor(tmpl, name, cast<DictionaryAttr>(entry.getValue()));
        if (failed(wanted))
          return signalPassFailure();
        if (!*wanted)
          continue;
        Operation *existing = module.lookupSymbol(name);
        if (existing && existing != tmpl) {
          tmpl.emitError() << "instance '" << name << "' of @" << templateName
                           << " has the name of another symbol";
          return signalPassFailure();
        }
        auto overrides = cast<DictionaryAttr>(entry.getValue());
        func::FuncOp instance = tmpl.clone();
        instance.setSymName(name);
        instance->removeAttr(TileDialect::kParamsAttrName);
        instance->removeAttr(TileDialect::kInstancesAttrName);
        // Function attributes of an instance; integers written without a
        // type (`"tile.num_warps" = 16`, i64 to the parser) are i32, as the
        // kernel attributes are.
        for (NamedAttribute value : overrides) {
          if (!value.getName().getValue().starts_with("tile.") ||
              value.getName() == TileDialect::kTargetsAttrName)
            continue;
          Attribute attr = value.getValue();
          if (auto integer = dyn_cast<IntegerAttr>(attr);
              integer && integer.getType().isInteger(64))
            attr = IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                    integer.getInt());
          instance->setAttr(value.getName(), attr);
        }
        module.getBody()->getOperations().insert(Block::iterator(tmpl),
                                                 instance);
        if (failed(rescaleLayouts(instance, getNumWarps(tmpl),
                                  getNumWarps(instance))) ||
            failed(substitute(instance, Bindings(defaults, overrides))) ||
            failed(verify(instance))) {
          tmpl.emitError() << "in instance '" << name << "' of @"
                           << templateName;
          return signalPassFailure();
        }
      }
      tmpl.erase();
    }
  }
};

} // namespace
