// Device G1 XYZZ arithmetic (cuda/ec/point.hpp on the GPU) against engine/ec:
// same formulas, so coordinates must match exactly, including the equal-x
// branches (doubling, P + (-P)) and infinity.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/ec/g1_compressed.hpp"
#include "cuda/ec/point_kernels.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
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

// 48-byte G1 records made affine on the device (cuda/ec/g1_compressed.hpp):
// random points, both roots, infinity, equal to the host's conversion; two
// records that are not points' (x = p, and an x whose x^3 + 4 is no square)
// are refused and the lowest such index reported.
TEST(PointGpuTest, CompressedG1RecordsDecompressToTheHostPoints) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  std::vector<ec::G1Affine> points = {ec::G1Affine::Infinity()};
  for (int i = 0; i < 3000; ++i) {
    const ec::G1Affine p = (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
    points.push_back(p), points.push_back(-p);
  }
  std::vector<CompressedG1> records;
  for (const ec::G1Affine& p : points) records.push_back(CompressG1ForDevice(p));
  const size_t n = records.size();
  DeviceBuffer<CompressedG1> in(n);
  DeviceBuffer<AffinePoint<Fp>> out(n);
  DeviceBuffer<unsigned long long> first_bad(1);
  Stream stream;
  auto run = [&] {
    const unsigned long long none = n;
    in.CopyFromHost(records, stream);
    CUZK_CUDA_CHECK(cudaMemcpyAsync(first_bad.data(), &none, sizeof(none), cudaMemcpyHostToDevice, stream));
    LaunchDecompressG1(n, in.data(), out.data(), first_bad.data(), stream);
    unsigned long long bad = 0;
    CUZK_CUDA_CHECK(cudaMemcpyAsync(&bad, first_bad.data(), sizeof(bad), cudaMemcpyDeviceToHost, stream));
    stream.Synchronize();
    return bad;
  };
  ASSERT_EQ(run(), n);
  std::vector<AffinePoint<Fp>> got(n);
  out.CopyToHost(std::span(got), stream);
  stream.Synchronize();
  for (size_t i = 0; i < n; ++i) {
    const AffinePoint<Fp> want = AffineFromHost<Fp>(points[i]);
    for (int j = 0; j < 12; ++j) {
      ASSERT_EQ(got[i].x.limb(j), want.x.limb(j)) << "i=" << i;
      ASSERT_EQ(got[i].y.limb(j), want.y.limb(j)) << "i=" << i;
    }
  }
  for (int j = 0; j < 12; ++j) records[4000].limbs[j] = Fp::Mod(j);  // x = p
  ff::Fp x = ff::Fp::Random(rng);
  while ((x.Square() * x + ff::Fp::FromUint64(4)).Sqrt()) x = ff::Fp::Random(rng);
  const Fp dx = Fp::FromHost(x);
  for (int j = 0; j < 12; ++j) records[5000].limbs[j] = dx.limb(j);
  EXPECT_EQ(run(), 4000u);
}

}  // namespace
}  // namespace cuzk::cuda
