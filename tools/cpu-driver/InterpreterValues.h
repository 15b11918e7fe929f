//===- InterpreterValues.h - the interpreter's values -----------*- C++ -*-===//
//
// Internal to the interpreter (Interpreter.h is its interface): the values
// of a program (tiles, views, shared buffers), and what every group of ops
// shares to handle their elements: integer normalization, float rounding,
// element loads and stores, row-major indexing, and the combine kinds'
// identities and combiners.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_CPU_DRIVER_INTERPRETERVALUES_H
#define TILEC_TOOLS_CPU_DRIVER_INTERPRETERVALUES_H

#include "dialect/TileDialect.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <functional>
#include <numeric>
#include <variant>
#include <vector>

namespace tilec::cpu::detail {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// A tile or a scalar (empty shape). Exactly one of f and i holds the
/// elements, chosen by the element type.
struct Tile {
  llvm::SmallVector<int64_t> shape;
  std::vector<double> f;
  std::vector<int64_t> i;
  int64_t size() const {
    return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                           std::multiplies<int64_t>());
  }
};

/// Element `k` of `from` copied into element `at` of `to` (tiles of one
/// element kind).
inline void copyElement(Tile &to, int64_t at, const Tile &from, int64_t k) {
  if (!to.f.empty())
    to.f[at] = from.f[k];
  else
    to.i[at] = from.i[k];
}

struct View {
  uint64_t base = 0;
  mlir::Type element;
  llvm::SmallVector<int64_t> sizes, strides;
};

/// A shared buffer of this program, with the ring stages whose copies are
/// still in flight.
struct SharedBuffer {
  mlir::Type element;
  llvm::SmallVector<int64_t> shape;
  std::vector<double> f;
  std::vector<int64_t> i;
  std::vector<int> pendingCopies;     // per stage (leading dimension)
  std::vector<uint64_t> issuedCopies; // per stage, ever
};

using RtValue = std::variant<Tile, View, SharedBuffer *>;

inline mlir::Type elementOf(mlir::Type type) {
  return mlir::getElementTypeOrSelf(type);
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// The width of integers of (the elements of) `type`: 64 for index and
/// pointers.
unsigned intWidth(mlir::Type type);

/// `v` sign-extended from its low `width` bits (i1 as 0/1).
int64_t normalize(int64_t v, unsigned width);

/// `v` zero-extended from its low `width` bits.
uint64_t zext(int64_t v, unsigned width);

/// `v` (normalized to `width` bits) as a signed number: i1's 1 is -1, as
/// signed ops (extsi, sitofp, cmpi slt, maxsi) read it.
inline int64_t sext(int64_t v, unsigned width) { return width == 1 ? -v : v; }

/// `x` rounded to float type `type` (round to nearest even).
double roundTo(double x, mlir::Type type);

/// The f32 `x` as the tensor cores take it as tf32 (10 mantissa bits):
/// rounded to nearest, ties away from zero, or with `truncate` the low bits
/// dropped.
double tf32(double x, bool truncate);

/// `x` with f32 subnormals flushed to zero of its sign, as the .ftz forms
/// of PTX instructions treat their inputs and results.
double flushF32(double x);

/// Bytes of an element of `type` in memory.
unsigned byteSize(mlir::Type type);

/// Loads and stores of an element of `type` at `p`.
double loadFloat(const uint8_t *p, mlir::Type type);
void storeFloat(uint8_t *p, mlir::Type type, double x);
int64_t loadInt(const uint8_t *p, mlir::Type type);
void storeInt(uint8_t *p, mlir::Type type, int64_t v);

/// Float bits as an integer of the same width, and back (arith.bitcast).
int64_t floatBits(double x, mlir::Type type);
double bitsFloat(int64_t bits, mlir::Type type);

/// Strides of a row-major array of `shape`.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Coordinates of flat index `flat` in a row-major array of `shape`.
void unflatten(int64_t flat, llvm::ArrayRef<int64_t> shape,
               llvm::SmallVectorImpl<int64_t> &coords);

//===----------------------------------------------------------------------===//
// Combine kinds
//===----------------------------------------------------------------------===//

/// arith.maximumf and arith.minimumf: NaN if either is, -0 below +0.
double maximumF(double a, double b);
double minimumF(double a, double b);

/// PTX max.f32 and min.f32 (arith.maxnumf and minnumf, and the float
/// atomics): a NaN operand is ignored, +0 above -0.
double maxNumF(double a, double b);
double minNumF(double a, double b);

/// The identity of `kind` (scans start from it).
int64_t identityInt(mlir::tile::CombineKind kind);
double identityFloat(mlir::tile::CombineKind kind);

/// `a` combined with `b` by `kind` (integers before normalization).
int64_t combineInt(mlir::tile::CombineKind kind, int64_t a, int64_t b);
double combineFloat(mlir::tile::CombineKind kind, double a, double b);

} // namespace tilec::cpu::detail

#endif // TILEC_TOOLS_CPU_DRIVER_INTERPRETERVALUES_H
