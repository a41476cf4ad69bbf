// Group-law sanity of G1/G2 in every point form, on random multiples of the
// generators (the independent check is ec_oracle_test against @noble/curves).
#include <gtest/gtest.h>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::ec {
namespace {

using ff::Fr;

template <class Jac>
class GroupLawTest : public ::testing::Test {};
using Groups = ::testing::Types<G1Jacobian, G2Jacobian>;
TYPED_TEST_SUITE(GroupLawTest, Groups);

TYPED_TEST(GroupLawTest, GeneratorOnCurveAndInSubgroup) {
  auto g = TypeParam::Generator();
  EXPECT_TRUE(g.ToAffine().IsOnCurve());
  EXPECT_TRUE(g.IsInSubgroup());
}

TYPED_TEST(GroupLawTest, ScalarMulIsLinear) {
  auto rng = test::SeededRng();
  auto g = TypeParam::Generator();
  for (int i = 0; i < 5; ++i) {
    Fr a = Fr::Random(rng), b = Fr::Random(rng);
    EXPECT_EQ(g * a + g * b, g * (a + b));
    EXPECT_EQ((g * a) * b, g * (a * b));
    EXPECT_EQ(g * a - g * a, TypeParam::Infinity());
  }
}

TYPED_TEST(GroupLawTest, FormsAgree) {
  auto rng = test::SeededRng();
  using Xyzz = XyzzPoint<typename TypeParam::Curve>;
  auto g = TypeParam::Generator();
  for (int i = 0; i < 5; ++i) {
    auto p = (g * Fr::Random(rng)).ToAffine();
    auto q = (g * Fr::Random(rng)).ToAffine();
    auto pj = TypeParam::FromAffine(p), qj = TypeParam::FromAffine(q);
    // mixed add, full add, xyzz mixed add and xyzz full add agree
    EXPECT_EQ(pj.AddMixed(q), pj + qj);
    EXPECT_EQ(Xyzz::FromAffine(p).AddMixed(q).ToJacobian(), pj + qj);
    EXPECT_EQ((Xyzz::FromAffine(p) + Xyzz::FromAffine(q)).ToAffine(), (pj + qj).ToAffine());
    // doubling through every path, including adding a point to itself
    EXPECT_EQ(pj.AddMixed(p), pj.Double());
    EXPECT_EQ(Xyzz::FromAffine(p).AddMixed(p).ToJacobian(), pj.Double());
    EXPECT_EQ(Xyzz::FromAffine(p).Double().ToJacobian(), pj.Double());
    // P + (-P) = O in every form
    EXPECT_TRUE(pj.AddMixed(-p).IsInfinity());
    EXPECT_TRUE(Xyzz::FromAffine(p).AddMixed(-p).IsInfinity());
    EXPECT_TRUE((pj.Double() + pj).IsOnCurve());
  }
}

}  // namespace
}  // namespace cuzk::ec
