//===- KernelSummary.cpp - what each kernel became -----------------------===//

#include "tools/emit-ptx/KernelSummary.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
/// The PTX text of `.entry name(...) { ... }`.
llvm::StringRef entryBody(llvm::StringRef ptx, llvm::StringRef name) {
  size_t start = ptx.find((".entry " + name + "(").str());
  if (start == llvm::StringRef::npos)
    return {};
  size_t next = ptx.find(".entry ", start + 1);
  return ptx.slice(start, next);
}

size_t occurrences(llvm::StringRef text, llvm::StringRef needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != llvm::StringRef::npos;
       pos = text.find(needle, pos + 1))
    ++n;
  return n;
}
} // namespace

std::string tilec::summarizeKernels(ModuleOp lowered, llvm::StringRef ptx) {
  std::string text;
  llvm::raw_string_ostream os(text);
  lowered.walk([&](LLVM::LLVMFuncOp func) {
    auto meta = func->getAttrOfType<DictionaryAttr>(
        tile::TileDialect::kMetadataAttrName);
    if (!meta)
      return;
    auto block = cast<ArrayAttr>(meta.get("block"));
    os << "kernel " << func.getSymName() << ": "
       << cast<IntegerAttr>(block[0]).getInt() << " threads, "
       << cast<IntegerAttr>(meta.get("shared_bytes")).getInt()
       << " B dynamic shared memory\n  params:";
    for (Attribute p : cast<ArrayAttr>(meta.get("params"))) {
      auto dict = cast<DictionaryAttr>(p);
      os << " " << cast<StringAttr>(dict.get("name")).getValue() << ":"
         << cast<StringAttr>(dict.get("kind")).getValue();
      if (auto elem = dict.getAs<StringAttr>("elem"))
        os << "<" << elem.getValue() << ">";
    }
    llvm::StringRef body = entryBody(ptx, func.getSymName());
    os << "\n  ptx: " << occurrences(body, "\n") << " lines; "
       << occurrences(body, "ld.global.v") << " vector + "
       << occurrences(body, "ld.global.") - occurrences(body, "ld.global.v")
       << " scalar global loads, " << occurrences(body, "st.global.v")
       << " vector + "
       << occurrences(body, "st.global.") - occurrences(body, "st.global.v")
       << " scalar global stores, " << occurrences(body, "shfl.sync")
       << " shuffles, " << occurrences(body, "bar.sync") << " barriers, "
       << occurrences(body, "ex2.approx") << " ex2, "
       << occurrences(body, "mma.") + occurrences(body, "wgmma.") +
              occurrences(body, "tcgen05.mma")
       << " MMA\n";
  });
  return text;
}
