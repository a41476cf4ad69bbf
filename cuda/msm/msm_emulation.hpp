#pragma once
// The GPU MSM pipeline run on the host: the same per-thread steps
// (msm_steps.hpp) in plain loops over the thread index, with the emulated
// device fields and std::stable_sort in place of the radix sort. For tests on
// machines without a GPU (slow: ~1 us per emulated Fp multiplication; keep n
// and the window small). Stage sizes come from the arguments so tests can
// force chunk boundaries inside buckets.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <vector>

#include "cuda/msm/fixed_base_steps.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/msm/shifted_bases_steps.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/density_bitmap.hpp"

namespace cuzk::cuda::pippenger {

struct EmulationSizes {
  uint32_t window_bits = 0;  // 0: DefaultWindowBits
  size_t chunk = 0;          // 0: DefaultChunk
  uint32_t segment_len = 0;  // 0: DefaultSegmentLen
  bool split_ones = true;    // MsmGpuOptions::split_ones
  int window_major = -1;     // MsmGpuOptions::window_major (-1: WindowMajorDigits)
  uint32_t batch = 0;        // MsmGpuOptions::batch (0, 1: XYZZ accumulation; 2, 4, 8, 16, 32: batched
                             // affine; the device takes 8, 16, 32)
  // Over shifted bases (Msm::Run with ShiftedBases) of width window_bits (0:
  // ShiftedWindowBits without a memory limit) and shifted_copies copies (0:
  // every window), built here as ShiftedBases builds them; window_major does
  // not apply.
  bool shifted = false;
  uint32_t shifted_copies = 0;
  // Shifted and dense only: MsmGpuOptions::upload_batches (0 or 1: one
  // batch). Each batch's digits, sort and sums run apart into their own
  // buckets, added into the first batch's (BucketAddStep), as the device does.
  uint32_t upload_batches = 0;
};

// ShiftedBases' table on the host: entry j n + i = 2^(c j) bases[i] for j <
// copies, made by the device's steps (ShiftStep, then ToAffineStep in groups).
template <class F>
std::vector<AffinePoint<F>> EmulatedShiftedTable(std::span<const AffinePoint<F>> bases, const Layout& layout,
                                                 uint32_t copies) {
  const size_t n = bases.size();
  std::vector<AffinePoint<F>> table(n * copies);
  std::copy(bases.begin(), bases.end(), table.begin());
  std::vector<XyzzPoint<F>> doubled(n);
  for (uint32_t w = 1; w < copies; ++w) {
    for (size_t i = 0; i < n; ++i) ShiftStep(i, layout.window_bits, table.data() + (w - 1) * n, doubled.data());
    for (size_t t = 0; t < (n + fixed_base::kAffineGroup - 1) / fixed_base::kAffineGroup; ++t) {
      fixed_base::ToAffineStep(t, n, doubled.data(), table.data() + w * n);
    }
  }
  return table;
}

// Step 3 for every chunk, XYZZ or batched affine as `batch` says.
template <class F>
void EmulatedAccumulate(uint32_t batch, size_t chunks, size_t chunk, size_t m, uint32_t sentinel, const uint32_t* keys,
                        const uint32_t* vals, const AffinePoint<F>* bases, XyzzPoint<F>* buckets,
                        XyzzPoint<F>* partials, uint32_t* partial_keys) {
  auto batched = [&]<int K>() {
    for (size_t t = 0; t < (chunks + K - 1) / K; ++t) {
      AccumulateBatchedStep<F, K>(t, chunks, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
    }
  };
  switch (batch) {
    case 0:
    case 1:
      for (size_t t = 0; t < chunks; ++t) {
        AccumulateStep(t, chunk, m, sentinel, keys, vals, bases, buckets, partials, partial_keys);
      }
      return;
    case 2: return batched.template operator()<2>();
    case 4: return batched.template operator()<4>();
    case 8: return batched.template operator()<8>();
    case 16: return batched.template operator()<16>();
    case 32: return batched.template operator()<32>();
    default: throw std::invalid_argument("GPU MSM: batch must be 0, 1, 2, 4, 8, 16 or 32");
  }
}

// Step 1' on the host: the sum of the bases of the flagged 1-scalars.
template <class F>
XyzzPoint<F> EmulatedOnesSum(std::span<const AffinePoint<F>> bases, const std::vector<uint32_t>& ones,
                             const uint64_t* words, const uint32_t* ranks, size_t chunk) {
  const size_t n = ones.size();
  std::vector<uint32_t> offsets(n);
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) offsets[i] = uint32_t(count), count += ones[i];
  if (count == 0) return XyzzPoint<F>::Infinity();
  std::vector<uint32_t> indices(count);
  for (size_t i = 0; i < n; ++i) OnesIndexStep(i, ones.data(), offsets.data(), words, ranks, indices.data());
  if (chunk == 0) chunk = OnesChunk(count);
  std::vector<XyzzPoint<F>> level((count + chunk - 1) / chunk);
  for (size_t t = 0; t < level.size(); ++t) OnesSumStep(t, chunk, count, indices.data(), bases.data(), level.data());
  while (level.size() > 1) {
    std::vector<XyzzPoint<F>> out((level.size() + kGroupSum - 1) / kGroupSum);
    for (size_t t = 0; t < out.size(); ++t)
      GroupSumStep(t, uint32_t(level.size()), kGroupSum, level.data(), out.data());
    level = std::move(out);
  }
  return level[0];
}

// Steps 1c-4b for n canonical scalars (m digit entries) into `buckets`
// (zeroed first): the digits, the sort, the sums, the fixup.
template <class F>
void EmulatedAccumulateRange(const EmulationSizes& sizes, const Layout& layout, const Layout& sums, uint32_t copies,
                             size_t table_stride, size_t n, size_t m, bool window_major, const Fr* canon,
                             const uint64_t* words, const uint32_t* ranks, const uint32_t* offsets,
                             const AffinePoint<F>* accumulated, XyzzPoint<F>* buckets) {
  std::vector<uint32_t> keys(m), vals(m);
  for (size_t i = 0; i < n; ++i) {
    if (sizes.shifted) {
      ShiftedDigitsStep(i, n, layout, table_stride, copies, canon, words, ranks, keys.data(), vals.data());
    } else if (window_major) {
      WindowDigitsStep(i, n, layout, canon, words, ranks, keys.data(), vals.data());
    } else {
      DigitsStep(i, layout, canon, words, ranks, offsets, keys.data(), vals.data());
    }
  }
  // 2: sort by key (stable like the radix sort; the order of equal keys does
  // not change the sum anyway). Window-major: each window's n entries apart,
  // on the key bits below c - 1, as SortPairsByWindow does; shifted: each
  // bucket set's `copies` windows of entries the same way (the last set may
  // be shorter), as AccumulateInto does.
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t(0));
  if (window_major) {
    const uint32_t low = layout.buckets - 1;
    const size_t segment = sizes.shifted ? size_t(copies) * n : n;
    for (size_t at = 0; at < m; at += segment) {
      std::stable_sort(order.begin() + ptrdiff_t(at), order.begin() + ptrdiff_t(std::min(at + segment, m)),
                       [&](size_t a, size_t b) { return (keys[a] & low) < (keys[b] & low); });
    }
  } else {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  }
  std::vector<uint32_t> sorted_keys(m), sorted_vals(m);
  for (size_t k = 0; k < m; ++k) sorted_keys[k] = keys[order[k]], sorted_vals[k] = vals[order[k]];

  // 3-4: buckets (all-zero = infinity, as after the device memset).
  const size_t chunk = sizes.chunk       ? sizes.chunk
                       : sizes.batch > 1 ? BatchedChunk(m, sizes.batch)
                                         : DefaultChunk(m, sums);
  const size_t chunks = (m + chunk - 1) / chunk;
  std::memset(static_cast<void*>(buckets), 0, size_t(sums.windows) * sums.buckets * sizeof(XyzzPoint<F>));
  std::vector<XyzzPoint<F>> partials(chunks);
  std::vector<uint32_t> partial_keys(chunks);
  EmulatedAccumulate<F>(sizes.batch, chunks, chunk, m, sums.Sentinel(), sorted_keys.data(), sorted_vals.data(),
                        accumulated, buckets, partials.data(), partial_keys.data());
  for (uint32_t pass = 0; pass < FixupTreePasses(chunks); ++pass) {
    const size_t stride = size_t(1) << pass;
    for (size_t j = 0; 2 * stride * j < chunks; ++j) {
      FixupTreeStep<F>(j, stride, chunks, sums.Sentinel(), partials.data(), partial_keys.data());
    }
  }
  for (size_t t = 0; t < chunks; ++t) {
    FixupStep(t, chunks, sums.Sentinel(), partials.data(), partial_keys.data(), buckets);
  }
}

// density == nullptr: dense (bases.size() >= scalars.size()); else
// density->size() == scalars.size() and bases.size() >= density->Count().
template <class Curve>
ec::JacobianPoint<typename Curve::HostCurve> EmulatedMsm(
    std::span<const ec::AffinePoint<typename Curve::HostCurve>> bases, std::span<const ff::Fr> scalars,
    const msm::DensityBitmap* density, const EmulationSizes& sizes = {}) {
  using F = typename Curve::Field;
  using HostCurve = typename Curve::HostCurve;
  const size_t n = scalars.size();
  if (n == 0) return ec::JacobianPoint<HostCurve>::Infinity();
  if (sizes.window_bits) {  // a bad width is refused before any work
    if (sizes.shifted) {
      MakeShiftedLayout(sizes.window_bits);
    } else {
      MakeLayout(sizes.window_bits);
    }
  }
  std::vector<AffinePoint<F>> dev_bases(bases.size());
  for (size_t i = 0; i < bases.size(); ++i) dev_bases[i] = AffineFromHost<F>(bases[i]);
  std::vector<Fr> dev_scalars(n);
  for (size_t i = 0; i < n; ++i) dev_scalars[i] = Fr::FromHost(scalars[i]);
  std::vector<uint32_t> ranks;
  if (density) {
    ranks.resize(density->words().size());
    uint32_t r = 0;
    for (size_t k = 0; k < ranks.size(); ++k) ranks[k] = r, r += uint32_t(std::popcount(density->words()[k]));
  }
  const uint64_t* words = density ? density->words().data() : nullptr;

  // 1: canonical scalars and flags, the width, counts, prefix sums, entries.
  std::vector<Fr> canon(n);
  std::vector<uint32_t> counts(n), offsets(n), ones(n);
  for (size_t i = 0; i < n; ++i) {
    ClassifyStep(i, dev_scalars.data(), words, canon.data(), counts.data(), sizes.split_ones ? ones.data() : nullptr);
  }
  const ec::JacobianPoint<HostCurve> ones_sum =
      XyzzToHost<HostCurve>(EmulatedOnesSum<F>(dev_bases, ones, words, ranks.data(), sizes.chunk)).ToJacobian();
  size_t n_big = 0;
  for (uint32_t f : counts) n_big += f;
  if (sizes.window_major < -1 || sizes.window_major > 1) {
    throw std::invalid_argument("EmulatedMsm: window_major must be -1, 0 or 1");
  }
  // Shifted: the table's width, its windows' slots, one window's buckets (`sums`).
  const Layout layout =
      sizes.shifted ? MakeShiftedLayout(sizes.window_bits ? sizes.window_bits
                                                          : ShiftedWindowBits(bases.size(), sizeof(AffinePoint<F>),
                                                                              std::numeric_limits<size_t>::max()))
                    : MakeLayout(sizes.window_bits ? sizes.window_bits : DefaultWindowBits(n_big));
  if (sizes.shifted_copies > layout.windows) throw std::invalid_argument("EmulatedMsm: more copies than windows");
  const uint32_t copies = sizes.shifted_copies ? sizes.shifted_copies : layout.windows;
  const Layout sums = sizes.shifted ? BucketSets(layout, copies) : layout;
  const std::vector<AffinePoint<F>> table =
      sizes.shifted ? EmulatedShiftedTable<F>(dev_bases, layout, copies) : std::vector<AffinePoint<F>>();
  const AffinePoint<F>* accumulated = sizes.shifted ? table.data() : dev_bases.data();
  const bool window_major =
      sizes.shifted || (sizes.window_major < 0 ? WindowMajorDigits(n, n_big) : sizes.window_major == 1);
  size_t m = n * layout.windows;
  if (!window_major) {
    for (size_t i = 0; i < n; ++i) CountDigitsStep(i, layout, canon.data(), counts.data());
    m = 0;
    for (size_t i = 0; i < n; ++i) offsets[i] = uint32_t(m), m += counts[i];
  }
  if (m == 0) return ones_sum;
  if (sizes.upload_batches > 1 && (!sizes.shifted || density)) {
    throw std::invalid_argument("EmulatedMsm: upload batches are for shifted bases and dense scalars");
  }
  const std::vector<ScalarRange> batches =
      sizes.upload_batches > 1 ? UploadBatchRanges(n, sizes.upload_batches) : std::vector<ScalarRange>{{0, n}};
  // 3-4: buckets (all-zero = infinity, as after the device memset).
  std::vector<XyzzPoint<F>> buckets(size_t(sums.windows) * sums.buckets);
  std::vector<XyzzPoint<F>> more(batches.size() > 1 ? buckets.size() : 0);
  for (size_t b = 0; b < batches.size(); ++b) {
    const size_t at = batches[b].begin, count = batches[b].count;
    const size_t batch_m = batches.size() > 1 ? count * layout.windows : m;
    EmulatedAccumulateRange<F>(sizes, layout, sums, copies, bases.size(), count, batch_m, window_major,
                               canon.data() + at, words, ranks.data(), offsets.data(), accumulated + at,
                               b == 0 ? buckets.data() : more.data());
    if (b > 0) {
      for (size_t t = 0; t < buckets.size(); ++t) BucketAddStep(t, more.data(), buckets.data());
    }
  }

  // 5-6: per-window sums.
  const uint32_t segment_len = sizes.segment_len ? std::min(sizes.segment_len, sums.buckets)
                                                 : DefaultSegmentLen(sums, /*g2=*/!std::is_same_v<F, Fp>);
  if (segment_len == 0 || sums.buckets % segment_len != 0) {
    throw std::invalid_argument("EmulatedMsm: segment length must divide the bucket count");
  }
  uint32_t per_window = sums.buckets / segment_len;
  std::vector<XyzzPoint<F>> level(size_t(sums.windows) * per_window);
  for (size_t t = 0; t < level.size(); ++t) SegmentStep(t, sums, segment_len, buckets.data(), level.data());
  while (per_window > 1) {
    const uint32_t next = (per_window + kGroupSum - 1) / kGroupSum;
    std::vector<XyzzPoint<F>> out(size_t(sums.windows) * next);
    for (size_t t = 0; t < out.size(); ++t) GroupSumStep(t, per_window, kGroupSum, level.data(), out.data());
    level = std::move(out);
    per_window = next;
  }
  std::vector<ec::XyzzPoint<HostCurve>> window_sums(sums.windows);
  for (uint32_t w = 0; w < sums.windows; ++w) window_sums[w] = XyzzToHost<HostCurve>(level[w]);
  return CombineWindows<HostCurve>(window_sums, sizes.shifted ? layout.window_bits * copies : layout.window_bits) +
         ones_sum;
}

inline ec::G1Jacobian EmulatedMsmG1(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars,
                                    const msm::DensityBitmap* density, const EmulationSizes& sizes = {}) {
  return EmulatedMsm<G1Gpu>(bases, scalars, density, sizes);
}
inline ec::G2Jacobian EmulatedMsmG2(std::span<const ec::G2Affine> bases, std::span<const ff::Fr> scalars,
                                    const msm::DensityBitmap* density, const EmulationSizes& sizes = {}) {
  return EmulatedMsm<G2Gpu>(bases, scalars, density, sizes);
}

}  // namespace cuzk::cuda::pippenger
