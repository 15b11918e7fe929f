//===- Passes.td - tile lowering passes --------------------*- tablegen -*-===//

#ifndef TILE_LOWERING_PASSES_TD
#define TILE_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lower laid-out tile kernels to per-thread LLVM/NVVM code";
  let description = [{
    Every tile becomes the registers one thread holds under its layout
    (a 1:N type conversion); tile ops become address arithmetic, vectorized
    and predicated global accesses, warp shuffles, shared-memory exchanges
    and barriers; element-wise `arith`/`math` ops on tiles become scalar ops
    per held element; kernels become `llvm.func`s with `nvvm.kernel` and a
    `tile.metadata` record for the runtime. Runs after
    `tile-assign-layouts` and `tile-allocate-shared`.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "GPU target (sm_80, sm_90a, sm_100a)">,
    Option<"asyncCopyMinBytes", "async-copy-min-bytes", "unsigned", "16",
           "smallest cp.async of a tile.async_copy whose source is not "
           "16-byte aligned: 16 (element loads below it), 8 or 4">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def ConvertTileMathToNVVM : Pass<"convert-tile-math-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "lower scalar math ops to fast NVVM approximations";
  let description = [{
    `math.exp`, `exp2`, `log`, `log2` and `rsqrt` on f32 (and on
    f16/bf16 through f32) become the PTX `ex2`/`lg2`/`rsqrt`
    approximations, the accuracy kernels of this kind use; the CUDA math
    library is never needed.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerTileLoopHints : Pass<"lower-tile-loop-hints", "::mlir::ModuleOp"> {
  let summary = "turn tile loop hints into LLVM loop annotations";
  let description = [{
    `scf.for` loops marked `tile.no_hoist` get an `llvm.loop_annotation`
    that disables LLVM's loop-invariant code motion for them. Such loops run
    different branches on different iterations (stages of a kernel), and
    hoisting every invariant value of every branch ahead of the loop makes
    all programs compute them up front and keep them live. Runs before
    `convert-scf-to-cf`, which carries the annotation to the loop's branch.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttachLoopAnnotations : Pass<"attach-loop-annotations", "::mlir::ModuleOp"> {
  let summary = "make loop annotations on LLVM branches translatable";
  let description = [{
    `convert-scf-to-cf` and `convert-cf-to-llvm` leave a loop's annotation
    as the discardable `llvm.loop_annotation` attribute of its back-edge
    `llvm.br`/`llvm.cond_br`; translation to LLVM IR reads only the
    branch's own `loop_annotation`. This pass moves it there.
  }];
}

def TileDependentLaunch : Pass<"tile-dependent-launch", "::mlir::ModuleOp"> {
  let summary = "let kernels start while the grid before them finishes";
  let description = [{
    Programmatic dependent launch (sm_90+). A kernel with
    `tile.dependent_launch = true` (with `all`, every kernel without
    `tile.dependent_launch = false`) begins with `griddepcontrol.wait`,
    which holds its threads until the grids before it in the stream have
    completed and their memory is visible, and then, when its grid has at
    most one program per SM (`%nsmid`), `griddepcontrol.launch_dependents`,
    which lets the grid after it be scheduled once all of this grid's
    programs have started (behind a grid that fills the GPU, early programs
    would be packed onto the few SMs free at that moment). Launched with
    the programmatic stream serialization attribute (the runtime does so
    for kernels whose metadata has `dependent_launch`), the next kernel's
    launch, program rasterization and prologue then overlap this kernel
    instead of following its end; launched without it, both instructions
    do nothing. No memory access moves ahead of the wait, so kernels keep
    the order of the stream. Each program pays for the instructions, so
    short programs in many waves lose by them. Runs after
    `convert-tile-to-llvm` (kernels are `llvm.func`s with metadata) and
    before `convert-scf-to-cf` (the trigger's condition is an `scf.if`).
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "GPU target (sm_80, sm_90a, sm_100a); targets without "
           "griddepcontrol (sm_80) are left alone">,
    Option<"all", "all", "bool", "false",
           "every kernel that does not set tile.dependent_launch = false, "
           "not only those that set it true">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TILE_LOWERING_PASSES_TD
