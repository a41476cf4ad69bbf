#pragma once
// Points of y^2 = x^3 + b over a device field (cuda::Fp for G1, cuda::Fp2 for G2), host and
// device (CUZK_HD), with the same roles as engine/ec/point.hpp:
//   AffinePoint - MSM inputs (parameters): 2 coordinates; infinity is (0, 0),
//                 which is not on the curve for b != 0, so no flag is stored
//                 (96 bytes per G1 point: 2^26 bases = 6 GiB).
//   XyzzPoint   - MSM buckets: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2. Mixed
//                 addition costs 8M + 2S and needs no inversion.
// Formulas: hyperelliptic.org EFD, shortw-xyzz (madd-2008-s, mdbl-2008-s-1,
// dbl-2008-s-1, add-2008-s), the same as the host XyzzPoint, so results can
// be compared coordinate by coordinate.
#include "cuda/ff/fp.hpp"
#include "cuda/ff/fp2.hpp"
#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"

namespace cuzk::cuda {

// a * b on the field's other multiplication pipe where it has one
// (MontField32::MulOtherPipe: FpBoth), else a * b.
template <class F>
CUZK_HD F MulOtherPipe(const F& a, const F& b) {
  if constexpr (requires { F::MulOtherPipe(a, b); }) {
    return F::MulOtherPipe(a, b);
  } else {
    return a * b;
  }
}

// a b - c d through the field's MulSub where it has one (MontField32: on Fp
// both products in one set of Mul's rows with one reduction; on Fr two
// products; on FpDfma/FpBoth the second on the other pipe), else two
// products.
template <class F>
CUZK_HD F MulSub(const F& a, const F& b, const F& c, const F& d) {
  if constexpr (requires { F::MulSub(a, b, c, d); }) {
    return F::MulSub(a, b, c, d);
  } else {
    return a * b - c * d;
  }
}

template <class F>
struct AffinePoint {
  F x, y;

  CUZK_HD static AffinePoint Infinity() { return {F::Zero(), F::Zero()}; }
  CUZK_HD bool IsInfinity() const { return x.IsZero() && y.IsZero(); }
  // -(x, y) = (x, -y); -infinity = infinity because -0 = 0.
  CUZK_HD AffinePoint Negated() const { return {x, -y}; }
};

template <class F>
struct XyzzPoint {
  F x, y, zz, zzz;  // zz == 0: infinity

  CUZK_HD static XyzzPoint Infinity() { return {F::One(), F::One(), F::Zero(), F::Zero()}; }
  CUZK_HD static XyzzPoint FromAffine(const AffinePoint<F>& a) {
    return a.IsInfinity() ? Infinity() : XyzzPoint{a.x, a.y, F::One(), F::One()};
  }
  CUZK_HD bool IsInfinity() const { return zz.IsZero(); }

  // dbl-2008-s-1 (a = 0): 6M + 3S.
  CUZK_HD XyzzPoint Double() const {
    if (IsInfinity()) return *this;
    const F u = y.Double(), v = u.Square(), w = u * v, s = x * v;
    const F x2 = x.Square(), m = x2.Double() + x2;
    const F x3 = m.Square() - s.Double();
    return {x3, MulSub(m, s - x3, w, y), v * zz, w * zzz};
  }

  // mdbl-2008-s-1: doubling of an affine point, 4M + 2S.
  CUZK_HD static XyzzPoint DoubleAffine(const AffinePoint<F>& a) {
    if (a.IsInfinity()) return Infinity();
    const F u = a.y.Double(), v = u.Square(), w = u * v, s = a.x * v;
    const F x2 = a.x.Square(), m = x2.Double() + x2;
    const F x3 = m.Square() - s.Double();
    return {x3, MulSub(m, s - x3, w, a.y), v, w};
  }

  // madd-2008-s: 8M + 2S. The equal-x cases (doubling, P + (-P)) are rare in
  // an MSM but must be right: they branch. Four of the products, each beside
  // an independent one, go to the field's other pipe (MulOtherPipe and
  // MulSub's second product: FpBoth; Double, DoubleAffine and operator+ send
  // their MulSub's second product there too). On Fp the two squares take
  // SquareFused (456 multiply-adds) and y3's two products one reduction
  // (MulSub, 876): 6 x 588 + 876 + 2 x 456 = 5,316 against 10 x 588.
  CUZK_HD XyzzPoint AddMixed(const AffinePoint<F>& o) const {
    if (o.IsInfinity()) return *this;
    if (IsInfinity()) return FromAffine(o);
    const F u2 = o.x * zz, s2 = MulOtherPipe(o.y, zzz);
    const F p = u2 - x, r = s2 - y;
    if (p.IsZero()) return r.IsZero() ? DoubleAffine(o) : Infinity();
    const F pp = p.Square(), ppp = p * pp, q = MulOtherPipe(x, pp);
    const F x3 = r.Square() - ppp - q.Double();
    return {x3, MulSub(r, q - x3, y, ppp), zz * pp, MulOtherPipe(zzz, ppp)};
  }

  // add-2008-s: 12M + 2S.
  CUZK_HD XyzzPoint operator+(const XyzzPoint& o) const {
    if (IsInfinity()) return o;
    if (o.IsInfinity()) return *this;
    const F u1 = x * o.zz, u2 = o.x * zz, s1 = y * o.zzz, s2 = o.y * zzz;
    const F p = u2 - u1, r = s2 - s1;
    if (p.IsZero()) return r.IsZero() ? Double() : Infinity();
    const F pp = p.Square(), ppp = p * pp, q = u1 * pp;
    const F x3 = r.Square() - ppp - q.Double();
    return {x3, MulSub(r, q - x3, s1, ppp), zz * o.zz * pp, zzz * o.zzz * ppp};
  }
};

using G1Affine = AffinePoint<Fp>;
using G1Xyzz = XyzzPoint<Fp>;
using G2Affine = AffinePoint<Fp2>;
using G2Xyzz = XyzzPoint<Fp2>;

// Host conversions (the device layout has no infinity flag). F is the device
// field, C the engine curve over F's host field.
template <class F, class C>
AffinePoint<F> AffineFromHost(const ec::AffinePoint<C>& a) {
  return a.infinity ? AffinePoint<F>::Infinity() : AffinePoint<F>{F::FromHost(a.x), F::FromHost(a.y)};
}
template <class F, class C>
XyzzPoint<F> XyzzFromHost(const ec::XyzzPoint<C>& p) {
  return {F::FromHost(p.x), F::FromHost(p.y), F::FromHost(p.zz), F::FromHost(p.zzz)};
}
template <class C, class F>
ec::XyzzPoint<C> XyzzToHost(const XyzzPoint<F>& p) {
  return ec::XyzzPoint<C>{p.x.ToHost(), p.y.ToHost(), p.zz.ToHost(), p.zzz.ToHost()};
}

inline G1Affine G1AffineFromHost(const ec::G1Affine& a) { return AffineFromHost<Fp>(a); }
inline ec::G1Xyzz G1XyzzToHost(const G1Xyzz& p) { return XyzzToHost<ec::G1Curve>(p); }
inline G1Xyzz G1XyzzFromHost(const ec::G1Xyzz& p) { return XyzzFromHost<Fp>(p); }

}  // namespace cuzk::cuda
