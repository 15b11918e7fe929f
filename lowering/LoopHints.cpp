//===- LoopHints.cpp - tile loop hints to LLVM loop metadata -------------===//
//
// `tile.no_hoist` on an scf.for becomes `llvm.licm.disable` on the LLVM
// loop: first an `llvm.loop_annotation` on the scf.for (which the scf and
// cf conversions carry to the loop's back edge), then, once branches are
// LLVM ops, the branch's own `loop_annotation`, which translation emits as
// `!llvm.loop` metadata.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "dialect/TileDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_LOWERTILELOOPHINTS
#define GEN_PASS_DEF_ATTACHLOOPANNOTATIONS
#include "lowering/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
constexpr StringLiteral kLoopAnnotation = "llvm.loop_annotation";

struct LowerTileLoopHints
    : public tile::impl::LowerTileLoopHintsBase<LowerTileLoopHints> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->removeAttr(tile::TileDialect::kNoHoistAttrName))
        return;
      auto licm = LLVM::LoopLICMAttr::get(
          context, /*disable=*/BoolAttr::get(context, true),
          /*versioningDisable=*/BoolAttr::get(context, true));
      auto annotation = LLVM::LoopAnnotationAttr::get(
          context, /*disableNonforced=*/{}, /*vectorize=*/{},
          /*interleave=*/{}, /*unroll=*/{}, /*unrollAndJam=*/{}, licm,
          /*distribute=*/{}, /*pipeline=*/{}, /*peeled=*/{},
          /*unswitch=*/{}, /*mustProgress=*/{}, /*isVectorized=*/{},
          /*startLoc=*/{}, /*endLoc=*/{}, /*parallelAccesses=*/{});
      loop->setAttr(kLoopAnnotation, annotation);
    });
  }
};

struct AttachLoopAnnotations
    : public tile::impl::AttachLoopAnnotationsBase<AttachLoopAnnotations> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      auto annotation =
          op->getAttrOfType<LLVM::LoopAnnotationAttr>(kLoopAnnotation);
      if (!annotation)
        return;
      if (auto br = dyn_cast<LLVM::BrOp>(op))
        br.setLoopAnnotationAttr(annotation);
      else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op))
        condBr.setLoopAnnotationAttr(annotation);
      else
        return;
      op->removeAttr(kLoopAnnotation);
    });
  }
};
} // namespace
