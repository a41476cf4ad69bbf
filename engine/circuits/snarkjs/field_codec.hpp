#pragma once
// How snarkjs writes field elements and points, and the checks on reading them.
//
// Binary files (ffjavascript's representations):
//   - canonical little-endian ("toRprLE"): r1cs coefficients, witness values,
//     the primes in headers;
//   - Montgomery little-endian ("toRprLEM"): zkey points. ffjavascript's R is
//     2^(8 n8) with n8 = 48 for Fp and 32 for Fr, the same R as our 6- and
//     4-limb fields, so the bytes are our limbs and load without a multiply.
//     A G1 point is x || y (2 x 48 bytes), a G2 point x.c0 || x.c1 || y.c0 ||
//     y.c1 (4 x 48); the point at infinity is all zero bytes (wasmcurves'
//     isZeroAffine looks at nothing else, and (0, 0) is not on either curve).
// JSON: decimal strings of the canonical integers, no sign, no prefix.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fp.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::snarkjs {

inline constexpr size_t kFrBytes = 32;  // n8r
inline constexpr size_t kFpBytes = 48;  // n8q
inline constexpr size_t kG1LemBytes = 2 * kFpBytes;
inline constexpr size_t kG2LemBytes = 4 * kFpBytes;

// Little-endian bytes -> limbs (bytes.size() must be 8 * N).
template <size_t N>
ff::Limbs<N> LimbsFromLE(std::span<const uint8_t> bytes) {
  ff::Limbs<N> l{};
  for (size_t i = 0; i < 8 * N; ++i) l[i / 8] |= uint64_t(bytes[i]) << (8 * (i % 8));
  return l;
}

template <size_t N>
void LimbsToLE(const ff::Limbs<N>& l, std::span<uint8_t> out) {
  for (size_t i = 0; i < 8 * N; ++i) out[i] = uint8_t(l[i / 8] >> (8 * (i % 8)));
}

// Canonical LE Fr (32 bytes); nullopt if >= r.
std::optional<ff::Fr> FrFromCanonicalLE(std::span<const uint8_t> bytes);

// Why a zkey point failed to load.
enum class PointError { kOk, kCoordinateNotCanonical, kNotOnCurve, kNotInSubgroup };
std::string_view PointErrorMessage(PointError e);

// Montgomery LE points. check_subgroup costs one endomorphism test per point.
PointError G1FromLem(std::span<const uint8_t> bytes, bool check_subgroup, ec::G1Affine& out);
PointError G2FromLem(std::span<const uint8_t> bytes, bool check_subgroup, ec::G2Affine& out);
void G1ToLem(const ec::G1Affine& p, std::span<uint8_t> out);
void G2ToLem(const ec::G2Affine& p, std::span<uint8_t> out);

// Decimal text of a canonical integer.
template <size_t N>
std::string LimbsToDecimal(ff::Limbs<N> v) {
  // Repeated division by 10^19 (the largest power of ten below 2^64): one
  // pass over the limbs per 19 digits.
  constexpr uint64_t kChunk = 10000000000000000000ull;
  std::string digits;
  while (!ff::IsZeroLimbs(v)) {
    ff::u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      ff::u128 cur = (rem << 64) | v[i];
      v[i] = uint64_t(cur / kChunk);
      rem = cur % kChunk;
    }
    uint64_t r = uint64_t(rem);
    bool more = !ff::IsZeroLimbs(v);
    for (int d = 0; d < 19 && (more || r != 0); ++d) {
      digits.push_back(char('0' + r % 10));
      r /= 10;
    }
  }
  if (digits.empty()) return "0";
  std::reverse(digits.begin(), digits.end());
  return digits;
}

// Non-empty string of ASCII digits whose value fits in N limbs; nullopt otherwise.
template <size_t N>
std::optional<ff::Limbs<N>> LimbsFromDecimal(std::string_view s) {
  if (s.empty() || s.size() > 20 * N) return std::nullopt;  // 20 digits per limb bounds any in-range value
  ff::Limbs<N> v{};
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    // v = v * 10 + digit, failing on overflow out of N limbs.
    uint64_t carry = uint64_t(c - '0');
    for (size_t i = 0; i < N; ++i) {
      ff::u128 t = ff::u128(v[i]) * 10 + carry;
      v[i] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    if (carry) return std::nullopt;
  }
  return v;
}

template <class F>
std::string ToDecimal(const F& f) {
  return LimbsToDecimal(f.ToCanonical());
}

}  // namespace cuzk::snarkjs
