// The building blocks of the GPU MSM run on the host through the emulated
// device fields: XYZZ point formulas against engine/ec (same formulas, so the
// coordinates must match exactly), the signed-digit recoding against the
// scalar it came from, the device Fp2 against ff::Fp2, and the whole G1 and
// G2 MSM pipelines (the device steps of cuda/msm/msm_steps.hpp in host loops)
// against msm::MsmG1 / msm::MsmG2.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/ec/point.hpp"
#include "cuda/msm/msm_emulation.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/msm/signed_digits.hpp"
#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/msm/msm.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

ec::G1Affine RandomPoint(std::mt19937_64& rng) {
  return (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
}

void ExpectSameXyzz(const G1Xyzz& got, const ec::G1Xyzz& want, const char* what) {
  const ec::G1Xyzz g = G1XyzzToHost(got);
  EXPECT_TRUE(g.x == want.x && g.y == want.y && g.zz == want.zz && g.zzz == want.zzz) << what;
  EXPECT_EQ(g.ToJacobian(), want.ToJacobian()) << what;
}

TEST(PointEmulationTest, XyzzFormulasMatchHost) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 8; ++i) {
    const ec::G1Affine a = RandomPoint(rng), b = RandomPoint(rng);
    const ec::G1Xyzz acc = ec::G1Xyzz::FromAffine(a).AddMixed(RandomPoint(rng));  // zz != 1
    const G1Xyzz dacc = G1XyzzFromHost(acc);
    const G1Affine da = G1AffineFromHost(a), db = G1AffineFromHost(b);
    ExpectSameXyzz(dacc.AddMixed(db), acc.AddMixed(b), "AddMixed");
    ExpectSameXyzz(dacc.AddMixed(db.Negated()), acc.AddMixed(-b), "AddMixed(-b)");
    ExpectSameXyzz(dacc.Double(), acc.Double(), "Double");
    ExpectSameXyzz(G1Xyzz::DoubleAffine(da), ec::G1Xyzz::DoubleAffine(a), "DoubleAffine");
    ExpectSameXyzz(dacc + G1XyzzFromHost(ec::G1Xyzz::FromAffine(b).AddMixed(a)),
                   acc + ec::G1Xyzz::FromAffine(b).AddMixed(a), "add");
    // Equal-x cases: P + P doubles, P + (-P) is infinity, infinity is neutral.
    const G1Xyzz pa = G1Xyzz::FromAffine(da);
    EXPECT_EQ(G1XyzzToHost(pa.AddMixed(da)).ToJacobian(), ec::G1Jacobian::FromAffine(a).Double());
    EXPECT_TRUE(pa.AddMixed(da.Negated()).IsInfinity());
    EXPECT_TRUE((pa + G1Xyzz::FromAffine(da.Negated())).IsInfinity());
    ExpectSameXyzz(G1Xyzz::Infinity().AddMixed(da), ec::G1Xyzz::FromAffine(a), "inf + a");
    ExpectSameXyzz(dacc.AddMixed(G1Affine::Infinity()), acc, "acc + inf");
    EXPECT_EQ(G1XyzzToHost(dacc + pa + G1Xyzz::FromAffine(da)).ToJacobian(),
              acc.ToJacobian() + ec::G1Jacobian::FromAffine(a).Double());
  }
  EXPECT_TRUE(G1AffineFromHost(ec::G1Affine::Infinity()).IsInfinity());
}

TEST(SignedDigitsTest, DigitsRecomposeTheScalarAndStayInRange) {
  auto rng = test::SeededRng();
  std::vector<ff::Fr> scalars = {ff::Fr::Zero(), ff::Fr::One(), -ff::Fr::One(), -ff::Fr::FromUint64(2)};
  for (int i = 0; i < 200; ++i) scalars.push_back(ff::Fr::Random(rng));
  for (uint32_t c = 1; c <= 24; ++c) {
    const uint32_t windows = SignedDigitWindows(c);
    const ff::Fr two_c = ff::Fr::FromUint64(uint64_t(1) << c);
    for (const ff::Fr& s : scalars) {
      const auto canonical = s.ToCanonical();
      uint32_t limbs[8];
      for (int j = 0; j < 8; ++j) limbs[j] = uint32_t(canonical[j / 2] >> (32 * (j % 2)));
      uint32_t carry = 0;
      ff::Fr sum, weight = ff::Fr::One();
      for (uint32_t w = 0; w < windows; ++w) {
        const int32_t d = NextSignedDigit(limbs, w, c, carry);
        ASSERT_LE(d, int32_t(1u << (c - 1))) << "c=" << c;
        ASSERT_GT(d, -int32_t(1u << (c - 1))) << "c=" << c;
        sum += ff::Fr::FromInt64(d) * weight;
        weight *= two_c;
      }
      ASSERT_EQ(carry, 0u) << "c=" << c << " s=" << s.ToHex();
      ASSERT_EQ(sum, s) << "c=" << c << " s=" << s.ToHex();
    }
  }
}

std::vector<ec::G1Affine> RandomPoints(std::mt19937_64& rng, size_t n) {
  std::vector<ec::G1Affine> out;
  for (size_t i = 0; i < n; ++i) out.push_back(RandomPoint(rng));
  return out;
}

// The scalar kinds the pipeline tests feed: `random_count` random scalars;
// n small ones (zero digits in most windows); n witness-like ones (50% zero,
// then ones up to `ones_until` per cent, the rest random).
struct ScalarKinds {
  std::vector<ff::Fr> random, small, witness;
};
ScalarKinds MakeScalarKinds(std::mt19937_64& rng, size_t n, size_t random_count, unsigned ones_until) {
  ScalarKinds k{std::vector<ff::Fr>(random_count), std::vector<ff::Fr>(n), std::vector<ff::Fr>(n)};
  for (auto& s : k.random) s = ff::Fr::Random(rng);
  for (auto& s : k.small) s = rng() % 8 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(rng() % 300);
  for (auto& s : k.witness) {
    const unsigned r = unsigned(rng() % 100);
    s = r < 50 ? ff::Fr::Zero() : r < ones_until ? ff::Fr::One() : ff::Fr::Random(rng);
  }
  return k;
}

void ExpectSameMsm(std::span<const ec::G1Affine> bases, std::span<const ff::Fr> scalars,
                   const pippenger::EmulationSizes& sizes, const std::string& what) {
  const ec::G1Affine want = msm::MsmG1(bases.first(scalars.size()), scalars).ToAffine();
  const ec::G1Affine got = pippenger::EmulatedMsmG1(bases, scalars, nullptr, sizes).ToAffine();
  EXPECT_EQ(got, want) << what << " n=" << scalars.size() << " c=" << sizes.window_bits << " chunk=" << sizes.chunk
                       << " segment=" << sizes.segment_len;
}

TEST(MsmPipelineEmulationTest, RandomInputsMatchCpuMsm) {
  auto rng = test::SeededRng();
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, 130);
  for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(130)}) {
    std::vector<ff::Fr> scalars(n);
    for (auto& s : scalars) s = ff::Fr::Random(rng);
    // Tiny chunks and segments: buckets split over many chunks, many segments per window.
    ExpectSameMsm(bases, scalars, {.window_bits = 4, .chunk = 3, .segment_len = 2}, "small chunks");
    ExpectSameMsm(bases, scalars, {.window_bits = 7, .chunk = 1, .segment_len = 64}, "chunk 1");
    ExpectSameMsm(bases, scalars, {.window_bits = 5, .chunk = 1000, .segment_len = 16}, "one chunk");
  }
  std::vector<ff::Fr> scalars(100);
  for (auto& s : scalars) s = ff::Fr::Random(rng);
  ExpectSameMsm(bases, scalars, {}, "default sizes");
}

TEST(MsmPipelineEmulationTest, EdgeScalarsAndRepeatedBases) {
  auto rng = test::SeededRng();
  const ec::G1Affine p = RandomPoint(rng), q = RandomPoint(rng);
  const ff::Fr r_minus_1 = -ff::Fr::One();
  // Repeated bases: P + P doubles inside a bucket; s P + (r - s) P cancels to infinity.
  std::vector<ec::G1Affine> bases = {p, p, p, q, q, -q, ec::G1Affine::Infinity(), p, q, p};
  std::vector<ff::Fr> scalars = {ff::Fr::One(),        ff::Fr::One(),          r_minus_1,
                                 ff::Fr::Zero(),       ff::Fr::FromUint64(5),  ff::Fr::FromUint64(5),
                                 ff::Fr::Random(rng),  -ff::Fr::FromUint64(2), ff::Fr::FromUint64(1u << 20),
                                 ff::Fr::FromUint64(3)};
  for (uint32_t c : {4u, 6u, 9u}) {
    ExpectSameMsm(bases, scalars, {.window_bits = c, .chunk = 2, .segment_len = 4}, "edge");
  }
  // Cancels exactly: s P + (-s) P + 0 Q = infinity.
  const ff::Fr s = ff::Fr::Random(rng);
  std::vector<ec::G1Affine> pair = {p, p, q};
  std::vector<ff::Fr> cancel = {s, -s, ff::Fr::Zero()};
  EXPECT_TRUE(pippenger::EmulatedMsmG1(pair, cancel, nullptr, {.window_bits = 5, .chunk = 2}).IsInfinity());
  // All scalars equal: one bucket per window spans many chunks (fixup runs).
  std::vector<ec::G1Affine> many = RandomPoints(rng, 40);
  std::vector<ff::Fr> same(40, r_minus_1);
  ExpectSameMsm(many, same, {.window_bits = 8, .chunk = 3, .segment_len = 8}, "equal scalars");
  std::vector<ff::Fr> zeros(40, ff::Fr::Zero());
  EXPECT_TRUE(pippenger::EmulatedMsmG1(many, zeros, nullptr, {.window_bits = 8}).IsInfinity());
}

// Long runs of chunks inside one bucket (small scalars, chunk 1): the fixup's
// tree passes over several levels, runs starting at unaligned chunks.
TEST(MsmPipelineEmulationTest, SkewedScalarsSplitBucketsOverManyChunks) {
  auto rng = test::SeededRng();
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, 300);
  for (size_t n : {size_t(37), size_t(300)}) {
    std::vector<ff::Fr> scalars(n);
    for (auto& s : scalars) s = rng() % 10 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(1 + rng() % 2);
    for (size_t chunk : {size_t(1), size_t(2), size_t(5)}) {
      ExpectSameMsm(bases, scalars, {.window_bits = 8, .chunk = chunk, .segment_len = 16}, "skewed");
    }
  }
}

TEST(MsmPipelineEmulationTest, DensityMaskMatchesCpuMsm) {
  auto rng = test::SeededRng();
  const size_t n = 150;
  msm::DensityBitmap density(n);
  for (size_t i = 0; i < n; ++i) density.Set(i, rng() % 3 != 0);
  std::vector<ec::G1Affine> bases = RandomPoints(rng, density.Count());
  std::vector<ff::Fr> scalars(n);
  for (auto& s : scalars) s = ff::Fr::Random(rng);
  const ec::G1Affine want = msm::MsmG1Density(bases, scalars, density).ToAffine();
  EXPECT_EQ(
      pippenger::EmulatedMsmG1(bases, scalars, &density, {.window_bits = 6, .chunk = 5, .segment_len = 8}).ToAffine(),
      want);
  EXPECT_EQ(pippenger::EmulatedMsmG1(bases, scalars, &density, {}).ToAffine(), want);
}

// The bit-witness split (step 1'): mostly 0 and 1 like a Groth16 witness,
// with and without the split, dense and density-masked; only ones (no tail
// at all); ones on repeated, opposite and infinite bases (P + P and P - P
// inside one chunk sum).
TEST(MsmPipelineEmulationTest, BitWitnessSplitMatchesCpuMsm) {
  auto rng = test::SeededRng();
  const size_t n = 200;
  std::vector<ec::G1Affine> bases = RandomPoints(rng, n);
  std::vector<ff::Fr> scalars(n);
  for (auto& s : scalars) {
    const unsigned r = unsigned(rng() % 100);
    s = r < 50 ? ff::Fr::Zero() : r < 95 ? ff::Fr::One() : ff::Fr::Random(rng);
  }
  for (bool split : {true, false}) {
    for (size_t chunk : {size_t(0), size_t(1), size_t(3)}) {
      ExpectSameMsm(bases, scalars, {.window_bits = 6, .chunk = chunk, .segment_len = 8, .split_ones = split},
                    split ? "witness-like, split" : "witness-like, compact digits");
    }
  }
  msm::DensityBitmap density(n);
  for (size_t i = 0; i < n; ++i) density.Set(i, rng() % 4 != 0);
  const std::span<const ec::G1Affine> dense_bases = std::span<const ec::G1Affine>(bases).first(density.Count());
  const ec::G1Affine want = msm::MsmG1Density(dense_bases, scalars, density).ToAffine();
  for (bool split : {true, false}) {
    EXPECT_EQ(pippenger::EmulatedMsmG1(dense_bases, scalars, &density, {.chunk = 2, .split_ones = split}).ToAffine(),
              want)
        << "density, split=" << split;
  }
  std::vector<ff::Fr> all_ones(n, ff::Fr::One());
  ExpectSameMsm(bases, all_ones, {.chunk = 7}, "only ones");
  const ec::G1Affine p = RandomPoint(rng);
  std::vector<ec::G1Affine> odd = {p, p, -p, ec::G1Affine::Infinity(), p, -p, -p};
  ExpectSameMsm(odd, std::vector<ff::Fr>(odd.size(), ff::Fr::One()), {.chunk = 3}, "ones on P, P, -P, O");
  EXPECT_TRUE(pippenger::EmulatedMsmG1(std::span<const ec::G1Affine>(odd).subspan(1, 2),
                                       std::vector<ff::Fr>(2, ff::Fr::One()), nullptr, {})
                  .IsInfinity());
}

// The batched affine accumulation (msm_steps.hpp, AccumulateBatchedStep)
// against the CPU MSM: random, skewed (buckets over many chunks and threads),
// witness-like, density-masked, and the equal-x cases inside one chunk's sum
// (P + P doubles, P + (-P) cancels, infinite bases), G1 and G2, for every
// batch and chunk sizes that put chunk and thread boundaries inside buckets.
TEST(MsmPipelineEmulationTest, BatchedAffineAccumulationMatchesCpuMsm) {
  auto rng = test::SeededRng();
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, 160);
  std::vector<ff::Fr> random(160), skewed(160), witness(160);
  for (auto& s : random) s = ff::Fr::Random(rng);
  for (auto& s : skewed) s = rng() % 10 == 0 ? ff::Fr::Random(rng) : ff::Fr::FromUint64(1 + rng() % 3);
  for (auto& s : witness) {
    const unsigned r = unsigned(rng() % 100);
    s = r < 50 ? ff::Fr::Zero() : r < 95 ? ff::Fr::One() : ff::Fr::Random(rng);
  }
  const ec::G1Affine p = RandomPoint(rng), q = RandomPoint(rng);
  // Equal x inside a bucket: P + P, then P + (-P) (the sum restarts from infinity), infinity bases.
  const std::vector<ec::G1Affine> edge_bases = {p, p, -p, q, ec::G1Affine::Infinity(), q, -q, p, p, q, -p, p};
  const std::vector<ff::Fr> edge_scalars(edge_bases.size(), ff::Fr::FromUint64(3));
  for (uint32_t batch : {2u, 4u, 8u, 16u}) {
    for (size_t chunk : {size_t(0), size_t(1), size_t(3)}) {
      const std::string what = "batch=" + std::to_string(batch);
      ExpectSameMsm(bases, random, {.window_bits = 5, .chunk = chunk, .segment_len = 4, .batch = batch},
                    what + " random");
      ExpectSameMsm(bases, skewed, {.window_bits = 7, .chunk = chunk, .segment_len = 8, .batch = batch},
                    what + " skewed");
      ExpectSameMsm(bases, witness, {.window_bits = 6, .chunk = chunk, .split_ones = false, .batch = batch},
                    what + " witness-like");
      ExpectSameMsm(edge_bases, edge_scalars, {.window_bits = 4, .chunk = chunk, .batch = batch}, what + " edge");
    }
    const std::vector<ec::G1Affine> pair = {p, p};
    EXPECT_TRUE(pippenger::EmulatedMsmG1(pair, std::vector<ff::Fr>{ff::Fr::FromUint64(9), -ff::Fr::FromUint64(9)},
                                         nullptr, {.window_bits = 4, .chunk = 1, .batch = batch})
                    .IsInfinity());
    msm::DensityBitmap density(random.size());
    for (size_t i = 0; i < random.size(); ++i) density.Set(i, rng() % 3 != 0);
    const std::span<const ec::G1Affine> dense = std::span<const ec::G1Affine>(bases).first(density.Count());
    EXPECT_EQ(
        pippenger::EmulatedMsmG1(dense, random, &density, {.window_bits = 6, .chunk = 2, .batch = batch}).ToAffine(),
        msm::MsmG1Density(dense, random, density).ToAffine())
        << "density batch=" << batch;
  }
  EXPECT_THROW(pippenger::EmulatedMsmG1(bases, random, nullptr, {.batch = 3}), std::invalid_argument);
}

// Window-major digit entries (msm_steps.hpp, WindowDigitsStep; each window
// sorted apart) against the CPU MSM and against the compact layout: random
// scalars, small ones (zero digits in most windows: kNoBase slots), witness-
// like with and without the split (every slot of a 0 or 1 skipped), density-
// masked, the edge cases, all zeros; with both accumulations and chunk sizes
// that put chunk boundaries inside buckets and across windows.
TEST(MsmPipelineEmulationTest, WindowMajorDigitsMatchCpuMsm) {
  auto rng = test::SeededRng();
  const size_t n = 140;
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, n);
  const ScalarKinds kinds = MakeScalarKinds(rng, n, n, 95);
  const std::vector<ff::Fr>& random = kinds.random;
  const std::vector<ff::Fr>& small = kinds.small;
  const std::vector<ff::Fr>& witness = kinds.witness;
  for (uint32_t batch : {0u, 4u}) {
    for (size_t chunk : {size_t(1), size_t(3), size_t(0)}) {
      const std::string what = "window-major batch=" + std::to_string(batch) + " chunk=" + std::to_string(chunk);
      for (const auto* scalars : {&random, &small, &witness}) {
        for (bool split : {true, false}) {
          const pippenger::EmulationSizes sizes{.window_bits = 5,
                                                .chunk = chunk,
                                                .segment_len = 4,
                                                .split_ones = split,
                                                .window_major = 1,
                                                .batch = batch};
          ExpectSameMsm(bases, *scalars, sizes, what);
          pippenger::EmulationSizes compact = sizes;
          compact.window_major = 0;
          EXPECT_EQ(pippenger::EmulatedMsmG1(bases, *scalars, nullptr, sizes).ToAffine(),
                    pippenger::EmulatedMsmG1(bases, *scalars, nullptr, compact).ToAffine())
              << what << " against compact";
        }
      }
    }
  }
  msm::DensityBitmap density(n);
  for (size_t i = 0; i < n; ++i) density.Set(i, rng() % 3 != 0);
  const std::span<const ec::G1Affine> dense = std::span<const ec::G1Affine>(bases).first(density.Count());
  EXPECT_EQ(
      pippenger::EmulatedMsmG1(dense, random, &density, {.window_bits = 6, .chunk = 2, .window_major = 1}).ToAffine(),
      msm::MsmG1Density(dense, random, density).ToAffine());
  const ec::G1Affine p = RandomPoint(rng), q = RandomPoint(rng);
  const std::vector<ec::G1Affine> edge_bases = {p, p, -p, q, ec::G1Affine::Infinity(), q, -q, p};
  const std::vector<ff::Fr> edge_scalars = {ff::Fr::FromUint64(3),        -ff::Fr::One(),
                                            ff::Fr::FromUint64(3),        ff::Fr::Random(rng),
                                            ff::Fr::Random(rng),          ff::Fr::FromUint64(1u << 20),
                                            ff::Fr::FromUint64(1u << 20), ff::Fr::Zero()};
  for (uint32_t c : {4u, 7u}) {
    ExpectSameMsm(edge_bases, edge_scalars, {.window_bits = c, .chunk = 2, .window_major = 1}, "window-major edge");
  }
  EXPECT_TRUE(pippenger::EmulatedMsmG1(bases, std::vector<ff::Fr>(n, ff::Fr::Zero()), nullptr,
                                       {.window_bits = 6, .window_major = 1})
                  .IsInfinity());
  EXPECT_THROW(pippenger::EmulatedMsmG1(bases, random, nullptr, {.window_major = 2}), std::invalid_argument);
}

// The shifted table as the device builds it (ShiftStep, ToAffineStep)
// against the engine's own doublings: entry w n + i = 2^(c w) P_i, infinity
// kept, for a width whose windows do not divide 256.
TEST(ShiftedBasesEmulationTest, TableHoldsTheWindowShifts) {
  auto rng = test::SeededRng();
  std::vector<ec::G1Affine> bases = RandomPoints(rng, 19);
  bases[4] = ec::G1Affine::Infinity();
  bases[7] = -bases[3];
  std::vector<G1Affine> device(bases.size());
  for (size_t i = 0; i < bases.size(); ++i) device[i] = G1AffineFromHost(bases[i]);
  for (uint32_t c : {7u, 11u}) {
    const pippenger::Layout layout = pippenger::MakeShiftedLayout(c);
    const std::vector<G1Affine> table = pippenger::EmulatedShiftedTable<Fp>(device, layout, layout.windows);
    ASSERT_EQ(table.size(), bases.size() * layout.windows);
    for (size_t i = 0; i < bases.size(); ++i) {
      ec::G1Jacobian want = ec::G1Jacobian::FromAffine(bases[i]);
      for (uint32_t w = 0; w < layout.windows; ++w) {
        const G1Affine& got = table[w * bases.size() + i];
        const ec::G1Affine host =
            got.IsInfinity() ? ec::G1Affine::Infinity() : ec::G1Affine::FromXY(got.x.ToHost(), got.y.ToHost());
        ASSERT_EQ(host, want.ToAffine()) << "c=" << c << " w=" << w << " i=" << i;
        for (uint32_t k = 0; k < c; ++k) want = want.Double();
      }
    }
  }
}

// MSMs over shifted bases (every window into one set of buckets) against
// msm::MsmG1: random, small (zero digits in most windows) and witness-like
// scalars with and without the split, fewer scalars than bases (the table's
// stride is the bases' count), both accumulations, chunk boundaries inside
// buckets, a density mask, the edge cases and all zeros; and against the
// plain pipeline at the same width.
TEST(ShiftedBasesEmulationTest, MsmMatchesCpuMsm) {
  auto rng = test::SeededRng();
  const size_t n = 64;
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, n);
  const ScalarKinds kinds = MakeScalarKinds(rng, n, n - 5, 90);
  const std::vector<ff::Fr>& random = kinds.random;
  const std::vector<ff::Fr>& small = kinds.small;
  const std::vector<ff::Fr>& witness = kinds.witness;
  for (const auto* scalars : {&random, &small, &witness}) {
    for (size_t chunk : {size_t(1), size_t(0)}) {
      for (bool split : {true, false}) {
        const pippenger::EmulationSizes sizes{
            .window_bits = 8, .chunk = chunk, .segment_len = 16, .split_ones = split, .shifted = true};
        const std::string what = "shifted chunk=" + std::to_string(chunk) + " split=" + std::to_string(split);
        ExpectSameMsm(bases, *scalars, sizes, what);
      }
    }
  }
  ExpectSameMsm(bases, random, {.window_bits = 9, .chunk = 3, .batch = 4, .shifted = true}, "shifted batched");
  ExpectSameMsm(bases, random, {.shifted = true}, "shifted, default width");
  pippenger::EmulationSizes plain{.window_bits = 8, .chunk = 3};
  EXPECT_EQ(pippenger::EmulatedMsmG1(bases, small, nullptr, {.window_bits = 8, .chunk = 3, .shifted = true}).ToAffine(),
            pippenger::EmulatedMsmG1(bases, small, nullptr, plain).ToAffine());
  msm::DensityBitmap density(n);
  for (size_t i = 0; i < n; ++i) density.Set(i, rng() % 3 != 0);
  const std::span<const ec::G1Affine> dense = std::span<const ec::G1Affine>(bases).first(density.Count());
  std::vector<ff::Fr> all(n);
  for (auto& s : all) s = ff::Fr::Random(rng);
  EXPECT_EQ(pippenger::EmulatedMsmG1(dense, all, &density, {.window_bits = 10, .chunk = 2, .shifted = true}).ToAffine(),
            msm::MsmG1Density(dense, all, density).ToAffine());
  const ec::G1Affine p = RandomPoint(rng), q = RandomPoint(rng);
  const std::vector<ec::G1Affine> edge_bases = {p, p, -p, q, ec::G1Affine::Infinity(), q, -q, p};
  const std::vector<ff::Fr> edge_scalars = {ff::Fr::FromUint64(3),        -ff::Fr::One(),
                                            ff::Fr::FromUint64(3),        ff::Fr::Random(rng),
                                            ff::Fr::Random(rng),          ff::Fr::FromUint64(1u << 20),
                                            ff::Fr::FromUint64(1u << 20), ff::Fr::Zero()};
  for (uint32_t c : {4u, 13u}) {
    ExpectSameMsm(edge_bases, edge_scalars, {.window_bits = c, .chunk = 2, .shifted = true}, "shifted edge");
  }
  // The widest table (c = 24, wider than the plain path allows): 11 windows,
  // the top one holding bits 240..254 and the carry of scalars near r.
  const std::vector<ff::Fr> wide = {-ff::Fr::One(), -ff::Fr::FromUint64(1u << 23), ff::Fr::Random(rng),
                                    ff::Fr::FromUint64((1u << 23) + 1), ff::Fr::Random(rng)};
  ExpectSameMsm(bases, wide, {.window_bits = 24, .segment_len = 1u << 12, .shifted = true}, "shifted c = 24");
  EXPECT_TRUE(pippenger::EmulatedMsmG1(bases, std::vector<ff::Fr>(n, ff::Fr::Zero()), nullptr,
                                       {.window_bits = 8, .shifted = true})
                  .IsInfinity());
  EXPECT_THROW(pippenger::EmulatedMsmG1(bases, random, nullptr, {.window_bits = 25, .shifted = true}),
               std::invalid_argument);
}

// Tables of fewer copies than windows (2^(c j) P for j < k: window w adds
// copy w mod k into bucket set w / k, the sets combined c k bits apart):
// k dividing W and not (a shorter last set), k = 1 (the bases alone: the
// plain window-major sums), random, small and witness-like scalars, chunk
// boundaries inside buckets, fewer scalars than bases; against msm::MsmG1.
TEST(ShiftedBasesEmulationTest, FewerCopiesThanWindowsMatchCpuMsm) {
  auto rng = test::SeededRng();
  const size_t n = 48;
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, n);
  const ScalarKinds kinds = MakeScalarKinds(rng, n, n - 3, 90);
  const std::vector<ff::Fr>& random = kinds.random;
  const std::vector<ff::Fr>& small = kinds.small;
  const std::vector<ff::Fr>& witness = kinds.witness;
  const struct { uint32_t c, copies; } cases[] = {{8, 1}, {8, 2}, {8, 3}, {9, 4}, {9, 28}, {13, 5}, {16, 3}};
  for (const auto& k : cases) {
    const std::string what = "c=" + std::to_string(k.c) + " copies=" + std::to_string(k.copies);
    for (const auto* scalars : {&random, &small, &witness}) {
      ExpectSameMsm(bases, *scalars,
                    {.window_bits = k.c,
                     .chunk = 3,
                     .segment_len = std::min(16u, 1u << (k.c - 1)),
                     .shifted = true,
                     .shifted_copies = k.copies},
                    "shifted " + what);
    }
  }
  EXPECT_EQ(
      pippenger::EmulatedMsmG1(bases, small, nullptr,
                               {.window_bits = 8, .chunk = 2, .shifted = true, .shifted_copies = 1})
          .ToAffine(),
      pippenger::EmulatedMsmG1(bases, small, nullptr, {.window_bits = 8, .chunk = 2, .window_major = 1}).ToAffine());
  EXPECT_THROW(
      pippenger::EmulatedMsmG1(bases, random, nullptr, {.window_bits = 8, .shifted = true, .shifted_copies = 33}),
      std::invalid_argument);
}

// The width of a shifted table: the cost model with one reduction, within
// the memory given; widths up to 24; one window's buckets.
TEST(MsmPlanTest, ShiftedWindowBitsFitTheMemoryGiven) {
  using pippenger::ShiftedWindowBits;
  const size_t n24 = size_t(1) << 24, n26 = size_t(1) << 26, unlimited = ~size_t(0);
  EXPECT_EQ(ShiftedWindowBits(n24, 96, unlimited), 22u);  // 12 windows, 19.3 GB (13 windows at c = 20 without)
  EXPECT_EQ(ShiftedWindowBits(n26, 96, unlimited), 24u);  // 11 windows, 70.9 GB
  EXPECT_EQ(ShiftedWindowBits(n24, 96, size_t(12) * n24 * 96), 22u);
  EXPECT_EQ(ShiftedWindowBits(n24, 96, size_t(12) * n24 * 96 - 1), 24u);     // 11 windows still fit
  EXPECT_EQ(ShiftedWindowBits(n24, 96, size_t(11) * n24 * 96 - 1), 0u);      // even 24 bits do not
  EXPECT_EQ(ShiftedWindowBits(size_t(1) << 27, 96, size_t(130) << 30), 0u);  // a 32 GiB H section: >= 141.7 GB
  EXPECT_EQ(ShiftedWindowBits(size_t(1) << 28, 96, unlimited), 0u);          // W n < 2^31 - 1 needs W <= 7: no width
  EXPECT_GE(ShiftedWindowBits(1, 96, unlimited), pippenger::kMinWindowBits);
  EXPECT_EQ(pippenger::MakeShiftedLayout(24).windows, 11u);
  EXPECT_THROW(pippenger::MakeShiftedLayout(25), std::invalid_argument);
  EXPECT_THROW(pippenger::MakeShiftedLayout(3), std::invalid_argument);
  const pippenger::Layout one = pippenger::BucketSets(pippenger::MakeShiftedLayout(22), 12);
  EXPECT_EQ(one.windows, 1u);
  EXPECT_EQ(one.buckets, 1u << 21);
  EXPECT_EQ(one.Sentinel(), 1u << 21);
  EXPECT_EQ(pippenger::BucketSets(pippenger::MakeShiftedLayout(22), 5).windows, 3u);  // 5 + 5 + 2 windows
  EXPECT_EQ(pippenger::BucketSets(pippenger::MakeShiftedLayout(22), 1).windows, 12u);
}

// Window-major digits only where nearly every scalar is >= 2 and there are
// enough scalars for W sorts (the H MSM); the witness MSMs stay compact.
TEST(MsmPlanTest, WindowMajorDigitsForDenseLargeMsmsOnly) {
  const size_t big = size_t(1) << 20;
  EXPECT_TRUE(pippenger::WindowMajorDigits(big, big));
  EXPECT_TRUE(pippenger::WindowMajorDigits(big, big - big / 16));
  EXPECT_FALSE(pippenger::WindowMajorDigits(big, big - big / 16 - 1));
  EXPECT_FALSE(pippenger::WindowMajorDigits(big, big / 100));  // a witness MSM's tail
  EXPECT_FALSE(pippenger::WindowMajorDigits(size_t(1) << 17, size_t(1) << 17));
  EXPECT_TRUE(pippenger::WindowMajorDigits(size_t(1) << 18, size_t(1) << 18));
}

// Scalars uploaded in batches (MsmGpuOptions::upload_batches): each batch's
// digits, sort and sums into their own buckets, added into the first
// batch's, then one reduction. Against msm::MsmG1 for random, small and
// witness-like scalars (with and without the split), full and partial
// tables, 2 to 7 batches (more than the scalars: fewer, none empty), chunk
// boundaries inside buckets; refused for the plain path and densities.
TEST(ShiftedBasesEmulationTest, UploadBatchesMatchCpuMsm) {
  auto rng = test::SeededRng();
  const size_t n = 40;
  const std::vector<ec::G1Affine> bases = RandomPoints(rng, n);
  const ScalarKinds kinds = MakeScalarKinds(rng, n, n - 3, 90);
  for (const auto* scalars : {&kinds.random, &kinds.small, &kinds.witness}) {
    for (uint32_t batches : {2u, 3u, 7u}) {
      for (bool split : {true, false}) {
        const std::string what = "upload batches " + std::to_string(batches) + " split=" + std::to_string(split);
        ExpectSameMsm(bases, *scalars,
                      {.window_bits = 8,
                       .chunk = 2,
                       .segment_len = 16,
                       .split_ones = split,
                       .shifted = true,
                       .upload_batches = batches},
                      what);
      }
    }
    ExpectSameMsm(
        bases, *scalars,
        {.window_bits = 9, .chunk = 3, .segment_len = 16, .shifted = true, .shifted_copies = 4, .upload_batches = 3},
        "upload batches over 4 copies");
  }
  const std::vector<ff::Fr> three = {ff::Fr::Random(rng), ff::Fr::One(), ff::Fr::Random(rng)};
  ExpectSameMsm(bases, three, {.window_bits = 8, .shifted = true, .upload_batches = 5}, "5 batches of 3 scalars");
  EXPECT_THROW(pippenger::EmulatedMsmG1(bases, kinds.random, nullptr, {.window_bits = 8, .upload_batches = 2}),
               std::invalid_argument);
  msm::DensityBitmap density(n);
  for (size_t i = 0; i < n; ++i) density.Set(i, i % 2 == 0);
  std::vector<ff::Fr> all(n, ff::Fr::FromUint64(5));
  EXPECT_THROW(pippenger::EmulatedMsmG1(std::span<const ec::G1Affine>(bases).first(density.Count()), all, &density,
                                        {.window_bits = 8, .shifted = true, .upload_batches = 2}),
               std::invalid_argument);
}

// The batches' ranges: consecutive, covering [0, n), none empty; the first an
// eighth of n (its copy is the one left unhidden), the rest even.
TEST(MsmPlanTest, UploadBatchRangesCoverTheScalars) {
  using pippenger::UploadBatchRanges;
  for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(9), size_t(1000), size_t(1) << 24}) {
    for (uint32_t batches : {0u, 1u, 2u, 3u, 5u, 16u}) {
      const auto r = UploadBatchRanges(n, batches);
      ASSERT_FALSE(r.empty());
      EXPECT_LE(r.size(), std::max<size_t>(batches, 1)) << n;
      size_t at = 0;
      for (const auto& b : r) {
        EXPECT_EQ(b.begin, at) << "n=" << n << " batches=" << batches;
        EXPECT_GT(b.count, 0u) << "n=" << n << " batches=" << batches;
        at += b.count;
      }
      EXPECT_EQ(at, n) << "batches=" << batches;
      if (r.size() > 1) {
        EXPECT_EQ(r[0].count, (n + 7) / 8) << n;
      }
    }
  }
  const auto two = UploadBatchRanges(size_t(1) << 26, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].count, size_t(1) << 23);
  EXPECT_EQ(two[1].count, (size_t(7) << 23));
  EXPECT_EQ(pippenger::DefaultUploadBatches(size_t(1) << 24, true, true), 2u);
  EXPECT_EQ(pippenger::DefaultUploadBatches(size_t(1) << 19, true, true), 1u) << "small: the copy is short";
  EXPECT_EQ(pippenger::DefaultUploadBatches(size_t(1) << 24, false, true), 1u) << "plain bases";
  EXPECT_EQ(pippenger::DefaultUploadBatches(size_t(1) << 24, true, false), 1u) << "device scalars";
}

// Chunks of ~8 buckets' entries where that keeps >= 2^18 threads, never
// less than the rule before (ceil(m / 2^18) in 4..64, the value below 2^24
// entries); segments for ~2^17 G1 threads and
// ~2^14 G2 threads (the values measured fastest, session 13), ~2^15 G1
// threads over one bucket set (session 16).
TEST(MsmPlanTest, DefaultChunkAndSegmentFollowTheMeasuredSizes) {
  using pippenger::DefaultChunk, pippenger::DefaultSegmentLen, pippenger::MakeLayout;
  const size_t n24 = size_t(1) << 24, n26 = size_t(1) << 26, n27 = size_t(1) << 27;
  EXPECT_EQ(DefaultChunk(n24 * 13, MakeLayout(20)), 256u);                // G1 2^24, dense
  EXPECT_EQ(DefaultChunk(n26 * 12, MakeLayout(22)), 256u);                // G1 2^26
  EXPECT_EQ(DefaultChunk(n27 * 12, MakeLayout(22)), 512u);                // G1 2^27: a 32 GiB partition's H MSM
  EXPECT_EQ(DefaultChunk((size_t(1) << 22) * 16, MakeLayout(16)), 256u);  // G2 2^22: the thread cap
  EXPECT_EQ(DefaultChunk(size_t(16) << 20, MakeLayout(16)), 64u);         // a witness tail: 64 as before
  EXPECT_EQ(DefaultChunk(1000, MakeLayout(8)), 4u);
  EXPECT_EQ(DefaultChunk(size_t(20) << 16, MakeLayout(13)), 5u);  // G1 2^16, dense: the old rule, 2^18 threads
  EXPECT_EQ(DefaultChunk(size_t(1) << 23, MakeLayout(16)), 32u);
  EXPECT_EQ(DefaultChunk(1, MakeLayout(4)), 4u);
  EXPECT_EQ(pippenger::OnesChunk(size_t(30) << 20), 64u);
  EXPECT_EQ(DefaultSegmentLen(MakeLayout(22)), 256u);
  EXPECT_EQ(DefaultSegmentLen(MakeLayout(16), /*g2=*/true), 32u);
  EXPECT_EQ(DefaultSegmentLen(MakeLayout(16)), 8u);
  EXPECT_EQ(DefaultSegmentLen(MakeLayout(4), /*g2=*/true), 8u);  // never more than a window's 8 buckets
  // One bucket set (a full table of shifted bases): ~2^15 threads (session 16).
  const auto one_set = [](uint32_t c) {
    const pippenger::Layout l = pippenger::MakeShiftedLayout(c);
    return pippenger::BucketSets(l, l.windows);
  };
  EXPECT_EQ(one_set(22).windows, 1u);
  EXPECT_EQ(DefaultSegmentLen(one_set(22)), 64u);
  EXPECT_EQ(DefaultSegmentLen(one_set(24)), 256u);
  EXPECT_EQ(DefaultSegmentLen(pippenger::BucketSets(MakeLayout(22), 6)), 32u)
      << "2 bucket sets: 2^17 threads, as before";
}

// The default width: the cost model, with 22 bits allowed only from 2^26 - 1
// scalars (measured on the H200: 2^27 at c = 22 920.7 ms, 21 960.1, 20
// 981.5; batched 2^26 at 22 460.1 ms, 20 470.3); below that the widths
// measured fastest before stay.
TEST(MsmPlanTest, DefaultWindowBitsTakes22OnlyForTheLargestMsms) {
  EXPECT_EQ(pippenger::DefaultWindowBits(size_t(1) << 24), 20u);
  EXPECT_EQ(pippenger::DefaultWindowBits((size_t(1) << 26) - 2), 20u);
  EXPECT_EQ(pippenger::DefaultWindowBits((size_t(1) << 26) - 1), 22u);  // a 2^26 domain's H MSM (batched)
  EXPECT_EQ(pippenger::DefaultWindowBits(size_t(1) << 26), 22u);
  EXPECT_EQ(pippenger::DefaultWindowBits((size_t(1) << 27) - 1), 22u);  // a 32 GiB partition's H MSM
  EXPECT_LE(pippenger::DefaultWindowBits(size_t(1) << 30), pippenger::kMaxWindowBits);
}

TEST(MsmPipelineEmulationTest, BadWindowRejected) {
  std::vector<ec::G1Affine> bases = {ec::G1Affine::Generator()};
  std::vector<ff::Fr> scalars = {ff::Fr::One()};
  EXPECT_THROW(pippenger::EmulatedMsmG1(bases, scalars, nullptr, {.window_bits = 3}), std::invalid_argument);
  EXPECT_THROW(pippenger::EmulatedMsmG1(bases, scalars, nullptr, {.window_bits = 23}), std::invalid_argument);
}

// ---- G2: the device Fp2 and the pipeline over it ------------------------------

TEST(Fp2EmulationTest, OperationsMatchHost) {
  auto rng = test::SeededRng();
  std::vector<ff::Fp2> values = {ff::Fp2::Zero(), ff::Fp2::One(), -ff::Fp2::One()};
  for (int i = 0; i < 40; ++i) values.push_back(ff::Fp2::Random(rng));
  for (const ff::Fp2& a : values) {
    for (const ff::Fp2& b : {values[3], values[7], a}) {
      const Fp2 da = Fp2::FromHost(a), db = Fp2::FromHost(b);
      EXPECT_EQ((da * db).ToHost(), a * b);
      EXPECT_EQ((da + db).ToHost(), a + b);
      EXPECT_EQ((da - db).ToHost(), a - b);
    }
    const Fp2 da = Fp2::FromHost(a);
    EXPECT_EQ(da.Square().ToHost(), a.Square());
    EXPECT_EQ(da.Double().ToHost(), a.Double());
    EXPECT_EQ((-da).ToHost(), -a);
    EXPECT_EQ(da.IsZero(), a.IsZero());
  }
}

ec::G2Affine RandomG2(std::mt19937_64& rng) { return (ec::G2Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine(); }

TEST(MsmPipelineEmulationTest, G2RandomSkewedAndDensityMatchCpuMsm) {
  auto rng = test::SeededRng();
  std::vector<ec::G2Affine> bases;
  for (int i = 0; i < 60; ++i) bases.push_back(RandomG2(rng));
  bases[5] = bases[4];                                            // repeated base: a doubling inside a bucket
  bases[6] = (-ec::G2Jacobian::FromAffine(bases[4])).ToAffine();  // and its negation
  std::vector<ff::Fr> scalars(60);
  for (auto& x : scalars) x = rng() % 3 == 0 ? ff::Fr::FromUint64(1 + rng() % 2) : ff::Fr::Random(rng);
  const ec::G2Affine want = msm::MsmG2(bases, scalars).ToAffine();
  for (auto sizes :
       {pippenger::EmulationSizes{.window_bits = 5, .chunk = 1, .segment_len = 4},
        pippenger::EmulationSizes{.window_bits = 9, .chunk = 3, .segment_len = 16}, pippenger::EmulationSizes{},
        pippenger::EmulationSizes{.window_bits = 6, .chunk = 2, .segment_len = 4, .window_major = 1}}) {
    EXPECT_EQ(pippenger::EmulatedMsmG2(bases, scalars, nullptr, sizes).ToAffine(), want)
        << sizes.window_bits << " window-major " << sizes.window_major;
  }
  msm::DensityBitmap density(scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) density.Set(i, rng() % 2 == 0);
  const std::vector<ec::G2Affine> dense_bases(bases.begin(), bases.begin() + density.Count());
  EXPECT_EQ(pippenger::EmulatedMsmG2(dense_bases, scalars, &density, {.window_bits = 6, .chunk = 2}).ToAffine(),
            msm::MsmG2Density(dense_bases, scalars, density).ToAffine());
  // The batched affine accumulation over Fp2 (the repeated base doubles inside a bucket).
  for (uint32_t batch : {2u, 16u}) {
    EXPECT_EQ(
        pippenger::EmulatedMsmG2(bases, scalars, nullptr, {.window_bits = 5, .chunk = 1, .batch = batch}).ToAffine(),
        want)
        << "batch=" << batch;
  }
  // Over shifted G2 bases (the table built by the device's steps over Fp2):
  // a full table, fewer copies, and upload batches; the repeated and opposite
  // bases meet in one bucket set.
  for (auto sizes : {pippenger::EmulationSizes{.window_bits = 8, .chunk = 2, .segment_len = 16, .shifted = true},
                     pippenger::EmulationSizes{
                         .window_bits = 9, .chunk = 3, .segment_len = 16, .shifted = true, .shifted_copies = 5},
                     pippenger::EmulationSizes{
                         .window_bits = 8, .chunk = 2, .segment_len = 16, .shifted = true, .upload_batches = 3}}) {
    EXPECT_EQ(pippenger::EmulatedMsmG2(bases, scalars, nullptr, sizes).ToAffine(), want)
        << "shifted c=" << sizes.window_bits << " copies=" << sizes.shifted_copies
        << " upload batches=" << sizes.upload_batches;
  }
}

}  // namespace
}  // namespace cuzk::cuda
