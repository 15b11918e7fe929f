//===- ArgNames.cpp - kernel parameter names from the source -------------===//

#include "tools/emit-ptx/ArgNames.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

void tilec::annotateArgNames(ModuleOp module, const AsmParserState &state) {
  module.walk([&](func::FuncOp func) {
    // Templates too: their instances keep the names.
    if (!func->hasAttr(tile::TileDialect::kKernelAttrName) ||
        func.isExternal() ||
        func->hasAttr(tile::TileDialect::kArgNamesAttrName))
      return;
    const AsmParserState::BlockDefinition *def =
        state.getBlockDef(&func.getBody().front());
    if (!def || def->arguments.size() != func.getNumArguments())
      return;
    Builder b(func.getContext());
    SmallVector<Attribute> names;
    for (const AsmParserState::SMDefinition &arg : def->arguments) {
      StringRef text(arg.loc.Start.getPointer(),
                     arg.loc.End.getPointer() - arg.loc.Start.getPointer());
      names.push_back(b.getStringAttr(text.ltrim('%')));
    }
    func->setAttr(tile::TileDialect::kArgNamesAttrName, b.getArrayAttr(names));
  });
}
