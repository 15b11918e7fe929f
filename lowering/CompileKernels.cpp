//===- CompileKernels.cpp - tile source to PTX, one kernel per thread ----===//

#include "lowering/CompileKernels.h"

#include "lowering/PTXEmitter.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "passes/Passes.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <atomic>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The kernels of `module`, when it holds nothing else.
SmallVector<func::FuncOp> getKernelsAlone(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  for (Operation &op : module.getBody()->getOperations()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func || !isKernel(func))
      return {};
    kernels.push_back(func);
  }
  return kernels;
}

/// A module with `module`'s attributes and location holding a copy of
/// `kernel` alone.
OwningOpRef<ModuleOp> isolate(ModuleOp module, func::FuncOp kernel) {
  OwningOpRef<ModuleOp> alone = ModuleOp::create(module.getLoc());
  (*alone)->setAttrs(module->getAttrDictionary());
  alone->getBody()->push_back(kernel.clone());
  return alone;
}

} // namespace

FailureOr<std::string>
mlir::tile::compileKernels(ModuleOp module, const TileToPTXOptions &options,
                           unsigned threads) {
  MLIRContext *context = module.getContext();
  PassManager instantiate(context);
  instantiate.addPass(createTileInstantiate({std::string(options.target)}));
  if (failed(instantiate.run(module)))
    return failure();

  if (threads == 0)
    threads = llvm::hardware_concurrency().compute_thread_count();
  SmallVector<func::FuncOp> kernels = getKernelsAlone(module);
  if (kernels.size() < 2 || threads < 2) {
    PassManager pm(context);
    buildTileKernelPipeline(pm, options);
    if (failed(pm.run(module)))
      return failure();
    return emitPTX(module, options.target, /*llvmIR=*/nullptr, threads);
  }

  // Each kernel in a module of its own, lowered and compiled on a thread of
  // the pool; the context is shared (its dialects are loaded), the LLVM
  // contexts are not.
  std::vector<OwningOpRef<ModuleOp>> parts;
  for (func::FuncOp kernel : kernels)
    parts.push_back(isolate(module, kernel));
  std::vector<std::string> ptxs(parts.size());
  // Bytes, not std::vector<bool>: threads write neighbouring entries.
  std::vector<char> failed(parts.size(), 0);
  {
    ParallelDiagnosticHandler diagnostics(context);
    // Each worker takes the next kernel until none is left, with one pass
    // manager for all of its kernels (its passes, the canonicalizer's
    // pattern sets among them, are set up once).
    std::atomic<size_t> next = 0;
    unsigned workers = std::min<unsigned>(threads, parts.size());
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(workers));
    for (unsigned w = 0; w < workers; ++w)
      pool.async([&] {
        PassManager pm(context);
        buildTileKernelPipeline(pm, options);
        for (size_t k = next++; k < parts.size(); k = next++) {
          diagnostics.setOrderIDForThread(k);
          FailureOr<std::string> ptx =
              succeeded(pm.run(*parts[k]))
                  ? emitPTX(*parts[k], options.target, /*llvmIR=*/nullptr,
                            /*threads=*/1)
                  : FailureOr<std::string>(failure());
          failed[k] = mlir::failed(ptx);
          if (!failed[k])
            ptxs[k] = std::move(*ptx);
          diagnostics.eraseOrderIDForThread();
        }
      });
    pool.wait();
  }
  if (llvm::is_contained(failed, 1))
    return failure();

  // The lowered kernels back in `module`, in order, with each module-level
  // symbol (the shared-memory array) once.
  module.getBody()->clear();
  module->setAttrs((*parts.front())->getAttrDictionary());
  SymbolTable symbols(module);
  for (OwningOpRef<ModuleOp> &part : parts) {
    for (Operation &op :
         llvm::make_early_inc_range(part->getBody()->getOperations())) {
      auto name =
          op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
      if (name && symbols.lookup(name))
        continue;
      op.remove();
      symbols.insert(&op);
    }
  }
  return mergeKernelPTX(ptxs);
}
