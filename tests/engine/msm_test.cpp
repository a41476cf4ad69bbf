// CPU MSM (Pippenger, signed windows, batched affine buckets): against NaiveMsm (the sum of scalar
// multiplications) over many sizes, edge scalars, repeated and infinite bases, density bitmaps,
// thread counts and window widths, for G1 and G2; plus the pieces (Booth digits, the bucket
// accumulator's doubling / cancellation / overflow paths) and the error cases.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/batch_affine_buckets.hpp"
#include "engine/msm/field_kernels.hpp"
#include "engine/msm/msm.hpp"
#include "engine/msm/pippenger.hpp"
#include "engine/msm/signed_digits.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::msm {
namespace {

using ec::G1Affine;
using ec::G1Curve;
using ec::G1Jacobian;
using ec::G2Affine;
using ec::G2Curve;
using ec::G2Jacobian;
using ff::Fr;

// Per-curve entry points, so that one typed test covers G1 and G2.
template <class C>
struct Api;
template <>
struct Api<G1Curve> {
  static G1Jacobian Msm(std::span<const G1Affine> b, std::span<const Fr> s, const MsmOptions& o) {
    return MsmG1(b, s, o);
  }
  static G1Jacobian Density(std::span<const G1Affine> b, std::span<const Fr> s, const DensityBitmap& d,
                            const MsmOptions& o) {
    return MsmG1Density(b, s, d, o);
  }
  static G1Jacobian Naive(std::span<const G1Affine> b, std::span<const Fr> s) { return NaiveMsmG1(b, s); }
  static constexpr size_t kNaiveLarge = 4096;  // sizes checked against the (slow) naive sum
  static constexpr size_t kDensityLarge = 1000;
};
template <>
struct Api<G2Curve> {
  static G2Jacobian Msm(std::span<const G2Affine> b, std::span<const Fr> s, const MsmOptions& o) {
    return MsmG2(b, s, o);
  }
  static G2Jacobian Density(std::span<const G2Affine> b, std::span<const Fr> s, const DensityBitmap& d,
                            const MsmOptions& o) {
    return MsmG2Density(b, s, d, o);
  }
  static G2Jacobian Naive(std::span<const G2Affine> b, std::span<const Fr> s) { return NaiveMsmG2(b, s); }
  static constexpr size_t kNaiveLarge = 1000;
  static constexpr size_t kDensityLarge = 300;
};

// n distinct points: a random walk Q0 + i R from random multiples of the generator (additions
// and one inversion per point instead of a scalar multiplication per point).
template <class C>
std::vector<ec::AffinePoint<C>> RandomPoints(size_t n, std::mt19937_64& rng) {
  using J = ec::JacobianPoint<C>;
  J step = J::Generator() * Fr::Random(rng);
  J cur = J::Generator() * Fr::Random(rng);
  std::vector<ec::AffinePoint<C>> out(n);
  for (size_t i = 0; i < n; ++i, cur += step) out[i] = cur.ToAffine();
  return out;
}

std::vector<Fr> RandomScalars(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::Random(rng);
  return v;
}

Fr MinusOne() { return -Fr::One(); }

// Scalars that stress the digit recoding: 0, 1, r-1, r-2, small values, powers of two, values
// with all-ones or all-zero windows.
std::vector<Fr> EdgeScalars() {
  std::vector<Fr> v = {Fr::Zero(),
                       Fr::One(),
                       MinusOne(),
                       MinusOne() - Fr::One(),
                       Fr::FromUint64(2),
                       Fr::FromUint64(3),
                       Fr::FromUint64(7),
                       Fr::FromUint64(0xffff),
                       Fr::FromUint64(0x8000),
                       Fr::FromUint64(~uint64_t(0)),
                       Fr::FromHex("0x4000000000000000000000000000000000000000000000000000000000000000"),
                       Fr::FromHex("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffeffffffff"),
                       Fr::FromHex("0x0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff0fff"),
                       -Fr::FromUint64(0x10000)};
  for (unsigned s : {1u, 15u, 16u, 63u, 64u, 127u, 128u, 200u, 253u, 254u}) {
    ff::Limbs<4> k{};
    k[s / 64] = uint64_t(1) << (s % 64);
    v.push_back(Fr::FromCanonical(k));
  }
  return v;
}

template <class C>
class MsmTest : public ::testing::Test {};
using Curves = ::testing::Types<G1Curve, G2Curve>;
TYPED_TEST_SUITE(MsmTest, Curves);

TYPED_TEST(MsmTest, MatchesNaiveAcrossSizes) {
  using A = Api<TypeParam>;
  auto rng = test::SeededRng();
  auto points = RandomPoints<TypeParam>(A::kNaiveLarge, rng);
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(7), size_t(64), size_t(1000), A::kNaiveLarge}) {
    if (n > A::kNaiveLarge) continue;
    std::span<const ec::AffinePoint<TypeParam>> bases(points.data(), n);
    auto scalars = RandomScalars(n, rng);
    auto expected = A::Naive(bases, scalars);
    EXPECT_EQ(A::Msm(bases, scalars, {.threads = 1}), expected) << "n=" << n << " threads=1";
    EXPECT_EQ(A::Msm(bases, scalars, {.threads = 3}), expected) << "n=" << n << " threads=3";
  }
}

TYPED_TEST(MsmTest, EveryWindowWidthAndThreadCount) {
  using A = Api<TypeParam>;
  auto rng = test::SeededRng();
  const size_t n = 150;
  auto bases = RandomPoints<TypeParam>(n, rng);
  auto scalars = RandomScalars(n, rng);
  auto edge = EdgeScalars();
  for (size_t i = 0; i < edge.size(); ++i) scalars[i * 5] = edge[i];
  auto expected = A::Naive(bases, scalars);
  for (unsigned c : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 11u, 13u}) {
    for (unsigned threads : {1u, 2u, 5u, 8u}) {
      EXPECT_EQ(A::Msm(bases, scalars, {.threads = threads, .window_bits = c}), expected)
          << "window=" << c << " threads=" << threads;
    }
  }
  // Wide windows: far more buckets than points (2^15 per window, most of them empty).
  EXPECT_EQ(A::Msm(bases, scalars, {.threads = 1, .window_bits = 16}), expected);
}

TYPED_TEST(MsmTest, EdgeScalarsRepeatedAndInfiniteBases) {
  using A = Api<TypeParam>;
  using Affine = ec::AffinePoint<TypeParam>;
  auto rng = test::SeededRng();
  auto distinct = RandomPoints<TypeParam>(4, rng);
  auto edge = EdgeScalars();
  // The same few bases over and over (with their negations and infinity), so that buckets meet
  // P + P (doubling), P + (-P) (cancellation) and many points of one bucket in one batch.
  std::vector<Affine> bases;
  std::vector<Fr> scalars;
  for (size_t i = 0; i < 600; ++i) {
    const Affine& p = distinct[rng() % distinct.size()];
    switch (rng() % 5) {
      case 0: bases.push_back(-p); break;
      case 1: bases.push_back(Affine::Infinity()); break;
      default: bases.push_back(p);
    }
    scalars.push_back(rng() % 3 == 0 ? edge[rng() % edge.size()] : Fr::FromUint64(rng() % 6));
  }
  auto expected = A::Naive(bases, scalars);
  for (unsigned c : {0u, 2u, 6u, 10u}) {
    for (unsigned threads : {1u, 4u}) {
      EXPECT_EQ(A::Msm(bases, scalars, {.threads = threads, .window_bits = c}), expected)
          << "window=" << c << " threads=" << threads;
    }
  }
  // All scalars r - 1: the result is -(sum of bases).
  std::vector<Fr> minus_one(bases.size(), MinusOne());
  auto sum = A::Naive(bases, std::vector<Fr>(bases.size(), Fr::One()));
  EXPECT_EQ(A::Msm(bases, minus_one, {.threads = 2}), -sum);
  // All scalars zero, and all bases at infinity.
  std::vector<Fr> zeros(bases.size());
  EXPECT_TRUE(A::Msm(bases, zeros, {}).IsInfinity());
  std::vector<Affine> infinities(bases.size(), Affine::Infinity());
  EXPECT_TRUE(A::Msm(infinities, scalars, {}).IsInfinity());
}

TYPED_TEST(MsmTest, OneBaseManyTimesEqualsScalarSum) {
  // sum_i k_i P == (sum_i k_i) P: every addition lands in the same few buckets.
  using A = Api<TypeParam>;
  auto rng = test::SeededRng();
  auto p = RandomPoints<TypeParam>(1, rng)[0];
  const size_t n = 3000;
  std::vector<ec::AffinePoint<TypeParam>> bases(n, p);
  std::vector<Fr> scalars(n);
  Fr total;
  for (size_t i = 0; i < n; ++i) {
    scalars[i] = (i % 2) ? Fr::FromUint64(rng() % 4) : Fr::Random(rng);
    total += scalars[i];
  }
  auto expected = ec::JacobianPoint<TypeParam>::FromAffine(p) * total;
  EXPECT_EQ(A::Msm(bases, scalars, {.threads = 1}), expected);
  EXPECT_EQ(A::Msm(bases, scalars, {.threads = 2, .window_bits = 4}), expected);
}

TYPED_TEST(MsmTest, DensityMatchesFilteredNaive) {
  using A = Api<TypeParam>;
  using Affine = ec::AffinePoint<TypeParam>;
  auto rng = test::SeededRng();
  auto pool = RandomPoints<TypeParam>(700, rng);
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), A::kDensityLarge}) {
    for (double fill : {0.0, 0.3, 0.9, 1.0}) {
      DensityBitmap density(n);
      for (size_t i = 0; i < n; ++i) density.Set(i, std::bernoulli_distribution(fill)(rng));
      auto scalars = RandomScalars(n, rng);
      std::vector<Affine> bases;
      std::vector<Fr> used;
      for (size_t i = 0; i < n; ++i) {
        if (!density.Test(i)) continue;
        bases.push_back(pool[bases.size() % pool.size()]);
        used.push_back(scalars[i]);
      }
      ASSERT_EQ(bases.size(), density.Count());
      auto expected = A::Naive(bases, used);
      for (unsigned threads : {1u, 3u}) {
        EXPECT_EQ(A::Density(bases, scalars, density, {.threads = threads}), expected)
            << "n=" << n << " fill=" << fill << " threads=" << threads;
      }
    }
  }
}

TYPED_TEST(MsmTest, RejectsMismatchedSizes) {
  using A = Api<TypeParam>;
  auto rng = test::SeededRng();
  auto bases = RandomPoints<TypeParam>(4, rng);
  auto scalars = RandomScalars(5, rng);
  EXPECT_THROW(A::Msm(bases, scalars, {}), std::invalid_argument);
  EXPECT_THROW(A::Naive(bases, scalars), std::invalid_argument);
  EXPECT_THROW(A::Msm(bases, std::span<const Fr>(scalars.data(), 4), {.window_bits = 25}), std::invalid_argument);
  DensityBitmap density(5);
  density.Set(0);
  density.Set(2);
  density.Set(4);
  // 3 set bits but 4 bases; then 5 variables but 4 scalars.
  EXPECT_THROW(A::Density(bases, scalars, density, {}), std::invalid_argument);
  EXPECT_THROW(A::Density(std::span(bases.data(), 3), std::span<const Fr>(scalars.data(), 4), density, {}),
               std::invalid_argument);
  EXPECT_EQ(A::Density(std::span(bases.data(), 3), scalars, density, {}),
            A::Naive(std::span(bases.data(), 3), std::vector<Fr>{scalars[0], scalars[2], scalars[4]}));
  try {
    A::Msm(bases, scalars, {});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4 bases but 5 scalars"), std::string::npos) << e.what();
  }
}

// Larger sizes where the naive sum is too slow: different window widths and thread counts
// (different bucket layouts, batches and work splits) must agree.
TEST(MsmG1Test, LargeSizesAgreeAcrossPlans) {
  auto rng = test::SeededRng();
  const size_t n = size_t(1) << 14;
  auto distinct = RandomPoints<G1Curve>(1024, rng);
  std::vector<G1Affine> bases(n);
  for (size_t i = 0; i < n; ++i) bases[i] = distinct[(i * 7 + i / 1024) % distinct.size()];
  auto scalars = RandomScalars(n, rng);
  auto reference = MsmG1(bases, scalars, {.threads = 1});
  EXPECT_EQ(MsmG1(bases, scalars, {.threads = 4, .window_bits = 9}), reference);
  EXPECT_EQ(MsmG1(bases, scalars, {.threads = 7, .window_bits = 15}), reference);
  // Linearity: MSM(k1 + k2) == MSM(k1) + MSM(k2).
  auto other = RandomScalars(n, rng);
  std::vector<Fr> sum(n);
  for (size_t i = 0; i < n; ++i) sum[i] = scalars[i] + other[i];
  EXPECT_EQ(MsmG1(bases, sum, {.threads = 2}), reference + MsmG1(bases, other, {.threads = 2, .window_bits = 11}));
}

TEST(SignedDigitsTest, RecodingSumsBackToTheScalar) {
  auto rng = test::SeededRng();
  auto scalars = EdgeScalars();
  for (int i = 0; i < 40; ++i) scalars.push_back(Fr::Random(rng));
  for (const Fr& s : scalars) {
    ff::Limbs<4> k = s.ToCanonical();
    for (unsigned c = 1; c <= internal::kMaxWindowBits; ++c) {
      unsigned windows = internal::NumWindows(255, c);
      Fr acc;
      for (unsigned w = windows; w-- > 0;) {
        int32_t d = internal::SignedDigit(k, w, c);
        ASSERT_LE(std::abs(d), 1 << (c - 1)) << "c=" << c << " w=" << w;
        acc = acc * Fr::FromUint64(uint64_t(1) << c) + Fr::FromInt64(d);
      }
      ASSERT_EQ(acc, s) << "c=" << c << " k=" << s.ToHex();
    }
  }
  EXPECT_EQ(internal::MaxScalarBits(std::vector<internal::Scalar>{}), 0u);
  EXPECT_EQ(internal::MaxScalarBits(std::vector<internal::Scalar>{{5, 0, 0, 0}, {0, 1, 0, 0}}), 65u);
}

TEST(BatchAffineBucketsTest, DoublingCancellationAndOverflow) {
  using Buckets = internal::BatchAffineBuckets<G1Curve>;
  auto rng = test::SeededRng();
  auto pts = RandomPoints<G1Curve>(3, rng);
  G1Affine p = pts[0], q = pts[1], r = pts[2];
  Buckets b;
  b.Reset(4, 2);
  // bucket 0: p + p (doubling in a batch) + q
  b.Add(0, p, false);
  b.Add(0, p, false);
  // bucket 1: q - q (cancellation) then r
  b.Add(1, q, false);
  b.Add(1, q, true);
  b.Add(1, r, false);
  // bucket 2: many additions while it is busy (overflow path)
  for (int i = 0; i < 10; ++i) b.Add(2, i % 3 ? p : q, i % 4 == 0);
  b.Add(0, q, false);
  b.Flush();
  EXPECT_GT(b.overflow_additions(), 0u);
  using J = G1Jacobian;
  auto jp = J::FromAffine(p), jq = J::FromAffine(q), jr = J::FromAffine(r);
  J bucket0 = jp.Double() + jq;
  J bucket1 = jr;
  J bucket2 = J::Infinity();
  for (int i = 0; i < 10; ++i) bucket2 += (i % 4 == 0) ? -(i % 3 ? jp : jq) : (i % 3 ? jp : jq);
  // WeightedSum: 1 * b0 + 2 * b1 + 3 * b2 (+ 4 * empty b3).
  J expected = bucket0 + bucket1.Double() + bucket2.Double() + bucket2;
  EXPECT_EQ(b.WeightedSum(0, 4).ToJacobian(), expected);
  EXPECT_EQ(b.WeightedSum(1, 1).ToJacobian(), bucket1);
}

template <class F>
F RandomElement(std::mt19937_64& rng) {
  return F::Random(rng);
}

// The branch-free kernels against MontField's / Fp2's own operators, edge values included.
template <class F>
void CheckKernels(std::mt19937_64& rng, std::vector<F> edge) {
  using K = internal::FieldKernels<F>;
  for (int i = 0; i < 3000; ++i) {
    F a = i < int(edge.size() * edge.size()) ? edge[i % edge.size()] : RandomElement<F>(rng);
    F b = i < int(edge.size() * edge.size()) ? edge[i / edge.size()] : RandomElement<F>(rng);
    F r;
    K::Add(r, a, b);
    ASSERT_EQ(r, a + b);
    K::Sub(r, a, b);
    ASSERT_EQ(r, a - b);
    K::Mul(r, a, b);
    ASSERT_EQ(r, a * b);
    K::Square(r, a);
    ASSERT_EQ(r, a.Square());
    K::CondNeg(r, a, true);
    ASSERT_EQ(r, -a);
    K::CondNeg(r, a, false);
    ASSERT_EQ(r, a);
    r = a;  // outputs may alias inputs
    K::Sub(r, r, b);
    ASSERT_EQ(r, a - b);
    r = b;
    K::Mul(r, a, r);
    ASSERT_EQ(r, a * b);
  }
}

TEST(FieldKernelsTest, MatchFieldOperators) {
  auto rng = test::SeededRng();
  using ff::Fp;
  using ff::Fp2;
  const Fp m1 = -Fp::One(), half = Fp::FromMontgomery(ff::ShiftRight1(Fp::kModulus));
  CheckKernels<Fp>(rng, {Fp::Zero(), Fp::One(), m1, m1 - Fp::One(), half, half + Fp::One(), Fp::FromMontgomery({1})});
  CheckKernels<Fp2>(rng, {Fp2::Zero(), Fp2::One(), Fp2{m1, m1}, Fp2{Fp::Zero(), m1}, Fp2{half, Fp::One()}});
}

#if defined(CUZK_FF_X86_64_ASM)
// The MSM with the portable multiplication (what a CPU without BMI2/ADX runs) gives the same point.
TEST(MsmG1Test, PortableMultiplicationPathAgrees) {
  auto rng = test::SeededRng();
  auto bases = RandomPoints<G1Curve>(300, rng);
  auto scalars = RandomScalars(300, rng);
  auto expected = MsmG1(bases, scalars, {.threads = 2});
  const bool saved = ff::detail::use_mulx_adx;
  ff::detail::use_mulx_adx = false;
  auto portable = MsmG1(bases, scalars, {.threads = 2});
  auto portable_naive = NaiveMsmG1(std::span(bases.data(), 20), std::span(scalars.data(), 20));
  ff::detail::use_mulx_adx = saved;
  EXPECT_EQ(portable, expected);
  EXPECT_EQ(portable_naive, NaiveMsmG1(std::span(bases.data(), 20), std::span(scalars.data(), 20)));
}
#endif

TEST(MsmPlanTest, WindowChoiceGrowsWithSize) {
  EXPECT_EQ(MsmWindowBits(1 << 16, {.threads = 1, .window_bits = 7}), 7u);
  unsigned prev = 0;
  for (size_t log_n : {4, 8, 12, 16, 20, 24}) {
    unsigned c = MsmWindowBits(size_t(1) << log_n, {.threads = 1});
    EXPECT_GE(c, prev) << "log_n=" << log_n;
    EXPECT_LE(c, internal::kMaxWindowBits);
    prev = c;
  }
  EXPECT_GE(prev, 14u);
}

// DensityBitmap::FromWords against bit-by-bit Set on random bitmaps (seed
// printed by SeededRng), sizes around word edges; stray bits past n cleared;
// a wrong word count refused.
TEST(DensityBitmapTest, FromWordsEqualsSettingEachBit) {
  auto rng = test::SeededRng();
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(4096)}) {
    DensityBitmap want(n);
    for (size_t i = 0; i < n; ++i)
      if (rng() % 2) want.Set(i);
    std::vector<uint64_t> words = want.words();
    if (n % 64) words.back() |= ~((uint64_t(1) << (n % 64)) - 1);  // stray bits past n
    const DensityBitmap got = DensityBitmap::FromWords(std::move(words), n);
    EXPECT_EQ(got, want) << "n=" << n;
    EXPECT_EQ(got.Count(), want.Count()) << "n=" << n;
  }
  EXPECT_THROW(DensityBitmap::FromWords(std::vector<uint64_t>(2), 64), std::invalid_argument);
  EXPECT_THROW(DensityBitmap::FromWords(std::vector<uint64_t>(1), 65), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::msm
