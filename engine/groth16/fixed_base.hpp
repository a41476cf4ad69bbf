#pragma once
// Fixed-base scalar multiplication for the setup: every parameter point is
// (some scalar) * G for the one generator G of G1 or G2, so a table of
// multiples of G shared by all threads turns each multiplication into
// ceil(255 / w) mixed additions and no doublings.
//
// Table: for each window i < ceil(255 / w) and digit d in [1, 2^w), the affine
// point d * 2^(w i) * G. Memory (2^w - 1) * ceil(255 / w) points: w = 8 is
// 8,160 points (0.8 MB in G1), w = 12 is 90,090 (8.6 MB in G1, 17 MB in G2).
// Cost per scalar: ceil(255 / w) mixed additions (7M + 4S each), against
// ~255 doublings + ~128 additions for double-and-add. Results are converted
// to affine in chunks with one inversion per chunk (Montgomery's trick).
//
//   FixedBaseTable<ec::G1Curve> g1(ec::G1Affine::Generator(), 10);
//   std::vector<ec::G1Affine> pts(scalars.size());
//   g1.MulBatch(scalars, pts);
#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ec/point.hpp"
#include "engine/ff/fr.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::groth16 {

// Window width for n scalars: the table build (~2^w * 255/w additions) should
// stay well below the n * 255/w additions of the products.
inline unsigned FixedBaseWindowFor(size_t n) {
  if (n < 1024) return 6;
  if (n < (1u << 16)) return 8;
  if (n < (1u << 20)) return 10;
  return 12;
}

// Jacobian -> affine for a whole span, one field inversion per call.
template <class C>
void BatchToAffine(std::span<const ec::JacobianPoint<C>> in, std::span<ec::AffinePoint<C>> out) {
  using Field = typename C::Field;
  std::vector<Field> zs(in.size());
  for (size_t i = 0; i < in.size(); ++i) zs[i] = in[i].z;
  // Field::BatchInverse for prime fields; the generic prefix-product trick for Fp2.
  std::vector<Field> prefix(in.size());
  Field acc = Field::One();
  for (size_t i = 0; i < zs.size(); ++i) {
    prefix[i] = acc;
    if (!zs[i].IsZero()) acc *= zs[i];
  }
  Field inv = acc.Inverse();
  for (size_t i = zs.size(); i-- > 0;) {
    if (zs[i].IsZero()) {
      out[i] = ec::AffinePoint<C>::Infinity();
      continue;
    }
    Field zi = inv * prefix[i];
    inv *= zs[i];
    Field zi2 = zi.Square();
    out[i] = ec::AffinePoint<C>::FromXY(in[i].x * zi2, in[i].y * zi2 * zi);
  }
}

template <class C>
class FixedBaseTable {
 public:
  using Affine = ec::AffinePoint<C>;
  using Jacobian = ec::JacobianPoint<C>;
  static constexpr unsigned kScalarBits = 255;

  FixedBaseTable(const Affine& base, unsigned window_bits, unsigned threads = 0)
      : w_(window_bits), windows_((kScalarBits + window_bits - 1) / window_bits) {
    if (w_ < 1 || w_ > 16) throw std::invalid_argument("FixedBaseTable: window must be 1..16 bits");
    if (base.IsInfinity()) throw std::invalid_argument("FixedBaseTable: base is the point at infinity");
    const size_t per = (size_t(1) << w_) - 1;
    // Window bases 2^(w i) G, sequentially (w doublings each).
    std::vector<Jacobian> window_base(windows_);
    Jacobian b = Jacobian::FromAffine(base);
    for (unsigned i = 0; i < windows_; ++i) {
      window_base[i] = b;
      for (unsigned d = 0; d < w_; ++d) b = b.Double();
    }
    table_.resize(per * windows_);
    util::ParallelFor(windows_, threads, [&](size_t i) {
      std::vector<Jacobian> row(per);
      row[0] = window_base[i];
      for (size_t d = 1; d < per; ++d) row[d] = row[d - 1] + window_base[i];
      BatchToAffine<C>(row, std::span<Affine>(table_).subspan(i * per, per));
    });
  }

  Jacobian Mul(const ff::Fr& s) const {
    const auto k = s.ToCanonical();
    const size_t per = (size_t(1) << w_) - 1;
    Jacobian acc = Jacobian::Infinity();
    for (unsigned i = 0; i < windows_; ++i) {
      uint64_t d = Digit(k, i * w_);
      if (d) acc = acc.AddMixed(table_[i * per + d - 1]);
    }
    return acc;
  }

  // The table as described at the top of the file (for device copies).
  unsigned window_bits() const { return w_; }
  unsigned windows() const { return windows_; }
  std::span<const Affine> table() const { return table_; }

  // out[i] = scalars[i] * base, on `threads` threads, chunks of 4096 made
  // affine together.
  void MulBatch(std::span<const ff::Fr> scalars, std::span<Affine> out, unsigned threads = 0) const {
    if (scalars.size() != out.size()) throw std::invalid_argument("FixedBaseTable::MulBatch: size mismatch");
    constexpr size_t kChunk = 4096;
    const size_t chunks = (scalars.size() + kChunk - 1) / kChunk;
    util::ParallelFor(chunks, threads, [&](size_t c) {
      const size_t lo = c * kChunk, hi = std::min(scalars.size(), lo + kChunk);
      std::vector<Jacobian> tmp(hi - lo);
      for (size_t i = lo; i < hi; ++i) tmp[i - lo] = Mul(scalars[i]);
      BatchToAffine<C>(tmp, out.subspan(lo, hi - lo));
    });
  }

 private:
  uint64_t Digit(const ff::Limbs<4>& k, unsigned pos) const {
    const unsigned limb = pos / 64, off = pos % 64;
    uint64_t v = k[limb] >> off;
    if (off + w_ > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
    return v & ((uint64_t(1) << w_) - 1);
  }

  unsigned w_, windows_;
  std::vector<Affine> table_;
};

// Where the setup's batched products run: the table's own MulBatch on the
// CPU by default (SetupOptions::fixed_base == nullptr); the CUDA build
// supplies a GPU one (cuda/msm/fixed_base.hpp, bit-exact with MulBatch).
class FixedBaseBatcher {
 public:
  virtual ~FixedBaseBatcher() = default;
  virtual void MulBatchG1(const FixedBaseTable<ec::G1Curve>& table, std::span<const ff::Fr> scalars,
                          std::span<ec::G1Affine> out) = 0;
  virtual void MulBatchG2(const FixedBaseTable<ec::G2Curve>& table, std::span<const ff::Fr> scalars,
                          std::span<ec::G2Affine> out) = 0;
};

}  // namespace cuzk::groth16
