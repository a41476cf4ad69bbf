#pragma once
// Signed-window (Booth-like) recoding of scalars for Pippenger, host and
// device. A canonical scalar s < 2^255 is written as s = sum_w d_w 2^(c w)
// with digits d_w in [-2^(c-1) + 1, 2^(c-1)]: a raw window value v (plus the
// carry in) above 2^(c-1) becomes v - 2^c and carries 1 into the next window.
// Buckets then run 1..2^(c-1) (half as many as unsigned windows); a negative
// digit adds the negated point, which costs nothing in affine form.
// W = ceil(256 / c) windows absorb the last carry: the top raw value is
// < 2^(c-1), so it never carries out.
#include <cstdint>

#include "cuda/ff/host_device.hpp"

namespace cuzk::cuda {

CUZK_HD constexpr uint32_t SignedDigitWindows(uint32_t c) { return (256 + c - 1) / c; }

// Bits [bit, bit + c) of a little-endian 8 x 32-bit canonical scalar (c <= 24;
// bits past 255 read as 0).
CUZK_HD uint32_t ScalarWindow(const uint32_t (&s)[8], uint32_t bit, uint32_t c) {
  const uint32_t limb = bit / 32, shift = bit % 32;
  if (limb >= 8) return 0;
  uint64_t v = s[limb];
  if (limb + 1 < 8) v |= uint64_t(s[limb + 1]) << 32;
  return uint32_t(v >> shift) & ((1u << c) - 1);
}

// One digit with its carry: returns d_w; carry is both input and output.
CUZK_HD int32_t NextSignedDigit(const uint32_t (&s)[8], uint32_t w, uint32_t c, uint32_t& carry) {
  const uint32_t v = ScalarWindow(s, w * c, c) + carry;
  const uint32_t half = 1u << (c - 1);
  carry = v > half ? 1u : 0u;
  return carry ? int32_t(v) - int32_t(1u << c) : int32_t(v);
}

}  // namespace cuzk::cuda
