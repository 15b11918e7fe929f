//===- SharedMemory.h - scratch shared-memory sizes -------------*- C++ -*-===//

#ifndef TILEC_PASSES_SHAREDMEMORY_H
#define TILEC_PASSES_SHAREDMEMORY_H

#include "mlir/IR/Operation.h"

namespace mlir::tile {
/// How a tile.sort runs its bitonic network (see SortLowering.cpp): in
/// registers and shuffles within each warp; the same with the stages that
/// cross warps exchanged through two scratch buffers; or wholly in scratch.
enum class SortNetwork { Warp, Exchange, Scratch };
/// The network of `sort` (a tile.sort whose keys have a register layout).
SortNetwork getSortNetwork(Operation *sort);

/// Where a tensor-core dot stages its operands in scratch: A as M rows of K
/// elements, B transposed as N rows of K elements (both K-contiguous, so
/// `ldmatrix` reads fragments of either without transposing), each row
/// swizzled in 16-byte chunks.
struct DotStaging {
  int64_t m, n, k;
  /// Bytes of one staged element: 1 for fp8 multiplied as fp8, 2 otherwise
  /// (fp8 on targets without fp8 mma.sync is widened to bf16).
  int64_t elementBytes;
  int64_t rowBytes;      // k * elementBytes
  unsigned swizzleBytes; // 0, 32, 64 or 128
  int64_t offsetB;       // byte offset of B's rows
  int64_t totalBytes;
};
/// The staging of `dot` (a tile.dot with a #tile.mma accumulator), or
/// nothing when its accumulator has no mma layout yet.
std::optional<DotStaging> getDotStaging(Operation *dot);

/// Bytes of one stage of a staged buffer (S x R x C): whole 1024-byte
/// units, the period of every swizzle pattern, so that each stage starts
/// where a tensor-core descriptor expects a pattern to start.
int64_t getStageBytes(Type sharedBufferType);
/// Bytes of a buffer made by tile.alloc_shared.
int64_t getSharedBufferBytes(Type sharedBufferType);

/// Kernels with tcgen05 dots end their dynamic shared memory with this many
/// bytes (16-byte aligned): the tensor-memory address tcgen05.alloc writes
/// (i32, at tile.shared_bytes - 16) and the mbarrier synchronous tcgen05
/// dots wait on (i64, at tile.shared_bytes - 8). See Tcgen05Lowering.cpp.
inline constexpr int64_t kTcgen05WordsBytes = 16;
/// Whether `func` has a dot with a tcgen05 (tensor-memory) accumulator.
bool hasTcgen05Dot(Operation *func);

/// Whether `view` can be described by a tensor map the runtime encodes at
/// launch: a rank-2 tile.make_view of kernel parameters and constants
/// whose last stride is 1.
bool isTensorMappable(Value view);

/// Bytes of shared scratch `op` needs to move data between threads (0 when
/// it works in registers and warp shuffles alone).
int64_t getScratchBytes(Operation *op);
/// Bytes one element of `type` takes in scratch (i1 is widened to a byte).
int64_t getScratchElementBytes(Type type);
/// Scratch arrays that threads fill by lanes striding through them (the
/// partials of a reduction or scan across warps, a layout conversion) are
/// padded with one element every `period` elements, so that lanes whose
/// indices differ by a power of two up to `period` fall in different banks.
/// The elements such an array of `numElements` takes with its padding
/// (period 0: no padding).
int64_t getPaddedScratchElements(int64_t numElements, int64_t period);
/// The padding period of a layout conversion of `type`: its last dimension,
/// when a power of two of at least 32 (lanes walking down a column then hit
/// different banks), else 32; 0 (none) for 1-D tiles.
int64_t getConvertScratchPeriod(RankedTensorType type);
/// The padding period of the cross-warp partials of reductions and scans.
inline constexpr int64_t kPartialScratchPeriod = 32;
/// Whether a scan whose lines (`lines` of them, the elements sharing every
/// index but the scanned one) each cross `chunks` (repetition, warp)
/// chunks, on `threads` threads, combines its chunk totals line by line:
/// one thread per line scans the line's totals in shared memory, and every
/// thread then reads the prefix of each of its chunks (and the line's
/// total at slot `chunks`), rather than reading and combining every chunk
/// total before its own. Worth it once a thread would read many totals.
bool scansTotalsByLine(int64_t lines, int64_t chunks, int64_t reps,
                       int64_t threads);
/// Byte offsets of consecutive scratch arrays of `numElements` elements of
/// each of `elementTypes` (8-byte aligned); `totalBytes` is their extent.
SmallVector<int64_t> getScratchArrayOffsets(ArrayRef<Type> elementTypes,
                                            int64_t numElements,
                                            int64_t &totalBytes);
} // namespace mlir::tile

#endif // TILEC_PASSES_SHAREDMEMORY_H
