//===- Patterns.h - tile-to-LLVM conversion patterns ------------*- C++ -*-===//

#ifndef TILEC_LOWERING_PATTERNS_H
#define TILEC_LOWERING_PATTERNS_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {

/// Converts tiles to the scalars one thread holds (1:N), pointers to
/// global-address-space LLVM pointers, and views to (pointer, extents,
/// strides).
class TileTypeConverter : public LLVMTypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *context);
};

/// addptr, make_view, load, store.
void populateMemoryOpPatterns(TileTypeConverter &converter,
                              RewritePatternSet &patterns);
/// gather: loads at per-element coordinates, vectorized where they run
/// consecutively.
void populateGatherPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns);
/// reduce, convert_layout, broadcast, expand_dims, splat, iota, constants
/// and element-wise arith/math on tiles.
void populateRegisterOpPatterns(TileTypeConverter &converter,
                                RewritePatternSet &patterns);
/// scan: in-thread, lane shuffles, cross-warp scratch.
void populateScanPatterns(TileTypeConverter &converter,
                          RewritePatternSet &patterns);
/// sort: bitonic network in shared scratch.
void populateSortPatterns(TileTypeConverter &converter,
                          RewritePatternSet &patterns);
/// histogram: shared-memory atomics.
void populateHistogramPatterns(TileTypeConverter &converter,
                               RewritePatternSet &patterns);
/// scatter: placement through shared scratch.
void populateScatterPatterns(TileTypeConverter &converter,
                             RewritePatternSet &patterns);
/// atomic (global read-modify-write, once per element) and fence.
/// Cluster queries, barriers and shared buffers; `target` says whether
/// clusters exist (sm_90 and later) or every program is a cluster of one.
void populateClusterPatterns(TileTypeConverter &converter,
                             RewritePatternSet &patterns, StringRef target);
void populateAtomicPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns);
/// tile.dot with a version-2 mma accumulator (ldmatrix + mma.sync) and
/// tile.transpose; `target` decides whether fp8 is multiplied as fp8.
void populateMmaSyncPatterns(TileTypeConverter &converter,
                             RewritePatternSet &patterns, StringRef target);
/// tile.dot with a version-3 mma accumulator (wgmma.mma_async on operands
/// staged in swizzled shared memory), sm_90a, and tile.dot_wait
/// (wgmma.wait_group where `target` has wgmma).
void populateWgmmaPatterns(TileTypeConverter &converter,
                           RewritePatternSet &patterns, StringRef target);
/// tile.dot with a version-5 mma accumulator (tcgen05.mma into tensor
/// memory, sm_100a), tile.dot_commit (tcgen05.commit), the accumulator's
/// zero start and its reading into registers (tcgen05.ld).
void populateTcgen05Patterns(TileTypeConverter &converter,
                             RewritePatternSet &patterns);
/// Gives each kernel with a tcgen05 dot its tensor memory: allocated by
/// warp 0 at entry, released before every return.
LogicalResult allocateTensorMemory(ModuleOp module);
/// async_copy (cp.async into staged buffers), async_commit, async_wait
/// and load_stage; `target` decides whether waits fence the async proxy,
/// `minCopyBytes` (16, 8 or 4) the smallest cp.async a copy from a source
/// not 16-byte aligned may take before falling back to element loads.
void populateAsyncCopyPatterns(TileTypeConverter &converter,
                               RewritePatternSet &patterns, StringRef target,
                               unsigned minCopyBytes = 16);
/// Kernels, returns and grid queries.
/// Checks that every tile.make_tensor_map can be encoded by the runtime (a
/// view of kernel parameters and constants), with a diagnostic otherwise.
LogicalResult checkTensorMapSources(ModuleOp module);
void populateTmaPatterns(TileTypeConverter &converter,
                         RewritePatternSet &patterns);
/// tile.store_boxes, tile.tma_store and tile.tma_store_wait (epilogues
/// staged by tile-stage-stores).
void populateTmaStorePatterns(TileTypeConverter &converter,
                              RewritePatternSet &patterns);
void populateKernelPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns, StringRef target);

} // namespace mlir::tile

#endif // TILEC_LOWERING_PATTERNS_H
