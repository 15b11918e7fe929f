//===- TileLayouts.h - static layout arithmetic -----------------*- C++ -*-===//
//
// Everything about a tile layout that is known at compile time: how many
// elements each thread holds, where they sit relative to the thread's base
// coordinate, and how lanes and warps spread over each dimension. Passes use
// it to choose layouts and size scratch memory; the lowering uses it to emit
// the per-thread code.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILELAYOUTS_H
#define TILEC_DIALECT_TILELAYOUTS_H

#include "dialect/TileDialect.h"

namespace mlir::tile {

/// The distribution of one tile over a CTA, expressed on the underlying
/// blocked layout (slices drop dimensions of it).
struct Distribution {
  BlockedLayoutAttr blocked;
  /// Tile shape in the blocked layout's dimensions (sliced dims have 1).
  SmallVector<int64_t> blockedShape;
  /// Elements a thread holds per blocked dimension (1 for sliced dims).
  SmallVector<int64_t> perThread;
  /// For each tile dimension, the blocked dimension it lives on.
  SmallVector<unsigned> tileDims;

  unsigned blockedRank() const { return blockedShape.size(); }
  int64_t numElements() const;
  /// Per blocked dimension, the coverage of one CTA (size*threads*warps).
  int64_t ctaTile(unsigned d) const;
  /// Whether coordinates along blocked dim `d` wrap (the tile is narrower
  /// than the CTA's coverage, so threads hold replicas).
  bool wraps(unsigned d) const { return blockedShape[d] < ctaTile(d); }
  /// Local index per blocked dimension of element `e`.
  SmallVector<int64_t> localIndex(int64_t e) const;
  /// Element number of a local index.
  int64_t elementOf(ArrayRef<int64_t> local) const;
  /// Static coordinate offset per blocked dimension of element `e`, relative
  /// to the thread's base coordinate.
  SmallVector<int64_t> offsets(int64_t e) const;
  /// Stride between lanes adjacent along blocked dim `d` (in lane ids).
  unsigned laneStride(unsigned d) const;
  /// Stride between warps adjacent along blocked dim `d` (in warp ids).
  unsigned warpStride(unsigned d) const;
};

/// The distribution of `type` (a tile with a blocked or slice layout), or
/// failure for layouts the register lowering does not handle.
FailureOr<Distribution> getDistribution(RankedTensorType type);

/// The distribution of the result of reducing `src` along `dim`: the rows
/// of the reduced tile, including the rank-0 case of a full reduction.
Distribution getReducedDistribution(const Distribution &src, unsigned dim);

/// A blocked layout for `shape` that gives each thread up to 16 contiguous
/// bytes along the last dimension, spreads lanes fastest dimension first and
/// warps slowest dimension first, and replicates only when the tile has
/// fewer elements than the CTA has threads.
BlockedLayoutAttr getDefaultLayout(MLIRContext *context,
                                   ArrayRef<int64_t> shape,
                                   unsigned elementBits, unsigned numWarps);

/// The blocked layout that places elements exactly where the accumulator
/// fragments of `mma` put them. Version 2 (mma.sync m16n8): each lane holds
/// two adjacent columns of rows lane/4 and lane/4 + 8·warps[0] of its
/// warp's 8×8 blocks; warps interleave by 8 rows and 8 columns, so one
/// m16n8 fragment covers rows r and r + 8·warps[0] (the matching operand
/// rows are fetched with the same stride). Version 3 (wgmma m64nN, warps
/// [W, 1]): the same form; each warpgroup's m64 block gathers the rows its
/// four warps hold, and the lowering stages A's rows in that order (see
/// WgmmaLowering.cpp). Null for other versions.
BlockedLayoutAttr getMmaBlockedEquivalent(MmaLayoutAttr mma);

/// Whether `layout` is a tcgen05 accumulator (`#tile.mma` version 5): the
/// tile lives in tensor memory, not in registers, so it has no
/// Distribution; its values are read through getTmemLoadLayout.
bool isTensorMemoryLayout(Attribute layout);

/// The register layout `tcgen05.ld.32x32b` gives the accumulator of `mma`
/// (version 5, `warps = [4, W]`, `instr = [128, N, k]`): warp w reads
/// tensor-memory lanes 32·(w % 4) .. +31 (the quarter its warp id may
/// access), one row per lane, and columns (w / 4)·N/W .. +N/W, so each
/// thread holds N/W consecutive columns of one row.
BlockedLayoutAttr getTmemLoadLayout(MmaLayoutAttr mma);

/// `layout` with its two dimensions swapped (blocked layouts, and slices and
/// mma layouts through their blocked form); null when there is none.
Attribute getTransposedLayout(Attribute layout);

/// The shared-memory swizzle (bytes: 0, 32, 64 or 128) for rows of
/// `rowBytes`: the TMA/tensor-core mode whose span the row fills, so that
/// eight 16-byte accesses at one column of eight consecutive rows hit
/// distinct banks.
unsigned getSwizzleBytes(int64_t rowBytes);

/// The 16-byte chunk that chunk `chunk` of row `row` lands in under a
/// swizzle of `bytes` (the XOR pattern of the TMA and wgmma swizzle modes).
inline int64_t swizzleChunk(unsigned bytes, int64_t row, int64_t chunk) {
  if (bytes < 32)
    return chunk;
  int64_t phases = bytes / 16;        // 2, 4 or 8 chunks per phase
  int64_t rowsPerPhase = 128 / bytes; // 4, 2 or 1 rows share a phase
  return chunk ^ ((row / rowsPerPhase) % phases);
}

/// Whether every thread can rebuild `value` in any layout without moving
/// data: splats, iotas and constants, broadcasts, expand_dims and layout
/// conversions of such values, and element-wise arith ops of them (an
/// index tile compared with a bound, say). Such a value should not decide
/// the layout of an expression it feeds, and converting it costs nothing
/// once canonicalization rebuilds it in the new layout.
bool isRematerializable(Value value);

/// Whether `value` is a load's tile (tile.load or tile.load_shared, in a
/// blocked or a slice layout; unmasked or with a rebuildable mask) used
/// only here, or
/// an element-wise op of such tiles and rebuildable ones (a bf16 load
/// widened to f32, say). The load can read it in any blocked layout at the
/// same cost, so it should not decide the layout of an expression it feeds
/// either: canonicalization moves a conversion of it into the load.
bool isReloadable(Value value);

/// Whether `op` is an element-wise arith op (one result, no regions) that
/// can be rebuilt with operands of another layout.
bool isElementwiseArith(Operation *op);

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILELAYOUTS_H
