#pragma once
// Fp12 = Fp6[w] / (w^2 - v): the top of the BLS12-381 tower, where pairing
// values live (GT is the order-r subgroup of Fp12^*).
//
// Serialization (ToBytes/FromBytes, ToHex) is the one of @noble/curves'
// Fp12.toBytes: the 12 Fp coefficients in the order
//   c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1,
//   c1.c0.c0, c1.c0.c1, c1.c1.c0, c1.c1.c1, c1.c2.c0, c1.c2.c1,
// (cI.cJ.cK = coefficient of u^K in the Fp2 coefficient of v^J w^I), each 48
// bytes big-endian: 576 bytes. Tests compare pairing values with noble in it.
//
// Costs count Fp2 multiplications (M2).
//
//   Fp12 gt = cuzk::ec::Pairing(p, q);
//   std::array<uint8_t, Fp12::kBytes> bytes;
//   gt.ToBytes(bytes);
#include <optional>
#include <span>
#include <string>

#include "engine/ff/fp6.hpp"

namespace cuzk::ff {

struct Fp12 {
  static constexpr size_t kBytes = 12 * Fp::kBytes;

  Fp6 c0, c1;  // c0 + c1 w

  static constexpr Fp12 Zero() { return {}; }
  static constexpr Fp12 One() { return {Fp6::One(), Fp6::Zero()}; }

  constexpr bool IsZero() const { return c0.IsZero() && c1.IsZero(); }
  constexpr bool IsOne() const { return c0.IsOne() && c1.IsZero(); }
  constexpr bool operator==(const Fp12&) const = default;

  constexpr Fp12 operator+(const Fp12& o) const { return {c0 + o.c0, c1 + o.c1}; }
  constexpr Fp12 operator-(const Fp12& o) const { return {c0 - o.c0, c1 - o.c1}; }
  constexpr Fp12 operator-() const { return {-c0, -c1}; }

  // Karatsuba: 3 Fp6 multiplications = 18 M2.
  constexpr Fp12 operator*(const Fp12& o) const {
    Fp6 t0 = c0 * o.c0, t1 = c1 * o.c1;
    return {t0 + t1.MulByNonResidue(), (c0 + c1) * (o.c0 + o.c1) - t0 - t1};
  }
  constexpr Fp12& operator*=(const Fp12& o) { return *this = *this * o; }
  constexpr Fp12& operator+=(const Fp12& o) { return *this = *this + o; }
  constexpr Fp12& operator-=(const Fp12& o) { return *this = *this - o; }

  // Complex squaring: (a + b w)^2 = (a + b)(a + v b) - ab - v ab + 2ab w.
  // 2 Fp6 multiplications = 12 M2.
  constexpr Fp12 Square() const {
    Fp6 ab = c0 * c1;
    Fp6 t = (c0 + c1) * (c0 + c1.MulByNonResidue());
    return {t - ab - ab.MulByNonResidue(), ab.Double()};
  }

  // x^(p^6) = c0 - c1 w. On the cyclotomic subgroup (every value after the
  // easy part of the final exponentiation, in particular GT) it is the inverse.
  constexpr Fp12 Conjugate() const { return {c0, -c1}; }

  // Multiplication by the sparse element d0 + d1 v + d4 v w (coefficients 0, 1
  // and 4 in the basis 1, v, v^2, w, vw, v^2 w), the shape of a line of the
  // M-type twist evaluated at a G1 point. 13 M2 instead of 18.
  constexpr Fp12 MulBy014(const Fp2& d0, const Fp2& d1, const Fp2& d4) const {
    Fp6 aa = c0.MulBy01(d0, d1);
    Fp6 bb = c1.MulBy1(d4);
    Fp6 mid = (c0 + c1).MulBy01(d0, d1 + d4) - aa - bb;
    return {bb.MulByNonResidue() + aa, mid};
  }

  // Squaring in the cyclotomic subgroup G_{Phi_6}(p^2) (Granger-Scott,
  // "Faster squaring in the cyclotomic subgroup of sixth degree extensions",
  // PKC 2010): 9 S2 instead of 12 M2. Only valid for x with
  // x^(p^4 - p^2 + 1) = 1 (any value after the easy part of the final
  // exponentiation, GT included); on other inputs the result is meaningless.
  Fp12 CyclotomicSquare() const;

  // 1 / (c0 + c1 w) = (c0 - c1 w) / (c0^2 - v c1^2): one Fp6 inversion. 1/0 = 0.
  Fp12 Inverse() const {
    Fp6 t = (c0.Square() - c1.Square().MulByNonResidue()).Inverse();
    return {c0 * t, -(c1 * t)};
  }

  // x -> x^(p^k), any k (taken mod 12).
  Fp12 Frobenius(unsigned k) const;

  // Square-and-multiply for a little-endian exponent of any width.
  Fp12 Pow(std::span<const uint64_t> e) const;

  // out must hold kBytes; layout in the file comment.
  void ToBytes(std::span<uint8_t> out) const;
  // Rejects a wrong length and any coefficient >= p.
  static std::optional<Fp12> FromBytes(std::span<const uint8_t> in);
  // The kBytes of ToBytes as lower-case hex without prefix (noble's bytesToHex).
  std::string ToHex() const;

  template <class Rng>
  static Fp12 Random(Rng& rng) {
    Fp6 a = Fp6::Random(rng);
    return {a, Fp6::Random(rng)};
  }
};

}  // namespace cuzk::ff
