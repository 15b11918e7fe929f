//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "dialect/TileBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "pointer to global memory";
  let description = [{
    An address in global memory holding elements of `elementType`. Kernel
    parameters that name buffers have this type: `!tile.ptr<f32>`.
  }];
  let parameters = (ins "Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_ViewType : Tile_Type<"View", "view"> {
  let summary = "global tensor: pointer, shape and strides";
  let description = [{
    A strided view of global memory, made by `tile.make_view` from a pointer
    and run-time extents and strides (in elements): `!tile.view<?x?xf32>`.
    Tile loads and stores address it with element offsets and are masked by
    its extents.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
  }];
}

def Tile_SharedBufferType : Tile_Type<"SharedBuffer", "smem"> {
  let summary = "shared-memory buffer introduced by passes";
  let description = [{
    A statically shaped buffer in shared memory, optionally multi-stage (the
    leading dimension) and swizzled: `!tile.smem<4x128x64xf8E4M3FN, #tile.swizzle<128>>`.
    Kernel sources never name it; the pipelining and allocation passes do.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType,
                        OptionalParameter<"Attribute">:$swizzle);
  let hasCustomAssemblyFormat = 1;
}

def Tile_TensorMapType : Tile_Type<"TensorMap", "tensor_map"> {
  let summary = "TMA descriptor of a global view, moving boxes of one shape";
  let description = [{
    A tensor-map (CUtensorMap) of a rank-2 global view whose bulk tensor
    copies move `R`×`C` boxes into shared memory under `swizzle`:
    `!tile.tensor_map<8x64xbf16, #tile.swizzle<128>>`. Made by
    `tile.make_tensor_map`; the runtime encodes it on every launch.

    With `wgmma_warps = W` in the swizzle, one box lands its `R` rows (a
    multiple of 16·W) in the order a wgmma A operand is staged in for W
    warps (getWgmmaStagedRow): the runtime encodes it as a rank-5 map over
    the same view whose dimensions permute the rows, and copies through it
    must start at a row that is a multiple of 16·W and end inside the view
    (`!tile.tensor_map<128x128xf8E4M3FN, #tile.swizzle<128, wgmma_warps = 8>>`).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$box,
                        "Type":$elementType,
                        "Attribute":$swizzle);
  let hasCustomAssemblyFormat = 1;
}

#endif // TILE_TYPES_TD
