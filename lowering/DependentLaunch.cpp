//===- DependentLaunch.cpp - programmatic dependent launch ---------------===//
//
// Kernels on sm_90+ begin with griddepcontrol.wait then
// griddepcontrol.launch_dependents, and their metadata says so
// (`dependent_launch`), so that the runtime may launch them with
// programmatic stream serialization: the next kernel of a chain (top-k's
// passes, a split GEMM's fix-up, KDA's phases) is scheduled while this
// one's last programs run, and waits at its entry for this one to finish.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileDialect.h"

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
      auto allowed = func->getAttrOfType<BoolAttr>(
          tile::TileDialect::kDependentLaunchAttrName);
      if (allowed && !allowed.getValue())
        return;
      // Both first: nothing this kernel reads or writes may be touched
      // before the grids ahead of it are done, and the grid after it may
      // take free SMs as soon as all of this grid's programs have started
      // (it waits at its own entry all the same).
      OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      NVVM::GriddepcontrolOp::create(builder, loc,
                                     NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(
          builder, loc, NVVM::GridDepActionKind::launch_dependents);
      NamedAttrList fields(meta);
      fields.set(kDependentLaunchKey, builder.getBoolAttr(true));
      func->setAttr(tile::TileDialect::kMetadataAttrName,
                    fields.getDictionary(&getContext()));
    });
  }
};
} // namespace
