// The GPU fixed-base multiplication (cuda/msm/fixed_base_steps.hpp) run on
// the host through the emulated device fields, against
// groth16::FixedBaseTable::MulBatch; and the device field inversions it uses.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/msm/fixed_base_emulation.hpp"
#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

TEST(DeviceInverseEmulationTest, FpAndFp2InversesMatchHost) {
  auto rng = test::SeededRng();
  EXPECT_TRUE(Fp::Zero().Inverse().IsZero());
  EXPECT_TRUE(Fp2::Zero().Inverse().IsZero());
  for (int i = 0; i < 6; ++i) {
    const ff::Fp a = ff::Fp::Random(rng);
    EXPECT_EQ(Fp::FromHost(a).Inverse().ToHost(), a.Inverse());
    const ff::Fp2 b = ff::Fp2::Random(rng);
    EXPECT_EQ(Fp2::FromHost(b).Inverse().ToHost(), b.Inverse());
  }
  EXPECT_EQ(Fp::One().Inverse().ToHost(), ff::Fp::One());
}

std::vector<ff::Fr> EdgeAndRandomScalars(std::mt19937_64& rng, size_t n) {
  std::vector<ff::Fr> s = {ff::Fr::Zero(), ff::Fr::One(), -ff::Fr::One(), ff::Fr::FromUint64(2),
                           ff::Fr::FromUint64(uint64_t(1) << 40)};
  while (s.size() < n) s.push_back(ff::Fr::Random(rng));
  s[20] = s[19];  // equal scalars: equal points, made affine in one group
  return s;
}

template <class Curve>
void ExpectSameAsCpu(unsigned window_bits, size_t n, std::mt19937_64& rng) {
  using C = typename Curve::HostCurve;
  const groth16::FixedBaseTable<C> table(ec::AffinePoint<C>(C::Generator()), window_bits);
  const std::vector<ff::Fr> scalars = EdgeAndRandomScalars(rng, n);
  std::vector<ec::AffinePoint<C>> want(n);
  table.MulBatch(scalars, want);
  const std::vector<ec::AffinePoint<C>> got = fixed_base::EmulatedMulBatch<Curve>(table, scalars);
  ASSERT_EQ(got.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(got[i], want[i]) << "i=" << i << " w=" << window_bits;
  EXPECT_TRUE(got[0].IsInfinity());
}

TEST(FixedBaseEmulationTest, G1MatchesFixedBaseTable) {
  auto rng = test::SeededRng();
  ExpectSameAsCpu<G1Gpu>(4, 37, rng);  // 37: the last affine group is partial
  ExpectSameAsCpu<G1Gpu>(8, 21, rng);
}

TEST(FixedBaseEmulationTest, G2MatchesFixedBaseTable) {
  auto rng = test::SeededRng();
  ExpectSameAsCpu<G2Gpu>(5, 23, rng);
}

}  // namespace
}  // namespace cuzk::cuda
