//===- KernelSummary.h - what each kernel became ----------------*- C++ -*-===//

#ifndef TILEC_TOOLS_EMITPTX_KERNELSUMMARY_H
#define TILEC_TOOLS_EMITPTX_KERNELSUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace tilec {
/// One block per kernel: launch shape, shared memory, parameters and the
/// PTX instruction mix that matters for performance (vector and scalar
/// global accesses, shuffles, barriers, SFU, tensor-core instructions).
std::string summarizeKernels(mlir::ModuleOp lowered, llvm::StringRef ptx);
} // namespace tilec

#endif // TILEC_TOOLS_EMITPTX_KERNELSUMMARY_H
