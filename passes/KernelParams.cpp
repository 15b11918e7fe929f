//===- KernelParams.cpp - parameters passes add to kernels ----------------===//

#include "passes/KernelParams.h"

#include "dialect/TileDialect.h"

using namespace mlir;

SmallVector<Value>
mlir::tile::appendKernelParams(func::FuncOp func,
                               ArrayRef<std::pair<Type, StringRef>> params) {
  MLIRContext *context = func.getContext();
  const unsigned first = func.getNumArguments();
  for (auto [i, param] : llvm::enumerate(params))
    (void)func.insertArgument(first + i, param.first, DictionaryAttr(),
                              func.getLoc());
  if (auto names =
          func->getAttrOfType<ArrayAttr>(TileDialect::kArgNamesAttrName)) {
    SmallVector<Attribute> extended(names.begin(), names.end());
    for (const auto &param : params)
      extended.push_back(StringAttr::get(context, param.second));
    func->setAttr(TileDialect::kArgNamesAttrName,
                  ArrayAttr::get(context, extended));
  }
  SmallVector<Value> added;
  for (unsigned i = 0; i < params.size(); ++i)
    added.push_back(func.getArgument(first + i));
  return added;
}
