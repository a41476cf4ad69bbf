// Device G1 XYZZ arithmetic (cuda/ec/point.hpp on the GPU) against engine/ec:
// same formulas, so coordinates must match exactly, including the equal-x
// branches (doubling, P + (-P)) and infinity.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/ec/point_kernels.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

bool SameCoordinates(const ec::G1Xyzz& a, const ec::G1Xyzz& b) {
  return a.x == b.x && a.y == b.y && a.zz == b.zz && a.zzz == b.zzz;
}

TEST(PointGpuTest, XyzzOperationsMatchHost) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  std::vector<ec::G1Xyzz> acc;
  std::vector<ec::G1Affine> points;
  for (int i = 0; i < 64; ++i) {
    const ec::G1Affine a = (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
    const ec::G1Affine b = (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
    const ec::G1Xyzz x = ec::G1Xyzz::FromAffine(a).AddMixed(b);
    acc.push_back(x), points.push_back((ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine());
    acc.push_back(ec::G1Xyzz::FromAffine(a)), points.push_back(a);   // doubling branch
    acc.push_back(ec::G1Xyzz::FromAffine(a)), points.push_back(-a);  // P + (-P)
    acc.push_back(ec::G1Xyzz::Infinity()), points.push_back(b);      // infinity + P
    acc.push_back(x), points.push_back(ec::G1Affine::Infinity());    // P + infinity
  }
  std::vector<ec::G1Xyzz> out(acc.size());
  for (G1Op op : {G1Op::kAddMixed, G1Op::kAdd, G1Op::kDouble}) {
    G1ElementwiseOnDevice(op, acc, points, out);
    for (size_t i = 0; i < acc.size(); ++i) {
      const ec::G1Xyzz want = op == G1Op::kAddMixed ? acc[i].AddMixed(points[i])
                              : op == G1Op::kAdd    ? acc[i] + ec::G1Xyzz::FromAffine(points[i])
                                                    : acc[i].Double();
      if (want.IsInfinity()) {
        ASSERT_TRUE(out[i].IsInfinity()) << "op " << int(op) << " i=" << i;
      } else {
        ASSERT_TRUE(SameCoordinates(out[i], want)) << "op " << int(op) << " i=" << i;
      }
    }
  }
}

}  // namespace
}  // namespace cuzk::cuda
