// The compact forms of witness-only proving (engine/r1cs/compact_circuit.hpp,
// compact_witness.hpp) on random circuits and witnesses: the compact matrices
// expanded back equal the host CSR exactly (with and without escapes), the
// table's layout, the size limits; the compact witness expands back to z.
#include <gtest/gtest.h>

#include <vector>

#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compact_witness.hpp"
#include "tests/support/random_circuit.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::r1cs {
namespace {

using ff::Fr;

void ExpectSameCsr(const CsrMatrix& got, const CsrMatrix& want, const char* name) {
  EXPECT_EQ(got.row_offsets, want.row_offsets) << name;
  EXPECT_EQ(got.columns, want.columns) << name;
  ASSERT_EQ(got.values.size(), want.values.size()) << name;
  for (size_t k = 0; k < want.values.size(); ++k) ASSERT_EQ(got.values[k], want.values[k]) << name << " nonzero " << k;
}

void ExpectRoundTrip(const CompiledCircuit& circuit, const CompactOptions& options) {
  const CompactCircuit cc = Compact(circuit, options);
  EXPECT_EQ(cc.num_inputs, circuit.num_inputs);
  EXPECT_EQ(cc.num_aux, circuit.num_aux);
  EXPECT_EQ(cc.num_constraints(), circuit.num_constraints());
  ASSERT_GE(cc.coefficients.size(), 2u);
  EXPECT_LE(cc.coefficients.size(), options.max_table);
  EXPECT_EQ(cc.coefficients[kCoefficientOne], Fr::One());
  EXPECT_EQ(cc.coefficients[kCoefficientMinusOne], -Fr::One());
  ExpectSameCsr(Expand(cc, cc.a), circuit.a, "A");
  ExpectSameCsr(Expand(cc, cc.b), circuit.b, "B");
  ExpectSameCsr(Expand(cc, cc.c), circuit.c, "C");
  for (const CompactMatrix* m : {&cc.a, &cc.b, &cc.c}) {
    EXPECT_TRUE(std::is_sorted(m->escape_positions.begin(), m->escape_positions.end()));
    EXPECT_EQ(m->escape_positions.size(), m->escape_values.size());
    EXPECT_EQ(size_t(std::count(m->codes.begin(), m->codes.end(), kEscapeCode)), m->escape_positions.size());
  }
}

TEST(CompactCircuitTest, ExpandsBackToTheHostMatrices) {
  auto rng = test::SeededRng();
  for (double random_share : {0.0, 0.1, 0.5}) {
    test::RandomCircuitParams p{.constraints = 300, .free_aux = 80, .random_coeff_share = random_share};
    const test::RandomCircuit rc = test::MakeRandomCircuit(p, rng);
    ExpectRoundTrip(rc.circuit, {});
    ExpectRoundTrip(rc.circuit, {.threads = 3});
  }
}

TEST(CompactCircuitTest, ValuesBeyondTheTableEscape) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 400, .random_coeff_share = 0.3}, rng);
  for (size_t max_table : {2u, 3u, 17u}) ExpectRoundTrip(rc.circuit, {.max_table = max_table});
  const CompactCircuit tiny = Compact(rc.circuit, {.max_table = 2});
  EXPECT_GT(tiny.a.escape_positions.size() + tiny.b.escape_positions.size() + tiny.c.escape_positions.size(), 0u);
  // With room for every value, nothing escapes, and the table is ordered by falling frequency.
  const CompactCircuit full = Compact(rc.circuit);
  EXPECT_TRUE(full.a.escape_positions.empty() && full.b.escape_positions.empty() && full.c.escape_positions.empty());
}

// A circuit with enough nonzeros to use several compaction threads: same result as one thread.
TEST(CompactCircuitTest, ThreadsGiveTheSameForm) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc =
      test::MakeRandomCircuit({.constraints = 30000, .free_aux = 1000, .random_coeff_share = 0.05}, rng);
  const CompactCircuit one = Compact(rc.circuit, {.max_table = 40, .threads = 1});
  const CompactCircuit many = Compact(rc.circuit, {.max_table = 40, .threads = 4});
  EXPECT_EQ(one.coefficients, many.coefficients);
  for (auto [x, y] : {std::pair{&one.a, &many.a}, {&one.b, &many.b}, {&one.c, &many.c}}) {
    EXPECT_EQ(x->codes, y->codes);
    EXPECT_EQ(x->escape_positions, y->escape_positions);
    EXPECT_EQ(x->escape_values, y->escape_values);
  }
  ExpectRoundTrip(rc.circuit, {.max_table = 40, .threads = 4});
}

TEST(CompactCircuitTest, RefusesBadOptionsAndShapes) {
  auto rng = test::SeededRng();
  test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 10}, rng);
  EXPECT_THROW(Compact(rc.circuit, {.max_table = 1}), std::invalid_argument);
  EXPECT_THROW(Compact(rc.circuit, {.max_table = kMaxCoefficientTable + 1}), std::invalid_argument);
  rc.circuit.b.row_offsets.push_back(rc.circuit.b.row_offsets.back());
  EXPECT_THROW(Compact(rc.circuit), std::invalid_argument);
}

TEST(CompactWitnessTest, ExpandsBackToTheWitness) {
  auto rng = test::SeededRng();
  // Sizes around the word (16) and chunk (256) boundaries, and a large one for the threads.
  for (size_t n : {1u, 15u, 16u, 17u, 255u, 256u, 257u, 1000u, 70000u}) {
    std::vector<Fr> z(n);
    for (auto& v : z) v = test::RandomWitnessValue(rng);
    z[0] = Fr::One();
    const CompactWitness w = CompactWitnessOf(z, 4);
    EXPECT_EQ(w.num_variables, n);
    EXPECT_EQ(w.classes.size(), (n + 15) / 16);
    EXPECT_EQ(w.chunk_others.size(), (n + 255) / 256);
    size_t others = 0;
    for (uint64_t v = 0; v < n; ++v) {
      const WitnessClass c = ClassOf(w, v);
      EXPECT_EQ(c, z[v].IsZero() ? WitnessClass::kZero : z[v].IsOne() ? WitnessClass::kOne : WitnessClass::kOther) << v;
      others += c == WitnessClass::kOther;
    }
    EXPECT_EQ(w.others.size(), others);
    EXPECT_EQ(ExpandWitness(w), z) << "n=" << n;
    EXPECT_EQ(CompactWitnessOf(z, 1).others, w.others);
  }
  // All "other", all zero.
  std::vector<Fr> all(600);
  for (auto& v : all) v = Fr::FromUint64(2 + rng() % 1000);
  EXPECT_EQ(ExpandWitness(CompactWitnessOf(all)), all);
  EXPECT_EQ(ExpandWitness(CompactWitnessOf(std::vector<Fr>(600))), std::vector<Fr>(600));
}

}  // namespace
}  // namespace cuzk::r1cs
