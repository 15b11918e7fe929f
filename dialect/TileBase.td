//===- TileBase.td - tile dialect definition ---------------*- tablegen -*-===//
//
// The `tile` dialect: block-level GPU kernels over immutable tiles. A tile is a
// statically shaped `tensor` whose optional encoding is a tile layout attribute
// (which thread holds which element); passes assign layouts, the lowering turns
// each tile into the registers of one thread.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_BASE_TD
#define TILE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU kernel dialect";
  let description = [{
    Kernels are `func.func` operations marked `tile.kernel`. Their bodies work on
    whole tiles (statically shaped tensors) with `tile` ops plus upstream
    `arith`, `math` and `scf`. Thread indices, shared memory, barriers and
    tensor-core instructions never appear in kernel sources: passes introduce
    them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();

    /// Attribute names the dialect understands on kernel functions.
    static constexpr llvm::StringLiteral kKernelAttrName = "tile.kernel";
    static constexpr llvm::StringLiteral kNumWarpsAttrName = "tile.num_warps";
    static constexpr llvm::StringLiteral kMaxRegistersAttrName =
        "tile.max_registers";
    static constexpr llvm::StringLiteral kArgNamesAttrName = "tile.arg_names";
    static constexpr llvm::StringLiteral kSharedBytesAttrName =
        "tile.shared_bytes";
    static constexpr llvm::StringLiteral kMetadataAttrName = "tile.metadata";
    /// Integer attribute the lowering puts on a tile.make_tensor_map: the
    /// index of the hidden kernel parameter that carries the tensor map.
    static constexpr llvm::StringLiteral kTensorMapParamAttrName =
        "tile.tensor_map_param";
    /// String attribute on the module: the GPU target layouts were chosen
    /// for (set by tile-assign-layouts, read by the lowering).
    static constexpr llvm::StringLiteral kTargetAttrName = "tile.target";
    /// Kernel templates: the parameters with their defaults, the named
    /// instances that tile-instantiate makes, and the argument attribute
    /// naming the parameter a pointer's element type is.
    static constexpr llvm::StringLiteral kParamsAttrName = "tile.params";
    static constexpr llvm::StringLiteral kInstancesAttrName = "tile.instances";
    static constexpr llvm::StringLiteral kElementParamAttrName = "tile.elem";
    /// Integer attribute of a kernel: stages of its pipelined loops,
    /// overriding the pipeline's num-stages option.
    static constexpr llvm::StringLiteral kNumStagesAttrName = "tile.num_stages";
    /// Integer attribute of a kernel: bytes of shared memory its pipelining
    /// rings leave to its other buffers (by default 32 KiB less than the
    /// target has; sm_80's rings take up to 160 KiB).
    static constexpr llvm::StringLiteral kSharedReserveAttrName =
        "tile.shared_reserve";
    /// Bool attribute of a kernel: feed its TMA rings from a producer warp
    /// of its own (tile.warp_specialize), overriding the pipeline's option.
    static constexpr llvm::StringLiteral kWarpSpecializeAttrName =
        "tile.warp_specialize";
    /// Integer attribute of a kernel: run it persistently (tile-persistent),
    /// one wave of programs walking the launch grid's tiles, this many tile
    /// rows (grid y) side by side so that neighbours share operands in L2.
    static constexpr llvm::StringLiteral kPersistentAttrName =
        "tile.persistent";
    /// Bool attribute of a kernel: split its reduction loop over grid z
    /// (tile-split-k); the programs of one output tile add their partial
    /// accumulators through global memory and the last runs the epilogue.
    static constexpr llvm::StringLiteral kSplitKAttrName = "tile.split_k";
    /// Integer attribute tile-split-k leaves on a split kernel: the bytes
    /// of one program's partial accumulator (for the launch's scratch).
    static constexpr llvm::StringLiteral kSplitKPartialBytesAttrName =
        "tile.split_k_partial_bytes";
    /// Bool attribute of a kernel: run its tcgen05 GEMM dot on CTA pairs
    /// (sm_100a, cta_group::2). Programs launch in clusters of two along
    /// grid y; both stage their own A rows and half of B's rows, and the
    /// even one issues one M = 256 tcgen05.mma for the pair, each program's
    /// accumulator rows landing in its own tensor memory.
    static constexpr llvm::StringLiteral kCtaPairAttrName = "tile.cta_pair";
    /// Bool attribute of a kernel: false keeps tile-dependent-launch from
    /// giving it griddepcontrol (for a kernel whose register cap has no
    /// room for the wait's effect on scheduling).
    static constexpr llvm::StringLiteral kDependentLaunchAttrName =
        "tile.dependent_launch";
    /// Integer attribute of a kernel with tcgen05 dots (2, 4 or 8): this
    /// many programs (or CTA pairs) side by side along grid y form a
    /// cluster, and a staged operand that is the same for all of them (B
    /// of a GEMM: the same columns) is loaded once for the cluster, each
    /// program copying 1/m of it and multicasting it to the others.
    static constexpr llvm::StringLiteral kMulticastAttrName = "tile.multicast";
    /// Array attribute of a `tile.instances` entry: the targets the
    /// instance is made for (tile-instantiate skips it for others).
    static constexpr llvm::StringLiteral kTargetsAttrName = "tile.targets";
    /// Unit attribute on the scf.for of tile-persistent: the loop over a
    /// persistent kernel's tiles, whose pipelining rings run across its
    /// iterations.
    static constexpr llvm::StringLiteral kPersistentLoopAttrName =
        "tile.persistent_loop";
    /// Unit attribute on a !tile.ptr kernel argument: the caller promises
    /// that no other argument reaches the memory it points to (C's
    /// restrict), so stores through it cannot change what loads through
    /// the others read (tile-pipeline-loads moves those loads across such
    /// stores; the LLVM argument becomes noalias).
    static constexpr llvm::StringLiteral kNoAliasAttrName = "tile.noalias";
    /// Integer attribute on an scf.for: issue its loads this many
    /// iterations ahead into registers (tile-pipeline-loads), whether or not
    /// they feed a dot; for loops that stream memory through cheap work
    /// (histograms, reductions), where the loads would otherwise wait.
    static constexpr llvm::StringLiteral kLoadAheadAttrName = "tile.load_ahead";
    /// Unit attribute on an scf.for: keep its invariant code inside it.
    static constexpr llvm::StringLiteral kNoHoistAttrName = "tile.no_hoist";
  }];
}

// Every tile op is per-program work and must sit inside a function (a
// kernel body): at module level nothing would run it, and translation to
// LLVM IR used to crash on it instead of reporting it.
def Tile_InFunction : NativeOpTrait<"InFunction"> {
  let cppNamespace = "::mlir::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_InFunction])>;

#endif // TILE_BASE_TD
