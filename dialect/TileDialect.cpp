//===- TileDialect.cpp - tile dialect registration and helpers -----------===//

#include "dialect/TileDialect.h"

#include "dialect/TileLayouts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

#include "dialect/TileDialect.cpp.inc"

namespace {
/// Short aliases (`#blocked`, `#slice`, ...) keep laid-out IR readable.
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr))
      os << "blocked";
    else if (isa<SliceLayoutAttr>(attr))
      os << "slice";
    else if (isa<MmaLayoutAttr>(attr))
      os << "mma";
    else if (isa<DotOperandLayoutAttr>(attr))
      os << "dot_op";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialect/TileOps.cpp.inc"
      >();
}

bool mlir::tile::isTileType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  Attribute encoding = tensor.getEncoding();
  return !encoding || isa<LayoutAttrInterface, SymbolicShapeAttr>(encoding);
}

Type mlir::tile::getMaskType(Type tileType) {
  auto tensor = cast<RankedTensorType>(tileType);
  return RankedTensorType::get(tensor.getShape(),
                               IntegerType::get(tensor.getContext(), 1),
                               tensor.getEncoding());
}

LayoutAttrInterface mlir::tile::getLayout(Type tileType) {
  auto tensor = dyn_cast<RankedTensorType>(tileType);
  if (!tensor)
    return {};
  return dyn_cast_or_null<LayoutAttrInterface>(tensor.getEncoding());
}

bool mlir::tile::isKernel(Operation *func) {
  return func->hasAttr(TileDialect::kKernelAttrName) && !isTemplate(func);
}

bool mlir::tile::isTemplate(Operation *func) {
  return func->hasAttr(TileDialect::kParamsAttrName);
}

unsigned mlir::tile::getNumWarps(Operation *func) {
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(TileDialect::kNumWarpsAttrName))
    return attr.getInt();
  return 4;
}

static bool isKernelParamType(Type type) {
  return isa<PtrType>(type) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(64) || type.isF32() || type.isF64();
}

/// The lowering unrolls a tile into the registers of each thread. A thread
/// has 255 registers, so a larger share never stays in registers, and its
/// unrolled code takes LLVM from tens of seconds to many minutes (softmax
/// at 1024 elements per thread: 13 s; a 128x128 GEMM on one warp, 512 per
/// thread: 87 s): such a tile is reported as a mistake instead. The
/// kernels here hold at most 128 per thread.
static constexpr uint64_t kMaxElementsPerThread = 256;

/// The elements of `type` each thread of `numWarps` warps holds: exactly,
/// when its layout is one the lowering distributes, else as spread evenly
/// over the threads (what the default layouts do), saturating on overflow.
static uint64_t getElementsPerThread(RankedTensorType type, unsigned numWarps) {
  uint64_t count = 1;
  if (FailureOr<Distribution> dist = getDistribution(type); succeeded(dist)) {
    for (int64_t n : dist->perThread)
      count = llvm::SaturatingMultiply(count, uint64_t(n));
    return count;
  }
  for (int64_t extent : type.getShape())
    count =
        llvm::SaturatingMultiply(count, uint64_t(std::max<int64_t>(extent, 1)));
  uint64_t threads = uint64_t(numWarps) * 32;
  return count / threads + (count % threads != 0);
}

/// Checks one tile `op` makes in a kernel of `numWarps` warps (0 when the
/// kernel's tile.num_warps is malformed, which reports itself).
static LogicalResult verifyKernelTile(Operation *op, RankedTensorType type,
                                      unsigned numWarps) {
  // Layouts and the lowering split tiles in powers of two
  // (docs/writing-kernels.md); tile-assign-layouts built an invalid layout
  // for any other extent.
  for (int64_t extent : type.getShape())
    if (!llvm::isPowerOf2_64(extent))
      return op->emitOpError() << "result " << type << " has extent " << extent
                               << "; tile extents must be powers of two";
  if (!numWarps)
    return success();
  uint64_t perThread = getElementsPerThread(type, numWarps);
  if (perThread <= kMaxElementsPerThread)
    return success();
  return op->emitOpError() << "result " << type << " gives each thread "
                           << perThread << " elements; tiles are limited to "
                           << kMaxElementsPerThread
                           << " per thread: use smaller tiles or more warps "
                              "(tile.num_warps = "
                           << numWarps << ")";
}

/// Fails, at the op that makes it, on the first tile of `kernel` that the
/// lowering cannot hold in registers.
static LogicalResult verifyKernelTiles(func::FuncOp kernel) {
  unsigned numWarps = getNumWarps(kernel);
  if (numWarps < 1 || numWarps > 32)
    numWarps = 0;
  // Without tile.num_warps the count comes from the pipeline's option, so
  // only a written count is checked against written layouts.
  bool warpsWritten =
      numWarps && kernel->hasAttr(TileDialect::kNumWarpsAttrName);
  WalkResult result = kernel.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      // A layout over other warps than the kernel's leaves some of them
      // without a share (or names warps that do not exist), and conflicts
      // with the layouts the compiler builds for tile.num_warps.
      auto layout =
          tensor ? dyn_cast_or_null<LayoutAttrInterface>(tensor.getEncoding())
                 : nullptr;
      if (warpsWritten && layout && layout.getNumWarps() != numWarps) {
        op->emitOpError() << "result " << type << " has a layout over "
                          << layout.getNumWarps()
                          << " warps; the kernel has tile.num_warps = "
                          << numWarps;
        return WalkResult::interrupt();
      }
      if (tensor && tensor.hasStaticShape() &&
          failed(verifyKernelTile(op, tensor, numWarps)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Checks the `tile.*` attributes of kernel arguments.
LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kNoAliasAttrName) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func || regionIndex != 0 || !isa<UnitAttr>(attr.getValue()) ||
        !isa<PtrType>(func.getArgument(argIndex).getType()))
      return op->emitError()
             << "'" << name
             << "' is a unit attribute of a !tile.ptr function argument";
    return success();
  }
  if (name == kElementParamAttrName)
    return success(); // checked against tile.params with the template
  return op->emitError() << "unknown tile dialect argument attribute '" << name
                         << "'";
}

/// Checks that the attribute `name` is an integer in [lo, hi] on an OpT
/// (`where` names it in the message).
template <typename OpT>
static LogicalResult verifyIntegerAttrOn(Operation *op, StringRef name,
                                         Attribute attr, int64_t lo, int64_t hi,
                                         StringRef where) {
  auto value = dyn_cast<IntegerAttr>(attr);
  if (isa<OpT>(op) && value && value.getInt() >= lo && value.getInt() <= hi)
    return success();
  InFlightDiagnostic diag = op->emitError() << "'" << name << "' is ";
  if (hi == std::numeric_limits<int64_t>::max() && lo == 0)
    diag << "a non-negative integer";
  else
    diag << "an integer in [" << lo << ", " << hi << "]";
  return diag << " on " << where;
}

/// Checks the discardable `tile.*` attributes where they appear, so that a
/// malformed kernel signature is reported at its source location.
LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kKernelAttrName) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError()
             << "'" << name << "' may only be placed on a func.func";
    if (func.getFunctionType().getNumResults() != 0)
      return op->emitError()
             << "kernel @" << func.getSymName() << " must not return values";
    for (auto [index, type] :
         llvm::enumerate(func.getFunctionType().getInputs()))
      if (!isKernelParamType(type))
        return op->emitError()
               << "kernel parameter #" << index << " has type " << type
               << "; kernels take !tile.ptr<...>, i32, i64, f32 or f64";
    return verifyKernelTiles(func);
  }
  if (name == kNumWarpsAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 1 || value.getInt() > 32 ||
        !llvm::isPowerOf2_64(value.getInt()))
      return op->emitError()
             << "'" << name << "' must be a power of two in [1, 32]";
    return success();
  }
  if (name == kMaxRegistersAttrName) {
    // ptxas accepts .maxnreg in this range; fewer registers than 24 cannot
    // hold a thread's addressing state.
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 24 || value.getInt() > 255)
      return op->emitError()
             << "'" << name << "' must be an integer in [24, 255]";
    return success();
  }
  if (name == kArgNamesAttrName) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    auto func = dyn_cast<func::FuncOp>(op);
    if (!names || !func ||
        names.size() != func.getFunctionType().getNumInputs() ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError()
             << "'" << name << "' must list one string per kernel parameter";
    return success();
  }
  if (name == kLoadAheadAttrName)
    return verifyIntegerAttrOn<scf::ForOp>(op, name, attr.getValue(), 1, 8,
                                           "an scf.for");
  if (name == kNoHoistAttrName) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' is a unit attribute of scf.for";
    return success();
  }
  if (name == kParamsAttrName || name == kInstancesAttrName) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError()
             << "'" << name << "' may only be placed on a func.func";
    return name == kParamsAttrName
               ? verifyTemplateParams(func, attr.getValue())
               : verifyTemplateInstances(func, attr.getValue());
  }
  if (name == kSharedReserveAttrName)
    return verifyIntegerAttrOn<func::FuncOp>(
        op, name, attr.getValue(), 0, std::numeric_limits<int64_t>::max(),
        "a func.func");
  if (name == kNumStagesAttrName)
    return verifyIntegerAttrOn<func::FuncOp>(op, name, attr.getValue(), 1, 16,
                                             "a func.func");
  if (name == kPersistentAttrName)
    return verifyIntegerAttrOn<func::FuncOp>(op, name, attr.getValue(), 1,
                                             65535, "a func.func");
  if (name == kPersistentLoopAttrName) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' is a unit attribute of scf.for";
    return success();
  }
  if (name == kWarpSpecializeAttrName) {
    if (!isa<func::FuncOp>(op) || !isa<BoolAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a bool on a func.func";
    return success();
  }
  if (name == kSplitKAttrName) {
    if (!isa<func::FuncOp>(op) || !isa<BoolAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a bool on a func.func";
    return success();
  }
  if (name == kSplitKPartialBytesAttrName)
    return verifyIntegerAttrOn<FunctionOpInterface>(
        op, name, attr.getValue(), 0, std::numeric_limits<int64_t>::max(),
        "a kernel");
  // Kept on the lowered kernel too, where tile-dependent-launch reads it.
  if (name == kDependentLaunchAttrName) {
    if (!isa<FunctionOpInterface>(op) || !isa<BoolAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a bool on a kernel";
    return success();
  }
  // Kept on the lowered kernel too, where the tcgen05 lowering reads it.
  if (name == kCtaPairAttrName) {
    if (!isa<FunctionOpInterface>(op) || !isa<BoolAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a bool on a kernel";
    return success();
  }
  if (name == kMulticastAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    int64_t m = value ? value.getInt() : 0;
    if (!isa<FunctionOpInterface>(op) || !llvm::is_contained({2, 4, 8}, m))
      return op->emitError() << "'" << name << "' is 2, 4 or 8 on a kernel";
    if (getClusterPrograms(op) > 8)
      return op->emitError() << "'" << name << "' = " << m
                             << " makes clusters of " << getClusterPrograms(op)
                             << " programs with CTA pairs; at most 8 run";
    return success();
  }
  if (name == kTargetAttrName) {
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' is a string attribute of the module";
    return success();
  }
  if (name == kSharedBytesAttrName || name == kMetadataAttrName ||
      name == kTensorMapParamAttrName)
    return success();
  if (name == kElementParamAttrName) {
    // Checked against the template's parameters by tile.params.
    auto func = op->getParentOfType<func::FuncOp>();
    if (!func || !isTemplate(func))
      return op->emitError()
             << "'" << name << "' is only valid in a kernel template";
    return success();
  }
  return op->emitError() << "unknown tile dialect attribute '" << name << "'";
}

bool mlir::tile::isCtaPair(Operation *func) {
  auto pair = func->getAttrOfType<BoolAttr>(TileDialect::kCtaPairAttrName);
  return pair && pair.getValue();
}

int64_t mlir::tile::getMulticast(Operation *func) {
  auto m = func->getAttrOfType<IntegerAttr>(TileDialect::kMulticastAttrName);
  return m ? m.getInt() : 1;
}

int64_t mlir::tile::getClusterPrograms(Operation *func) {
  return (isCtaPair(func) ? 2 : 1) * getMulticast(func);
}
