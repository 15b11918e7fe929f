//===- TileAttrs.td - tile layouts and enums ---------------*- tablegen -*-===//

#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "dialect/TileBase.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_CombineKind : I32EnumAttr<"CombineKind",
    "associative combiner of reductions, scans and atomics", [
      I32EnumAttrCase<"Add", 0, "add">,
      I32EnumAttrCase<"Mul", 1, "mul">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"And", 4, "and">,
      I32EnumAttrCase<"Or", 5, "or">,
      I32EnumAttrCase<"Xor", 6, "xor">,
      I32EnumAttrCase<"Exch", 7, "exch">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_CombineKindAttr : EnumAttr<Tile_Dialect, Tile_CombineKind, "combine">;

def Tile_GridDim : I32EnumAttr<"GridDim", "grid dimension", [
      I32EnumAttrCase<"X", 0, "x">,
      I32EnumAttrCase<"Y", 1, "y">,
      I32EnumAttrCase<"Z", 2, "z">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_GridDimAttr : EnumAttr<Tile_Dialect, Tile_GridDim, "dim">;

//===----------------------------------------------------------------------===//
// Layouts: which thread of the CTA holds which element of a tile.
//===----------------------------------------------------------------------===//

def Tile_LayoutAttrInterface : AttrInterface<"LayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A distribution of tile elements over the threads of a CTA. Only
    attributes implementing it may be the encoding of a tile.
  }];
  let methods = [
    InterfaceMethod<"Number of warps the layout spreads over.", "unsigned",
                    "getNumWarps">,
    InterfaceMethod<"Rank of the tiles the layout applies to.", "unsigned",
                    "getLayoutRank">
  ];
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedLayoutAttr : Tile_Attr<"BlockedLayout", "blocked",
    [DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface>]> {
  let summary = "regular block distribution";
  let description = [{
    Each thread holds `size` consecutive elements per dimension; `threads`
    lanes of a warp and `warps` warps tile the CTA's coverage; `order` lists
    dimensions fastest first. A tile larger than the coverage repeats it; a
    smaller one is replicated across the surplus threads.

    `#tile.blocked<size = [1, 4], threads = [1, 32], warps = [1, 8], order = [1, 0]>`
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `size` `=` `[` $sizePerThread `]` `,` `threads` `=` `[` $threadsPerWarp `]`
    `,` `warps` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_SliceLayoutAttr : Tile_Attr<"SliceLayout", "slice",
    [DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface>]> {
  let summary = "parent layout with one dimension removed";
  let description = [{
    The layout of a reduction's result: the elements of `parent` with
    dimension `dim` dropped; every thread that held some element of a row
    holds that row's result. `#tile.slice<dim = 1, parent = #tile.blocked<...>>`
  }];
  let parameters = (ins "unsigned":$dim, "Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaLayoutAttr : Tile_Attr<"MmaLayout", "mma",
    [DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface>]> {
  let summary = "tensor-core accumulator layout";
  let description = [{
    Accumulator fragment layout of `mma.sync` (version 2), `wgmma` (3) or
    `tcgen05` (5, accumulators in tensor memory); `warps` tile the CTA and
    `instr` is the M×N×K instruction shape.
    `#tile.mma<version = 3, warps = [4, 1], instr = [64, 128, 32]>`
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `version` `=` $version `,` `warps` `=` `[` $warpsPerCTA `]` `,`
    `instr` `=` `[` $instrShape `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_DotOperandLayoutAttr : Tile_Attr<"DotOperandLayout", "dot_operand",
    [DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface>]> {
  let summary = "register layout of an MMA operand";
  let description = [{
    Operand `index` (0 for A, 1 for B) of the MMA whose accumulator layout
    is `parent`, with `k_width` consecutive K elements per register group.
  }];
  let parameters = (ins "unsigned":$index, "Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `index` `=` $index `,` `parent` `=` $parent `,` `k_width` `=` $kWidth `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "shared-memory swizzle mode";
  let description = [{
    XOR swizzle of 16-byte chunks within rows of `bytes` (0, 32, 64 or 128),
    matching the TMA and tensor-core shared-memory descriptor modes. With
    `wgmma_warps = W`, rows are also stored in the order in which the
    warpgroups of W warps read their m64 blocks of a wgmma A operand (see
    getWgmmaStagedRow), so that the accumulator stays in its mma layout.

    `#tile.swizzle<128>`, `#tile.swizzle<128, wgmma_warps = 8>`
  }];
  let parameters = (ins "unsigned":$bytes,
                        DefaultValuedParameter<"unsigned", "0">:$wgmmaWarps);
  let assemblyFormat = "`<` $bytes (`,` `wgmma_warps` `=` $wgmmaWarps^)? `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Kernel templates: one source, several compile-time configurations.
//===----------------------------------------------------------------------===//

def Tile_SymbolicShapeAttr : Tile_Attr<"SymbolicShape", "sym"> {
  let summary = "which template parameters a tile's extents are";
  let description = [{
    The encoding of a tile in a kernel template (a function with
    `tile.params`): entry `i` of `dims` names the integer parameter
    dimension `i` is, or is the extent it keeps in every instance. The
    tile's written shape is the template's default, so a template is
    checked like a kernel; `tile-instantiate` substitutes each instance's
    values and drops the encoding. (Element types that are parameters are
    named by `tile.elem` on the arguments and ops that make them.)

    `tensor<128x64xbf16, #tile.sym<[BM, BK]>>`,
    `tensor<32x1xf32, #tile.sym<[R, 1]>>`
  }];
  let parameters = (ins "ArrayAttr":$dims);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TILE_ATTRS_TD
