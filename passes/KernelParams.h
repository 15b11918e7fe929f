//===- KernelParams.h - parameters passes add to kernels --------*- C++ -*-===//
//
// Schedules that need run-time inputs the source does not name (the tile
// grid of a persistent kernel, the scratch of a split one) append them to
// the kernel's signature, keeping tile.arg_names (and so the metadata's
// parameter names) in step.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_PASSES_KERNELPARAMS_H
#define TILEC_PASSES_KERNELPARAMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tile {

/// Appends one parameter per (type, name) to `func` and returns them.
SmallVector<Value>
appendKernelParams(func::FuncOp func,
                   ArrayRef<std::pair<Type, StringRef>> params);

} // namespace mlir::tile

#endif // TILEC_PASSES_KERNELPARAMS_H
