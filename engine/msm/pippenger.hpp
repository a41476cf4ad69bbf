#pragma once
// Pippenger's bucket method over canonical scalars, multi-threaded (the engine behind MsmG1/MsmG2).
//
//   sum_i k_i P_i = sum_w 2^(w c) sum_{b=1}^{2^(c-1)} b * (sum of P_i with |digit_w(k_i)| = b, signed)
//
// Work is cut into units (point range p, window w): P point ranges x W windows, dealt out to the
// threads in contiguous runs (point-range major), so one thread usually owns several windows of
// one point range and fills all their buckets in one pass over its points. Buckets are affine and
// filled by batched affine additions (batch_affine_buckets.hpp); each unit ends with a running-sum
// reduction of its buckets, and the partial sums of all units are combined by doubling at the end.
//
// Costs, in Fp multiplications per unit: (n / P) * ~6.5 for the bucket additions and 2^(c-1) * 24
// for the reduction. The plan picks c and P that minimise the slowest thread's share of that.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "engine/ec/point.hpp"
#include "engine/msm/batch_affine_buckets.hpp"
#include "engine/msm/signed_digits.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::msm::internal {

inline constexpr unsigned kMaxWindowBits = 24;

struct PippengerPlan {
  unsigned window_bits = 1;  // c
  unsigned windows = 0;      // W (0: every scalar is zero)
  unsigned point_parts = 1;  // P
  unsigned threads = 1;      // threads actually used (<= P * W)
};

// Estimated cost of the slowest thread, in Fp multiplications.
inline double PlanCost(size_t n, unsigned c, unsigned windows, unsigned parts, unsigned threads) {
  constexpr double kBucketAdd = 6.5;  // batched affine addition incl. its share of the inversion
  constexpr double kBucketReduce = 24;
  constexpr double kUnitOverhead = 1500;  // resets, last partial batch's inversion, combination
  size_t units = size_t(parts) * windows;
  size_t per_thread = (units + threads - 1) / threads;
  double unit_cost = double(n) / parts * kBucketAdd + double(size_t(1) << (c - 1)) * kBucketReduce + kUnitOverhead;
  return double(per_thread) * unit_cost + double(windows) * c * 10;  // + doublings of the combination
}

// window_bits = 0 chooses c from the cost model.
inline PippengerPlan PlanPippenger(size_t n, unsigned scalar_bits, unsigned threads, unsigned window_bits) {
  PippengerPlan best;
  if (n == 0 || scalar_bits == 0) {
    best.windows = 0;
    return best;
  }
  threads = std::max(threads, 1u);
  unsigned c_lo = window_bits ? window_bits : 1, c_hi = window_bits ? window_bits : 22;
  double best_cost = -1;
  for (unsigned c = c_lo; c <= c_hi; ++c) {
    unsigned windows = NumWindows(scalar_bits, c);
    // Splitting points only pays when there are more threads than windows, and only while a part
    // keeps many more points than buckets.
    unsigned max_parts = std::max<unsigned>(1, unsigned(std::min<size_t>(4 * threads, n)));
    for (unsigned parts = 1; parts <= max_parts; ++parts) {
      unsigned used = unsigned(std::min<size_t>(threads, size_t(parts) * windows));
      double cost = PlanCost(n, c, windows, parts, used);
      if (best_cost < 0 || cost < best_cost * 0.999) {
        best_cost = cost;
        best = PippengerPlan{c, windows, parts, used};
      }
    }
  }
  return best;
}

template <class C>
class PippengerRunner {
 public:
  using Affine = ec::AffinePoint<C>;
  using Xyzz = ec::XyzzPoint<C>;
  using Jacobian = ec::JacobianPoint<C>;

  PippengerRunner(std::span<const Affine> bases, std::span<const Scalar> scalars, const PippengerPlan& plan)
      : bases_(bases), scalars_(scalars), plan_(plan) {}

  Jacobian Run() {
    const unsigned windows = plan_.windows;
    if (windows == 0) return Jacobian::Infinity();
    partial_.assign(size_t(plan_.point_parts) * windows, Xyzz::Infinity());
    util::ParallelForChunks(plan_.threads, plan_.threads, [&](size_t first, size_t last, size_t) {
      for (size_t t = first; t < last; ++t) RunThread(t);
    });
    // Windows from the top: acc = 2^c acc + window sum.
    Jacobian acc = Jacobian::Infinity();
    for (unsigned w = windows; w-- > 0;) {
      for (unsigned i = 0; i < plan_.window_bits && !acc.IsInfinity(); ++i) acc = acc.Double();
      Xyzz window_sum = Xyzz::Infinity();
      for (unsigned p = 0; p < plan_.point_parts; ++p) window_sum += partial_[size_t(p) * windows + w];
      acc += window_sum.ToJacobian();
    }
    return acc;
  }

 private:
  // Thread t takes units [t U / T, (t + 1) U / T) of the U = P * W units, unit u = (u / W, u % W).
  void RunThread(size_t t) {
    const size_t windows = plan_.windows, units = size_t(plan_.point_parts) * windows;
    size_t u = t * units / plan_.threads, end = (t + 1) * units / plan_.threads;
    BatchAffineBuckets<C> buckets;
    while (u < end) {
      size_t part = u / windows, w0 = u % windows;
      size_t w1 = std::min(windows, w0 + (end - u));
      size_t n = bases_.size();
      size_t i0 = n * part / plan_.point_parts, i1 = n * (part + 1) / plan_.point_parts;
      Accumulate(i0, i1, unsigned(w0), unsigned(w1), buckets, &partial_[part * windows]);
      u += w1 - w0;
    }
  }

  // Buckets of windows [w0, w1) over points [i0, i1); window sums go to sums[w].
  void Accumulate(size_t i0, size_t i1, unsigned w0, unsigned w1, BatchAffineBuckets<C>& buckets, Xyzz* sums) {
    const unsigned c = plan_.window_bits;
    const size_t num_buckets = size_t(1) << (c - 1);
    // Windows filled together: more buckets make same-bucket collisions within a batch rarer and
    // let one inversion serve a bigger batch; the cap keeps the buckets within a few MiB.
    constexpr size_t kGroupBuckets = size_t(1) << 16;
    const unsigned group = unsigned(std::clamp<size_t>(kGroupBuckets / num_buckets, 1, w1 - w0));
    for (unsigned wg = w0; wg < w1; wg += group) {
      const unsigned we = std::min(w1, wg + group);
      const size_t total = (we - wg) * num_buckets;
      buckets.Reset(total, std::clamp<size_t>(total / 8, 16, 2048));
      for (size_t i = i0; i < i1; ++i) {
        const Affine& p = bases_[i];
        if (p.infinity) continue;
        const Scalar& k = scalars_[i];
        for (unsigned w = wg; w < we; ++w) {
          int32_t d = SignedDigit(k, w, c);
          if (d == 0) continue;
          uint32_t bucket = uint32_t((w - wg) * num_buckets) + uint32_t(std::abs(d) - 1);
          buckets.Add(bucket, p, d < 0);
        }
      }
      buckets.Flush();
      for (unsigned w = wg; w < we; ++w) sums[w] = buckets.WeightedSum((w - wg) * num_buckets, num_buckets);
    }
  }

  std::span<const Affine> bases_;
  std::span<const Scalar> scalars_;
  PippengerPlan plan_;
  std::vector<Xyzz> partial_;  // [part * W + w]
};

template <class C>
ec::JacobianPoint<C> Pippenger(std::span<const ec::AffinePoint<C>> bases, std::span<const Scalar> scalars,
                               const PippengerPlan& plan) {
  return PippengerRunner<C>(bases, scalars, plan).Run();
}

}  // namespace cuzk::msm::internal
