//===- PTXEmitter.cpp - LLVM dialect to PTX text -------------------------===//

#include "lowering/PTXEmitter.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The PTX ISA each target needs (TargetInfo::getPTXFeature).
StringRef getPTXFeatures(StringRef target) {
  std::optional<TargetInfo> info = TargetInfo::get(target);
  return info ? info->getPTXFeature() : StringRef("+ptx80");
}

/// CodeGenPrepare in its mode for huge functions (`cgpp-huge-func`, by
/// default from 10000 blocks): it revisits the blocks a change touched
/// instead of restarting over the whole function, which on our kernels'
/// long unrolled blocks was 40 % of codegen (sm_80 GEMM, 20 instances:
/// 9.2 s against 7.1 s on two cores) and gave byte-identical PTX for every
/// kernel in kernels_dsl/ on every target. A value given on the command
/// line wins.
void useHugeFunctionCodeGenPrepare() {
  auto options = llvm::cl::getRegisteredOptions();
  auto it = options.find("cgpp-huge-func");
  if (it != options.end() && it->second->getNumOccurrences() == 0)
    (void)it->second->addOccurrence(/*pos=*/0, "cgpp-huge-func", "0");
}

void initializeNVPTX() {
  static bool once = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    useHugeFunctionCodeGenPrepare();
    return true;
  }();
  (void)once;
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

/// An NVPTX target machine for `target`; null with `error` set when the
/// backend or the target is unavailable.
std::unique_ptr<llvm::TargetMachine> createMachine(StringRef target,
                                                   std::string &error) {
  llvm::Triple triple("nvptx64-nvidia-cuda");
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!nvptx) {
    error = "NVPTX backend unavailable: " + error;
    return nullptr;
  }
  std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
      triple, target, getPTXFeatures(target), llvm::TargetOptions(),
      std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    error = ("cannot create an NVPTX target machine for " + target).str();
  return machine;
}

/// The NVPTX printer over `module`, whose triple and data layout are
/// `machine`'s; std::nullopt when it cannot emit assembly.
std::optional<std::string> printPTX(llvm::Module &module,
                                    llvm::TargetMachine &machine) {
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream ptxStream(ptx);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, ptxStream, nullptr,
                                  llvm::CodeGenFileType::AssemblyFile))
    return std::nullopt;
  codegen.run(module);
  return std::string(ptx.str());
}

/// The parts of the PTX of a module with one kernel: the header (up to its
/// `// .globl` line), that line, the module-scope declarations after it
/// (with their blank line) and the kernel itself.
struct KernelPTX {
  StringRef header, globl, declarations, body;
};

KernelPTX splitKernelPTX(StringRef ptx) {
  KernelPTX parts;
  size_t globl = ptx.find("\t// .globl\t");
  if (globl == StringRef::npos) {
    parts.header = ptx;
    return parts;
  }
  parts.header = ptx.take_front(globl);
  StringRef rest = ptx.drop_front(globl);
  size_t eol = rest.find('\n') + 1;
  parts.globl = rest.take_front(eol);
  rest = rest.drop_front(eol);
  size_t declarations = 0;
  while (declarations < rest.size()) {
    StringRef line = rest.drop_front(declarations);
    line = line.take_front(line.find('\n') + 1);
    bool declaration = line.starts_with(".extern") ||
                       line.starts_with(".global") ||
                       line.starts_with(".shared") ||
                       line.starts_with(".const") || line == "\n";
    if (!declaration)
      break;
    declarations += line.size();
  }
  parts.declarations = rest.take_front(declarations);
  parts.body = rest.drop_front(declarations);
  return parts;
}

/// `body`, the PTX of the only function of its module, with the names the
/// printer numbers by function ($L__BB<n>_ labels, __local_depot<n>) given
/// the number of the module's function `index`.
std::string renumberFunction(StringRef body, size_t index) {
  if (index == 0)
    return body.str();
  // Each name: the text before the function number, the text after it.
  const std::pair<StringRef, StringRef> names[] = {{"$L__BB", "_"},
                                                   {"__local_depot", ""}};
  const std::string number = std::to_string(index);
  std::string out;
  while (!body.empty()) {
    size_t next = StringRef::npos;
    size_t length = 0;
    StringRef prefix, suffix;
    for (auto [before, after] : names) {
      std::string numbered = (before + "0" + after).str();
      size_t at = body.find(numbered);
      if (at < next) {
        next = at;
        length = numbered.size();
        prefix = before;
        suffix = after;
      }
    }
    if (next == StringRef::npos) {
      out += body.str();
      break;
    }
    out += (body.take_front(next) + prefix + number + suffix).str();
    body = body.drop_front(next + length);
  }
  return out;
}

/// Compiles each kernel of `module` in its own context on a pool of
/// threads (O3 and instruction selection dominate the compile time, and
/// kernels do not interact), then merges their PTX. Returns std::nullopt
/// when the module does not suit that (fewer than two kernels, other
/// function definitions, fewer than two threads).
std::optional<std::string> emitKernelsInParallel(llvm::Module &module,
                                                 StringRef target,
                                                 unsigned threads) {
  SmallVector<std::string> kernels;
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    if (function.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      return std::nullopt;
    kernels.push_back(function.getName().str());
  }
  if (threads == 0)
    threads = llvm::hardware_concurrency().compute_thread_count();
  if (kernels.size() < 2 || threads < 2)
    return std::nullopt;
  // Each kernel travels to its thread's context as the bitcode of a module
  // that defines it alone (the other kernels erased), so that no thread
  // parses the others.
  std::vector<SmallVector<char>> bitcodes(kernels.size());
  for (auto [k, kernel] : llvm::enumerate(kernels)) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> alone =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          return !isa<llvm::Function>(value) || value->getName() == kernel;
        });
    SmallVector<llvm::Function *> others;
    for (llvm::Function &function : *alone)
      if (function.isDeclaration() &&
          function.getCallingConv() == llvm::CallingConv::PTX_Kernel)
        others.push_back(&function);
    for (llvm::Function *function : others)
      function->eraseFromParent();
    llvm::raw_svector_ostream os(bitcodes[k]);
    llvm::WriteBitcodeToFile(*alone, os);
  }
  std::vector<std::string> ptxs(kernels.size());
  // Bytes, not std::vector<bool>: threads write neighbouring entries.
  std::vector<char> failed(kernels.size(), 0);
  llvm::DefaultThreadPool pool(
      llvm::hardware_concurrency(std::min<unsigned>(threads, kernels.size())));
  for (size_t k = 0; k < kernels.size(); ++k)
    pool.async([&, k] {
      llvm::LLVMContext context;
      llvm::Expected<std::unique_ptr<llvm::Module>> copy =
          llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  StringRef(bitcodes[k].data(), bitcodes[k].size()), "tilec"),
              context);
      std::string error;
      std::unique_ptr<llvm::TargetMachine> machine =
          createMachine(target, error);
      if (!copy || !machine) {
        if (!copy)
          llvm::consumeError(copy.takeError());
        failed[k] = true;
        return;
      }
      optimize(**copy, *machine);
      std::optional<std::string> ptx = printPTX(**copy, *machine);
      failed[k] = !ptx;
      if (ptx)
        ptxs[k] = std::move(*ptx);
    });
  pool.wait();
  if (llvm::is_contained(failed, 1))
    return std::nullopt;
  return mergeKernelPTX(ptxs);
}
} // namespace

/// The PTX the NVPTX printer gives for a whole module, from the PTX of
/// each of its kernels compiled alone: one header, the first kernel's
/// `// .globl` line, every module-scope declaration once, then the kernels
/// in module order. Kernels share nothing but declarations (they call no
/// functions), so each compiles alone to the same text.
std::string mlir::tile::mergeKernelPTX(ArrayRef<std::string> ptxs) {
  SmallVector<KernelPTX> parts;
  for (const std::string &ptx : ptxs)
    parts.push_back(splitKernelPTX(ptx));
  std::string out = parts.front().header.str();
  out += parts.front().globl.str();
  SmallVector<StringRef> declarations;
  for (const KernelPTX &part : parts) {
    SmallVector<StringRef> lines;
    part.declarations.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef line : lines)
      if (!llvm::is_contained(declarations, line))
        declarations.push_back(line);
  }
  for (StringRef line : declarations)
    out += (line + "\n").str();
  if (!declarations.empty())
    out += "\n";
  for (auto [i, part] : llvm::enumerate(parts)) {
    if (i)
      out += part.globl.str();
    out += renumberFunction(part.body, i);
  }
  return out;
}

FailureOr<std::string> mlir::tile::emitPTX(ModuleOp module, StringRef target,
                                           std::string *llvmIR,
                                           unsigned threads) {
  initializeNVPTX();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "tilec");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = createMachine(target, error);
  if (!machine)
    return module.emitError(error);
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());

  std::string verifyErrors;
  llvm::raw_string_ostream verifyStream(verifyErrors);
  if (llvm::verifyModule(*llvmModule, &verifyStream))
    return module.emitError("invalid LLVM IR: ") << verifyErrors;

  // The optimized IR is the whole module's: only without it may kernels
  // compile apart.
  if (!llvmIR)
    if (std::optional<std::string> ptx =
            emitKernelsInParallel(*llvmModule, target, threads))
      return *ptx;

  optimize(*llvmModule, *machine);
  if (llvmIR) {
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }

  std::optional<std::string> ptx = printPTX(*llvmModule, *machine);
  if (!ptx)
    return module.emitError("NVPTX backend cannot emit assembly");
  return *ptx;
}

/// Metadata attributes as JSON: booleans, integers, strings, arrays,
/// dictionaries.
static llvm::json::Value toJSON(Attribute attr) {
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return flag.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.str();
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array values;
    for (Attribute a : array)
      values.push_back(toJSON(a));
    return values;
  }
  llvm::json::Object object;
  for (NamedAttribute field : cast<DictionaryAttr>(attr))
    object[field.getName().strref()] = toJSON(field.getValue());
  return object;
}

/// Whether a tensor map of `kernels` (the metadata's kernel objects) uses
/// what tilec-metadata-v2 added: a size or stride that scales an argument
/// ("mul", "div") or a "whole_outer" map.
static bool usesMetadataV2(const llvm::json::Array &kernels) {
  auto scaled = [](const llvm::json::Array *extents) {
    return extents && llvm::any_of(*extents, [](const llvm::json::Value &v) {
             const llvm::json::Object *o = v.getAsObject();
             return o && (o->get("mul") || o->get("div"));
           });
  };
  for (const llvm::json::Value &kernel : kernels) {
    const llvm::json::Array *maps =
        kernel.getAsObject()->getArray("tensor_maps");
    for (const llvm::json::Value &map : maps ? *maps : llvm::json::Array()) {
      const llvm::json::Object *m = map.getAsObject();
      if (m && (m->get("whole_outer") || scaled(m->getArray("sizes")) ||
                scaled(m->getArray("strides"))))
        return true;
    }
  }
  return false;
}

std::string mlir::tile::emitMetadataJSON(ModuleOp module, StringRef target) {
  llvm::json::Array kernels;
  module.walk([&](LLVM::LLVMFuncOp func) {
    auto meta =
        func->getAttrOfType<DictionaryAttr>(TileDialect::kMetadataAttrName);
    if (!meta)
      return;
    auto ints = [](Attribute attr) {
      llvm::json::Array values;
      for (Attribute a : cast<ArrayAttr>(attr))
        values.push_back(cast<IntegerAttr>(a).getInt());
      return values;
    };
    llvm::json::Array params;
    for (Attribute p : cast<ArrayAttr>(meta.get("params"))) {
      auto dict = cast<DictionaryAttr>(p);
      llvm::json::Object param;
      for (NamedAttribute field : dict)
        param[field.getName().strref()] =
            cast<StringAttr>(field.getValue()).str();
      params.push_back(std::move(param));
    }
    llvm::json::Object kernel{
        {"name", func.getSymName().str()},
        {"block", ints(meta.get("block"))},
        {"shared_bytes", cast<IntegerAttr>(meta.get("shared_bytes")).getInt()},
        {"cluster", ints(meta.get("cluster"))},
        {"params", std::move(params)},
        {"tensor_maps", toJSON(meta.get("tensor_maps"))},
    };
    if (auto flag = meta.getAs<BoolAttr>("dependent_launch"))
      kernel["dependent_launch"] = flag.getValue();
    if (auto group = meta.getAs<IntegerAttr>("persistent"))
      kernel["persistent"] = group.getInt();
    if (auto bytes = meta.getAs<IntegerAttr>("split_k_partial_bytes"))
      kernel["split_k"] = llvm::json::Object{{"partial_bytes", bytes.getInt()}};
    kernels.push_back(std::move(kernel));
  });
  // The oldest format that describes the module, so that a runtime that
  // reads only v1 still loads modules that use nothing of v2 (scaled sizes
  // and strides, whole_outer maps).
  llvm::json::Object root{{"format", usesMetadataV2(kernels)
                                         ? "tilec-metadata-v2"
                                         : "tilec-metadata-v1"},
                          {"target", target.str()},
                          {"kernels", std::move(kernels)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return text;
}
