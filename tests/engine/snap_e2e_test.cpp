// SnapDeals end to end on the CPU: a generated sector's vanilla proof, the
// compiled EmptySectorUpdate circuit, a local Groth16 setup for it
// (bellperson-form key), the native witness, the proof, and our verifier with
// the section-4 public inputs: accepted as is, rejected with any public input
// changed. The proof also survives the 192-byte encoding and the key the
// .vk/.params file round trip.
//
// Cost: the circuit is 2^21 rows for 1 and 2 KiB alike, so the setup (2^21 - 1
// h points plus one l/a/b point per variable) dominates; times are printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"

namespace cuzk::snapdeals {
namespace {

using ff::Fr;

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void RunEndToEnd(uint64_t sector_bytes, uint64_t seed) {
  auto t0 = std::chrono::steady_clock::now();
  TestSectorOptions opt;
  opt.sector_bytes = sector_bytes;
  opt.seed = seed;
  TestSector sector = GenerateTestSector(opt);
  const auto& shape = sector.shape;
  std::printf("%s: gen-vanilla %.2f s\n", shape.Name().c_str(), SecondsSince(t0));

  t0 = std::chrono::steady_clock::now();
  r1cs::CompiledCircuit circuit = CompileEmptySectorUpdate(shape);
  std::printf("  compile %.2f s (%llu rows, %llu aux)\n", SecondsSince(t0),
              (unsigned long long)circuit.num_constraints(), (unsigned long long)circuit.num_aux);
  ASSERT_EQ(circuit.num_inputs, 5u);

  t0 = std::chrono::steady_clock::now();
  groth16::ProvingKey pk = groth16::GenerateParameters(circuit);
  std::printf("  setup %.2f s (domain %llu)\n", SecondsSince(t0), (unsigned long long)pk.domain_size());
  EXPECT_EQ(pk.vk.ic.size(), 5u);
  EXPECT_EQ(groth16::SerializeVerifyingKey(pk.vk).size(), 1348u);  // spec section 9

  groth16::CpuBackend cpu;
  const groth16::PreparedVerifyingKey pvk = groth16::PrepareVerifyingKey(pk.vk);
  for (size_t i = 0; i < sector.partition_proofs.size(); ++i) {
    const unsigned k = sector.partition_indices[i];
    CircuitWitness w = MakeCircuitWitness(shape, k, sector.commitments, sector.partition_proofs[i]);
    t0 = std::chrono::steady_clock::now();
    r1cs::Assignment z = witness::ComputeEmptySectorUpdateWitness(shape, w);
    std::printf("  k=%u witness %.2f s\n", k, SecondsSince(t0));

    t0 = std::chrono::steady_clock::now();
    groth16::Proof proof = groth16::Prove(cpu, pk, circuit, std::move(z));
    std::printf("  k=%u prove %.2f s\n", k, SecondsSince(t0));

    // The 192-byte encoding round trip.
    groth16::ProofBytes bytes = groth16::EncodeProof(proof);
    auto decoded = groth16::DecodeProof(bytes);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(*decoded, proof);

    const auto inputs = PartitionPublicInputs(shape, k, sector.commitments).AsArray();
    t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(groth16::Verify(pvk, *decoded, inputs)) << "partition " << k;
    std::printf("  k=%u verify %.3f s\n", k, SecondsSince(t0));
    // Any public input changed: k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
    for (size_t j = 0; j < inputs.size(); ++j) {
      auto changed = inputs;
      changed[j] += Fr::One();
      EXPECT_FALSE(groth16::Verify(pvk, *decoded, changed)) << "public input " << j + 1 << " changed";
    }
    // Another sector's commitments (all three at once) are rejected too.
    filecoin::Commitments other = sector.commitments;
    std::swap(other.comm_r_old, other.comm_r_new);
    EXPECT_FALSE(groth16::Verify(pvk, *decoded, PartitionPublicInputs(shape, k, other).AsArray()));
  }

  // The key through the bellperson files: the verifier from the .vk file accepts the same proofs.
  const auto dir = std::filesystem::temp_directory_path() / ("snap_e2e_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  t0 = std::chrono::steady_clock::now();
  groth16::WriteVerifyingKey(pk.vk, (dir / "key.vk").string());
  groth16::WriteParams(pk, (dir / "key.params").string());
  groth16::ProvingKey read = groth16::ReadParamsForCircuit((dir / "key.params").string(), circuit);
  std::printf("  params write+read %.2f s (%llu bytes)\n", SecondsSince(t0),
              (unsigned long long)std::filesystem::file_size(dir / "key.params"));
  EXPECT_EQ(read.vk, pk.vk);
  EXPECT_EQ(groth16::ReadVerifyingKey((dir / "key.vk").string(), 5), pk.vk);
  EXPECT_EQ(groth16::ParamsShape::Of(read), groth16::ParamsShape::ForCircuit(circuit));
  std::filesystem::remove_all(dir);
}

TEST(SnapE2E, OneKiBSectorProvesAndVerifies) { RunEndToEnd(1024, 21); }

// tests/snap_slow (ctest -L slow): the production 2 KiB shape.
#ifdef CUZK_SNAP_SLOW_TESTS
TEST(SnapSlowE2E, TwoKiBSectorProvesAndVerifies) { RunEndToEnd(2048, 22); }
#endif

}  // namespace
}  // namespace cuzk::snapdeals
