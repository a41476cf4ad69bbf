// G1 records of 48 bytes (cuda/ec/g1_compressed.hpp) through the host build
// of the device decompression: every random point comes back exactly, its
// root flag agrees with the engine's Zcash encoding (an independent writer
// of the same sign rule), and records that are not points' are refused; the
// key image's compressed H section (written by the engine, not by
// CompressG1ForDevice) decompresses to the key's H points.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuda/ec/g1_compressed.hpp"
#include "engine/ec/encoding.hpp"
#include "engine/ec/g1.hpp"
#include "engine/groth16/key_image.hpp"
#include "tests/support/emulated_device.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

ec::G1Affine Back(const AffinePoint<Fp>& p) {
  return p.IsInfinity() ? ec::G1Affine::Infinity() : ec::G1Affine::FromXY(p.x.ToHost(), p.y.ToHost());
}

TEST(G1CompressedEmulationTest, PointsComeBackAndTheRootFlagIsZcashs) {
  auto rng = test::SeededRng();
  std::vector<ec::G1Affine> points = {ec::G1Affine::Generator(), -ec::G1Affine::Generator(), ec::G1Affine::Infinity()};
  for (int i = 0; i < 200; ++i) points.push_back((ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine());
  for (const ec::G1Affine& p : points) {
    const CompressedG1 c = CompressG1ForDevice(p);
    AffinePoint<Fp> got;
    ASSERT_TRUE(DecompressG1(c, got));
    EXPECT_EQ(Back(got), p);
    const ec::G1Compressed zcash = ec::EncodeCompressed(p);
    EXPECT_EQ((c.limbs[11] & g1_compressed::kLargerYBit) != 0, (zcash[0] & ec::kFlagSort) != 0);
    EXPECT_EQ((c.limbs[11] & g1_compressed::kInfinityBit) != 0, p.IsInfinity());
    if (!p.IsInfinity()) {
      const CompressedG1 negated = CompressG1ForDevice(-p);
      EXPECT_NE(negated.limbs[11] & g1_compressed::kLargerYBit, c.limbs[11] & g1_compressed::kLargerYBit);
      ASSERT_TRUE(DecompressG1(negated, got));
      EXPECT_EQ(Back(got), -p);
    }
  }
}

// The writer of the image (engine/groth16/key_image.cpp) and this reader
// (the device's DecompressG1, run on the host) agree: every record of the
// "h48" section, streamed as the GPU's uploader streams it, is the point of H
// at its index, and the same bytes CompressG1ForDevice makes.
TEST(G1CompressedEmulationTest, TheKeyImagesCompressedHDecompressesToTheKeysH) {
  auto rng = test::SeededRng();
  groth16::ProvingKey pk;
  pk.h_form = groth16::HQueryForm::kBellperson;
  pk.h.resize(1000);
  for (auto& p : pk.h) p = (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
  pk.h[7] = -pk.h[3];  // both roots of one x
  pk.l.resize(2);
  for (auto& p : pk.l) p = ec::G1Affine::Generator();
  pk.vk.ic.assign(2, ec::G1Affine::Generator());
  pk.vk.alpha_g1 = pk.vk.beta_g1 = pk.vk.delta_g1 = ec::G1Affine::Generator();
  pk.vk.beta_g2 = pk.vk.gamma_g2 = pk.vk.delta_g2 = ec::G2Affine::Generator();
  test::TempDir dir("cuzk-h48-");
  const std::string path = dir.File("k.key-image");
  groth16::WriteKeyImage(pk, path, 42);
  const groth16::KeyImageStream image(path, 42);
  const test::EmulatedSection d = test::StreamToEmulatedDevice(image, groth16::KeySection::kHCompressed, 2);
  ASSERT_EQ(d.writes.size(), pk.h.size());
  for (size_t i = 0; i < pk.h.size(); ++i) {
    CompressedG1 c;
    std::memcpy(&c, d.bytes.data() + i * sizeof c, sizeof c);
    const CompressedG1 want = CompressG1ForDevice(pk.h[i]);
    EXPECT_EQ(std::memcmp(&c, &want, sizeof c), 0) << "record " << i;
    AffinePoint<Fp> got;
    ASSERT_TRUE(DecompressG1(c, got)) << "record " << i;
    EXPECT_EQ(Back(got), pk.h[i]) << "record " << i;
  }
}

TEST(G1CompressedEmulationTest, RecordsThatAreNotPointsAreRefused) {
  auto rng = test::SeededRng();
  AffinePoint<Fp> out;
  // x with x^3 + 4 not a square (found with the engine's square root).
  int non_squares = 0;
  for (int tries = 0; tries < 200 && non_squares < 20; ++tries) {
    const ff::Fp x = ff::Fp::Random(rng);
    if ((x.Square() * x + ff::Fp::FromUint64(4)).Sqrt()) continue;
    ++non_squares;
    CompressedG1 c{};
    const Fp dx = Fp::FromHost(x);
    for (int i = 0; i < 12; ++i) c.limbs[i] = dx.limb(i);
    EXPECT_FALSE(DecompressG1(c, out));
    c.limbs[11] |= g1_compressed::kLargerYBit;
    EXPECT_FALSE(DecompressG1(c, out));
  }
  EXPECT_GE(non_squares, 20);
  // x = p and x above p.
  CompressedG1 p{};
  for (int i = 0; i < 12; ++i) p.limbs[i] = Fp::Mod(i);
  EXPECT_FALSE(DecompressG1(p, out));
  CompressedG1 high{};
  for (int i = 0; i < 12; ++i) high.limbs[i] = 0xffffffffu;
  high.limbs[11] &= ~(g1_compressed::kInfinityBit | g1_compressed::kLargerYBit);
  EXPECT_FALSE(DecompressG1(high, out));
  // Infinity with anything else set.
  CompressedG1 inf{};
  inf.limbs[11] = g1_compressed::kInfinityBit;
  EXPECT_TRUE(DecompressG1(inf, out));
  EXPECT_TRUE(out.IsInfinity());
  inf.limbs[0] = 1;
  EXPECT_FALSE(DecompressG1(inf, out));
  inf.limbs[0] = 0;
  inf.limbs[11] |= g1_compressed::kLargerYBit;
  EXPECT_FALSE(DecompressG1(inf, out));
}

TEST(G1CompressedEmulationTest, ExponentLimbsAreThoseOfTheModulus) {
  // (p + 1) / 4 times 4 is p + 1, and (p - 1) / 2 times 2 is p - 1, limb by limb.
  uint64_t carry4 = 0, carry2 = 0;
  for (int i = 0; i < 12; ++i) {
    const uint64_t four = (uint64_t(g1_compressed::SqrtExponent(i)) << 2) + carry4;
    const uint64_t two = (uint64_t(g1_compressed::HalfModulus(i)) << 1) + carry2;
    const uint32_t want_plus = Fp::Mod(i) + (i == 0 ? 1u : 0u);  // p's low limb is odd: no carry out of it
    const uint32_t want_minus = Fp::Mod(i) - (i == 0 ? 1u : 0u);
    EXPECT_EQ(uint32_t(four), want_plus) << i;
    EXPECT_EQ(uint32_t(two), want_minus) << i;
    carry4 = four >> 32, carry2 = two >> 32;
  }
  EXPECT_EQ(carry4, 0u);
  EXPECT_EQ(carry2, 0u);
}

}  // namespace
}  // namespace cuzk::cuda
