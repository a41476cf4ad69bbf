#pragma once
// The FP64 instructions that MulDfma (mul_dfma.hpp) builds its products
// from, for host and device. On the device each function is one instruction
// (DFMA, DADD, or a register move); on the host each is emulated exactly for
// the operands MulDfma gives it (non-negative integers, see each function),
// so the emulation test checks the algorithm on a machine without a GPU and
// the GPU test checks the instructions.
//
// Why doubles at all: a field multiplication on the integer pipe is bound by
// its 32-bit multiply-adds (docs/perf/msm-next.md), and the FP64 pipe, which
// does as many operations a clock on an H200, sits idle in the MSM. A double
// holds any integer below 2^53 exactly, and an FMA computes a * b + c exactly
// before it rounds once, which is enough to split a 96-bit limb product.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda/ff/host_device.hpp"

#if !CUZK_DEVICE_PASS
#include <cmath>
#endif

namespace cuzk::cuda::dfma {

// The double whose high and low 32-bit words are hi and lo.
CUZK_HD double FromWords(uint32_t hi, uint32_t lo) {
#if CUZK_DEVICE_PASS
  return __hiloint2double(int(hi), int(lo));
#else
  const uint64_t bits = (uint64_t(hi) << 32) | lo;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
#endif
}

CUZK_HD uint32_t HiWord(double d) {
#if CUZK_DEVICE_PASS
  return uint32_t(__double2hiint(d));
#else
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return uint32_t(bits >> 32);
#endif
}

CUZK_HD uint32_t LoWord(double d) {
#if CUZK_DEVICE_PASS
  return uint32_t(__double2loint(d));
#else
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return uint32_t(bits);
#endif
}

// a + b rounded to nearest (exact in every use: both are integers and so is a
// representable sum).
CUZK_HD double Add(double a, double b) {
#if CUZK_DEVICE_PASS
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// a * b + c rounded to nearest (exact in every use: the result is an integer
// below 2^53). std::fma rounds once, as the device does.
CUZK_HD double Fma(double a, double b, double c) {
#if CUZK_DEVICE_PASS
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// a * b + c rounded toward zero, where a, b are integers below 2^48 and c is
// a multiple of 2^48 in [2^100, 2^101) with a * b + c < 2^101: in that binade
// the unit in the last place is 2^48, so the result is c + floor(a b / 2^48)
// 2^48. The host emulates exactly that (and refuses other operands, which
// would mean a broken bound in MulDfma).
CUZK_HD double FmaRz(double a, double b, double c) {
#if CUZK_DEVICE_PASS
  return __fma_rz(a, b, c);
#else
  constexpr double kLow = 0x1p100, kHigh = 0x1p101, kLimb = 0x1p48;
  if (!(a >= 0 && a < kLimb && b >= 0 && b < kLimb && c >= kLow && c < kHigh)) std::abort();
  const unsigned __int128 product = (unsigned __int128)uint64_t(a) * uint64_t(b);
  const double r = c + std::ldexp(double(uint64_t(product >> 48)), 48);
  if (!(r < kHigh)) std::abort();
  return r;
#endif
}

}  // namespace cuzk::cuda::dfma
