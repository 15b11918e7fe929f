//===- InterpretTileOps.cpp - interpret the other tile ops ----------------===//
//
// The interpreter's tile ops other than memory accesses: program and grid
// queries, synchronization (a no-op, programs run one at a time), tile
// construction and shape, reductions, scans, sorts, histograms, scatters
// into tiles and dots. Tile ops it does not model stop the launch.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/ProgramRunner.h"

#include "dialect/TileDialect.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace mlir;
using namespace mlir::tile;

namespace tilec::cpu::detail {

bool ProgramRunner::runTileOp(Operation *op, bool &handled) {
  handled = true;
  Type resultType = op->getNumResults() ? op->getResult(0).getType() : Type();
  Type elem = resultType ? elementOf(resultType) : Type();

  if (auto p = dyn_cast<ProgramIdOp>(op)) {
    Tile t;
    t.i = {int64_t(pid[unsigned(p.getDim())])};
    set(op->getResult(0), std::move(t));
    return true;
  }
  if (auto p = dyn_cast<NumProgramsOp>(op)) {
    uint32_t dims[3] = {grid.x, grid.y, grid.z};
    Tile t;
    t.i = {int64_t(dims[unsigned(p.getDim())])};
    set(op->getResult(0), std::move(t));
    return true;
  }
  if (isa<ClusterSizeOp, ClusterRankOp>(op)) {
    Tile t;
    t.i = {isa<ClusterSizeOp>(op) ? 1 : 0};
    set(op->getResult(0), std::move(t));
    return true;
  }
  if (isa<ClusterBarrierOp, BarrierOp, FenceOp>(op))
    return true; // programs run one at a time, in full
  if (isa<ParamOp>(op))
    return fail(op, "template parameter left after tile-instantiate");

  if (auto splat = dyn_cast<SplatOp>(op)) {
    const Tile &s = tile(splat.getSrc());
    Tile r = makeTile(resultType);
    if (!r.f.empty())
      std::fill(r.f.begin(), r.f.end(), s.f[0]);
    else
      std::fill(r.i.begin(), r.i.end(), s.i[0]);
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (isa<IotaOp>(op)) {
    Tile r = makeTile(resultType);
    std::iota(r.i.begin(), r.i.end(), int64_t(0));
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (isa<ExpandDimsOp, ConvertLayoutOp, DotWaitOp>(op)) {
    Tile r = tile(op->getOperand(0));
    r.shape.assign(cast<RankedTensorType>(resultType).getShape().begin(),
                   cast<RankedTensorType>(resultType).getShape().end());
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    const Tile &src = tile(broadcast.getSrc());
    Tile r = makeTile(resultType);
    SmallVector<int64_t> srcShape(src.shape);
    if (auto along = broadcast.getAlong())
      srcShape.insert(srcShape.begin() + *along, 1);
    SmallVector<int64_t> srcStrides = rowMajorStrides(srcShape), coords;
    for (int64_t k = 0, n = r.size(); k < n; ++k) {
      unflatten(k, r.shape, coords);
      int64_t from = 0;
      for (size_t d = 0; d < coords.size(); ++d)
        if (srcShape[d] != 1)
          from += coords[d] * srcStrides[d];
      if (!r.f.empty())
        r.f[k] = src.f[from];
      else
        r.i[k] = src.i[from];
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    const Tile &src = tile(transpose.getSrc());
    Tile r = makeTile(resultType);
    int64_t rows = src.shape[0], cols = src.shape[1];
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        if (!r.f.empty())
          r.f[j * rows + i] = src.f[i * cols + j];
        else
          r.i[j * rows + i] = src.i[i * cols + j];
      }
    set(op->getResult(0), std::move(r));
    return true;
  }

  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    const Tile &src = tile(reduce.getSrc());
    unsigned dim = reduce.getDim();
    CombineKind kind = reduce.getKind();
    Tile r = makeTile(resultType);
    int64_t extent = src.shape[dim];
    int64_t inner = 1;
    for (size_t d = dim + 1; d < src.shape.size(); ++d)
      inner *= src.shape[d];
    int64_t outer = src.size() / (extent * inner);
    bool isFloat = !src.f.empty();
    Type srcElem = elementOf(reduce.getSrc().getType());
    unsigned w = intWidth(srcElem);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        double accF = identityFloat(kind);
        int64_t accI = identityInt(kind);
        for (int64_t e = 0; e < extent; ++e) {
          int64_t k = (o * extent + e) * inner + in;
          if (isFloat)
            accF = combineFloat(kind, accF, src.f[k]);
          else
            accI = combineInt(kind, accI, src.i[k]);
        }
        if (isFloat)
          r.f[o * inner + in] = roundTo(accF, srcElem);
        else
          r.i[o * inner + in] = normalize(accI, w);
      }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto scan = dyn_cast<ScanOp>(op)) {
    const Tile &src = tile(scan.getSrc());
    unsigned dim = scan.getDim();
    CombineKind kind = scan.getKind();
    Tile r = src;
    int64_t extent = src.shape[dim];
    int64_t inner = 1;
    for (size_t d = dim + 1; d < src.shape.size(); ++d)
      inner *= src.shape[d];
    int64_t outer = src.size() / (extent * inner);
    bool isFloat = !src.f.empty();
    unsigned w = intWidth(elem);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        double accF = identityFloat(kind);
        int64_t accI = identityInt(kind);
        for (int64_t s = 0; s < extent; ++s) {
          int64_t e = scan.getReverse() ? extent - 1 - s : s;
          int64_t k = (o * extent + e) * inner + in;
          if (isFloat) {
            double next = roundTo(combineFloat(kind, accF, src.f[k]), elem);
            r.f[k] = scan.getExclusive() ? accF : next;
            accF = next;
          } else {
            int64_t next = normalize(combineInt(kind, accI, src.i[k]), w);
            r.i[k] = scan.getExclusive() ? normalize(accI, w) : next;
            accI = next;
          }
        }
      }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto sort = dyn_cast<SortOp>(op)) {
    const Tile &keys = tile(sort.getKeys());
    unsigned dim = sort.getDim();
    bool descending = sort.getDescending();
    int64_t extent = keys.shape[dim];
    int64_t inner = 1;
    for (size_t d = dim + 1; d < keys.shape.size(); ++d)
      inner *= keys.shape[d];
    int64_t outer = keys.size() / (extent * inner);
    bool isFloat = !keys.f.empty();
    SmallVector<Tile> results;
    results.push_back(keys);
    for (Value payload : sort.getPayloads())
      results.push_back(tile(payload));
    SmallVector<const Tile *> sources;
    sources.push_back(&keys);
    for (Value payload : sort.getPayloads())
      sources.push_back(&tile(payload));
    std::vector<int64_t> order(extent);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t e) { return (o * extent + e) * inner + in; };
        std::iota(order.begin(), order.end(), int64_t(0));
        // NaN keys go last either way: the network's ordered compares leave
        // them unordered, and a strict weak order is needed here.
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          if (isFloat) {
            double x = keys.f[at(a)], y = keys.f[at(b)];
            if (std::isnan(x) || std::isnan(y))
              return !std::isnan(x) && std::isnan(y);
            return descending ? x > y : x < y;
          }
          int64_t x = keys.i[at(a)], y = keys.i[at(b)];
          return descending ? x > y : x < y;
        });
        for (size_t t = 0; t < results.size(); ++t)
          for (int64_t e = 0; e < extent; ++e) {
            if (!results[t].f.empty())
              results[t].f[at(e)] = sources[t]->f[at(order[e])];
            else
              results[t].i[at(e)] = sources[t]->i[at(order[e])];
          }
      }
    for (auto [result, value] : llvm::zip(op->getResults(), results))
      set(result, std::move(value));
    return true;
  }
  if (auto histogram = dyn_cast<HistogramOp>(op)) {
    const Tile &src = tile(histogram.getSrc());
    const Tile *mask =
        histogram.getMask() ? &tile(histogram.getMask()) : nullptr;
    Tile r = makeTile(resultType);
    int64_t bins = r.size();
    unsigned w = intWidth(elem);
    for (int64_t k = 0, n = src.size(); k < n; ++k) {
      int64_t bin = src.i[k];
      if ((mask && !mask->i[k]) || bin < 0 || bin >= bins)
        continue;
      r.i[bin] = normalize(r.i[bin] + 1, w);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto scatter = dyn_cast<ScatterOp>(op)) {
    const Tile &src = tile(scatter.getSrc());
    const Tile &indices = tile(scatter.getIndices());
    const Tile *mask = scatter.getMask() ? &tile(scatter.getMask()) : nullptr;
    Tile r = tile(scatter.getDest());
    int64_t size = r.size();
    for (int64_t k = 0, n = src.size(); k < n; ++k) {
      int64_t at = indices.i[k];
      if ((mask && !mask->i[k]) || at < 0 || at >= size)
        continue;
      if (!r.f.empty())
        r.f[at] = src.f[k];
      else
        r.i[at] = src.i[k];
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto dot = dyn_cast<DotOp>(op)) {
    const Tile &a = tile(dot.getA()), &b = tile(dot.getB()),
               &acc = tile(dot.getAcc());
    if (a.shape.size() != 2 || b.shape.size() != 2)
      return fail(op, "dots of rank other than 2 are not interpreted");
    int64_t m = a.shape[0], kk = a.shape[1], n = b.shape[1];
    bool intDot = a.f.empty();
    // f32 operands multiply as tf32, as on the tensor cores: staged from
    // registers they are rounded to nearest (cvt.rna.tf32.f32); read in
    // place from a ring stage the low mantissa bits are ignored.
    std::vector<double> ta, tb;
    auto toTf32 = [](const Tile &t, Value v, std::vector<double> &out) {
      if (auto transpose = v.getDefiningOp<TransposeOp>())
        v = transpose.getSrc();
      bool inPlace = v.getDefiningOp<LoadStageOp>() != nullptr;
      out.resize(t.f.size());
      for (size_t k = 0; k < t.f.size(); ++k)
        out[k] = tf32(t.f[k], inPlace);
      return &out;
    };
    bool f32 = elementOf(dot.getA().getType()).isF32();
    const std::vector<double> &fa = f32 ? *toTf32(a, dot.getA(), ta) : a.f;
    const std::vector<double> &fb = f32 ? *toTf32(b, dot.getB(), tb) : b.f;
    Tile r = acc;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (intDot) {
          int64_t sum = 0;
          for (int64_t k = 0; k < kk; ++k)
            sum += a.i[i * kk + k] * b.i[k * n + j];
          r.i[i * n + j] = normalize(acc.i[i * n + j] + sum, intWidth(elem));
        } else {
          double sum = 0;
          for (int64_t k = 0; k < kk; ++k)
            sum += fa[i * kk + k] * fb[k * n + j];
          r.f[i * n + j] = roundTo(acc.f[i * n + j] + sum, elem);
        }
      }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (op->getDialect() && op->getDialect()->getNamespace() == "tile")
    return fail(op, "not interpreted (TMA, mbarriers, warp specialization "
                    "and tensor memory are sm_90a/sm_100a lowering that "
                    "the interpreter does not model)");
  handled = false;
  return true;
}

} // namespace tilec::cpu::detail
