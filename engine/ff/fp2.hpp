#pragma once
// Fp2 = Fp[u] / (u^2 + 1): the field of G2 coordinates.
#include <optional>

#include "engine/ff/fp.hpp"

namespace cuzk::ff {

struct Fp2 {
  Fp c0, c1;

  static constexpr Fp2 Zero() { return {}; }
  static constexpr Fp2 One() { return {Fp::One(), Fp::Zero()}; }

  constexpr bool IsZero() const { return c0.IsZero() && c1.IsZero(); }
  constexpr bool IsOne() const { return c0.IsOne() && c1.IsZero(); }
  constexpr bool operator==(const Fp2&) const = default;

  constexpr Fp2 operator+(const Fp2& o) const { return {c0 + o.c0, c1 + o.c1}; }
  constexpr Fp2 operator-(const Fp2& o) const { return {c0 - o.c0, c1 - o.c1}; }
  constexpr Fp2 operator-() const { return {-c0, -c1}; }
  // Karatsuba: 3 Fp multiplications.
  constexpr Fp2 operator*(const Fp2& o) const {
    Fp v0 = c0 * o.c0, v1 = c1 * o.c1;
    return {v0 - v1, (c0 + c1) * (o.c0 + o.c1) - v0 - v1};
  }
  constexpr Fp2 operator*(const Fp& s) const { return {c0 * s, c1 * s}; }
  constexpr Fp2& operator+=(const Fp2& o) { return *this = *this + o; }
  constexpr Fp2& operator-=(const Fp2& o) { return *this = *this - o; }
  constexpr Fp2& operator*=(const Fp2& o) { return *this = *this * o; }

  constexpr Fp2 Double() const { return {c0.Double(), c1.Double()}; }
  // (a + bu)^2 = (a+b)(a-b) + 2ab u: 2 multiplications.
  constexpr Fp2 Square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).Double()}; }
  constexpr Fp2 Conjugate() const { return {c0, -c1}; }
  // Multiplication by the sextic non-residue xi = 1 + u used by Fp6.
  constexpr Fp2 MulByNonResidue() const { return {c0 - c1, c0 + c1}; }
  constexpr Fp Norm() const { return c0.Square() + c1.Square(); }
  Fp2 Inverse() const {
    Fp t = Norm().Inverse();
    return {c0 * t, -(c1 * t)};
  }
  // Frobenius x -> x^p is conjugation in Fp2.
  constexpr Fp2 Frobenius(unsigned power) const { return (power & 1) ? Conjugate() : *this; }

  template <size_t M>
  Fp2 Pow(const Limbs<M>& e) const {
    Fp2 r = One();
    for (size_t i = BitLength(e); i-- > 0;) {
      r = r.Square();
      if (TestBit(e, i)) r *= *this;
    }
    return r;
  }

  // Square root in Fp2 for p = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square
  // root computation over even extension fields", Algorithm 9).
  std::optional<Fp2> Sqrt() const;

  // The "sign" used by the ZCash encoding: the lexicographically larger of y
  // and -y, comparing c1 first then c0 (as bellperson/blst do).
  bool LexicographicallyLargest() const;

  template <class Rng>
  static Fp2 Random(Rng& rng) {
    Fp a = Fp::Random(rng);
    return {a, Fp::Random(rng)};
  }
};

}  // namespace cuzk::ff
