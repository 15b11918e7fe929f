//===- InterpretMemoryOps.cpp - interpret the tile memory ops -------------===//
//
// The interpreter's ops on shared buffers, rings (cp.async copies, their
// groups and waits) and global memory (pointers, views, loads, stores,
// gathers, scatters and atomics). Every global access is checked against
// the memory map.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/ProgramRunner.h"

#include "dialect/TileDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::tile;

namespace tilec::cpu::detail {

bool ProgramRunner::checked(Operation *op, uint64_t addr, unsigned bytes) {
  if (memory.contains(addr, bytes))
    return true;
  return fail(op, "access of " + Twine(bytes) + " bytes at 0x" +
                      Twine::utohexstr(addr) + " outside every allocation");
}

bool ProgramRunner::initialized(Operation *op, uint64_t addr, unsigned bytes) {
  if (memory.written(addr, bytes))
    return true;
  return fail(op, "read of " + Twine(bytes) + " bytes at 0x" +
                      Twine::utohexstr(addr) +
                      " that nothing wrote (uninitialized memory)");
}

/// Whether `coord` lies in an extent `size` of a view, compared as the
/// lowering does: unsigned in 64 bits, so a negative coordinate is out and
/// a negative extent lets every other one in (to be caught by the
/// allocation check).
static bool inBounds(int64_t coord, int64_t size) {
  return uint64_t(coord) < uint64_t(size);
}

bool ProgramRunner::readView(Operation *op, const View &v,
                             ArrayRef<int64_t> coords, Tile &out, int64_t k,
                             bool padded, double padF, int64_t padI) {
  bool inside = coords.size() == v.sizes.size();
  int64_t offset = 0;
  for (size_t d = 0; inside && d < coords.size(); ++d) {
    if (!inBounds(coords[d], v.sizes[d]))
      inside = false;
    else
      offset += coords[d] * v.strides[d];
  }
  bool isFloat = isa<FloatType>(v.element);
  if (!inside || padded) {
    if (isFloat)
      out.f[k] = padF;
    else
      out.i[k] = padI;
    return true;
  }
  unsigned bytes = byteSize(v.element);
  uint64_t addr = v.base + uint64_t(offset) * bytes;
  if (!checked(op, addr, bytes) || !initialized(op, addr, bytes))
    return false;
  const uint8_t *p = reinterpret_cast<const uint8_t *>(addr);
  if (isFloat)
    out.f[k] = loadFloat(p, v.element);
  else
    out.i[k] = loadInt(p, v.element);
  return true;
}

uint64_t ProgramRunner::addressOf(const View &v, ArrayRef<int64_t> coords) {
  if (coords.size() != v.sizes.size())
    return 0;
  int64_t offset = 0;
  for (size_t d = 0; d < coords.size(); ++d) {
    if (!inBounds(coords[d], v.sizes[d]))
      return 0;
    offset += coords[d] * v.strides[d];
  }
  return v.base + uint64_t(offset) * byteSize(v.element);
}

bool ProgramRunner::writeView(Operation *op, const View &v,
                              ArrayRef<int64_t> coords, const Tile &value,
                              int64_t k) {
  uint64_t addr = addressOf(v, coords);
  if (!addr)
    return true;
  unsigned bytes = byteSize(v.element);
  if (!checked(op, addr, bytes))
    return false;
  memory.markWritten(addr, bytes);
  uint8_t *p = reinterpret_cast<uint8_t *>(addr);
  if (isa<FloatType>(v.element))
    storeFloat(p, v.element, value.f[k]);
  else
    storeInt(p, v.element, value.i[k]);
  return true;
}

void ProgramRunner::padding(std::optional<TypedAttr> attr, double &f,
                            int64_t &i) {
  f = 0.0;
  i = 0;
  if (!attr)
    return;
  if (auto fa = dyn_cast<FloatAttr>(*attr))
    f = fa.getValueAsDouble();
  else if (auto ia = dyn_cast<IntegerAttr>(*attr))
    i = normalize(ia.getValue().getSExtValue(), intWidth(ia.getType())),
    f = double(i);
}

/// A float atomic's new value. max and min are the max.f32 and min.f32 of
/// NVPTX's compare-and-swap loop, which ignore a NaN (unlike
/// arith.maximumf); f32 adds are atom.add.f32, which on global memory
/// flushes subnormal inputs and results to zero.
static double atomicFloat(CombineKind kind, Type type, double prev,
                          double value) {
  switch (kind) {
  case CombineKind::Max:
    return maxNumF(prev, value);
  case CombineKind::Min:
    return minNumF(prev, value);
  case CombineKind::Add:
    if (type.isF32())
      return flushF32(float(flushF32(prev) + flushF32(value)));
    return prev + value;
  default:
    return combineFloat(kind, prev, value);
  }
}

bool ProgramRunner::gather(Operation *op, const View &v,
                           ArrayRef<const Tile *> indices, Tile &result) {
  SmallVector<int64_t> coords(indices.size());
  for (int64_t k = 0, n = result.size(); k < n; ++k) {
    for (size_t d = 0; d < indices.size(); ++d)
      coords[d] = indices[d]->i[k];
    if (!readView(op, v, coords, result, k, false, 0.0, 0))
      return false;
  }
  return true;
}

bool ProgramRunner::completeGroups(unsigned pending) {
  while (groups.size() > pending) {
    for (PendingCopy &copy : groups.front()) {
      SharedBuffer &buffer = *copy.buffer;
      int64_t stageSize = copy.data.size();
      int64_t base = copy.stage * stageSize;
      if (!buffer.f.empty())
        std::copy(copy.data.f.begin(), copy.data.f.end(),
                  buffer.f.begin() + base);
      else
        std::copy(copy.data.i.begin(), copy.data.i.end(),
                  buffer.i.begin() + base);
      --buffer.pendingCopies[copy.stage];
    }
    groups.erase(groups.begin());
  }
  return true;
}

bool ProgramRunner::runMemoryOp(Operation *op, bool &handled) {
  handled = true;
  Type resultType = op->getNumResults() ? op->getResult(0).getType() : Type();

  if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
    auto type = cast<SharedBufferType>(alloc.getType());
    auto buffer = std::make_unique<SharedBuffer>();
    buffer->element = type.getElementType();
    buffer->shape.assign(type.getShape().begin(), type.getShape().end());
    int64_t n = std::accumulate(buffer->shape.begin(), buffer->shape.end(),
                                int64_t(1), std::multiplies<int64_t>());
    // Undefined contents: NaN or a pattern, so that a read before a write
    // shows.
    if (isa<FloatType>(buffer->element))
      buffer->f.assign(n, std::numeric_limits<double>::quiet_NaN());
    else
      buffer->i.assign(n, normalize(int64_t(0xCDCDCDCDCDCDCDCDull),
                                    intWidth(buffer->element)));
    buffer->pendingCopies.assign(buffer->shape.empty() ? 1 : buffer->shape[0],
                                 0);
    buffer->issuedCopies.assign(buffer->pendingCopies.size(), 0);
    set(alloc.getResult(), buffer.get());
    sharedBuffers.push_back(std::move(buffer));
    return true;
  }
  if (auto store = dyn_cast<StoreSharedOp>(op)) {
    if (store.getRank() && scalarInt(store.getRank()) != 0)
      return fail(op, "stores into another program's shared memory need a "
                      "cluster launch, which the interpreter does not run");
    SharedBuffer &buffer = shared(store.getBuffer());
    const Tile &value = tile(store.getValue());
    const Tile *mask = store.getMask() ? &tile(store.getMask()) : nullptr;
    int64_t offset = scalarInt(store.getOffset());
    int64_t size = buffer.f.empty() ? buffer.i.size() : buffer.f.size();
    for (int64_t k = 0, n = value.size(); k < n; ++k) {
      int64_t at = offset + k;
      if ((mask && !mask->i[k]) || at < 0 || at >= size)
        continue;
      if (!buffer.f.empty())
        buffer.f[at] = value.f[k];
      else
        buffer.i[at] = normalize(value.i[k], intWidth(buffer.element));
    }
    return true;
  }
  if (auto load = dyn_cast<LoadSharedOp>(op)) {
    SharedBuffer &buffer = shared(load.getBuffer());
    const Tile *mask = load.getMask() ? &tile(load.getMask()) : nullptr;
    double padF;
    int64_t padI;
    padding(load.getPadding(), padF, padI);
    int64_t offset = scalarInt(load.getOffset());
    int64_t size = buffer.f.empty() ? buffer.i.size() : buffer.f.size();
    Tile r = makeTile(resultType);
    for (int64_t k = 0, n = r.size(); k < n; ++k) {
      int64_t at = offset + k;
      bool inside = !(mask && !mask->i[k]) && at >= 0 && at < size;
      if (!r.f.empty())
        r.f[k] = inside ? buffer.f[at] : padF;
      else
        r.i[k] = inside ? buffer.i[at] : padI;
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto add = dyn_cast<HistogramAddOp>(op)) {
    SharedBuffer &buffer = shared(add.getBuffer());
    const Tile &src = tile(add.getSrc());
    const Tile *mask = add.getMask() ? &tile(add.getMask()) : nullptr;
    unsigned w = intWidth(add.getSrc().getType());
    for (int64_t k = 0, n = src.size(); k < n; ++k) {
      // The bin is compared unsigned at the value's width, as the lowering
      // does (an i8 -1 is bin 255).
      uint64_t bin = zext(src.i[k], w);
      if ((mask && !mask->i[k]) || bin >= buffer.i.size())
        continue;
      buffer.i[bin] = normalize(buffer.i[bin] + 1, 32);
    }
    return true;
  }

  // Rings: a copy reads global memory when issued and lands in its stage
  // when a wait retires its group; reading a stage before that is an error.
  if (isa<AsyncCopyOp, AsyncGatherOp>(op)) {
    Value bufferValue = isa<AsyncCopyOp>(op)
                            ? cast<AsyncCopyOp>(op).getBuffer()
                            : cast<AsyncGatherOp>(op).getBuffer();
    Value stageValue = isa<AsyncCopyOp>(op)
                           ? cast<AsyncCopyOp>(op).getStage()
                           : cast<AsyncGatherOp>(op).getStage();
    SharedBuffer &buffer = shared(bufferValue);
    int64_t stage = scalarInt(stageValue);
    if (buffer.shape.size() < 2 || stage < 0 || stage >= buffer.shape[0])
      return fail(op, "stage " + Twine(stage) + " outside the buffer");
    Tile data;
    data.shape.assign(buffer.shape.begin() + 1, buffer.shape.end());
    int64_t n = data.size();
    if (isa<FloatType>(buffer.element))
      data.f.assign(n, 0.0);
    else
      data.i.assign(n, 0);
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      const View &v = view(copy.getView());
      SmallVector<int64_t> origin, coords;
      for (Value o : copy.getOffsets())
        origin.push_back(scalarInt(o));
      for (int64_t k = 0; k < n; ++k) {
        unflatten(k, data.shape, coords);
        for (size_t d = 0; d < coords.size() && d < origin.size(); ++d)
          coords[d] += origin[d];
        if (!readView(op, v, coords, data, k, false, 0.0, 0))
          return false;
      }
    } else {
      auto gatherOp = cast<AsyncGatherOp>(op);
      SmallVector<const Tile *> indices;
      for (Value index : gatherOp.getIndices())
        indices.push_back(&tile(index));
      if (!gather(op, view(gatherOp.getView()), indices, data))
        return false;
    }
    ++buffer.pendingCopies[stage];
    ++buffer.issuedCopies[stage];
    uncommitted.push_back({&buffer, stage, std::move(data)});
    return true;
  }
  if (isa<AsyncCommitOp>(op)) {
    groups.push_back(std::move(uncommitted));
    uncommitted.clear();
    return true;
  }
  if (auto wait = dyn_cast<AsyncWaitOp>(op))
    return completeGroups(wait.getPending());
  if (auto load = dyn_cast<LoadStageOp>(op)) {
    if (load.getPaired())
      return fail(op, "paired stages (CTA pairs) are not interpreted");
    SharedBuffer &buffer = shared(load.getBuffer());
    int64_t stage = scalarInt(load.getStage());
    if (stage < 0 || stage >= buffer.shape[0])
      return fail(op, "stage " + Twine(stage) + " outside the buffer");
    if (buffer.pendingCopies[stage])
      return fail(op, "reads stage " + Twine(stage) +
                          " while a copy into it is still in flight (no "
                          "async_wait retired it)");
    stageReads[load.getResult()] = {&buffer, stage, buffer.issuedCopies[stage]};
    Tile r = makeTile(resultType);
    int64_t n = r.size(), base = stage * n;
    if (!r.f.empty())
      std::copy(buffer.f.begin() + base, buffer.f.begin() + base + n,
                r.f.begin());
    else
      std::copy(buffer.i.begin() + base, buffer.i.begin() + base + n,
                r.i.begin());
    set(op->getResult(0), std::move(r));
    return true;
  }

  if (auto add = dyn_cast<AddPtrOp>(op)) {
    auto ptrType = cast<PtrType>(add.getPtr().getType());
    Tile t;
    t.i = {int64_t(uint64_t(scalarInt(add.getPtr())) +
                   uint64_t(scalarInt(add.getOffset())) *
                       byteSize(ptrType.getElementType()))};
    set(op->getResult(0), std::move(t));
    return true;
  }
  if (auto make = dyn_cast<MakeViewOp>(op)) {
    View v;
    v.base = uint64_t(scalarInt(make.getPtr()));
    v.element = cast<ViewType>(make.getType()).getElementType();
    for (OpFoldResult s : make.getMixedSizes())
      v.sizes.push_back(resolve(s));
    for (OpFoldResult s : make.getMixedStrides())
      v.strides.push_back(resolve(s));
    set(op->getResult(0), std::move(v));
    return true;
  }
  if (auto load = dyn_cast<LoadOp>(op)) {
    const View &v = view(load.getView());
    const Tile *mask = load.getMask() ? &tile(load.getMask()) : nullptr;
    double padF;
    int64_t padI;
    padding(load.getPadding(), padF, padI);
    SmallVector<int64_t> origin, coords;
    for (OpFoldResult o : load.getMixedOffsets())
      origin.push_back(resolve(o));
    Tile r = makeTile(resultType);
    for (int64_t k = 0, n = r.size(); k < n; ++k) {
      unflatten(k, r.shape, coords);
      for (size_t d = 0; d < coords.size() && d < origin.size(); ++d)
        coords[d] += origin[d];
      if (!readView(op, v, coords, r, k, mask && !mask->i[k], padF, padI))
        return false;
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    const View &v = view(store.getView());
    const Tile &value = tile(store.getValue());
    const Tile *mask = store.getMask() ? &tile(store.getMask()) : nullptr;
    SmallVector<int64_t> origin, coords;
    for (OpFoldResult o : store.getMixedOffsets())
      origin.push_back(resolve(o));
    for (int64_t k = 0, n = value.size(); k < n; ++k) {
      if (mask && !mask->i[k])
        continue;
      unflatten(k, value.shape, coords);
      for (size_t d = 0; d < coords.size() && d < origin.size(); ++d)
        coords[d] += origin[d];
      if (!writeView(op, v, coords, value, k))
        return false;
    }
    return true;
  }
  if (auto gatherOp = dyn_cast<GatherOp>(op)) {
    SmallVector<const Tile *> indices;
    for (Value index : gatherOp.getIndices())
      indices.push_back(&tile(index));
    Tile r = makeTile(resultType);
    if (!gather(op, view(gatherOp.getView()), indices, r))
      return false;
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto scatter = dyn_cast<ScatterStoreOp>(op)) {
    const View &v = view(scatter.getView());
    const Tile &value = tile(scatter.getValue());
    const Tile *mask = scatter.getMask() ? &tile(scatter.getMask()) : nullptr;
    SmallVector<const Tile *> indices;
    for (Value index : scatter.getIndices())
      indices.push_back(&tile(index));
    SmallVector<int64_t> coords(indices.size());
    for (int64_t k = 0, n = value.size(); k < n; ++k) {
      if (mask && !mask->i[k])
        continue;
      for (size_t d = 0; d < indices.size(); ++d)
        coords[d] = indices[d]->i[k];
      if (!writeView(op, v, coords, value, k))
        return false;
    }
    return true;
  }
  if (auto atomic = dyn_cast<AtomicOp>(op)) {
    const View &v = view(atomic.getView());
    const Tile &value = tile(atomic.getValue());
    SmallVector<const Tile *> indices;
    for (Value index : atomic.getIndices())
      indices.push_back(&tile(index));
    Tile old = makeTile(resultType);
    SmallVector<int64_t> coords(indices.size());
    bool isFloat = isa<FloatType>(v.element);
    for (int64_t k = 0, n = value.size(); k < n; ++k) {
      for (size_t d = 0; d < indices.size(); ++d)
        coords[d] = indices[d]->i[k];
      uint64_t addr = addressOf(v, coords);
      if (!addr)
        continue;
      unsigned bytes = byteSize(v.element);
      if (!checked(op, addr, bytes) || !initialized(op, addr, bytes))
        return false;
      uint8_t *p = reinterpret_cast<uint8_t *>(addr);
      if (isFloat) {
        double prev = loadFloat(p, v.element);
        old.f[k] = prev;
        storeFloat(p, v.element,
                   atomicFloat(atomic.getKind(), v.element, prev, value.f[k]));
      } else {
        int64_t prev = loadInt(p, v.element);
        old.i[k] = prev;
        storeInt(p, v.element,
                 normalize(combineInt(atomic.getKind(), prev, value.i[k]),
                           intWidth(v.element)));
      }
    }
    set(op->getResult(0), std::move(old));
    return true;
  }
  handled = false;
  return true;
}

} // namespace tilec::cpu::detail
