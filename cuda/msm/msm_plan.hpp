#pragma once
// Sizes of the GPU MSM stages for a given n (host only, shared by the device
// driver msm_impl.hpp and the host emulation msm_emulation.hpp), and the last
// stage: the window sums combined on the host.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "cuda/msm/msm_steps.hpp"
#include "engine/ec/point.hpp"

namespace cuzk::cuda::pippenger {

constexpr uint32_t kMinWindowBits = 4, kMaxWindowBits = 22;

inline Layout MakeLayout(uint32_t window_bits) {
  if (window_bits < kMinWindowBits || window_bits > kMaxWindowBits) {
    throw std::invalid_argument("GPU MSM: window bits must be in [" + std::to_string(kMinWindowBits) + ", " +
                                std::to_string(kMaxWindowBits) + "], got " + std::to_string(window_bits));
  }
  Layout l;
  l.window_bits = window_bits;
  l.windows = SignedDigitWindows(window_bits);
  l.buckets = 1u << (window_bits - 1);
  return l;
}

// Cost model: n_big W mixed additions into buckets (a scalar >= 2 has about
// one nonzero digit per window; a 0 or 1 costs at most one addition whatever
// the width), plus ~2 W B full additions for the running sums (each ~1.4
// mixed additions) and the fixup of buckets split over chunks:
// cost(c) = W (n_big + 3 B). Measured optima on the H200 are in
// docs/perf/gpu.md. c stays <= 21 below 2^26 - 1 scalars (at 22 the keys
// need 25 bits, one more radix pass, and the buckets 4.8 GB; XYZZ was best
// at 20 there); from there 22 is allowed, which the model then picks: 2^27
// random scalars (a 32 GiB partition's H MSM) took 920.7 ms at c = 22
// against 960.1 at 21 and 981.5 at 20 (XYZZ, `cuzk-gpu-bench msm
// --log-sizes 27 --windows 0,21,22`), and 2^26 460.1 ms at 22 against 470.3
// at 20 and 478.3 at 21 (session 5 call 7, with the batched accumulation
// that was then the default there; XYZZ across widths not re-measured since
// its fused y3 and squares). 2^26 - 1: the H MSM of a 2^26 domain.
inline uint32_t DefaultWindowBits(size_t n_big) {
  const uint32_t max_bits = n_big >= (size_t(1) << 26) - 1 ? 22 : 21;
  uint32_t best = kMinWindowBits;
  double best_cost = 0;
  for (uint32_t c = kMinWindowBits; c <= max_bits; ++c) {
    const double w = SignedDigitWindows(c), b = double(1u << (c - 1));
    const double cost = w * (double(n_big) + 3 * b);
    if (c == kMinWindowBits || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

// Digit entries window-major (msm_steps.hpp, WindowDigitsStep) when nearly
// every scalar is >= 2 (random scalars: the H MSM; a zero digit then costs a
// skipped slot) and there are enough of them that W sorts of n pairs cost no
// more launches than they save; else compact (only the nonzero digits, one
// sort: the witness MSMs, whose tails are small and sparse in digits).
inline bool WindowMajorDigits(size_t n, size_t n_big) { return n >= (size_t(1) << 18) && n_big >= n - n / 16; }

// Sorted entries per accumulation thread: enough threads to fill the GPU
// (~2^18), at most 64 entries each (fewer chunk boundaries inside buckets).
inline size_t DefaultChunk(size_t entries) { return std::clamp<size_t>((entries + (1u << 18) - 1) >> 18, 4, 64); }

// Bucket accumulation for m digit entries: XYZZ at every size. The batched
// affine accumulation (32 chunks a thread) was the default for G1 from 2^29
// entries while it won there: G1 2^27 at c = 22 (1.6 G entries) 880.5 ms
// against XYZZ's 921.4 (session 4, docs/perf/gpu.md). Since XYZZ's y3 and
// squares take fewer multiply-adds (MontField32::MulSub, SquareFused) XYZZ
// wins at every size: 2^27 857.9 / 858.6 ms against 872.2 / 873.9, 2^26
// 434.2 / 433.7 against 454.4 / 454.1 (session 12 call 6, same run). The
// batched form is bound by local memory (each thread's 32 affine sums,
// differences and prefix products, 7.9 KB, ~590 B of traffic an addition),
// not by its multiplications, so the field changes barely moved it. It stays
// as MsmGpuOptions::batch, and this function as the one place to choose.
inline uint32_t DefaultBatch(size_t /*entries*/, bool /*g1*/) { return 0; }

// The same for the batched affine accumulation, whose threads each run
// `batch` chunks: ~2^17 threads (a few waves of the ~34k that fit on an H200
// at ~200 registers each), at most 64 entries a chunk.
inline size_t BatchedChunk(size_t entries, uint32_t batch) {
  const size_t per_thread = size_t(1) << 17;
  return std::clamp<size_t>((entries + per_thread * batch - 1) / (per_thread * batch), 1, 64);
}

// Buckets per running-sum thread: ~2^17 threads in all, power of two.
inline uint32_t DefaultSegmentLen(const Layout& l) {
  const uint64_t want = (uint64_t(l.windows) * l.buckets) >> 17;
  const uint32_t len = uint32_t(std::bit_ceil(std::max<uint64_t>(want, 8)));
  return std::min(len, l.buckets);
}

constexpr uint32_t kGroupSum = 16;

// sum_w 2^(c w) window_sums[w], Horner from the top window.
template <class C>
ec::JacobianPoint<C> CombineWindows(std::span<const ec::XyzzPoint<C>> window_sums, uint32_t window_bits) {
  ec::JacobianPoint<C> acc = ec::JacobianPoint<C>::Infinity();
  for (size_t w = window_sums.size(); w-- > 0;) {
    for (uint32_t k = 0; k < window_bits && !acc.IsInfinity(); ++k) acc = acc.Double();
    acc = acc + window_sums[w].ToJacobian();
  }
  return acc;
}

}  // namespace cuzk::cuda::pippenger
