#pragma once
// BatchAffineBuckets: Pippenger buckets kept in affine form and filled by batched affine additions.
//
// Adding P to an affine bucket B costs one field inversion (lambda = (yP - yB) / (xP - xB)) plus
// 2M + 1S. Montgomery's trick shares one inversion among a whole batch of independent additions
// for 3M each, so a bucket addition costs ~5M + 1S + (inversion / batch), against 8M + 2S for a
// mixed addition into an XYZZ bucket (the "batch affine" accumulation of the ZPrize MSM winners).
//
// A bucket can take part in a batch only once (its new value depends on the inversion). A point
// whose bucket is already in the running batch goes to an XYZZ overflow bucket instead, allocated
// on first use; with batches well below the number of buckets this is a few percent of the
// additions, and inputs that pile into one bucket (all scalars equal) degrade gracefully to XYZZ
// speed instead of one inversion per addition.
//
// Special cases are found during the batch: xP == xB means P == B (a doubling, denominator 2yB)
// or P == -B (the bucket empties). Points at infinity must not be added.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/ec/point.hpp"
#include "engine/msm/field_kernels.hpp"
#include "engine/msm/xyzz_kernels.hpp"

namespace cuzk::msm::internal {

template <class C>
class BatchAffineBuckets {
 public:
  using Field = typename C::Field;
  using Affine = ec::AffinePoint<C>;
  using Xyzz = ec::XyzzPoint<C>;
  using K = FieldKernels<Field>;

  // Empties all `num_buckets` buckets; `batch_capacity` additions share one inversion.
  void Reset(size_t num_buckets, size_t batch_capacity) {
    if (buckets_.size() < num_buckets) buckets_.resize(num_buckets);
    state_.assign(num_buckets, 0);
    overflow_slot_.assign(num_buckets, 0);
    overflow_.clear();
    overflow_additions_ = 0;
    capacity_ = std::max<size_t>(batch_capacity, 1);
    entries_.resize(capacity_);
    before_.resize(capacity_);
    count_ = 0;
  }

  // bucket += (negate ? -p : p). p must not be the point at infinity.
  void Add(uint32_t bucket, const Affine& p, bool negate) {
    uint8_t& st = state_[bucket];
    if (st & kBusy) {
      AddToOverflow(bucket, p, negate);
      return;
    }
    Point& b = buckets_[bucket];
    if (!(st & kFilled)) {
      b.x = p.x;
      K::CondNeg(b.y, p.y, negate);
      st = kFilled;
      return;
    }
    st |= kBusy;
    entries_[count_++] = Entry{bucket, negate ? kNegate : uint32_t(0), &p};
    // The batch reads the bucket a few hundred additions from now: start fetching it.
    const char* line = reinterpret_cast<const char*>(&b);
    for (size_t off = 0; off < sizeof(Point); off += 64) __builtin_prefetch(line + off, 1);
    __builtin_prefetch(line + sizeof(Point) - 1, 1);
    if (count_ == capacity_) RunBatch();
  }

  // Completes the additions still queued.
  void Flush() {
    if (count_) RunBatch();
  }

  // sum_{j < count} (j + 1) * bucket[first + j] by running sums (after Flush), XYZZ result:
  // per bucket one mixed addition (8M+2S) and one full addition (12M+2S).
  Xyzz WeightedSum(size_t first, size_t count) const {
    Xyzz running = Xyzz::Infinity(), sum = Xyzz::Infinity();
    for (size_t j = count; j-- > 0;) {
      size_t i = first + j;
      if (state_[i] & kFilled) XyzzAddAffine(running, buckets_[i].x, buckets_[i].y);
      if (overflow_slot_[i]) XyzzAdd(running, overflow_[overflow_slot_[i] - 1]);
      XyzzAdd(sum, running);
    }
    return sum;
  }

  // Additions that went to XYZZ overflow buckets since Reset (for tests and tuning).
  size_t overflow_additions() const { return overflow_additions_; }

 private:
  struct Point {
    Field x, y;
  };
  struct Entry {
    uint32_t bucket;
    uint32_t flags;
    const Affine* point;
  };
  static constexpr uint8_t kFilled = 1, kBusy = 2;
  static constexpr uint32_t kNegate = 1, kDouble = 2, kCancel = 4;

  void AddToOverflow(uint32_t bucket, const Affine& p, bool negate) {
    ++overflow_additions_;
    uint32_t& slot = overflow_slot_[bucket];
    if (!slot) {
      overflow_.push_back(Xyzz::Infinity());
      slot = uint32_t(overflow_.size());
    }
    Field y;
    K::CondNeg(y, p.y, negate);
    XyzzAddAffine(overflow_[slot - 1], p.x, y);
  }

  // Denominator of entry e's addition into d; sets kDouble / kCancel the first time (forward pass).
  void Denominator(Field& d, Entry& e) {
    const Point& b = buckets_[e.bucket];
    K::Sub(d, e.point->x, b.x);
    if (!d.IsZero()) return;
    Field y;
    K::CondNeg(y, e.point->y, e.flags & kNegate);
    if (y == b.y && !y.IsZero()) {
      e.flags |= kDouble;  // P == B: tangent slope 3x^2 / 2y
      d = b.y.Double();
      return;
    }
    e.flags |= kCancel;  // P == -B (or a 2-torsion doubling): B + P = O
    d = Field::One();
  }

  // Montgomery's trick over the queued entries, as two interleaved chains (even and odd k) so that
  // consecutive multiplications of the prefix products do not wait on each other: before_[k] is the
  // product of the denominators of the earlier entries of k's chain; one inversion of both chain
  // products, then a backward pass peels one factor per entry.
  // Per addition: 6M (one a squaring) and 8 additions/subtractions.
  void RunBatch() {
    Field acc[2] = {Field::One(), Field::One()}, d;
    for (size_t k = 0; k < count_; ++k) {
      before_[k] = acc[k & 1];
      Denominator(d, entries_[k]);
      if (!(entries_[k].flags & kCancel)) K::Mul(acc[k & 1], acc[k & 1], d);
    }
    Field inv[2];
    K::Mul(d, acc[0], acc[1]);
    d = d.Inverse();
    K::Mul(inv[0], d, acc[1]);
    K::Mul(inv[1], d, acc[0]);
    Field inv_k, lambda, x3, t;
    for (size_t k = count_; k-- > 0;) {
      const Entry& e = entries_[k];
      Point& b = buckets_[e.bucket];
      uint8_t& st = state_[e.bucket];
      if (e.flags & kCancel) {
        st = 0;
        continue;
      }
      const Affine& p = *e.point;
      Field& chain_inv = inv[k & 1];
      K::Mul(inv_k, chain_inv, before_[k]);  // 1 / d_k
      if (e.flags & kDouble) {
        Field y2 = b.y.Double();
        if (k >= 2) K::Mul(chain_inv, chain_inv, y2);
        Field xx = b.x.Square();
        lambda = (xx.Double() + xx) * inv_k;
        x3 = lambda.Square() - b.x.Double();
      } else {
        K::Sub(t, p.x, b.x);
        if (k >= 2) K::Mul(chain_inv, chain_inv, t);
        K::CondNeg(t, p.y, e.flags & kNegate);
        K::Sub(t, t, b.y);
        K::Mul(lambda, t, inv_k);
        K::Square(x3, lambda);
        K::Sub(x3, x3, b.x);
        K::Sub(x3, x3, p.x);
      }
      K::Sub(t, b.x, x3);  // y3 = lambda (x1 - x3) - y1
      K::Mul(t, t, lambda);
      K::Sub(b.y, t, b.y);
      b.x = x3;
      st = kFilled;
    }
    count_ = 0;
  }

  std::vector<Point> buckets_;
  std::vector<uint8_t> state_;
  std::vector<uint32_t> overflow_slot_;  // 0: none, else index + 1 into overflow_
  std::vector<Xyzz> overflow_;
  std::vector<Entry> entries_;
  std::vector<Field> before_;
  size_t capacity_ = 1;
  size_t count_ = 0;
  size_t overflow_additions_ = 0;
};

}  // namespace cuzk::msm::internal
