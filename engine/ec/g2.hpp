#pragma once
// G2 of BLS12-381: the sextic twist y^2 = x^3 + 4(1 + u) over Fp2,
// prime-order subgroup of order r.
#include "engine/ec/point.hpp"
#include "engine/ff/fp2.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::ec {

struct G2Curve {
  using Field = ff::Fp2;
  static Field kB() { return {ff::Fp::FromUint64(4), ff::Fp::FromUint64(4)}; }
  static constexpr Limbs<4> kOrder = ff::Fr::kModulus;
  static AffinePoint<G2Curve> Generator();
};

using G2Affine = AffinePoint<G2Curve>;
using G2Jacobian = JacobianPoint<G2Curve>;
using G2Xyzz = XyzzPoint<G2Curve>;

}  // namespace cuzk::ec
