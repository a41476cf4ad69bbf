#pragma once
// Fp: the 381-bit base field of BLS12-381.
#include "engine/ff/mont_field.hpp"

namespace cuzk::ff {

struct FpParams {
  static constexpr size_t kLimbs = 6;
  static constexpr size_t kBytes = 48;
  static constexpr Limbs<6> kModulus = LimbsFromHex<6>(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
};

using Fp = MontField<FpParams>;

}  // namespace cuzk::ff
