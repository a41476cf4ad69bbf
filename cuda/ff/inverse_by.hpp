#pragma once
// Fast field inversion for the device fields: Bernstein-Yang "safegcd"
// divsteps, variable time, on signed 30-bit limbs (the structure of
// libsecp256k1's modinv32_var, widened from 9 limbs to any MontField32).
//
// Why: the batched affine MSM accumulation (cuda/msm/msm_steps.hpp) does one
// inversion per step of a thread's batch. Fermat's a^(p-2)
// (MontField32::Inverse) costs ~576 Fp multiplications, which a batch of 16
// additions cannot carry; this costs about 20 batches of 30 divsteps, each a
// few dozen 32-bit operations plus four 13-limb row updates: the throughput
// of 32-34 Fp multiplications on the H200 (`cuzk-gpu-bench field`,
// docs/perf/gpu.md).
// Variable time is fine here: MSM inputs are public.
//
// The algorithm works on integers, so on Montgomery limbs aR it returns
// (aR)^-1; one Montgomery multiplication by R^3 mod p turns that into a^-1 R.
// InverseVar(0) = 0, as Inverse() does.
//
// Bounds (as in libsecp256k1's proof, for any odd p < 2^(30 L - 9)): f, g, d,
// e stay within (-2p, 2p); every limb but the top one is in [0, 2^30); the
// transition matrix entries are at most 2^30 in magnitude, so each 64-bit
// row accumulator stays below 2^62.
#include <bit>
#include <cstdint>

#include "cuda/ff/mont_field32.hpp"

namespace cuzk::cuda::safegcd {

// Counts trailing zeros of a nonzero word.
CUZK_HD int Ctz32(uint32_t x) {
#if CUZK_DEVICE_PASS
  return __ffs(int(x)) - 1;
#else
  return std::countr_zero(x);
#endif
}

// -f^-1 mod 256 for odd f: Newton's iteration x <- x (2 - f x) doubles the
// correct low bits (f^-1 = f mod 8 to start): 3 -> 6 -> 12 bits.
CUZK_HD uint32_t NegInverse256(uint32_t f) {
  uint32_t x = f;
  x *= 2 - f * x;
  x *= 2 - f * x;
  return (0u - x) & 255u;
}

// The 2x2 transition matrix of 30 divsteps: 2^30 (f', g') = (u f + v g, q f + r g).
struct Trans {
  int32_t u, v, q, r;
};

// 30 divsteps on the low words of f and g (f odd), from eta = -delta.
// Returns the new eta.
CUZK_HD int32_t Divsteps30Var(int32_t eta, uint32_t f, uint32_t g, Trans& t) {
  uint32_t u = 1, v = 0, q = 0, r = 1;
  int i = 30;
  for (;;) {
    // Zeros at the bottom of g: that many divsteps just halve g (sentinel bit at i).
    const int zeros = Ctz32(g | (0xffffffffu << i));
    g >>= zeros;
    u <<= zeros;
    v <<= zeros;
    eta -= zeros;
    i -= zeros;
    if (i == 0) break;
    // f and g odd. If eta < 0: (f, g) <- (g, -f), with the matrix rows.
    if (eta < 0) {
      uint32_t tmp;
      eta = -eta;
      tmp = f, f = g, g = 0u - tmp;
      tmp = u, u = q, q = 0u - tmp;
      tmp = v, v = r, r = 0u - tmp;
    }
    // Cancel the bottom min(eta + 1, i, 8) bits of g with a multiple of f.
    const int limit = (eta + 1) > i ? i : (eta + 1);
    const uint32_t m = (0xffffffffu >> (32 - limit)) & 255u;
    const uint32_t w = (g * NegInverse256(f)) & m;
    g += f * w;
    q += u * w;
    r += v * w;
  }
  t = {int32_t(u), int32_t(v), int32_t(q), int32_t(r)};
  return eta;
}

template <class F>
class Inverter {
 public:
  static constexpr int kLimbs32 = F::kLimbs;
  // Signed 30-bit limbs with room for the bounds above: 13 for Fp, 9 for Fr.
  static constexpr int kL = (32 * kLimbs32) / 30 + 1;
  static constexpr int32_t kM30 = int32_t(0x3fffffff);

  // a^-1 in Montgomery form (0 -> 0).
  CUZK_HD static F Invert(const F& a) {
    int32_t d[kL], e[kL], f[kL], g[kL];
    ToSigned30(a, g);
    CUZK_UNROLL
    for (int j = 0; j < kL; ++j) d[j] = 0, e[j] = 0, f[j] = Modulus30(j);
    e[0] = 1;
    int32_t eta = -1;
    for (;;) {
      Trans t;
      eta = Divsteps30Var(eta, uint32_t(f[0]), uint32_t(g[0]), t);
      UpdateDe(d, e, t);
      UpdateFg(f, g, t);
      int32_t any = 0;
      CUZK_UNROLL
      for (int j = 0; j < kL; ++j) any |= g[j];
      if (any == 0) break;
    }
    // g = 0 and f = +-gcd = +-1: the sign of f's top limb says which.
    Normalize(d, f[kL - 1]);
    return F::Mul(FromSigned30(d), R3());
  }

 private:
  // 2^e mod p as 32-bit limb i (compile time: repeated doubling).
  static constexpr uint32_t PowTwoModLimb(int e, int i) {
    uint32_t x[kLimbs32] = {};
    x[0] = 1;
    for (int k = 0; k < e; ++k) {
      uint32_t carry = 0;
      for (int j = 0; j < kLimbs32; ++j) {
        const uint32_t next = x[j] >> 31;
        x[j] = (x[j] << 1) | carry;
        carry = next;
      }
      // x < 2p < 2^(32N) (p < 2^(32N - 1)): subtract p once if x >= p.
      bool ge = true;
      for (int j = kLimbs32 - 1; j >= 0; --j) {
        if (x[j] != F::Mod(j)) {
          ge = x[j] > F::Mod(j);
          break;
        }
      }
      if (ge) {
        uint64_t borrow = 0;
        for (int j = 0; j < kLimbs32; ++j) {
          const uint64_t s = uint64_t(x[j]) - F::Mod(j) - borrow;
          x[j] = uint32_t(s);
          borrow = (s >> 32) & 1;
        }
      }
    }
    return x[i];
  }
  static constexpr int kR3Bits = 3 * 32 * kLimbs32;
  static constexpr uint32_t R3Part(int j) { return j < kLimbs32 ? PowTwoModLimb(kR3Bits, j) : 0u; }
  // R^3 mod p, limb by limb (scalar members: usable in device code).
  static constexpr uint32_t kR3_0 = R3Part(0), kR3_1 = R3Part(1), kR3_2 = R3Part(2), kR3_3 = R3Part(3),
                            kR3_4 = R3Part(4), kR3_5 = R3Part(5), kR3_6 = R3Part(6), kR3_7 = R3Part(7),
                            kR3_8 = R3Part(8), kR3_9 = R3Part(9), kR3_10 = R3Part(10), kR3_11 = R3Part(11);
  // R^3 mod p as limbs: the Montgomery form of R^2.
  CUZK_HD static F R3() {
    const uint32_t limbs[12] = {kR3_0, kR3_1, kR3_2, kR3_3, kR3_4, kR3_5, kR3_6, kR3_7, kR3_8, kR3_9, kR3_10, kR3_11};
    F r;
    CUZK_UNROLL
    for (int j = 0; j < kLimbs32; ++j) r.limb(j) = limbs[j];
    return r;
  }

  // Bits [30 j, 30 j + 30) of a 32-bit-limb integer.
  CUZK_HD static int32_t Bits30(const uint32_t* x, int j) {
    const int bit = 30 * j, w = bit / 32, s = bit % 32;
    uint64_t v = w < kLimbs32 ? x[w] : 0u;
    if (w + 1 < kLimbs32) v |= uint64_t(x[w + 1]) << 32;
    return int32_t(uint32_t(v >> s) & uint32_t(kM30));
  }
  static constexpr int32_t Modulus30(int j) {
    const int bit = 30 * j, w = bit / 32, s = bit % 32;
    uint64_t v = w < kLimbs32 ? F::Mod(w) : 0u;
    if (w + 1 < kLimbs32) v |= uint64_t(F::Mod(w + 1)) << 32;
    return int32_t(uint32_t(v >> s) & uint32_t(kM30));
  }
  // p^-1 mod 2^30 (kInv = -p^-1 mod 2^32).
  static constexpr uint32_t kModInv30 = (0u - F::kInv) & uint32_t(kM30);

  CUZK_HD static void ToSigned30(const F& a, int32_t (&out)[kL]) {
    uint32_t x[kLimbs32];
    CUZK_UNROLL
    for (int j = 0; j < kLimbs32; ++j) x[j] = a.limb(j);
    CUZK_UNROLL
    for (int j = 0; j < kL; ++j) out[j] = Bits30(x, j);
  }
  // From [0, p) in limbs of 30 bits (each in [0, 2^30)).
  CUZK_HD static F FromSigned30(const int32_t (&in)[kL]) {
    F r;
    CUZK_UNROLL
    for (int j = 0; j < kLimbs32; ++j) {
      const int bit = 32 * j, w = bit / 30, s = bit % 30;
      uint64_t v = uint64_t(uint32_t(in[w])) >> s;
      if (w + 1 < kL) v |= uint64_t(uint32_t(in[w + 1])) << (30 - s);
      r.limb(j) = uint32_t(v);
    }
    return r;
  }

  // (d, e) <- (t (d, e) + p (md, me)) / 2^30, md and me chosen to make the
  // division exact and to keep d, e in (-2p, p).
  CUZK_HD static void UpdateDe(int32_t (&d)[kL], int32_t (&e)[kL], const Trans& t) {
    const int32_t sd = d[kL - 1] >> 31, se = e[kL - 1] >> 31;
    int32_t md = (t.u & sd) + (t.v & se);
    int32_t me = (t.q & sd) + (t.r & se);
    int64_t cd = int64_t(t.u) * d[0] + int64_t(t.v) * e[0];
    int64_t ce = int64_t(t.q) * d[0] + int64_t(t.r) * e[0];
    md -= int32_t((kModInv30 * uint32_t(cd) + uint32_t(md)) & uint32_t(kM30));
    me -= int32_t((kModInv30 * uint32_t(ce) + uint32_t(me)) & uint32_t(kM30));
    cd += int64_t(Modulus30(0)) * md;
    ce += int64_t(Modulus30(0)) * me;
    cd >>= 30;
    ce >>= 30;
    CUZK_UNROLL
    for (int j = 1; j < kL; ++j) {
      const int32_t dj = d[j], ej = e[j];
      cd += int64_t(t.u) * dj + int64_t(t.v) * ej + int64_t(Modulus30(j)) * md;
      ce += int64_t(t.q) * dj + int64_t(t.r) * ej + int64_t(Modulus30(j)) * me;
      d[j - 1] = int32_t(cd) & kM30;
      cd >>= 30;
      e[j - 1] = int32_t(ce) & kM30;
      ce >>= 30;
    }
    d[kL - 1] = int32_t(cd);
    e[kL - 1] = int32_t(ce);
  }

  // (f, g) <- t (f, g) / 2^30. (libsecp256k1 shortens f and g as they shrink;
  // here every limb is updated, in one unrolled straight line.)
  CUZK_HD static void UpdateFg(int32_t (&f)[kL], int32_t (&g)[kL], const Trans& t) {
    int64_t cf = int64_t(t.u) * f[0] + int64_t(t.v) * g[0];
    int64_t cg = int64_t(t.q) * f[0] + int64_t(t.r) * g[0];
    cf >>= 30;
    cg >>= 30;
    CUZK_UNROLL
    for (int j = 1; j < kL; ++j) {
      const int32_t fj = f[j], gj = g[j];
      cf += int64_t(t.u) * fj + int64_t(t.v) * gj;
      cg += int64_t(t.q) * fj + int64_t(t.r) * gj;
      f[j - 1] = int32_t(cf) & kM30;
      cf >>= 30;
      g[j - 1] = int32_t(cg) & kM30;
      cg >>= 30;
    }
    f[kL - 1] = int32_t(cf);
    g[kL - 1] = int32_t(cg);
  }

  // d in (-2p, p), negated when sign < 0 (f ended at -1), to [0, p).
  CUZK_HD static void Normalize(int32_t (&r)[kL], int32_t sign) {
    int32_t cond_add = r[kL - 1] >> 31;
    CUZK_UNROLL
    for (int j = 0; j < kL; ++j) r[j] += Modulus30(j) & cond_add;
    const int32_t cond_negate = sign >> 31;
    for (int j = 0; j < kL; ++j) r[j] = (r[j] ^ cond_negate) - cond_negate;
    for (int j = 0; j < kL - 1; ++j) r[j + 1] += r[j] >> 30, r[j] &= kM30;
    cond_add = r[kL - 1] >> 31;
    for (int j = 0; j < kL; ++j) r[j] += Modulus30(j) & cond_add;
    for (int j = 0; j < kL - 1; ++j) r[j + 1] += r[j] >> 30, r[j] &= kM30;
  }
};

}  // namespace cuzk::cuda::safegcd

namespace cuzk::cuda {

// a^-1 for a device field element by safegcd (0 -> 0); equal to a.Inverse().
template <class F>
CUZK_HD F InverseVar(const F& a) {
  return safegcd::Inverter<F>::Invert(a);
}

}  // namespace cuzk::cuda
