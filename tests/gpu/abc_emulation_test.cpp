// Witness-only proving's device steps (cuda/r1cs/abc_steps.hpp) run on the
// host through the emulated device field (cuda/r1cs/abc_emulation.hpp),
// against the host path: the compact witness expands to z; a/b/c over the
// whole domain equal r1cs::EvaluateAbc's (what PrepareProverInput hands a
// backend, padding and the appended input rows included), with and without
// coefficient escapes; the first unsatisfied row is the one
// r1cs::FirstUnsatisfied names. Each with z read whole and with the 0/1
// values taken from the compact witness's classes (the device path after
// ExpandWitness). Random circuits, seed printed.
#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "cuda/r1cs/abc_emulation.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/r1cs/evaluate.hpp"
#include "tests/support/random_circuit.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

using ff::Fr;

void ExpectSameAbc(const EmulatedAbc& got, const r1cs::AbcVectors& want, const std::string& what) {
  ASSERT_EQ(got.a.size(), want.a.size()) << what;
  for (size_t i = 0; i < want.a.size(); ++i) {
    ASSERT_EQ(got.a[i], want.a[i]) << what << " a[" << i << "]";
    ASSERT_EQ(got.b[i], want.b[i]) << what << " b[" << i << "]";
    ASSERT_EQ(got.c[i], want.c[i]) << what << " c[" << i << "]";
  }
}

TEST(AbcEmulationTest, WitnessExpandsOnTheDeviceSteps) {
  auto rng = test::SeededRng();
  for (size_t n : {1u, 16u, 17u, 256u, 300u, 5000u}) {
    std::vector<Fr> z(n);
    for (auto& v : z) v = test::RandomWitnessValue(rng);
    EXPECT_EQ(EmulatedExpandWitness(r1cs::CompactWitnessOf(z)), z) << "n=" << n;
  }
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 700, .free_aux = 300}, rng);
  EXPECT_EQ(EmulatedExpandWitness(r1cs::CompactWitnessOf(rc.z.values)), rc.z.values);
}

TEST(AbcEmulationTest, AbcEqualsTheHostEvaluation) {
  auto rng = test::SeededRng();
  for (double random_share : {0.0, 0.2}) {
    const test::RandomCircuit rc =
        test::MakeRandomCircuit({.constraints = 500, .free_aux = 200, .random_coeff_share = random_share}, rng);
    const uint64_t rows = rc.circuit.num_prover_rows();
    const r1cs::CompactWitness w = r1cs::CompactWitnessOf(rc.z.values);
    const std::vector<Fr> z = EmulatedExpandWitness(w);
    for (size_t max_table : {size_t(2), size_t(9), r1cs::kMaxCoefficientTable}) {
      const r1cs::CompactCircuit cc = r1cs::Compact(rc.circuit, {.max_table = max_table});
      for (uint64_t m : {rows, std::bit_ceil(rows), 2 * std::bit_ceil(rows)}) {
        const std::string what =
            "share=" + std::to_string(random_share) + " table=" + std::to_string(max_table) + " m=" + std::to_string(m);
        const r1cs::AbcVectors want = r1cs::EvaluateAbc(rc.circuit, rc.z.values, {.pad_to = m});
        for (const uint32_t* classes : {static_cast<const uint32_t*>(nullptr), w.classes.data()}) {
          const EmulatedAbc got = EmulatedEvaluateAbc(cc, z, m, classes);
          ExpectSameAbc(got, want, what + (classes ? " classes" : " z"));
          EXPECT_FALSE(got.first_unsatisfied.has_value()) << what;
        }
      }
    }
  }
}

// What PrepareProverInput gives a backend for a real key (domain = the key's).
TEST(AbcEmulationTest, AbcEqualsPrepareProverInput) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 120, .free_aux = 40}, rng);
  const groth16::ProvingKey pk = groth16::GenerateParameters(rc.circuit, {});
  const groth16::ProverInput in = groth16::PrepareProverInput(pk, rc.circuit, rc.z);
  const EmulatedAbc got = EmulatedEvaluateAbc(r1cs::Compact(rc.circuit), rc.z.values, pk.domain_size());
  ExpectSameAbc(got, in.abc, "PrepareProverInput");
}

TEST(AbcEmulationTest, FirstUnsatisfiedRowIsTheHostOne) {
  auto rng = test::SeededRng();
  test::RandomCircuit rc =
      test::MakeRandomCircuit({.constraints = 400, .free_aux = 100, .random_coeff_share = 0.1}, rng);
  const r1cs::CompactCircuit cc = r1cs::Compact(rc.circuit, {.max_table = 5});
  for (uint64_t row : {uint64_t(399), uint64_t(rng() % 400), uint64_t(0)}) {
    rc.BreakRow(row);  // rows broken earlier stay broken: the smallest is the latest, `row` descends
    const uint64_t m = std::bit_ceil(rc.circuit.num_prover_rows());
    const r1cs::AbcVectors host = r1cs::EvaluateAbc(rc.circuit, rc.z.values, {.pad_to = m});
    const auto want = r1cs::FirstUnsatisfied(rc.circuit, host);
    ASSERT_TRUE(want.has_value());
    EXPECT_EQ(want->index, row);
    const r1cs::CompactWitness w = r1cs::CompactWitnessOf(rc.z.values);
    for (const uint32_t* classes : {static_cast<const uint32_t*>(nullptr), w.classes.data()}) {
      const EmulatedAbc got = EmulatedEvaluateAbc(cc, EmulatedExpandWitness(w), m, classes);
      ASSERT_TRUE(got.first_unsatisfied.has_value()) << "row " << row;
      EXPECT_EQ(*got.first_unsatisfied, want->index);
      ExpectSameAbc(got, host, "broken row " + std::to_string(row) + (classes ? " classes" : " z"));
    }
  }
}

}  // namespace
}  // namespace cuzk::cuda
