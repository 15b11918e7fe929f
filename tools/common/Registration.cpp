//===- Registration.cpp - everything the tilec tools register ------------===//

#include "tools/common/Registration.h"

#include "dialect/TileDialect.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

void tilec::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tile::TileDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect,
                  mlir::index::IndexDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
}

void tilec::registerPasses() {
  mlir::tile::registerTilePasses();
  mlir::tile::registerTileLoweringPasses();
  mlir::tile::registerTileToPTXPipeline();
  mlir::registerTransformsPasses();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertMathToLLVMPass();
  mlir::registerConvertIndexToLLVMPass();
  mlir::registerReconcileUnrealizedCastsPass();
}
