// The building blocks of the GPU MSM run on the host through the emulated
// device fields: XYZZ point formulas against engine/ec (same formulas, so the
// coordinates must match exactly), and the signed-digit recoding against the
// scalar it came from.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/ec/point.hpp"
#include "cuda/msm/signed_digits.hpp"
#include "engine/ec/g1.hpp"
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

}  // namespace
}  // namespace cuzk::cuda
