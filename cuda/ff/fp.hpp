#pragma once
// cuda::Fp: BLS12-381 base field on the GPU (12 x 32-bit limbs, R = 2^384),
// bit-compatible with ff::Fp.
#include "cuda/ff/mont_field32.hpp"
#include "engine/ff/fp.hpp"

namespace cuzk::cuda {

using Fp = MontField32<ff::FpParams>;
static_assert(sizeof(Fp) == sizeof(ff::Fp) && sizeof(Fp) == 48);

}  // namespace cuzk::cuda
