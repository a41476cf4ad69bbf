// GPU fixed-base multiplication (cuda/msm/fixed_base.hpp) against
// groth16::FixedBaseTable::MulBatch on the CPU: equal affine points for G1
// and G2, random and edge scalars, several window widths. Skipped without a GPU.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/msm/fixed_base.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

template <class Curve>
void ExpectSameAsCpu(unsigned window_bits, size_t n, std::mt19937_64& rng) {
  using C = typename Curve::HostCurve;
  const groth16::FixedBaseTable<C> table(ec::AffinePoint<C>(C::Generator()), window_bits);
  std::vector<ff::Fr> scalars(n);
  for (auto& s : scalars) s = ff::Fr::Random(rng);
  scalars[0] = ff::Fr::Zero(), scalars[1] = ff::Fr::One(), scalars[2] = -ff::Fr::One();
  std::vector<ec::AffinePoint<C>> want(n), got(n);
  table.MulBatch(scalars, want);
  FixedBase<Curve> gpu(table);
  gpu.MulBatch(scalars, got);
  size_t mismatches = 0;
  for (size_t i = 0; i < n; ++i) mismatches += got[i] != want[i];
  EXPECT_EQ(mismatches, 0u) << "n=" << n << " w=" << window_bits;
}

TEST(FixedBaseGpuTest, G1AndG2MatchTheCpuTable) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  ExpectSameAsCpu<G1Gpu>(10, (size_t(1) << 16) + 3, rng);
  ExpectSameAsCpu<G1Gpu>(12, 1000, rng);
  ExpectSameAsCpu<G2Gpu>(8, (size_t(1) << 12) + 5, rng);
}

TEST(FixedBaseGpuTest, SizeMismatchIsRejected) {
  CUZK_REQUIRE_GPU();
  const groth16::FixedBaseTable<ec::G1Curve> table(ec::G1Affine::Generator(), 4);
  G1FixedBase gpu(table);
  std::vector<ff::Fr> scalars(3);
  std::vector<ec::G1Affine> out(2);
  EXPECT_THROW(gpu.MulBatch(scalars, out), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::cuda
