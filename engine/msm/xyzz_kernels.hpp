#pragma once
// In-place XYZZ accumulation with the branch-free field kernels (field_kernels.hpp), for the bucket
// reductions and the overflow buckets of the MSM. Same formulas as ec::XyzzPoint (EFD
// shortw-xyzz madd-2008-s, 8M + 2S, and add-2008-s, 12M + 2S); the rare cases (an input at
// infinity, equal or opposite points) go to ec::XyzzPoint, which the tests check against the other
// point forms.
#include "engine/ec/point.hpp"
#include "engine/msm/field_kernels.hpp"

namespace cuzk::msm::internal {

// acc += (x, y), an affine point that is not infinity.
template <class C>
void XyzzAddAffine(ec::XyzzPoint<C>& acc, const typename C::Field& x, const typename C::Field& y) {
  using Field = typename C::Field;
  using K = FieldKernels<Field>;
  if (acc.IsInfinity()) {
    acc = {x, y, Field::One(), Field::One()};
    return;
  }
  Field p, r, pp, ppp, q, t;
  K::Mul(p, x, acc.zz);   // U2
  K::Sub(p, p, acc.x);    // P = U2 - X1
  K::Mul(r, y, acc.zzz);  // S2
  K::Sub(r, r, acc.y);    // R = S2 - Y1
  if (p.IsZero()) {
    acc = acc.AddMixed(ec::AffinePoint<C>::FromXY(x, y));  // doubling or infinity
    return;
  }
  K::Square(pp, p);
  K::Mul(ppp, p, pp);
  K::Mul(q, acc.x, pp);
  K::Mul(acc.zz, acc.zz, pp);
  K::Mul(acc.zzz, acc.zzz, ppp);
  K::Square(t, r);  // X3 = R^2 - PPP - 2Q
  K::Sub(t, t, ppp);
  K::Sub(t, t, q);
  K::Sub(t, t, q);
  K::Mul(ppp, acc.y, ppp);  // Y3 = R (Q - X3) - Y1 PPP
  K::Sub(q, q, t);
  K::Mul(q, r, q);
  K::Sub(acc.y, q, ppp);
  acc.x = t;
}

// acc += o.
template <class C>
void XyzzAdd(ec::XyzzPoint<C>& acc, const ec::XyzzPoint<C>& o) {
  using Field = typename C::Field;
  using K = FieldKernels<Field>;
  if (o.IsInfinity()) return;
  if (acc.IsInfinity()) {
    acc = o;
    return;
  }
  Field u1, s1, p, r, pp, ppp, q, t;
  K::Mul(u1, acc.x, o.zz);
  K::Mul(p, o.x, acc.zz);
  K::Sub(p, p, u1);  // P = U2 - U1
  K::Mul(s1, acc.y, o.zzz);
  K::Mul(r, o.y, acc.zzz);
  K::Sub(r, r, s1);  // R = S2 - S1
  if (p.IsZero()) {
    acc = acc + o;  // doubling or infinity
    return;
  }
  K::Square(pp, p);
  K::Mul(ppp, p, pp);
  K::Mul(q, u1, pp);
  K::Mul(acc.zz, acc.zz, o.zz);
  K::Mul(acc.zz, acc.zz, pp);
  K::Mul(acc.zzz, acc.zzz, o.zzz);
  K::Mul(acc.zzz, acc.zzz, ppp);
  K::Square(t, r);  // X3 = R^2 - PPP - 2Q
  K::Sub(t, t, ppp);
  K::Sub(t, t, q);
  K::Sub(t, t, q);
  K::Mul(ppp, s1, ppp);  // Y3 = R (Q - X3) - S1 PPP
  K::Sub(q, q, t);
  K::Mul(q, r, q);
  K::Sub(acc.y, q, ppp);
  acc.x = t;
}

}  // namespace cuzk::msm::internal
