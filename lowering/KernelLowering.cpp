//===- KernelLowering.cpp - kernels, returns and grid queries ------------===//
//
// A kernel becomes an `llvm.func` with `nvvm.kernel`, its block size as
// `nvvm.reqntid`, and a `tile.metadata` dictionary: everything the runtime
// needs to validate and launch it.
//
//===----------------------------------------------------------------------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The metadata spelling of an element type.
std::string elementName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.isUnsigned() ? "u" : "i") +
           std::to_string(integer.getWidth());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// How the runtime finds a size or stride of a tensor map's view: the
/// kernel parameter it is (`{arg = i}`) or its constant value
/// (`{value = v}`); failure for anything else.
FailureOr<DictionaryAttr> describeScalar(Builder &b, func::FuncOp func, Value v,
                                         int64_t mul = 1, int64_t div = 1) {
  if (auto arg = dyn_cast<BlockArgument>(v);
      arg && arg.getOwner() == &func.getBody().front()) {
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("arg", b.getI64IntegerAttr(arg.getArgNumber()))};
    if (mul != 1)
      fields.push_back(b.getNamedAttr("mul", b.getI64IntegerAttr(mul)));
    if (div != 1)
      fields.push_back(b.getNamedAttr("div", b.getI64IntegerAttr(div)));
    return b.getDictionaryAttr(fields);
  }
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return b.getDictionaryAttr(
        b.getNamedAttr("value", b.getI64IntegerAttr(llvm::divideFloorSigned(
                                    value.getSExtValue() * mul, div))));
  return failure();
}

/// A constant size or stride of a tensor map.
DictionaryAttr describeConstant(Builder &b, int64_t value) {
  return b.getDictionaryAttr(
      b.getNamedAttr("value", b.getI64IntegerAttr(value)));
}

/// Whether every use of tensor map `op` sits in the then-branch of an
/// scf.if on a tile.view_aligned that tests its view: the kernel has
/// another way (cp.async, plain stores) for views no map describes.
bool isGuardedByViewAligned(MakeTensorMapOp op) {
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    for (Operation *at = user; at; at = at->getParentOp()) {
      auto branch = dyn_cast_or_null<scf::IfOp>(at->getParentOp());
      if (!branch || at->getParentRegion() != &branch.getThenRegion())
        continue;
      auto aligned = branch.getCondition().getDefiningOp<ViewAlignedOp>();
      if (aligned && llvm::is_contained(aligned.getViews(), op.getView()))
        return true;
    }
    return false;
  });
}

/// The metadata of the tensor map `op` carried by hidden parameter
/// `param`: what the runtime encodes it from (docs/metadata.md).
FailureOr<DictionaryAttr> describeTensorMap(func::FuncOp func,
                                            MakeTensorMapOp op,
                                            int64_t param) {
  Builder b(func.getContext());
  auto view = op.getView().getDefiningOp<MakeViewOp>();
  auto fail = [&]() {
    return op.emitOpError(
        "needs a view made by tile.make_view of kernel parameters and "
        "constants with a last stride of 1: the runtime encodes the tensor "
        "map from them at launch");
  };
  if (!view)
    return fail();
  auto base = dyn_cast<BlockArgument>(view.getPtr());
  if (!base || base.getOwner() != &func.getBody().front())
    return fail();
  SmallVector<Attribute> sizes, strides;
  for (Value v : view.getSizes()) {
    FailureOr<DictionaryAttr> d = describeScalar(b, func, v);
    if (failed(d))
      return fail();
    sizes.push_back(*d);
  }
  for (Value v : view.getStrides()) {
    FailureOr<DictionaryAttr> d = describeScalar(b, func, v);
    if (failed(d))
      return fail();
    strides.push_back(*d);
  }
  if (!matchPattern(view.getStrides().back(), m_One()))
    return fail();
  TensorMapType type = op.getResult().getType();
  SmallVector<int64_t> box(type.getBox());
  // Rows in wgmma order for W warps: staged row g + 8h + 16w + 16W·j holds
  // view row g + 8w + 8W·h + 16W·j (getWgmmaStagedRow), so the rank-5 map
  // has dimensions (j, w, h, g, column), outermost first, whose row
  // strides are not monotonic. Its outermost size counts whole 16W-row
  // blocks: copies through it stay inside the view (`whole_outer`).
  int64_t warps = cast<SwizzleAttr>(type.getSwizzle()).getWgmmaWarps();
  if (warps != 0) {
    Value rows = view.getSizes()[0], rowStride = view.getStrides()[0];
    FailureOr<DictionaryAttr> blocks =
        describeScalar(b, func, rows, 1, 16 * warps);
    SmallVector<Attribute> rowStrides;
    for (int64_t rowsApart : {16 * warps, int64_t{8}, 8 * warps, int64_t{1}}) {
      FailureOr<DictionaryAttr> d =
          describeScalar(b, func, rowStride, rowsApart);
      if (failed(d))
        return fail();
      rowStrides.push_back(*d);
    }
    if (failed(blocks))
      return fail();
    sizes = {*blocks, describeConstant(b, warps), describeConstant(b, 2),
             describeConstant(b, 8), sizes[1]};
    strides = {rowStrides[0], rowStrides[1], rowStrides[2], rowStrides[3],
               strides[1]};
    box = {box[0] / (16 * warps), warps, 2, 8, box[1]};
  }
  // A map some copy uses outside the aligned branch of a tile.view_aligned
  // switch over its view has no fallback: the runtime must refuse views it
  // cannot describe.
  bool required = !isGuardedByViewAligned(op);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("param", b.getI64IntegerAttr(param)),
      b.getNamedAttr("elem",
                     b.getStringAttr(elementName(type.getElementType()))),
      b.getNamedAttr("base", b.getI64IntegerAttr(base.getArgNumber())),
      b.getNamedAttr("sizes", b.getArrayAttr(sizes)),
      b.getNamedAttr("strides", b.getArrayAttr(strides)),
      b.getNamedAttr("box", b.getI64ArrayAttr(box)),
      b.getNamedAttr(
          "swizzle",
          b.getI64IntegerAttr(cast<SwizzleAttr>(type.getSwizzle()).getBytes())),
  };
  if (required)
    fields.push_back(b.getNamedAttr("required", b.getBoolAttr(true)));
  if (warps != 0)
    fields.push_back(b.getNamedAttr("whole_outer", b.getBoolAttr(true)));
  return b.getDictionaryAttr(fields);
}

DictionaryAttr buildMetadata(func::FuncOp func, unsigned threads,
                             StringRef target, ArrayAttr tensorMaps) {
  Builder b(func.getContext());
  auto names = func->getAttrOfType<ArrayAttr>(TileDialect::kArgNamesAttrName);
  SmallVector<Attribute> params;
  for (auto [index, type] :
       llvm::enumerate(func.getFunctionType().getInputs())) {
    SmallVector<NamedAttribute> param;
    std::string name = names ? cast<StringAttr>(names[index]).str()
                             : "arg" + std::to_string(index);
    param.push_back(b.getNamedAttr("name", b.getStringAttr(name)));
    if (auto ptr = dyn_cast<PtrType>(type)) {
      param.push_back(b.getNamedAttr("kind", b.getStringAttr("ptr")));
      param.push_back(b.getNamedAttr(
          "elem", b.getStringAttr(elementName(ptr.getElementType()))));
    } else {
      param.push_back(
          b.getNamedAttr("kind", b.getStringAttr(elementName(type))));
    }
    params.push_back(b.getDictionaryAttr(param));
  }
  int64_t shared = 0;
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(TileDialect::kSharedBytesAttrName))
    shared = attr.getInt();
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("name", func.getSymNameAttr()),
      b.getNamedAttr("target", b.getStringAttr(target)),
      b.getNamedAttr("block", b.getI64ArrayAttr({threads, 1, 1})),
      b.getNamedAttr("cluster",
                     b.getI64ArrayAttr({1, getClusterPrograms(func), 1})),
      b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(shared)),
      b.getNamedAttr("params", b.getArrayAttr(params)),
      b.getNamedAttr("tensor_maps", tensorMaps),
  };
  if (auto group =
          func->getAttrOfType<IntegerAttr>(TileDialect::kPersistentAttrName))
    fields.push_back(b.getNamedAttr("persistent", group));
  if (auto bytes = func->getAttrOfType<IntegerAttr>(
          TileDialect::kSplitKPartialBytesAttrName))
    fields.push_back(b.getNamedAttr("split_k_partial_bytes", bytes));
  return b.getDictionaryAttr(fields);
}

struct KernelLowering : public OpConversionPattern<func::FuncOp> {
  KernelLowering(TileTypeConverter &converter, StringRef target)
      : OpConversionPattern(converter, &converter.getContext()),
        target(target.str()) {}

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isKernel(func))
      return rewriter.notifyMatchFailure(func, "not a tile kernel");
    FunctionType type = func.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    SmallVector<Type> params;
    for (auto [index, input] : llvm::enumerate(type.getInputs())) {
      Type converted = getTypeConverter()->convertType(input);
      if (!converted)
        return func.emitError()
               << "cannot lower kernel parameter type " << input;
      signature.addInputs(index, converted);
      params.push_back(converted);
    }
    // Each tensor map is a hidden parameter after the declared ones: a
    // 128-byte CUtensorMap passed by value, whose address the TMA copies
    // take (a grid constant).
    SmallVector<MakeTensorMapOp> maps;
    func.walk([&](MakeTensorMapOp op) { maps.push_back(op); });
    SmallVector<Attribute> mapInfo;
    for (MakeTensorMapOp op : maps) {
      int64_t param = params.size();
      FailureOr<DictionaryAttr> info = describeTensorMap(func, op, param);
      if (failed(info))
        return failure();
      mapInfo.push_back(*info);
      rewriter.modifyOpInPlace(op, [&] {
        op->setAttr(TileDialect::kTensorMapParamAttrName,
                    rewriter.getI64IntegerAttr(param));
      });
      Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
      params.push_back(ptr);
    }
    // Producer warps of a warp-specialized kernel come on top of its own.
    unsigned threads = getNumWarps(func) * 32 + getProducerThreads(func);
    auto llvmType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(rewriter.getContext()), params);
    auto llvmFunc = LLVM::LLVMFuncOp::create(rewriter, func.getLoc(),
                                             func.getSymName(), llvmType);
    llvmFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                      rewriter.getUnitAttr());
    auto block = rewriter.getDenseI32ArrayAttr({int32_t(threads), 1, 1});
    llvmFunc->setAttr(NVVM::NVVMDialect::getReqntidAttrName(), block);
    // CTA pairs and multicast groups launch as clusters along y
    // (.reqnctapercluster); the tcgen05 lowering reads the attributes on
    // the lowered function.
    if (int64_t programs = getClusterPrograms(func); programs > 1)
      llvmFunc->setAttr(
          NVVM::NVVMDialect::getClusterDimAttrName(),
          rewriter.getDenseI32ArrayAttr({1, int32_t(programs), 1}));
    for (StringRef name :
         {TileDialect::kCtaPairAttrName, TileDialect::kMulticastAttrName,
          TileDialect::kDependentLaunchAttrName})
      if (Attribute attr = func->getAttr(name))
        llvmFunc->setAttr(name, attr);
    // A register cap trades a few spills for more resident CTAs, which is
    // what memory-bound kernels with large register tiles need.
    if (auto cap = func->getAttrOfType<IntegerAttr>(
            TileDialect::kMaxRegistersAttrName))
      llvmFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                        rewriter.getI32IntegerAttr(cap.getInt()));
    // The caller's no-overlap promise, for LLVM's alias analysis too.
    for (unsigned i = 0; i < type.getNumInputs(); ++i)
      if (func.getArgAttr(i, TileDialect::kNoAliasAttrName))
        llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                            rewriter.getUnitAttr());
    for (size_t i = params.size() - maps.size(); i < params.size(); ++i) {
      llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                          TypeAttr::get(LLVM::LLVMArrayType::get(
                              rewriter.getI8Type(), 128)));
      llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          rewriter.getI64IntegerAttr(64));
      llvmFunc.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                          rewriter.getUnitAttr());
    }
    llvmFunc->setAttr(TileDialect::kMetadataAttrName,
                      buildMetadata(func, threads, target,
                                    rewriter.getArrayAttr(mapInfo)));
    rewriter.inlineRegionBefore(func.getBody(), llvmFunc.getBody(),
                                llvmFunc.end());
    if (failed(rewriter.convertRegionTypes(&llvmFunc.getBody(),
                                           *getTypeConverter(), &signature)))
      return failure();
    for (size_t i = 0; i < maps.size(); ++i)
      llvmFunc.getBody().front().addArgument(
          LLVM::LLVMPointerType::get(rewriter.getContext()), func.getLoc());
    rewriter.eraseOp(func);
    return success();
  }

  std::string target;
};

struct ReturnLowering : public OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};

template <typename SourceOp, typename XOp, typename YOp, typename ZOp>
struct GridQueryLowering : public OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value value;
    switch (op.getDim()) {
    case GridDim::X:
      value = XOp::create(rewriter, op.getLoc(), i32);
      break;
    case GridDim::Y:
      value = YOp::create(rewriter, op.getLoc(), i32);
      break;
    case GridDim::Z:
      value = ZOp::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, value);
    return success();
  }
};
} // namespace

LogicalResult mlir::tile::checkTensorMapSources(ModuleOp module) {
  WalkResult result = module.walk([](MakeTensorMapOp op) {
    auto func = op->getParentOfType<func::FuncOp>();
    if (!func || failed(describeTensorMap(func, op, /*param=*/0)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void mlir::tile::populateKernelPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        StringRef target) {
  patterns.add<KernelLowering>(converter, target);
  patterns.add<ReturnLowering>(converter, patterns.getContext());
  patterns.add<GridQueryLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>>(
      converter, patterns.getContext());
}
