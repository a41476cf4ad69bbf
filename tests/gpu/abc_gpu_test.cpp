// Witness-only proving's device path (cuda/r1cs/abc_evaluator.hpp) against
// the host: a random circuit's compact form resident on the GPU, the compact
// witness uploaded and expanded (z read back equals the host z), a/b/c read
// back equal r1cs::EvaluateAbc's over the whole domain, and the first
// unsatisfied row equals r1cs::FirstUnsatisfied's. Also a synthetic Groth16
// circuit of 2^16 rows. Skipped without a GPU; seed printed.
#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "cuda/r1cs/abc_evaluator.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/r1cs/evaluate.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/random_circuit.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

using ff::Fr;

std::vector<Fr> ToHost(const DeviceBuffer<Fr>& d, size_t n) {
  std::vector<Fr> h(n);
  CUZK_CUDA_CHECK(cudaMemcpy(h.data(), d.data(), n * sizeof(Fr), cudaMemcpyDeviceToHost));
  return h;
}

// Evaluates on the device and checks against the host; returns the device's first failing row.
std::optional<uint64_t> CheckOnDevice(const r1cs::CompiledCircuit& circuit, const r1cs::Assignment& z, uint64_t m,
                                      size_t max_table, const std::string& what) {
  const DeviceCircuit dc(r1cs::Compact(circuit, {.max_table = max_table}));
  AbcEvaluator eval;
  Stream stream;
  DeviceBuffer<Fr> dz(z.values.size()), a(m), b(m), c(m);
  eval.ExpandWitness(r1cs::CompactWitnessOf(z.values), dz.data(), stream);
  EXPECT_EQ(ToHost(dz, z.values.size()), z.values) << what;
  const r1cs::AbcVectors host = r1cs::EvaluateAbc(circuit, z.values, {.pad_to = m});
  // Both ways of reading z: every value from z, then 0/1 from the classes
  // (the witness-only path); each must equal the host.
  const auto bad_z = eval.EvaluateAbc(dc, dz.data(), a.data(), b.data(), c.data(), m, stream, false);
  EXPECT_EQ(ToHost(a, m), host.a) << what << " (z)";
  EXPECT_EQ(ToHost(c, m), host.c) << what << " (z)";
  const auto bad = eval.EvaluateAbc(dc, dz.data(), a.data(), b.data(), c.data(), m, stream, true);
  EXPECT_EQ(bad_z, bad) << what;
  EXPECT_THROW(eval.EvaluateAbc(dc, a.data(), a.data(), b.data(), c.data(), m, stream, true), std::logic_error)
      << "classes claimed for a z the evaluator did not expand";
  const std::vector<Fr> ga = ToHost(a, m), gb = ToHost(b, m), gc = ToHost(c, m);
  size_t mismatches = 0, first_mismatch = m;
  for (size_t i = 0; i < m; ++i) {
    if (ga[i] != host.a[i] || gb[i] != host.b[i] || gc[i] != host.c[i]) {
      mismatches++;
      first_mismatch = std::min(first_mismatch, i);
    }
  }
  EXPECT_EQ(mismatches, 0u) << what << ": first at row " << first_mismatch;
  const auto want = r1cs::FirstUnsatisfied(circuit, host);
  EXPECT_EQ(bad.has_value(), want.has_value()) << what;
  if (bad && want) {
    EXPECT_EQ(*bad, want->index) << what;
  }
  return bad;
}

TEST(AbcGpuTest, RandomCircuitsMatchTheHost) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  for (uint64_t constraints : {1u, 100u, 5000u, 200000u}) {
    test::RandomCircuit rc = test::MakeRandomCircuit(
        {.constraints = constraints, .free_aux = 1 + constraints / 2, .max_terms = 8, .random_coeff_share = 0.05}, rng);
    const uint64_t m = std::bit_ceil(rc.circuit.num_prover_rows());
    for (size_t table : {size_t(3), r1cs::kMaxCoefficientTable}) {
      const std::string what = std::to_string(constraints) + " rows, table " + std::to_string(table);
      EXPECT_FALSE(CheckOnDevice(rc.circuit, rc.z, m, table, what).has_value()) << what;
    }
    const uint64_t broken = rng() % constraints;
    rc.BreakRow(broken);
    const auto bad = CheckOnDevice(rc.circuit, rc.z, 2 * m, r1cs::kMaxCoefficientTable, "broken");
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(*bad, broken);
  }
}

TEST(AbcGpuTest, SyntheticGroth16CircuitMatchesTheHost) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const circuits::synthetic::SyntheticParams params{.log_size = 16, .num_public = 3, .lc_width = 40, .lc_period = 8};
  const r1cs::CompiledCircuit circuit = circuits::synthetic::Record(params);
  const r1cs::Assignment z = circuits::synthetic::Witness(params, rng());
  EXPECT_FALSE(
      CheckOnDevice(circuit, z, std::bit_ceil(circuit.num_prover_rows()), r1cs::kMaxCoefficientTable, "synthetic 2^16")
          .has_value());
}

}  // namespace
}  // namespace cuzk::cuda
