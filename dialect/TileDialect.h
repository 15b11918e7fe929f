//===- TileDialect.h - tile dialect -----------------------------*- C++ -*-===//

#ifndef TILEC_DIALECT_TILEDIALECT_H
#define TILEC_DIALECT_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// Generated declarations, in dependency order.
#include "dialect/TileDialect.h.inc"

#include "dialect/TileEnums.h.inc"

#include "dialect/TileAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/TileTypes.h.inc"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::tile {
/// A tile is a statically shaped tensor whose encoding, if any, is a layout
/// (or, in a kernel template, a #tile.sym).
bool isTileType(Type type);
/// The i1 tile with the shape and layout of `tileType`.
Type getMaskType(Type tileType);
/// The layout of a tile, or null when it has none yet.
LayoutAttrInterface getLayout(Type tileType);
/// Whether `func` is a kernel (carries `tile.kernel`) that passes work on:
/// kernel templates are not, until tile-instantiate makes their instances.
bool isKernel(Operation *func);
/// Whether `func` is a kernel template (carries `tile.params`); passes
/// after tile-instantiate leave templates alone.
bool isTemplate(Operation *func);
/// Checks `tile.params` (attr) on template `func`: parameter kinds, and
/// that every #tile.sym and tile.elem of its body names parameters and
/// spells their defaults.
LogicalResult verifyTemplateParams(func::FuncOp func, Attribute attr);
/// Checks `tile.instances` (attr) on template `func` against its params.
LogicalResult verifyTemplateInstances(func::FuncOp func, Attribute attr);
/// Warps per CTA of a kernel (`tile.num_warps`, default 4).
unsigned getNumWarps(Operation *func);

/// Whether kernel `func` (a func.func or the llvm.func it lowers to) runs
/// its tcgen05 dot on CTA pairs (tile.cta_pair).
bool isCtaPair(Operation *func);
/// The programs (or CTA pairs) that share a multicast operand
/// (tile.multicast), 1 without.
int64_t getMulticast(Operation *func);
/// The programs of one of `func`'s clusters, which lie along grid y: 2 per
/// CTA pair times tile.multicast.
int64_t getClusterPrograms(Operation *func);

/// The entries of an index list (offsets, extents, strides) in order:
/// `values`, and the literal integers of `statics` where it holds them.
/// `statics` has one entry per index (ShapedType::kDynamic where a value
/// stands), or is null when every index is a value.
SmallVector<OpFoldResult> getMixedIndexList(OperandRange values,
                                            DenseI64ArrayAttr statics);
/// Replaces the literal integers in the index lists of the tile.load,
/// tile.store and tile.make_view ops under `root` with i32 constants, so
/// that every index is an operand. Literal indices are a source form: the
/// passes that read index lists call this first.
void materializeIndexLists(Operation *root);

/// Fails, with an error at `op`, unless `op` is nested in a func.func.
LogicalResult verifyInFunction(Operation *op);

/// The trait every tile op carries (Tile_InFunction in TileBase.td).
template <typename ConcreteType>
class InFunction : public OpTrait::TraitBase<ConcreteType, InFunction> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyInFunction(op);
  }
};
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "dialect/TileOps.h.inc"

#endif // TILEC_DIALECT_TILEDIALECT_H
