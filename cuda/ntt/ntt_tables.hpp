#pragma once
// Host-side preparation of the small tables the NTT kernels expand on the
// device. Both the twiddle table and coset powers are "split" tables: a power
// x^i is lo[i mod 2^B] * hi[i >> B], so 2 * 2^B host multiplications (with the
// fast 64-bit host field) stand for up to 2^(2B) powers.
#include <optional>
#include <vector>

#include "cuda/ntt/ntt_plan.hpp"
#include "engine/ff/fr.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::cuda {

struct SplitPowerTables {
  std::vector<ff::Fr> lo;  // x^j, j < lo_count
  std::vector<ff::Fr> hi;  // scale * x^(j 2^B), j < hi_count
};

// lo[j] = x^j for j < min(count, 2^bits); hi[j] = scale * x^(j 2^bits) so
// that lo[i mod 2^bits] * hi[i >> bits] = scale * x^i for every i < count.
inline SplitPowerTables MakeSplitPowerTables(ff::Fr x, uint64_t count, unsigned bits, ff::Fr scale) {
  SplitPowerTables t;
  const uint64_t lo_count = std::min<uint64_t>(count, uint64_t(1) << bits);
  const uint64_t hi_count = std::max<uint64_t>(1, (count + (uint64_t(1) << bits) - 1) >> bits);
  t.lo.resize(lo_count);
  ff::Fr acc = ff::Fr::One();
  for (auto& v : t.lo) {
    v = acc;
    acc *= x;
  }
  ff::Fr step = x.Pow(uint64_t(1) << bits);
  t.hi.resize(hi_count);
  acc = scale;
  for (auto& v : t.hi) {
    v = acc;
    acc *= step;
  }
  return t;
}

// Twiddle table w_N^i, i < N/2 (N = 2^twiddle_log), split at kNttTwiddleSplitBits.
inline SplitPowerTables MakeTwiddleTables(unsigned twiddle_log) {
  return MakeSplitPowerTables(ff::FrRootOfUnity(twiddle_log), uint64_t(1) << (twiddle_log - 1), kNttTwiddleSplitBits,
                              ff::Fr::One());
}

// Coset factors for an NTT of size 2^log_n: forward scale g^i, inverse
// scale n^-1 g^-i (NttOptions::scale).
inline SplitPowerTables MakeCosetTables(unsigned log_n, ff::Fr shift, bool inverse, ff::Fr scale = ff::Fr::One()) {
  const ff::Fr g = inverse ? shift.Inverse() : shift;
  if (inverse) scale *= ff::Fr::FromUint64(uint64_t(1) << log_n).Inverse();
  return MakeSplitPowerTables(g, uint64_t(1) << log_n, kNttCosetSplitBits, scale);
}

// The constant the non-coset kinds multiply their outputs by: forward scale,
// inverse n^-1 scale; none when it is 1 (the coset kinds fold theirs into
// MakeCosetTables).
inline std::optional<ff::Fr> ScalarOutputScale(NttKind kind, unsigned log_n, ff::Fr scale) {
  if (kind == NttKind::kCosetForward || kind == NttKind::kCosetInverse) return std::nullopt;
  if (kind == NttKind::kInverse) scale *= ff::Fr::FromUint64(uint64_t(1) << log_n).Inverse();
  if (scale == ff::Fr::One()) return std::nullopt;
  return scale;
}

}  // namespace cuzk::cuda
