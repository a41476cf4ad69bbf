#pragma once
// Signed (Booth) window digits of canonical 256-bit scalars.
//
// Window w of width c covers bits [w c, w c + c). Its digit is
//   d_w = bits[w c, w c + c) + bit[w c - 1] - 2^c * bit[w c + c - 1]
// which lies in [-2^(c-1), 2^(c-1)] and satisfies sum_w d_w 2^(w c) = k as long as the top bit of
// the last window is zero. Each digit depends only on c + 1 bits of k, so windows can be taken in
// any order and by any thread (no carry chain across windows). A Pippenger window then needs
// 2^(c-1) buckets (|d| - 1) and the sign of d picks P or -P.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/ff/limbs.hpp"

namespace cuzk::msm::internal {

using Scalar = ff::Limbs<4>;  // canonical little-endian scalar

// Number of windows of width c that cover scalars of `bits` significant bits with Booth digits:
// the bit above the top (position bits) must fall inside the last window so that its top bit is 0.
constexpr unsigned NumWindows(unsigned bits, unsigned c) { return bits / c + 1; }

// Bits [offset, offset + width) of k (width <= 32); bits outside [0, 256) read as zero.
inline uint64_t ScalarBits(const Scalar& k, int offset, unsigned width) {
  uint64_t v;
  if (offset < 0) {
    v = k[0] << unsigned(-offset);  // offset is -1 for the first Booth window
  } else {
    unsigned limb = unsigned(offset) / 64, shift = unsigned(offset) % 64;
    if (limb >= 4) return 0;
    v = k[limb] >> shift;
    if (shift != 0 && limb + 1 < 4) v |= k[limb + 1] << (64 - shift);
  }
  return v & ((uint64_t(1) << width) - 1);
}

// The Booth digit of window w (width c <= 31).
inline int32_t SignedDigit(const Scalar& k, unsigned w, unsigned c) {
  uint64_t v = ScalarBits(k, int(w * c) - 1, c + 1);  // bit 0: the bit below the window
  int64_t raw = int64_t(v >> 1), carry = int64_t(v & 1), top = int64_t(v >> c);
  return int32_t(raw + carry - (top << c));
}

// Number of significant bits of the largest scalar (0 when all are zero).
inline unsigned MaxScalarBits(std::span<const Scalar> scalars) {
  Scalar acc{};
  for (const Scalar& k : scalars) {
    for (size_t i = 0; i < 4; ++i) acc[i] |= k[i];
  }
  return unsigned(ff::BitLength(acc));
}

}  // namespace cuzk::msm::internal
