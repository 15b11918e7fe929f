//===- TileAttrs.cpp - tile layouts and enums ----------------------------===//

#include "dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "dialect/TileAttrInterfaces.cpp.inc"
#include "dialect/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/TileAttrs.cpp.inc"
      >();
}

// Saturates rather than wraps: `warps = [65536, 65536]` must not pass the
// 32-warp limit as a product of 0.
static unsigned product(ArrayRef<unsigned> values) {
  unsigned result = 1;
  for (unsigned v : values)
    result = llvm::SaturatingMultiply(result, v);
  return result;
}

static bool allPowersOfTwo(ArrayRef<unsigned> values) {
  return llvm::all_of(values,
                      [](unsigned v) { return v && llvm::isPowerOf2_32(v); });
}

//===----------------------------------------------------------------------===//
// BlockedLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedLayoutAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "blocked layout needs rank at least 1";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank ||
      order.size() != rank)
    return emitError() << "blocked layout: size, threads, warps and order "
                          "must all have "
                       << rank << " entries";
  if (!allPowersOfTwo(sizePerThread) || !allPowersOfTwo(threadsPerWarp) ||
      !allPowersOfTwo(warpsPerCTA))
    return emitError() << "blocked layout entries must be powers of two";
  if (product(threadsPerWarp) != 32)
    return emitError() << "blocked layout: threads per warp multiply to "
                       << product(threadsPerWarp) << ", expected 32";
  if (product(warpsPerCTA) > 32)
    return emitError() << "blocked layout: more than 32 warps";
  SmallVector<bool> seen(rank, false);
  for (unsigned dim : order) {
    if (dim >= rank || seen[dim])
      return emitError() << "blocked layout: order must be a permutation of "
                            "[0, "
                         << rank << ")";
    seen[dim] = true;
  }
  return success();
}

unsigned BlockedLayoutAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}
unsigned BlockedLayoutAttr::getLayoutRank() const {
  return getSizePerThread().size();
}

//===----------------------------------------------------------------------===//
// SliceLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  auto layout = dyn_cast<LayoutAttrInterface>(parent);
  if (!layout)
    return emitError() << "slice parent must be a tile layout, got " << parent;
  if (dim >= layout.getLayoutRank())
    return emitError() << "slice dimension " << dim
                       << " is out of range for a parent of rank "
                       << layout.getLayoutRank();
  return success();
}

unsigned SliceLayoutAttr::getNumWarps() const {
  return cast<LayoutAttrInterface>(getParent()).getNumWarps();
}
unsigned SliceLayoutAttr::getLayoutRank() const {
  return cast<LayoutAttrInterface>(getParent()).getLayoutRank() - 1;
}

//===----------------------------------------------------------------------===//
// MmaLayoutAttr / DotOperandLayoutAttr / SwizzleAttr
//===----------------------------------------------------------------------===//

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned version, ArrayRef<unsigned> warpsPerCTA,
                      ArrayRef<unsigned> instrShape) {
  if (version != 2 && version != 3 && version != 5)
    return emitError() << "mma version must be 2 (mma.sync), 3 (wgmma) or 5 "
                          "(tcgen05), got "
                       << version;
  if (warpsPerCTA.size() != 2)
    return emitError() << "mma layout: warps must have 2 entries";
  if (!allPowersOfTwo(warpsPerCTA))
    return emitError() << "mma layout: warps must be powers of two";
  if (product(warpsPerCTA) > 32)
    return emitError() << "mma layout: more than 32 warps";
  if (instrShape.size() != 3)
    return emitError() << "mma layout: instr must be [M, N, K]";
  // Every instruction family reads 32 bytes of each operand row per K step
  // (16-bit or 8-bit elements); shared-memory sizing divides by K.
  if (!instrShape[0] || !instrShape[1])
    return emitError() << "mma layout: instr M and N must be positive";
  if (instrShape[2] != 16 && instrShape[2] != 32)
    return emitError() << "mma layout: instr K must be 16 or 32, got "
                       << instrShape[2];
  return success();
}

unsigned MmaLayoutAttr::getNumWarps() const {
  return product(getWarpsPerCTA());
}
unsigned MmaLayoutAttr::getLayoutRank() const { return 2; }

LogicalResult
DotOperandLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             unsigned index, Attribute parent,
                             unsigned kWidth) {
  if (index > 1)
    return emitError() << "dot operand index must be 0 (A) or 1 (B)";
  if (!isa<MmaLayoutAttr>(parent))
    return emitError() << "dot operand parent must be a #tile.mma layout";
  if (!kWidth || !llvm::isPowerOf2_32(kWidth))
    return emitError() << "dot operand k_width must be a power of two";
  return success();
}

unsigned DotOperandLayoutAttr::getNumWarps() const {
  return cast<LayoutAttrInterface>(getParent()).getNumWarps();
}
unsigned DotOperandLayoutAttr::getLayoutRank() const { return 2; }

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned bytes, unsigned wgmmaWarps) {
  if (bytes != 0 && bytes != 32 && bytes != 64 && bytes != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << bytes;
  if (wgmmaWarps != 0 &&
      (wgmmaWarps % 4 != 0 || !llvm::isPowerOf2_32(wgmmaWarps)))
    return emitError() << "wgmma_warps must be a power of two multiple of 4 "
                          "(whole warpgroups), got "
                       << wgmmaWarps;
  // More warps than a CTA has also overflowed the row arithmetic of staged
  // buffers (16 * 2^31 rows wrapped to 0, a division by zero).
  if (wgmmaWarps > 32)
    return emitError() << "wgmma_warps must be at most 32 (the warps of a "
                          "CTA), got "
                       << wgmmaWarps;
  return success();
}
