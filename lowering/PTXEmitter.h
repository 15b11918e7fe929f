//===- PTXEmitter.h - LLVM dialect to PTX text ------------------*- C++ -*-===//

#ifndef TILEC_LOWERING_PTXEMITTER_H
#define TILEC_LOWERING_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace mlir::tile {

/// Translates a fully lowered module (LLVM + NVVM dialects) to LLVM IR,
/// optimizes it at O3 and runs the NVPTX backend in process. Without
/// `llvmIR`, modules of several kernels compile one kernel per thread, on
/// up to `threads` threads (0: one per core; 1: the whole module on one),
/// and their PTX is merged into the very text the whole module gives.
/// Emits a diagnostic on `module` and fails on any error.
FailureOr<std::string> emitPTX(ModuleOp module, StringRef target,
                               std::string *llvmIR = nullptr,
                               unsigned threads = 0);

/// JSON metadata (docs/metadata.md) for the kernels of a lowered module.
std::string emitMetadataJSON(ModuleOp module, StringRef target);
/// The PTX the NVPTX printer gives for a whole module, from the PTX of
/// each of its kernels compiled alone (in module order): one header, every
/// module-scope declaration once, the kernels with their local labels and
/// spill depots renumbered.
std::string mergeKernelPTX(ArrayRef<std::string> ptxs);

} // namespace mlir::tile

#endif // TILEC_LOWERING_PTXEMITTER_H
