//===- emit-ptx.cpp - compile a tile kernel file to PTX ------------------===//
//
//   emit-ptx FILE --target=sm_90a [-o out.ptx] [--metadata]
//            [--metadata-out=FILE] [--print-ir-after-all]
//            [--emit=ptx|llvm|mlir]
//            [--resource-usage] [--summary]
//
//===----------------------------------------------------------------------===//

#include "tools/common/Registration.h"
#include "tools/emit-ptx/ArgNames.h"
#include "tools/emit-ptx/KernelSummary.h"
#include "tools/emit-ptx/ResourceSummary.h"

#include "lowering/CompileKernels.h"
#include "lowering/PTXEmitter.h"
#include "lowering/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

// Linking LLVM brings in hundreds of its own options (every backend's);
// --help shows only this category (see main).
static cl::OptionCategory emitPtxCategory("emit-ptx options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(emitPtxCategory));
static cl::opt<std::string> outputFile("o", cl::desc("output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(emitPtxCategory));
static cl::opt<std::string> target("target", cl::desc("sm_80, sm_90a, sm_100a"),
                                   cl::init("sm_90a"),
                                   cl::cat(emitPtxCategory));
static cl::opt<unsigned> numWarps("num-warps",
                                  cl::desc("warps per CTA for kernels without "
                                           "tile.num_warps"),
                                  cl::init(4), cl::cat(emitPtxCategory));
static cl::opt<unsigned>
    numStages("num-stages",
              cl::desc("iterations of a dot loop in flight (loads issued "
                       "num-stages - 1 ahead); 1 disables pipelining"),
              cl::init(5), cl::cat(emitPtxCategory));
static cl::opt<bool>
    tma("tma",
        cl::desc("fill the rings of dot loops with TMA where the target has "
                 "it and the views allow (sm_90a, sm_100a); --tma=false "
                 "keeps cp.async everywhere"),
        cl::init(true), cl::cat(emitPtxCategory));
static cl::opt<unsigned> asyncCopyMinBytes(
    "async-copy-min-bytes",
    cl::desc("smallest cp.async of a ring copy whose source is not 16-byte "
             "aligned: 16 (element loads below it), 8 or 4"),
    cl::init(16), cl::cat(emitPtxCategory));
static cl::opt<bool> dependentLaunch(
    "dependent-launch",
    cl::desc("begin every kernel with griddepcontrol (sm_90+), not only "
             "those with tile.dependent_launch = true, so that the runtime "
             "may launch each while the grid before it finishes"),
    cl::init(false), cl::cat(emitPtxCategory));
static cl::opt<bool> wgmmaStageBox(
    "wgmma-stage-box",
    cl::desc("copy each stage of a wgmma operand staged in wgmma row order "
             "with one TMA box (a rank-5 map) instead of one box per 8 rows"),
    cl::init(false), cl::cat(emitPtxCategory));
static cl::opt<unsigned> compileThreads(
    "compile-threads",
    cl::desc("threads compiling the module's kernels apart (0: one per "
             "core; 1: the whole module on one); the PTX is the same"),
    cl::init(0), cl::cat(emitPtxCategory));
static cl::opt<bool> printMetadata("metadata",
                                   cl::desc("print the kernel metadata JSON "
                                            "after the PTX"),
                                   cl::cat(emitPtxCategory));
static cl::opt<std::string>
    metadataOut("metadata-out", cl::desc("write the kernel metadata JSON here"),
                cl::value_desc("file"), cl::cat(emitPtxCategory));
static cl::opt<bool> printStages("print-ir-after-all",
                                 cl::desc("print the IR after every pass"),
                                 cl::cat(emitPtxCategory));
static cl::opt<bool>
    summary("summary",
            cl::desc("print, per kernel, its launch shape, parameters and "
                     "PTX instruction mix (to stderr), plus ptxas's "
                     "resource report when ptxas is present"),
            cl::cat(emitPtxCategory));
static cl::opt<bool> resourceUsage(
    "resource-usage",
    cl::desc("print registers/shared memory/spills reported by ptxas"),
    cl::cat(emitPtxCategory));
enum class EmitKind { PTX, LLVM, MLIR };
static cl::opt<EmitKind>
    emitKind("emit", cl::desc("what to print"), cl::init(EmitKind::PTX),
             cl::values(clEnumValN(EmitKind::PTX, "ptx", "PTX assembly"),
                        clEnumValN(EmitKind::LLVM, "llvm", "optimized LLVM IR"),
                        clEnumValN(EmitKind::MLIR, "mlir", "lowered MLIR")),
             cl::cat(emitPtxCategory));

static OwningOpRef<ModuleOp> parseKernels(llvm::SourceMgr &sourceMgr,
                                          MLIRContext &context) {
  AsmParserState state;
  Block block;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return {};
  OwningOpRef<ModuleOp> module;
  if (block.getOperations().size() == 1 &&
      isa<ModuleOp>(block.getOperations().front())) {
    module = cast<ModuleOp>(block.getOperations().front());
    module->getOperation()->remove();
  } else {
    module = ModuleOp::create(FileLineColLoc::get(
        &context, sourceMgr.getMemoryBuffer(1)->getBufferIdentifier(), 1, 1));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              block.getOperations());
  }
  tilec::annotateArgNames(*module, state);
  if (failed(verify(*module)))
    return {};
  return module;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(emitPtxCategory);
  cl::ParseCommandLineOptions(argc, argv, "tilec: tile kernels to PTX\n");

  if (!tile::isSupportedTarget(target)) {
    llvm::errs() << "error: unknown target '" << target
                 << "'; supported targets: "
                 << llvm::join(tile::getSupportedTargets(), ", ") << "\n";
    return 1;
  }

  DialectRegistry registry;
  tilec::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseKernels(sourceMgr, context);
  if (!module)
    return 1;

  tile::TileToPTXOptions options;
  options.target = target;
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.tma = tma;
  options.asyncCopyMinBytes = asyncCopyMinBytes;
  options.dependentLaunch = dependentLaunch;
  options.wgmmaStageBox = wgmmaStageBox;
  std::string llvmIR;
  FailureOr<std::string> ptx = failure();
  if (printStages || emitKind == EmitKind::LLVM) {
    // The whole module through one pipeline: its stages print in order,
    // and the optimized LLVM IR is the whole module's.
    PassManager pm(&context);
    if (printStages) {
      context.disableMultithreading();
      // After every pass, changed or not, so each stage can be read in
      // order.
      pm.enableIRPrinting(
          /*shouldPrintBeforePass=*/[](Pass *, Operation *) { return false; },
          /*shouldPrintAfterPass=*/[](Pass *, Operation *) { return true; },
          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
    tile::buildTileToPTXPipeline(pm, options);
    if (failed(pm.run(*module)))
      return 1;
    ptx = tile::emitPTX(*module, target,
                        emitKind == EmitKind::LLVM ? &llvmIR : nullptr,
                        compileThreads);
  } else {
    // Each kernel lowered and compiled on a thread of its own (the same
    // PTX as the whole module through one pipeline).
    ptx = tile::compileKernels(*module, options, compileThreads);
  }
  if (failed(ptx))
    return 1;
  std::string metadata = tile::emitMetadataJSON(*module, target);

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  switch (emitKind) {
  case EmitKind::PTX:
    output->os() << *ptx;
    break;
  case EmitKind::LLVM:
    output->os() << llvmIR;
    break;
  case EmitKind::MLIR:
    module->print(output->os());
    break;
  }
  if (printMetadata)
    output->os() << metadata << "\n";
  output->keep();

  if (!metadataOut.empty()) {
    std::unique_ptr<llvm::ToolOutputFile> metaFile =
        openOutputFile(metadataOut, &error);
    if (!metaFile) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    metaFile->os() << metadata << "\n";
    metaFile->keep();
  }

  if (summary)
    llvm::errs() << "tilec: " << inputFile << " -> " << target << "\n"
                 << tilec::summarizeKernels(*module, *ptx);

  if (resourceUsage || summary) {
    std::string why;
    std::optional<std::string> report =
        tilec::getResourceSummary(*ptx, target, why);
    if (!report) {
      llvm::errs() << "resource usage unavailable: " << why << "\n";
      return why.rfind("ptxas rejected", 0) == 0 ? 1 : 0;
    }
    llvm::errs() << *report;
  }
  return 0;
}
