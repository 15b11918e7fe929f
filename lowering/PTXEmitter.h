//===- PTXEmitter.h - LLVM dialect to PTX text ------------------*- C++ -*-===//

#ifndef TILEC_LOWERING_PTXEMITTER_H
#define TILEC_LOWERING_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace mlir::tile {

/// Translates a fully lowered module (LLVM + NVVM dialects) to LLVM IR,
/// optimizes it at O3 and runs the NVPTX backend in process. Emits a
/// diagnostic on `module` and fails on any error.
FailureOr<std::string> emitPTX(ModuleOp module, StringRef target,
                               std::string *llvmIR = nullptr);

/// JSON metadata (docs/metadata.md) for the kernels of a lowered module.
std::string emitMetadataJSON(ModuleOp module, StringRef target);

} // namespace mlir::tile

#endif // TILEC_LOWERING_PTXEMITTER_H
