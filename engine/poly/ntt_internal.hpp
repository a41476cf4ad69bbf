#pragma once
// Internals of the CPU NTT (engine/poly/ntt.cpp, bit_reverse.cpp,
// twiddles.cpp, evaluation_domain.cpp). Not a public API: no stability, no
// argument checks beyond what the public entry points already did.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/ff/fr.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::poly::internal {

using ff::Fr;

// Largest supported transform: 2^27 elements (4 GiB of Fr).
inline constexpr unsigned kMaxLogSize = 27;
// Largest sub-transform run in one piece (by the direct path and by both
// passes of the four-step path): 2^14 Fr = 512 KiB, which stays in a 1 MiB L2.
inline constexpr unsigned kMaxSubLog = 14;

// log2(n); throws std::invalid_argument("<fn>: ...") unless n is a power of
// two in [1, 2^27].
unsigned CheckSize(size_t n, const char* fn);

// The low `bits` bits of x in reverse order (bits <= 32).
inline uint32_t ReverseBits(uint32_t x, unsigned bits) {
  if (bits == 0) return 0;
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  x = (x >> 16) | (x << 16);
  return x >> (32 - bits);
}

// Branch-free a + b and a - b for the butterflies. Fr's operators pick the
// reduction with a compare-and-branch that random data mispredicts half the
// time, and GCC 12 compiles portable carry chains (the #else branch) into
// spills; the x86-64 versions below (add/adc + sub/sbb + cmov) measured 14 ns
// (Fr's operators) / 11.7 ns (portable branch-free) -> 2.9-3.7 ns per add+sub
// pair on the development machine (Zen 5 VM, GCC 12 -O3), which took a
// butterfly from ~23 to ~17 ns. Results equal Fr's operators bit for bit (the
// canonical representative); ntt_test checks edge values. Candidates for
// engine/ff.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
inline Fr AddFr(const Fr& x, const Fr& y) {
  const auto& a = x.Montgomery();
  const auto& b = y.Montgomery();
  const auto& p = Fr::kModulus;
  uint64_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], d0, d1, d2, d3;
  __asm__(
      "addq %[b0], %[s0]\n\t"
      "adcq %[b1], %[s1]\n\t"
      "adcq %[b2], %[s2]\n\t"
      "adcq %[b3], %[s3]\n\t"  // p < 2^255: no carry out
      "movq %[s0], %[d0]\n\t"
      "movq %[s1], %[d1]\n\t"
      "movq %[s2], %[d2]\n\t"
      "movq %[s3], %[d3]\n\t"
      "subq %[p0], %[d0]\n\t"
      "sbbq %[p1], %[d1]\n\t"
      "sbbq %[p2], %[d2]\n\t"
      "sbbq %[p3], %[d3]\n\t"
      "cmovncq %[d0], %[s0]\n\t"  // no borrow: s >= p, take s - p
      "cmovncq %[d1], %[s1]\n\t"
      "cmovncq %[d2], %[s2]\n\t"
      "cmovncq %[d3], %[s3]"
      : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3), [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2),
        [d3] "=&r"(d3)
      : [b0] "rm"(b[0]), [b1] "rm"(b[1]), [b2] "rm"(b[2]), [b3] "rm"(b[3]), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  return Fr::FromMontgomery({s0, s1, s2, s3});
}

inline Fr SubFr(const Fr& x, const Fr& y) {
  const auto& a = x.Montgomery();
  const auto& b = y.Montgomery();
  const auto& p = Fr::kModulus;
  uint64_t d0 = a[0], d1 = a[1], d2 = a[2], d3 = a[3], t0, t1, t2, t3;
  __asm__(
      "subq %[b0], %[d0]\n\t"
      "sbbq %[b1], %[d1]\n\t"
      "sbbq %[b2], %[d2]\n\t"
      "sbbq %[b3], %[d3]\n\t"
      "sbbq %[t0], %[t0]\n\t"  // all ones on borrow: add p back
      "movq %[t0], %[t1]\n\t"
      "movq %[t0], %[t2]\n\t"
      "movq %[t0], %[t3]\n\t"
      "andq %[p0], %[t0]\n\t"
      "andq %[p1], %[t1]\n\t"
      "andq %[p2], %[t2]\n\t"
      "andq %[p3], %[t3]\n\t"
      "addq %[t0], %[d0]\n\t"
      "adcq %[t1], %[d1]\n\t"
      "adcq %[t2], %[d2]\n\t"
      "adcq %[t3], %[d3]"
      : [d0] "+&r"(d0), [d1] "+&r"(d1), [d2] "+&r"(d2), [d3] "+&r"(d3), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
        [t3] "=&r"(t3)
      : [b0] "rm"(b[0]), [b1] "rm"(b[1]), [b2] "rm"(b[2]), [b3] "rm"(b[3]), [p0] "m"(p[0]), [p1] "m"(p[1]),
        [p2] "m"(p[2]), [p3] "m"(p[3])
      : "cc");
  return Fr::FromMontgomery({d0, d1, d2, d3});
}
#else
inline Fr AddFr(const Fr& x, const Fr& y) {
  const auto& a = x.Montgomery();
  const auto& b = y.Montgomery();
  const auto& p = Fr::kModulus;
  ff::Limbs<4> s, d;
  uint64_t carry = 0;
  for (size_t i = 0; i < 4; ++i) s[i] = ff::AddCarry(a[i], b[i], carry);  // p < 2^255: no carry out
  uint64_t borrow = 0;
  for (size_t i = 0; i < 4; ++i) d[i] = ff::SubBorrow(s[i], p[i], borrow);
  const uint64_t keep_sum = 0 - borrow;  // s < p: keep s
  for (size_t i = 0; i < 4; ++i) s[i] = (s[i] & keep_sum) | (d[i] & ~keep_sum);
  return Fr::FromMontgomery(s);
}

inline Fr SubFr(const Fr& x, const Fr& y) {
  const auto& a = x.Montgomery();
  const auto& b = y.Montgomery();
  const auto& p = Fr::kModulus;
  ff::Limbs<4> d;
  uint64_t borrow = 0;
  for (size_t i = 0; i < 4; ++i) d[i] = ff::SubBorrow(a[i], b[i], borrow);
  const uint64_t add_p = 0 - borrow;
  uint64_t carry = 0;
  for (size_t i = 0; i < 4; ++i) d[i] = ff::AddCarry(d[i], p[i] & add_p, carry);
  return Fr::FromMontgomery(d);
}
#endif

// Hands out [0, n) in grains of consecutive indices from a shared counter.
class GrainCounter {
 public:
  GrainCounter(size_t n, size_t grain) : n_(n), grain_(grain) {}
  // The next grain [begin, end); false once all are taken.
  bool Next(size_t& begin, size_t& end) {
    begin = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (begin >= n_) return false;
    end = std::min(n_, begin + grain_);
    return true;
  }
  // For grains of one index.
  bool Next(size_t& index) {
    size_t end;
    return Next(index, end);
  }

 private:
  const size_t n_, grain_;
  std::atomic<size_t> next_{0};
};

// Runs worker(counter) on up to `threads` threads (no more than there are
// grains), all drawing grains from one GrainCounter. Unlike static chunks, a
// thread that loses its core (a shared machine, the prover's other work)
// delays the pass by one grain, not by its whole share. Each worker sets up
// its own state (buffers) once.
template <class Worker>
void ParallelGrains(size_t n, size_t grain, unsigned threads, Worker&& worker) {
  GrainCounter counter(n, grain);
  const size_t grains = (n + grain - 1) / grain;
  const size_t workers = std::min<size_t>(util::ResolveThreads(threads), grains);
  util::ParallelForChunks(workers, unsigned(workers), [&](size_t, size_t, size_t) { worker(counter); });
}

enum class Direction { kForward, kInverse };

// Radix-2 twiddles for sub-transforms of length <= 2^kMaxSubLog: level[s]
// points at 2^s values w_(2^(s+1))^j, j < 2^s (w_m = FrRootOfUnity(log m),
// inverted for kInverse). Valid for levels < the log_len asked for.
struct TwiddleLevels {
  std::array<const Fr*, kMaxSubLog> level{};
};

// Builds missing levels on first use (thread-safe, once per level and
// direction) and returns pointers into the process-wide cache. Memory is
// bounded by 2 * 2^kMaxSubLog Fr = 1 MiB whatever the transform size.
TwiddleLevels GetTwiddles(unsigned log_len, Direction direction);

// Element i (natural index of the result, or of the input) is multiplied by
// scale * ratio^i. ratio_is_one skips the powers (a plain scaling).
struct Geometric {
  Fr scale = Fr::One();
  Fr ratio = Fr::One();
  bool ratio_is_one = true;
};

// The core transform: a <- DFT_w(pre ⊙ a) ⊙ post, natural order in and out,
// w = FrRootOfUnity(log n) (its inverse for kInverse). pre/post may be null.
// a.size() must already be checked.
void Transform(std::span<Fr> a, Direction direction, const Geometric* pre, const Geometric* post, unsigned threads);

// In-place bit-reversal permutation of 2^log_n elements.
void BitReverseInPlace(Fr* a, unsigned log_n, unsigned threads);

// a_i *= g.scale * g.ratio^i, in parallel grains (each starts with a Pow).
void ScaleGeometric(std::span<Fr> a, const Geometric& g, unsigned threads);

}  // namespace cuzk::poly::internal
