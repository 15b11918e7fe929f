//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//

#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "dialect/TileBase.td"
include "dialect/TileTypes.td"
include "dialect/TileAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Tile : Type<CPred<"::mlir::tile::isTileType($_self)">,
    "tile (statically shaped tensor, optional tile layout encoding)",
    "::mlir::RankedTensorType">;
def Tile_IntTile : Type<And<[Tile_Tile.predicate,
    CPred<"::llvm::isa<::mlir::IntegerType>(::llvm::cast<::mlir::RankedTensorType>($_self).getElementType())">]>,
    "tile of integers", "::mlir::RankedTensorType">;
def Tile_MaskTile : Type<And<[Tile_Tile.predicate,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getElementType().isInteger(1)">]>,
    "tile of i1", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program (CTA) in the launch grid";
  let description = [{
    ```mlir
    %row = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_GridDimAttr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "custom<EnumKeyword>($dim) attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs (CTAs) in the launch grid";
  let arguments = (ins Tile_GridDimAttr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "custom<EnumKeyword>($dim) attr-dict";
}

def Tile_ParamOp : Tile_Op<"param", [Pure]> {
  let summary = "value of an integer parameter of a kernel template";
  let description = [{
    Inside a function with `tile.params`, the value of parameter `name`
    (its default in the template, an instance's value after
    `tile-instantiate`, which replaces the op by a constant).

    ```mlir
    %bk = tile.param "BK" : i32
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnySignlessInteger:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Clusters and shared buffers
//===----------------------------------------------------------------------===//

def Tile_ClusterSizeOp : Tile_Op<"cluster_size", [Pure]> {
  let summary = "number of programs in this program's cluster";
  let description = [{
    1 when the kernel was launched without thread-block clusters.

    ```mlir
    %c = tile.cluster_size
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_ClusterRankOp : Tile_Op<"cluster_rank", [Pure]> {
  let summary = "rank of this program within its cluster";
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict";
}

def Tile_ClusterBarrierOp : Tile_Op<"cluster_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "every program of the cluster arrives, then all go on";
  let description = [{
    Waits until every thread of every program of the cluster has arrived.
    Shared-buffer writes before the barrier, to this program's buffers or
    another's, are visible to every program of the cluster after it; it
    also orders the accesses of this program's own threads. Without a
    cluster launch it is a barrier of the program.

    ```mlir
    tile.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AllocSharedOp : Tile_Op<"alloc_shared",
    [MemoryEffects<[MemAlloc]>]> {
  let summary = "a buffer in this program's shared memory";
  let description = [{
    A rank-1 buffer that lives as long as the program. Other programs of
    the cluster write it with `tile.store_shared ... rank`. Its contents
    start undefined. `tile-allocate-shared` places it (the `offset`
    attribute, in bytes).

    ```mlir
    %buf = tile.alloc_shared : !tile.smem<512xi64>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs Tile_SharedBufferType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_StoreSharedOp : Tile_Op<"store_shared", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>,
    OptionalTypesMatchWith<"mask has the shape of the value", "value", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "store a tile into a shared buffer, possibly another program's";
  let description = [{
    Element `i` (row-major) of `value` goes to element `offset + i` of the
    buffer; with `rank`, to the buffer of that program of the cluster
    (distributed shared memory). Elements past the buffer's end, or whose
    `mask` is false, are not written.

    ```mlir
    tile.store_shared %cand, %buf[%at] rank %c0 mask %keep
        : tensor<64xi64>, !tile.smem<512xi64>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_SharedBufferType:$buffer,
                       I32:$offset, Optional<I32>:$rank,
                       Optional<Tile_MaskTile>:$mask);
  let assemblyFormat = [{
    $value `,` $buffer `[` $offset `]` (`rank` $rank^)? (`mask` $mask^)?
    attr-dict `:` type($value) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_LoadSharedOp : Tile_Op<"load_shared", [
    MemoryEffects<[MemRead]>,
    OptionalTypesMatchWith<"mask has the shape of the result", "result", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "load a tile from one of this program's shared buffers";
  let description = [{
    Element `i` (row-major) of the result is element `offset + i` of the
    buffer; elements past its end, or whose `mask` is false, read as `pad`
    (zero when absent).

    ```mlir
    %c = tile.load_shared %buf[%c0] mask %inRow pad 0 : i64
        : !tile.smem<512xi64> -> tensor<128xi64>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer, I32:$offset,
                       Optional<Tile_MaskTile>:$mask,
                       OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $buffer `[` $offset `]` (`mask` $mask^)? (`pad` $padding^)? attr-dict `:`
    qualified(type($buffer)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies into staged shared buffers (made by tile-pipeline-loads)
//===----------------------------------------------------------------------===//

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a tile of a global view into a buffer stage";
  let description = [{
    Starts copying the `R`×`C` tile whose first element is at element
    `offsets` of `view` into stage `stage` of `buffer`
    (`!tile.smem<S x R x C x T, #tile.swizzle<...>>`), laid out as the
    buffer's swizzle says. Elements outside the view's extents read as
    zero. The copy completes asynchronously: it belongs to the group the
    next `tile.async_commit` closes, and is visible once a
    `tile.async_wait` has waited for that group.

    ```mlir
    tile.async_copy %x[%row, %k], %ring[%stage]
        : !tile.view<?x?xbf16>, !tile.smem<3x128x64xbf16, #tile.swizzle<128>>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<I32>:$offsets,
                       Tile_SharedBufferType:$buffer, I32:$stage);
  let assemblyFormat = [{
    $view `[` $offsets `]` `,` $buffer `[` $stage `]` attr-dict `:`
    qualified(type($view)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncGatherOp : Tile_Op<"async_gather", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start gathering a tile of a global view into a buffer stage";
  let description = [{
    The asynchronous form of `tile.gather`: starts copying the `R`×`C` tile
    whose element `(r, c)` is `view[indices#0[r, c], indices#1[r, c]]` into
    stage `stage` of `buffer` (`!tile.smem<S x R x C x T,
    #tile.swizzle<...>>`), laid out as the buffer's swizzle says.
    Out-of-bounds coordinates read zero. The index tiles carry a register
    layout: each thread copies the elements it holds, 16 bytes per copy
    where its run of elements has consecutive columns of one row (rows of a
    page table broadcast over the columns of a page), element by element
    otherwise. Completes like `tile.async_copy`: the group the next
    `tile.async_commit` closes, visible after a `tile.async_wait`.

    ```mlir
    tile.async_gather %cache[%rows, %cols], %ring[%stage]
        : !tile.view<?x?xbf16>, tensor<64x128xi32>, tensor<64x128xi32>,
          !tile.smem<3x64x128xbf16, #tile.swizzle<128>>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_IntTile>:$indices,
                       Tile_SharedBufferType:$buffer, I32:$stage);
  let assemblyFormat = [{
    $view `[` $indices `]` `,` $buffer `[` $stage `]` attr-dict `:`
    qualified(type($view)) `,` custom<IndexAndBufferTypes>(type($indices),
                                                            type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "close the group of this program's pending async copies";
  let description = [{
    The `tile.async_copy` ops issued since the previous commit form one
    group, which `tile.async_wait` counts.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` copy groups are in flight";
  let description = [{
    Waits until at most `pending` of the most recently committed groups of
    async copies are incomplete, then makes the completed copies of every
    thread of the program visible to all its threads and to the tensor
    cores (a barrier, and on sm_90 and later a proxy fence).

    ```mlir
    tile.async_wait 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_LoadStageOp : Tile_Op<"load_stage", [MemoryEffects<[MemRead]>]> {
  let summary = "a stage of a staged buffer as a dot operand";
  let description = [{
    The `R`×`C` tile held in stage `stage` of `buffer`. Its users are dots
    (directly as A, or as B through `tile.transpose` of the N×K rows): the
    tensor cores read the stage in place, through `ldmatrix` or wgmma
    shared-memory descriptors, where the dot is. The stage must not be
    written between this op and those dots. With `paired` (a tcgen05 dot
    of a CTA pair, `tile.cta_pair`), the stage holds half of the `R` rows,
    this program's; the pair's other program holds the other half at the
    same place, and the dot reads both.

    ```mlir
    %a = tile.load_stage %ring[%stage]
        : !tile.smem<3x128x64xbf16, #tile.swizzle<128>> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer, I32:$stage,
                       UnitAttr:$paired);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` attr-dict `:` qualified(type($buffer)) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until every thread of the program has reached this point";
  let description = [{
    A barrier of the program's threads (bar.sync): their shared-memory
    accesses before it happen before any after it. The TMA pipeline puts one
    before a stage is refilled, so that no thread still reads it.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// TMA and mbarriers (sm_90+)
//===----------------------------------------------------------------------===//

def Tile_MakeTensorMapOp : Tile_Op<"make_tensor_map", [Pure]> {
  let summary = "a TMA descriptor of a global view";
  let description = [{
    The tensor map through which `tile.tma_copy` reads `view` in boxes of
    the result type's shape. It becomes a hidden kernel parameter that the
    runtime encodes on every launch (cuTensorMapEncodeTiled) from the
    kernel arguments the view is made of, so the view must be a
    `tile.make_view` of kernel parameters and constants with a last stride
    of 1. When the view's base or a row stride is not a multiple of 16
    bytes no descriptor can describe it: the runtime passes zeros, and the
    kernel must not copy through it (see `tile.view_aligned`). Nor for a
    map in wgmma order (`wgmma_warps` = W in its swizzle) over a view of
    fewer rows than one box: such a map describes whole 16·W-row blocks
    only, and a view too short for one gets zeros.

    ```mlir
    %map = tile.make_tensor_map %x
        : !tile.view<?x?xbf16> -> !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view);
  let results = (outs Tile_TensorMapType:$result);
  let assemblyFormat = [{
    $view attr-dict `:` qualified(type($view)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ViewAlignedOp : Tile_Op<"view_aligned", [Pure]> {
  let summary = "whether views can be copied in 16-byte units";
  let description = [{
    True when, for every view, the base address and each stride but the
    last (in bytes) are multiples of 16 and the last stride is 1: what TMA
    tensor maps require, and what cp.async of 16 bytes needs along rows.
    The same for every thread, so a branch on it is uniform.

    ```mlir
    %ok = tile.view_aligned %x, %w : !tile.view<?x?xbf16>, !tile.view<?x?xbf16>
    ```
  }];
  let arguments = (ins Variadic<Tile_ViewType>:$views);
  let results = (outs I1:$result);
  let assemblyFormat = "$views attr-dict `:` qualified(type($views))";
}

def Tile_MBarrierInitOp : Tile_Op<"mbarrier_init", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "initialize a program's transaction barriers";
  let description = [{
    Initializes every mbarrier of `barriers` (a rank-1 buffer of i64) to
    phase 0, expecting `count` arrivals per phase, and makes the barriers
    visible to the program's threads and to the TMA unit before any thread
    goes on.

    ```mlir
    tile.mbarrier_init %bars count 1 : !tile.smem<4xi64>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$barriers,
                       ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = [{
    $barriers `count` $count attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierExpectOp : Tile_Op<"mbarrier_expect", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on a barrier, announcing the bytes its phase awaits";
  let description = [{
    One thread of the program arrives on mbarrier `index` of `barriers`
    and adds `bytes` to the transaction count its current phase waits for:
    the phase completes once that many bytes of `tile.tma_copy` have landed.
    With 0 bytes it only arrives (a ring's stage that no copy fills).

    ```mlir
    tile.mbarrier_expect %bars[%stage], 32768 : !tile.smem<4xi64>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$barriers, I32:$index,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for a barrier's phase to complete";
  let description = [{
    Every thread waits until the phase of parity `phase` (0 or 1) of
    mbarrier `index` has completed; what the copies it counted wrote is
    then visible to the thread and to the tensor cores.

    ```mlir
    tile.mbarrier_wait %bars[%stage] phase %parity : !tile.smem<4xi64>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$barriers, I32:$index,
                       I32:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `phase` $phase attr-dict `:`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "every thread arrives on a barrier";
  let description = [{
    Each thread that executes it arrives once on mbarrier `index` of
    `barriers`, after its earlier memory accesses (release semantics): a
    barrier initialized with the count of those threads completes its
    phase once all of them have arrived. A warp-specialized ring's
    consumers signal with it that they are done reading a stage.

    With `across m` (in a kernel of tile.multicast = m: a cluster of m
    programs along y), lane l < m of each warp arrives instead on the
    barrier at the same place in the program of cluster rank l, and the
    other lanes do not arrive: a barrier initialized with m
    times the warps of one program then completes once every warp of every
    program has arrived. The warp must be converged (all of its lanes
    done with what the arrival releases), as after a wgmma.wait_group. A
    multicast ring's producers learn so through their own "empty" barrier
    that all programs are done with a stage.

    ```mlir
    tile.mbarrier_arrive %empty[%stage] : !tile.smem<4xi64>
    tile.mbarrier_arrive %empty[%stage] across 2 : !tile.smem<4xi64>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$barriers, I32:$index,
                       OptionalAttr<I64Attr>:$across);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`across` $across^)? attr-dict `:`
    qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    RecursiveMemoryEffects, NoTerminator, SingleBlock]> {
  let summary = "split a kernel into a producer warp and its consumers";
  let description = [{
    The kernel's `tile.num_warps` warps (the consumers) run the
    `consumers` region; `producer_warps` more warps (a warpgroup) are
    launched for the `producer` region, which the first of them runs, and
    leave the kernel after it. With register counts, each warpgroup then
    sets its register budget (setmaxnreg): the producer gives registers up
    and the consumers take them, so that their accumulators need not fit
    the budget of the whole block. Barriers of the program in the consumer
    region count the consumers only. It must be the last op of its kernel
    before the return: nothing after it would run on every warp.

    ```mlir
    tile.warp_specialize producer_warps 4 registers(40, 232) {
      scf.for %i = %c0 to %n step %c1 { ... tile.tma_copy ... }
    } consumers {
      ... tile.mbarrier_wait, tile.dot, tile.mbarrier_arrive ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$producer_warps,
                       OptionalAttr<I32Attr>:$producer_registers,
                       OptionalAttr<I32Attr>:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumers);
  let assemblyFormat = [{
    `producer_warps` $producer_warps
    (`registers` `(` $producer_registers^ `,` $consumer_registers `)`)?
    $producer `consumers` $consumers attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "bulk tensor copy of a tile into a buffer stage";
  let description = [{
    Starts copying the `R`×`C` tile whose first element is at element
    `offsets` of the tensor map's view into stage `stage` of `buffer`, in
    boxes of the tensor map's shape (`C` columns, rows dividing `R`), each
    box landing where the buffer's layout puts its rows (in wgmma row order
    for a `#tile.swizzle` with `wgmma_warps`). Elements outside the view
    read as zero. Through a map in wgmma order (its swizzle has
    `wgmma_warps` = W) the whole stage is one box, and the copy must start
    at a row that is a multiple of 16·W and end inside the view: the map's
    rows stop at the last whole 16·W-row block, so rows past it read as
    zero even where the view has them (tile-pipeline-loads copies the last,
    partial tile of rows through an 8-row map instead). Each landed byte
    counts towards the transaction count of
    mbarrier `barrier` of `barriers`; a `tile.mbarrier_expect` announces
    them. The copies are issued by threads of the program's first warp.
    With `leader_barrier` (programs paired for tcgen05, `tile.cta_pair`),
    the bytes count on that barrier of the pair's even program instead
    (`.cta_group::2`), which waits for both programs' copies.

    With `multicast %mask part %j of P` (`tile.multicast`), the programs
    of the cluster in `mask` (bit r: cluster rank r) share the tile: this
    program copies only the boxes `b` with `b % P == j`, each into the same
    place of the stage of every program in `mask`, and its bytes count on
    the barrier at the same place in each of them (or in their pairs' even
    programs with `leader_barrier`).

    ```mlir
    tile.tma_copy %map[%row, %k], %ring[%stage], %bars[%stage]
        : !tile.tensor_map<8x64xbf16, #tile.swizzle<128>>,
          !tile.smem<4x128x64xbf16, #tile.swizzle<128, wgmma_warps = 8>>,
          !tile.smem<4xi64>
    tile.tma_copy %map[%col, %k], %ring[%stage], %bars[%stage]
        multicast %mask part %rank of 2
        : !tile.tensor_map<64x64xbf16, #tile.swizzle<128>>,
          !tile.smem<4x128x64xbf16, #tile.swizzle<128>>, !tile.smem<4xi64>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets,
                       Tile_SharedBufferType:$buffer, I32:$stage,
                       Tile_SharedBufferType:$barriers, I32:$barrier,
                       Optional<I32>:$multicast, Optional<I32>:$part,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>
                           :$parts,
                       UnitAttr:$leader_barrier);
  let assemblyFormat = [{
    $map `[` $offsets `]` `,` $buffer `[` $stage `]` `,` $barriers `[`
    $barrier `]` (`multicast` $multicast^ `part` $part `of` $parts)?
    attr-dict `:` qualified(type($map)) `,`
    qualified(type($buffer)) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_StoreBoxesOp : Tile_Op<"store_boxes", [MemoryEffects<[MemWrite]>]> {
  let summary = "write columns of a tile into a buffer's stages for TMA stores";
  let description = [{
    Stage `j` of `buffer` (`!tile.smem<B x R x W x T, #tile.swizzle<128>>`,
    rows of 128 bytes) receives columns `column + j·W .. + W` of the
    `R`×`C` tile `value`, laid out as a TMA box under the 128-byte swizzle
    (16-byte chunk `k` of row `r` at chunk `k ^ (r % 8)`), so that a
    `tile.tma_store` can copy it out. Each thread writes the elements its
    layout gives it, then fences its writes for the async proxy: after a
    `tile.barrier`, TMA reads them.

    ```mlir
    tile.store_boxes %out, %epi column 128
        : tensor<128x256xbf16, #mma>, !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_SharedBufferType:$buffer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$column);
  let assemblyFormat = [{
    $value `,` $buffer `column` $column attr-dict `:` type($value) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "bulk tensor copy of a buffer's stages into a global view";
  let description = [{
    Starts copying stage `j` of `buffer` to the tensor map's view at rows
    `offsets[0] ..` and columns `offsets[1] + j·W ..`, one box (`R`×`W`,
    the stage's shape) per stage; elements outside the view are not
    written. Thread 0 of the program (of the consumers, in a
    warp-specialized kernel) issues the copies, which form one bulk async
    group of that thread (`tile.tma_store_wait`).

    ```mlir
    tile.tma_store %map[%row, %col], %epi
        : !tile.tensor_map<128x64xbf16, #tile.swizzle<128>>,
          !tile.smem<2x128x64xbf16, #tile.swizzle<128>>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets,
                       Tile_SharedBufferType:$buffer);
  let assemblyFormat = [{
    $map `[` $offsets `]` `,` $buffer attr-dict `:` qualified(type($map)) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreWaitOp : Tile_Op<"tma_store_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the program's bulk tensor stores";
  let description = [{
    Thread 0 (the one `tile.tma_store` issues from) waits until at most
    `pending` of its bulk async groups are incomplete; with `read`, only
    until they have read their shared memory, after which the buffer may
    be written again (behind a `tile.barrier` for the other threads).

    ```mlir
    tile.tma_store_wait 0 read
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "$pending (`read` $read^)? attr-dict";
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "pointer advanced by a number of elements";
  let description = [{
    `ptr` moved forward by `offset` elements (a signed i32 or i64),
    computed in 64 bits. View extents, strides and tile offsets are i32, so
    a view reaches at most 2^31 - 1 elements per dimension; a kernel whose
    buffer holds more (a row of a large matrix, `row * n` >= 2^31) starts a
    view at the row instead of offsetting into the whole buffer (sizes are
    non-negative: zero-extended, their product is one mul.wide.u32):

    ```mlir
    %r = arith.extui %row : i32 to i64
    %n64 = arith.extui %n : i32 to i64
    %at = arith.muli %r, %n64 : i64
    %xr = tile.addptr %x, %at : !tile.ptr<f32>, i64
    %v = tile.make_view %xr[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, AnyTypeOf<[I32, I64]>:$offset);
  let results = (outs Tile_PtrType:$result);
  let assemblyFormat = [{
    $ptr `,` $offset attr-dict `:` qualified(type($ptr)) `,` type($offset)
  }];
}

def Tile_MakeViewOp : Tile_Op<"make_view", [Pure, AttrSizedOperandSegments]> {
  let summary = "strided view of global memory";
  let description = [{
    Describes a tensor in global memory by its base pointer and per-dimension
    extents and strides, all in elements. Extents and strides are values or
    literal integers; the pointer's type follows from the view's (the older
    spelling `: !tile.ptr<f32> -> !tile.view<?x?xf32>` still parses).

    ```mlir
    %x = tile.make_view %ptr[%rows, %cols] strides[%cols, 1]
        : !tile.view<?x?xf32>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Variadic<I32>:$sizes,
                       Variadic<I32>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$static_sizes,
                       OptionalAttr<DenseI64ArrayAttr>:$static_strides);
  let results = (outs Tile_ViewType:$result);
  let assemblyFormat = [{
    $ptr `[` custom<IndexList>($sizes, $static_sizes) `]` `strides`
    `[` custom<IndexList>($strides, $static_strides) `]` attr-dict `:`
    custom<PointerOfView>(type($ptr), type($result))
  }];
  let extraClassDeclaration = [{
    /// Extents and strides, values and literal integers in order.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedSizes() {
      return getMixedIndexList(getSizes(), getStaticSizesAttr());
    }
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedStrides() {
      return getMixedIndexList(getStrides(), getStaticStridesAttr());
    }
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>,
    OptionalTypesMatchWith<"mask has the shape of the result", "result", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "load a tile from a global view";
  let description = [{
    Loads the tile whose first element is at element `offsets` of `view`.
    Elements outside the view's extents, or where `mask` is false, read as
    `pad` (zero when absent) and touch no memory.

    The view's type follows from the tile's (every view extent is `?`);
    the padding is a number of the tile's element type, or `inf`, `-inf`,
    `nan`. (The older spelling with the view type, `: !tile.view<?x?xf32>
    -> tensor<...>`, and a typed padding, `pad 0xFF800000 : f32`, still
    parses.)

    Offsets are values or literal integers (`[%row, 0]`).

    ```mlir
    %t = tile.load %x[%row, 0] pad -inf : tensor<1x1024xf32>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<I32>:$offsets,
                       Optional<Tile_MaskTile>:$mask,
                       OptionalAttr<TypedAttrInterface>:$padding,
                       OptionalAttr<DenseI64ArrayAttr>:$static_offsets);
  let results = (outs Tile_Tile:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tile's origin, values and literal integers in order.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets() {
      return getMixedIndexList(getOffsets(), getStaticOffsetsAttr());
    }
  }];
}

def Tile_StoreOp : Tile_Op<"store", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>,
    OptionalTypesMatchWith<"mask has the shape of the value", "value", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "store a tile into a global view";
  let description = [{
    Stores `value` with its first element at element `offsets` of `view`;
    elements outside the view's extents, or where `mask` is false, are not
    written.

    The view's type follows from the tile's (the older spelling that
    repeats it after the tile's type still parses).

    ```mlir
    tile.store %t, %y[%row, 0] : tensor<1x1024xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, Tile_ViewType:$view,
                       Variadic<I32>:$offsets, Optional<Tile_MaskTile>:$mask,
                       OptionalAttr<DenseI64ArrayAttr>:$static_offsets);
  let assemblyFormat = [{
    $value `,` $view `[` custom<IndexList>($offsets, $static_offsets) `]`
    (`mask` $mask^)? attr-dict `:`
    type($value) custom<ViewOfTile>(type($view), ref(type($value)))
  }];
  let extraClassDeclaration = [{
    /// The tile's origin, values and literal integers in order.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets() {
      return getMixedIndexList(getOffsets(), getStaticOffsetsAttr());
    }
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [MemoryEffects<[MemRead]>]> {
  let summary = "load elements of a view at per-element coordinates";
  let description = [{
    Element `i` of the result is `view[indices#0[i], indices#1[i], ...]`;
    every index tile has the result's shape. Out-of-bounds coordinates read
    zero. The way to follow an index table (a page table, a permutation).

    ```mlir
    %k = tile.gather %cache[%page, %col] : !tile.view<?x?xbf16>,
        tensor<16x128xi32>, tensor<16x128xi32> -> tensor<16x128xbf16>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Variadic<Tile_IntTile>:$indices);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $view `[` $indices `]` attr-dict `:` qualified(type($view)) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScatterStoreOp : Tile_Op<"scatter_store", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite]>,
    OptionalTypesMatchWith<"mask has the shape of the value", "value", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "store elements into a view at per-element coordinates";
  let description = [{
    Element `i` of `value` is written to `view[indices#0[i], indices#1[i],
    ...]` where `mask[i]` is true (every element when absent); every index
    tile has the value's shape. Out-of-bounds coordinates write nothing.
    The counterpart of `tile.gather`: compacting selected elements into a
    buffer in global memory at positions from a prefix sum, or permuting a
    tile into place (a merge writes each element at its merged rank). When
    several elements go to one position, one of them wins.

    ```mlir
    tile.scatter_store %keys, %out[%pos] mask %take
        : !tile.view<?xi64>[tensor<2048xi32>], tensor<2048xi64>
    ```
  }];
  let arguments = (ins Tile_ViewType:$view, Tile_Tile:$value,
                       Variadic<Tile_IntTile>:$indices,
                       Optional<Tile_MaskTile>:$mask);
  let assemblyFormat = [{
    $value `,` $view `[` $indices `]` (`mask` $mask^)? attr-dict `:`
    qualified(type($view)) `[` type($indices) `]` `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicOp : Tile_Op<"atomic", [MemoryEffects<[MemRead, MemWrite]>,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "element-wise atomic read-modify-write into a view";
  let description = [{
    For each element, atomically combines `value[i]` into
    `view[indices#0[i], ...]` with `kind`; out-of-bounds elements are
    skipped. Returns the previous values.

    ```mlir
    %old = tile.atomic add %hist[%bin], %ones
        : !tile.view<?xi32>[tensor<256xi32>], tensor<256xi32>
    ```
  }];
  // `value` precedes the variadic indices so that its position, from which
  // the result type is inferred, does not depend on the view's rank.
  let arguments = (ins Tile_CombineKindAttr:$kind, Tile_ViewType:$view,
                       Tile_Tile:$value, Variadic<Tile_IntTile>:$indices);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $view `[` $indices `]` `,` $value attr-dict `:`
    qualified(type($view)) `[` type($indices) `]` `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_FenceOp : Tile_Op<"fence", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "device-scope fence between global memory accesses";
  let description = [{
    An acquire-release fence at GPU scope for the whole program: global
    accesses of any of its threads before the fence are ordered before
    those of any of its threads after it, for every program of the grid
    that synchronizes with it through an atomic.
    Programs that hand data to one another (the last program to take an
    atomic ticket reads what the others stored) fence before taking the
    ticket, so their stores are released, and after it, so the reads
    acquire them. It is not a sequentially consistent fence.

    ```mlir
    tile.fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Tile construction and shape
//===----------------------------------------------------------------------===//

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"operand is the element type of the result", "result",
                   "src", "::mlir::getElementTypeOrSelf($_self)">]> {
  let summary = "tile with every element equal to a scalar";
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat, Index]>:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "the tile 0, 1, 2, ... along its only dimension";
  let results = (outs Tile_IntTile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "insert a unit dimension";
  let description = [{
    ```mlir
    %c = tile.expand_dims %r at 1 : tensor<4xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, I32Attr:$dim);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $src `at` $dim attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat unit dimensions, or repeat along a new dimension";
  let description = [{
    Without `along`, repeats the unit dimensions of `src` to the result's
    extents. With `along d`, `src` lacks dimension `d` of the result and is
    repeated along it: `result[i, j] = src[i]` for `along 1` (a row
    statistic spread over its row), the same as an `expand_dims at d`
    followed by a broadcast, in one op.

    ```mlir
    %b = tile.broadcast %c : tensor<4x1xf32> -> tensor<4x1024xf32>
    %r = tile.broadcast %m along 1 : tensor<4xf32> -> tensor<4x1024xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, OptionalAttr<I32Attr>:$along);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $src (`along` $along^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "swap the two dimensions of a rank-2 tile";
  let description = [{
    `result[j, i] = src[i, j]`. No data moves: the result's layout is the
    operand's with its dimensions swapped, so a tile loaded along its
    contiguous dimension stays in the registers that loaded it. The way to
    feed a K-major (N×K) weight tile to `tile.dot` as its K×N operand.

    ```mlir
    %bt = tile.transpose %w : tensor<128x64xbf16> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "redistribute a tile over the threads";
  let description = [{
    Same shape and elements, another layout. Inserted by layout assignment;
    lowered through shared memory.
  }];
  let arguments = (ins Tile_Tile:$src);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, scans, sorting, histograms
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "combine a tile along one dimension";
  let description = [{
    Reduces `src` along `dim` with `kind`. The result drops that dimension; a
    rank-1 tile reduces to a scalar held by every thread. The result's type
    follows from the operand's and is printed only where it cannot (a
    result without the layout or symbolic shape the operand implies).

    ```mlir
    %m = tile.reduce max %t along 1 : tensor<4x1024xf32>     // tensor<4xf32>
    %s = tile.reduce add %v along 0 : tensor<1024xf32>       // f32
    ```
  }];
  let arguments = (ins Tile_CombineKindAttr:$kind, Tile_Tile:$src,
                       I32Attr:$dim);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $src `along` $dim attr-dict `:` type($src)
    custom<ReduceResult>(type($result), ref(type($src)), ref($dim))
  }];
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "prefix combine along one dimension";
  let description = [{
    Inclusive (or `exclusive`) prefix of `kind` along `dim`, optionally from
    the end (`reverse`).

    With `total`, a second result holds the combine of the whole dimension,
    what `tile.reduce` of the operand along `dim` gives (a scalar for a
    rank-1 tile): the scan has it on the way, so a count and the positions
    of a compaction cost one pass across threads, not two. Only for integer
    tiles, or `max` and `min` (whose result does not depend on the order of
    the combines). `tile-scan-totals` folds reductions into the scans of the
    same tile.

    ```mlir
    %c = tile.scan add %h along 0 exclusive : tensor<256xi32>
    %pos, %count = tile.scan add %take along 0 exclusive
        : tensor<4096xi32> total i32
    ```
  }];
  let arguments = (ins Tile_CombineKindAttr:$kind, Tile_Tile:$src,
                       I32Attr:$dim, UnitAttr:$reverse, UnitAttr:$exclusive);
  let results = (outs Tile_Tile:$result, Optional<AnyType>:$total);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $src `along` $dim (`reverse` $reverse^)? (`exclusive` $exclusive^)?
    attr-dict `:` type($src) (`total` type($total)^)?
  }];
  let hasVerifier = 1;
}

def Tile_SortOp : Tile_Op<"sort", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "sort a tile along one dimension, carrying payloads";
  let description = [{
    Sorts `keys` along `dim` (ascending, or `descending`); each payload tile
    is permuted the same way. Ties keep payload order unspecified.

    `runs N` promises that the keys already form sorted runs of `N`
    consecutive elements along `dim`, in the sort's direction (a power of
    two dividing the extent); the sort then only merges them, log2(N)
    fewer network levels. Keys that break the promise come out unsorted.

    ```mlir
    %k, %i = tile.sort %keys, %idx along 0 descending
        : tensor<64xf32>, tensor<64xi32>
    %m = tile.sort %lists along 1 descending runs 32 : tensor<2x128xi64>
    ```
  }];
  let arguments = (ins Tile_Tile:$keys, Variadic<Tile_Tile>:$payloads,
                       I32Attr:$dim, UnitAttr:$descending,
                       DefaultValuedAttr<I64Attr, "1">:$runs);
  let results = (outs Variadic<Tile_Tile>:$results);
  let assemblyFormat = [{
    $keys (`,` $payloads^)? `along` $dim (`descending` $descending^)?
    (`runs` $runs^)? attr-dict `:` type($keys) (`,` type($payloads)^)?
  }];
  let hasVerifier = 1;
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure,
    OptionalTypesMatchWith<"mask has the shape of the input", "src", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "count the values of an integer tile into bins";
  let description = [{
    Result element `b` counts the elements of `src` (of any rank) equal to
    `b` (and whose `mask` is true); values outside `[0, bins)` are not
    counted.

    ```mlir
    %h = tile.histogram %digits : tensor<1024xi32> -> tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_IntTile:$src, Optional<Tile_MaskTile>:$mask);
  let results = (outs Tile_IntTile:$result);
  let assemblyFormat = [{
    $src (`mask` $mask^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_HistogramAddOp : Tile_Op<"histogram_add", [
    MemoryEffects<[MemRead, MemWrite]>,
    OptionalTypesMatchWith<"mask has the shape of the input", "src", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "count the values of an integer tile into a shared buffer";
  let description = [{
    Adds to element `b` of the i32 shared buffer the number of elements of
    `src` (of any rank) equal to `b` (and whose `mask` is true), with
    shared-memory atomics; values outside the buffer are not counted. It
    has no barrier: the buffer is read (`tile.load_shared`) or cleared after
    a `tile.barrier`. `tile-accumulate-histograms` makes it from a loop
    that sums `tile.histogram`s, so that the bins stay in shared memory
    across iterations.

    ```mlir
    tile.histogram_add %digits mask %m, %bins
        : tensor<4096xi32>, !tile.smem<2048xi32>
    ```
  }];
  let arguments = (ins Tile_IntTile:$src, Optional<Tile_MaskTile>:$mask,
                       Tile_SharedBufferType:$buffer);
  let assemblyFormat = [{
    $src (`mask` $mask^)? `,` $buffer attr-dict `:` type($src) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [Pure,
    AllTypesMatch<["dest", "result"]>,
    OptionalTypesMatchWith<"mask has the shape of the source", "src", "mask",
        "::mlir::tile::getMaskType($_self)">]> {
  let summary = "place the elements of a tile at computed positions of another";
  let description = [{
    The result is `dest` with element `indices[i]` replaced by `src[i]` for
    every `i` whose `mask` is true and whose index lies in `[0, size)`; when
    several elements go to one position, one of them wins. With a prefix sum
    of a predicate, this compacts the selected elements of a tile.

    ```mlir
    %r = tile.scatter %vals into %dest[%pos] mask %take
        : tensor<1024xf32>, tensor<1024xi32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$src, Tile_Tile:$dest, Tile_IntTile:$indices,
                       Optional<Tile_MaskTile>:$mask);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $src `into` $dest `[` $indices `]` (`mask` $mask^)? attr-dict `:`
    type($src) `,` type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiply
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure,
    TypesMatchWith<"accumulator and result have one type", "result", "acc",
                   "$_self">]> {
  let summary = "tile matrix multiply-accumulate";
  let description = [{
    `result = a × b + acc` with `a` M×K, `b` K×N and `acc` M×N. Lowered to
    mma.sync, wgmma or tcgen05 depending on the target.

    With `async` (set by tile-pipeline-loads), the tensor cores may still
    be computing the result when the op returns, on targets where they run
    asynchronously (wgmma): it may only feed another dot's accumulator or
    a `tile.dot_wait`, which says how many async dots may still run. A
    tcgen05 accumulator (in tensor memory) is instead complete once the
    mbarrier of a later `tile.dot_commit` has been waited for.

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>
        -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$a, Tile_Tile:$b, Tile_Tile:$acc,
                       UnitAttr:$async);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`async` $async^)? attr-dict `:` type($a) `,` type($b)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DotWaitOp : Tile_Op<"dot_wait", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"value and result have one type", "value", "result",
                   "$_self">]> {
  let summary = "wait until at most `pending` async dots still run";
  let description = [{
    Returns `value`, the result of an `async` tile.dot, once at most
    `pending` of this thread's most recent async dots are still running
    (wgmma.wait_group). With `pending` 0 the value is complete; with more,
    only older dots are, and with them their reads of shared memory, so
    the stages they read may be written again.

    ```mlir
    %done = tile.dot_wait %d pending 0 : tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value `pending` $pending attr-dict `:` type($value)";
}

def Tile_DotCommitOp : Tile_Op<"dot_commit", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on a barrier once the async dots issued so far finish";
  let description = [{
    On targets whose async dots complete on mbarriers (tcgen05): mbarrier
    `index` of `barriers` receives one arrival once every async
    `tile.dot` this program issued before has finished, reading its
    operands and writing its accumulator (tcgen05.commit). A
    `tile.mbarrier_wait` on that barrier then guards the reuse of the
    stages those dots read, and the reading of their accumulator.

    With `multicast %mask`, the barrier at the same place in every program
    of the cluster in `mask` (bit r: cluster rank r) receives the arrival:
    programs that load the dots' operands into each other's shared memory
    (CTA pairs, `tile.multicast`) all learn when a stage is free.

    ```mlir
    tile.dot_commit %consumed[%stage] : !tile.smem<4xi64>
    tile.dot_commit %consumed[%stage] multicast %mask : !tile.smem<4xi64>
    ```
  }];
  let arguments = (ins Tile_SharedBufferType:$barriers, I32:$index,
                       Optional<I32>:$multicast);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`multicast` $multicast^)? attr-dict `:`
    qualified(type($barriers))
  }];
}

#endif // TILE_OPS_TD
