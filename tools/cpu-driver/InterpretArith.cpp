//===- InterpretArith.cpp - interpret arith and math ops ------------------===//
//
// The interpreter's arith and math ops: integers wrap to their width,
// floats are rounded to their type after every operation.
//
//===----------------------------------------------------------------------===//

#include "tools/cpu-driver/ProgramRunner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace tilec::cpu::detail {

namespace {

template <typename F>
Tile mapInt(const Tile &a, const Tile &b, unsigned width, F f) {
  Tile r;
  r.shape = a.shape;
  r.i.resize(a.i.size());
  for (size_t k = 0; k < a.i.size(); ++k)
    r.i[k] = normalize(f(a.i[k], b.i[k]), width);
  return r;
}

template <typename F>
Tile mapFloat(const Tile &a, const Tile &b, Type type, F f) {
  Tile r;
  r.shape = a.shape;
  r.f.resize(a.f.size());
  for (size_t k = 0; k < a.f.size(); ++k)
    r.f[k] = roundTo(f(a.f[k], b.f[k]), type);
  return r;
}

template <typename F> Tile mapFloat1(const Tile &a, Type type, F f) {
  Tile r;
  r.shape = a.shape;
  r.f.resize(a.f.size());
  for (size_t k = 0; k < a.f.size(); ++k)
    r.f[k] = roundTo(f(a.f[k]), type);
  return r;
}

bool icmp(arith::CmpIPredicate p, int64_t a, int64_t b, unsigned w) {
  uint64_t ua = zext(a, w), ub = zext(b, w);
  int64_t sa = sext(a, w), sb = sext(b, w);
  switch (p) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return sa < sb;
  case arith::CmpIPredicate::sle:
    return sa <= sb;
  case arith::CmpIPredicate::sgt:
    return sa > sb;
  case arith::CmpIPredicate::sge:
    return sa >= sb;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  return false;
}

bool fcmp(arith::CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (p) {
  case P::AlwaysFalse:
    return false;
  case P::AlwaysTrue:
    return true;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  }
  return false;
}

/// `x` converted to an integer of `width` bits as cvt.rzi does: NaN gives
/// 0, values past the range saturate. Results narrower than 16 bits are
/// converted to 16 bits (PTX has no 8-bit registers) and truncated, the
/// byte a store of them writes (an out-of-range result is poison in LLVM,
/// and an extension of it may keep the 16 bits).
int64_t floatToInt(double x, unsigned width, bool isUnsigned) {
  if (std::isnan(x))
    return 0;
  unsigned w = std::max(width, 16u);
  double v = std::trunc(x);
  int64_t r;
  if (isUnsigned) {
    if (v <= 0)
      r = 0;
    else if (v >= std::ldexp(1.0, w))
      r = int64_t(w == 64 ? ~uint64_t(0) : (uint64_t(1) << w) - 1);
    else
      r = int64_t(uint64_t(v));
  } else {
    double limit = std::ldexp(1.0, w - 1);
    if (v < -limit)
      r = w == 64 ? std::numeric_limits<int64_t>::min()
                  : -(int64_t(1) << (w - 1));
    else if (v >= limit)
      r = w == 64 ? std::numeric_limits<int64_t>::max()
                  : (int64_t(1) << (w - 1)) - 1;
    else
      r = int64_t(v);
  }
  return normalize(r, width);
}

/// The lowering's approximations (MathToNVVM.cpp) as far as they are
/// exact: the argument and result in f32, the scalings by log2(e) and ln(2)
/// rounded to f32, and subnormal inputs and results flushed (.ftz). The
/// approximations' own error (about 2 ulp) is not modelled.
double approxF32(double x, double pre, double post, double (*f)(double)) {
  float s = float(x);
  if (pre != 1.0)
    s = s * float(pre);
  float y = float(f(flushF32(s)));
  y = float(flushF32(y));
  if (post != 1.0)
    y = y * float(post);
  return y;
}

} // namespace

bool ProgramRunner::runArith(Operation *op, bool &handled) {
  handled = true;
  Type resultType = op->getNumResults() ? op->getResult(0).getType() : Type();
  Type elem = resultType ? elementOf(resultType) : Type();
  unsigned w = resultType ? intWidth(resultType) : 64;

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Tile t = makeTile(resultType);
    Attribute value = c.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (isa<FloatType>(elem)) {
        int64_t k = 0;
        if (dense.isSplat())
          std::fill(t.f.begin(), t.f.end(),
                    dense.getSplatValue<APFloat>().convertToDouble());
        else
          for (APFloat v : dense.getValues<APFloat>()) {
            bool lost;
            v.convert(llvm::APFloat::IEEEdouble(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
            t.f[k++] = v.convertToDouble();
          }
      } else {
        int64_t k = 0;
        if (dense.isSplat())
          std::fill(t.i.begin(), t.i.end(),
                    normalize(dense.getSplatValue<APInt>().getSExtValue(), w));
        else
          for (APInt v : dense.getValues<APInt>())
            t.i[k++] = normalize(v.getSExtValue(), w);
      }
    } else if (auto fa = dyn_cast<FloatAttr>(value)) {
      APFloat v = fa.getValue();
      bool lost;
      v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      t.f[0] = v.convertToDouble();
    } else if (auto ia = dyn_cast<IntegerAttr>(value)) {
      t.i[0] = normalize(ia.getValue().getSExtValue(), w);
    } else {
      return fail(op, "constant of an unsupported kind");
    }
    set(op->getResult(0), std::move(t));
    return true;
  }

  auto bin = [&](auto f) {
    set(op->getResult(0),
        mapInt(tile(op->getOperand(0)), tile(op->getOperand(1)), w, f));
    return true;
  };
  // Operands as signed numbers (i1's 1 is -1).
  auto binS = [&](auto f) {
    return bin([&](int64_t a, int64_t b) { return f(sext(a, w), sext(b, w)); });
  };
  auto binU = [&](auto f) {
    return bin([&](int64_t a, int64_t b) {
      return int64_t(f(zext(a, w), zext(b, w)));
    });
  };
  auto binF = [&](auto f) {
    set(op->getResult(0),
        mapFloat(tile(op->getOperand(0)), tile(op->getOperand(1)), elem, f));
    return true;
  };
  auto divCheck = [&]() {
    for (int64_t b : tile(op->getOperand(1)).i)
      if (b == 0)
        return fail(op, "integer division by zero");
    return true;
  };

  if (isa<arith::AddIOp>(op))
    return binU([](uint64_t a, uint64_t b) { return a + b; });
  if (isa<arith::SubIOp>(op))
    return binU([](uint64_t a, uint64_t b) { return a - b; });
  if (isa<arith::MulIOp>(op))
    return binU([](uint64_t a, uint64_t b) { return a * b; });
  // INT64_MIN / -1 wraps (and traps on the host): the quotient is the
  // dividend, the remainder 0.
  auto overflows = [](int64_t a, int64_t b) {
    return b == -1 && a == std::numeric_limits<int64_t>::min();
  };
  if (isa<arith::DivSIOp>(op))
    return divCheck() && binS([&](int64_t a, int64_t b) {
             return overflows(a, b) ? a : a / b;
           });
  if (isa<arith::RemSIOp>(op))
    return divCheck() && binS([&](int64_t a, int64_t b) {
             return overflows(a, b) ? 0 : a % b;
           });
  if (isa<arith::DivUIOp>(op))
    return divCheck() && binU([](uint64_t a, uint64_t b) { return a / b; });
  if (isa<arith::RemUIOp>(op))
    return divCheck() && binU([](uint64_t a, uint64_t b) { return a % b; });
  if (isa<arith::CeilDivSIOp>(op))
    return divCheck() && binS([&](int64_t a, int64_t b) {
             if (overflows(a, b))
               return a;
             int64_t q = a / b;
             return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
           });
  if (isa<arith::FloorDivSIOp>(op))
    return divCheck() && binS([&](int64_t a, int64_t b) {
             if (overflows(a, b))
               return a;
             int64_t q = a / b;
             return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
           });
  if (isa<arith::AndIOp>(op))
    return bin([](int64_t a, int64_t b) { return a & b; });
  if (isa<arith::OrIOp>(op))
    return bin([](int64_t a, int64_t b) { return a | b; });
  if (isa<arith::XOrIOp>(op))
    return bin([](int64_t a, int64_t b) { return a ^ b; });
  if (isa<arith::ShLIOp>(op))
    return binU(
        [&](uint64_t a, uint64_t b) { return b >= w ? uint64_t(0) : a << b; });
  if (isa<arith::ShRUIOp>(op))
    return binU(
        [&](uint64_t a, uint64_t b) { return b >= w ? uint64_t(0) : a >> b; });
  if (isa<arith::ShRSIOp>(op))
    return bin([&](int64_t a, int64_t b) {
      a = sext(a, w);
      return zext(b, w) >= w ? (a < 0 ? -1 : 0) : a >> b;
    });
  if (isa<arith::MinSIOp>(op))
    return binS([](int64_t a, int64_t b) { return std::min(a, b); });
  if (isa<arith::MaxSIOp>(op))
    return binS([](int64_t a, int64_t b) { return std::max(a, b); });
  if (isa<arith::MinUIOp>(op))
    return binU([](uint64_t a, uint64_t b) { return std::min(a, b); });
  if (isa<arith::MaxUIOp>(op))
    return binU([](uint64_t a, uint64_t b) { return std::max(a, b); });

  if (isa<arith::AddFOp>(op))
    return binF([](double a, double b) { return a + b; });
  if (isa<arith::SubFOp>(op))
    return binF([](double a, double b) { return a - b; });
  if (isa<arith::MulFOp>(op))
    return binF([](double a, double b) { return a * b; });
  if (isa<arith::DivFOp>(op))
    return binF([](double a, double b) { return a / b; });
  if (isa<arith::RemFOp>(op))
    // NVPTX's expansion of frem, not fmod: x - trunc(x / y) * y with the
    // quotient rounded and one fma (in f32 for 16-bit types); x where y is
    // infinite.
    return binF([&](double a, double b) {
      if (elem.isF64())
        return std::isinf(b) ? a : std::fma(-std::trunc(a / b), b, a);
      float x = float(a), y = float(b);
      return std::isinf(y) ? a : double(std::fma(-std::trunc(x / y), y, x));
    });
  if (isa<arith::MaximumFOp>(op))
    return binF(maximumF);
  if (isa<arith::MinimumFOp>(op))
    return binF(minimumF);
  if (isa<arith::MaxNumFOp>(op))
    return binF(maxNumF);
  if (isa<arith::MinNumFOp>(op))
    return binF(minNumF);
  if (isa<arith::NegFOp>(op)) {
    set(op->getResult(0),
        mapFloat1(tile(op->getOperand(0)), elem, [](double a) { return -a; }));
    return true;
  }

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    unsigned ow = intWidth(cmp.getLhs().getType());
    const Tile &a = tile(cmp.getLhs()), &b = tile(cmp.getRhs());
    Tile r = makeTile(resultType);
    for (size_t k = 0; k < a.i.size(); ++k)
      r.i[k] = icmp(cmp.getPredicate(), a.i[k], b.i[k], ow);
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    const Tile &a = tile(cmp.getLhs()), &b = tile(cmp.getRhs());
    Tile r = makeTile(resultType);
    for (size_t k = 0; k < a.f.size(); ++k)
      r.i[k] = fcmp(cmp.getPredicate(), a.f[k], b.f[k]);
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    const Tile &c = tile(sel.getCondition());
    const Tile &a = tile(sel.getTrueValue()), &b = tile(sel.getFalseValue());
    Tile r = a;
    bool scalarCond = c.shape.empty();
    for (int64_t k = 0, n = r.size(); k < n; ++k) {
      bool take = scalarCond ? c.i[0] : c.i[k];
      if (take)
        continue;
      copyElement(r, k, b, k);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  // Casts.
  auto castInt = [&](auto f) {
    const Tile &a = tile(op->getOperand(0));
    unsigned iw = intWidth(op->getOperand(0).getType());
    Tile r = makeTile(resultType);
    for (size_t k = 0; k < a.i.size(); ++k)
      r.i[k] = normalize(f(a.i[k], iw), w);
    set(op->getResult(0), std::move(r));
    return true;
  };
  if (isa<arith::ExtSIOp>(op))
    return castInt([](int64_t v, unsigned iw) { return sext(v, iw); });
  if (isa<arith::ExtUIOp>(op))
    return castInt([](int64_t v, unsigned iw) { return int64_t(zext(v, iw)); });
  if (isa<arith::TruncIOp>(op))
    return castInt([](int64_t v, unsigned) { return v; });
  if (isa<arith::IndexCastOp>(op))
    return castInt([](int64_t v, unsigned iw) { return sext(v, iw); });
  if (isa<arith::IndexCastUIOp>(op))
    return castInt([](int64_t v, unsigned iw) { return int64_t(zext(v, iw)); });
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    set(op->getResult(0),
        mapFloat1(tile(op->getOperand(0)), elem, [](double a) { return a; }));
    return true;
  }
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    const Tile &a = tile(op->getOperand(0));
    unsigned iw = intWidth(op->getOperand(0).getType());
    bool isUnsigned = isa<arith::UIToFPOp>(op);
    Tile r = makeTile(resultType);
    // One rounding (cvt.rn.f32.s64, not through a double); bf16 results go
    // through f32, as NVPTX converts them.
    bool viaF32 = elem.isF32() || elem.isBF16();
    for (size_t k = 0; k < a.i.size(); ++k) {
      double v;
      if (isUnsigned)
        v = viaF32 ? double(float(zext(a.i[k], iw))) : double(zext(a.i[k], iw));
      else
        v = viaF32 ? double(float(sext(a.i[k], iw))) : double(sext(a.i[k], iw));
      r.f[k] = roundTo(v, elem);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    const Tile &a = tile(op->getOperand(0));
    bool isUnsigned = isa<arith::FPToUIOp>(op);
    Tile r = makeTile(resultType);
    for (size_t k = 0; k < a.f.size(); ++k)
      r.i[k] = floatToInt(a.f[k], w, isUnsigned);
    set(op->getResult(0), std::move(r));
    return true;
  }
  if (isa<arith::BitcastOp>(op)) {
    Type from = elementOf(op->getOperand(0).getType());
    const Tile &a = tile(op->getOperand(0));
    Tile r = makeTile(resultType);
    for (int64_t k = 0, n = r.size(); k < n; ++k) {
      int64_t bits = isa<FloatType>(from) ? floatBits(a.f[k], from) : a.i[k];
      if (isa<FloatType>(elem))
        r.f[k] = bitsFloat(bits, elem);
      else
        r.i[k] = normalize(bits, w);
    }
    set(op->getResult(0), std::move(r));
    return true;
  }

  // math.
  auto unaryF = [&](double (*f)(double)) {
    set(op->getResult(0), mapFloat1(tile(op->getOperand(0)), elem, f));
    return true;
  };
  // ex2.approx, lg2.approx and rsqrt.approx on f32, f16 and bf16 (f64 has
  // no lowering).
  auto approx = [&](double pre, double post, double (*f)(double)) {
    if (elem.isF64())
      return unaryF(f);
    set(op->getResult(0),
        mapFloat1(tile(op->getOperand(0)), elem,
                  [&](double a) { return approxF32(a, pre, post, f); }));
    return true;
  };
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  if (isa<math::ExpOp>(op))
    return elem.isF64()
               ? unaryF([](double a) { return std::exp(a); })
               : approx(log2e, 1.0, [](double a) { return std::exp2(a); });
  if (isa<math::Exp2Op>(op))
    return approx(1.0, 1.0, [](double a) { return std::exp2(a); });
  if (isa<math::LogOp>(op))
    return elem.isF64()
               ? unaryF([](double a) { return std::log(a); })
               : approx(1.0, ln2, [](double a) { return std::log2(a); });
  if (isa<math::Log2Op>(op))
    return approx(1.0, 1.0, [](double a) { return std::log2(a); });
  if (isa<math::SqrtOp>(op))
    return unaryF([](double a) { return std::sqrt(a); });
  if (isa<math::RsqrtOp>(op))
    return approx(1.0, 1.0, [](double a) { return 1.0 / std::sqrt(a); });
  if (isa<math::TanhOp>(op))
    return unaryF([](double a) { return std::tanh(a); });
  if (isa<math::AbsFOp>(op))
    return unaryF([](double a) { return std::fabs(a); });
  if (isa<math::FloorOp>(op))
    return unaryF([](double a) { return std::floor(a); });
  if (isa<math::CeilOp>(op))
    return unaryF([](double a) { return std::ceil(a); });
  if (isa<math::FmaOp>(op)) {
    const Tile &a = tile(op->getOperand(0)), &b = tile(op->getOperand(1)),
               &c = tile(op->getOperand(2));
    Tile r = a;
    // One rounding, as fma.rn.
    for (size_t k = 0; k < r.f.size(); ++k)
      r.f[k] =
          elem.isF32()
              ? double(std::fma(float(a.f[k]), float(b.f[k]), float(c.f[k])))
              : roundTo(std::fma(a.f[k], b.f[k], c.f[k]), elem);
    set(op->getResult(0), std::move(r));
    return true;
  }
  handled = false;
  return true;
}

} // namespace tilec::cpu::detail
