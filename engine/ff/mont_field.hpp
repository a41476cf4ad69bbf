#pragma once
// MontField<P>: a prime field element in Montgomery form (x * R mod p,
// R = 2^(64 N)) with N 64-bit limbs. Fp and Fr are instances; the parameter
// struct P only names the modulus and a generator, every Montgomery constant is
// derived here at compile time.
//
// Multiplication is CIOS with the "no final carry" shortcut (valid because the
// top limb of both BLS12-381 moduli is below 2^63 - 1: the running sum never
// needs an (N+1)-th limb). Cost: N^2 + N^2 + N 64x64->128 multiplications.
#include <cstring>
#include <optional>
#include <tuple>
#include <span>
#include <string>
#include <vector>

#include "engine/ff/limbs.hpp"

namespace cuzk::ff {

enum class Endian { kLittle, kBig };

template <class P>
class MontField {
 public:
  static constexpr size_t kLimbs = P::kLimbs;
  static constexpr size_t kBytes = P::kBytes;  // canonical serialized size
  using LimbArray = Limbs<kLimbs>;

  static constexpr LimbArray kModulus = P::kModulus;
  static_assert(kModulus[kLimbs - 1] < (~uint64_t(0) >> 1) - 1, "CIOS no-carry shortcut needs a spare top bit");
  static constexpr size_t kModulusBits = BitLength(kModulus);

  // -p^-1 mod 2^64 by Newton iteration (each step doubles the correct bits).
  static constexpr uint64_t kInv = [] {
    uint64_t inv = 1;
    for (int i = 0; i < 7; ++i) inv *= 2 - kModulus[0] * inv;
    return ~inv + 1;
  }();
  // R mod p: start at 1 and double 64N times.
  static constexpr LimbArray kR = [] {
    LimbArray r{};
    r[0] = 1;
    for (size_t i = 0; i < 64 * kLimbs; ++i) r = AddMod(r, r, kModulus);
    return r;
  }();
  // R^2 mod p: double R another 64N times.
  static constexpr LimbArray kR2 = [] {
    LimbArray r = kR;
    for (size_t i = 0; i < 64 * kLimbs; ++i) r = AddMod(r, r, kModulus);
    return r;
  }();

  constexpr MontField() : l_{} {}

  static constexpr MontField Zero() { return MontField(); }
  static constexpr MontField One() { return FromMontgomery(kR); }
  // Takes limbs already in Montgomery form (used by serializers of raw memory).
  static constexpr MontField FromMontgomery(const LimbArray& m) {
    MontField f;
    f.l_ = m;
    return f;
  }
  // Takes a canonical integer; it must be < p (reduced otherwise only if < 2p...
  // callers that need validation use FromCanonicalChecked).
  static constexpr MontField FromCanonical(const LimbArray& c) {
    MontField t = FromMontgomery(c);
    return t * FromMontgomery(kR2);
  }
  static constexpr std::optional<MontField> FromCanonicalChecked(const LimbArray& c) {
    if (GreaterOrEqual(c, kModulus)) return std::nullopt;
    return FromCanonical(c);
  }
  static constexpr MontField FromUint64(uint64_t v) {
    LimbArray c{};
    c[0] = v;
    return FromCanonical(c);
  }
  // Signed small integers (constraint coefficients such as -1).
  static constexpr MontField FromInt64(int64_t v) {
    return v >= 0 ? FromUint64(uint64_t(v)) : -FromUint64(uint64_t(0) - uint64_t(v));
  }
  static constexpr MontField FromHex(std::string_view hex) { return FromCanonical(LimbsFromHex<kLimbs>(hex)); }

  constexpr const LimbArray& Montgomery() const { return l_; }
  constexpr LimbArray ToCanonical() const {
    LimbArray one{};
    one[0] = 1;
    return (*this * FromMontgomery(one)).l_;
  }

  constexpr bool IsZero() const { return IsZeroLimbs(l_); }
  constexpr bool IsOne() const { return l_ == kR; }
  constexpr bool operator==(const MontField& o) const { return l_ == o.l_; }
  constexpr bool operator!=(const MontField& o) const { return l_ != o.l_; }

  constexpr MontField operator+(const MontField& o) const {
    MontField r;
    uint64_t carry = AddLimbs(r.l_, l_, o.l_);
    (void)carry;  // p < 2^(64N-1): a + b never carries out
    if (GreaterOrEqual(r.l_, kModulus)) SubLimbs(r.l_, r.l_, kModulus);
    return r;
  }
  constexpr MontField operator-(const MontField& o) const {
    MontField r;
    if (SubLimbs(r.l_, l_, o.l_)) AddLimbs(r.l_, r.l_, kModulus);
    return r;
  }
  constexpr MontField operator-() const {
    if (IsZero()) return *this;
    MontField r;
    SubLimbs(r.l_, kModulus, l_);
    return r;
  }
  constexpr MontField operator*(const MontField& o) const { return Mul(*this, o); }
  constexpr MontField& operator+=(const MontField& o) { return *this = *this + o; }
  constexpr MontField& operator-=(const MontField& o) { return *this = *this - o; }
  constexpr MontField& operator*=(const MontField& o) { return *this = Mul(*this, o); }

  constexpr MontField Double() const { return *this + *this; }
  constexpr MontField Square() const { return Mul(*this, *this); }

  // x^e for a canonical exponent (square-and-multiply, left to right).
  template <size_t M>
  constexpr MontField Pow(const Limbs<M>& e) const {
    MontField r = One();
    for (size_t i = BitLength(e); i-- > 0;) {
      r = r.Square();
      if (TestBit(e, i)) r *= *this;
    }
    return r;
  }
  constexpr MontField Pow(uint64_t e) const { return Pow(Limbs<1>{e}); }

  // Multiplicative inverse by Fermat (x^(p-2)); the inverse of 0 is 0.
  // ~1.2 * bits multiplications: use BatchInverse for many elements.
  constexpr MontField Inverse() const { return Pow(SubSmall(kModulus, 2)); }

  // Euler's criterion: 1 for a non-zero square, -1 for a non-square, 0 for 0.
  int Legendre() const {
    if (IsZero()) return 0;
    MontField t = Pow(ShiftRight1(SubSmall(kModulus, 1)));
    return t.IsOne() ? 1 : -1;
  }

  // A square root if one exists. p = 3 mod 4 uses x^((p+1)/4); otherwise
  // Tonelli-Shanks. Which of the two roots is returned is unspecified.
  std::optional<MontField> Sqrt() const;

  // Canonical bytes of the integer value (kBytes long).
  void ToBytes(std::span<uint8_t> out, Endian e) const;
  // Rejects values >= p (nullopt) and wrong lengths.
  static std::optional<MontField> FromBytes(std::span<const uint8_t> in, Endian e);
  // Reduces an arbitrary-width little-endian byte string mod p (used to map
  // hash outputs or wide random strings to the field).
  static MontField FromBytesReduce(std::span<const uint8_t> in, Endian e);

  // Uniform in [0, p) by rejection sampling from an URBG returning 64 bits.
  template <class Rng>
  static MontField Random(Rng& rng) {
    for (;;) {
      LimbArray c;
      for (auto& w : c) w = uint64_t(rng());
      c[kLimbs - 1] &= ~uint64_t(0) >> (64 * kLimbs - kModulusBits);
      if (!GreaterOrEqual(c, kModulus)) return FromCanonical(c);
    }
  }

  std::string ToHex() const { return LimbsToHex(ToCanonical()); }

  // Replaces every element by its inverse with one field inversion and
  // 3(n-1) multiplications (Montgomery's trick). Zeros stay zero.
  static void BatchInverse(std::span<MontField> v);

 private:
  static constexpr MontField Mul(const MontField& a, const MontField& b) {
    LimbArray t{};
    for (size_t i = 0; i < kLimbs; ++i) {
      u128 s = u128(a.l_[0]) * b.l_[i] + t[0];
      uint64_t A = uint64_t(s >> 64);
      uint64_t m = uint64_t(s) * kInv;
      u128 c = u128(m) * kModulus[0] + uint64_t(s);
      uint64_t C = uint64_t(c >> 64);
      for (size_t j = 1; j < kLimbs; ++j) {
        s = u128(a.l_[j]) * b.l_[i] + t[j] + A;
        A = uint64_t(s >> 64);
        c = u128(m) * kModulus[j] + uint64_t(s) + C;
        C = uint64_t(c >> 64);
        t[j - 1] = uint64_t(c);
      }
      t[kLimbs - 1] = C + A;
    }
    MontField r;
    r.l_ = t;
    if (GreaterOrEqual(r.l_, kModulus)) SubLimbs(r.l_, r.l_, kModulus);
    return r;
  }

  LimbArray l_;
};

template <class P>
std::optional<MontField<P>> MontField<P>::Sqrt() const {
  if (IsZero()) return *this;
  if ((kModulus[0] & 3) == 3) {
    MontField r = Pow(ShiftRight1(ShiftRight1(AddSmall(kModulus, 1))));
    if (r.Square() == *this) return r;
    return std::nullopt;
  }
  // Tonelli-Shanks: p - 1 = q * 2^s with q odd.
  static const auto kSetup = [] {
    LimbArray q = SubSmall(kModulus, 1);
    size_t s = 0;
    while (!(q[0] & 1)) q = ShiftRight1(q), ++s;
    MontField z = FromUint64(2);
    while (z.Legendre() != -1) z += One();
    return std::tuple{q, s, z.Pow(q)};
  }();
  const auto& [q, s, c0] = kSetup;
  if (Legendre() != 1) return std::nullopt;
  size_t m = s;
  MontField c = c0;
  MontField t = Pow(q);
  MontField r = Pow(ShiftRight1(AddSmall(q, 1)));
  while (!t.IsOne()) {
    size_t i = 0;
    MontField t2 = t;
    while (!t2.IsOne()) t2 = t2.Square(), ++i;
    MontField b = c;
    for (size_t j = 0; j + i + 1 < m; ++j) b = b.Square();
    m = i;
    c = b.Square();
    t *= c;
    r *= b;
  }
  return r;
}

template <class P>
void MontField<P>::ToBytes(std::span<uint8_t> out, Endian e) const {
  LimbArray c = ToCanonical();
  for (size_t i = 0; i < kBytes; ++i) {
    uint8_t byte = uint8_t(c[i / 8] >> (8 * (i % 8)));
    out[e == Endian::kLittle ? i : kBytes - 1 - i] = byte;
  }
}

template <class P>
std::optional<MontField<P>> MontField<P>::FromBytes(std::span<const uint8_t> in, Endian e) {
  if (in.size() != kBytes) return std::nullopt;
  LimbArray c{};
  for (size_t i = 0; i < kBytes; ++i) {
    uint8_t byte = in[e == Endian::kLittle ? i : kBytes - 1 - i];
    c[i / 8] |= uint64_t(byte) << (8 * (i % 8));
  }
  return FromCanonicalChecked(c);
}

template <class P>
MontField<P> MontField<P>::FromBytesReduce(std::span<const uint8_t> in, Endian e) {
  // Horner over bytes from the most significant end: acc = acc * 256 + byte.
  const MontField k256 = FromUint64(256);
  MontField acc;
  for (size_t i = 0; i < in.size(); ++i) {
    uint8_t byte = in[e == Endian::kBig ? i : in.size() - 1 - i];
    acc = acc * k256 + FromUint64(byte);
  }
  return acc;
}

template <class P>
void MontField<P>::BatchInverse(std::span<MontField> v) {
  std::vector<MontField> prefix(v.size());
  MontField acc = One();
  for (size_t i = 0; i < v.size(); ++i) {
    prefix[i] = acc;
    if (!v[i].IsZero()) acc *= v[i];
  }
  MontField inv = acc.Inverse();
  for (size_t i = v.size(); i-- > 0;) {
    if (v[i].IsZero()) continue;
    MontField vi = v[i];
    v[i] = inv * prefix[i];
    inv *= vi;
  }
}

}  // namespace cuzk::ff
