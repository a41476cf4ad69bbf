#pragma once
// MontField32<P>: the GPU form of ff::MontField<P>, with 2N 32-bit limbs
// instead of N 64-bit ones. Same Montgomery representation (R = 2^256 for Fr,
// 2^384 for Fp) and the same little-endian memory layout, so a buffer of
// ff::Fr is a buffer of cuda::Fr without conversion. Every result is fully
// reduced (< p), so equal field elements have equal limbs on both sides.
//
// One implementation for host and device (CUZK_HD): on the device the carry
// chains are PTX instructions, on the host they are emulated (carry_chain.hpp).
// The host build exists for tests, not for speed.
//
// Multiplication is CIOS (operand scanning, one reduction per row of the
// product), 4N^2 + N 32-bit multiply-adds: 264 for Fr (N = 8), 588 for Fp
// (N = 12). Two formulations, identical results:
//  - Mul (default): "even/odd" accumulators (after Emmart, Zheng and Weems,
//    "Faster modular exponentiation using double precision floating point
//    arithmetic on the GPU", ARITH 2018, and their earlier Maxwell work): the
//    products a_j b_i with even j go to one accumulator, odd j to another
//    shifted by one limb, so each carry chain pairs the low and high half of
//    the same product (lo -> limb j, hi -> limb j+1) and one chain covers all
//    limbs. The per-row shift by 32 bits is folded into the next row's chain.
//  - MulSeparateChains: one accumulator, the low halves of a row in one chain
//    and the high halves in another. Kept as the plain reference formulation
//    and for comparison (docs/perf/gpu.md).
//  - MulDfma (mul_dfma.hpp): the limb products on the FP64 pipe, the
//    reduction on the integer pipe. Which one a field's operators use is its
//    MulPipes parameter (FpDfma and FpBoth, fp.hpp): the same field, the same
//    bytes, another instruction mix.
#include <cstdint>
#include <cstring>

#include "cuda/ff/carry_chain.hpp"
#include "cuda/ff/mul_dfma.hpp"
#include "engine/ff/mont_field.hpp"

namespace cuzk::cuda {

// Which pipes a field's multiplications use: kInteger: Mul everywhere; kFp64:
// MulDfma everywhere; kBoth: Mul for operator*, MulDfma for MulOtherPipe,
// which formulas call for about half of their independent products, so that
// warps at different places in a formula keep both pipes busy.
enum class MulPipes { kInteger, kFp64, kBoth };

template <class P, MulPipes kPipes = MulPipes::kInteger>
class MontField32 {
 public:
  using Host = ff::MontField<P>;
  static constexpr int kLimbs = 2 * int(P::kLimbs);
  static_assert(kLimbs >= 4 && kLimbs <= 12, "limb constants below are spelled out for up to 12 limbs");
  static_assert(P::kModulus[P::kLimbs - 1] >> 63 == 0, "the carry bounds need p < 2^(32N - 1)");

 private:
  template <size_t M>
  static constexpr uint32_t Limb32(const ff::Limbs<M>& x, int i) {
    return i < kLimbs ? uint32_t(x[i / 2] >> (32 * (i % 2))) : 0u;
  }

 public:
  // Modulus and R mod p as scalar constants: scalar constexpr members are
  // usable in device code, arrays of the host type are not. After unrolling,
  // Mod(j) folds to an immediate operand.
  static constexpr uint32_t kP0 = Limb32(P::kModulus, 0), kP1 = Limb32(P::kModulus, 1), kP2 = Limb32(P::kModulus, 2),
                            kP3 = Limb32(P::kModulus, 3), kP4 = Limb32(P::kModulus, 4), kP5 = Limb32(P::kModulus, 5),
                            kP6 = Limb32(P::kModulus, 6), kP7 = Limb32(P::kModulus, 7), kP8 = Limb32(P::kModulus, 8),
                            kP9 = Limb32(P::kModulus, 9), kP10 = Limb32(P::kModulus, 10),
                            kP11 = Limb32(P::kModulus, 11);
  static constexpr uint32_t kR0 = Limb32(Host::kR, 0), kR1 = Limb32(Host::kR, 1), kR2 = Limb32(Host::kR, 2),
                            kR3 = Limb32(Host::kR, 3), kR4 = Limb32(Host::kR, 4), kR5 = Limb32(Host::kR, 5),
                            kR6 = Limb32(Host::kR, 6), kR7 = Limb32(Host::kR, 7), kR8 = Limb32(Host::kR, 8),
                            kR9 = Limb32(Host::kR, 9), kR10 = Limb32(Host::kR, 10), kR11 = Limb32(Host::kR, 11);
  // -p^-1 mod 2^32: the low half of the host's -p^-1 mod 2^64.
  static constexpr uint32_t kInv = uint32_t(Host::kInv);
  // Fr's modulus ends in limbs 1, 0xffffffff (p = 1 mod 2^32, so -p^-1 = -1):
  // the reduction then needs no multiplies for those two limbs.
  static constexpr bool kLowLimbsOneAndAllOnes = kP0 == 1 && kP1 == 0xffffffffu && kInv == 0xffffffffu;
  // The fused rows (MulAddFused, SquareFused) hold up to 3p in N limbs (see
  // MulAddFused): a top limb below 2^30 (p < 2^(32N - 2)) leaves that room.
  // Fp (p < 2^381) has it, Fr (p > 2^254) does not.
  static constexpr bool kFusedMulSubFits = (kLimbs == 12 ? kP11 : kLimbs == 8 ? kP7 : ~0u) < (1u << 30);

  CUZK_HD static constexpr uint32_t Mod(int i) {
    switch (i) {
      case 0: return kP0;
      case 1: return kP1;
      case 2: return kP2;
      case 3: return kP3;
      case 4: return kP4;
      case 5: return kP5;
      case 6: return kP6;
      case 7: return kP7;
      case 8: return kP8;
      case 9: return kP9;
      case 10: return kP10;
      default: return kP11;
    }
  }
  // Limb i of p - 2. The borrow runs through the low limbs: Fr's low limb is 1
  // (taking Mod(0) - 2 alone made Fr's Inverse wrong: `cuzk-gpu-bench field`).
  CUZK_HD static constexpr uint32_t ModMinusTwo(int i) {
    uint32_t borrow = 2;
    for (int j = 0; j < i; ++j) borrow = Mod(j) < borrow ? 1u : 0u;
    return Mod(i) - borrow;
  }
  CUZK_HD static constexpr uint32_t OneLimb(int i) {
    switch (i) {
      case 0: return kR0;
      case 1: return kR1;
      case 2: return kR2;
      case 3: return kR3;
      case 4: return kR4;
      case 5: return kR5;
      case 6: return kR6;
      case 7: return kR7;
      case 8: return kR8;
      case 9: return kR9;
      case 10: return kR10;
      default: return kR11;
    }
  }

  // Trivial default constructor (uninitialized) so the type can live in
  // __shared__ arrays and registers without zeroing; use Zero() for zero.
  MontField32() = default;

  CUZK_HD static MontField32 Zero() {
    MontField32 r;
    CUZK_UNROLL
    for (int j = 0; j < kLimbs; ++j) r.l_[j] = 0;
    return r;
  }
  CUZK_HD static MontField32 One() {
    MontField32 r;
    CUZK_UNROLL
    for (int j = 0; j < kLimbs; ++j) r.l_[j] = OneLimb(j);
    return r;
  }

  CUZK_HD uint32_t& limb(int i) { return l_[i]; }
  CUZK_HD uint32_t limb(int i) const { return l_[i]; }

  // Host interop: same bytes (little-endian 64-bit limbs = little-endian 32-bit limbs).
  static MontField32 FromHost(const Host& h) {
    static_assert(sizeof(Host) == sizeof(MontField32));
    MontField32 r;
    std::memcpy(r.l_, h.Montgomery().data(), sizeof r.l_);
    return r;
  }
  Host ToHost() const {
    typename Host::LimbArray x;
    std::memcpy(x.data(), l_, sizeof l_);
    return Host::FromMontgomery(x);
  }

  CUZK_HD bool IsZero() const {
    uint32_t acc = 0;
    CUZK_UNROLL
    for (int j = 0; j < kLimbs; ++j) acc |= l_[j];
    return acc == 0;
  }
  CUZK_HD friend bool operator==(const MontField32& a, const MontField32& b) {
    uint32_t acc = 0;
    CUZK_UNROLL
    for (int j = 0; j < kLimbs; ++j) acc |= a.l_[j] ^ b.l_[j];
    return acc == 0;
  }
  CUZK_HD friend bool operator!=(const MontField32& a, const MontField32& b) { return !(a == b); }

  // a + b < 2p < 2^(32N): no carry out of the top limb, one conditional subtraction.
  CUZK_HD friend MontField32 operator+(const MontField32& a, const MontField32& b) {
    MontField32 r;
    r.l_[0] = ptx::AddCc(a.l_[0], b.l_[0]);
    CUZK_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) r.l_[j] = ptx::AddcCc(a.l_[j], b.l_[j]);
    r.l_[kLimbs - 1] = ptx::Addc(a.l_[kLimbs - 1], b.l_[kLimbs - 1]);
    r.SubtractModulusIfGe();
    return r;
  }

  // a - b, plus p when it borrowed (mask instead of a branch).
  CUZK_HD friend MontField32 operator-(const MontField32& a, const MontField32& b) {
    MontField32 r;
    r.l_[0] = ptx::SubCc(a.l_[0], b.l_[0]);
    CUZK_UNROLL
    for (int j = 1; j < kLimbs; ++j) r.l_[j] = ptx::SubcCc(a.l_[j], b.l_[j]);
    const uint32_t mask = ptx::Subc(0, 0);
    r.l_[0] = ptx::AddCc(r.l_[0], Mod(0) & mask);
    CUZK_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) r.l_[j] = ptx::AddcCc(r.l_[j], Mod(j) & mask);
    r.l_[kLimbs - 1] = ptx::Addc(r.l_[kLimbs - 1], Mod(kLimbs - 1) & mask);
    return r;
  }

  // p - a, or 0 for a = 0.
  CUZK_HD MontField32 operator-() const {
    const uint32_t keep = IsZero() ? 0u : ~0u;
    MontField32 r;
    r.l_[0] = ptx::SubCc(Mod(0), l_[0]);
    CUZK_UNROLL
    for (int j = 1; j < kLimbs - 1; ++j) r.l_[j] = ptx::SubcCc(Mod(j), l_[j]);
    r.l_[kLimbs - 1] = ptx::Subc(Mod(kLimbs - 1), l_[kLimbs - 1]);
    CUZK_UNROLL
    for (int j = 0; j < kLimbs; ++j) r.l_[j] &= keep;
    return r;
  }

  // The multiplication the operators use.
  CUZK_HD static MontField32 Multiply(const MontField32& a, const MontField32& b) {
    if constexpr (kPipes == MulPipes::kFp64) {
      return MulDfma(a, b);
    } else {
      return Mul(a, b);
    }
  }
  // The multiplication on the other pipe (kBoth), else the operators' one.
  CUZK_HD static MontField32 MulOtherPipe(const MontField32& a, const MontField32& b) {
    if constexpr (kPipes == MulPipes::kBoth) {
      return MulDfma(a, b);
    } else {
      return Multiply(a, b);
    }
  }
  CUZK_HD friend MontField32 operator*(const MontField32& a, const MontField32& b) { return Multiply(a, b); }
  CUZK_HD MontField32& operator+=(const MontField32& o) { return *this = *this + o; }
  CUZK_HD MontField32& operator-=(const MontField32& o) { return *this = *this - o; }
  CUZK_HD MontField32& operator*=(const MontField32& o) { return *this = Multiply(*this, o); }
  CUZK_HD MontField32 Double() const { return *this + *this; }
  // a^2: SquareFused on the integer pipe where the fused rows fit (Fp), else
  // the field's multiplication.
  CUZK_HD MontField32 Square() const {
    if constexpr (kPipes == MulPipes::kInteger && kFusedMulSubFits) {
      return SquareFused(*this);
    } else {
      return Multiply(*this, *this);
    }
  }
  // a b - c d. On the integer pipe where the fused rows fit (Fp), one
  // Montgomery reduction for both products (MulAddFused with -d: 6N^2
  // multiply-adds against 8N^2; the XYZZ formulas' y3); else two products on
  // the field's pipes.
  CUZK_HD static MontField32 MulSub(const MontField32& a, const MontField32& b, const MontField32& c,
                                    const MontField32& d) {
    if constexpr (kPipes == MulPipes::kInteger && kFusedMulSubFits) {
      return MulAddFused(a, b, c, -d);
    } else {
      return Multiply(a, b) - MulOtherPipe(c, d);
    }
  }
  // a^(p-2) = a^-1 by Fermat (0 maps to 0): 32 N squarings and about half as
  // many multiplications (Fp: ~576 in all). For the rare inversions on the
  // device (one per batch of points made affine), not for hot loops.
  CUZK_HD MontField32 Inverse() const {
    MontField32 r = One();
    for (int i = kLimbs - 1; i >= 0; --i) {
      const uint32_t e = ModMinusTwo(i);
      for (int bit = 31; bit >= 0; --bit) {
        r = r.Square();
        if ((e >> bit) & 1) r = Multiply(r, *this);
      }
    }
    return r;
  }

  // Even/odd accumulators. State between rows: x (N + 1 limbs, positions
  // 0..N) and y (N limbs at positions 1..N), total T = x + y 2^32. Bounds
  // (a, b < p, p < 2^(32N) / 2 (1 - 2^-32), which holds for Fr and Fp), with
  // T' < 2p the usual CIOS invariant after each row's shift:
  //   x = (shifted part, <= T' < 2p) + a_even b_i + m p_even < 2p 2^32: fits N + 1 limbs;
  //   y 2^32 <= 2p + a_odd b_i + m p_odd < 2p (2^32 + 1):    fits N limbs,
  // so the chains into y never carry out of its top limb, and the final
  // y + x / 2^32 = T < 2p needs no extra limb.
  CUZK_HD static MontField32 Mul(const MontField32& a, const MontField32& b) {
    constexpr int N = kLimbs;
    uint32_t x[N + 1], y[N];
    FirstRow(a, b.l_[0], x, y);
    ReduceEvenOdd(x, y);
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      ShiftedRow(a, b.l_[i], x, y);
      ReduceEvenOdd(x, y);
    }
    return FromAccumulators(x, y);
  }

  // (a b + c e) R^-1 mod p, fully reduced: Mul's rows with a second product
  // in each, so the two products share one reduction. Row i adds a b_i and
  // c e_i (each in its even and odd chain) before the row's reduction.
  // Bounds, for a, b, c, e < p and 4p < 2^(32N) (kFusedMulSubFits): after row
  // i the value is (the products' rows so far + M p) / 2^(32 (i + 1)) < 3p
  // (each row adds at most 3 (p - 1)(2^32 - 1)), so x < 3p + 3p 2^32 fits
  // N + 1 limbs and y 2^32 <= (3p - 1) + 3 (p - 1)(2^32 - 1) < 3p 2^32, so
  // y < 3p fits N limbs (its chains never carry out of the top). The result is
  // (a b + c e + M p) / R < 2p^2 / R + p < 2p (2p < R): one conditional
  // subtraction.
  CUZK_HD static MontField32 MulAddFused(const MontField32& a, const MontField32& b, const MontField32& c,
                                         const MontField32& e) {
    static_assert(kFusedMulSubFits);
    constexpr int N = kLimbs;
    uint32_t x[N + 1], y[N];
    FirstRow(a, b.l_[0], x, y);
    AddEvenProducts(x, c, e.l_[0]);
    AddOddProducts(y, c, e.l_[0]);
    ReduceEvenOdd(x, y);
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      ShiftedRow(a, b.l_[i], x, y);
      AddEvenProducts(x, c, e.l_[i]);
      AddOddProducts(y, c, e.l_[i]);
      ReduceEvenOdd(x, y);
    }
    return FromAccumulators(x, y);
  }

  // a^2 R^-1 mod p in Mul's rows with each cross product once: row i adds
  // a_i (a_i 2^(32 i) + 2 sum_(k > i) a_k 2^(32 k)), i.e. a_i times the
  // limbs k >= i of v = (a_i, the limbs of 2a above it), so the rows hold
  // N (N + 1) / 2 products instead of N^2 (Fp: 456 multiply-adds against
  // 588) in the same even/odd chains. A product lands where Mul's would (at
  // limb k of the row, even k in x, odd in y); the limbs k < i of a row only
  // shift. Every product at limb j comes from a row i' <= j / 2 (row i'
  // adds at 2 i' and above), so by the end of row i limb i is complete when
  // that row's reduction clears it. Limb i + 1 of v is a_(i+1) << 1 without
  // the top bit of a_i (a_i itself is not in 2 sum_(k > i) a_k 2^(32 k)).
  // Bounds as in MulAddFused (a row adds a_i v < 2^32 2p); 2a needs no limb
  // N because a_(N-1) < 2^30.
  CUZK_HD static MontField32 SquareFused(const MontField32& a) {
    static_assert(kFusedMulSubFits);
    constexpr int N = kLimbs;
    uint32_t d[N];  // the limbs of 2a (d[0] = a_0 << 1)
    d[0] = a.l_[0] << 1;
    CUZK_UNROLL
    for (int k = 1; k < N; ++k) d[k] = (a.l_[k] << 1) | (a.l_[k - 1] >> 31);
    // Limb k of row i's multiplicand (k >= i).
    auto v = [&](int i, int k) -> uint32_t { return k == i ? a.l_[i] : k == i + 1 ? a.l_[k] << 1 : d[k]; };
    uint32_t x[N + 1], y[N];
    MontField32 v0;  // row 0's multiplicand: a_0, then the limbs of 2a above it
    CUZK_UNROLL
    for (int k = 0; k < N; ++k) v0.l_[k] = v(0, k);
    FirstRow(v0, a.l_[0], x, y);
    ReduceEvenOdd(x, y);
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      const uint32_t ai = a.l_[i];
      uint32_t nx[N + 1], ny[N];
      // The shift, with the odd products k >= i in the same chain.
      nx[0] = ptx::AddCc(y[0], x[1]);
      CUZK_UNROLL
      for (int k = 1; k < N - 1; k += 2) {
        if (k >= i) {
          ny[k - 1] = ptx::MadcLoCc(v(i, k), ai, x[k + 1]);
          ny[k] = ptx::MadcHiCc(v(i, k), ai, x[k + 2]);
        } else {
          ny[k - 1] = ptx::AddcCc(x[k + 1], 0);
          ny[k] = ptx::AddcCc(x[k + 2], 0);
        }
      }
      ny[N - 2] = ptx::MadcLoCc(v(i, N - 1), ai, x[N]);  // N - 1 >= i always
      ny[N - 1] = ptx::MadcHi(v(i, N - 1), ai, 0);
      CUZK_UNROLL
      for (int k = 1; k < N; ++k) nx[k] = y[k];
      // The even products k >= i, one chain from the first of them (none in
      // the last row when N - 1 is odd).
      const int k0 = i + (i & 1);
      if (k0 < N) {
        nx[k0] = ptx::MadLoCc(v(i, k0), ai, nx[k0]);
        nx[k0 + 1] = ptx::MadcHiCc(v(i, k0), ai, nx[k0 + 1]);
        CUZK_UNROLL
        for (int k = k0 + 2; k < N; k += 2) {
          nx[k] = ptx::MadcLoCc(v(i, k), ai, nx[k]);
          nx[k + 1] = ptx::MadcHiCc(v(i, k), ai, nx[k + 1]);
        }
        nx[N] = ptx::Addc(0, 0);
      } else {
        nx[N] = 0;
      }
      CUZK_UNROLL
      for (int k = 0; k <= N; ++k) x[k] = nx[k];
      CUZK_UNROLL
      for (int k = 0; k < N; ++k) y[k] = ny[k];
      ReduceEvenOdd(x, y);
    }
    return FromAccumulators(x, y);
  }

  // t R^-1 mod p, fully reduced, for a double-width t < p^2 (the product of
  // two reduced elements; MulDfma's). With t = L + H 2^(32N), Montgomery's
  // (t + M p) / R is H + (L + M p) / R, and M depends on L alone, so the N
  // reduction rows run on L in Mul's even/odd accumulators (whose chains
  // become 64-bit multiply-adds, half the instructions of separate low and
  // high chains) and H is added once at the end: (L + M p) / R <= p and
  // H < p^2 / R < p, so one conditional subtraction finishes.
  CUZK_HD static MontField32 ReduceWide(const uint32_t (&t)[2 * kLimbs]) {
    constexpr int N = kLimbs;
    uint32_t x[N + 1], y[N];
    CUZK_UNROLL
    for (int k = 0; k < N; ++k) x[k] = t[k], y[k] = 0;
    x[N] = 0;
    ReduceEvenOdd(x, y);
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      // Mul's shift by one limb without a row of products:
      // T / 2^32 = (y + x_1) + 2^32 (x_2 .. x_N).
      uint32_t nx[N + 1], ny[N];
      // x < 2^(32N) + p + 2^32 p here, so x_N < 2^31 (Fr and Fp): the chain
      // ends there without a carry and the new odd accumulator's top limb is 0.
      nx[0] = ptx::AddCc(y[0], x[1]);
      CUZK_UNROLL
      for (int j = 0; j < N - 2; ++j) ny[j] = ptx::AddcCc(x[j + 2], 0);
      ny[N - 2] = ptx::Addc(x[N], 0);
      ny[N - 1] = 0;
      CUZK_UNROLL
      for (int k = 1; k < N; ++k) nx[k] = y[k];
      nx[N] = 0;
      CUZK_UNROLL
      for (int k = 0; k <= N; ++k) x[k] = nx[k];
      CUZK_UNROLL
      for (int k = 0; k < N; ++k) y[k] = ny[k];
      ReduceEvenOdd(x, y);
    }
    // (L + M p) / R = y + x / 2^32 (x_0 = 0), plus H.
    uint32_t s[N];
    s[0] = ptx::AddCc(y[0], x[1]);
    CUZK_UNROLL
    for (int k = 1; k < N - 1; ++k) s[k] = ptx::AddcCc(y[k], x[k + 1]);
    s[N - 1] = ptx::Addc(y[N - 1], x[N]);
    MontField32 r;
    r.l_[0] = ptx::AddCc(s[0], t[N]);
    CUZK_UNROLL
    for (int k = 1; k < N - 1; ++k) r.l_[k] = ptx::AddcCc(s[k], t[N + k]);
    r.l_[N - 1] = ptx::Addc(s[N - 1], t[2 * N - 1]);
    r.SubtractModulusIfGe();
    return r;
  }

  // One accumulator, separate low-half and high-half chains per row.
  // Accumulator < 2^(32N + 32) within a row because p < 2^(32N - 1).
  CUZK_HD static MontField32 MulSeparateChains(const MontField32& a, const MontField32& b) {
    constexpr int N = kLimbs;
    uint32_t t[N + 1];
    {  // row 0: t = a * b_0 (the accumulator starts at zero, so no additions in the low chain)
      const uint32_t bi = b.l_[0];
      CUZK_UNROLL
      for (int j = 0; j < N; ++j) t[j] = a.l_[j] * bi;
      t[1] = ptx::MadHiCc(a.l_[0], bi, t[1]);
      CUZK_UNROLL
      for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::MadcHiCc(a.l_[j], bi, t[j + 1]);
      t[N] = ptx::MadcHi(a.l_[N - 1], bi, 0);
      ReduceRow(t);
    }
    CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      const uint32_t bi = b.l_[i];
      t[0] = ptx::MadLoCc(a.l_[0], bi, t[0]);
      CUZK_UNROLL
      for (int j = 1; j < N; ++j) t[j] = ptx::MadcLoCc(a.l_[j], bi, t[j]);
      t[N] = ptx::Addc(0, 0);
      t[1] = ptx::MadHiCc(a.l_[0], bi, t[1]);
      CUZK_UNROLL
      for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::MadcHiCc(a.l_[j], bi, t[j + 1]);
      t[N] = ptx::MadcHi(a.l_[N - 1], bi, t[N]);
      ReduceRow(t);
    }
    MontField32 r;
    CUZK_UNROLL
    for (int j = 0; j < N; ++j) r.l_[j] = t[j];
    r.SubtractModulusIfGe();  // t < 2p
    return r;
  }

 private:
  // x += m p_even, y += m p_odd with m = x_0 (-p^-1) mod 2^32 (x_0 becomes 0).
  CUZK_HD static void ReduceEvenOdd(uint32_t (&x)[kLimbs + 1], uint32_t (&y)[kLimbs]) {
    constexpr int N = kLimbs;
    const uint32_t x0 = x[0];
    const uint32_t m = x0 * kInv;
    if constexpr (kLowLimbsOneAndAllOnes) {
      // p_0 = 1: x_0 + m p_0 = x_0 + (2^32 - x_0) leaves 0 and carries iff x_0 != 0
      // (add.cc x_0 + 0xffffffff carries exactly then); hi(m p_0) = 0.
      (void)ptx::AddCc(x0, 0xffffffffu);
      x[1] = ptx::AddcCc(x[1], 0);
    } else {
      x[0] = ptx::MadLoCc(m, Mod(0), x[0]);
      x[1] = ptx::MadcHiCc(m, Mod(0), x[1]);
    }
    CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
      x[j] = ptx::MadcLoCc(m, Mod(j), x[j]);
      x[j + 1] = ptx::MadcHiCc(m, Mod(j), x[j + 1]);
    }
    x[N] = ptx::Addc(x[N], 0);
    if constexpr (kLowLimbsOneAndAllOnes) {
      // p_1 = 2^32 - 1: m p_1 = m 2^32 - m, so lo = -m = x_0 and hi = m - 1 = ~x_0
      // (both 0 when x_0 = 0). Two multiplies fewer per row for Fr.
      y[0] = ptx::AddCc(y[0], x0);
      y[1] = ptx::AddcCc(y[1], x0 != 0 ? ~x0 : 0u);
    } else {
      y[0] = ptx::MadLoCc(m, Mod(1), y[0]);
      y[1] = ptx::MadcHiCc(m, Mod(1), y[1]);
    }
    CUZK_UNROLL
    for (int j = 3; j < N - 1; j += 2) {
      y[j - 1] = ptx::MadcLoCc(m, Mod(j), y[j - 1]);
      y[j] = ptx::MadcHiCc(m, Mod(j), y[j]);
    }
    y[N - 2] = ptx::MadcLoCc(m, Mod(N - 1), y[N - 2]);
    y[N - 1] = ptx::MadcHi(m, Mod(N - 1), y[N - 1]);
  }

  // Mul's rows on the even/odd accumulators (state between rows: see Mul).
  // Row 0: x, y = a b_0. The pieces lo/hi(a_j b_0) do not overlap within x
  // or y: no carries.
  CUZK_HD static void FirstRow(const MontField32& a, uint32_t bi, uint32_t (&x)[kLimbs + 1], uint32_t (&y)[kLimbs]) {
    constexpr int N = kLimbs;
    CUZK_UNROLL
    for (int j = 0; j < N; j += 2) {
      x[j] = a.l_[j] * bi;
      x[j + 1] = ptx::MulHi(a.l_[j], bi);
      y[j] = a.l_[j + 1] * bi;
      y[j + 1] = ptx::MulHi(a.l_[j + 1], bi);
    }
    x[N] = 0;
  }

  // Rows 1 .. N-1 (after the previous row's reduction): shift by one limb,
  // T/2^32 = (y + x_1) + 2^32 (x_2 .. x_N), and add a b_i. The new even
  // accumulator is y plus x_1 at position 0; its carry goes to position 1,
  // the first limb of the new odd accumulator, whose chain also adds the odd
  // products of this row; the even products follow in one chain.
  CUZK_HD static void ShiftedRow(const MontField32& a, uint32_t bi, uint32_t (&x)[kLimbs + 1], uint32_t (&y)[kLimbs]) {
    constexpr int N = kLimbs;
    uint32_t nx[N + 1], ny[N];
    nx[0] = ptx::AddCc(y[0], x[1]);
    CUZK_UNROLL
    for (int j = 1; j < N - 1; j += 2) {
      ny[j - 1] = ptx::MadcLoCc(a.l_[j], bi, x[j + 1]);
      ny[j] = ptx::MadcHiCc(a.l_[j], bi, x[j + 2]);
    }
    ny[N - 2] = ptx::MadcLoCc(a.l_[N - 1], bi, x[N]);
    ny[N - 1] = ptx::MadcHi(a.l_[N - 1], bi, 0);
    CUZK_UNROLL
    for (int k = 1; k < N; ++k) nx[k] = y[k];
    nx[N] = 0;
    AddEvenProducts(nx, a, bi);
    CUZK_UNROLL
    for (int k = 0; k <= N; ++k) x[k] = nx[k];
    CUZK_UNROLL
    for (int k = 0; k < N; ++k) y[k] = ny[k];
  }

  // The value after the last row's reduction, T = y + x / 2^32 (x_0 = 0),
  // fully reduced (T < 2p).
  CUZK_HD static MontField32 FromAccumulators(const uint32_t (&x)[kLimbs + 1], const uint32_t (&y)[kLimbs]) {
    constexpr int N = kLimbs;
    MontField32 r;
    r.l_[0] = ptx::AddCc(y[0], x[1]);
    CUZK_UNROLL
    for (int k = 1; k < N - 1; ++k) r.l_[k] = ptx::AddcCc(y[k], x[k + 1]);
    r.l_[N - 1] = ptx::Addc(y[N - 1], x[N]);
    r.SubtractModulusIfGe();
    return r;
  }

  // x += c_even e_i in the even accumulator's layout (c_j e_i for even j at
  // limbs j and j + 1), one chain whose carry goes to x_N; MulAddFused's
  // bounds keep it there.
  CUZK_HD static void AddEvenProducts(uint32_t (&x)[kLimbs + 1], const MontField32& c, uint32_t ei) {
    constexpr int N = kLimbs;
    x[0] = ptx::MadLoCc(c.l_[0], ei, x[0]);
    x[1] = ptx::MadcHiCc(c.l_[0], ei, x[1]);
    CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
      x[j] = ptx::MadcLoCc(c.l_[j], ei, x[j]);
      x[j + 1] = ptx::MadcHiCc(c.l_[j], ei, x[j + 1]);
    }
    x[N] = ptx::Addc(x[N], 0);
  }

  // y += c_odd e_i in the odd accumulator's layout (c_j e_i for odd j at
  // limbs j - 1 and j), one chain; MulAddFused's bounds keep it in N limbs.
  CUZK_HD static void AddOddProducts(uint32_t (&y)[kLimbs], const MontField32& c, uint32_t ei) {
    constexpr int N = kLimbs;
    y[0] = ptx::MadLoCc(c.l_[1], ei, y[0]);
    y[1] = ptx::MadcHiCc(c.l_[1], ei, y[1]);
    CUZK_UNROLL
    for (int j = 3; j < N - 1; j += 2) {
      y[j - 1] = ptx::MadcLoCc(c.l_[j], ei, y[j - 1]);
      y[j] = ptx::MadcHiCc(c.l_[j], ei, y[j]);
    }
    y[N - 2] = ptx::MadcLoCc(c.l_[N - 1], ei, y[N - 2]);
    y[N - 1] = ptx::MadcHi(c.l_[N - 1], ei, y[N - 1]);
  }

  // t += m p with m = t_0 (-p^-1) mod 2^32 (so t_0 becomes 0), then t >>= 32.
  // In: t < 2^(32N + 32) with t[N] valid; out: t < 2p, t[N] = 0.
  CUZK_HD static void ReduceRow(uint32_t (&t)[kLimbs + 1]) {
    constexpr int N = kLimbs;
    const uint32_t m = t[0] * kInv;
    t[0] = ptx::MadLoCc(m, Mod(0), t[0]);
    CUZK_UNROLL
    for (int j = 1; j < N; ++j) t[j] = ptx::MadcLoCc(m, Mod(j), t[j]);
    t[N] = ptx::Addc(t[N], 0);
    t[1] = ptx::MadHiCc(m, Mod(0), t[1]);
    CUZK_UNROLL
    for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::MadcHiCc(m, Mod(j), t[j + 1]);
    t[N] = ptx::MadcHi(m, Mod(N - 1), t[N]);
    CUZK_UNROLL
    for (int j = 0; j < N; ++j) t[j] = t[j + 1];
    t[N] = 0;
  }

  // For values < 2p: subtract p unless that borrows.
  CUZK_HD void SubtractModulusIfGe() {
    uint32_t s[kLimbs];
    s[0] = ptx::SubCc(l_[0], Mod(0));
    CUZK_UNROLL
    for (int j = 1; j < kLimbs; ++j) s[j] = ptx::SubcCc(l_[j], Mod(j));
    const uint32_t borrow = ptx::Subc(0, 0);
    CUZK_UNROLL
    for (int j = 0; j < kLimbs; ++j) l_[j] = borrow ? l_[j] : s[j];
  }

  uint32_t l_[kLimbs];
};

}  // namespace cuzk::cuda
