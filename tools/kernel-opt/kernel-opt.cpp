//===- kernel-opt.cpp - mlir-opt for tile kernels ------------------------===//
//
// The tile dialect, every tilec pass and the `tile-to-ptx` pipeline on top
// of MLIR's standard driver, so all of mlir-opt's flags work
// (--mlir-print-ir-after-all, --mlir-timing, --verify-diagnostics,
// --split-input-file, crash reproducers, ...).
//
//===----------------------------------------------------------------------===//

#include "tools/common/Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerDialects(registry);
  tilec::registerPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tilec kernel optimizer driver\n", registry));
}
