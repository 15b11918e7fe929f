//===- ConvertTileToLLVM.cpp - the tile-to-LLVM conversion pass ----------===//

#include "lowering/LoweringUtils.h"
#include "lowering/Passes.h"
#include "lowering/Patterns.h"

#include "dialect/TargetInfo.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "lowering/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

TileTypeConverter::TileTypeConverter(MLIRContext *context)
    : LLVMTypeConverter(context) {
  addConversion([context](PtrType) {
    return LLVM::LLVMPointerType::get(context, /*addressSpace=*/1);
  });
  addConversion([context](ViewType type, SmallVectorImpl<Type> &results) {
    results.push_back(LLVM::LLVMPointerType::get(context, 1));
    results.append(2 * type.getRank(), IntegerType::get(context, 64));
    return success();
  });
  addConversion([context](SharedBufferType) {
    return LLVM::LLVMPointerType::get(context, /*addressSpace=*/3);
  });
  // The generic address of a kernel parameter (a grid constant).
  addConversion([context](TensorMapType) {
    return LLVM::LLVMPointerType::get(context);
  });
  addConversion(
      [this](RankedTensorType type,
             SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
        FailureOr<Distribution> dist = getDistribution(type);
        if (failed(dist))
          return failure();
        Type element = convertType(type.getElementType());
        if (!element)
          return failure();
        results.append(dist->numElements(), element);
        return success();
      });
  // A tcgen05 accumulator lives in tensor memory; a thread holds only
  // whether it has been written yet (see Tcgen05Lowering.cpp).
  addConversion([context](RankedTensorType type, SmallVectorImpl<Type> &results)
                    -> std::optional<LogicalResult> {
    if (!isTensorMemoryLayout(type.getEncoding()))
      return std::nullopt;
    results.push_back(IntegerType::get(context, 1));
    return success();
  });
}

namespace {

bool hasTileTypes(Operation *op) {
  auto isTile = [](Type t) {
    return isa<RankedTensorType, PtrType, ViewType, SharedBufferType,
               TensorMapType>(t);
  };
  return llvm::any_of(op->getOperandTypes(), isTile) ||
         llvm::any_of(op->getResultTypes(), isTile);
}

/// Only kernels are lowered (there are no device-side calls); a function
/// without `tile.kernel` would otherwise fail as "failed to legalize
/// operation 'func.func'", which does not say what to change.
LogicalResult checkFunctionsAreKernels(ModuleOp module) {
  WalkResult result = module.walk([](func::FuncOp func) {
    if (isKernel(func))
      return WalkResult::advance();
    func.emitError() << "function '" << func.getSymName()
                     << "' is not a kernel: add the `"
                     << TileDialect::kKernelAttrName
                     << "` attribute (`func.func @" << func.getSymName()
                     << "(...) attributes {" << TileDialect::kKernelAttrName
                     << "}`); tilec lowers only kernels";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Every tile must have a layout the register lowering understands; say so
/// at the first op that produces one that does not.
LogicalResult checkLayoutsAssigned(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor && !isTensorMemoryLayout(tensor.getEncoding()) &&
          failed(getDistribution(tensor))) {
        op->emitOpError("tile has no register layout; run "
                        "tile-assign-layouts first");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// A program may write a peer's shared memory (tile.store_shared with a
/// rank) only once the peer has started, and must not exit while a peer may
/// still write its own: kernels that store to peers get a cluster barrier
/// at entry and before every return. On targets without clusters the
/// barrier is a CTA barrier, which costs little.
void guardRemoteSharedStores(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    bool remote = false;
    func.walk([&](StoreSharedOp store) {
      remote |= static_cast<bool>(store.getRank());
    });
    if (!remote || func.getBody().empty())
      return;
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    ClusterBarrierOp::create(b, func.getLoc());
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      ClusterBarrierOp::create(b, ret.getLoc());
    });
  });
}

/// Declares the dynamic shared-memory array kernels address scratch in,
/// 1024-byte aligned: the unit of the 128-byte swizzle pattern that wgmma
/// shared-memory descriptors (and TMA) assume starts at such an address.
void declareSharedMemory(ModuleOp module) {
  if (module.lookupSymbol(kSharedMemorySymbol))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         LLVM::Linkage::External, kSharedMemorySymbol,
                         Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
}

/// Drops a CTA barrier that follows another in the same block with nothing
/// but side-effect-free ops between them: the second orders nothing the
/// first did not. Ops whose scratch traffic needs a barrier on each side
/// often meet this way (a fence, then an atomic's election).
void removeRedundantBarriers(ModuleOp module) {
  SmallVector<Operation *> redundant;
  module.walk([&](Block *block) {
    Operation *previous = nullptr;
    for (Operation &op : *block) {
      if (isa<NVVM::Barrier0Op>(op)) {
        if (previous)
          redundant.push_back(&op);
        previous = &op;
        continue;
      }
      if (!isMemoryEffectFree(&op) || op.getNumRegions() != 0)
        previous = nullptr;
    }
  });
  for (Operation *op : redundant)
    op->erase();
}

/// Ops whose lowering is TMA, mbarrier transactions or setmaxnreg (sm_90
/// and newer) are an error on a target without them: the NVPTX backend
/// would abort on their intrinsics instead.
LogicalResult checkTargetHasTma(ModuleOp module, StringRef target) {
  std::optional<TargetInfo> info = TargetInfo::get(target);
  if (!info || info->hasTma())
    return success();
  WalkResult result = module.walk([&](Operation *op) {
    if (!isa<MakeTensorMapOp, MBarrierInitOp, MBarrierExpectOp, MBarrierWaitOp,
             MBarrierArriveOp, TmaCopyOp, StoreBoxesOp, TmaStoreOp,
             TmaStoreWaitOp, WarpSpecializeOp>(op))
      return WalkResult::advance();
    op->emitOpError() << "needs a target with TMA and mbarrier transactions "
                         "(sm_90a, sm_100a), not '"
                      << target << "'";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

struct ConvertTileToLLVMPass
    : public tile::impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  using ConvertTileToLLVMBase::ConvertTileToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (!isSupportedTarget(target)) {
      module.emitError() << "unknown target '" << target
                         << "'; supported targets: "
                         << llvm::join(getSupportedTargets(), ", ");
      return signalPassFailure();
    }
    if (asyncCopyMinBytes != 4 && asyncCopyMinBytes != 8 &&
        asyncCopyMinBytes != 16) {
      emitError(module.getLoc())
          << "async-copy-min-bytes is " << unsigned(asyncCopyMinBytes)
          << "; cp.async copies 16, 8 or 4 bytes";
      return signalPassFailure();
    }
    // The lowerings read every index of a list as an operand.
    materializeIndexLists(module);
    if (failed(checkFunctionsAreKernels(module)) ||
        failed(checkTargetHasTma(module, target)) ||
        failed(checkLayoutsAssigned(module)) ||
        failed(checkTensorMapSources(module)))
      return signalPassFailure();
    declareSharedMemory(module);
    guardRemoteSharedStores(module);
    lowerWarpSpecialize(module);
    if (failed(allocateTensorMemory(module)))
      return signalPassFailure();

    TileTypeConverter converter(context);
    RewritePatternSet patterns(context);
    ConversionTarget conversionTarget(*context);
    conversionTarget.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    conversionTarget.addIllegalDialect<TileDialect>();
    conversionTarget.addIllegalOp<func::FuncOp, func::ReturnOp>();
    conversionTarget
        .addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
            [](Operation *op) { return !hasTileTypes(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         conversionTarget);
    populateKernelPatterns(converter, patterns, target);
    populateMemoryOpPatterns(converter, patterns);
    populateGatherPatterns(converter, patterns);
    populateRegisterOpPatterns(converter, patterns);
    populateScanPatterns(converter, patterns);
    populateSortPatterns(converter, patterns);
    populateHistogramPatterns(converter, patterns);
    populateScatterPatterns(converter, patterns);
    populateAtomicPatterns(converter, patterns);
    populateClusterPatterns(converter, patterns, target);
    populateMmaSyncPatterns(converter, patterns, target);
    populateWgmmaPatterns(converter, patterns, target);
    populateTcgen05Patterns(converter, patterns);
    populateAsyncCopyPatterns(converter, patterns, target, asyncCopyMinBytes);
    populateTmaPatterns(converter, patterns);
    populateTmaStorePatterns(converter, patterns);
    if (failed(applyPartialConversion(module, conversionTarget,
                                      std::move(patterns))))
      return signalPassFailure();
    removeRedundantBarriers(module);
    retargetConsumerBarriers(module);
  }
};
} // namespace
