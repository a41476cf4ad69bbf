// The BLS12-381 pairing and its field tower:
//  - values equal @noble/curves' (tests/oracle/pairing_vectors.mjs) byte for
//    byte, and FinalExponentiation equals the definition f^((p^12 - 1)/r);
//  - bilinearity, order r, non-degeneracy, multi-pairing, infinity handling;
//  - Fp6/Fp12 field axioms, Frobenius against x^p by square-and-multiply,
//    sparse and cyclotomic products against the general ones, serialization.
#include "engine/ec/pairing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/ff/fp12.hpp"
#include "engine/ff/fp6.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::ec {
namespace {

using ff::Fp;
using ff::Fp12;
using ff::Fp2;
using ff::Fp6;
using ff::Fr;
using nlohmann::json;

// ---- helpers ---------------------------------------------------------------

// A big-endian hex integer (0x prefix) as little-endian 64-bit limbs.
std::vector<uint64_t> HexToLimbs(const std::string& hex) {
  std::string digits = hex.substr(hex.rfind('x') == std::string::npos ? 0 : hex.rfind('x') + 1);
  std::vector<uint64_t> limbs((digits.size() + 15) / 16, 0);
  for (size_t i = 0; i < digits.size(); ++i) {
    char ch = digits[digits.size() - 1 - i];
    uint64_t v = (ch >= '0' && ch <= '9') ? ch - '0' : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : ch - 'A' + 10;
    limbs[i / 16] |= v << (4 * (i % 16));
  }
  return limbs;
}

Fp ParseFp(const json& j) {
  auto v = Fp::FromCanonicalChecked(ff::LimbsFromHex<6>(j.get<std::string>()));
  if (!v) throw std::runtime_error("oracle Fp value >= p");
  return *v;
}

G1Affine ParseG1(const json& j) { return G1Affine::FromXY(ParseFp(j["x"]), ParseFp(j["y"])); }

G2Affine ParseG2(const json& j) {
  return G2Affine::FromXY({ParseFp(j["x"][0]), ParseFp(j["x"][1])}, {ParseFp(j["y"][0]), ParseFp(j["y"][1])});
}

G1Affine RandomG1(std::mt19937_64& rng) { return (G1Jacobian::Generator() * Fr::Random(rng)).ToAffine(); }
G2Affine RandomG2(std::mt19937_64& rng) { return (G2Jacobian::Generator() * Fr::Random(rng)).ToAffine(); }

template <size_t N>
std::span<const uint64_t> AsSpan(const ff::Limbs<N>& l) {
  return {l.data(), l.size()};
}

Fp12 PowFr(const Fp12& f, const Fr& e) {
  auto limbs = e.ToCanonical();
  return f.Pow(AsSpan(limbs));
}

// An element of the cyclotomic subgroup: the easy part of the final
// exponentiation applied to a random element.
Fp12 RandomCyclotomic(std::mt19937_64& rng) {
  Fp12 f = Fp12::Random(rng);
  Fp12 t = f.Conjugate() * f.Inverse();
  return t.Frobenius(2) * t;
}

// ---- against @noble/curves ----------------------------------------------------

class PairingOracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    seed_ = test::TestSeed();
    vectors_ = new json(test::RunOracle("pairing_vectors.mjs", {std::to_string(seed_), "4"}));
  }
  static void TearDownTestSuite() {
    delete vectors_;
    vectors_ = nullptr;
  }
  static const json& Vectors() { return *vectors_; }

  static inline uint64_t seed_ = 0;
  static inline json* vectors_ = nullptr;
};

TEST_F(PairingOracleTest, GeneratorPairingMatchesNoble) {
  Fp12 e = Pairing(G1Affine::Generator(), G2Affine::Generator());
  EXPECT_EQ(e.ToHex(), Vectors()["generator"]["e"].get<std::string>());
}

TEST_F(PairingOracleTest, RandomPairingsMatchNoble) {
  ASSERT_EQ(Vectors()["pairs"].size(), 4u);
  for (const auto& v : Vectors()["pairs"]) {
    Fr a = Fr::FromHex(v["a"].get<std::string>());
    Fr b = Fr::FromHex(v["b"].get<std::string>());
    G1Affine p = (G1Jacobian::Generator() * a).ToAffine();
    G2Affine q = (G2Jacobian::Generator() * b).ToAffine();
    // The inputs agree (so a mismatch below is the pairing's) ...
    ASSERT_EQ(p, ParseG1(v["p"]));
    ASSERT_EQ(q, ParseG2(v["q"]));
    // ... and so do the values.
    EXPECT_EQ(Pairing(p, q).ToHex(), v["e"].get<std::string>()) << "a=" << v["a"] << " b=" << v["b"];
  }
}

TEST_F(PairingOracleTest, PairingProductMatchesNoble) {
  const json& v = Vectors()["product"];
  G1Affine p1 = ParseG1(v["p1"]), p2 = ParseG1(v["p2"]);
  G2Affine q1 = ParseG2(v["q1"]), q2 = ParseG2(v["q2"]);
  ASSERT_TRUE(p1.IsOnCurve() && p2.IsOnCurve() && q1.IsOnCurve() && q2.IsOnCurve());
  PairingInput pairs[] = {{p1, q1}, {p2, q2}};
  EXPECT_EQ(MultiPairing(pairs).ToHex(), v["e"].get<std::string>());
  EXPECT_EQ((Pairing(p1, q1) * Pairing(p2, q2)).ToHex(), v["e"].get<std::string>());
}

// The final exponentiation is exactly f -> f^(3 (p^12 - 1)/r) (the exponent
// (p^12 - 1)/r computed by the oracle with BigInt): the cube of the textbook
// reduced pairing, which is the value noble and zkcrypto return (see pairing.hpp).
TEST_F(PairingOracleTest, FinalExponentiationIsTheDefinition) {
  std::vector<uint64_t> exponent = HexToLimbs(Vectors()["final_exponent"].get<std::string>());
  ASSERT_GT(exponent.size(), 60u);
  auto rng = std::mt19937_64(seed_);
  auto definition = [&](const Fp12& f) {
    Fp12 textbook = f.Pow(exponent);
    return textbook.Square() * textbook;
  };
  for (int i = 0; i < 2; ++i) {
    Fp12 f = Fp12::Random(rng);
    EXPECT_EQ(FinalExponentiation(f), definition(f));
    EXPECT_NE(FinalExponentiation(f), f.Pow(exponent));  // not the uncubed one
  }
  PairingInput pair{RandomG1(rng), RandomG2(rng)};
  Fp12 m = MillerLoop({&pair, 1});
  EXPECT_EQ(FinalExponentiation(m), definition(m));
}

TEST_F(PairingOracleTest, SerializationRoundTripsNobleBytes) {
  std::vector<uint8_t> bytes = test::FromHex(Vectors()["generator"]["e"].get<std::string>());
  ASSERT_EQ(bytes.size(), Fp12::kBytes);
  auto f = Fp12::FromBytes(bytes);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, Pairing(G1Affine::Generator(), G2Affine::Generator()));
  std::array<uint8_t, Fp12::kBytes> out;
  f->ToBytes(out);
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()), bytes);
}

// ---- algebraic properties ------------------------------------------------------

TEST(PairingTest, Bilinear) {
  auto rng = test::SeededRng();
  G1Jacobian g1 = G1Jacobian::Generator();
  G2Jacobian g2 = G2Jacobian::Generator();
  Fr a = Fr::Random(rng), b = Fr::Random(rng);
  G1Affine p = (g1 * Fr::Random(rng)).ToAffine();
  G2Affine q = (g2 * Fr::Random(rng)).ToAffine();
  Fp12 e = Pairing(p, q);
  G1Affine ap = (G1Jacobian::FromAffine(p) * a).ToAffine();
  G2Affine bq = (G2Jacobian::FromAffine(q) * b).ToAffine();
  G2Affine aq = (G2Jacobian::FromAffine(q) * a).ToAffine();
  EXPECT_EQ(Pairing(ap, bq), PowFr(e, a * b));
  EXPECT_EQ(Pairing(ap, q), Pairing(p, aq));
  // Linear in each argument: e(P1 + P2, Q) = e(P1, Q) e(P2, Q).
  G1Affine p2 = (g1 * Fr::Random(rng)).ToAffine();
  G1Affine sum = (G1Jacobian::FromAffine(p) + G1Jacobian::FromAffine(p2)).ToAffine();
  EXPECT_EQ(Pairing(sum, q), e * Pairing(p2, q));
}

TEST(PairingTest, ValuesHaveOrderR) {
  auto rng = test::SeededRng();
  Fp12 e = Pairing(RandomG1(rng), RandomG2(rng));
  EXPECT_FALSE(e.IsOne());
  EXPECT_TRUE(e.Pow(AsSpan(Fr::kModulus)).IsOne());
  // GT is cyclotomic: the inverse is the conjugate.
  EXPECT_EQ(e * e.Conjugate(), Fp12::One());
}

TEST(PairingTest, NonDegenerate) {
  Fp12 e = Pairing(G1Affine::Generator(), G2Affine::Generator());
  EXPECT_FALSE(e.IsOne());
  EXPECT_FALSE(e.IsZero());
  // r is prime, so e != 1 already means order r; check it is not of order 2 or 3 by accident either.
  EXPECT_FALSE(e.Square().IsOne());
  EXPECT_FALSE((e.Square() * e).IsOne());
}

TEST(PairingTest, MultiPairingIsProductOfPairings) {
  auto rng = test::SeededRng();
  std::vector<PairingInput> pairs;
  Fp12 product = Fp12::One();
  Fp12 miller_product = Fp12::One();
  for (int i = 0; i < 4; ++i) {
    pairs.push_back({RandomG1(rng), RandomG2(rng)});
    product *= Pairing(pairs.back().first, pairs.back().second);
    miller_product *= MillerLoop({&pairs.back(), 1});
  }
  EXPECT_EQ(MultiPairing(pairs), product);
  // Sharing the squarings of f changes nothing before the final exponentiation either.
  EXPECT_EQ(MillerLoop(pairs), miller_product);
}

TEST(PairingTest, NegatedPointCancels) {
  auto rng = test::SeededRng();
  G1Affine p = RandomG1(rng);
  G2Affine q = RandomG2(rng);
  PairingInput cancel[] = {{p, q}, {-p, q}};
  EXPECT_TRUE(PairingProductIsOne(cancel));
  EXPECT_EQ(Pairing(p, q) * Pairing(-p, q), Fp12::One());
  PairingInput cancel_g2[] = {{p, q}, {p, -q}};
  EXPECT_TRUE(PairingProductIsOne(cancel_g2));
  // e(aP, Q) e(-P, aQ) = 1: the shape of a verifier's equation.
  Fr a = Fr::Random(rng);
  PairingInput moved[] = {{(G1Jacobian::FromAffine(p) * a).ToAffine(), q},
                          {-p, (G2Jacobian::FromAffine(q) * a).ToAffine()}};
  EXPECT_TRUE(PairingProductIsOne(moved));
  // and a product that is not 1 is reported as such.
  PairingInput twice[] = {{p, q}, {p, q}};
  EXPECT_FALSE(PairingProductIsOne(twice));
}

TEST(PairingTest, InfinityContributesOne) {
  auto rng = test::SeededRng();
  G1Affine p = RandomG1(rng);
  G2Affine q = RandomG2(rng);
  EXPECT_TRUE(Pairing(G1Affine::Infinity(), q).IsOne());
  EXPECT_TRUE(Pairing(p, G2Affine::Infinity()).IsOne());
  EXPECT_TRUE(Pairing(G1Affine::Infinity(), G2Affine::Infinity()).IsOne());
  EXPECT_TRUE(MultiPairing({}).IsOne());
  EXPECT_TRUE(MillerLoop({}).IsOne());
  PairingInput with_infinity[] = {{G1Affine::Infinity(), q}, {p, q}, {p, G2Affine::Infinity()}};
  EXPECT_EQ(MultiPairing(with_infinity), Pairing(p, q));
  EXPECT_TRUE(PairingProductIsOne(std::span<const PairingInput>(with_infinity, 1)));
}

// ---- the field tower ------------------------------------------------------------

template <class F>
class ExtensionFieldTest : public ::testing::Test {};
using ExtensionFields = ::testing::Types<Fp6, Fp12>;
TYPED_TEST_SUITE(ExtensionFieldTest, ExtensionFields);

TYPED_TEST(ExtensionFieldTest, RingAxioms) {
  using F = TypeParam;
  auto rng = test::SeededRng();
  for (int i = 0; i < 5; ++i) {
    F a = F::Random(rng), b = F::Random(rng), c = F::Random(rng);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a + b) - b, a);
    EXPECT_EQ(a + (-a), F::Zero());
    EXPECT_EQ(a * F::One(), a);
    EXPECT_EQ(a * F::Zero(), F::Zero());
    EXPECT_EQ(a.Square(), a * a);
  }
}

TYPED_TEST(ExtensionFieldTest, Inverse) {
  using F = TypeParam;
  auto rng = test::SeededRng();
  for (int i = 0; i < 5; ++i) {
    F a = F::Random(rng);
    ASSERT_FALSE(a.IsZero());
    EXPECT_EQ(a * a.Inverse(), F::One());
    EXPECT_EQ(a.Inverse().Inverse(), a);
  }
  EXPECT_EQ(F::One().Inverse(), F::One());
  EXPECT_TRUE(F::Zero().Inverse().IsZero());
}

// Frobenius(1) is x -> x^p computed by square-and-multiply; Frobenius(k) is
// its k-th iterate and Frobenius(12) (Fp12) or Frobenius(6) (Fp6) the
// identity. Together these pin down every constant of kFrobeniusGamma.
TYPED_TEST(ExtensionFieldTest, FrobeniusIsPowerOfP) {
  using F = TypeParam;
  constexpr unsigned kDegree = std::is_same_v<F, Fp12> ? 12 : 6;
  auto rng = test::SeededRng();
  F a = F::Random(rng), b = F::Random(rng);
  F x = a;
  for (unsigned k = 1; k <= kDegree; ++k) {
    x = x.Pow(AsSpan(Fp::kModulus));
    EXPECT_EQ(a.Frobenius(k), x) << "k=" << k;
  }
  EXPECT_EQ(x, a);  // x^(p^degree) = x
  EXPECT_EQ(a.Frobenius(kDegree), a);
  EXPECT_EQ(a.Frobenius(0), a);
  // A ring homomorphism.
  EXPECT_EQ((a * b).Frobenius(1), a.Frobenius(1) * b.Frobenius(1));
  EXPECT_EQ((a + b).Frobenius(5), a.Frobenius(5) + b.Frobenius(5));
}

TEST(Fp6Test, FrobeniusConstantsAreXiPowers) {
  // kFrobeniusGamma[k][e] = xi^(e (p^k - 1)/6), checked directly for k = 1
  // (an Fp2 exponent of (p - 1)/6 from p, by long division here) and through
  // the sixth-power relation gamma^6 = xi^(p^k - 1) = conj^k(xi) / xi.
  const Fp2 xi = Fp2::One().MulByNonResidue();
  std::array<uint64_t, 6> e{};
  unsigned __int128 rem = 0;
  for (size_t i = 6; i-- > 0;) {
    unsigned __int128 cur = (rem << 64) | (Fp::kModulus[i] - (i == 0 ? 1 : 0));
    e[i] = uint64_t(cur / 6);
    rem = cur % 6;
  }
  ASSERT_EQ(rem, 0u);
  EXPECT_EQ(ff::kFrobeniusGamma[1][1], xi.Pow(ff::Limbs<6>(e)));
  for (unsigned k = 0; k < 12; ++k) {
    const auto& g = ff::kFrobeniusGamma[k];
    EXPECT_EQ(g[0], Fp2::One());
    for (unsigned j = 1; j < 6; ++j) EXPECT_EQ(g[j], g[j - 1] * g[1]) << k << "," << j;
    Fp2 sixth = g[5] * g[1];
    EXPECT_EQ(sixth * xi, xi.Frobenius(k)) << "k=" << k;
  }
}

TEST(Fp6Test, SparseProductsMatchFullProducts) {
  auto rng = test::SeededRng();
  Fp6 a = Fp6::Random(rng);
  Fp2 b0 = Fp2::Random(rng), b1 = Fp2::Random(rng);
  const Fp2 zero = Fp2::Zero();
  EXPECT_EQ(a.MulBy01(b0, b1), (a * Fp6{b0, b1, zero}));
  EXPECT_EQ(a.MulBy1(b1), (a * Fp6{zero, b1, zero}));
  EXPECT_EQ(a.MulByNonResidue(), (a * Fp6{zero, Fp2::One(), zero}));
  EXPECT_EQ(a * b0, (a * Fp6{b0, zero, zero}));
}

TEST(Fp12Test, SparseLineProductMatchesFullProduct) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 3; ++i) {
    Fp12 f = Fp12::Random(rng);
    Fp2 d0 = Fp2::Random(rng), d1 = Fp2::Random(rng), d4 = Fp2::Random(rng);
    Fp12 line{{d0, d1, Fp2::Zero()}, {Fp2::Zero(), d4, Fp2::Zero()}};
    EXPECT_EQ(f.MulBy014(d0, d1, d4), f * line);
  }
}

TEST(Fp12Test, TowerRelations) {
  // w^2 = v and v^3 = xi: w^6 = xi.
  Fp12 w{Fp6::Zero(), Fp6::One()};
  Fp12 v{{Fp2::Zero(), Fp2::One(), Fp2::Zero()}, Fp6::Zero()};
  Fp12 xi{{Fp2::One().MulByNonResidue(), Fp2::Zero(), Fp2::Zero()}, Fp6::Zero()};
  EXPECT_EQ(w.Square(), v);
  EXPECT_EQ(v * v * v, xi);
  EXPECT_EQ(w.Pow(std::array<uint64_t, 1>{6}), xi);
}

TEST(Fp12Test, ConjugateIsFrobenius6) {
  auto rng = test::SeededRng();
  Fp12 a = Fp12::Random(rng);
  EXPECT_EQ(a.Conjugate(), a.Frobenius(6));
}

TEST(Fp12Test, CyclotomicSquareMatchesSquare) {
  auto rng = test::SeededRng();
  for (int i = 0; i < 3; ++i) {
    Fp12 c = RandomCyclotomic(rng);
    ASSERT_EQ(c * c.Conjugate(), Fp12::One());  // cyclotomic: norm to Fp6 is 1
    EXPECT_EQ(c.CyclotomicSquare(), c.Square());
    EXPECT_EQ(c.CyclotomicSquare().CyclotomicSquare(), c.Square().Square());
  }
  // On a general element it is not a squaring (so the test above can fail).
  Fp12 a = Fp12::Random(rng);
  EXPECT_NE(a.CyclotomicSquare(), a.Square());
}

TEST(Fp12Test, PowMatchesRepeatedMultiplication) {
  auto rng = test::SeededRng();
  Fp12 a = Fp12::Random(rng);
  Fp12 r = Fp12::One();
  for (uint64_t k = 0; k < 20; ++k) {
    EXPECT_EQ(a.Pow(std::array<uint64_t, 1>{k}), r) << k;
    r *= a;
  }
  // Leading zero limbs change nothing.
  EXPECT_EQ(a.Pow(std::array<uint64_t, 3>{5, 0, 0}), a.Pow(std::array<uint64_t, 1>{5}));
}

TEST(Fp12Test, SerializationLayoutAndRejection) {
  auto rng = test::SeededRng();
  Fp12 a = Fp12::Random(rng);
  std::array<uint8_t, Fp12::kBytes> bytes;
  a.ToBytes(bytes);
  // c0.c0.c0 first, c1.c2.c1 last, each 48 bytes big-endian.
  std::array<uint8_t, 48> first, last;
  a.c0.c0.c0.ToBytes(first, ff::Endian::kBig);
  a.c1.c2.c1.ToBytes(last, ff::Endian::kBig);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), bytes.begin()));
  EXPECT_TRUE(std::equal(last.begin(), last.end(), bytes.end() - 48));
  EXPECT_EQ(test::ToHex(bytes.data(), bytes.size()), a.ToHex());
  auto back = Fp12::FromBytes(bytes);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, a);

  EXPECT_FALSE(Fp12::FromBytes(std::span<const uint8_t>(bytes.data(), bytes.size() - 1)).has_value());
  // A coefficient equal to p is not canonical.
  std::array<uint8_t, 48> p_bytes{};
  for (size_t i = 0; i < 48; ++i) p_bytes[47 - i] = uint8_t(Fp::kModulus[i / 8] >> (8 * (i % 8)));
  auto bad = bytes;
  std::copy(p_bytes.begin(), p_bytes.end(), bad.begin() + 5 * 48);
  EXPECT_FALSE(Fp12::FromBytes(bad).has_value());
  EXPECT_THROW(a.ToBytes(std::span<uint8_t>(bytes.data(), 10)), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::ec
