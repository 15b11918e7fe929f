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
#include "dialect/TileLayouts.h"
#include "passes/SharedMemory.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace mlir;
using namespace mlir::tile;

namespace tilec::cpu::detail {

namespace {

/// A row-major tile as lines along `dim`: `outer` × `inner` lines of
/// `extent` elements, element e of line (o, in) at (o·extent + e)·inner +
/// in. What reductions, scans and sorts walk.
void linesAlong(ArrayRef<int64_t> shape, unsigned dim, int64_t &extent,
                int64_t &inner, int64_t &outer) {
  extent = shape[dim];
  inner = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d)
    inner *= shape[d];
  outer = 1;
  for (size_t d = 0; d < dim; ++d)
    outer *= shape[d];
}

/// How the register lowering spreads dimension `dim` of a tile over the
/// threads: `warps` warps of `lanes` lanes, each holding `perThread`
/// elements, `size` consecutive ones per repeat of the CTA's coverage.
/// Float reductions and scans combine in the order this gives.
struct DimThreads {
  int64_t size, lanes, warps, perThread;
  /// The coordinate of element `k` of lane `l` of warp `w`.
  int64_t coord(int64_t w, int64_t l, int64_t k) const {
    return (k / size) * size * lanes * warps + (w * lanes + l) * size +
           k % size;
  }
};

/// The threads of dimension `dim` of `type`; none where the tile has no
/// register layout. A tile narrower than the CTA along `dim` wraps: the
/// lowering combines each set of replicas apart (or with identities in
/// their place, which is exact), so its values are those of the first set
/// alone, the threads whose coordinates do not wrap.
std::optional<DimThreads> getDimThreads(Type type, unsigned dim) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  FailureOr<Distribution> dist = getDistribution(tensor);
  if (failed(dist))
    return std::nullopt;
  unsigned bd = dist->tileDims[dim];
  int64_t size = dist->blocked.getSizePerThread()[bd],
          lanes = dist->blocked.getThreadsPerWarp()[bd],
          warps = dist->blocked.getWarpsPerCTA()[bd];
  if (!dist->wraps(bd))
    return DimThreads{size, lanes, warps, dist->perThread[bd]};
  int64_t extent = dist->blockedShape[bd];
  if (size >= extent)
    return DimThreads{extent, 1, 1, extent};
  if (size * lanes >= extent)
    return DimThreads{size, extent / size, 1, size};
  return DimThreads{size, lanes, extent / (size * lanes), size};
}

/// A float reduction of `at(0 .. extent)` as ReduceLowering combines it:
/// each thread's elements in order, then lanes by XOR butterfly, then warps
/// in order; without a layout, in order. `combine` rounds.
template <typename At, typename Combine>
double reduceFloats(const std::optional<DimThreads> &t, int64_t extent, At at,
                    Combine combine) {
  if (!t) {
    double acc = at(0);
    for (int64_t e = 1; e < extent; ++e)
      acc = combine(acc, at(e));
    return acc;
  }
  double result = 0;
  std::vector<double> lanes(t->lanes), next(t->lanes);
  for (int64_t w = 0; w < t->warps; ++w) {
    for (int64_t l = 0; l < t->lanes; ++l) {
      double acc = at(t->coord(w, l, 0));
      for (int64_t k = 1; k < t->perThread; ++k)
        acc = combine(acc, at(t->coord(w, l, k)));
      lanes[l] = acc;
    }
    for (int64_t m = 1; m < t->lanes; m *= 2) {
      for (int64_t l = 0; l < t->lanes; ++l)
        next[l] = combine(lanes[l], lanes[l ^ m]);
      std::swap(lanes, next);
    }
    result = w == 0 ? lanes[0] : combine(result, lanes[0]);
  }
  return result;
}

/// A float scan of `at(0 .. extent)` into `put(e, value)` as ScanLowering
/// computes it: each thread's runs in order, run totals across lanes by
/// Hillis-Steele steps, then the totals of the (repeat, warp) chunks
/// before each run; every combine with an identity that the lowering
/// makes. Without a layout, in order.
template <typename At, typename Put, typename Combine>
void scanFloats(const std::optional<DimThreads> &t, int64_t extent,
                bool reverse, bool exclusive, double identity, At at, Put put,
                Combine combine) {
  if (!t) {
    double acc = identity;
    for (int64_t i = 0; i < extent; ++i) {
      int64_t e = reverse ? extent - 1 - i : i;
      double next = combine(acc, at(e));
      put(e, exclusive ? acc : next);
      acc = next;
    }
    return;
  }
  int64_t size = t->size, lanes = t->lanes, warps = t->warps;
  int64_t reps = t->perThread / size, chunks = reps * warps;
  // Per (warp, rep, lane): in-thread prefixes and the run's total.
  auto run = [&](int64_t w, int64_t q, int64_t l) {
    return (w * reps + q) * lanes + l;
  };
  std::vector<double> incl(warps * reps * lanes * size), excl(incl.size()),
      total(warps * reps * lanes);
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t q = 0; q < reps; ++q)
      for (int64_t l = 0; l < lanes; ++l) {
        int64_t r = run(w, q, l);
        std::optional<double> acc;
        for (int64_t i = 0; i < size; ++i) {
          int64_t s = reverse ? size - 1 - i : i;
          double v = at(t->coord(w, l, q * size + s));
          excl[r * size + s] = acc ? *acc : identity;
          acc = acc ? combine(*acc, v) : v;
          incl[r * size + s] = *acc;
        }
        total[r] = *acc;
      }
  // Across lanes: inclusive prefixes of the run totals, the lane-exclusive
  // ones and each warp's total (its last lane's, in scan order).
  std::vector<double> laneExcl(total.size(), identity), warpTotal(warps * reps);
  std::vector<double> x(lanes), y(lanes);
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t q = 0; q < reps; ++q) {
      for (int64_t l = 0; l < lanes; ++l)
        x[l] = total[run(w, q, l)];
      for (int64_t off = 1; off < lanes; off *= 2) {
        for (int64_t l = 0; l < lanes; ++l) {
          int64_t from = reverse ? l + off : l - off;
          y[l] = from >= 0 && from < lanes ? combine(x[from], x[l]) : x[l];
        }
        std::swap(x, y);
      }
      for (int64_t l = 0; l < lanes; ++l) {
        int64_t from = reverse ? l + 1 : l - 1;
        if (from >= 0 && from < lanes)
          laneExcl[run(w, q, l)] = x[from];
      }
      warpTotal[w * reps + q] = x[reverse ? 0 : lanes - 1];
    }
  // The combined totals of the chunks before each run.
  std::vector<double> chunkPrefix(warps * reps, identity);
  if (chunks > 1) {
    double carry = identity;
    for (int64_t i = 0; i < reps; ++i) {
      int64_t q = reverse ? reps - 1 - i : i;
      std::vector<double> before(warps, identity);
      std::optional<double> sum;
      for (int64_t v = 0; v < warps; ++v) {
        double value = warpTotal[v * reps + q];
        sum = sum ? combine(*sum, value) : value;
        if (warps == 1)
          continue;
        for (int64_t w = 0; w < warps; ++w)
          if (reverse ? w < v : w > v)
            before[w] = combine(before[w], value);
      }
      for (int64_t w = 0; w < warps; ++w)
        chunkPrefix[w * reps + q] = combine(carry, before[w]);
      carry = combine(carry, *sum);
    }
  }
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t q = 0; q < reps; ++q)
      for (int64_t l = 0; l < lanes; ++l) {
        int64_t r = run(w, q, l);
        double offset = laneExcl[r];
        if (chunks > 1)
          offset = combine(chunkPrefix[w * reps + q], offset);
        for (int64_t s = 0; s < size; ++s)
          put(t->coord(w, l, q * size + s),
              combine(offset,
                      exclusive ? excl[r * size + s] : incl[r * size + s]));
      }
}

/// The permutation SortLowering's bitonic network applies to one line of
/// keys, `before(a, b)` saying whether the key at position a goes strictly
/// before the one at b (ordered compares: a NaN goes before nothing and
/// nothing before it, so it stays where the network leaves it). The
/// register networks merge sorted runs from `runs` on; the scratch network
/// sorts from scratch with alternating directions.
template <typename Before>
void sortNetwork(SortNetwork network, int64_t extent, int64_t runs,
                 std::vector<int64_t> &order, Before before) {
  auto exchange = [&](int64_t a, int64_t b, bool swap) {
    if (swap)
      std::swap(order[a], order[b]);
  };
  if (network != SortNetwork::Scratch) {
    // Each pair's lower position takes the key that goes first.
    auto step = [&](int64_t mask, int64_t high) {
      for (int64_t a = 0; a < extent; ++a)
        if (!(a & high)) {
          int64_t b = a ^ mask;
          exchange(a, b, before(order[b], order[a]));
        }
    };
    for (int64_t k = 2 * runs; k <= extent; k *= 2) {
      step(k - 1, k / 2);
      for (int64_t j = k / 4; j >= 1; j /= 2)
        step(j, j);
    }
    return;
  }
  for (int64_t k = 2; k <= extent; k *= 2)
    for (int64_t j = k / 2; j >= 1; j /= 2)
      for (int64_t a = 0; a < extent; ++a)
        if (!(a & j)) {
          int64_t b = a + j;
          bool finalDirection = !(a & k);
          exchange(a, b,
                   finalDirection ? before(order[b], order[a])
                                  : before(order[a], order[b]));
        }
}

} // namespace

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
    for (int64_t k = 0, n = r.size(); k < n; ++k)
      r.i[k] = normalize(k, intWidth(elem));
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
      copyElement(r, k, src, from);
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
        copyElement(r, j * rows + i, src, i * cols + j);
      }
    set(op->getResult(0), std::move(r));
    return true;
  }

  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    const Tile &src = tile(reduce.getSrc());
    unsigned dim = reduce.getDim();
    CombineKind kind = reduce.getKind();
    Tile r = makeTile(resultType);
    int64_t extent, inner, outer;
    linesAlong(src.shape, dim, extent, inner, outer);
    bool isFloat = !src.f.empty();
    Type srcElem = elementOf(reduce.getSrc().getType());
    unsigned w = intWidth(srcElem);
    // Floats round after every combine, in the lowering's order; the
    // integer kinds do not depend on the order. Neither starts from the
    // identity (a sum of -0s is -0).
    std::optional<DimThreads> threads =
        getDimThreads(reduce.getSrc().getType(), dim);
    auto combineF = [&](double a, double b) {
      return roundTo(combineFloat(kind, a, b), srcElem);
    };
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t e) { return (o * extent + e) * inner + in; };
        if (isFloat) {
          r.f[o * inner + in] = reduceFloats(
              threads, extent, [&](int64_t e) { return src.f[at(e)]; },
              combineF);
          continue;
        }
        int64_t acc = src.i[at(0)];
        for (int64_t e = 1; e < extent; ++e)
          acc = combineInt(kind, acc, src.i[at(e)]);
        r.i[o * inner + in] = normalize(acc, w);
      }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto scan = dyn_cast<ScanOp>(op)) {
    const Tile &src = tile(scan.getSrc());
    unsigned dim = scan.getDim();
    CombineKind kind = scan.getKind();
    Tile r = src;
    int64_t extent, inner, outer;
    linesAlong(src.shape, dim, extent, inner, outer);
    bool isFloat = !src.f.empty();
    unsigned w = intWidth(elem);
    std::optional<DimThreads> threads =
        getDimThreads(scan.getSrc().getType(), dim);
    auto combineF = [&](double a, double b) {
      return roundTo(combineFloat(kind, a, b), elem);
    };
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t e) { return (o * extent + e) * inner + in; };
        if (isFloat) {
          scanFloats(
              threads, extent, scan.getReverse(), scan.getExclusive(),
              identityFloat(kind), [&](int64_t e) { return src.f[at(e)]; },
              [&](int64_t e, double v) { r.f[at(e)] = v; }, combineF);
          continue;
        }
        int64_t acc = identityInt(kind);
        for (int64_t s = 0; s < extent; ++s) {
          int64_t e = scan.getReverse() ? extent - 1 - s : s;
          int64_t next = normalize(combineInt(kind, acc, src.i[at(e)]), w);
          r.i[at(e)] = scan.getExclusive() ? normalize(acc, w) : next;
          acc = next;
        }
      }
    if (Value total = scan.getTotal()) {
      // The combine of each line (the verifier allows only combines whose
      // result does not depend on their order).
      Tile t = makeTile(total.getType());
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
          auto at = [&](int64_t e) { return (o * extent + e) * inner + in; };
          if (isFloat) {
            double acc = src.f[at(0)];
            for (int64_t e = 1; e < extent; ++e)
              acc = combineF(acc, src.f[at(e)]);
            t.f[o * inner + in] = acc;
            continue;
          }
          int64_t acc = src.i[at(0)];
          for (int64_t e = 1; e < extent; ++e)
            acc = combineInt(kind, acc, src.i[at(e)]);
          t.i[o * inner + in] = normalize(acc, w);
        }
      set(total, std::move(t));
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto sort = dyn_cast<SortOp>(op)) {
    const Tile &keys = tile(sort.getKeys());
    unsigned dim = sort.getDim();
    bool descending = sort.getDescending();
    int64_t extent, inner, outer;
    linesAlong(keys.shape, dim, extent, inner, outer);
    bool isFloat = !keys.f.empty();
    SmallVector<Tile> results;
    results.push_back(keys);
    for (Value payload : sort.getPayloads())
      results.push_back(tile(payload));
    SmallVector<const Tile *> sources;
    sources.push_back(&keys);
    for (Value payload : sort.getPayloads())
      sources.push_back(&tile(payload));
    // The lowering's network, so that ties, NaNs and broken `runs`
    // promises come out as on the GPU.
    SortNetwork network = getSortNetwork(op);
    std::vector<int64_t> order(extent);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto at = [&](int64_t e) { return (o * extent + e) * inner + in; };
        std::iota(order.begin(), order.end(), int64_t(0));
        sortNetwork(network, extent, sort.getRuns(), order,
                    [&](int64_t a, int64_t b) {
                      if (isFloat) {
                        double x = keys.f[at(a)], y = keys.f[at(b)];
                        return descending ? x > y : x < y;
                      }
                      int64_t x = keys.i[at(a)], y = keys.i[at(b)];
                      return descending ? x > y : x < y;
                    });
        for (size_t t = 0; t < results.size(); ++t)
          for (int64_t e = 0; e < extent; ++e) {
            copyElement(results[t], at(e), *sources[t], at(order[e]));
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
    uint64_t bins = r.size();
    unsigned w = intWidth(elem),
             srcWidth = intWidth(histogram.getSrc().getType());
    for (int64_t k = 0, n = src.size(); k < n; ++k) {
      // Compared unsigned at the value's width, as the lowering does.
      uint64_t bin = zext(src.i[k], srcWidth);
      if ((mask && !mask->i[k]) || bin >= bins)
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
    uint64_t size = r.size();
    unsigned w = intWidth(scatter.getIndices().getType());
    for (int64_t k = 0, n = src.size(); k < n; ++k) {
      // Compared unsigned at the index's width, as the lowering does.
      uint64_t at = zext(indices.i[k], w);
      if ((mask && !mask->i[k]) || at >= size)
        continue;
      copyElement(r, at, src, k);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto dot = dyn_cast<DotOp>(op)) {
    const Tile &a = tile(dot.getA()), &b = tile(dot.getB()),
               &acc = tile(dot.getAcc());
    if (a.shape.size() != 2 || b.shape.size() != 2)
      return fail(op, "dots of rank other than 2 are not interpreted");
    // A stage operand is read here, in place: a copy issued into it since
    // its tile.load_stage would be read on a GPU.
    for (Value operand : {dot.getA(), dot.getB()}) {
      if (auto transpose = operand.getDefiningOp<TransposeOp>())
        operand = transpose.getSrc();
      auto read = stageReads.find(operand);
      if (read != stageReads.end() &&
          read->second.buffer->issuedCopies[read->second.stage] !=
              read->second.issuedCopies)
        return fail(op, "reads stage " + Twine(read->second.stage) +
                            " in place after a copy into it was issued "
                            "(since its tile.load_stage)");
    }
    int64_t m = a.shape[0], kk = a.shape[1], n = b.shape[1];
    bool intDot = a.f.empty();
    // f32 operands multiply as tf32, as on the tensor cores: staged from
    // registers they are rounded to nearest (cvt.rna.tf32.f32); read in
    // place from a ring stage the low mantissa bits are ignored.
    std::vector<double> ta, tb;
    // (B through a transpose too, as getOperandRows looks for it.)
    auto toTf32 = [](const Tile &t, Value v, bool isB,
                     std::vector<double> &out) {
      if (auto transpose = v.getDefiningOp<TransposeOp>(); transpose && isB)
        v = transpose.getSrc();
      bool inPlace = v.getDefiningOp<LoadStageOp>() != nullptr;
      out.resize(t.f.size());
      for (size_t k = 0; k < t.f.size(); ++k)
        out[k] = tf32(t.f[k], inPlace);
      return &out;
    };
    bool f32 = elementOf(dot.getA().getType()).isF32();
    const std::vector<double> &fa =
        f32 ? *toTf32(a, dot.getA(), false, ta) : a.f;
    const std::vector<double> &fb =
        f32 ? *toTf32(b, dot.getB(), true, tb) : b.f;
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
