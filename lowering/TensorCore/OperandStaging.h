//===- OperandStaging.h - tensor-core operands in shared memory -*- C++ -*-===//
//
// Both tensor-core lowerings of tile.dot stage their operands the same way:
// every thread stores the elements it holds into scratch, A as M rows of K
// and B transposed as N rows of K (K-contiguous, as ldmatrix and the wgmma
// K-major descriptors read them), 16-byte vectors where the layout gives a
// thread consecutive K elements, each row's 16-byte chunks XOR-swizzled in
// the TMA/wgmma 32/64/128-byte pattern (see swizzleChunk).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LOWERING_TENSORCORE_OPERANDSTAGING_H
#define TILEC_LOWERING_TENSORCORE_OPERANDSTAGING_H

#include "lowering/LoweringUtils.h"
#include "passes/SharedMemory.h"

#include "dialect/TileDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {

bool isFp8(Type type);

/// An fp8 value (held as i8) as the bf16 with the same value (exact).
Value widenFp8ToBF16(OpBuilder &b, Location loc, Value byte, bool e5m2);

/// Byte offset, within an operand's staged rows, of column `col` (in
/// elements) of row `row`, under the staging's swizzle.
Value stagedOffset(OpBuilder &b, Location loc, const DotStaging &s, Value row,
                   Value col);

/// The shared address (ptr<3>) `base + offset` bytes into scratch.
Value scratchByte(OpBuilder &b, Location loc, int64_t base, Value offset);

/// The shared address (ptr<3>) `offset` bytes after `base` (ptr<3>).
Value sharedByte(OpBuilder &b, Location loc, Value base, Value offset);

/// Maps an operand's logical row (i32) to the staged row it is stored in.
using RowMap = function_ref<Value(OpBuilder &, Location, Value)>;

/// Stores the elements of one operand tile into its staged rows at byte
/// `base` of scratch. `rowDim` is the tile dimension that indexes staged
/// rows, the other one is K; `rowMap`, when given, permutes the rows.
LogicalResult stageOperand(OpBuilder &b, Location loc, Operation *op,
                           RankedTensorType type, ValueRange values,
                           unsigned rowDim, int64_t base, const DotStaging &s,
                           RowMap rowMap = nullptr);

/// The staged row of an A operand's logical row `r` (i32) for wgmma over
/// `warps` warps: rows permuted into the warpgroups' m64 blocks (see
/// WgmmaLowering.cpp).
Value getWgmmaStagedRow(OpBuilder &b, Location loc, Value r, int64_t warps);

/// One stage of a staged buffer (tile.alloc_shared of S x R x C) as a
/// staging of R rows of C elements.
DotStaging getStageLayout(SharedBufferType type);

/// Where a dot operand's staged rows are.
struct OperandRows {
  /// The shared address (ptr<3>) of row 0.
  Value base;
  /// True when the rows are a stage of a buffer the operand was loaded
  /// into asynchronously (tile.load_stage), false when they must be
  /// staged from registers first.
  bool inPlace;
  /// True when a B operand is read in place from a stage holding it as K
  /// rows of N (the layout of the K×N tile in memory, V in attention):
  /// mma.sync reads it with `ldmatrix.trans`. `kRowsLayout` is then the
  /// stage's layout (rows of N elements).
  bool kRows = false;
  DotStaging kRowsLayout = {};
};

/// The rows of dot operand `operand` (A when `index` is 0, B as N rows of K
/// when 1): the stage it is loaded from when it is a tile.load_stage (B
/// through a tile.transpose), else scratch at byte `scratchOffset`. A stage
/// must be laid out as `s` says (and with A's rows in wgmma order for
/// `wgmmaWarps`, when non-zero); failure, with a diagnostic on `dot`, when
/// it is not. A B operand that is itself a tile.load_stage (no transpose:
/// the stage holds K rows of N) is read in place only when `allowKRows`
/// (mma.sync, through ldmatrix.trans); otherwise it is a diagnostic.
FailureOr<OperandRows>
getOperandRows(ConversionPatternRewriter &rewriter, Location loc,
               Operation *dot, Value operand, unsigned index,
               const DotStaging &s, int64_t scratchOffset, unsigned wgmmaWarps,
               bool allowKRows = false);

} // namespace mlir::tile

#endif // TILEC_LOWERING_TENSORCORE_OPERANDSTAGING_H
