#pragma once
// MulDfma: Montgomery multiplication with the limb products on the FP64 pipe
// and the reduction on the integer pipe. Same inputs, same fully reduced
// result as MontField32::Mul (tests compare them on random values).
//
// Why: MontField32::Mul is 4N^2 + N 32-bit multiply-adds (588 for Fp), and
// the MSM's bucket additions run that pipe at its ceiling while the FP64 pipe
// idles (docs/perf/msm-next.md). Here the 2N^2 multiply-adds of the product
// become FP64 work, after Emmart, Zheng and Weems ("Faster modular
// exponentiation using double precision floating point arithmetic on the
// GPU", ARITH 2018); the N^2 + N of the reduction stay integer.
//
// The product, with D = ceil(32N / 48) limbs of 48 bits held as doubles:
//  - each limb product a_i b_j < 2^96 is split exactly by two FMAs: h = FmaRz(a_i,
//    b_j, H) adds floor(a_i b_j / 2^48) 2^48 to a column accumulator H kept in
//    [2^100, 2^101) (where a double's last place is 2^48), and
//    l = Fma(a_i, b_j, -(h - H)) is the low 48 bits, exact;
//  - column k then holds H_k (< 2^51 in units of 2^48, at bit 48(k + 1)) and
//    L_k (< 2^51, at bit 48k): at most D products each. Fma(H_{k-1}, 2^-48, L_k)
//    is 2^52 + (their sum < 2^52), so the column's integer is the double's
//    mantissa bits, read with register moves, no conversion instruction.
// Per Fp product: 4 FP64 instructions for each of the 64 limb products, 16 to
// make the limbs and 16 to finish the columns (~290 FP64 instead of 288
// multiply-adds), then ~70 integer instructions to add the 2D columns into
// 2N words.
//
// The reduction is MontField32::ReduceWide: Mul's even/odd rows on the low
// half, the high half added at the end. A plain SOS reduction (separate low
// and high chains) was 25% slower: 16.6 against 22.6 G Fp products a second
// (docs/perf/gpu.md, session 11).
//
// Measured on the H200 (session 11): MulDfma is 0.87x of Mul's throughput in
// `cuzk-gpu-bench field`, and the MSM's bucket accumulation is slower with it
// (MsmGpuOptions::mul_pipes). Both pipes then run at a third to a half of their
// peak: the multiplication's carry chains and FP64 latencies are not hidden
// by the 2-3 warps a scheduler that its registers allow. Kept, tested and
// off by default as the base for that work (docs/perf/msm-next.md).
#include <cstdint>

#include "cuda/ff/carry_chain.hpp"
#include "cuda/ff/dfma.hpp"

namespace cuzk::cuda {
namespace mul_dfma {

template <int N>
constexpr int kLimbs48 = (32 * N + 47) / 48;

// Word w of x, or 0 past the end (the top 48-bit limb may reach past it).
template <int N>
CUZK_HD uint32_t WordOrZero(const uint32_t (&x)[N], int w) {
  return w < N ? x[w] : 0u;
}

// The 48-bit limbs of x as doubles: 2^52 + limb from its bits, minus 2^52.
template <int N>
CUZK_HD void ToLimbs48(const uint32_t (&x)[N], double (&out)[kLimbs48<N>]) {
  CUZK_UNROLL
  for (int k = 0; k < kLimbs48<N>; ++k) {
    const int w = 3 * k / 2;  // bit 48k = word 1.5k
    uint32_t lo, hi16;
    if (k % 2 == 0) {
      lo = WordOrZero(x, w);
      hi16 = WordOrZero(x, w + 1) & 0xffffu;
    } else {
      lo = (WordOrZero(x, w) >> 16) | (WordOrZero(x, w + 1) << 16);
      hi16 = WordOrZero(x, w + 1) >> 16;
    }
    out[k] = dfma::Add(dfma::FromWords(0x43300000u | hi16, lo), -0x1p52);
  }
}

// Column k of a x b: 2^52 + (L_k + H_{k-1}), with `high` carrying H_k (as
// 2^100 + H_k 2^48) from one column to the next. Starts with high = 2^100.
template <int D>
CUZK_HD double Column(const double (&a)[D], const double (&b)[D], int k, double& high) {
  double h = 0x1p100, l = 0;
  CUZK_UNROLL
  for (int i = 0; i < D; ++i) {
    const int j = k - i;
    if (j < 0 || j >= D) continue;
    const double hn = dfma::FmaRz(a[i], b[j], h);
    const double taken = dfma::Add(hn, -h);  // floor(a_i b_j / 2^48) 2^48, exact
    l = dfma::Add(l, dfma::Fma(a[i], b[j], -taken));
    h = hn;
  }
  const double column = dfma::Fma(high, 0x1p-48, l);
  high = h;
  return column;
}

// T = a b as 2N words.
template <int N>
CUZK_HD void Product(const uint32_t (&a)[N], const uint32_t (&b)[N], uint32_t (&t)[2 * N]) {
  constexpr int D = kLimbs48<N>;
  double x[D], y[D];
  ToLimbs48(a, x);
  ToLimbs48(b, y);
  double high = 0x1p100;
  uint32_t carry = 0;
  // Columns 2m and 2m + 1 sit at bits 96m and 96m + 48: words 3m .. 3m + 2,
  // the odd one shifted by 16 bits. Their values are below 2^52, so the carry
  // into the next pair stays below 2^5.
  CUZK_UNROLL
  for (int m = 0; m < D; ++m) {
    const double even = Column(x, y, 2 * m, high);
    const double odd = Column(x, y, 2 * m + 1, high);
    const uint32_t e_lo = dfma::LoWord(even), e_hi = dfma::HiWord(even) & 0xfffffu;
    const uint32_t o_lo = dfma::LoWord(odd), o_hi = dfma::HiWord(odd) & 0xfffffu;
    const uint32_t o_mid = (o_lo >> 16) | (o_hi << 16), o_top = o_hi >> 16;
    uint32_t w0, w1, w2;
    w0 = ptx::AddCc(e_lo, carry);
    w1 = ptx::AddcCc(e_hi, o_lo << 16);
    w2 = ptx::AddcCc(o_mid, 0);
    carry = ptx::Addc(o_top, 0);
    // Words past 2N - 1 are zero (a b < 2^(64N)); Fr's 6 limbs reach word 17.
    if (3 * m < 2 * N) t[3 * m] = w0;
    if (3 * m + 1 < 2 * N) t[3 * m + 1] = w1;
    if (3 * m + 2 < 2 * N) t[3 * m + 2] = w2;
  }
}

}  // namespace mul_dfma

// F: a MontField32 (kLimbs, limb(), ReduceWide). MontField32 calls this for
// the fields whose MulPipes say so (FpDfma, FpBoth).
template <class F>
CUZK_HD F MulDfma(const F& a, const F& b) {
  constexpr int N = F::kLimbs;
  uint32_t x[N], y[N], t[2 * N];
  CUZK_UNROLL
  for (int j = 0; j < N; ++j) {
    x[j] = a.limb(j);
    y[j] = b.limb(j);
  }
  mul_dfma::Product<N>(x, y, t);
  return F::ReduceWide(t);
}

}  // namespace cuzk::cuda
