//===- MathToNVVM.cpp - fast math approximations -------------------------===//
//
// The NVPTX backend has no native exp/log; rather than linking the CUDA
// math library we lower to the hardware approximations (ex2.approx,
// lg2.approx, rsqrt.approx), which is what tile kernels want:
// softmax and attention only ever need ~2 ulp.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILEMATHTONVVM
#include "lowering/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

Value callIntrinsic(PatternRewriter &rewriter, Location loc, StringRef name,
                    Value x) {
  return LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getF32Type(),
                                       rewriter.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}

/// Rewrites `op` (one f32/f16/bf16 operand) as `post(intrinsic(pre(x)))`
/// computed in f32.
template <typename MathOp>
struct ApproxLowering : public OpRewritePattern<MathOp> {
  ApproxLowering(MLIRContext *context, StringRef intrinsic, double preScale,
                 double postScale)
      : OpRewritePattern<MathOp>(context), intrinsic(intrinsic.str()),
        preScale(preScale), postScale(postScale) {}

  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF32() && !type.isF16() && !type.isBF16())
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = op->getOperand(0);
    if (!type.isF32())
      x = arith::ExtFOp::create(rewriter, loc, f32, x);
    if (preScale != 1.0)
      x = arith::MulFOp::create(
          rewriter, loc, x,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF32FloatAttr(preScale)));
    Value y = callIntrinsic(rewriter, loc, intrinsic, x);
    if (postScale != 1.0)
      y = arith::MulFOp::create(
          rewriter, loc, y,
          arith::ConstantOp::create(rewriter, loc,
                                    rewriter.getF32FloatAttr(postScale)));
    if (!type.isF32())
      y = arith::TruncFOp::create(rewriter, loc, type, y);
    rewriter.replaceOp(op, y);
    return success();
  }

  std::string intrinsic;
  double preScale, postScale;
};

struct ConvertTileMathToNVVMPass
    : public tile::impl::ConvertTileMathToNVVMBase<ConvertTileMathToNVVMPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
    RewritePatternSet patterns(context);
    patterns.add<ApproxLowering<math::ExpOp>>(
        context, "llvm.nvvm.ex2.approx.ftz.f32", log2e, 1.0);
    patterns.add<ApproxLowering<math::Exp2Op>>(
        context, "llvm.nvvm.ex2.approx.ftz.f32", 1.0, 1.0);
    patterns.add<ApproxLowering<math::LogOp>>(
        context, "llvm.nvvm.lg2.approx.ftz.f", 1.0, ln2);
    patterns.add<ApproxLowering<math::Log2Op>>(
        context, "llvm.nvvm.lg2.approx.ftz.f", 1.0, 1.0);
    patterns.add<ApproxLowering<math::RsqrtOp>>(
        context, "llvm.nvvm.rsqrt.approx.ftz.f", 1.0, 1.0);
    // One walk: the patterns make no ops they match, and the module, all
    // of it lowered by now, is too large to re-scan and fold greedily.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
