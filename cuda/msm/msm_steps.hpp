#pragma once
// The per-thread steps of the GPU MSM (Pippenger with signed windows and
// sort-grouped XYZZ buckets) for G1 (points over Fp) and G2 (over Fp2),
// written once for host and device (CUZK_HD) and templated on the point
// field F. cuda/msm/msm_point_kernels.cuh wraps each step in a kernel (one
// thread per index); cuda/msm/msm_emulation.hpp runs the same steps in host
// loops, so the whole pipeline is unit-tested without a GPU.
//
// Data flow for n scalars, window c bits, W = ceil(256 / c) windows and
// B = 2^(c-1) buckets per window (signed digits: |d| in 1..B):
//  1. Compact digits. Groth16 witnesses are mostly 0 and 1 (SnapDeals 2 KiB:
//     98.5% of aux values, `cuzk-bench witness-stats`), so only nonzero digits
//     become entries: a 0 costs nothing, and without the split (1') a
//     scalar 1 is one entry (window 0, bucket 1), one mixed addition.
//     a. ClassifyStep (thread per scalar): Montgomery -> canonical (one Fr
//        multiplication by 1; 0 where the density bit is clear) into canon;
//        flags[i] = 1 for a scalar >= 2. The flags' sum (n_big) picks the
//        window width (msm_plan.hpp: DefaultWindowBits).
//     b. CountDigitsStep: counts[i] = nonzero signed digits of scalar i;
//        an exclusive prefix sum gives each scalar its first entry.
//     c. DigitsStep: entry (w, i) gets the key w B + |d| - 1 (the global
//        bucket) and the value base index | sign << 31.
//     c'. Window-major instead (msm_plan.hpp, WindowMajorDigits: dense
//        scalars such as the H MSM's): WindowDigitsStep writes every window's
//        slot, entry (w, i) at w n + i (no count, no prefix sum, coalesced
//        stores), a zero digit as (w B, kNoBase); step 2 then sorts each
//        window's n entries apart on c - 1 bits.
//  1'. The bit-witness split (MsmGpuOptions::split_ones, on by default):
//     ClassifyStep also flags the scalars equal to 1 and zeroes them in
//     canon, so only scalars >= 2 get digits (the "tail" MSM, steps 1b-7).
//     An exclusive sum of the one-flags gives each its slot; OnesIndexStep
//     writes the base indices of the ones there, in ascending order;
//     OnesSumStep (thread per chunk of those indices, the same count each)
//     sums its bases with mixed additions, and GroupSumStep reduces the
//     chunk sums to one point, added to the tail's result. The ones then
//     skip the digit writes, the sort and the bucket bookkeeping, and their
//     sum runs on a second stream beside the tail (they share only the
//     read-only bases), so a witness MSM costs about the larger of the two.
//  2. Sort the entries by key (radix sort, msm_scalars.cu). The order of
//     equal keys is free: a bucket's sum does not depend on it.
//  3. AccumulateStep (thread per chunk of `chunk` consecutive sorted entries,
//     so every thread does the same number of mixed additions whatever the
//     bucket sizes; msm_plan.hpp, DefaultChunk: ~8 buckets' worth, so that
//     few chunks start inside a bucket): walks its entries (skipping
//     kNoBase), adding points into an XYZZ sum and
//     writing it out when the key changes. A bucket belongs to the chunk that
//     holds its first entry, which writes buckets[key]; a later chunk that
//     starts inside the bucket writes its part to partials[t] with
//     partial_keys[t] = key (at most one such "head part" per chunk).
//  3'. AccumulateBatchedStep (MsmGpuOptions::batch; not a default since
//     session 12, pippenger::DefaultBatch): the same chunks and the same
//     outputs, K chunks a thread, each chunk's sum affine and the K
//     divisions of a step sharing one inversion (see the step below).
//  4. Fixup of buckets split over chunks. A run of chunks with the same head
//     key can be long: skewed scalars (small Groth16 witness values, or a
//     top window that holds only the signed-digit carry) put ~n/2 entries in
//     one bucket, so ~n / (2 chunk) parts. Adding them one after another cost
//     1.8 s at 2^24 (docs/perf/gpu.md, G1 MSM run 1); instead:
//     a. FixupTreeStep, log2(chunks) passes at strides 1, 2, 4, ...: parts
//        t = 2 s j and t + s with the same key are added into t. Afterwards
//        partials[t] holds the sum of the run's parts in [t, t + lowbit(t))
//        (t = 0: all of them).
//     b. FixupStep (thread per chunk): the run's first chunk r adds the
//        blocks at r, r + lowbit(r), ... while they belong to the run: each
//        block is at least twice the last, so O(log chunks) additions, then
//        adds the total into buckets[key].
//     c. BucketAddStep (scalars uploaded in batches, over shifted bases
//        only): each later batch runs steps 1-4b into a second set of
//        buckets, then adds it into the first batch's, bucket by bucket.
//  5. SegmentStep (thread per window and segment of L buckets): running sums
//     from the top give T = sum (j - lo + 1) S_j and R = sum S_j over the
//     segment [lo, lo + L); the window needs sum (j + 1) S_j, so the thread
//     returns T + lo R (lo R by double-and-add, ~c doublings).
//  6. GroupSumStep (repeated): per window, sums of `group` consecutive
//     points until one point per window is left.
//  7. Host: sum_w 2^(c w) G_w by Horner (c W doublings, engine/ec).
// Empty buckets are all-zero memory: zz = 0 is infinity for XyzzPoint.
#include <cstddef>
#include <cstdint>

#include "cuda/ec/point.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/ff/inverse_by.hpp"
#include "cuda/msm/signed_digits.hpp"

#if CUZK_DEVICE_PASS
#include <cuda_runtime.h>
#endif
#include <bit>
#include <type_traits>

namespace cuzk::cuda::pippenger {

// Window geometry. windows * buckets < 2^31 (keys are 32-bit, the top value
// is the sentinel).
struct Layout {
  uint32_t window_bits = 0;  // c
  uint32_t windows = 0;      // W = ceil(256 / c)
  uint32_t buckets = 0;      // B = 2^(c-1) per window
  CUZK_HD uint32_t Sentinel() const { return windows * buckets; }
};

constexpr uint32_t kSignBit = 0x80000000u;

CUZK_HD int Popcount64(uint64_t x) {
#if CUZK_DEVICE_PASS
  return __popcll(x);
#else
  return std::popcount(x);
#endif
}

// 16-byte loads/stores of whole points (the structs are arrays of 32-bit
// limbs, so plain member copies would issue 4-byte accesses). The buffers
// come from cudaMalloc (256-byte aligned) and both sizes are multiples of 16.
template <class T>
CUZK_HD T LoadPoint(const T* p) {
  static_assert(sizeof(T) % 16 == 0);
#if CUZK_DEVICE_PASS
  T r;
  const uint4* src = reinterpret_cast<const uint4*>(p);
  uint4* dst = reinterpret_cast<uint4*>(&r);
  CUZK_UNROLL
  for (unsigned k = 0; k < sizeof(T) / 16; ++k) dst[k] = __ldg(src + k);
  return r;
#else
  return *p;
#endif
}
template <class T>
CUZK_HD void StorePoint(T* p, const T& v) {
#if CUZK_DEVICE_PASS
  const uint4* src = reinterpret_cast<const uint4*>(&v);
  uint4* dst = reinterpret_cast<uint4*>(p);
  CUZK_UNROLL
  for (unsigned k = 0; k < sizeof(T) / 16; ++k) dst[k] = src[k];
#else
  *p = v;
#endif
}

// The base of scalar i: with a density bitmap, number ranks[i / 64] + (set
// bits of its word below i); without one, base i.
CUZK_HD uint32_t BaseIndex(size_t i, const uint64_t* words, const uint32_t* ranks) {
  if (words == nullptr) return uint32_t(i);
  const uint64_t below = words[i / 64] & ((uint64_t(1) << (i % 64)) - 1);
  return ranks[i / 64] + uint32_t(Popcount64(below));
}

// Step 1a for scalar i. `scalars` are Montgomery-form Fr (the ff::Fr layout);
// canon receives canonical limbs (not Montgomery form) in the same type.
// With a density bitmap (words != nullptr), scalar i takes part only when bit
// i is set. With `ones` (the split, step 1'), ones[i] = 1 for a scalar equal
// to 1, whose canon is then 0 (no digits: it is summed apart).
CUZK_HD void ClassifyStep(size_t i, const Fr* scalars, const uint64_t* words, Fr* canon, uint32_t* flags,
                          uint32_t* ones = nullptr) {
  const bool present = words == nullptr || ((words[i / 64] >> (i % 64)) & 1);
  Fr c = Fr::Zero();
  if (present) {
    // a * 1 / R = canonical a (Montgomery multiplication by the plain integer 1).
    Fr raw_one = Fr::Zero();
    raw_one.limb(0) = 1;
    c = Fr::Mul(LoadPoint(scalars + i), raw_one);
  }
  uint32_t high = 0;
  CUZK_UNROLL
  for (int j = 1; j < 8; ++j) high |= c.limb(j);
  flags[i] = (high != 0 || c.limb(0) > 1) ? 1u : 0u;
  if (ones != nullptr) {
    const bool one = high == 0 && c.limb(0) == 1;
    ones[i] = one ? 1u : 0u;
    if (one) c.limb(0) = 0;
  }
  StorePoint(canon + i, c);
}

// Step 1' for scalar i: the base of a 1-scalar to its slot (offsets: the
// exclusive sum of the one-flags).
CUZK_HD void OnesIndexStep(size_t i, const uint32_t* ones, const uint32_t* offsets, const uint64_t* words,
                           const uint32_t* ranks, uint32_t* indices) {
  if (ones[i]) indices[offsets[i]] = BaseIndex(i, words, ranks);
}

CUZK_HD void LoadCanonical(const Fr* canon, size_t i, uint32_t (&s)[8]) {
  const Fr c = LoadPoint(canon + i);
  CUZK_UNROLL
  for (int j = 0; j < 8; ++j) s[j] = c.limb(j);
}

// Step 1b for scalar i.
CUZK_HD void CountDigitsStep(size_t i, const Layout& layout, const Fr* canon, uint32_t* counts) {
  uint32_t s[8];
  LoadCanonical(canon, i, s);
  uint32_t carry = 0, count = 0;
  for (uint32_t w = 0; w < layout.windows; ++w) count += NextSignedDigit(s, w, layout.window_bits, carry) != 0;
  counts[i] = count;
}

// The value of a window-major entry whose digit is 0 (WindowDigitsStep): no
// point to add. Base indices stay below it: n <= 2^31 - 1 (ScanTempBytes'
// limit), so the largest is 2^31 - 2.
constexpr uint32_t kNoBase = 0x7fffffffu;

// Step 1c for scalar i: its entries at offsets[i], offsets[i] + 1, ... (base: BaseIndex).
CUZK_HD void DigitsStep(size_t i, const Layout& layout, const Fr* canon, const uint64_t* words, const uint32_t* ranks,
                        const uint32_t* offsets, uint32_t* keys, uint32_t* vals) {
  const uint32_t base = BaseIndex(i, words, ranks);
  uint32_t s[8];
  LoadCanonical(canon, i, s);
  uint32_t carry = 0, at = offsets[i];
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const int32_t d = NextSignedDigit(s, w, layout.window_bits, carry);
    if (d == 0) continue;
    keys[at] = w * layout.buckets + uint32_t(d < 0 ? -d : d) - 1;
    vals[at] = base | (d < 0 ? kSignBit : 0u);
    ++at;
  }
}

// Step 1c, window-major (pippenger::WindowMajorDigits: nearly every scalar
// has a nonzero digit in every window, as the H MSM's do): entry (w, i) at
// w n + i for every window, so a warp's stores of one window are 128
// consecutive bytes (the compact layout above scatters each thread's
// entries: 16.8 ms against ~2 ms of bandwidth for 2^26 scalars under ncu),
// no digit count or prefix sum is needed, and each window's n entries sort
// apart on c - 1 key bits: 3 radix passes at c = 22 where the compact
// layout's 25-bit keys take 4. A zero digit keeps its slot as (w B, kNoBase),
// skipped by the accumulation.
CUZK_HD void WindowDigitsStep(size_t i, size_t n, const Layout& layout, const Fr* canon, const uint64_t* words,
                              const uint32_t* ranks, uint32_t* keys, uint32_t* vals) {
  const uint32_t base = BaseIndex(i, words, ranks);
  uint32_t s[8];
  LoadCanonical(canon, i, s);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < layout.windows; ++w) {
    const int32_t d = NextSignedDigit(s, w, layout.window_bits, carry);
    const size_t at = size_t(w) * n + i;
    if (d == 0) {
      keys[at] = w * layout.buckets;
      vals[at] = kNoBase;
    } else {
      keys[at] = w * layout.buckets + uint32_t(d < 0 ? -d : d) - 1;
      vals[at] = base | (d < 0 ? kSignBit : 0u);
    }
  }
}

// Step 3 for chunk t: sorted entries [t chunk, min((t + 1) chunk, m)).
template <class F>
CUZK_HD void AccumulateStep(size_t t, size_t chunk, size_t m, uint32_t sentinel, const uint32_t* keys,
                            const uint32_t* vals, const AffinePoint<F>* bases, XyzzPoint<F>* buckets,
                            XyzzPoint<F>* partials, uint32_t* partial_keys) {
  const size_t begin = t * chunk;
  const size_t end = begin + chunk < m ? begin + chunk : m;
  uint32_t cur = keys[begin];
  bool head = begin > 0 && keys[begin - 1] == cur && cur != sentinel;
  partial_keys[t] = head ? cur : sentinel;
  if (cur == sentinel) return;
  XyzzPoint<F> acc = XyzzPoint<F>::Infinity();
  for (size_t i = begin; i < end; ++i) {
    const uint32_t key = keys[i];
    if (key != cur) {
      if (head) {
        StorePoint(partials + t, acc);
        head = false;
      } else {
        StorePoint(buckets + cur, acc);
      }
      if (key == sentinel) return;
      cur = key;
      acc = XyzzPoint<F>::Infinity();
    }
    const uint32_t v = vals[i];
    if (v == kNoBase) continue;
    AffinePoint<F> p = LoadPoint(bases + (v & ~kSignBit));
    if (v & kSignBit) p = p.Negated();
    acc = acc.AddMixed(p);
  }
  if (head) {
    StorePoint(partials + t, acc);
  } else {
    StorePoint(buckets + cur, acc);
  }
}

// Step 3, batched affine (MsmGpuOptions::batch = K > 1). Thread t runs the K
// chunks t K .. t K + K - 1 side by side, one entry of each per step, with
// the same contract per chunk as AccumulateStep (buckets[key] or its head
// part in partials[chunk]). Each chunk's sum is kept affine, so one addition
// is lambda = (y2 - y1) / (x2 - x1), x3 = lambda^2 - x1 - x2, y3 = lambda (x1
// - x3) - y1: 2M + 1S, and the K divisions of a step share one inversion by
// Montgomery's trick (3M each, plus one safegcd inversion per step: 33M on
// the H200). With K = 32 that is ~7M an addition against madd's 8M + 2S; the
// price is 5 K field elements of per-thread (local) memory, 240 B a chunk for
// G1, ~590 B of memory traffic an addition: measured 4% faster than XYZZ from
// 2^26 scalars before XYZZ's fused y3 and squares, 1.7% slower at 2^27 since
// (msm_plan.hpp, DefaultBatch).
// Equal x (doubling, or P + (-P)) is rare and handled on its own, with its
// own inversion.
template <class F>
struct AffineSum {
  F x, y;
  bool valid;  // false: infinity
};

// 2 (x, y) in affine form, (x, y) not infinity.
template <class F>
CUZK_HD AffineSum<F> DoubleAffineSum(const F& x, const F& y) {
  if (y.IsZero()) return {x, y, false};
  const F x2 = x.Square();
  const F lambda = (x2.Double() + x2) * InverseVar(y.Double());
  const F x3 = lambda.Square() - x.Double();
  return {x3, lambda * (x - x3) - y, true};
}

template <class F, int K>
CUZK_HD void AccumulateBatchedStep(size_t t, size_t chunks, size_t chunk, size_t m, uint32_t sentinel,
                                   const uint32_t* keys, const uint32_t* vals, const AffinePoint<F>* bases,
                                   XyzzPoint<F>* buckets, XyzzPoint<F>* partials, uint32_t* partial_keys) {
  constexpr uint32_t kValid = 1, kHead = 2, kDone = 4, kAdd = 8;
  uint32_t cur[K], flags[K];
  F ax[K], ay[K], dx[K], dy[K], before[K];
  const size_t first = t * K;
  // Where chunk k's sum goes when its key changes or it ends.
  auto flush = [&](int k) {
    const XyzzPoint<F> sum =
        (flags[k] & kValid) ? XyzzPoint<F>{ax[k], ay[k], F::One(), F::One()} : XyzzPoint<F>::Infinity();
    if (flags[k] & kHead) {
      StorePoint(partials + first + k, sum);
      flags[k] &= ~kHead;
    } else {
      StorePoint(buckets + cur[k], sum);
    }
  };
  for (int k = 0; k < K; ++k) {
    const size_t c = first + k;
    flags[k] = kDone;
    if (c >= chunks) continue;
    const size_t begin = c * chunk;
    cur[k] = keys[begin];
    const bool head = begin > 0 && keys[begin - 1] == cur[k] && cur[k] != sentinel;
    partial_keys[c] = head ? cur[k] : sentinel;
    if (cur[k] != sentinel) flags[k] = head ? kHead : 0;
  }
  for (size_t j = 0; j < chunk; ++j) {
    // Phase 1: each chunk's next entry; the x differences multiplied up.
    F running = F::One();
    int first_add = -1;
    for (int k = 0; k < K; ++k) {
      flags[k] &= ~kAdd;
      if (flags[k] & kDone) continue;
      const size_t i = (first + k) * chunk + j;
      if (i >= m) {
        flush(k);
        flags[k] |= kDone;
        continue;
      }
      const uint32_t key = keys[i];
      if (key != cur[k]) {
        flush(k);
        if (key == sentinel) {
          flags[k] |= kDone;
          continue;
        }
        cur[k] = key;
        flags[k] &= ~kValid;
      }
      const uint32_t v = vals[i];
      if (v == kNoBase) continue;
      AffinePoint<F> p = LoadPoint(bases + (v & ~kSignBit));
      if (p.IsInfinity()) continue;
      if (v & kSignBit) p = p.Negated();
      if (!(flags[k] & kValid)) {
        ax[k] = p.x, ay[k] = p.y;
        flags[k] |= kValid;
        continue;
      }
      const F ddx = p.x - ax[k], ddy = p.y - ay[k];
      if (ddx.IsZero()) {
        if (ddy.IsZero()) {
          const AffineSum<F> d = DoubleAffineSum(ax[k], ay[k]);
          ax[k] = d.x, ay[k] = d.y;
          if (!d.valid) flags[k] &= ~kValid;
        } else {
          flags[k] &= ~kValid;  // P + (-P)
        }
        continue;
      }
      dx[k] = ddx, dy[k] = ddy;
      if (first_add < 0) {
        running = ddx;
        first_add = k;
      } else {
        before[k] = running;
        running = running * ddx;
      }
      flags[k] |= kAdd;
    }
    if (first_add < 0) continue;
    // Phase 2: one inversion, then each 1 / dx from the back.
    F inv = InverseVar(running);
    for (int k = K - 1; k >= first_add; --k) {
      if (!(flags[k] & kAdd)) continue;
      F inv_k = inv;
      if (k != first_add) {
        inv_k = inv * before[k];
        inv = inv * dx[k];
      }
      const F lambda = dy[k] * inv_k;
      const F x3 = lambda.Square() - (ax[k].Double() + dx[k]);  // x1 + x2 = 2 x1 + dx
      ay[k] = lambda * (ax[k] - x3) - ay[k];
      ax[k] = x3;
    }
  }
  for (int k = 0; k < K; ++k) {
    if (!(flags[k] & kDone)) flush(k);
  }
}

// Step 1' for chunk t: the sum of the bases indices[t chunk .. min((t + 1) chunk, count)).
template <class F>
CUZK_HD void OnesSumStep(size_t t, size_t chunk, size_t count, const uint32_t* indices, const AffinePoint<F>* bases,
                         XyzzPoint<F>* sums) {
  const size_t begin = t * chunk;
  const size_t end = begin + chunk < count ? begin + chunk : count;
  XyzzPoint<F> acc = XyzzPoint<F>::Infinity();
  for (size_t j = begin; j < end; ++j) acc = acc.AddMixed(LoadPoint(bases + indices[j]));
  StorePoint(sums + t, acc);
}

// The full additions and doublings of the reduction steps (4-6). For G2 the
// device calls them out of line: inlined, one Fp2 addition (with the doubling
// it falls back to) is ~137K lines of PTX per call site, and the reduction
// kernels held 1.11M of g2_msm_kernels.cu's 1.31M lines; compiling the file
// took ~15 minutes of cicc alone on the 2-vCPU machine, most of a clean
// build. Out of line: 0.39M lines, 4m44s for cicc and ptxas together. The
// cost is a call per addition (arguments through local memory) in a phase of
// a few percent of the MSM (docs/perf/gpu.md has the figures). G1 keeps them
// inline: its reduction runs in every H MSM.
template <class F>
CUZK_HD_NOINLINE XyzzPoint<F> AddOutOfLine(const XyzzPoint<F>& a, const XyzzPoint<F>& b) {
  return a + b;
}
template <class F>
CUZK_HD_NOINLINE XyzzPoint<F> DoubleOutOfLine(const XyzzPoint<F>& a) {
  return a.Double();
}

template <class F>
inline constexpr bool kReduceOutOfLine = std::is_same_v<F, Fp2>;

template <class F>
CUZK_HD XyzzPoint<F> ReduceAdd(const XyzzPoint<F>& a, const XyzzPoint<F>& b) {
  if constexpr (kReduceOutOfLine<F>) {
    return AddOutOfLine(a, b);
  } else {
    return a + b;
  }
}

template <class F>
CUZK_HD XyzzPoint<F> ReduceDouble(const XyzzPoint<F>& a) {
  if constexpr (kReduceOutOfLine<F>) {
    return DoubleOutOfLine(a);
  } else {
    return a.Double();
  }
}

// k P for a small k (double-and-add from the top bit).
template <class F>
CUZK_HD XyzzPoint<F> MulSmall(const XyzzPoint<F>& p, uint32_t k) {
  XyzzPoint<F> acc = XyzzPoint<F>::Infinity();
  for (int bit = 31; bit >= 0; --bit) {
    if (!acc.IsInfinity()) acc = ReduceDouble(acc);
    if ((k >> bit) & 1) acc = ReduceAdd(acc, p);
  }
  return acc;
}

// Step 4a at stride s for pair j: parts t = 2 s j and t + s.
template <class F>
CUZK_HD void FixupTreeStep(size_t j, size_t stride, size_t chunks, uint32_t sentinel, XyzzPoint<F>* partials,
                           const uint32_t* partial_keys) {
  const size_t t = 2 * stride * j, u = t + stride;
  if (u >= chunks) return;
  const uint32_t key = partial_keys[t];
  if (key == sentinel || partial_keys[u] != key) return;
  StorePoint(partials + t, ReduceAdd(LoadPoint(partials + t), LoadPoint(partials + u)));
}

// Step 4b for chunk t of `chunks` (after every pass of 4a).
template <class F>
CUZK_HD void FixupStep(size_t t, size_t chunks, uint32_t sentinel, const XyzzPoint<F>* partials,
                       const uint32_t* partial_keys, XyzzPoint<F>* buckets) {
  const uint32_t key = partial_keys[t];
  if (key == sentinel || (t > 0 && partial_keys[t - 1] == key)) return;
  XyzzPoint<F> sum = LoadPoint(partials + t);
  for (size_t i = t; i != 0;) {
    i += i & (~i + 1);  // the next block: i + lowbit(i)
    if (i >= chunks || partial_keys[i] != key) break;
    sum = ReduceAdd(sum, LoadPoint(partials + i));
  }
  StorePoint(buckets + key, ReduceAdd(LoadPoint(buckets + key), sum));
}

// Step 4c, upload batches after the first (msm_plan.hpp, UploadBatchRanges):
// bucket t of a later batch's set added into the first batch's.
template <class F>
CUZK_HD void BucketAddStep(size_t t, const XyzzPoint<F>* more, XyzzPoint<F>* buckets) {
  StorePoint(buckets + t, ReduceAdd(LoadPoint(buckets + t), LoadPoint(more + t)));
}

// Strides of the 4a passes: 1, 2, 4, ... below chunks.
inline uint32_t FixupTreePasses(size_t chunks) {
  uint32_t passes = 0;
  for (size_t stride = 1; stride < chunks; stride *= 2) ++passes;
  return passes;
}

// Step 5 for thread t = window * segments + s (segment_len divides buckets).
template <class F>
CUZK_HD void SegmentStep(size_t t, const Layout& layout, uint32_t segment_len, const XyzzPoint<F>* buckets,
                         XyzzPoint<F>* out) {
  const uint32_t segments = layout.buckets / segment_len;
  const uint32_t w = uint32_t(t / segments), s = uint32_t(t % segments);
  const uint32_t lo = s * segment_len;
  const XyzzPoint<F>* b = buckets + size_t(w) * layout.buckets + lo;
  XyzzPoint<F> running = XyzzPoint<F>::Infinity(), total = XyzzPoint<F>::Infinity();
  for (uint32_t j = segment_len; j-- > 0;) {
    running = ReduceAdd(running, LoadPoint(b + j));
    total = ReduceAdd(total, running);
  }
  StorePoint(out + t, lo == 0 ? total : ReduceAdd(total, MulSmall(running, lo)));
}

// Step 6 for thread t = window * out_per_window + g: the sum of in[window
// * in_per_window + k] for k in [g group, min((g + 1) group, in_per_window)).
template <class F>
CUZK_HD void GroupSumStep(size_t t, uint32_t in_per_window, uint32_t group, const XyzzPoint<F>* in, XyzzPoint<F>* out) {
  const uint32_t out_per_window = (in_per_window + group - 1) / group;
  const uint32_t w = uint32_t(t / out_per_window), g = uint32_t(t % out_per_window);
  const uint32_t lo = g * group, hi = lo + group < in_per_window ? lo + group : in_per_window;
  const XyzzPoint<F>* src = in + size_t(w) * in_per_window;
  XyzzPoint<F> sum = LoadPoint(src + lo);
  for (uint32_t k = lo + 1; k < hi; ++k) sum = ReduceAdd(sum, LoadPoint(src + k));
  StorePoint(out + t, sum);
}

}  // namespace cuzk::cuda::pippenger
