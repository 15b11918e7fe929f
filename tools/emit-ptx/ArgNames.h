//===- ArgNames.h - kernel parameter names from the source ------*- C++ -*-===//

#ifndef TILEC_TOOLS_EMITPTX_ARGNAMES_H
#define TILEC_TOOLS_EMITPTX_ARGNAMES_H

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilec {
/// Records the SSA names kernel parameters have in the source text
/// (`%x` -> "x") as `tile.arg_names`, so runtime errors can name them.
void annotateArgNames(mlir::ModuleOp module, const mlir::AsmParserState &state);
} // namespace tilec

#endif // TILEC_TOOLS_EMITPTX_ARGNAMES_H
