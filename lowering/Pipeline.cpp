//===- Pipeline.cpp - the tile-to-ptx pass pipeline ----------------------===//

#include "lowering/Passes.h"

#include "dialect/TargetInfo.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "passes/Passes.h"

using namespace mlir;
using namespace mlir::tile;

ArrayRef<StringRef> mlir::tile::getSupportedTargets() {
  return TargetInfo::getNames();
}

bool mlir::tile::isSupportedTarget(StringRef target) {
  return TargetInfo::get(target).has_value();
}

void mlir::tile::buildTileToPTXPipeline(OpPassManager &pm,
                                        const TileToPTXOptions &options) {
  // One kernel per configuration of each kernel template.
  pm.addPass(createTileInstantiate({std::string(options.target)}));
  buildTileKernelPipeline(pm, options);
}

void mlir::tile::buildTileKernelPipeline(OpPassManager &pm,
                                         const TileToPTXOptions &options) {
  buildTileLevelPipeline(pm, options);
  buildTileToLLVMPipeline(pm, options);
}

void mlir::tile::buildTileLevelPipeline(OpPassManager &pm,
                                        const TileToPTXOptions &options) {
  // Running histograms of loops counted in shared memory.
  pm.addPass(createTileAccumulateHistograms());
  // Reduction loops split over grid z (before layouts: the partial sums
  // and the moved epilogue get layouts of their own).
  pm.addPass(createTileSplitK());
  // Hardware mapping at tile level.
  pm.addPass(createTileAssignLayouts({options.numWarps, options.target}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After layouts (it needs to know that a tile covers the program) and
  // CSE (one reduction per scan).
  pm.addPass(createTileScanTotals());
  // After layouts (it leaves tcgen05 kernels alone), before pipelining
  // (whose rings then run across tiles).
  pm.addPass(createTilePersistent());
  // Epilogue tiles out through shared memory and TMA (before pipelining,
  // whose rings leave room for the buffers).
  if (options.tma)
    pm.addPass(createTileStageStores({std::string(options.target)}));
  // After layouts: the staged buffers take the shape the dots read.
  TilePipelineLoadsOptions pipelining;
  pipelining.numStages = options.numStages;
  // Without a target the pass fills every ring with cp.async.
  pipelining.target = options.tma ? std::string(options.target) : "";
  pipelining.wgmmaStageBox = options.wgmmaStageBox;
  pm.addPass(createTilePipelineLoads(pipelining));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileAllocateShared());
}

void mlir::tile::buildTileToLLVMPipeline(OpPassManager &pm,
                                         const TileToPTXOptions &options) {
  // Per-thread code.
  pm.addPass(
      createConvertTileToLLVM({options.target, options.asyncCopyMinBytes}));
  // Kernels that start while the grid before them finishes (sm_90+).
  pm.addPass(createTileDependentLaunch(
      {std::string(options.target), options.dependentLaunch}));
  // NVVM ops that are PTX templates (wgmma.mma_async) become inline PTX.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertTileMathToNVVM());
  pm.addPass(createLowerTileLoopHints());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createAttachLoopAnnotations());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Folding only: block merging over the whole lowered CFG took a fifth
  // of the MLIR time of the GEMM file and changed no PTX.
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  pm.addPass(createCanonicalizerPass(config));
  pm.addPass(createCSEPass());
}

void mlir::tile::registerTileToPTXPipeline() {
  PassPipelineRegistration<TileToPTXOptions>(
      "tile-to-ptx",
      "Lower tile kernels to LLVM/NVVM IR ready for the NVPTX backend",
      buildTileToPTXPipeline);
}
