//===- DependentLaunch.cpp - programmatic dependent launch ---------------===//
//
// Kernels on sm_90+ that ask for it (tile.dependent_launch = true, or every
// kernel with the `all` option) begin with griddepcontrol.wait then, when
// their grid has at most one program per SM,
// griddepcontrol.launch_dependents, and their metadata says so
// (`dependent_launch`), so that the runtime may launch them with
// programmatic stream serialization: the next kernel of a chain (top-k's
// passes on a few rows) is scheduled while this one runs, and waits at its
// entry for this one to finish. Not every kernel by default: each program
// pays for the two instructions (on an H100 a one-warp program over 512
// columns took a quarter longer with them, launched plainly or not).
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEDEPENDENTLAUNCH
#include "lowering/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
constexpr StringLiteral kDependentLaunchKey = "dependent_launch";

struct TileDependentLaunch
    : public tile::impl::TileDependentLaunchBase<TileDependentLaunch> {
  using TileDependentLaunchBase::TileDependentLaunchBase;

  void runOnOperation() override {
    std::optional<tile::TargetInfo> info = tile::TargetInfo::get(target);
    if (!info) {
      getOperation().emitError() << "unknown target '" << target << "'";
      return signalPassFailure();
    }
    if (!info->hasDependentLaunch())
      return;
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto meta = func->getAttrOfType<DictionaryAttr>(
          tile::TileDialect::kMetadataAttrName);
      if (!meta || func.isExternal() || meta.contains(kDependentLaunchKey))
        return;
      // The kernel's own choice, else the pass option's.
      auto choice = func->getAttrOfType<BoolAttr>(
          tile::TileDialect::kDependentLaunchAttrName);
      if (!(choice ? choice.getValue() : all))
        return;
      // The wait first: nothing this kernel reads or writes may be touched
      // before the grids ahead of it are done.
      OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      NVVM::GriddepcontrolOp::create(builder, loc,
                                     NVVM::GridDepActionKind::wait);
      // Then the grid after it may be scheduled, but only from a grid of
      // at most one program per SM: such a grid leaves SMs free, so the
      // next one's programs spread over them. Behind a grid that fills
      // the GPU they would be placed on the few SMs with room at that
      // moment and stay packed there (on an H100, 64 rows of top-k's sort
      // ran 29% slower so); they then launch when this grid ends, as
      // without the trigger.
      Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
      auto widened = [&](Value v) {
        return LLVM::ZExtOp::create(builder, loc, i64, v).getResult();
      };
      Value gridX = widened(NVVM::GridDimXOp::create(builder, loc, i32));
      Value gridY = widened(NVVM::GridDimYOp::create(builder, loc, i32));
      Value gridZ = widened(NVVM::GridDimZOp::create(builder, loc, i32));
      Value programs = LLVM::MulOp::create(
          builder, loc, LLVM::MulOp::create(builder, loc, gridX, gridY), gridZ);
      Value sms = widened(NVVM::SmDimOp::create(builder, loc, i32));
      Value fits = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ule,
                                        programs, sms);
      auto trigger =
          scf::IfOp::create(builder, loc, fits, /*withElseRegion=*/false);
      OpBuilder then = trigger.getThenBodyBuilder();
      NVVM::GriddepcontrolOp::create(
          then, loc, NVVM::GridDepActionKind::launch_dependents);
      NamedAttrList fields(meta);
      fields.set(kDependentLaunchKey, builder.getBoolAttr(true));
      func->setAttr(tile::TileDialect::kMetadataAttrName,
                    fields.getDictionary(&getContext()));
    });
  }
};
} // namespace
