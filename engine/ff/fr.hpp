#pragma once
// Fr: the 255-bit scalar field of BLS12-381 (the field of Groth16 witnesses).
#include "engine/ff/mont_field.hpp"

namespace cuzk::ff {

struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr size_t kBytes = 32;
  static constexpr Limbs<4> kModulus =
      LimbsFromHex<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
};

using Fr = MontField<FrParams>;

// r - 1 = 2^32 * t: the NTT supports domains up to 2^32.
inline constexpr unsigned kFrTwoAdicity = 32;
// 7 generates Fr^* (bellperson/ff's MULTIPLICATIVE_GENERATOR); also the coset shift of Groth16's H.
inline constexpr uint64_t kFrMultiplicativeGenerator = 7;

// A primitive 2^log_n-th root of unity: 7^((r-1)/2^log_n).
Fr FrRootOfUnity(unsigned log_n);

}  // namespace cuzk::ff
