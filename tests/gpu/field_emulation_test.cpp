// The device field code (cuda::Fr, cuda::Fp) run on the host through the
// emulated carry chains, against the host fields ff::Fr / ff::Fp. This checks
// the algorithm (carry chains, bounds, reduction) on any machine; the GPU test
// (field_gpu_test) then checks that the PTX instructions behave the same.
#include <gtest/gtest.h>

#include "cuda/ff/fp.hpp"
#include "cuda/ff/fr.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

template <class F>
class FieldEmulationTest : public ::testing::Test {};
using Fields = ::testing::Types<Fr, Fp>;
TYPED_TEST_SUITE(FieldEmulationTest, Fields);

// Values that stress carries and the final subtraction: 0, 1, p - 1, p - 2,
// small and R-related values.
template <class F>
std::vector<typename F::Host> EdgeValues() {
  using H = typename F::Host;
  return {H::Zero(),
          H::One(),
          -H::One(),
          -H::FromUint64(2),
          H::FromUint64(2),
          H::FromUint64(0xffffffffu),
          H::FromMontgomery(typename H::LimbArray{1}),
          -H::FromMontgomery(typename H::LimbArray{1})};
}

TYPED_TEST(FieldEmulationTest, ConstantsMatchHost) {
  using F = TypeParam;
  using H = typename F::Host;
  EXPECT_EQ(F::One().ToHost(), H::One());
  EXPECT_EQ(F::Zero().ToHost(), H::Zero());
  // -p^-1 * p = -1 mod 2^32
  EXPECT_EQ(uint32_t(F::kInv * F::Mod(0)), 0xffffffffu);
}

TYPED_TEST(FieldEmulationTest, OperationsMatchHostOnEdgeValues) {
  using F = TypeParam;
  auto edges = EdgeValues<F>();
  for (const auto& a : edges) {
    for (const auto& b : edges) {
      F da = F::FromHost(a), db = F::FromHost(b);
      EXPECT_EQ((da * db).ToHost(), a * b) << a.ToHex() << " * " << b.ToHex();
      EXPECT_EQ(F::MulSeparateChains(da, db).ToHost(), a * b) << a.ToHex() << " * " << b.ToHex();
      EXPECT_EQ((da + db).ToHost(), a + b) << a.ToHex() << " + " << b.ToHex();
      EXPECT_EQ((da - db).ToHost(), a - b) << a.ToHex() << " - " << b.ToHex();
    }
    EXPECT_EQ((-F::FromHost(a)).ToHost(), -a) << a.ToHex();
  }
}

TYPED_TEST(FieldEmulationTest, OperationsMatchHostOnRandomValues) {
  using F = TypeParam;
  using H = typename F::Host;
  auto rng = test::SeededRng();
  for (int i = 0; i < 20000; ++i) {
    H a = H::Random(rng), b = H::Random(rng);
    F da = F::FromHost(a), db = F::FromHost(b);
    ASSERT_EQ((da * db).ToHost(), a * b) << a.ToHex() << " * " << b.ToHex();
    ASSERT_EQ(F::MulSeparateChains(da, db).ToHost(), a * b) << a.ToHex() << " * " << b.ToHex();
    ASSERT_EQ((da + db).ToHost(), a + b) << a.ToHex() << " + " << b.ToHex();
    ASSERT_EQ((da - db).ToHost(), a - b) << a.ToHex() << " - " << b.ToHex();
    ASSERT_EQ((-da).ToHost(), -a) << a.ToHex();
    ASSERT_EQ(da.Square().ToHost(), a.Square()) << a.ToHex();
  }
}

}  // namespace
}  // namespace cuzk::cuda
