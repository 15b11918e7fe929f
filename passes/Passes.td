//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//

#ifndef TILE_PASSES_TD
#define TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileInstantiate : Pass<"tile-instantiate", "::mlir::ModuleOp"> {
  let summary = "make the named kernels of each kernel template";
  let description = [{
    A kernel template is a function with `tile.params` (parameter names
    with default integers or types); its tiles name the parameters their
    extents and element types are (`tensor<128x64xbf16, #tile.sym<[BM,
    BK], T>>`), `tile.param` gives integer parameters as values and
    `tile.elem = "T"` marks pointer arguments whose element type is a
    parameter. For every entry of `tile.instances` (`{gemm_fp8 = {BK = 128
    : i32, T = f8E4M3FN, "tile.num_stages" = 4 : i32}}`) the pass clones
    the template under the entry's name, substitutes the entry's values
    (defaults for the rest) into every tile type, splat constant, padding
    value and `tile.param`, sets the entry's `tile.*` keys as function
    attributes, re-derives the views made from retyped pointers, and drops
    `arith.extf`/`arith.truncf` that the substitution made identities (a
    kernel that widens its input type T to f32 works for T = f32 too).
    Each instance is verified as a kernel; an error names the instance.
    A template without `tile.instances` becomes the kernel of its
    defaults, under its own name. The templates are then erased.

    An entry with `"tile.targets" = ["sm_100a"]` is made only when the
    `target` option names one of those targets (or is empty): a
    configuration only some GPUs can run (CTA pairs of tcgen05) sits in
    the one source without breaking the others.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "GPU target; instances whose tile.targets omit it are skipped">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileAccumulateHistograms
    : Pass<"tile-accumulate-histograms", "::mlir::ModuleOp"> {
  let summary = "keep a loop's running histogram in shared memory";
  let description = [{
    A loop that adds a `tile.histogram` to a loop-carried tile of bins
    each iteration (`%hn = arith.addi %h, %hc`, yielded as the next `%h`)
    becomes a shared buffer of bins (`tile.alloc_shared`) that is set to
    the initial bins before the loop, counted into with
    `tile.histogram_add` (shared atomics, no barrier) in each iteration,
    and read once after it (`tile.load_shared`), with `tile.barrier`s
    around. Each iteration then skips zeroing the histogram's scratch, two
    barriers and reading every bin back. Runs before layouts are assigned.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileScanTotals : Pass<"tile-scan-totals", "::mlir::ModuleOp"> {
  let summary = "take a reduction from the scan of the same tile";
  let description = [{
    A `tile.reduce` whose operand is also scanned with the same combine
    along the same dimension, in the same block, becomes the `total` of
    that `tile.scan`: the scan's per-warp totals already meet in shared
    memory, so the reduction's own shuffles, scratch and two barriers go
    away. Compactions count and place their elements this way (a prefix
    sum for the positions, a sum for the count). Only for combines whose
    result does not depend on their order (integers, float max and min)
    and tiles that cover the program along the dimension (no replicas).
    Runs after layouts are assigned.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileSplitK : Pass<"tile-split-k", "::mlir::ModuleOp"> {
  let summary = "split a kernel's reduction loop over programs along grid z";
  let description = [{
    A kernel with `tile.split_k = true` is launched with Z programs along
    grid z for each output tile (Z chosen per launch). Its reduction loop
    (the one `scf.for` at the top level that carries only a `tile.dot`
    accumulator, from zero, and writes no memory) is split: program z runs
    iterations `[z * per, (z + 1) * per)` of its n, `per = ceil(n / Z)`.

    The kernel takes two more parameters, `split_partials` (f32) and
    `split_tickets` (i32). Each program stores its partial accumulator in
    its slot of `split_partials` (Z x tiles slots of the accumulator's
    shape, tiles = num_programs x * num_programs y), fences, and takes its
    output tile's ticket with an atomic add. The program that draws the
    last ticket fences again, sets the ticket back to zero (the tickets
    must be zero before the first launch; each launch leaves them so),
    sums the Z partials in the order of z, so that the result does not
    depend on which program arrived last, and runs the kernel's epilogue
    (every op after the loop) on the sum; the others return. The kernel
    is left with `tile.split_k_partial_bytes` (one slot's bytes), which its
    metadata reports as `"split_k"` for the launch's scratch.

    Runs before `tile-assign-layouts`: the partial sums and the epilogue
    get layouts of their own. Errors: no such loop or several, an
    accumulator that does not start from zero, a loop that writes memory,
    a kernel that uses grid z or is also `tile.persistent`.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

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

def TilePersistent : Pass<"tile-persistent", "::mlir::ModuleOp"> {
  let summary = "run kernels as one wave of programs looping over tiles";
  let description = [{
    A kernel with `tile.persistent = G` becomes persistent: it takes two
    more i32 parameters, `tiles_x` and `tiles_y` (the grid it was written
    for), is launched on a 1-D grid of at most as many programs as the
    GPU holds at once, and each program walks tiles `t = program_id x,
    + num_programs x, ...` below `tiles_x * tiles_y` in an `scf.for`
    marked `tile.persistent_loop`. Tiles are numbered in groups of G tile
    rows: within a group, down the G rows first, then across, so that the
    programs running at once share the operand rows and columns of a G
    by (programs / G) block of tiles in L2 (grouped rasterization).

    In the loop, `tile.program_id x`/`y` are the tile's column and row,
    `tile.num_programs x`/`y` are `tiles_x`/`tiles_y` (`z`: 0 and 1). The
    loop holds every op that reads or writes memory or depends on the
    program id; the rest stays before it, computed once.
    `tile-pipeline-loads` then carries each ring of the loop's body across
    tiles: its buffers and mbarriers are set up once, its phases continue
    from tile to tile, and a producer warp (`tile.warp_specialize`) copies
    the next tile's first stages while the consumers finish the last one.

    Kernels whose dots accumulate in tensor memory (tcgen05, sm_100a) are
    left as they are and lose the attribute: their rings do not yet carry
    over between tiles. The metadata of a kernel that stays persistent
    says so (`"persistent"`), for the runtime's launch.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileStageStores : Pass<"tile-stage-stores", "::mlir::ModuleOp"> {
  let summary = "store accumulator tiles through shared memory and TMA";
  let description = [{
    On a `target` with TMA, a `tile.store` of a tile in a wgmma
    accumulator layout (`#tile.mma` version 3: the tile a dot produced,
    after any element-wise epilogue) into a view a tensor map can describe
    goes out through shared memory: versioned on `tile.view_aligned`, the
    aligned path writes the tile's columns into boxes of 128-byte rows
    under the 128-byte swizzle (`tile.store_boxes`, conflict-free for the
    accumulator's fragments) and copies them out with `tile.tma_store`,
    which clips at the view's edges, so the per-element bounds checks go.
    A buffer takes at most 32 KiB of boxes; wider tiles go out in chunks,
    each waiting (`tile.tma_store_wait 0 read`, then a `tile.barrier`)
    until the previous copy has read the buffer. The copies are not waited
    for after they are issued: the program moves on (to its next tile, in
    a persistent kernel) and waits for all of them before it returns. The
    unaligned path keeps the plain store. The buffer, tensor map and
    alignment test are set up before the kernel's loop over tiles.

    Runs before `tile-pipeline-loads`, whose rings leave room for the
    buffers already allocated.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "GPU target; only targets with TMA (sm_90a, sm_100a) stage stores">
  ];
  let dependentDialects = ["::mlir::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePipelineLoads : Pass<"tile-pipeline-loads", "::mlir::ModuleOp"> {
  let summary = "software-pipeline the loads that feed a loop's dots";
  let description = [{
    In an `scf.for` whose body writes no memory, every `tile.load` whose
    value reaches a `tile.dot` and whose offsets are computed from the
    induction variable is issued `num-stages - 1` iterations ahead:

    - a load that is one operand of one dot with an mma layout (A as M
      rows of K, or B loaded as N rows of K and transposed) becomes
      `tile.async_copy` into a ring of `num-stages` stages of a
      `tile.alloc_shared` buffer laid out as that dot reads it (swizzle,
      wgmma row order), one `tile.async_commit` group per iteration,
      `tile.async_wait` before each iteration's stage is read with
      `tile.load_stage`; a prologue fills the first stages, a final wait
      drains the ring. Fewer stages are used when the ring would exceed
      the target's shared memory less 32 KiB (160 KiB without a
      target). When every such dot reads both operands from rings and
      carries its accumulator through the loop, and the target runs dots
      asynchronously (wgmma), the dots are made `async`: each iteration's
      dot overlaps the next iteration's wait and copies, a
      `tile.dot_wait pending 1` after it frees the stage the previous dot
      read, and copies run `num-stages - 2` ahead;
    - any other such load is issued ahead into registers: its tiles are
      carried by the loop, a queue of `min(num-stages - 1, register-ahead)`
      tiles (one by default: deeper queues take the registers the
      accumulators need).

    On a `target` with TMA, when every staged view is a `tile.make_view` of
    kernel parameters and constants with unit last stride and rows that
    fill one swizzle span, the loop is versioned on `tile.view_aligned`:
    when the views are 16-byte aligned, `tile.tma_copy` fills the ring, in
    boxes of a `tile.make_tensor_map`, each stage's bytes counted by an
    mbarrier (`tile.mbarrier_expect` / `tile.mbarrier_wait`, with a
    `tile.barrier` before a stage is refilled); otherwise the cp.async
    ring above runs. Both versions share the buffers. A wgmma operand
    staged in wgmma row order (`#tile.swizzle<..., wgmma_warps = W>`) is
    copied in one box per 8 rows; with `wgmma-stage-box` each stage that
    starts at a multiple of 16W rows and ends inside the view comes in one
    box instead, through a second map in that order (the runtime encodes
    it as a rank-5 map), and the last, partial tile of rows keeps the
    8-row boxes.

    A `tile.gather` of a rank-2 view whose tile is one operand of one dot
    (A as M rows of K; B gathered as N rows of K and transposed; or, for
    16-bit mma.sync dots, B gathered as K rows of N, which the dot reads
    with `ldmatrix.trans`) is staged too: the loop's gathers and staged
    loads share one cp.async ring (`tile.async_gather`,
    `tile.async_copy`), copies `num-stages - 1` iterations ahead. The
    indices may be computed from reads of memory in the body (a page
    table's `tile.gather`): those reads are issued for iteration i + S - 1
    at the top of iteration i, once for all copies, before the wait.

    With `warp-specialize` (or a kernel's `tile.warp_specialize = true`),
    a TMA ring of a loop at the top level of its kernel is fed by a warp
    of its own: the kernel's remaining ops move into the consumer region of
    a `tile.warp_specialize`, whose producer region runs the copies of
    every iteration, each stage refilled once the consumers' arrivals on
    its "empty" mbarrier (`tile.mbarrier_arrive`, after the dot that read
    it has retired) complete its phase; the consumers wait on the "full"
    mbarriers only, without block-wide barriers. When the block then holds
    more than 256 threads, the producer warpgroup gives registers to the
    consumers (setmaxnreg) and the kernel's register cap is set to what
    the whole block may take. Rings of tcgen05 dots are not specialized.

    An `scf.for` marked `tile.load_ahead = N` asks for all of its loads,
    whether or not they feed a dot, to be issued `N` iterations ahead into
    registers, so that a loop streaming memory through cheap work (a
    histogram, a reduction) has its next tiles in flight while it works;
    this holds at any `num-stages`. Writes in the body are allowed under
    the same rule as above (tile.store, tile.scatter_store and tile.atomic
    through tile.noalias arguments the body does not read through, also
    inside nested regions); otherwise, or when no load's offsets follow the
    induction variable, the loop stays as it is with a warning.

    Copies and loads past the last iteration are bounds-checked by their
    view, so they are safe. Runs after `tile-assign-layouts` (it needs the
    dots' layouts). `num-stages` 1 leaves other loops unchanged.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "4",
           "iterations in flight: loads are issued num-stages - 1 ahead "
           "(a kernel's tile.num_stages attribute overrides it)">,
    Option<"registerAhead", "register-ahead", "unsigned", "1",
           "most iterations a load kept in registers is issued ahead">,
    Option<"target", "target", "std::string", "\"\"",
           "GPU target; on targets with TMA (sm_90a, sm_100a) rings of "
           "16-byte aligned views are filled by TMA, others by cp.async">,
    Option<"warpSpecialize", "warp-specialize", "bool", "false",
           "feed TMA rings from a producer warp of their own (a kernel's "
           "tile.warp_specialize attribute overrides it)">,
    Option<"wgmmaStageBox", "wgmma-stage-box", "bool", "false",
           "copy each stage of a wgmma operand staged in wgmma row order "
           "with one TMA box (a rank-5 map) instead of one box per 8 rows">
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
