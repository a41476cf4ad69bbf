#pragma once
// Branch-free field kernels for the MSM's inner loops, in out-parameter form.
//
// Why: MontField's operator+ / operator- branch on the carry out of the limb chain, which is a coin
// flip for random operands, and GCC 12 builds the u128 limb helpers into long sequences; measured
// on the development machine (AMD EPYC, same run): Fp operator- 34 ns, these kernels 6 ns, an Fp
// multiplication 72 ns (a loaded moment; the ratios are what matter). A batched affine addition
// does ~7 of them per ~6 multiplications, so they were ~20% of an MSM. (They belong in MontField
// itself; kept here until the field's owner takes them.)
//
// FieldKernels<F> provides Add, Sub, Mul, Square and CondNeg for F = Fp (x86-64 assembly, portable
// MontField code elsewhere) and F = Fp2 (composed from the Fp kernels). Every result is canonical,
// exactly as MontField's operators give it.
#include <cstdint>
#include <type_traits>

#include "engine/ff/fp.hpp"
#include "engine/ff/fp2.hpp"

namespace cuzk::msm::internal {

#if defined(CUZK_FF_X86_64_ASM)
namespace asm6 {

// {0 x 6, p x 6}: row 1 (offset 48) is p; a borrow selects the row to add back.
inline constexpr uint64_t kZeroOrModulus[12] = {0,
                                                0,
                                                0,
                                                0,
                                                0,
                                                0,
                                                ff::Fp::kModulus[0],
                                                ff::Fp::kModulus[1],
                                                ff::Fp::kModulus[2],
                                                ff::Fp::kModulus[3],
                                                ff::Fp::kModulus[4],
                                                ff::Fp::kModulus[5]};

// r = a - b mod p: sub/sbb chain, borrow -> row offset (0 or 48), adc chain of that row.
[[gnu::always_inline]] inline void SubMod(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t r0, r1, r2, r3, r4, r5, t;
  __asm__(
      "movq 0(%[a]), %[r0]\n\t"
      "movq 8(%[a]), %[r1]\n\t"
      "movq 16(%[a]), %[r2]\n\t"
      "movq 24(%[a]), %[r3]\n\t"
      "movq 32(%[a]), %[r4]\n\t"
      "movq 40(%[a]), %[r5]\n\t"
      "subq 0(%[b]), %[r0]\n\t"
      "sbbq 8(%[b]), %[r1]\n\t"
      "sbbq 16(%[b]), %[r2]\n\t"
      "sbbq 24(%[b]), %[r3]\n\t"
      "sbbq 32(%[b]), %[r4]\n\t"
      "sbbq 40(%[b]), %[r5]\n\t"
      "sbbq %[t], %[t]\n\t"
      "andq $48, %[t]\n\t"
      "addq %[q], %[t]\n\t"
      "addq 0(%[t]), %[r0]\n\t"
      "adcq 8(%[t]), %[r1]\n\t"
      "adcq 16(%[t]), %[r2]\n\t"
      "adcq 24(%[t]), %[r3]\n\t"
      "adcq 32(%[t]), %[r4]\n\t"
      "adcq 40(%[t]), %[r5]\n\t"
      : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [r5] "=&r"(r5), [t] "=&r"(t)
      : [a] "r"(a), [b] "r"(b), [q] "r"(kZeroOrModulus), "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b),
        "m"(kZeroOrModulus)
      : "cc");
  r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3, r[4] = r4, r[5] = r5;
}

// r = a + b mod p: a + b < 2p < 2^384 never carries out; subtract p, add it back on borrow.
[[gnu::always_inline]] inline void AddMod(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t r0, r1, r2, r3, r4, r5, t;
  __asm__(
      "movq 0(%[a]), %[r0]\n\t"
      "movq 8(%[a]), %[r1]\n\t"
      "movq 16(%[a]), %[r2]\n\t"
      "movq 24(%[a]), %[r3]\n\t"
      "movq 32(%[a]), %[r4]\n\t"
      "movq 40(%[a]), %[r5]\n\t"
      "addq 0(%[b]), %[r0]\n\t"
      "adcq 8(%[b]), %[r1]\n\t"
      "adcq 16(%[b]), %[r2]\n\t"
      "adcq 24(%[b]), %[r3]\n\t"
      "adcq 32(%[b]), %[r4]\n\t"
      "adcq 40(%[b]), %[r5]\n\t"
      "subq 48(%[q]), %[r0]\n\t"
      "sbbq 56(%[q]), %[r1]\n\t"
      "sbbq 64(%[q]), %[r2]\n\t"
      "sbbq 72(%[q]), %[r3]\n\t"
      "sbbq 80(%[q]), %[r4]\n\t"
      "sbbq 88(%[q]), %[r5]\n\t"
      "sbbq %[t], %[t]\n\t"
      "andq $48, %[t]\n\t"
      "addq %[q], %[t]\n\t"
      "addq 0(%[t]), %[r0]\n\t"
      "adcq 8(%[t]), %[r1]\n\t"
      "adcq 16(%[t]), %[r2]\n\t"
      "adcq 24(%[t]), %[r3]\n\t"
      "adcq 32(%[t]), %[r4]\n\t"
      "adcq 40(%[t]), %[r5]\n\t"
      : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [r5] "=&r"(r5), [t] "=&r"(t)
      : [a] "r"(a), [b] "r"(b), [q] "r"(kZeroOrModulus), "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b),
        "m"(kZeroOrModulus)
      : "cc");
  r[0] = r0, r[1] = r1, r[2] = r2, r[3] = r3, r[4] = r4, r[5] = r5;
}

}  // namespace asm6
#endif

template <class F>
struct FieldKernels;

template <>
struct FieldKernels<ff::Fp> {
  using F = ff::Fp;
  static_assert(std::is_standard_layout_v<F> && sizeof(F) == 48, "Fp must be its six limbs");

  [[gnu::always_inline]] static void Sub(F& r, const F& a, const F& b) {
#if defined(CUZK_FF_X86_64_ASM)
    asm6::SubMod(Limbs(r), Limbs(a), Limbs(b));
#else
    r = a - b;
#endif
  }
  [[gnu::always_inline]] static void Add(F& r, const F& a, const F& b) {
#if defined(CUZK_FF_X86_64_ASM)
    asm6::AddMod(Limbs(r), Limbs(a), Limbs(b));
#else
    r = a + b;
#endif
  }
  // r = neg ? -a : a, without a branch on neg (digit signs are random): 0 - a or a - 0.
  [[gnu::always_inline]] static void CondNeg(F& r, const F& a, bool neg) {
    const F* x = neg ? &kZero : &a;
    const F* y = neg ? &a : &kZero;
    Sub(r, *x, *y);
  }
  [[gnu::always_inline]] static void Mul(F& r, const F& a, const F& b) { r = a * b; }
  [[gnu::always_inline]] static void Square(F& r, const F& a) { r = a.Square(); }

 private:
  static constexpr F kZero{};
  static uint64_t* Limbs(F& f) { return reinterpret_cast<uint64_t*>(&f); }
  static const uint64_t* Limbs(const F& f) { return reinterpret_cast<const uint64_t*>(&f); }
};

template <>
struct FieldKernels<ff::Fp2> {
  using F = ff::Fp2;
  using K = FieldKernels<ff::Fp>;

  [[gnu::always_inline]] static void Sub(F& r, const F& a, const F& b) {
    K::Sub(r.c0, a.c0, b.c0);
    K::Sub(r.c1, a.c1, b.c1);
  }
  [[gnu::always_inline]] static void Add(F& r, const F& a, const F& b) {
    K::Add(r.c0, a.c0, b.c0);
    K::Add(r.c1, a.c1, b.c1);
  }
  [[gnu::always_inline]] static void CondNeg(F& r, const F& a, bool neg) {
    K::CondNeg(r.c0, a.c0, neg);
    K::CondNeg(r.c1, a.c1, neg);
  }
  // Karatsuba, 3M (as Fp2::operator*). r may alias a or b.
  static void Mul(F& r, const F& a, const F& b) {
    ff::Fp v0, v1, s, t;
    K::Mul(v0, a.c0, b.c0);
    K::Mul(v1, a.c1, b.c1);
    K::Add(s, a.c0, a.c1);
    K::Add(t, b.c0, b.c1);
    K::Mul(s, s, t);
    K::Sub(s, s, v0);
    K::Sub(r.c1, s, v1);
    K::Sub(r.c0, v0, v1);
  }
  // (a + bu)^2 = (a + b)(a - b) + 2ab u: 2M.
  static void Square(F& r, const F& a) {
    ff::Fp s, d, m;
    K::Add(s, a.c0, a.c1);
    K::Sub(d, a.c0, a.c1);
    K::Mul(m, a.c0, a.c1);
    K::Mul(r.c0, s, d);
    K::Add(r.c1, m, m);
  }
};

}  // namespace cuzk::msm::internal
