//===- Registration.h - everything the tilec tools register -----*- C++ -*-===//

#ifndef TILEC_TOOLS_COMMON_REGISTRATION_H
#define TILEC_TOOLS_COMMON_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace tilec {
/// The tile dialect, the upstream dialects kernels and lowerings use, and
/// their LLVM IR translations.
void registerDialects(mlir::DialectRegistry &registry);
/// tile passes, lowering passes, the `tile-to-ptx` pipeline and the
/// upstream passes it is built from.
void registerPasses();
} // namespace tilec

#endif // TILEC_TOOLS_COMMON_REGISTRATION_H
