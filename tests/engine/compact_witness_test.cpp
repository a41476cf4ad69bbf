// r1cs::ExpandWitnessInto, the host expansion of a compact witness that the
// CPU paths use for a witness that travelled compact only (CpuBackend, host
// a/b/c for snarkjs keys, a CudaBackend without B_g2 on the device):
// z back exactly, on one thread or several, into memory that held anything;
// an inconsistent compact witness is refused, never expanded wrongly.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/r1cs/compact_witness.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::r1cs {
namespace {

using ff::Fr;

// A witness like SnapDeals': mostly 0 and 1, `other_percent` other values.
std::vector<Fr> RandomZ(size_t n, unsigned other_percent, std::mt19937_64& rng) {
  std::vector<Fr> z(n);
  for (auto& v : z) {
    const unsigned r = unsigned(rng() % 100);
    v = r < other_percent ? Fr::Random(rng) : (r % 2 ? Fr::One() : Fr::Zero());
  }
  if (n) z[0] = Fr::One();
  return z;
}

TEST(ExpandWitnessIntoTest, GivesBackWhatCompactWitnessOfTook) {
  auto rng = test::SeededRng();
  // Word (16) and chunk (256) boundaries, and sizes past the 2^16 threshold for threads.
  for (size_t n : {0u, 1u, 15u, 16u, 17u, 255u, 256u, 257u, 4097u, 65536u, 70001u, 300000u}) {
    for (unsigned other_percent : {0u, 1u, 50u, 100u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " other%=" + std::to_string(other_percent));
      const std::vector<Fr> z = RandomZ(n, other_percent, rng);
      const CompactWitness w = CompactWitnessOf(z, 3);
      for (unsigned threads : {1u, 4u}) {
        std::vector<Fr> back(n);
        std::memset(static_cast<void*>(back.data()), 0xA5, n * sizeof(Fr));  // every value must be written
        ExpandWitnessInto(w, back, threads);
        EXPECT_EQ(back, z) << "threads=" << threads;
        EXPECT_EQ(std::memcmp(back.data(), z.data(), n * sizeof(Fr)), 0);
      }
      EXPECT_EQ(ExpandWitness(w), z);  // the sequential reference agrees
    }
  }
}

TEST(ExpandWitnessIntoTest, RefusesInconsistentCompactWitnesses) {
  auto rng = test::SeededRng();
  const std::vector<Fr> z = RandomZ(5000, 5, rng);
  const CompactWitness good = CompactWitnessOf(z, 2);
  ASSERT_GT(good.others.size(), 10u);
  std::vector<Fr> out(z.size());
  ASSERT_NO_THROW(ExpandWitnessInto(good, out, 2));
  ASSERT_NO_THROW(CheckCompactWitness(good));

  std::vector<Fr> short_out(z.size() - 1);
  EXPECT_THROW(ExpandWitnessInto(good, short_out, 2), std::invalid_argument);

  CompactWitness w = good;
  w.others.pop_back();  // the last chunk's values run short
  EXPECT_THROW(ExpandWitnessInto(w, out, 2), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  w = good;
  w.others.push_back(Fr::FromUint64(7));  // one value no class refers to
  EXPECT_THROW(ExpandWitnessInto(w, out, 2), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  w = good;
  w.classes[3] |= 3u;  // class 3 at variable 48
  EXPECT_THROW(ExpandWitnessInto(w, out, 1), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  w = good;
  w.chunk_others[2] += 1;  // a base that does not match the classes before it
  EXPECT_THROW(ExpandWitnessInto(w, out, 2), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  w = good;
  w.chunk_others.pop_back();
  EXPECT_THROW(ExpandWitnessInto(w, out, 2), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  w = good;
  w.classes.push_back(0);
  EXPECT_THROW(ExpandWitnessInto(w, out, 2), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  // A zero turned into an "other" class: chunk 0 claims one value more than it has.
  w = good;
  for (uint64_t v = 0; v < 256; ++v) {
    if (ClassOf(w, v) == WitnessClass::kZero) {
      w.classes[v / 16] |= uint32_t(WitnessClass::kOther) << (2 * (v % 16));
      break;
    }
  }
  EXPECT_THROW(ExpandWitnessInto(w, out, 2), std::invalid_argument);
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  // A class set past the last variable (5000 is not a multiple of 16).
  w = good;
  w.classes.back() |= 1u << 30;
  EXPECT_THROW(CheckCompactWitness(w), std::invalid_argument);
  // Every size from empty up: what CompactWitnessOf makes always passes.
  for (size_t n : {size_t(0), size_t(1), size_t(15), size_t(16), size_t(255), size_t(256), size_t(257), size_t(4099)}) {
    EXPECT_NO_THROW(CheckCompactWitness(CompactWitnessOf(RandomZ(n, 5, rng), 2))) << n;
  }
}

}  // namespace
}  // namespace cuzk::r1cs
