//===- Passes.h - tile lowering passes and pipeline -------------*- C++ -*-===//

#ifndef TILEC_LOWERING_PASSES_H
#define TILEC_LOWERING_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tile {
#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

/// Targets the compiler can emit PTX for.
ArrayRef<StringRef> getSupportedTargets();
/// Whether `target` is one of them.
bool isSupportedTarget(StringRef target);

struct TileToPTXOptions : public PassPipelineOptions<TileToPTXOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU target: sm_80, sm_90a, "
                                            "sm_100a"),
                             llvm::cl::init("sm_90a")};
  Option<unsigned> numWarps{*this, "num-warps",
                            llvm::cl::desc("warps per CTA for kernels without "
                                           "tile.num_warps"),
                            llvm::cl::init(4)};
  Option<unsigned> numStages{
      *this, "num-stages",
      llvm::cl::desc("iterations of a dot loop in flight: its loads are "
                     "issued num-stages - 1 iterations ahead "
                     "(tile-pipeline-loads); 1 disables"),
      llvm::cl::init(5)};
  Option<bool> tma{*this, "tma",
                   llvm::cl::desc("fill dot loops' rings with TMA where the "
                                  "target has it and the views allow; false "
                                  "keeps cp.async"),
                   llvm::cl::init(true)};
  Option<unsigned> asyncCopyMinBytes{
      *this, "async-copy-min-bytes",
      llvm::cl::desc("smallest cp.async of a ring copy whose source is not "
                     "16-byte aligned: 16 (element loads below it), 8 or 4"),
      llvm::cl::init(16)};
  Option<bool> dependentLaunch{
      *this, "dependent-launch",
      llvm::cl::desc("begin every kernel with griddepcontrol (sm_90+), not "
                     "only those with tile.dependent_launch = true, so the "
                     "runtime may launch each while the grid before it "
                     "finishes (tile-dependent-launch)"),
      llvm::cl::init(false)};
  Option<bool> wgmmaStageBox{
      *this, "wgmma-stage-box",
      llvm::cl::desc("copy each stage of a wgmma operand staged in wgmma row "
                     "order with one TMA box (a rank-5 map) instead of one "
                     "box per 8 rows (tile-pipeline-loads)"),
      llvm::cl::init(false)};
};

/// tile source -> LLVM dialect + NVVM ready for translation to LLVM IR:
/// tile-instantiate, then buildTileKernelPipeline.
void buildTileToPTXPipeline(OpPassManager &pm, const TileToPTXOptions &options);
/// Everything after tile-instantiate: kernels (no templates) -> LLVM + NVVM.
/// Kernels do not interact here, so a module of one kernel lowers as that
/// kernel does in a module of many.
void buildTileKernelPipeline(OpPassManager &pm,
                             const TileToPTXOptions &options);
/// The tile-level half of buildTileKernelPipeline: layouts, schedules,
/// rings and shared-memory allocation, still in the tile dialect (the IR the
/// CPU interpreter, tools/cpu-driver, runs).
void buildTileLevelPipeline(OpPassManager &pm, const TileToPTXOptions &options);
/// The other half: tile IR after buildTileLevelPipeline -> LLVM + NVVM.
void buildTileToLLVMPipeline(OpPassManager &pm,
                             const TileToPTXOptions &options);
/// Registers `tile-to-ptx` as a named pipeline.
void registerTileToPTXPipeline();
} // namespace mlir::tile

#endif // TILEC_LOWERING_PASSES_H
