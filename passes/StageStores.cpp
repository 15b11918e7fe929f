//===- StageStores.cpp - epilogue tiles out through shared memory --------===//
//
// An accumulator's fragments give each thread two adjacent columns of
// scattered rows: stored straight to global memory, every warp writes
// 8-byte pieces of eight rows and bounds-checks each. Written into shared
// memory instead (where any order is cheap), the tile leaves in whole
// boxes through TMA, which clips at the view's edges and runs on while the
// threads go on to their next tile.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/SharedMemory.h"

#include "dialect/TargetInfo.h"
#include "dialect/TileLayouts.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESTAGESTORES
#include "passes/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Shared memory one staged store may take at once: its columns go out in
/// chunks of at most this many bytes, one after the other.
constexpr int64_t kChunkBytes = 32 * 1024;

/// How `store` is staged: `boxes` boxes of `rows` x `width` per chunk,
/// `chunks` chunks; nothing when it is not a store to stage.
struct StagedStore {
  int64_t rows = 0, width = 0, boxes = 0, chunks = 0;
};

/// Whether `layout` is the one tcgen05 accumulators of `func` are read into
/// registers in (getTmemLoadLayout): a row per thread, a run of columns
/// each.
bool isTensorMemoryReadLayout(Attribute layout, func::FuncOp func) {
  bool found = false;
  func.walk([&](ConvertLayoutOp convert) {
    auto src = cast<RankedTensorType>(convert.getSrc().getType());
    if (isTensorMemoryLayout(src.getEncoding()) &&
        cast<RankedTensorType>(convert.getResult().getType()).getEncoding() ==
            layout)
      found = true;
  });
  return found;
}

std::optional<StagedStore> planStore(StoreOp store, func::FuncOp func) {
  auto type = cast<RankedTensorType>(store.getValue().getType());
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(type.getEncoding());
  // Accumulator epilogues: wgmma's (version 3: rows scattered over lanes,
  // two columns per thread, 8-column repetitions that tile the boxes) and
  // tcgen05's as tcgen05.ld leaves them in registers (a row per lane, a
  // run of columns per thread; tile.store_boxes finds each run's box at
  // run time).
  bool wgmma = mma && mma.getVersion() == 3;
  if ((!wgmma && !isTensorMemoryReadLayout(type.getEncoding(), func)) ||
      type.getRank() != 2 || store.getMask() ||
      !isTensorMappable(store.getView()))
    return std::nullopt;
  int64_t bytes = getScratchElementBytes(type.getElementType());
  if (bytes != 2 && bytes != 4)
    return std::nullopt;
  StagedStore s;
  s.rows = type.getDimSize(0);
  s.width = 128 / bytes;
  int64_t columns = type.getDimSize(1);
  // TMA boxes hold at most 256 rows.
  if (s.rows > 256 || columns % s.width != 0)
    return std::nullopt;
  int64_t total = columns / s.width, boxBytes = s.rows * 128;
  s.boxes = std::max<int64_t>(1, std::min(total, kChunkBytes / boxBytes));
  while (total % s.boxes != 0)
    --s.boxes;
  s.chunks = total / s.boxes;
  return s;
}

/// The op of `func`'s body that holds `op`.
Operation *getTopLevelAncestor(Operation *op, func::FuncOp func) {
  while (op->getParentOp() != func)
    op = op->getParentOp();
  return op;
}

void stageStore(StoreOp store, const StagedStore &s, func::FuncOp func) {
  Location loc = store.getLoc();
  MLIRContext *context = store.getContext();
  auto type = cast<RankedTensorType>(store.getValue().getType());
  Type element = type.getElementType();
  auto swizzle = SwizzleAttr::get(context, 128, /*wgmmaWarps=*/0);
  // Set up once, before the loop over tiles if there is one.
  OpBuilder b(getTopLevelAncestor(store, func));
  Value buffer = AllocSharedOp::create(
      b, loc,
      SharedBufferType::get(context, {s.boxes, s.rows, s.width}, element,
                            swizzle),
      IntegerAttr());
  Value map = MakeTensorMapOp::create(
      b, loc, TensorMapType::get(context, {s.rows, s.width}, element, swizzle),
      store.getView());
  Value aligned = ViewAlignedOp::create(b, loc, ValueRange{store.getView()});

  b.setInsertionPoint(store);
  auto version = scf::IfOp::create(b, loc, TypeRange(), aligned,
                                   /*withElseRegion=*/true);
  b.setInsertionPointToStart(version.elseBlock());
  b.clone(*store);
  b.setInsertionPointToStart(version.thenBlock());
  Value row = store.getOffsets()[0], col = store.getOffsets()[1];
  for (int64_t chunk = 0; chunk < s.chunks; ++chunk) {
    int64_t first = chunk * s.boxes * s.width;
    // The previous copy out of the buffer has read it.
    TmaStoreWaitOp::create(b, loc, 0, /*read=*/true);
    BarrierOp::create(b, loc);
    StoreBoxesOp::create(b, loc, store.getValue(), buffer, first);
    BarrierOp::create(b, loc);
    Value at = arith::AddIOp::create(
        b, loc, col,
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(first)));
    TmaStoreOp::create(b, loc, map, ValueRange{row, at}, buffer);
  }
  store.erase();
}

struct StageStoresPass
    : public tile::impl::TileStageStoresBase<StageStoresPass> {
  using TileStageStoresBase::TileStageStoresBase;
  void runOnOperation() override {
    std::optional<TargetInfo> info = TargetInfo::get(target);
    if (!info || !info->hasTma())
      return;
    // A staged store's offsets become the TMA store's operands.
    materializeIndexLists(getOperation());
    getOperation().walk([&](func::FuncOp func) {
      if (!isKernel(func) || func.isExternal())
        return;
      SmallVector<std::pair<StoreOp, StagedStore>> stores;
      func.walk([&](StoreOp store) {
        if (std::optional<StagedStore> s = planStore(store, func))
          stores.push_back({store, *s});
      });
      if (stores.empty())
        return;
      for (auto &[store, s] : stores)
        stageStore(store, s, func);
      // Every copy has landed before the program ends.
      OpBuilder end(func.getBody().front().getTerminator());
      TmaStoreWaitOp::create(end, func.getLoc(), 0, /*read=*/false);
    });
  }
};
} // namespace
