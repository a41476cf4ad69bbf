// Witness-only proving on CudaBackend (issue 15) against CpuBackend: the
// circuit compact and resident on the device, the witness uploaded as
// classes plus its other values, a/b/c evaluated on the GPU. For the same r,
// s the proof bytes equal the CPU's (ordinary path); it verifies; an
// unsatisfied witness is refused naming the row the CPU names; circuits and
// keys alternate on one backend; snarkjs-form keys (host evaluation); a
// 1 KiB SnapDeals partition (2^21 rows) and a 2 KiB sector; with CUZK_GPU_SLOW=1 all 4
// partitions of an 8 MiB sector. Skipped without a GPU; seed printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cuda/groth16/cuda_backend.hpp"
#include "cuda/msm/fixed_base.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/msm/shifted_bases.hpp"
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
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/evaluate.hpp"
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
  std::printf(
      "  %s: witness-only GPU proof %.1f ms; totals: compaction %.2f ms, upload+expand+eval %.2f ms, "
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

// Prepare builds the H bases' window shifts (CudaBackendOptions::shifted_h)
// when the device has room, and the H MSM runs on them: proofs still equal
// the CPU's. Preparing another key drops the first key's table (its proofs
// stay equal on the plain bases); with shifted_h off no table is built.
TEST(WitnessOnlyGpuTest, ShiftedHBasesGiveTheCpuProof) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const Keyed k1 = MakeKeyed(14, HQueryForm::kBellperson), k2 = MakeKeyed(12, HQueryForm::kBellperson);
  CudaBackend gpu({.shifted_h = true});
  gpu.Prepare(k1.pk, &k1.circuit);
  const CudaBackendStats one = gpu.Stats();
  ASSERT_GT(one.shifted_h_bytes, 0u) << "an H200 has room for a 2^14 table";
  EXPECT_GE(one.shifted_h_window_bits, pippenger::kMinWindowBits);
  EXPECT_EQ(one.shifted_h_bytes, G1ShiftedBases::Bytes(k1.pk.h.size(), one.shifted_h_window_bits));
  EXPECT_GE(one.resident_base_bytes, one.shifted_h_bytes);
  ExpectSameProof(gpu, k1.pk, k1.circuit, synthetic::Witness(k1.params, rng()), rng, "k1 on its shifted H bases");
  EXPECT_EQ(gpu.Stats().shifted_h_msms, one.shifted_h_msms + 1) << "the H MSM ran over the table";
  gpu.Prepare(k2.pk, &k2.circuit);
  EXPECT_EQ(gpu.Stats().shifted_h_bytes, G1ShiftedBases::Bytes(k2.pk.h.size(), gpu.Stats().shifted_h_window_bits))
      << "only the last prepared key keeps a table";
  ExpectSameProof(gpu, k2.pk, k2.circuit, synthetic::Witness(k2.params, rng()), rng, "k2 on its shifted H bases");
  const uint64_t before_drop = gpu.Stats().shifted_h_msms;
  ExpectSameProof(gpu, k1.pk, k1.circuit, synthetic::Witness(k1.params, rng()), rng, "k1, table dropped");
  EXPECT_EQ(gpu.Stats().shifted_h_msms, before_drop) << "k1's table was dropped: its H MSM ran on the plain bases";
  CudaBackend plain({.shifted_h = false});
  plain.Prepare(k1.pk, &k1.circuit);
  EXPECT_EQ(plain.Stats().shifted_h_bytes, 0u);
  EXPECT_EQ(plain.Stats().shifted_h_window_bits, 0u);
  ExpectSameProof(plain, k1.pk, k1.circuit, synthetic::Witness(k1.params, rng()), rng, "k1 without a table");
  EXPECT_EQ(plain.Stats().shifted_h_msms, 0u);
}

// What the daemon hands the GPU since synthesis reuses its z buffer:
// compact-only inputs (PrepareCompactWitnessInput: no values, only the
// compact witness), on bellperson keys (a/b/c on the GPU) and snarkjs-form
// keys (host evaluation after a host expansion); and Prepare given the
// circuit's compact form (as from a compact image) instead of building it.
// Proofs equal the CPU's for the same r, s.
TEST(WitnessOnlyGpuTest, CompactOnlyInputsAndAGivenCompactFormGiveTheCpuProof) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  CpuBackend cpu;
  auto check = [&](const Keyed& k, const std::string& what) {
    const r1cs::Assignment z = synthetic::Witness(k.params, rng());
    const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
    const Proof want = ProveWithRandomness(cpu, k.pk, k.circuit, z, r, s);
    ProverInput in = PrepareCompactWitnessInput(k.pk, k.circuit, z.num_inputs, z.values);
    ASSERT_TRUE(in.assignment.values.empty()) << what;
    std::vector<PendingProof> pending = gpu.ProveStart(k.pk, std::span<ProverInput>(&in, 1));
    const Proof got = gpu.ProveFinish(k.pk, std::move(pending.at(0)), r, s);
    EXPECT_EQ(EncodeProof(got), EncodeProof(want)) << what;
  };
  const Keyed k10 = MakeKeyed(10, HQueryForm::kBellperson), k14 = MakeKeyed(14, HQueryForm::kBellperson);
  check(k10, "compact-only 2^10");
  // A form Prepare would not build itself (a 2-entry table: every other
  // coefficient escapes), so the device's bytes show which one it took.
  const r1cs::CompactCircuit cc = r1cs::Compact(k14.circuit, {.max_table = 2});
  ASSERT_NE(cc.Bytes(), r1cs::Compact(k14.circuit).Bytes());
  const uint64_t before = gpu.Stats().resident_circuit_bytes;
  gpu.Prepare(k14.pk, &k14.circuit, &cc);
  EXPECT_EQ(gpu.Stats().resident_circuit_bytes - before, cc.Bytes()) << "Prepare uploaded the form it was given";
  EXPECT_TRUE(gpu.HoldsOnDevice(k14.pk, &k14.circuit));
  check(k14, "compact-only 2^14 after Prepare with a given compact form");
  check(MakeKeyed(11, HQueryForm::kSnarkjsOddCoset), "compact-only snarkjs form 2^11 (host evaluation)");
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
    // A change can leave every row holding (a bit b = 0 raised by 1 still
    // satisfies b * (1 - b) = 0): such a change is undone and another drawn,
    // so the witness the backend sees is surely broken.
    std::optional<r1cs::ConstraintFailure> want;
    for (int attempt = 0; !want.has_value(); ++attempt) {
      ASSERT_LT(attempt, 1000) << "no aux change that breaks a row";
      const uint64_t var = z.num_inputs + rng() % z.num_aux();
      const ff::Fr delta = ff::Fr::FromUint64(1 + rng() % 5);
      z.values[var] += delta;
      want = r1cs::FirstUnsatisfied(k.circuit, z.values);
      if (!want.has_value()) z.values[var] -= delta;
    }
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

// SnapDeals 1 KiB (a test size, 2^21 rows) and 2 KiB (Filecoin's smallest
// sector): the real circuit, setup on the GPU, every partition proved
// witness-only; bytes equal to the CPU's.
void ExpectSnapDealsSameProofAsCpu(uint64_t sector_bytes, uint64_t seed) {
  auto rng = test::SeededRng();
  snapdeals::TestSectorOptions opt;
  opt.sector_bytes = sector_bytes;
  opt.seed = seed;
  const snapdeals::TestSector sector = snapdeals::GenerateTestSector(opt);
  const r1cs::CompiledCircuit circuit = snapdeals::CompileEmptySectorUpdate(sector.shape);
  GpuFixedBaseBatcher batcher;
  const ProvingKey pk = GenerateParameters(circuit, {.fixed_base = &batcher});
  CudaBackend gpu;
  ASSERT_FALSE(sector.partition_proofs.empty());
  for (size_t i = 0; i < sector.partition_proofs.size(); ++i) {
    const unsigned k = sector.partition_indices[i];
    const snapdeals::CircuitWitness w =
        snapdeals::MakeCircuitWitness(sector.shape, k, sector.commitments, sector.partition_proofs[i]);
    const r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(sector.shape, w);
    ExpectSameProof(gpu, pk, circuit, z, rng,
                    "snapdeals " + std::to_string(sector_bytes) + " bytes k=" + std::to_string(k));
  }
}

TEST(WitnessOnlyGpuTest, SnapDealsPartitionSameProofAsCpu) {
  CUZK_REQUIRE_GPU();
  ExpectSnapDealsSameProofAsCpu(1024, 21);
}

TEST(WitnessOnlyGpuTest, SnapDeals2KiBSameProofAsCpu) {
  CUZK_REQUIRE_GPU();
  ExpectSnapDealsSameProofAsCpu(2048, 22);
}

// SnapDeals 8 MiB, all 4 partitions (2^24 rows): witness-only proofs equal
// the ordinary GPU path's and the CPU's for the same r, s, and verify; prints the witness-only steps' figures. Minutes
// of setup and CPU proving: runs only with CUZK_GPU_SLOW=1.
TEST(WitnessOnlyGpuTest, SnapDeals8MiBAllPartitions) {
  CUZK_REQUIRE_GPU();
  if (!std::getenv("CUZK_GPU_SLOW")) GTEST_SKIP() << "set CUZK_GPU_SLOW=1 (8 MiB setup and proofs: minutes)";
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  auto rng = test::SeededRng();
  auto t0 = Clock::now();
  snapdeals::TestSectorOptions opt;
  opt.sector_bytes = uint64_t(8) << 20;
  opt.seed = 8;
  const snapdeals::TestSector sector = snapdeals::GenerateTestSector(opt);
  std::printf("  8MiB: gen-vanilla %.0f ms\n", ms_since(t0));
  t0 = Clock::now();
  const r1cs::CompiledCircuit circuit = snapdeals::CompileEmptySectorUpdate(sector.shape);
  std::printf("  8MiB: compile %.0f ms, %llu constraints, %llu variables, nonzeros A/B/C %zu/%zu/%zu\n", ms_since(t0),
              (unsigned long long)circuit.num_constraints(), (unsigned long long)circuit.num_variables(),
              circuit.a.nonzeros(), circuit.b.nonzeros(), circuit.c.nonzeros());
  t0 = Clock::now();
  const r1cs::CompactCircuit cc = r1cs::Compact(circuit);
  std::printf(
      "  8MiB: Compact %.0f ms: %zu table entries, %zu escapes, %zu bytes (host CSR %zu bytes)\n", ms_since(t0),
      cc.coefficients.size(),
      cc.a.escape_positions.size() + cc.b.escape_positions.size() + cc.c.escape_positions.size(), cc.Bytes(),
      (circuit.a.nonzeros() + circuit.b.nonzeros() + circuit.c.nonzeros()) * 36 + 3 * 8 * circuit.num_constraints());
  t0 = Clock::now();
  GpuFixedBaseBatcher batcher;
  const ProvingKey pk = GenerateParameters(circuit, {.fixed_base = &batcher});
  std::printf("  8MiB: setup %.0f ms (domain %llu)\n", ms_since(t0), (unsigned long long)pk.domain_size());
  const PreparedVerifyingKey pvk = PrepareVerifyingKey(pk.vk);
  CudaBackend gpu({.shifted_h = true});
  // As the daemon does after a load (with gpus.shifted_h_bases on): bases,
  // circuit and the H bases' window shifts (19.3 GB at c = 22 for 2^24 - 1
  // points: the H MSM runs on them).
  t0 = Clock::now();
  gpu.Prepare(pk, &circuit, &cc);
  const CudaBackendStats prepared = gpu.Stats();
  std::printf("  8MiB: Prepare %.0f ms (H shifts %.0f ms, %llu bytes at c = %u)\n", ms_since(t0),
              prepared.prepare_shift_ms, (unsigned long long)prepared.shifted_h_bytes, prepared.shifted_h_window_bits);
  EXPECT_GT(prepared.shifted_h_bytes, 0u) << "an H200 has room for the 8 MiB table";
  CudaBackend unprepared;  // partition 0 also on the plain H path (the default), bases uploaded by the proof
  for (size_t i = 0; i < sector.partition_proofs.size(); ++i) {
    const unsigned k = sector.partition_indices[i];
    t0 = Clock::now();
    const snapdeals::CircuitWitness w =
        snapdeals::MakeCircuitWitness(sector.shape, k, sector.commitments, sector.partition_proofs[i]);
    r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(sector.shape, w);
    const double witness_ms = ms_since(t0);
    const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
    t0 = Clock::now();
    const Proof ordinary = ProveWithRandomness(gpu, pk, circuit, z, r, s);  // host a/b/c + GPU
    const double ordinary_ms = ms_since(t0);
    if (i == 0) {
      EXPECT_EQ(EncodeProof(ProveWithRandomness(unprepared, pk, circuit, z, r, s, {.witness_only = true})),
                EncodeProof(ordinary))
          << "partition " << k << " without Prepare or a table";
      EXPECT_EQ(unprepared.Stats().shifted_h_msms, 0u);
    }
    const CudaBackendStats before = gpu.Stats();
    t0 = Clock::now();
    const Proof witness_only = ProveWithRandomness(gpu, pk, circuit, z, r, s, {.witness_only = true});
    const double witness_only_ms = ms_since(t0);
    const CudaBackendStats after = gpu.Stats();
    EXPECT_EQ(EncodeProof(witness_only), EncodeProof(ordinary)) << "partition " << k;
    EXPECT_TRUE(
        Verify(pvk, witness_only, snapdeals::PartitionPublicInputs(sector.shape, k, sector.commitments).AsArray()))
        << "partition " << k;
    std::printf(
        "  8MiB k=%u: witness %.0f ms; ordinary prove (host a/b/c + GPU) %.0f ms; witness-only prove %.0f ms "
        "(compaction %.1f ms, upload+expand+eval+check %.1f ms, %llu compact witness bytes for %zu values); "
        "circuit resident %llu bytes\n",
        k, witness_ms, ordinary_ms, witness_only_ms, after.compact_witness_ms - before.compact_witness_ms,
        after.abc_eval_ms - before.abc_eval_ms,
        (unsigned long long)(after.compact_witness_bytes - before.compact_witness_bytes), z.values.size(),
        (unsigned long long)after.resident_circuit_bytes);
    CpuBackend cpu;
    t0 = Clock::now();
    EXPECT_EQ(EncodeProof(ProveWithRandomness(cpu, pk, circuit, std::move(z), r, s)), EncodeProof(witness_only))
        << "partition " << k;
    std::printf("  8MiB k=%u: CPU proof %.0f ms (equal bytes checked)\n", k, ms_since(t0));
  }
}

// Two lanes (CudaBackendOptions::lanes, the daemon's two GPU workers): four
// threads prove at once on one backend, so evaluations and NTTs of one lane
// run beside the other's MSMs; every proof equals the CPU's for its r, s.
// Prepare holds the set on the device, so HoldsOnDevice; each proof's steps
// are reported in order.
TEST(WitnessOnlyGpuTest, ConcurrentLanesGiveTheCpuProofs) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const Keyed k = MakeKeyed(14, HQueryForm::kBellperson);
  CudaBackend gpu({.lanes = 2});
  EXPECT_FALSE(gpu.HoldsOnDevice(k.pk, &k.circuit));
  gpu.Prepare(k.pk, &k.circuit);
  EXPECT_TRUE(gpu.HoldsOnDevice(k.pk, &k.circuit));
  EXPECT_TRUE(gpu.HoldsOnDevice(k.pk, nullptr));
  CpuBackend cpu;
  EXPECT_FALSE(cpu.HoldsOnDevice(k.pk, nullptr));

  constexpr int kThreads = 4, kEach = 3;
  struct Case {
    r1cs::Assignment z;
    ff::Fr r, s;
    ProofBytes want{};
  };
  std::vector<Case> cases;
  for (int i = 0; i < kThreads * kEach; ++i) {
    Case c{synthetic::Witness(k.params, rng()), ff::Fr::Random(rng), ff::Fr::Random(rng)};
    c.want = EncodeProof(ProveWithRandomness(cpu, k.pk, k.circuit, c.z, c.r, c.s));
    cases.push_back(std::move(c));
  }
  std::vector<ProofBytes> got(cases.size());
  std::vector<std::vector<std::string>> step_names(cases.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int j = 0; j < kEach; ++j) {
        const size_t i = size_t(t * kEach + j);
        // Compacted here, as the daemon's synthesis threads do (no compact_z step on the GPU's side).
        ProverInput in =
            PrepareProverInput(k.pk, k.circuit, cases[i].z, {.witness_only = true, .compact_witness = true});
        std::vector<PendingProof> pending = gpu.ProveStart(k.pk, std::span(&in, 1));
        for (const auto& [name, ms] : pending[0].steps) step_names[i].emplace_back(name);
        got[i] = EncodeProof(gpu.ProveFinish(k.pk, std::move(pending[0]), cases[i].r, cases[i].s));
      }
    });
  }
  for (auto& t : threads) t.join();
  const std::vector<std::string> expected_steps = {"lane_wait", "bases",    "circuit", "z_expand",     "abc_eval",
                                                   "h_ntt",     "msm_wait", "msm_h",   "witness_wait", "msm_a",
                                                   "msm_b_g1",  "msm_l",    "msm_b_g2"};
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(got[i], cases[i].want) << "proof " << i;
    EXPECT_EQ(step_names[i], expected_steps) << "proof " << i;
  }
  EXPECT_EQ(gpu.Stats().witness_only_proofs, uint64_t(kThreads * kEach));
}

}  // namespace
}  // namespace cuzk::cuda
