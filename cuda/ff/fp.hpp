#pragma once
// cuda::Fp: BLS12-381 base field on the GPU (12 x 32-bit limbs, R = 2^384),
// bit-compatible with ff::Fp.
#include "cuda/ff/mont_field32.hpp"
#include "engine/ff/fp.hpp"

namespace cuzk::cuda {

using Fp = MontField32<ff::FpParams>;
static_assert(sizeof(Fp) == sizeof(ff::Fp) && sizeof(Fp) == 48);

// The same field with other multiplications (MulPipes): same bytes as Fp, so
// a buffer of one is a buffer of the other. The G1 MSM's bucket accumulation
// can run on them (MsmGpuOptions::mul_pipes).
//  - FpDfma: every product's limb products on the FP64 pipe (MulDfma);
//  - FpBoth: Mul, and MulDfma where a formula asks for the other pipe.
using FpDfma = MontField32<ff::FpParams, MulPipes::kFp64>;
using FpBoth = MontField32<ff::FpParams, MulPipes::kBoth>;
static_assert(sizeof(FpDfma) == sizeof(Fp) && sizeof(FpBoth) == sizeof(Fp));

}  // namespace cuzk::cuda
