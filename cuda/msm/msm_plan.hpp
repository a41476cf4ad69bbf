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
#include <vector>

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

// Shifted bases (shifted_bases.hpp) may be wider: their one reduction does
// not grow with W, and ScalarWindow reads up to 24 bits.
constexpr uint32_t kMaxShiftedWindowBits = 24;

inline Layout MakeShiftedLayout(uint32_t window_bits) {
  if (window_bits < kMinWindowBits || window_bits > kMaxShiftedWindowBits) {
    throw std::invalid_argument("GPU MSM: shifted bases' window bits must be in [" + std::to_string(kMinWindowBits) +
                                ", " + std::to_string(kMaxShiftedWindowBits) + "], got " + std::to_string(window_bits));
  }
  Layout l = {window_bits, SignedDigitWindows(window_bits), 1u << (window_bits - 1)};
  return l;
}

// The buckets of an MSM over shifted bases with `copies` copies: ceil(W /
// copies) sets of l's width (window w adds into set w / copies;
// shifted_bases_steps.hpp, step 1c''). A full table (copies = W): one set.
inline Layout BucketSets(const Layout& l, uint32_t copies) {
  return {l.window_bits, (l.windows + copies - 1) / copies, l.buckets};
}

// The width of shifted bases for n scalars: the cost model below with one
// reduction, cost(c) = W n + 3 B, among the widths whose table (W n points
// of point_bytes) fits in max_bytes and whose entry values fit 31 bits (W n
// < kNoBase); 0 when none does. 2^24: c = 22 (12
// windows; 13 at c = 20 without the table), 19.3 GB of G1 points; 2^26: c =
// 24 (11 windows), 70.9 GB.
inline uint32_t ShiftedWindowBits(size_t n, size_t point_bytes, size_t max_bytes) {
  uint32_t best = 0;
  double best_cost = 0;
  for (uint32_t c = kMinWindowBits; c <= kMaxShiftedWindowBits; ++c) {
    const double w = SignedDigitWindows(c), b = double(1u << (c - 1));
    if (n > 0 && double(n) * w * double(point_bytes) > double(max_bytes)) continue;
    if (double(n) * w >= double(kNoBase)) continue;
    const double cost = w * double(n) + 3 * b;
    if (best == 0 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

// Cost model: n_big W mixed additions into buckets (a scalar >= 2 has about
// one nonzero digit per window; a 0 or 1 costs at most one addition whatever
// the width), plus ~2 W B full additions for the running sums (each ~1.4
// mixed additions) and the fixup of buckets split over chunks:
// cost(c) = W (n_big + 3 B). Measured optima on the H200 are in
// docs/perf/gpu.md. c stays <= 21 below 2^26 - 1 scalars (at 22 the
// buckets take 4.8 GB and the reduction 33 ms, and the compact layout's keys
// 25 bits, one more radix pass; XYZZ was best at 20 there, window-major digits
// included: session 13 call 1); from there 22 is allowed, which the model then picks: 2^27
// random scalars (a 32 GiB partition's H MSM) took 920.7 ms at c = 22
// against 960.1 at 21 and 981.5 at 20 (XYZZ, `cuzk-gpu-bench msm
// --log-sizes 27 --windows 0,21,22`), and 2^26 460.1 ms at 22 against 470.3
// at 20 and 478.3 at 21 (session 5 call 7, with the batched accumulation
// that was then the default there). XYZZ with its fused y3 and squares
// (session 13 call 1): 2^24 118.1 ms at 20 against 124.8 at 21 and 135.0 at
// 22; 2^26 433.0 at 22 against 452.4 at 20 and 454.9 at 21; 2^27 856.2 at
// 22 against 889.7 at 21. 2^26 - 1: the H MSM of a 2^26 domain.
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

// Base indices per ones-sum thread (step 1'): enough threads to fill the GPU
// (~2^18), at most 64 each.
inline size_t OnesChunk(size_t count) { return std::clamp<size_t>((count + (1u << 18) - 1) >> 18, 4, 64); }

// Sorted entries per accumulation thread. A chunk that starts inside a
// bucket leaves a head part for the fixup (a full addition more, and a
// store), so from 2^24 entries a chunk spans ~8 buckets' worth of entries
// (8 m / (W B), a power of two, at most 1024) as long as that keeps >= 2^18
// threads; never less than the rule before (ceil(m / 2^18) in 4..64, as
// OnesChunk), which stays the value below 2^24 entries. Measured on the
// H200 (docs/perf/gpu.md, session 13 calls 2 and 3, window-major digits):
// G1 2^24 (32 entries a bucket at c = 20) 112.8-113.0 ms at 256 against
// 114.5-114.6 at 64 and 114.4 at 512; 2^26 (32 a bucket at c = 22)
// 407.4-408.4 at 256 or 512 against 415.6-416.1 at 64; 2^27 (64 a bucket)
// 778.0 at 512 against 821.2 at 64; G2 2^22 (128 a bucket, segments of 32)
// 111.9 at 256 (the thread cap; 110.7 at 1024) against 123.6 at 64; the
// witness-like tails (few entries: 64) 66.0 ms at 64 against 67.8 at 256
// and 69.6 at 1024 (G1 2^26).
inline size_t DefaultChunk(size_t entries, const Layout& l) {
  const size_t per_bucket = entries / (size_t(l.windows) * l.buckets);
  const size_t want = std::bit_ceil(std::max<size_t>(8 * per_bucket, 4));
  const size_t cap = std::min<size_t>(1024, std::bit_floor(std::max<size_t>(entries >> 18, 1)));
  return std::max(OnesChunk(entries), std::min(want, cap));
}

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

// Buckets per running-sum thread (power of two): ~2^17 threads in all for G1,
// ~2^14 for G2, whose additions need 255 registers (2 blocks an SM) and whose
// segments' double-and-add (MulSmall) then costs less than more waves: G2
// 2^22 at c = 16 (2^19 buckets) reduced in 8.2 ms with 32 buckets a thread
// (2^14 threads) against 14.1 with 8 (2^16 threads), 12.1 with 64 and 24.7
// with 4; G1 2^26 at c = 22 in
// 32.7 ms with 256 (2^17) against 37.4 with 64 and 38.5 with 1024 (session
// 13 calls 2, 3). One bucket set (a full table of shifted bases): ~2^15
// threads, where the window-sum passes over one window's segments cost more
// than fewer running-sum threads: G1 2^24 over the table at c = 22 (2^21
// buckets) in 99.75 ms with 64 buckets a thread (2^15) against 103.4 with 16
// (2^17) and 101.4 with 128; at c = 24 in 99.1 with 256 (2^15) against 102.2
// with 64 (session 16, one run).
inline uint32_t DefaultSegmentLen(const Layout& l, bool g2 = false) {
  const unsigned threads_log = g2 ? 14 : l.windows == 1 ? 15 : 17;
  const uint64_t want = (uint64_t(l.windows) * l.buckets) >> threads_log;
  const uint32_t len = uint32_t(std::bit_ceil(std::max<uint64_t>(want, 8)));
  return std::min(len, l.buckets);
}

// Points summed per thread in each window-sum pass (step 6). The passes'
// latency is (kGroupSum - 1) additions each, log_kGroupSum(segments) of them:
// for G2 2^22's 4,096 segments a window (segments of 8) 4 takes 6 passes of
// 3 where 16 took 3 of 15 (passes of ~1.3 ms each under ncu, session 13 call
// 1): 127.1 ms against 129.5 (call 2a). Also the ones sums' tree: 2^19
// chunk sums take 10 passes of 3 instead of 5 of 15 (not timed apart).
constexpr uint32_t kGroupSum = 4;

// Scalars copied to the device in batches (MsmGpuOptions::upload_batches),
// so that batch k + 1 crosses PCIe while batch k is summed. Only over shifted
// bases, whose layout does not depend on the scalars: batch k accumulates
// into its own buckets, added into the first batch's (one full addition a
// bucket: 2^21 at c = 22, ~1.2 ms; 2^23 at c = 24, ~4.6 ms, estimates), and
// one reduction follows. The first batch is an eighth of n: its copy is the
// one not hidden (2^26 scalars: 38.7 ms for all of them at ~55 GB/s, ~4.8 for
// an eighth), and its sums (~40 ms at 2^26 over a table) outlast the rest's
// copy (~34 ms): the sums run ~8x slower than the copy (4.8-5.9 ns a scalar
// against ~0.6). The rest is split evenly. Model, not yet timed: the 2^26
// MSM over a table -~28 ms (361 -> ~333), 2^24 -~7 ms.
struct ScalarRange {
  size_t begin = 0, count = 0;
};
inline std::vector<ScalarRange> UploadBatchRanges(size_t n, uint32_t batches) {
  batches = uint32_t(std::clamp<size_t>(batches, 1, std::max<size_t>(n, 1)));
  if (batches == 1) return {{0, n}};
  std::vector<ScalarRange> out;
  const size_t first = std::max<size_t>((n + 7) / 8, 1);
  out.push_back({0, first});
  const size_t rest = n - first, per = rest / (batches - 1), extra = rest % (batches - 1);
  size_t at = first;
  for (uint32_t b = 1; b < batches; ++b) {
    const size_t count = per + (b <= extra ? 1 : 0);
    if (count == 0) continue;
    out.push_back({at, count});
    at += count;
  }
  return out;
}

// Upload batches when MsmGpuOptions::upload_batches is 0: two for scalars
// in host memory over shifted bases from 2^20 scalars (below that the copy is
// < 0.6 ms), else one. G1 and G2 alike (a G2 MSM's sums are slower still
// than its copy).
inline uint32_t DefaultUploadBatches(size_t n, bool shifted, bool host_scalars) {
  return shifted && host_scalars && n >= (size_t(1) << 20) ? 2 : 1;
}

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
