#pragma once
// The per-thread steps of batched fixed-base scalar multiplication on the
// GPU (setup: every parameter point is some scalar times the one generator),
// host and device (CUZK_HD), templated on the point field (G1: Fp, G2: Fp2).
// The table is engine/groth16/fixed_base.hpp's: for window i < windows and
// digit d in [1, 2^w), the affine point d 2^(w i) G at i (2^w - 1) + d - 1.
//  1. FixedBaseMulStep (thread per scalar): canonical scalar, then one mixed
//     addition per nonzero w-bit window into an XYZZ sum (no doublings):
//     ceil(255 / w) additions, 22 at w = 12.
//  2. ToAffineStep (thread per group of kAffineGroup results): x = X / ZZ,
//     y = Y / ZZZ with one field inversion per group (Montgomery's trick over
//     d_i = ZZ_i ZZZ_i: 1 / ZZ = ZZZ / d, 1 / ZZZ = ZZ / d), ~8
//     multiplications per point plus ~576 / kAffineGroup for the inversion.
#include <cstddef>
#include <cstdint>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/msm/msm_steps.hpp"
#include "cuda/msm/signed_digits.hpp"

namespace cuzk::cuda::fixed_base {

constexpr uint32_t kAffineGroup = 16;

template <class F>
CUZK_HD void FixedBaseMulStep(size_t i, const Fr* scalars, uint32_t window_bits, uint32_t windows,
                              const AffinePoint<F>* table, XyzzPoint<F>* out) {
  Fr raw_one = Fr::Zero();
  raw_one.limb(0) = 1;
  const Fr c = Fr::Mul(pippenger::LoadPoint(scalars + i), raw_one);  // canonical
  uint32_t s[8];
  CUZK_UNROLL
  for (int j = 0; j < 8; ++j) s[j] = c.limb(j);
  const size_t per = (size_t(1) << window_bits) - 1;
  XyzzPoint<F> acc = XyzzPoint<F>::Infinity();
  for (uint32_t w = 0; w < windows; ++w) {
    const uint32_t d = ScalarWindow(s, w * window_bits, window_bits);
    if (d != 0) acc = acc.AddMixed(pippenger::LoadPoint(table + w * per + d - 1));
  }
  pippenger::StorePoint(out + i, acc);
}

template <class F>
CUZK_HD void ToAffineStep(size_t t, size_t n, const XyzzPoint<F>* in, AffinePoint<F>* out) {
  const size_t lo = t * kAffineGroup, hi = lo + kAffineGroup < n ? lo + kAffineGroup : n;
  F prefix[kAffineGroup];
  F acc = F::One();
  for (size_t i = lo; i < hi; ++i) {
    const XyzzPoint<F> p = pippenger::LoadPoint(in + i);
    prefix[i - lo] = acc;
    if (!p.IsInfinity()) acc = acc * (p.zz * p.zzz);
  }
  F inv = acc.Inverse();
  for (size_t i = hi; i-- > lo;) {
    const XyzzPoint<F> p = pippenger::LoadPoint(in + i);
    if (p.IsInfinity()) {
      pippenger::StorePoint(out + i, AffinePoint<F>::Infinity());
      continue;
    }
    const F d = p.zz * p.zzz;
    const F inv_d = inv * prefix[i - lo];
    inv = inv * d;
    pippenger::StorePoint(out + i, AffinePoint<F>{p.x * (p.zzz * inv_d), p.y * (p.zz * inv_d)});
  }
}

}  // namespace cuzk::cuda::fixed_base
