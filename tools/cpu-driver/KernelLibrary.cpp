//===- KernelLibrary.cpp - tile kernels prepared for the CPU --------------===//

#include "tools/cpu-driver/KernelLibrary.h"

#include "dialect/TargetInfo.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"
#include "tools/common/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tilec::cpu {

KernelLibrary::KernelLibrary() {
  DialectRegistry registry;
  registerDialects(registry);
  context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
}

std::unique_ptr<KernelLibrary>
KernelLibrary::load(const std::vector<std::string> &files,
                    const std::string &target, std::string &error) {
  std::unique_ptr<KernelLibrary> library(new KernelLibrary());
  llvm::raw_string_ostream os(error);
  for (const std::string &file : files) {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, library->context.get(), os);
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(file, sourceMgr, library->context.get());
    if (!module) {
      os << "cannot parse " << file << "\n";
      return nullptr;
    }
    // The passes emit-ptx runs with its defaults, up to the per-thread
    // lowering. TMA is turned off only where the target has it (the
    // interpreter does not model it): the option also gives tile-pipeline-
    // loads the target, whose shared memory sizes the rings.
    tile::TileToPTXOptions options;
    options.target = target;
    std::optional<tile::TargetInfo> info = tile::TargetInfo::get(target);
    options.tma = !info || !info->hasTma();
    PassManager pm(library->context.get());
    pm.addPass(tile::createTileInstantiate({target}));
    tile::buildTileLevelPipeline(pm, options);
    if (failed(pm.run(*module))) {
      os << "the tile passes failed on " << file << "\n";
      return nullptr;
    }
    library->modules.push_back(std::move(module));
  }
  return library;
}

func::FuncOp KernelLibrary::lookup(llvm::StringRef name) const {
  for (const OwningOpRef<ModuleOp> &module : modules)
    if (auto fn = module.get().lookupSymbol<func::FuncOp>(name))
      if (!fn.isExternal())
        return fn;
  return {};
}

} // namespace tilec::cpu
