//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//

#ifndef TILEC_PASSES_PASSES_H
#define TILEC_PASSES_PASSES_H

#include "dialect/TileDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace mlir::tile

#endif // TILEC_PASSES_PASSES_H
