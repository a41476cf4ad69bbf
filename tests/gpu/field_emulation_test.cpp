// The device field code (cuda::Fr, cuda::Fp) run on the host through the
// emulated carry chains, against the host fields ff::Fr / ff::Fp. This checks
// the algorithm (carry chains, bounds, reduction) on any machine; the GPU test
// (field_gpu_test) then checks that the PTX instructions behave the same.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda/ff/fp.hpp"
#include "cuda/ff/fp2.hpp"
#include "cuda/ff/fr.hpp"
#include "cuda/ff/inverse_by.hpp"
#include "cuda/ff/mul_dfma.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

template <class F>
class FieldEmulationTest : public ::testing::Test {};
using Fields = ::testing::Types<Fr, Fp, FpDfma, FpBoth>;
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
      EXPECT_EQ(MulDfma(da, db).ToHost(), a * b) << a.ToHex() << " * " << b.ToHex();
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
    ASSERT_EQ(MulDfma(da, db), F::Mul(da, db)) << a.ToHex() << " * " << b.ToHex();
    ASSERT_EQ((da + db).ToHost(), a + b) << a.ToHex() << " + " << b.ToHex();
    ASSERT_EQ((da - db).ToHost(), a - b) << a.ToHex() << " - " << b.ToHex();
    ASSERT_EQ((-da).ToHost(), -a) << a.ToHex();
    ASSERT_EQ(da.Square().ToHost(), a.Square()) << a.ToHex();
  }
}

// MulDfma's bounds are tightest for the largest limbs: every 48-bit limb of
// both operands at its maximum that stays below p (p - 1 and values just under
// it), and operands whose 48-bit limbs are all ones or all zeros in turn.
TYPED_TEST(FieldEmulationTest, MulDfmaMatchesMulOnLargeLimbs) {
  using F = TypeParam;
  using H = typename F::Host;
  auto rng = test::SeededRng();
  std::vector<F> values;
  for (uint64_t k = 1; k <= 64; ++k) values.push_back(F::FromHost(-H::FromUint64(k)));
  for (int pattern = 0; pattern < 64; ++pattern) {
    // 48-bit limbs set to all ones where `pattern` has a bit, zero elsewhere,
    // taken as Montgomery limbs as they are.
    typename H::LimbArray limbs{};
    for (int bit = 0; bit < 64 * int(limbs.size()); ++bit) {
      if ((pattern >> ((bit / 48) % 6)) & 1) limbs[bit / 64] |= uint64_t(1) << (bit % 64);
    }
    limbs.back() &= (uint64_t(1) << 60) - 1;  // below 2^(64 L - 4), which is below p for both fields
    values.push_back(F::FromHost(H::FromMontgomery(limbs)));
  }
  for (int i = 0; i < 64; ++i) values.push_back(F::FromHost(H::Random(rng)));
  for (const F& a : values) {
    for (const F& b : values) {
      ASSERT_EQ(MulDfma(a, b), F::Mul(a, b)) << a.ToHost().ToHex() << " * " << b.ToHost().ToHex();
    }
  }
}

// Values whose limbs are near their maxima (p - k), whose 32-bit limbs are
// all ones or all zeros in turn (below p), and random ones: the carry chains
// of MulSub's fused rows.
template <class F>
std::vector<F> CarryStressValues(std::mt19937_64& rng, int random_count) {
  using H = typename F::Host;
  std::vector<F> values;
  for (const auto& e : EdgeValues<F>()) values.push_back(F::FromHost(e));
  for (uint64_t k = 3; k <= 10; ++k) values.push_back(F::FromHost(-H::FromUint64(k)));
  for (int pattern = 1; pattern < 64; pattern += 5) {
    typename H::LimbArray limbs{};
    for (int w = 0; w < 2 * int(limbs.size()); ++w) {
      if ((pattern >> (w % 6)) & 1) limbs[w / 2] |= uint64_t(0xffffffffu) << (32 * (w % 2));
    }
    limbs.back() &= (uint64_t(1) << 60) - 1;  // below p for both fields
    values.push_back(F::FromHost(H::FromMontgomery(limbs)));
  }
  if constexpr (F::kLimbs == 12) {
    // Found by search (session 12 review, ~1.5e8 random squares): its
    // SquareFused rows carry through a pure-shift limb of all ones (k < i in
    // the odd chain), which random values do about once in 2^27 squares.
    values.push_back(F::FromHost(
        H::FromMontgomery(typename H::LimbArray{0x8b59296ac2165e83ull, 0x9cbc2a613c29b2feull, 0xc23c693afe549e1bull,
                                                0x4ebe1a042e82d1e7ull, 0x4932da45475f4d84ull, 0x1a010129d78c121full})));
  }
  for (int i = 0; i < random_count; ++i) values.push_back(F::FromHost(H::Random(rng)));
  return values;
}

// MulSub (Fp: both products in Mul's rows, one reduction) against the host
// field.
TYPED_TEST(FieldEmulationTest, MulSubMatchesHost) {
  using F = TypeParam;
  using H = typename F::Host;
  auto rng = test::SeededRng();
  const std::vector<F> values = CarryStressValues<F>(rng, 16);
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      for (size_t k : {i, j, (i * 7 + j * 3) % values.size(), (i + j + 1) % values.size()}) {
        const F &a = values[i], &b = values[j], &c = values[k], &d = values[(k * 5 + 1) % values.size()];
        ASSERT_EQ(F::MulSub(a, b, c, d).ToHost(), a.ToHost() * b.ToHost() - c.ToHost() * d.ToHost())
            << a.ToHost().ToHex() << " " << b.ToHost().ToHex() << " " << c.ToHost().ToHex() << " "
            << d.ToHost().ToHex();
      }
    }
  }
  for (int i = 0; i < 20000; ++i) {
    const H a = H::Random(rng), b = H::Random(rng), c = H::Random(rng), d = H::Random(rng);
    ASSERT_EQ(F::MulSub(F::FromHost(a), F::FromHost(b), F::FromHost(c), F::FromHost(d)).ToHost(), a * b - c * d)
        << a.ToHex() << " " << b.ToHex() << " " << c.ToHex() << " " << d.ToHex();
  }
}

// Square (Fp: SquareFused, each cross product once in Mul's rows) against
// the host field and against Mul.
TYPED_TEST(FieldEmulationTest, SquareMatchesHost) {
  using F = TypeParam;
  using H = typename F::Host;
  auto rng = test::SeededRng();
  for (const F& a : CarryStressValues<F>(rng, 64)) {
    ASSERT_EQ(a.Square().ToHost(), a.ToHost().Square()) << a.ToHost().ToHex();
    ASSERT_EQ(a.Square(), F::Mul(a, a)) << a.ToHost().ToHex();
  }
  for (int i = 0; i < 50000; ++i) {
    const H a = H::Random(rng);
    ASSERT_EQ(F::FromHost(a).Square().ToHost(), a.Square()) << a.ToHex();
  }
}

// Fermat's inversion (MontField32::Inverse) against the host's: Fr's p - 2
// borrows from its second limb.
TYPED_TEST(FieldEmulationTest, FermatInverseMatchesHost) {
  using F = TypeParam;
  using H = typename F::Host;
  auto rng = test::SeededRng();
  for (int i = 0; i < 20; ++i) {
    const H a = H::Random(rng);
    ASSERT_EQ(F::FromHost(a).Inverse().ToHost(), a.Inverse()) << a.ToHex();
  }
  EXPECT_EQ(F::Zero().Inverse(), F::Zero());
}

// The safegcd inversion (inverse_by.hpp) against the host's Fermat inversion:
// edge values, random values, and values with long runs of zero or one bits
// (many divsteps that only halve g, and the shortest and longest runs).
TYPED_TEST(FieldEmulationTest, SafegcdInverseMatchesHost) {
  using F = TypeParam;
  using H = typename F::Host;
  auto rng = test::SeededRng();
  std::vector<H> values = EdgeValues<F>();
  for (int k = 0; k < 64; ++k) values.push_back(H::FromUint64(uint64_t(1) << k));
  for (int k = 0; k < 64; ++k) values.push_back(-H::FromUint64(uint64_t(1) << k));
  for (int i = 0; i < 4000; ++i) values.push_back(H::Random(rng));
  for (const H& a : values) {
    const H want = a.IsZero() ? H::Zero() : a.Inverse();
    ASSERT_EQ(InverseVar(F::FromHost(a)).ToHost(), want) << a.ToHex();
  }
}

TEST(Fp2EmulationTest, SafegcdInverseMatchesFermat) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 500; ++i) {
    const Fp2 a{Fp::FromHost(ff::Fp::Random(rng)), Fp::FromHost(i % 7 == 0 ? ff::Fp::Zero() : ff::Fp::Random(rng))};
    ASSERT_EQ(a.InverseVar(), a.Inverse());
    ASSERT_EQ(a * a.InverseVar(), Fp2::One());
  }
  EXPECT_EQ(Fp2::Zero().InverseVar(), Fp2::Zero());
}

}  // namespace
}  // namespace cuzk::cuda
