// Witness-only proving on CudaBackend (issue 15) against CpuBackend: the
// circuit compact and resident on the device, the witness uploaded as
// classes plus its other values, a/b/c evaluated on the GPU. For the same r,
// s the proof bytes equal the CPU's (ordinary path); it verifies; an
// unsatisfied witness is refused naming the row the CPU names; circuits and
// keys alternate on one backend; snarkjs-form keys (host evaluation); a
// 1 KiB SnapDeals partition (2^21 rows). Skipped without a GPU; seed printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "cuda/groth16/cuda_backend.hpp"
#include "cuda/msm/fixed_base.hpp"
#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::cuda {
namespace {

using namespace cuzk::groth16;
namespace synthetic = circuits::synthetic;

struct Keyed {
  synthetic::SyntheticParams params;
  r1cs::CompiledCircuit circuit;
  ProvingKey pk;
};

Keyed MakeKeyed(unsigned log_size, HQueryForm form) {
  Keyed k;
  k.params = {.log_size = log_size, .num_public = 3, .lc_width = 40, .lc_period = 8};
  k.circuit = synthetic::Record(k.params);
  k.pk = GenerateParameters(k.circuit, {.h_form = form});
  return k;
}

void ExpectSameProof(CudaBackend& gpu, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit,
                     const r1cs::Assignment& z, std::mt19937_64& rng, const std::string& what) {
  CpuBackend cpu;
  const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
  const Proof want = ProveWithRandomness(cpu, pk, circuit, z, r, s);
  const auto t0 = std::chrono::steady_clock::now();
  const Proof got = ProveWithRandomness(gpu, pk, circuit, z, r, s, {.witness_only = true});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(EncodeProof(got), EncodeProof(want)) << what;
  EXPECT_TRUE(Verify(PrepareVerifyingKey(pk.vk), got, z.PublicInputs())) << what;
  const CudaBackendStats st = gpu.Stats();
  std::printf("  %s: witness-only GPU proof %.1f ms; totals: compaction %.2f ms, upload+expand+eval %.2f ms, "
              "%llu compact witness bytes, %llu circuit bytes resident\n",
              what.c_str(), ms, st.compact_witness_ms, st.abc_eval_ms, (unsigned long long)st.compact_witness_bytes,
              (unsigned long long)st.resident_circuit_bytes);
}

TEST(WitnessOnlyGpuTest, SameProofAsCpuForTheSameBlinding) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  for (unsigned log_size : {5u, 10u, 14u, 17u}) {
    const Keyed k = MakeKeyed(log_size, HQueryForm::kBellperson);
    ExpectSameProof(gpu, k.pk, k.circuit, synthetic::Witness(k.params, rng()), rng,
                    "synthetic 2^" + std::to_string(log_size));
    EXPECT_GT(gpu.Stats().resident_circuit_bytes, 0u);
  }
  EXPECT_EQ(gpu.Stats().witness_only_proofs, 4u);
  // snarkjs-form keys evaluate on the host (their H is on the CPU): same proof, not counted.
  const Keyed sj = MakeKeyed(11, HQueryForm::kSnarkjsOddCoset);
  ExpectSameProof(gpu, sj.pk, sj.circuit, synthetic::Witness(sj.params, rng()), rng, "snarkjs form 2^11");
  EXPECT_EQ(gpu.Stats().witness_only_proofs, 4u);
}

TEST(WitnessOnlyGpuTest, KeysAndCircuitsAlternateOnOneBackend) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  const Keyed k1 = MakeKeyed(9, HQueryForm::kBellperson), k2 = MakeKeyed(12, HQueryForm::kBellperson);
  for (int round = 0; round < 2; ++round) {
    ExpectSameProof(gpu, k1.pk, k1.circuit, synthetic::Witness(k1.params, rng()), rng, "k1");
    ExpectSameProof(gpu, k2.pk, k2.circuit, synthetic::Witness(k2.params, rng()), rng, "k2");
  }
  const uint64_t both = gpu.Stats().resident_circuit_bytes;
  gpu.ForgetKey(k1.pk);
  EXPECT_LT(gpu.Stats().resident_circuit_bytes, both);
  ExpectSameProof(gpu, k1.pk, k1.circuit, synthetic::Witness(k1.params, rng()), rng, "k1 again");
  EXPECT_EQ(gpu.Stats().resident_circuit_bytes, both);
  // Ordinary and witness-only inputs mix in one batch.
  std::vector<ProverInput> inputs;
  inputs.push_back(PrepareProverInput(k2.pk, k2.circuit, synthetic::Witness(k2.params, rng())));
  inputs.push_back(PrepareProverInput(k2.pk, k2.circuit, synthetic::Witness(k2.params, rng()), {.witness_only = true}));
  std::vector<std::vector<ff::Fr>> publics;
  for (const auto& in : inputs) publics.push_back(in.assignment.PublicInputs());
  std::vector<PendingProof> pending = gpu.ProveStart(k2.pk, inputs);
  const PreparedVerifyingKey pvk = PrepareVerifyingKey(k2.pk.vk);
  for (size_t i = 0; i < pending.size(); ++i) {
    const Proof p = gpu.ProveFinish(k2.pk, std::move(pending[i]), ff::Fr::Random(rng), ff::Fr::Random(rng));
    EXPECT_TRUE(Verify(pvk, p, publics[i])) << i;
  }
}

TEST(WitnessOnlyGpuTest, UnsatisfiedWitnessIsRefusedNamingTheCpuRow) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  const Keyed k = MakeKeyed(12, HQueryForm::kBellperson);
  for (int trial = 0; trial < 3; ++trial) {
    r1cs::Assignment z = synthetic::Witness(k.params, rng());
    z.values[z.num_inputs + rng() % z.num_aux()] += ff::Fr::FromUint64(1 + rng() % 5);
    const auto want = r1cs::FirstUnsatisfied(k.circuit, z.values);
    ASSERT_TRUE(want.has_value());
    std::vector<ProverInput> in;
    in.push_back(PrepareProverInput(k.pk, k.circuit, std::move(z), {.witness_only = true}));
    try {
      gpu.ProveStart(k.pk, in);
      FAIL() << "a broken witness was accepted";
    } catch (const UnsatisfiedWitnessError& e) {
      EXPECT_EQ(e.failure().index, want->index);
      EXPECT_EQ(e.failure().name, want->name);
      EXPECT_EQ(e.failure().a, want->a);
      EXPECT_EQ(e.failure().b, want->b);
      EXPECT_EQ(e.failure().c, want->c);
    }
  }
  // The backend still proves afterwards.
  ExpectSameProof(gpu, k.pk, k.circuit, synthetic::Witness(k.params, rng()), rng, "after refusals");
}

// SnapDeals 1 KiB: the real circuit (2^21 rows), setup on the GPU, its
// partition proved witness-only; bytes equal to the CPU's.
TEST(WitnessOnlyGpuTest, SnapDealsPartitionSameProofAsCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  snapdeals::TestSectorOptions opt;
  opt.sector_bytes = 1024;
  opt.seed = 21;
  const snapdeals::TestSector sector = snapdeals::GenerateTestSector(opt);
  const r1cs::CompiledCircuit circuit = snapdeals::CompileEmptySectorUpdate(sector.shape);
  GpuFixedBaseBatcher batcher;
  const ProvingKey pk = GenerateParameters(circuit, {.fixed_base = &batcher});
  CudaBackend gpu;
  for (size_t i = 0; i < sector.partition_proofs.size(); ++i) {
    const unsigned k = sector.partition_indices[i];
    const snapdeals::CircuitWitness w =
        snapdeals::MakeCircuitWitness(sector.shape, k, sector.commitments, sector.partition_proofs[i]);
    const r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(sector.shape, w);
    ExpectSameProof(gpu, pk, circuit, z, rng, "snapdeals 1KiB k=" + std::to_string(k));
  }
}

}  // namespace
}  // namespace cuzk::cuda
