//===- KernelLowering.cpp - kernels, returns and grid queries ------------===//
//
// A kernel becomes an `llvm.func` with `nvvm.kernel`, its block size as
// `nvvm.reqntid`, and a `tile.metadata` dictionary: everything the runtime
// needs to validate and launch it.
//
//===----------------------------------------------------------------------===//

#include "lowering/Patterns.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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

DictionaryAttr buildMetadata(func::FuncOp func, unsigned threads,
                             StringRef target) {
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
      b.getNamedAttr("cluster", b.getI64ArrayAttr({1, 1, 1})),
      b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(shared)),
      b.getNamedAttr("params", b.getArrayAttr(params)),
  };
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
    unsigned threads = getNumWarps(func) * 32;
    auto llvmType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(rewriter.getContext()), params);
    auto llvmFunc = LLVM::LLVMFuncOp::create(rewriter, func.getLoc(),
                                             func.getSymName(), llvmType);
    llvmFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                      rewriter.getUnitAttr());
    auto block = rewriter.getDenseI32ArrayAttr({int32_t(threads), 1, 1});
    llvmFunc->setAttr(NVVM::NVVMDialect::getReqntidAttrName(), block);
    // A register cap trades a few spills for more resident CTAs, which is
    // what memory-bound kernels with large register tiles need.
    if (auto cap = func->getAttrOfType<IntegerAttr>(
            TileDialect::kMaxRegistersAttrName))
      llvmFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                        rewriter.getI32IntegerAttr(cap.getInt()));
    llvmFunc->setAttr(TileDialect::kMetadataAttrName,
                      buildMetadata(func, threads, target));
    rewriter.inlineRegionBefore(func.getBody(), llvmFunc.getBody(),
                                llvmFunc.end());
    if (failed(rewriter.convertRegionTypes(&llvmFunc.getBody(),
                                           *getTypeConverter(), &signature)))
      return failure();
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
