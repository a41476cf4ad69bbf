#pragma once
// Fixed-width multi-precision helpers over little-endian 64-bit limbs.
// Everything here is constexpr so that field constants (R, R^2, -p^-1) are
// derived from the modulus at compile time instead of being pasted in.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::ff {

template <size_t N>
using Limbs = std::array<uint64_t, N>;

using u128 = unsigned __int128;

// (hi, lo) = a + b + carry
constexpr uint64_t AddCarry(uint64_t a, uint64_t b, uint64_t& carry) {
  u128 t = u128(a) + b + carry;
  carry = uint64_t(t >> 64);
  return uint64_t(t);
}

// a - b - borrow; borrow becomes 1 on underflow.
constexpr uint64_t SubBorrow(uint64_t a, uint64_t b, uint64_t& borrow) {
  u128 t = u128(a) - b - borrow;
  borrow = uint64_t(t >> 64) & 1;
  return uint64_t(t);
}

template <size_t N>
constexpr uint64_t AddLimbs(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t c = 0;
  for (size_t i = 0; i < N; ++i) r[i] = AddCarry(a[i], b[i], c);
  return c;
}

template <size_t N>
constexpr uint64_t SubLimbs(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t br = 0;
  for (size_t i = 0; i < N; ++i) r[i] = SubBorrow(a[i], b[i], br);
  return br;
}

template <size_t N>
constexpr bool GreaterOrEqual(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return true;
}

template <size_t N>
constexpr bool IsZeroLimbs(const Limbs<N>& a) {
  uint64_t acc = 0;
  for (auto x : a) acc |= x;
  return acc == 0;
}

template <size_t N>
constexpr bool TestBit(const Limbs<N>& a, size_t bit) {
  return bit < 64 * N && ((a[bit / 64] >> (bit % 64)) & 1);
}

template <size_t N>
constexpr size_t BitLength(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;) {
    if (a[i]) return 64 * i + 64 - size_t(__builtin_clzll(a[i]));
  }
  return 0;
}

template <size_t N>
constexpr Limbs<N> ShiftRight1(Limbs<N> a) {
  for (size_t i = 0; i < N; ++i) a[i] = (a[i] >> 1) | (i + 1 < N ? a[i + 1] << 63 : 0);
  return a;
}

// (a + b) mod m for a, b < m.
template <size_t N>
constexpr Limbs<N> AddMod(const Limbs<N>& a, const Limbs<N>& b, const Limbs<N>& m) {
  Limbs<N> r{};
  uint64_t carry = AddLimbs(r, a, b);
  if (carry || GreaterOrEqual(r, m)) SubLimbs(r, r, m);
  return r;
}

// a - small (no underflow expected).
template <size_t N>
constexpr Limbs<N> SubSmall(Limbs<N> a, uint64_t small) {
  uint64_t br = 0;
  a[0] = SubBorrow(a[0], small, br);
  for (size_t i = 1; i < N && br; ++i) a[i] = SubBorrow(a[i], 0, br);
  return a;
}

template <size_t N>
constexpr Limbs<N> AddSmall(Limbs<N> a, uint64_t small) {
  uint64_t c = 0;
  a[0] = AddCarry(a[0], small, c);
  for (size_t i = 1; i < N && c; ++i) a[i] = AddCarry(a[i], 0, c);
  return a;
}

// Parses a big-endian hex string (optional 0x prefix) into limbs; constexpr so
// that curve constants can be written as the hex the specifications print.
template <size_t N>
constexpr Limbs<N> LimbsFromHex(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  Limbs<N> r{};
  size_t bit = 0;
  for (size_t i = hex.size(); i-- > 0;) {
    char ch = hex[i];
    uint64_t v = (ch >= '0' && ch <= '9')   ? uint64_t(ch - '0')
                 : (ch >= 'a' && ch <= 'f') ? uint64_t(ch - 'a' + 10)
                 : (ch >= 'A' && ch <= 'F') ? uint64_t(ch - 'A' + 10)
                                            : throw "bad hex digit";
    if (bit / 64 >= N) {
      if (v != 0) throw "hex constant too large";
    } else {
      r[bit / 64] |= v << (bit % 64);
    }
    bit += 4;
  }
  return r;
}

template <size_t N>
std::string LimbsToHex(const Limbs<N>& a) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  for (size_t i = N; i-- > 0;) {
    for (int sh = 60; sh >= 0; sh -= 4) s.push_back(kDigits[(a[i] >> sh) & 15]);
  }
  return s;
}

}  // namespace cuzk::ff
