#pragma once
// Points of a short Weierstrass curve y^2 = x^3 + b (a = 0) in three forms,
// each with its role (as in sppark):
//   AffinePoint   - storage and inputs (parameters, proofs): 2 coordinates.
//   JacobianPoint - results and general arithmetic: x = X/Z^2, y = Y/Z^3.
//   XyzzPoint     - MSM buckets: x = X/ZZ, y = Y/ZZZ; mixed add costs 8M+2S
//                   against 7M+4S for Jacobian and needs no doubling check
//                   shortcut, so it is the cheaper accumulator.
// C is a curve traits struct: Field, kB(), Generator().
// Formulas: hyperelliptic.org EFD, g1p/auto/shortw-jacobian-0 and shortw-xyzz.
#include <cstdint>

#include "engine/ff/limbs.hpp"

namespace cuzk::ec {

using ff::Limbs;

template <class C>
struct AffinePoint {
  using Curve = C;
  using Field = typename C::Field;
  Field x, y;
  bool infinity = true;

  static constexpr AffinePoint Infinity() { return {}; }
  static AffinePoint Generator() { return C::Generator(); }
  static constexpr AffinePoint FromXY(const Field& x, const Field& y) { return {x, y, false}; }

  bool IsInfinity() const { return infinity; }
  bool IsOnCurve() const { return infinity || y.Square() == x.Square() * x + C::kB(); }
  AffinePoint operator-() const { return infinity ? *this : AffinePoint{x, -y, false}; }
  bool operator==(const AffinePoint& o) const {
    if (infinity || o.infinity) return infinity == o.infinity;
    return x == o.x && y == o.y;
  }
};

template <class C>
struct JacobianPoint {
  using Curve = C;
  using Field = typename C::Field;
  using Affine = AffinePoint<C>;
  Field x, y, z;  // z == 0 is infinity

  static JacobianPoint Infinity() { return {Field::One(), Field::One(), Field::Zero()}; }
  static JacobianPoint Generator() { return FromAffine(C::Generator()); }
  static JacobianPoint FromAffine(const Affine& a) {
    return a.infinity ? Infinity() : JacobianPoint{a.x, a.y, Field::One()};
  }

  bool IsInfinity() const { return z.IsZero(); }

  Affine ToAffine() const {
    if (IsInfinity()) return Affine::Infinity();
    Field zi = z.Inverse(), zi2 = zi.Square();
    return Affine::FromXY(x * zi2, y * zi2 * zi);
  }

  bool IsOnCurve() const {
    if (IsInfinity()) return true;
    Field z2 = z.Square(), z6 = z2.Square() * z2;
    return y.Square() == x.Square() * x + C::kB() * z6;
  }

  // Projective equality: X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3.
  bool operator==(const JacobianPoint& o) const {
    if (IsInfinity() || o.IsInfinity()) return IsInfinity() == o.IsInfinity();
    Field z1z1 = z.Square(), z2z2 = o.z.Square();
    return x * z2z2 == o.x * z1z1 && y * z2z2 * o.z == o.y * z1z1 * z;
  }

  JacobianPoint operator-() const { return {x, -y, z}; }

  // dbl-2009-l: 2M + 5S.
  JacobianPoint Double() const {
    if (IsInfinity()) return *this;
    Field a = x.Square(), b = y.Square(), c = b.Square();
    Field d = ((x + b).Square() - a - c).Double();
    Field e = a.Double() + a, f = e.Square();
    Field x3 = f - d.Double();
    Field c8 = c.Double().Double().Double();
    return {x3, e * (d - x3) - c8, (y * z).Double()};
  }

  // add-2007-bl: 11M + 5S; falls back to Double for equal inputs.
  JacobianPoint operator+(const JacobianPoint& o) const {
    if (IsInfinity()) return o;
    if (o.IsInfinity()) return *this;
    Field z1z1 = z.Square(), z2z2 = o.z.Square();
    Field u1 = x * z2z2, u2 = o.x * z1z1;
    Field s1 = y * o.z * z2z2, s2 = o.y * z * z1z1;
    Field h = u2 - u1, r = (s2 - s1).Double();
    if (h.IsZero()) return r.IsZero() ? Double() : Infinity();
    Field i = h.Double().Square(), j = h * i, v = u1 * i;
    Field x3 = r.Square() - j - v.Double();
    Field y3 = r * (v - x3) - (s1 * j).Double();
    Field z3 = ((z + o.z).Square() - z1z1 - z2z2) * h;
    return {x3, y3, z3};
  }

  // madd-2007-bl: 7M + 4S.
  JacobianPoint AddMixed(const Affine& o) const {
    if (o.infinity) return *this;
    if (IsInfinity()) return FromAffine(o);
    Field z1z1 = z.Square();
    Field u2 = o.x * z1z1, s2 = o.y * z * z1z1;
    Field h = u2 - x, r = (s2 - y).Double();
    if (h.IsZero()) return r.IsZero() ? Double() : Infinity();
    Field hh = h.Square(), i = hh.Double().Double(), j = h * i, v = x * i;
    Field x3 = r.Square() - j - v.Double();
    Field y3 = r * (v - x3) - (y * j).Double();
    Field z3 = (z + h).Square() - z1z1 - hh;
    return {x3, y3, z3};
  }

  JacobianPoint operator-(const JacobianPoint& o) const { return *this + (-o); }
  JacobianPoint& operator+=(const JacobianPoint& o) { return *this = *this + o; }

  // Scalar multiplication by a canonical little-endian integer (any width),
  // left-to-right double-and-add. Not constant time: scalars here are public
  // or the prover's own randomness on a machine it owns.
  template <size_t M>
  JacobianPoint MulLimbs(const Limbs<M>& k) const {
    JacobianPoint r = Infinity();
    for (size_t i = ff::BitLength(k); i-- > 0;) {
      r = r.Double();
      if (ff::TestBit(k, i)) r += *this;
    }
    return r;
  }
  template <class Scalar>
  JacobianPoint operator*(const Scalar& s) const {
    return MulLimbs(s.ToCanonical());
  }

  // Membership in the prime-order subgroup: [r]P == O (generic and slow;
  // ~1.5 * 255 group operations).
  bool IsInSubgroup() const { return MulLimbs(C::kOrder).IsInfinity(); }
};

template <class C>
struct XyzzPoint {
  using Curve = C;
  using Field = typename C::Field;
  using Affine = AffinePoint<C>;
  using Jacobian = JacobianPoint<C>;
  Field x, y, zz, zzz;  // zz == 0 is infinity

  static XyzzPoint Infinity() { return {Field::One(), Field::One(), Field::Zero(), Field::Zero()}; }
  static XyzzPoint FromAffine(const Affine& a) {
    return a.infinity ? Infinity() : XyzzPoint{a.x, a.y, Field::One(), Field::One()};
  }
  bool IsInfinity() const { return zz.IsZero(); }

  // Jacobian representative Z_J = ZZ * ZZZ, X_J = X * ZZ * ZZZ^2, Y_J = Y * ZZ^3 * ZZZ^2
  // (x = X_J / Z_J^2 = X/ZZ, y = Y_J / Z_J^3 = Y/ZZZ). 6M + 1S, no inversion.
  Jacobian ToJacobian() const {
    if (IsInfinity()) return Jacobian::Infinity();
    Field zzz2 = zzz.Square();
    Field zz_zzz2 = zz * zzz2;
    return {x * zz_zzz2, y * zz.Square() * zz_zzz2, zz * zzz};
  }
  Affine ToAffine() const {
    if (IsInfinity()) return Affine::Infinity();
    // 1/ZZZ and 1/ZZ from one inversion of ZZ*ZZZ.
    Field inv = (zz * zzz).Inverse();
    return Affine::FromXY(x * inv * zzz, y * inv * zz);
  }

  // dbl-2008-s-1 (a = 0): 6M + 3S.
  XyzzPoint Double() const {
    if (IsInfinity()) return *this;
    Field u = y.Double(), v = u.Square(), w = u * v, s = x * v;
    Field x2 = x.Square(), m = x2.Double() + x2;
    Field x3 = m.Square() - s.Double();
    return {x3, m * (s - x3) - w * y, v * zz, w * zzz};
  }

  // mdbl-2008-s-1 for an affine input.
  static XyzzPoint DoubleAffine(const Affine& a) {
    if (a.infinity) return Infinity();
    Field u = a.y.Double(), v = u.Square(), w = u * v, s = a.x * v;
    Field x2 = a.x.Square(), m = x2.Double() + x2;
    Field x3 = m.Square() - s.Double();
    return {x3, m * (s - x3) - w * a.y, v, w};
  }

  // madd-2008-s: 8M + 2S.
  XyzzPoint AddMixed(const Affine& o) const {
    if (o.infinity) return *this;
    if (IsInfinity()) return FromAffine(o);
    Field u2 = o.x * zz, s2 = o.y * zzz;
    Field p = u2 - x, r = s2 - y;
    if (p.IsZero()) return r.IsZero() ? DoubleAffine(o) : Infinity();
    Field pp = p.Square(), ppp = p * pp, q = x * pp;
    Field x3 = r.Square() - ppp - q.Double();
    return {x3, r * (q - x3) - y * ppp, zz * pp, zzz * ppp};
  }
  XyzzPoint SubMixed(const Affine& o) const { return AddMixed(-o); }

  // add-2008-s: 12M + 2S.
  XyzzPoint operator+(const XyzzPoint& o) const {
    if (IsInfinity()) return o;
    if (o.IsInfinity()) return *this;
    Field u1 = x * o.zz, u2 = o.x * zz, s1 = y * o.zzz, s2 = o.y * zzz;
    Field p = u2 - u1, r = s2 - s1;
    if (p.IsZero()) return r.IsZero() ? Double() : Infinity();
    Field pp = p.Square(), ppp = p * pp, q = u1 * pp;
    Field x3 = r.Square() - ppp - q.Double();
    return {x3, r * (q - x3) - s1 * ppp, zz * o.zz * pp, zzz * o.zzz * ppp};
  }
  XyzzPoint& operator+=(const XyzzPoint& o) { return *this = *this + o; }
};

}  // namespace cuzk::ec
