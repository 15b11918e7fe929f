//===- ResourceSummary.h - ptxas resource usage -----------------*- C++ -*-===//

#ifndef TILEC_TOOLS_EMITPTX_RESOURCESUMMARY_H
#define TILEC_TOOLS_EMITPTX_RESOURCESUMMARY_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace tilec {
/// Assembles `ptx` with ptxas (from PATH or /usr/local/cuda/bin) in verbose
/// mode and returns its report (registers, shared memory, spills), or
/// nullopt with `why` set when ptxas is absent or rejects the PTX.
std::optional<std::string> getResourceSummary(llvm::StringRef ptx,
                                              llvm::StringRef target,
                                              std::string &why);
} // namespace tilec

#endif // TILEC_TOOLS_EMITPTX_RESOURCESUMMARY_H
