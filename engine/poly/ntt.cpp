// CPU NTT over Fr (API and conventions: ntt.hpp).
//
// Every transform is a radix-2 decimation-in-frequency (Gentleman-Sande) DFT,
// which leaves its output in bit-reversed order, followed by an in-place
// bit-reversal permutation (bit_reverse.cpp). Sizes up to 2^kDirectMaxLog run
// as one in-cache loop nest on the calling thread. Larger sizes use the
// four-step split n = n1 * n2 (n1 = 2^floor(k/2) rows of n2 contiguous
// columns), which keeps every butterfly stage inside the caches and gives two
// passes over memory that parallelise without synchronisation:
//   1. column pass: blocks of kColumnLanes columns are copied into a private
//      buffer (256 contiguous bytes per row; working in place at a
//      power-of-two stride would thrash the cache sets), each column gets a
//      length-n1 DIF, then the four-step twiddle w^(j2 * k1), and is copied back;
//   2. row pass: each row gets a length-n2 DIF in place.
// The result at position (r1, r2) is X[rev(r1) + n1 * rev(r2)], i.e. X in
// bit-reversed order, so step 3 is the same bit reversal as the direct path.
// Inverse transforms run the same code with w^-1. Coset and 1/n scalings are folded into the column copy and the row
// pass instead of costing passes of their own.
//
// Cost in field multiplications (what the time is, ~12 ns each here): the
// direct path n/2 (k - 2) (twiddle w^0 and the whole last stage are free); the
// four-step path n/2 (k - 4) in its two sub-transforms plus 2n for the
// twiddle (apply and advance), i.e. n/2 k; a coset or inverse-coset scaling
// adds 2n. Memory: the array itself, the twiddle cache (<= 1 MiB) and one
// 2^floor(k/2) * kColumnLanes * 32 byte buffer per thread (2 MiB at 2^27); no
// full-size temporary.
#include "engine/poly/ntt.hpp"

#include <algorithm>
#include <bit>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/poly/ntt_internal.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::poly {
namespace internal {
namespace {

// Up to here the whole array (128 KiB) stays in L2 and a single thread beats
// the extra twiddle work and thread start-up of the four-step path.
constexpr unsigned kDirectMaxLog = 12;
// DIF stages with spans below 2^kL1BlockLog elements (32 KiB of a 48 KiB L1)
// run block by block: measured a few percent on the row pass at 2^24, within
// the development machine's noise.
constexpr unsigned kL1BlockLog = 10;
// Columns per block of the column pass: 8 Fr = 256 contiguous bytes per row.
constexpr size_t kColumnLanes = 8;
// ScaleGeometric: elements per grain (one Pow each); smaller arrays take one thread.
constexpr size_t kScaleGrain = size_t(1) << 14;

// Radix-2 DIF stages s_hi-1 down to s_lo (span 2^s) over 2^log_len rows of
// kLanes interleaved sequences (element r of lane c at data[r * kLanes + c]).
// All lanes share each twiddle, so kLanes > 1 gives independent
// multiplications to overlap.
template <size_t kLanes>
void DifStages(Fr* data, unsigned log_len, unsigned s_hi, unsigned s_lo, const TwiddleLevels& tw) {
  const size_t len = size_t(1) << log_len;
  for (unsigned s = s_hi; s-- > s_lo;) {
    const size_t half = size_t(1) << s;
    const Fr* twiddle = tw.level[s];
    for (size_t start = 0; start < len; start += 2 * half) {
      Fr* lo = data + start * kLanes;
      Fr* hi = lo + half * kLanes;
      for (size_t c = 0; c < kLanes; ++c) {  // j = 0: twiddle 1
        Fr u = lo[c], v = hi[c];
        lo[c] = AddFr(u, v);
        hi[c] = SubFr(u, v);
      }
      for (size_t j = 1; j < half; ++j) {
        const Fr w = twiddle[j];
        Fr* x = lo + j * kLanes;
        Fr* y = hi + j * kLanes;
        for (size_t c = 0; c < kLanes; ++c) {
          Fr u = x[c], v = y[c];
          x[c] = AddFr(u, v);
          y[c] = SubFr(u, v) * w;
        }
      }
    }
  }
}

// In-place radix-2 DIF of length 2^log_len on kLanes interleaved sequences:
// natural order in, bit-reversed out. The stages with spans below
// 2^kL1BlockLog / kLanes rows stay inside independent blocks, which are
// finished one at a time while they sit in L1.
template <size_t kLanes>
void DifLanes(Fr* data, unsigned log_len, const TwiddleLevels& tw) {
  constexpr unsigned kBlockLog = kL1BlockLog - std::countr_zero(kLanes);
  if (log_len <= kBlockLog) {
    DifStages<kLanes>(data, log_len, log_len, 0, tw);
    return;
  }
  DifStages<kLanes>(data, log_len, log_len, kBlockLog, tw);
  const size_t block_rows = size_t(1) << kBlockLog;
  for (size_t b = 0; b < (size_t(1) << (log_len - kBlockLog)); ++b)
    DifStages<kLanes>(data + b * block_rows * kLanes, kBlockLog, kBlockLog, 0, tw);
}

void DirectTransform(std::span<Fr> a, unsigned log_n, Direction direction, const Geometric* pre,
                     const Geometric* post) {
  if (pre) ScaleGeometric(a, *pre, 1);
  DifLanes<1>(a.data(), log_n, GetTwiddles(log_n, direction));
  BitReverseInPlace(a.data(), log_n, 1);
  if (post) ScaleGeometric(a, *post, 1);
}

struct FourStepShape {
  unsigned log_rows, log_cols;  // n1 = 2^log_rows rows of n2 = 2^log_cols
  size_t rows, cols;
};

// Copies columns col0..col0+L-1 into buf (row r at buf[r * L]), applying
// `pre`: element (r, col0 + c) is input index r * n2 + col0 + c.
template <size_t L>
void GatherColumns(const Fr* a, const FourStepShape& shape, size_t col0, const Geometric* pre, const Fr& pre_row_step,
                   Fr* buf) {
  if (!pre) {
    for (size_t r = 0; r < shape.rows; ++r) std::copy_n(a + r * shape.cols + col0, L, buf + r * L);
    return;
  }
  Fr f[L];
  f[0] = pre->ratio_is_one ? pre->scale : pre->scale * pre->ratio.Pow(col0);
  for (size_t c = 1; c < L; ++c) f[c] = pre->ratio_is_one ? f[0] : f[c - 1] * pre->ratio;
  for (size_t r = 0; r < shape.rows; ++r) {
    const Fr* src = a + r * shape.cols + col0;
    for (size_t c = 0; c < L; ++c) buf[r * L + c] = src[c] * f[c];
    if (pre->ratio_is_one) continue;
    for (size_t c = 0; c < L; ++c) f[c] *= pre_row_step;
  }
}

// The four-step twiddle: buf row rev(k1) holds result k1 of columns
// col0 + c, which is multiplied by w^((col0 + c) * k1). Powers advance by one
// multiplication per element, L independent chains.
template <size_t L>
void TwiddleColumns(Fr* buf, const FourStepShape& shape, size_t col0, const Fr& omega) {
  Fr step[L], t[L];
  step[0] = omega.Pow(col0);
  for (size_t c = 1; c < L; ++c) step[c] = step[c - 1] * omega;
  std::copy_n(step, L, t);
  for (size_t k1 = 1; k1 < shape.rows; ++k1) {
    Fr* row = buf + ReverseBits(uint32_t(k1), shape.log_rows) * L;
    for (size_t c = 0; c < L; ++c) {
      row[c] *= t[c];
      t[c] *= step[c];
    }
  }
}

// Step 1: length-n1 DIF down each column (scaled by `pre` on the way in),
// then the four-step twiddle, block by block of kColumnLanes columns.
void ColumnPass(Fr* a, const FourStepShape& shape, const TwiddleLevels& tw, const Fr& omega, const Geometric* pre,
                unsigned threads) {
  constexpr size_t L = kColumnLanes;
  const Fr pre_row_step = pre && !pre->ratio_is_one ? pre->ratio.Pow(shape.cols) : Fr::One();
  ParallelGrains(shape.cols / L, 1, threads, [&](GrainCounter& blocks) {
    std::unique_ptr<Fr[]> buf(new Fr[shape.rows * L]);
    for (size_t block; blocks.Next(block);) {
      const size_t col0 = block * L;
      GatherColumns<L>(a, shape, col0, pre, pre_row_step, buf.get());
      DifLanes<L>(buf.get(), shape.log_rows, tw);
      TwiddleColumns<L>(buf.get(), shape, col0, omega);
      for (size_t r = 0; r < shape.rows; ++r) std::copy_n(buf.get() + r * L, L, a + r * shape.cols + col0);
    }
  });
}

// `post` for row r after its DIF: position (r, r2) holds result index
// rev(r) + n1 * rev(r2).
void PostScaleRow(Fr* row, size_t r, const FourStepShape& shape, const Geometric& post, const Fr& col_step) {
  if (post.ratio_is_one) {
    for (size_t i = 0; i < shape.cols; ++i) row[i] *= post.scale;
    return;
  }
  Fr f = post.scale * post.ratio.Pow(ReverseBits(uint32_t(r), shape.log_rows));
  for (size_t k2 = 0; k2 < shape.cols; ++k2) {
    row[ReverseBits(uint32_t(k2), shape.log_cols)] *= f;
    f *= col_step;
  }
}

// Step 2: length-n2 DIF along each row, in place, then `post`.
void RowPass(Fr* a, const FourStepShape& shape, const TwiddleLevels& tw, const Geometric* post, unsigned threads) {
  const Fr post_col_step = post && !post->ratio_is_one ? post->ratio.Pow(shape.rows) : Fr::One();
  ParallelGrains(shape.rows, 1, threads, [&](GrainCounter& rows) {
    for (size_t r; rows.Next(r);) {
      Fr* row = a + r * shape.cols;
      DifLanes<1>(row, shape.log_cols, tw);
      if (post) PostScaleRow(row, r, shape, *post, post_col_step);
    }
  });
}

void FourStepTransform(std::span<Fr> a, unsigned log_n, Direction direction, const Geometric* pre,
                       const Geometric* post, unsigned threads) {
  FourStepShape shape;
  shape.log_rows = log_n / 2;
  shape.log_cols = log_n - shape.log_rows;  // <= kMaxSubLog for log_n <= 28
  shape.rows = size_t(1) << shape.log_rows;
  shape.cols = size_t(1) << shape.log_cols;
  Fr omega = ff::FrRootOfUnity(log_n);
  if (direction == Direction::kInverse) omega = omega.Inverse();
  const TwiddleLevels tw = GetTwiddles(shape.log_cols, direction);  // log_rows <= log_cols
  ColumnPass(a.data(), shape, tw, omega, pre, threads);
  RowPass(a.data(), shape, tw, post, threads);
  BitReverseInPlace(a.data(), log_n, threads);
}

Fr SizeInverse(size_t n) { return Fr::FromUint64(n).Inverse(); }

void CheckShift(const Fr& shift, const char* fn) {
  if (shift.IsZero()) throw std::invalid_argument(std::string(fn) + ": the coset shift must be non-zero");
}

}  // namespace

unsigned CheckSize(size_t n, const char* fn) {
  if (n == 0 || (n & (n - 1)) != 0 || n > (size_t(1) << kMaxLogSize)) {
    throw std::invalid_argument(std::string(fn) + ": size " + std::to_string(n) + " is not a power of two in [1, 2^" +
                                std::to_string(kMaxLogSize) + "]");
  }
  return unsigned(__builtin_ctzll(n));
}

void ScaleGeometric(std::span<Fr> a, const Geometric& g, unsigned threads) {
  ParallelGrains(a.size(), kScaleGrain, threads, [&](GrainCounter& grains) {
    for (size_t begin, end; grains.Next(begin, end);) {
      if (g.ratio_is_one) {
        for (size_t i = begin; i < end; ++i) a[i] *= g.scale;
        continue;
      }
      Fr f = g.scale * g.ratio.Pow(begin);
      for (size_t i = begin; i < end; ++i) {
        a[i] *= f;
        f *= g.ratio;
      }
    }
  });
}

void Transform(std::span<Fr> a, Direction direction, const Geometric* pre, const Geometric* post, unsigned threads) {
  const unsigned log_n = unsigned(__builtin_ctzll(a.size()));
  if (log_n <= kDirectMaxLog) {
    DirectTransform(a, log_n, direction, pre, post);
  } else {
    FourStepTransform(a, log_n, direction, pre, post, util::ResolveThreads(threads));
  }
}

}  // namespace internal

using internal::Direction;
using internal::Geometric;

void Ntt(std::span<ff::Fr> a, const NttOptions& options) {
  internal::CheckSize(a.size(), "Ntt");
  internal::Transform(a, Direction::kForward, nullptr, nullptr, options.threads);
}

void InverseNtt(std::span<ff::Fr> a, const NttOptions& options) {
  internal::CheckSize(a.size(), "InverseNtt");
  const Geometric post{internal::SizeInverse(a.size()), ff::Fr::One(), true};
  internal::Transform(a, Direction::kInverse, nullptr, &post, options.threads);
}

void CosetNtt(std::span<ff::Fr> a, const NttOptions& options, ff::Fr shift) {
  internal::CheckSize(a.size(), "CosetNtt");
  internal::CheckShift(shift, "CosetNtt");
  const Geometric pre{ff::Fr::One(), shift, false};
  internal::Transform(a, Direction::kForward, &pre, nullptr, options.threads);
}

void InverseCosetNtt(std::span<ff::Fr> a, const NttOptions& options, ff::Fr shift) {
  internal::CheckSize(a.size(), "InverseCosetNtt");
  internal::CheckShift(shift, "InverseCosetNtt");
  const Geometric post{internal::SizeInverse(a.size()), shift.Inverse(), false};
  internal::Transform(a, Direction::kInverse, nullptr, &post, options.threads);
}

void NaiveDft(std::span<ff::Fr> a) {
  const unsigned log_n = internal::CheckSize(a.size(), "NaiveDft");
  const ff::Fr omega = ff::FrRootOfUnity(log_n);
  std::vector<ff::Fr> out(a.size());
  ff::Fr x = ff::Fr::One();  // omega^i
  for (size_t i = 0; i < a.size(); ++i) {
    ff::Fr acc;  // Horner: sum_j a_j x^j
    for (size_t j = a.size(); j-- > 0;) acc = acc * x + a[j];
    out[i] = acc;
    x *= omega;
  }
  std::copy(out.begin(), out.end(), a.begin());
}

}  // namespace cuzk::poly
