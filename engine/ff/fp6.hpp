#pragma once
// Fp6 = Fp2[v] / (v^3 - xi), xi = 1 + u: the middle floor of the BLS12-381
// tower Fp -> Fp2 -> Fp6 -> Fp12 (the same tower as zkcrypto/bls12_381, blst
// and @noble/curves, so coefficients compare one to one).
//
// Costs below count Fp2 multiplications (M2 = 3 Fp multiplications, S2 = 2).
//
//   Fp6 a = Fp6::Random(rng), b = Fp6::One();
//   Fp6 c = (a * b + a.Square()).Inverse();   // one Fp inversion inside
//   Fp6 d = a.Frobenius(1);                   // a^p, a few Fp2 products
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/ff/fp2.hpp"

namespace cuzk::ff {

// kFrobeniusGamma[k][e] = xi^(e (p^k - 1) / 6) for k = 0..11, e = 0..5: the
// factor by which x -> x^(p^k) multiplies the coefficient of w^e in Fp12
// (w^6 = xi). Fp6 uses the even columns (v = w^2). Derived from p at compile
// time in fp6.cpp (one exponentiation xi^((p-1)/6), then products of its
// conjugates), so there is nothing pasted to get wrong; constant-initialized,
// hence safe to use from other static initializers.
extern const std::array<std::array<Fp2, 6>, 12> kFrobeniusGamma;

struct Fp6 {
  Fp2 c0, c1, c2;  // c0 + c1 v + c2 v^2

  static constexpr Fp6 Zero() { return {}; }
  static constexpr Fp6 One() { return {Fp2::One(), Fp2::Zero(), Fp2::Zero()}; }

  constexpr bool IsZero() const { return c0.IsZero() && c1.IsZero() && c2.IsZero(); }
  constexpr bool IsOne() const { return c0.IsOne() && c1.IsZero() && c2.IsZero(); }
  constexpr bool operator==(const Fp6&) const = default;

  constexpr Fp6 operator+(const Fp6& o) const { return {c0 + o.c0, c1 + o.c1, c2 + o.c2}; }
  constexpr Fp6 operator-(const Fp6& o) const { return {c0 - o.c0, c1 - o.c1, c2 - o.c2}; }
  constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  constexpr Fp6 Double() const { return {c0.Double(), c1.Double(), c2.Double()}; }

  // Karatsuba over three coefficients (Devegili-O'hEigeartaigh-Scott-Dahab,
  // "Multiplication and Squaring on Pairing-Friendly Fields", sec. 4): 6 M2.
  constexpr Fp6 operator*(const Fp6& o) const {
    Fp2 t0 = c0 * o.c0, t1 = c1 * o.c1, t2 = c2 * o.c2;
    return {t0 + ((c1 + c2) * (o.c1 + o.c2) - t1 - t2).MulByNonResidue(),
            (c0 + c1) * (o.c0 + o.c1) - t0 - t1 + t2.MulByNonResidue(), (c0 + c2) * (o.c0 + o.c2) - t0 - t2 + t1};
  }
  constexpr Fp6 operator*(const Fp2& s) const { return {c0 * s, c1 * s, c2 * s}; }
  constexpr Fp6& operator+=(const Fp6& o) { return *this = *this + o; }
  constexpr Fp6& operator-=(const Fp6& o) { return *this = *this - o; }
  constexpr Fp6& operator*=(const Fp6& o) { return *this = *this * o; }

  // CH-SQR2 (same paper, sec. 4.2): 3 M2 + 2 S2.
  constexpr Fp6 Square() const {
    Fp2 s0 = c0.Square(), s1 = (c0 * c1).Double(), s2 = (c0 - c1 + c2).Square();
    Fp2 s3 = (c1 * c2).Double(), s4 = c2.Square();
    return {s0 + s3.MulByNonResidue(), s1 + s4.MulByNonResidue(), s1 + s2 + s3 - s0 - s4};
  }

  // Multiplication by v: (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2. Free
  // (two Fp additions); the non-residue of Fp12 = Fp6[w]/(w^2 - v).
  constexpr Fp6 MulByNonResidue() const { return {c2.MulByNonResidue(), c0, c1}; }

  // Sparse products used by line evaluation in the Miller loop.
  // By b0 + b1 v: 5 M2 instead of 6.
  constexpr Fp6 MulBy01(const Fp2& b0, const Fp2& b1) const {
    Fp2 t0 = c0 * b0, t1 = c1 * b1;
    return {t0 + (c2 * b1).MulByNonResidue(), (c0 + c1) * (b0 + b1) - t0 - t1, t1 + c2 * b0};
  }
  // By b1 v: 3 M2.
  constexpr Fp6 MulBy1(const Fp2& b1) const { return {(c2 * b1).MulByNonResidue(), c0 * b1, c1 * b1}; }

  // 1 / (c0 + c1 v + c2 v^2) through the norm to Fp2 (Scott, "Implementing
  // cryptographic pairings", Algorithm 5.23): 9 M2 + 3 S2 + one Fp2 inversion.
  // The inverse of 0 is 0.
  Fp6 Inverse() const {
    Fp2 a = c0.Square() - (c1 * c2).MulByNonResidue();
    Fp2 b = c2.Square().MulByNonResidue() - c0 * c1;
    Fp2 c = c1.Square() - c0 * c2;
    Fp2 norm = c0 * a + ((c2 * b) + (c1 * c)).MulByNonResidue();
    Fp2 t = norm.Inverse();
    return {a * t, b * t, c * t};
  }

  // x -> x^(p^k): conjugate each coefficient, then scale v^i by xi^(i (p^k - 1) / 3).
  Fp6 Frobenius(unsigned k) const {
    const auto& g = kFrobeniusGamma[k % 12];
    return {c0.Frobenius(k), c1.Frobenius(k) * g[2], c2.Frobenius(k) * g[4]};
  }

  // Square-and-multiply for a little-endian exponent of any width.
  Fp6 Pow(std::span<const uint64_t> e) const;

  template <class Rng>
  static Fp6 Random(Rng& rng) {
    Fp2 a = Fp2::Random(rng), b = Fp2::Random(rng);
    return {a, b, Fp2::Random(rng)};
  }
};

}  // namespace cuzk::ff
