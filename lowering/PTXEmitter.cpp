//===- PTXEmitter.cpp - LLVM dialect to PTX text -------------------------===//

#include "lowering/PTXEmitter.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The PTX ISA each target needs (TargetInfo::getPTXFeature).
StringRef getPTXFeatures(StringRef target) {
  std::optional<TargetInfo> info = TargetInfo::get(target);
  return info ? info->getPTXFeature() : StringRef("+ptx80");
}

void initializeNVPTX() {
  static bool once = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    return true;
  }();
  (void)once;
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}
} // namespace

FailureOr<std::string> mlir::tile::emitPTX(ModuleOp module, StringRef target,
                                           std::string *llvmIR) {
  initializeNVPTX();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "tilec");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");

  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!nvptx)
    return module.emitError("NVPTX backend unavailable: ") << error;
  std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
      triple, target, getPTXFeatures(target), llvm::TargetOptions(),
      std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return module.emitError("cannot create an NVPTX target machine for ")
           << target;
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  std::string verifyErrors;
  llvm::raw_string_ostream verifyStream(verifyErrors);
  if (llvm::verifyModule(*llvmModule, &verifyStream))
    return module.emitError("invalid LLVM IR: ") << verifyErrors;

  optimize(*llvmModule, *machine);
  if (llvmIR) {
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }

  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxStream(ptx);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, ptxStream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return module.emitError("NVPTX backend cannot emit assembly");
  codegen.run(*llvmModule);
  return std::string(ptx.str());
}

/// Metadata attributes as JSON: integers, strings, arrays, dictionaries.
static llvm::json::Value toJSON(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.str();
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array values;
    for (Attribute a : array)
      values.push_back(toJSON(a));
    return values;
  }
  llvm::json::Object object;
  for (NamedAttribute field : cast<DictionaryAttr>(attr))
    object[field.getName().strref()] = toJSON(field.getValue());
  return object;
}

std::string mlir::tile::emitMetadataJSON(ModuleOp module, StringRef target) {
  llvm::json::Array kernels;
  module.walk([&](LLVM::LLVMFuncOp func) {
    auto meta =
        func->getAttrOfType<DictionaryAttr>(TileDialect::kMetadataAttrName);
    if (!meta)
      return;
    auto ints = [](Attribute attr) {
      llvm::json::Array values;
      for (Attribute a : cast<ArrayAttr>(attr))
        values.push_back(cast<IntegerAttr>(a).getInt());
      return values;
    };
    llvm::json::Array params;
    for (Attribute p : cast<ArrayAttr>(meta.get("params"))) {
      auto dict = cast<DictionaryAttr>(p);
      llvm::json::Object param;
      for (NamedAttribute field : dict)
        param[field.getName().strref()] =
            cast<StringAttr>(field.getValue()).str();
      params.push_back(std::move(param));
    }
    llvm::json::Object kernel{
        {"name", func.getSymName().str()},
        {"block", ints(meta.get("block"))},
        {"shared_bytes", cast<IntegerAttr>(meta.get("shared_bytes")).getInt()},
        {"cluster", ints(meta.get("cluster"))},
        {"params", std::move(params)},
        {"tensor_maps", toJSON(meta.get("tensor_maps"))},
    };
    if (auto group = meta.getAs<IntegerAttr>("persistent"))
      kernel["persistent"] = group.getInt();
    kernels.push_back(std::move(kernel));
  });
  llvm::json::Object root{{"format", "tilec-metadata-v1"},
                          {"target", target.str()},
                          {"kernels", std::move(kernels)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return text;
}
