// Device Fr/Fp arithmetic (PTX carry chains) against the host fields, on
// random values and on values that stress the carries and the reduction.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/ff/field_kernels.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

template <class H>
class FieldGpuTest : public ::testing::Test {};
using HostFields = ::testing::Types<ff::Fr, ff::Fp>;
TYPED_TEST_SUITE(FieldGpuTest, HostFields);

TYPED_TEST(FieldGpuTest, AllOperationsMatchHost) {
  CUZK_REQUIRE_GPU();
  using H = TypeParam;
  auto rng = test::SeededRng();
  std::vector<H> edges = {H::Zero(),
                          H::One(),
                          -H::One(),
                          -H::FromUint64(2),
                          H::FromUint64(0xffffffffu),
                          H::FromMontgomery(typename H::LimbArray{1}),
                          -H::FromMontgomery(typename H::LimbArray{1})};
  std::vector<H> a, b;
  for (const auto& x : edges) {
    for (const auto& y : edges) a.push_back(x), b.push_back(y);
  }
  while (a.size() < (1u << 16)) a.push_back(H::Random(rng)), b.push_back(H::Random(rng));
  std::vector<H> out(a.size());
  for (FieldOp op : {FieldOp::kMul, FieldOp::kAdd, FieldOp::kSub, FieldOp::kNeg, FieldOp::kSquare,
                     FieldOp::kMulSeparateChains, FieldOp::kMulDfma, FieldOp::kMulSub}) {
    std::fill(out.begin(), out.end(), H::FromUint64(12345));  // poison: every element must be written
    ElementwiseOnDevice(op, a, b, out);
    for (size_t i = 0; i < a.size(); ++i) {
      const bool mul = op == FieldOp::kMul || op == FieldOp::kMulSeparateChains || op == FieldOp::kMulDfma;
      const H want = mul                      ? a[i] * b[i]
                     : op == FieldOp::kMulSub ? a[i] * b[i] - (a[i] + b[i]) * b[i]
                     : op == FieldOp::kAdd    ? a[i] + b[i]
                     : op == FieldOp::kSub    ? a[i] - b[i]
                     : op == FieldOp::kNeg    ? -a[i]
                                              : a[i].Square();
      ASSERT_EQ(out[i], want) << "op " << int(op) << " i=" << i << " a=" << a[i].ToHex() << " b=" << b[i].ToHex();
    }
  }
}

TEST(FieldGpuTest, RejectsMismatchedLengths) {
  std::vector<ff::Fr> a(4), b(3), out(4);
  EXPECT_THROW(ElementwiseOnDevice(FieldOp::kMul, std::span<const ff::Fr>(a), b, out), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::cuda
