#pragma once
// cuda::Fr: BLS12-381 scalar field on the GPU (8 x 32-bit limbs, R = 2^256),
// bit-compatible with ff::Fr.
#include "cuda/ff/mont_field32.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::cuda {

using Fr = MontField32<ff::FrParams>;
static_assert(sizeof(Fr) == sizeof(ff::Fr) && sizeof(Fr) == 32);

}  // namespace cuzk::cuda
