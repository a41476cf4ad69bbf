#pragma once
// A plain CPU NTT with the conventions of engine/poly/ntt.hpp (natural order
// in and out; forward a_i <- sum_j a_j w^(ij); inverse scales by n^-1; coset
// multiplies a_j by g^j before, inverse coset by g^-j after), written only as
// an independent reference for the GPU checks: radix-2 Cooley-Tukey after a
// bit-reversal permutation, each stage split over threads. Not tuned.
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::cuda::testing {

enum class ReferenceNttKind { kForward, kInverse, kCosetForward, kCosetInverse };

// out[i] = start * x^i for i < out.size(), in parallel chunks.
inline void ReferencePowers(std::span<ff::Fr> out, ff::Fr x, ff::Fr start, unsigned threads) {
  util::ParallelForChunks(out.size(), threads, [&](size_t b, size_t e, size_t) {
    ff::Fr acc = start * x.Pow(uint64_t(b));
    for (size_t i = b; i < e; ++i) {
      out[i] = acc;
      acc *= x;
    }
  });
}

inline void ReferenceNtt(std::span<ff::Fr> a, ReferenceNttKind kind, unsigned threads = 0,
                         ff::Fr shift = ff::Fr::FromUint64(ff::kFrMultiplicativeGenerator)) {
  const size_t n = a.size();
  if (n == 0 || (n & (n - 1)) != 0) throw std::invalid_argument("ReferenceNtt: size must be a power of two");
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) ++log_n;
  if (n == 1) return;
  const bool inverse = kind == ReferenceNttKind::kInverse || kind == ReferenceNttKind::kCosetInverse;
  const bool coset = kind == ReferenceNttKind::kCosetForward || kind == ReferenceNttKind::kCosetInverse;
  if (coset && !inverse) {
    std::vector<ff::Fr> g(n);
    ReferencePowers(g, shift, ff::Fr::One(), threads);
    util::ParallelFor(n, threads, [&](size_t i) { a[i] *= g[i]; });
  }
  // Bit-reversal permutation.
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  ff::Fr w = ff::FrRootOfUnity(log_n);
  if (inverse) w = w.Inverse();
  std::vector<ff::Fr> tw(n / 2);
  ReferencePowers(tw, w, ff::Fr::One(), threads);
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, step = n / len;
    util::ParallelFor(n / 2, threads, [&](size_t k) {
      const size_t block = k / half, j = k % half;
      const size_t i0 = block * len + j, i1 = i0 + half;
      const ff::Fr v = a[i1] * tw[j * step];
      a[i1] = a[i0] - v;
      a[i0] = a[i0] + v;
    });
  }
  if (inverse) {
    const ff::Fr n_inv = ff::Fr::FromUint64(n).Inverse();
    if (coset) {
      std::vector<ff::Fr> g(n);
      ReferencePowers(g, shift.Inverse(), n_inv, threads);
      util::ParallelFor(n, threads, [&](size_t i) { a[i] *= g[i]; });
    } else {
      util::ParallelFor(n, threads, [&](size_t i) { a[i] *= n_inv; });
    }
  }
}

// O(n^2) definition, for checking the reference itself on small sizes.
inline std::vector<ff::Fr> NaiveForwardDft(std::span<const ff::Fr> a) {
  const size_t n = a.size();
  unsigned log_n = 0;
  while ((size_t(1) << log_n) < n) ++log_n;
  const ff::Fr w = ff::FrRootOfUnity(log_n);
  std::vector<ff::Fr> out(n);
  ff::Fr wi = ff::Fr::One();
  for (size_t i = 0; i < n; ++i) {
    ff::Fr acc, x = ff::Fr::One();
    for (size_t j = 0; j < n; ++j) {
      acc += a[j] * x;
      x *= wi;
    }
    out[i] = acc;
    wi *= w;
  }
  return out;
}

}  // namespace cuzk::cuda::testing
