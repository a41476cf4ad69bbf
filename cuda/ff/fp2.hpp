#pragma once
// cuda::Fp2 = Fp[u] / (u^2 + 1) on the GPU: the field of G2 coordinates,
// bit-compatible with ff::Fp2 (two cuda::Fp, c0 + c1 u). Same formulas as the
// host (Karatsuba multiplication: 3 Fp multiplications; squaring: 2), so a
// device G2 point formula gives the host's coordinates exactly.
#include "cuda/ff/fp.hpp"
#include "cuda/ff/inverse_by.hpp"
#include "engine/ff/fp2.hpp"

namespace cuzk::cuda {

struct Fp2 {
  Fp c0, c1;

  Fp2() = default;  // uninitialized, like Fp
  CUZK_HD Fp2(const Fp& a, const Fp& b) : c0(a), c1(b) {}

  CUZK_HD static Fp2 Zero() { return {Fp::Zero(), Fp::Zero()}; }
  CUZK_HD static Fp2 One() { return {Fp::One(), Fp::Zero()}; }
  CUZK_HD bool IsZero() const { return c0.IsZero() && c1.IsZero(); }
  CUZK_HD friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
  CUZK_HD friend bool operator!=(const Fp2& a, const Fp2& b) { return !(a == b); }

  CUZK_HD friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  CUZK_HD friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  CUZK_HD Fp2 operator-() const { return {-c0, -c1}; }
  CUZK_HD friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    const Fp v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  CUZK_HD Fp2& operator+=(const Fp2& o) { return *this = *this + o; }
  CUZK_HD Fp2& operator-=(const Fp2& o) { return *this = *this - o; }
  CUZK_HD Fp2& operator*=(const Fp2& o) { return *this = *this * o; }
  CUZK_HD Fp2 Double() const { return {c0.Double(), c1.Double()}; }
  // (a + bu)^2 = (a+b)(a-b) + 2ab u.
  CUZK_HD Fp2 Square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).Double()}; }

  // 1 / (a + bu) = (a - bu) / (a^2 + b^2): one Fp inversion (0 maps to 0).
  CUZK_HD Fp2 Inverse() const {
    const Fp t = (c0.Square() + c1.Square()).Inverse();
    return {c0 * t, -(c1 * t)};
  }
  // The same with the Fp inversion by safegcd (cuda/ff/inverse_by.hpp): for hot loops.
  CUZK_HD Fp2 InverseVar() const {
    const Fp t = cuda::InverseVar(c0.Square() + c1.Square());
    return {c0 * t, -(c1 * t)};
  }

  static Fp2 FromHost(const ff::Fp2& h) { return {Fp::FromHost(h.c0), Fp::FromHost(h.c1)}; }
  ff::Fp2 ToHost() const { return {c0.ToHost(), c1.ToHost()}; }
};
static_assert(sizeof(Fp2) == sizeof(ff::Fp2) && sizeof(Fp2) == 96);

// The Fp2 overload of InverseVar (inverse_by.hpp), for code generic over the field.
CUZK_HD Fp2 InverseVar(const Fp2& a) { return a.InverseVar(); }

}  // namespace cuzk::cuda
