//===- KernelLibrary.h - tile kernels prepared for the CPU ------*- C++ -*-===//

#ifndef TILEC_TOOLS_CPU_DRIVER_KERNELLIBRARY_H
#define TILEC_TOOLS_CPU_DRIVER_KERNELLIBRARY_H

#include <memory>
#include <string>
#include <vector>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace tilec::cpu {

/// The kernels of tile source files, instantiated for one target and taken
/// through the tile-level passes (everything before convert-tile-to-llvm),
/// ready for runKernel.
class KernelLibrary {
public:
  /// Parses and prepares every file; on failure returns null and sets
  /// `error` to the diagnostics.
  static std::unique_ptr<KernelLibrary>
  load(const std::vector<std::string> &files, const std::string &target,
       std::string &error);

  /// The kernel named `name`, or a null op.
  mlir::func::FuncOp lookup(llvm::StringRef name) const;

private:
  KernelLibrary();
  std::unique_ptr<mlir::MLIRContext> context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
};

} // namespace tilec::cpu

#endif // TILEC_TOOLS_CPU_DRIVER_KERNELLIBRARY_H
