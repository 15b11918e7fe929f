//===- CompileKernels.h - tile source to PTX, one kernel per thread -*- C++
//-*-===//
//
// The whole way from tile source to PTX for a module of kernels, each
// kernel (template instance) lowered and compiled apart on a pool of
// threads, so that one kernel's MLIR passes overlap another's LLVM
// codegen. The PTX and the lowered module are those of the whole-module
// pipeline (buildTileToPTXPipeline, then emitPTX).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LOWERING_COMPILEKERNELS_H
#define TILEC_LOWERING_COMPILEKERNELS_H

#include "lowering/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace mlir::tile {

/// Lowers `module` (tile source) in place to LLVM + NVVM and returns its
/// PTX. After tile-instantiate, a module of two kernels or more whose
/// top-level ops are all kernels runs buildTileKernelPipeline and the
/// NVPTX backend on each kernel apart, on up to `threads` threads (0: one
/// per core); any other module, or `threads` = 1, runs as one. Diagnostics
/// come in kernel order. Fails (with a diagnostic) as the pipeline would.
FailureOr<std::string> compileKernels(ModuleOp module,
                                      const TileToPTXOptions &options,
                                      unsigned threads = 0);

} // namespace mlir::tile

#endif // TILEC_LOWERING_COMPILEKERNELS_H
