//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//

#ifndef TILE_PASSES_TD
#define TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "give every tile a thread layout";
  let description = [{
    Chooses, for every tile value in each kernel, which thread holds which
    element. Loads and other sources get a coalesced blocked layout (16 bytes
    per thread along the contiguous dimension); reductions produce slices of
    their operand's layout; element-wise ops follow their operands; loops and
    branches keep one layout per carried value. Where two layouts meet, a
    `tile.convert_layout` is inserted (values any thread can recompute, such
    as splats and iotas, are rebuilt instead by canonicalization).

    Dots get the accumulator layout of the target's tensor-core
    instruction (`#tile.mma`): version 2 (mma.sync m16n8k16, or m16n8k32
    for fp8 where the target has it) with the warps split between M and N
    so that each warp reads the fewest operand bytes. Loop-carried
    accumulators are created in that layout, so the loop converts nothing.
    The target is recorded on the module as `tile.target`.
  }];
  let options = [
    Option<"defaultNumWarps", "num-warps", "unsigned", "4",
           "warps per CTA for kernels without tile.num_warps">,
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "GPU target whose tensor-core instructions dots are laid out for">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TilePipelineLoads : Pass<"tile-pipeline-loads", "::mlir::ModuleOp"> {
  let summary = "issue the loads that feed a loop's dots iterations ahead";
  let description = [{
    Software pipelining at tile level: in an `scf.for` whose body writes no
    memory, every `tile.load` whose value reaches a `tile.dot` in the body
    and whose offsets are computed from the induction variable is issued
    `num-stages - 1` iterations ahead. The loaded tiles are carried by the
    loop (a queue of `num-stages - 1` tiles per load, held in registers); a
    prologue loads the first iterations before the loop. Loads past the
    last iteration are bounds-checked by their view, so they are safe.
    `num-stages` 1 leaves loops unchanged.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "2",
           "iterations in flight: loads are issued num-stages - 1 ahead">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileAllocateShared : Pass<"tile-allocate-shared", "::mlir::ModuleOp"> {
  let summary = "size the shared memory each kernel needs";
  let description = [{
    Computes the scratch shared memory of every op that exchanges data
    between threads (cross-warp reductions, layout conversions) and records
    the kernel's dynamic shared-memory size as `tile.shared_bytes`. Scratch
    is one region reused by successive ops; the lowering separates its uses
    with CTA barriers.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

#endif // TILE_PASSES_TD
