#pragma once
// G1 of BLS12-381: y^2 = x^3 + 4 over Fp, prime-order subgroup of order r.
#include "engine/ec/point.hpp"
#include "engine/ff/fp.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::ec {

struct G1Curve {
  using Field = ff::Fp;
  static Field kB() { return Field::FromUint64(4); }
  static constexpr Limbs<4> kOrder = ff::Fr::kModulus;
  static AffinePoint<G1Curve> Generator();
};

using G1Affine = AffinePoint<G1Curve>;
using G1Jacobian = JacobianPoint<G1Curve>;
using G1Xyzz = XyzzPoint<G1Curve>;

}  // namespace cuzk::ec
