// Witness-only inputs (ProveOptions::witness_only, issue 15) on the CPU
// backend, the reference for the GPU path: the same proof as the ordinary
// path for the same r, s; an unsatisfied witness fails ProveStart with the
// row the ordinary path names; the input checks of witness-only inputs.
// Compact-only inputs (PrepareCompactWitnessInput: only compact_z, no z
// values, as the daemon's synthesis hands them on): the same proof, the
// same failure, the host evaluation from the expanded witness.
#include <gtest/gtest.h>

#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/r1cs/compact_witness.hpp"
#include "tests/support/random_circuit.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::groth16 {
namespace {

using ff::Fr;

TEST(WitnessOnlyTest, CpuGivesTheSameProofAsTheOrdinaryPath) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 200, .free_aux = 60}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  CpuBackend cpu({.threads = 2});
  const Fr r = Fr::Random(rng), s = Fr::Random(rng);
  const Proof want = ProveWithRandomness(cpu, pk, rc.circuit, rc.z, r, s);
  const ProverInput in = PrepareProverInput(pk, rc.circuit, rc.z, {.witness_only = true});
  EXPECT_TRUE(in.WitnessOnly());
  EXPECT_TRUE(in.abc.a.empty());
  const Proof got = ProveWithRandomness(cpu, pk, rc.circuit, rc.z, r, s, {.witness_only = true});
  EXPECT_EQ(EncodeProof(got), EncodeProof(want));
  EXPECT_TRUE(Verify(PrepareVerifyingKey(pk.vk), got, rc.z.PublicInputs()));
}

// compact_witness: z compacted by PrepareProverInput (the synthesis thread)
// equals the backend's own compaction and expands back to z.
TEST(WitnessOnlyTest, CompactWitnessMadeAtPreparationIsExact) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 300, .free_aux = 80}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  const ProverInput plain = PrepareProverInput(pk, rc.circuit, rc.z, {.witness_only = true});
  EXPECT_FALSE(plain.compact_z.has_value());
  const ProverInput in =
      PrepareProverInput(pk, rc.circuit, rc.z, {.threads = 2, .witness_only = true, .compact_witness = true});
  ASSERT_TRUE(in.compact_z.has_value());
  EXPECT_EQ(r1cs::ExpandWitness(*in.compact_z), rc.z.values);
  const r1cs::CompactWitness backend_side = r1cs::CompactWitnessOf(rc.z.values, 1);
  EXPECT_EQ(in.compact_z->classes, backend_side.classes);
  EXPECT_EQ(in.compact_z->others, backend_side.others);
  // The CPU backend proves from it as from any witness-only input.
  CpuBackend cpu({.threads = 2});
  const Fr r = Fr::Random(rng), s = Fr::Random(rng);
  EXPECT_EQ(EncodeProof(
                ProveWithRandomness(cpu, pk, rc.circuit, rc.z, r, s, {.witness_only = true, .compact_witness = true})),
            EncodeProof(ProveWithRandomness(cpu, pk, rc.circuit, rc.z, r, s)));
}

TEST(WitnessOnlyTest, UnsatisfiedWitnessFailsProveStartNamingTheRow) {
  auto rng = test::SeededRng();
  test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 150, .free_aux = 30}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  const uint64_t row = rng() % 150;
  rc.BreakRow(row);
  uint64_t ordinary_row = 0;
  try {
    PrepareProverInput(pk, rc.circuit, rc.z);
    FAIL() << "the ordinary path accepted a broken witness";
  } catch (const UnsatisfiedWitnessError& e) {
    ordinary_row = e.failure().index;
  }
  EXPECT_EQ(ordinary_row, row);
  CpuBackend cpu({.threads = 2});
  std::vector<ProverInput> in;
  in.push_back(PrepareProverInput(pk, rc.circuit, rc.z, {.witness_only = true}));  // no check here
  try {
    cpu.ProveStart(pk, in);
    FAIL() << "ProveStart accepted a broken witness";
  } catch (const UnsatisfiedWitnessError& e) {
    EXPECT_EQ(e.failure().index, row);
    EXPECT_EQ(e.failure().name, rc.circuit.RowName(row));
    EXPECT_NE(e.failure().a * e.failure().b, e.failure().c);
  }
}

TEST(WitnessOnlyTest, InputChecksCoverTheCircuit) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 40, .free_aux = 10}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  ProverInput in = PrepareProverInput(pk, rc.circuit, rc.z, {.witness_only = true});
  EXPECT_NO_THROW(CheckProverInput(pk, in));
  const test::RandomCircuit other = test::MakeRandomCircuit({.constraints = 40, .free_aux = 11}, rng);
  in.circuit = &other.circuit;
  EXPECT_THROW(CheckProverInput(pk, in), std::invalid_argument);
  // Shape checks of the witness stay in PrepareProverInput.
  r1cs::Assignment short_z = rc.z;
  short_z.values.pop_back();
  EXPECT_THROW(PrepareProverInput(pk, rc.circuit, short_z, {.witness_only = true}), std::invalid_argument);
}

// ---- compact-only inputs -------------------------------------------------------------

TEST(WitnessOnlyTest, CompactOnlyInputGivesTheSameProofOnTheCpu) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 250, .free_aux = 70}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  CpuBackend cpu({.threads = 2});
  const Fr r = Fr::Random(rng), s = Fr::Random(rng);
  const Proof want = ProveWithRandomness(cpu, pk, rc.circuit, rc.z, r, s);

  std::vector<Fr> buffer = rc.z.values;  // the caller's (reused) memory
  std::vector<ProverInput> in;
  in.push_back(PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, buffer, 2));
  std::fill(buffer.begin(), buffer.end(), Fr::FromUint64(3));  // reused at once: the input must not refer to it
  ASSERT_TRUE(in[0].WitnessOnly());
  ASSERT_TRUE(in[0].compact_z.has_value());
  EXPECT_TRUE(in[0].assignment.values.empty());
  EXPECT_EQ(in[0].assignment.num_inputs, rc.z.num_inputs);
  EXPECT_EQ(WitnessVariables(in[0]), rc.z.values.size());
  EXPECT_EQ(r1cs::ExpandWitness(*in[0].compact_z), rc.z.values);

  std::vector<PendingProof> pending = cpu.ProveStart(pk, in);
  ASSERT_EQ(pending.size(), 1u);
  // z was expanded for the MSMs only: the G2 MSM ran in ProveStart, nothing of z waits for ProveFinish.
  EXPECT_TRUE(pending[0].b2_sum.has_value());
  EXPECT_TRUE(pending[0].assignment.values.empty());
  EXPECT_TRUE(in[0].assignment.values.empty());
  const Proof got = cpu.ProveFinish(pk, std::move(pending[0]), r, s);
  EXPECT_EQ(EncodeProof(got), EncodeProof(want));
  EXPECT_TRUE(Verify(PrepareVerifyingKey(pk.vk), got, rc.z.PublicInputs()));
}

TEST(WitnessOnlyTest, CompactOnlyUnsatisfiedWitnessFailsProveStartNamingTheRow) {
  auto rng = test::SeededRng();
  test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 150, .free_aux = 30}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  const uint64_t row = rng() % 150;
  rc.BreakRow(row);
  CpuBackend cpu({.threads = 2});
  std::vector<ProverInput> in;
  in.push_back(PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values));  // no row check here
  try {
    cpu.ProveStart(pk, in);
    FAIL() << "ProveStart accepted a broken compact witness";
  } catch (const UnsatisfiedWitnessError& e) {
    EXPECT_EQ(e.failure().index, row);
    EXPECT_EQ(e.failure().name, rc.circuit.RowName(row));
  }
}

// EvaluateWitnessOnly (the host a/b/c of snarkjs keys on a GPU, and the CPU
// backend's) takes a compact-only input: z comes back whole, a/b/c are the
// ordinary path's.
TEST(WitnessOnlyTest, HostEvaluationOfACompactOnlyInput) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 120, .free_aux = 40}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  const ProverInput ordinary = PrepareProverInput(pk, rc.circuit, rc.z);
  ProverInput in = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values, 2);
  EvaluateWitnessOnly(pk, in, 2);
  EXPECT_FALSE(in.WitnessOnly());
  EXPECT_EQ(in.assignment.values, rc.z.values);
  EXPECT_EQ(WitnessVariables(in), rc.z.values.size());
  EXPECT_EQ(in.abc.a, ordinary.abc.a);
  EXPECT_EQ(in.abc.b, ordinary.abc.b);
  EXPECT_EQ(in.abc.c, ordinary.abc.c);
  EXPECT_NO_THROW(CheckProverInput(pk, in));
  // ExpandCompactWitness leaves an input that holds z alone.
  ProverInput whole = PrepareProverInput(pk, rc.circuit, rc.z, {.witness_only = true});
  ExpandCompactWitness(whole);
  EXPECT_EQ(whole.assignment.values, rc.z.values);
}

TEST(WitnessOnlyTest, CompactOnlyInputChecksTheWitnessShape) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 40, .free_aux = 10}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  std::vector<Fr> z = rc.z.values;
  EXPECT_NO_THROW(PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, z));
  EXPECT_THROW(PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs + 1, z), std::invalid_argument);
  EXPECT_THROW(PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, std::span<const Fr>(z).first(z.size() - 1)),
               std::invalid_argument);
  z[0] = Fr::FromUint64(2);
  EXPECT_THROW(PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, z), std::invalid_argument);
  const test::RandomCircuit other = test::MakeRandomCircuit({.constraints = 40, .free_aux = 11}, rng);
  EXPECT_THROW(PrepareCompactWitnessInput(pk, other.circuit, other.z.num_inputs, other.z.values),
               std::invalid_argument);
}

// BindCompactWitness (the daemon compacts SnapDeals witnesses before the set
// is loaded): the input PrepareCompactWitnessInput makes, the same proof, and
// the same refusals, checked on the compact form.
TEST(WitnessOnlyTest, CompactWitnessBoundLaterGivesTheSameInputAndChecks) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 90, .free_aux = 25}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  CpuBackend cpu({.threads = 2});
  const Fr r = Fr::Random(rng), s = Fr::Random(rng);
  const Proof want = ProveWithRandomness(cpu, pk, rc.circuit, rc.z, r, s);

  std::vector<ProverInput> in;
  in.push_back(BindCompactWitness(pk, rc.circuit, rc.z.num_inputs, r1cs::CompactWitnessOf(rc.z.values, 2)));
  const ProverInput direct = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values, 2);
  ASSERT_TRUE(in[0].WitnessOnly());
  EXPECT_EQ(in[0].circuit, direct.circuit);
  EXPECT_EQ(in[0].assignment.num_inputs, direct.assignment.num_inputs);
  EXPECT_TRUE(in[0].assignment.values.empty());
  EXPECT_EQ(r1cs::ExpandWitness(*in[0].compact_z), r1cs::ExpandWitness(*direct.compact_z));
  std::vector<PendingProof> pending = cpu.ProveStart(pk, in);
  EXPECT_EQ(EncodeProof(cpu.ProveFinish(pk, std::move(pending.at(0)), r, s)), EncodeProof(want));

  const auto bind = [&](const r1cs::CompiledCircuit& c, uint64_t inputs, std::span<const Fr> z) {
    return BindCompactWitness(pk, c, inputs, r1cs::CompactWitnessOf(z, 2));
  };
  const std::vector<Fr>& z = rc.z.values;
  EXPECT_THROW(bind(rc.circuit, rc.z.num_inputs + 1, z), std::invalid_argument);
  EXPECT_THROW(bind(rc.circuit, rc.z.num_inputs, std::span<const Fr>(z).first(z.size() - 1)), std::invalid_argument);
  std::vector<Fr> two = z;
  two[0] = Fr::FromUint64(2);
  EXPECT_THROW(bind(rc.circuit, rc.z.num_inputs, two), std::invalid_argument);
  std::vector<Fr> zero = z;
  zero[0] = Fr{};
  EXPECT_THROW(bind(rc.circuit, rc.z.num_inputs, zero), std::invalid_argument);
  const test::RandomCircuit other = test::MakeRandomCircuit({.constraints = 40, .free_aux = 11}, rng);
  EXPECT_THROW(bind(other.circuit, other.z.num_inputs, other.z.values), std::invalid_argument);
  r1cs::CompactWitness damaged = r1cs::CompactWitnessOf(z, 2);
  ASSERT_FALSE(damaged.others.empty());
  damaged.others.clear();  // classes that name values it no longer has
  EXPECT_THROW(BindCompactWitness(pk, rc.circuit, rc.z.num_inputs, std::move(damaged)), std::invalid_argument);
}

// CheckProverInput (what every backend's ProveStart runs first) takes a
// compact-only input's count from its compact witness, and refuses one whose
// count differs from the key's, one without a circuit, and a compact witness
// that disagrees with the values beside it.
TEST(WitnessOnlyTest, InputChecksAcceptCompactOnlyInputsOfTheRightShape) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 40, .free_aux = 10}, rng);
  const ProvingKey pk = GenerateParameters(rc.circuit);
  const ProverInput good = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values);
  ASSERT_TRUE(good.assignment.values.empty());
  ASSERT_TRUE(good.compact_z.has_value());
  EXPECT_NO_THROW(CheckProverInput(pk, good));
  {
    ProverInput bad = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values);
    bad.compact_z->num_variables -= 1;
    EXPECT_THROW(CheckProverInput(pk, bad), std::invalid_argument);
  }
  {
    ProverInput bad = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values);
    bad.circuit = nullptr;  // compact values alone cannot feed the a/b/c path
    EXPECT_THROW(CheckProverInput(pk, bad), std::invalid_argument);
  }
  {
    ProverInput bad = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values);
    bad.compact_z.reset();  // neither values nor a compact witness
    EXPECT_THROW(CheckProverInput(pk, bad), std::invalid_argument);
  }
  {
    // Inconsistent in itself (a value fewer than its "other" classes): the GPU would read past `others`.
    ProverInput bad = PrepareCompactWitnessInput(pk, rc.circuit, rc.z.num_inputs, rc.z.values);
    ASSERT_FALSE(bad.compact_z->others.empty());
    bad.compact_z->others.pop_back();
    EXPECT_THROW(CheckProverInput(pk, bad), std::invalid_argument);
  }
  {
    ProverInput both = PrepareProverInput(pk, rc.circuit, rc.z, {.witness_only = true, .compact_witness = true});
    EXPECT_NO_THROW(CheckProverInput(pk, both));
    both.compact_z->num_variables += 1;
    EXPECT_THROW(CheckProverInput(pk, both), std::invalid_argument);
  }
}

}  // namespace
}  // namespace cuzk::groth16
