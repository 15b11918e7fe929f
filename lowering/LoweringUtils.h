//===- LoweringUtils.h - helpers for per-thread code ------------*- C++ -*-===//

#ifndef TILEC_LOWERING_LOWERINGUTILS_H
#define TILEC_LOWERING_LOWERINGUTILS_H

#include "dialect/TileLayouts.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {

/// Name of the dynamic shared-memory array every kernel's scratch lives in.
inline constexpr llvm::StringLiteral kSharedMemorySymbol = "__tile_smem";

Value i32Const(OpBuilder &b, Location loc, int64_t value);
Value i64Const(OpBuilder &b, Location loc, int64_t value);

/// The register distribution of `type`, or failure with a diagnostic on
/// `op` telling to run tile-assign-layouts first.
FailureOr<Distribution> getLaidOutDistribution(Operation *op,
                                               RankedTensorType type);

/// Success when every tile of `tiles` has the layout of `type`; otherwise
/// `message` as a diagnostic on `op`.
LogicalResult requireLayoutOf(Operation *op, ValueRange tiles,
                              RankedTensorType type, const Twine &message);

/// Where the current thread sits: lane and warp indices, and per blocked
/// dimension of a distribution its base coordinate and lane/warp index.
struct ThreadPosition {
  Value lane, warp;
  SmallVector<Value> base;      // i32 per blocked dim
  SmallVector<Value> warpIndex; // i32 per blocked dim
};
ThreadPosition getThreadPosition(OpBuilder &b, Location loc,
                                 const Distribution &dist);

/// Coordinates (i32, one per tile dimension) of element `e` of `dist`.
SmallVector<Value> getElementCoords(OpBuilder &b, Location loc,
                                    const Distribution &dist,
                                    const ThreadPosition &pos, int64_t e);

/// Row-major linear index (i32) of `coords` in a tile of `shape`.
/// Whether this thread is the one holder of element `e` that accesses it
/// (replicated layouts give an element to several threads).
Value isElementOwner(OpBuilder &b, Location loc, const Distribution &dist,
                     const ThreadPosition &pos, int64_t e);

Value linearize(OpBuilder &b, Location loc, ValueRange coords,
                ArrayRef<int64_t> shape);

/// Coordinate (i64) of an element in a view: `offset` (i32, the tile's
/// origin or a per-element index) sign-extended, plus `local` (i32, the
/// element's non-negative place in the tile, or null) zero-extended. Added
/// in 64 bits, so it never wraps. (An i32 sum sign-extended afterwards
/// would let NVPTX use mul.wide.s32, but hides the sum from LLVM's loop
/// strength reduction: softmax's chunked rows, 1024 x 30000 f32, took 93
/// instead of 85 us on the H200.)
Value getViewCoord(OpBuilder &b, Location loc, Value offset, Value local);

/// Address of the element at `coords` (i64, from getViewCoord) of a view
/// with base `ptr` and `strides` (i64, sign-extended i32): ptr + sum over d
/// of coords[d] * strides[d] elements, all in 64 bits, so no element of a
/// buffer past 2^31 elements (or 2^31 bytes) is addressed modulo 2^32.
/// Every access to a global view (load, store, atomic) computes its
/// addresses here.
Value getViewElementAddress(OpBuilder &b, Location loc, Value ptr,
                            Type elementType, ValueRange strides,
                            ValueRange coords);

/// `a <kind> b` on scalars.
Value combineValues(OpBuilder &b, Location loc, CombineKind kind, Value lhs,
                    Value rhs);

/// `shfl.sync.<kind>` of a value of any width up to 64 bits (`lane` is the
/// source lane, delta or xor mask, i32).
Value shuffle(OpBuilder &b, Location loc, Value v, NVVM::ShflKind kind,
              Value lane, unsigned clamp);

/// The neutral element of `kind` for `type` (exch has none; gives zero).
Value getIdentity(OpBuilder &b, Location loc, CombineKind kind, Type type);

/// The value `v` of the lane whose id is this lane's xor `mask`.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned mask);

/// CTA-wide barrier.
void ctaBarrier(OpBuilder &b, Location loc);

/// Whether integer `index` (any width) lies in [0, `bound`), by an unsigned
/// compare, so that negative values are out too, and, when `mask` (i1) is
/// given, holds.
Value isIndexInBounds(OpBuilder &b, Location loc, Value index, int64_t bound,
                      Value mask = {});
/// Integer `index` as i32: truncated, or zero-extended (it is known to be
/// non-negative).
Value indexAsI32(OpBuilder &b, Location loc, Value index);

/// Warp specialization (WarpSpecializeLowering.cpp): the thread index
/// counted from the first thread of the role `op` runs in (the producer
/// warp, or the consumers from 0); the consumer threads when `op` runs in
/// a consumer branch, else 0; the producer threads `func` launches beyond
/// tile.num_warps (before or after lowerWarpSpecialize).
Value getRoleThreadId(OpBuilder &b, Location loc, Operation *op);
int64_t getConsumerThreads(Operation *op);
int64_t getProducerThreads(Operation *func);
/// Whether this is thread 0 of the role `op` runs in (of the program, or of
/// a warp-specialized kernel's producer or consumers): the thread that
/// initializes and arrives on mbarriers and issues TMA stores.
Value isRoleThreadZero(OpBuilder &b, Location loc, Operation *op);

/// Rewrites each tile.warp_specialize into a branch on the thread index,
/// before the conversion; after it, points the consumer branches'
/// program-wide barriers at a barrier of the consumers alone.
void lowerWarpSpecialize(ModuleOp module);
void retargetConsumerBarriers(ModuleOp module);

/// Address (ptr<3>) of element `index` (i32) of type `elementType` in the
/// scratch shared memory.
Value getScratchAddress(OpBuilder &b, Location loc, Operation *from,
                        Type elementType, Value index);

/// `index` with the padding of an array padded every `period` (a power of
/// two, or 0 for none) elements (passes/SharedMemory.h,
/// getPaddedScratchElements).
Value padScratchIndex(OpBuilder &b, Location loc, Value index, int64_t period);

/// Stores/loads a scalar to/from scratch, widening i1 to a byte.
void storeScratch(OpBuilder &b, Location loc, Operation *from, Value value,
                  Value index);
Value loadScratch(OpBuilder &b, Location loc, Operation *from, Type type,
                  Value index);

} // namespace mlir::tile

#endif // TILEC_LOWERING_LOWERINGUTILS_H
