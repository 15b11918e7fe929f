//===- SharedMemory.h - scratch shared-memory sizes -------------*- C++ -*-===//

#ifndef TILEC_PASSES_SHAREDMEMORY_H
#define TILEC_PASSES_SHAREDMEMORY_H

#include "mlir/IR/Operation.h"

namespace mlir::tile {
/// Bytes of shared scratch `op` needs to move data between threads (0 when
/// it works in registers and warp shuffles alone).
int64_t getScratchBytes(Operation *op);
/// Bytes one element of `type` takes in scratch (i1 is widened to a byte).
int64_t getScratchElementBytes(Type type);
/// Byte offsets of consecutive scratch arrays of `numElements` elements of
/// each of `elementTypes` (8-byte aligned); `totalBytes` is their extent.
SmallVector<int64_t> getScratchArrayOffsets(ArrayRef<Type> elementTypes,
                                            int64_t numElements,
                                            int64_t &totalBytes);
} // namespace mlir::tile

#endif // TILEC_PASSES_SHAREDMEMORY_H
