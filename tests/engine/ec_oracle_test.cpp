// Our G1/G2 arithmetic and ZCash encodings against @noble/curves
// (tests/oracle/point_vectors.mjs): k*G computed and encoded by us must give
// noble's bytes, decoding noble's bytes must give our points, and sums agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/ec/encoding.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::ec {
namespace {

using ff::Fr;
using nlohmann::json;

constexpr int kRandomPoints = 12;

// One oracle run shared by all tests (node start-up dominates the cost).
const json& Vectors() {
  static const json v =
      test::RunOracle("point_vectors.mjs", {std::to_string(test::TestSeed()), std::to_string(kRandomPoints)});
  return v;
}

template <size_t N>
std::string Hex(const std::array<uint8_t, N>& a) {
  return test::ToHex(a.data(), a.size());
}

// Both encodings of `ours` equal noble's, and both of noble's decode to `ours`.
template <class Affine, class DecodeFn>
void ExpectSameEncodings(const Affine& ours, const json& noble, DecodeFn decode, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(Hex(EncodeCompressed(ours)), noble["compressed"].get<std::string>());
  EXPECT_EQ(Hex(EncodeUncompressed(ours)), noble["uncompressed"].get<std::string>());
  for (const char* form : {"compressed", "uncompressed"}) {
    std::vector<uint8_t> bytes = test::FromHex(noble[form].get<std::string>());
    auto r = decode(bytes);
    ASSERT_TRUE(r.ok()) << form << ": " << DecodeErrorName(r.error);
    EXPECT_EQ(*r.point, ours) << form;
  }
}

auto DecodeG1Full = [](std::span<const uint8_t> b) { return DecodeG1(b); };
auto DecodeG2Full = [](std::span<const uint8_t> b) { return DecodeG2(b); };

TEST(EcOracleTest, InfinityEncodingsMatchNoble) {
  const json& v = Vectors();
  ExpectSameEncodings(G1Affine::Infinity(), v["g1_infinity"], DecodeG1Full, "G1 infinity");
  ExpectSameEncodings(G2Affine::Infinity(), v["g2_infinity"], DecodeG2Full, "G2 infinity");
}

TEST(EcOracleTest, ScalarMultiplesOfGeneratorsMatchNoble) {
  const json& v = Vectors();
  ASSERT_EQ(v["points"].size(), size_t(kRandomPoints + 3));
  for (const auto& pt : v["points"]) {
    std::string k_hex = pt["k"].get<std::string>();
    Fr k = Fr::FromHex(k_hex);
    ASSERT_EQ(k.ToHex(), "0x" + k_hex) << "scalar not canonical";
    ExpectSameEncodings((G1Jacobian::Generator() * k).ToAffine(), pt["g1"], DecodeG1Full, "G1 k=" + k_hex);
    ExpectSameEncodings((G2Jacobian::Generator() * k).ToAffine(), pt["g2"], DecodeG2Full, "G2 k=" + k_hex);
  }
}

TEST(EcOracleTest, SumsMatchNoble) {
  const json& v = Vectors();
  ASSERT_GE(v["sums"].size(), size_t(3));
  auto decode_g1 = [](const json& e) { return *DecodeG1(test::FromHex(e["uncompressed"].get<std::string>())).point; };
  auto decode_g2 = [](const json& e) { return *DecodeG2(test::FromHex(e["compressed"].get<std::string>())).point; };
  for (const auto& s : v["sums"]) {
    size_t i = s["i"].get<size_t>(), j = s["j"].get<size_t>();
    const json& pi = v["points"][i];
    const json& pj = v["points"][j];
    std::string what = "points[" + std::to_string(i) + "] + points[" + std::to_string(j) + "]";
    // Sum of the decoded operands in every addition path we have.
    G1Affine a1 = decode_g1(pi["g1"]), b1 = decode_g1(pj["g1"]);
    G2Affine a2 = decode_g2(pi["g2"]), b2 = decode_g2(pj["g2"]);
    G1Affine sum1 = (G1Jacobian::FromAffine(a1) + G1Jacobian::FromAffine(b1)).ToAffine();
    G2Affine sum2 = (G2Jacobian::FromAffine(a2) + G2Jacobian::FromAffine(b2)).ToAffine();
    EXPECT_EQ(G1Jacobian::FromAffine(a1).AddMixed(b1).ToAffine(), sum1) << what;
    EXPECT_EQ(G1Xyzz::FromAffine(a1).AddMixed(b1).ToAffine(), sum1) << what;
    EXPECT_EQ(G2Jacobian::FromAffine(a2).AddMixed(b2).ToAffine(), sum2) << what;
    EXPECT_EQ(G2Xyzz::FromAffine(a2).AddMixed(b2).ToAffine(), sum2) << what;
    ExpectSameEncodings(sum1, s["g1"], DecodeG1Full, "G1 " + what);
    ExpectSameEncodings(sum2, s["g2"], DecodeG2Full, "G2 " + what);
  }
}

}  // namespace
}  // namespace cuzk::ec
