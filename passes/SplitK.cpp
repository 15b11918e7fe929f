//===- SplitK.cpp - a dot's reduction loop split over programs ----------===//
//
// A product with few output tiles and a long reduction (a GEMM of 32 rows
// and 8192 columns) gives few programs long loops: most SMs idle, and
// each busy one is bound by the latency of its loop. Splitting the loop
// over grid z gives every program a share of the reduction; the programs
// of one output tile add their partial accumulators through global memory,
// and the last of them to arrive runs the kernel's epilogue on the sum.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelParams.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPLITK
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `value` is a tile of zeros (a splat constant or tile.splat).
bool isZeroTile(Value value) {
  if (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()))
    return true;
  if (auto splat = value.getDefiningOp<SplatOp>())
    return matchPattern(splat.getSrc(), m_AnyZeroFloat()) ||
           matchPattern(splat.getSrc(), m_Zero());
  return false;
}

/// The kernel's reduction loop: the one scf.for at the top level of its
/// body whose single carried value is the accumulator of a tile.dot,
/// starting from zero, in a body that writes no memory. Reports why not.
FailureOr<scf::ForOp> findReductionLoop(func::FuncOp func) {
  scf::ForOp found;
  for (auto loop : func.getBody().front().getOps<scf::ForOp>()) {
    if (loop.getNumRegionIterArgs() != 1)
      continue;
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    auto dot = yield.getOperand(0).getDefiningOp<DotOp>();
    if (!dot || dot.getAcc() != loop.getRegionIterArgs()[0])
      continue;
    if (found)
      return func.emitError("'")
             << TileDialect::kSplitKAttrName
             << "' needs one reduction loop; the kernel has several";
    found = loop;
  }
  if (!found)
    return func.emitError("'")
           << TileDialect::kSplitKAttrName
           << "' needs an scf.for at the kernel's top level that carries "
              "only a tile.dot accumulator";
  if (!isZeroTile(found.getInitArgs()[0]))
    return found.emitError("the accumulator of a loop split over programs "
                           "must start from zero (each program adds its "
                           "share)");
  if (!found.getLowerBound().getType().isInteger(32))
    return found.emitError("a loop split over programs needs i32 bounds");
  WalkResult writes = found.getBody()->walk([](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if ((!effects && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
         !isMemoryEffectFree(op)) ||
        (effects && effects.hasEffect<MemoryEffects::Write>()))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (writes.wasInterrupted())
    return found.emitError("a loop split over programs must not write memory");
  return found;
}

LogicalResult splitK(func::FuncOp func) {
  WalkResult usesZ = func.walk([](Operation *op) {
    if (auto id = dyn_cast<ProgramIdOp>(op); id && id.getDim() == GridDim::Z)
      return WalkResult::interrupt();
    if (auto n = dyn_cast<NumProgramsOp>(op); n && n.getDim() == GridDim::Z)
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (usesZ.wasInterrupted())
    return func.emitError("'")
           << TileDialect::kSplitKAttrName
           << "' splits the reduction over grid z, which the kernel uses";
  if (func->hasAttr(TileDialect::kPersistentAttrName))
    return func.emitError("'")
           << TileDialect::kSplitKAttrName << "' and '"
           << TileDialect::kPersistentAttrName << "' do not combine";
  FailureOr<scf::ForOp> found = findReductionLoop(func);
  if (failed(found))
    return failure();
  scf::ForOp loop = *found;
  auto accType = cast<RankedTensorType>(loop.getResult(0).getType());
  if (accType.getRank() != 2 || !accType.getElementType().isF32())
    return loop.emitError("a split accumulator must be a 2-D f32 tile");
  const int64_t rows = accType.getDimSize(0), cols = accType.getDimSize(1);

  MLIRContext *context = func.getContext();
  SmallVector<Value> scratch = appendKernelParams(
      func,
      {{PtrType::get(context, Float32Type::get(context)), "split_partials"},
       {PtrType::get(context, IntegerType::get(context, 32)),
        "split_tickets"}});
  Value partials = scratch[0], tickets = scratch[1];
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  auto ceilDiv = [&](Value a, Value d) -> Value {
    return arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, a,
                              arith::SubIOp::create(b, loc, d, constant(1))),
        d);
  };

  // Part z of Z takes `per` consecutive iterations of the loop's n.
  Value part = ProgramIdOp::create(b, loc, GridDim::Z);
  Value parts = NumProgramsOp::create(b, loc, GridDim::Z);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value span = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, ub, lb), constant(0));
  Value trips = ceilDiv(span, step);
  Value per = ceilDiv(trips, parts);
  Value perSpan = arith::MulIOp::create(b, loc, per, step);
  Value begin = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, part, perSpan));
  Value end = arith::MinSIOp::create(
      b, loc, ub, arith::AddIOp::create(b, loc, begin, perSpan));
  loop.getLowerBoundMutable().assign(begin);
  loop.getUpperBoundMutable().assign(end);

  // The epilogue: everything after the loop.
  Block &body = func.getBody().front();
  SmallVector<Operation *> epilogue;
  for (Operation *op = loop->getNextNode(); op != body.getTerminator();
       op = op->getNextNode())
    epilogue.push_back(op);

  // Output tile t = y * X + x of X * Y; its partial from part z is rows
  // (z * X * Y + t) * rows of a (Z * X * Y * rows) x cols f32 buffer.
  b.setInsertionPointAfter(loop);
  Value tileX = ProgramIdOp::create(b, loc, GridDim::X);
  Value tileY = ProgramIdOp::create(b, loc, GridDim::Y);
  Value tilesX = NumProgramsOp::create(b, loc, GridDim::X);
  Value tilesY = NumProgramsOp::create(b, loc, GridDim::Y);
  Value tiles = arith::MulIOp::create(b, loc, tilesX, tilesY);
  Value tile = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tileY, tilesX), tileX);
  auto view2d = ViewType::get(
      context, {ShapedType::kDynamic, ShapedType::kDynamic}, b.getF32Type());
  Value partialRows = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, parts, tiles), constant(rows));
  Value partialView = MakeViewOp::create(
      b, loc, view2d, partials, ValueRange{partialRows, constant(cols)},
      ValueRange{constant(cols), constant(1)}, DenseI64ArrayAttr(),
      DenseI64ArrayAttr());
  auto slotRow = [&](Value z) -> Value {
    return arith::MulIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, z, tiles),
                              tile),
        constant(rows));
  };
  StoreOp::create(b, loc, loop.getResult(0), partialView,
                  ValueRange{slotRow(part), constant(0)}, Value(),
                  DenseI64ArrayAttr());
  // Release the partial, then take the tile's ticket.
  FenceOp::create(b, loc);
  auto view1d = ViewType::get(context, {ShapedType::kDynamic}, i32);
  Value ticketView = MakeViewOp::create(
      b, loc, view1d, tickets, ValueRange{tiles}, ValueRange{constant(1)},
      DenseI64ArrayAttr(), DenseI64ArrayAttr());
  auto unit = RankedTensorType::get({1}, i32);
  Value at = SplatOp::create(b, loc, unit, tile);
  Value old = AtomicOp::create(b, loc, unit, CombineKind::Add, ticketView,
                               SplatOp::create(b, loc, unit, constant(1)),
                               ValueRange{at});
  Value ticket = ReduceOp::create(b, loc, i32, CombineKind::Max, old, 0u);
  Value last =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ticket,
                            arith::SubIOp::create(b, loc, parts, constant(1)));
  auto lastPart = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);

  // The last part acquires the others' partials, leaves the ticket at zero
  // for the next launch, and sums the partials in the order of z (the
  // same sum whichever part arrives last).
  b.setInsertionPointToStart(lastPart.thenBlock());
  FenceOp::create(b, loc);
  StoreOp::create(b, loc, SplatOp::create(b, loc, unit, constant(0)),
                  ticketView, ValueRange{tile}, Value(), DenseI64ArrayAttr());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  auto sum = scf::ForOp::create(b, loc, constant(0), parts, constant(1),
                                ValueRange{zero});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(sum.getBody());
    Value slot =
        LoadOp::create(b, loc, accType, partialView,
                       ValueRange{slotRow(sum.getInductionVar()), constant(0)},
                       Value(), TypedAttr(), DenseI64ArrayAttr());
    scf::YieldOp::create(
        b, loc,
        ValueRange{
            arith::AddFOp::create(b, loc, sum.getRegionIterArgs()[0], slot)
                .getResult()});
  }
  for (Operation *op : epilogue)
    op->moveBefore(lastPart.thenBlock()->getTerminator());
  loop.getResult(0).replaceUsesWithIf(sum.getResult(0), [&](OpOperand &use) {
    return lastPart->isProperAncestor(use.getOwner());
  });

  func->removeAttr(TileDialect::kSplitKAttrName);
  func->setAttr(TileDialect::kSplitKPartialBytesAttrName,
                b.getI64IntegerAttr(rows * cols * 4));
  return success();
}

struct SplitKPass : public tile::impl::TileSplitKBase<SplitKPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](func::FuncOp func) {
      auto split = func->getAttrOfType<BoolAttr>(TileDialect::kSplitKAttrName);
      if (!split || !isKernel(func) || func.isExternal())
        return;
      if (!split.getValue()) {
        func->removeAttr(TileDialect::kSplitKAttrName);
        return;
      }
      failed |= mlir::failed(splitK(func));
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
