// CudaBackend (cuda/groth16/cuda_backend.hpp) against CpuBackend: for the same
// key, witness and blinding r, s the two backends must give the same proof
// (compared as the 192-byte encoding), and it must verify. Synthetic circuits
// of several sizes, both H layouts (bellperson on the GPU, snarkjs through
// the CPU H path), keys alternating on one backend (resident bases cache),
// ProveBatch, the split ProveStart/ProveFinish sums (B_g2 on the GPU and, as
// an option, on the CPU). Skipped without a GPU.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/groth16/cuda_backend.hpp"
#include "cuda/groth16/h_kernels.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/h_polynomial.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/msm/msm.hpp"
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
  PreparedVerifyingKey pvk;
};

Keyed MakeKeyed(unsigned log_size, HQueryForm form) {
  Keyed k;
  k.params = {.log_size = log_size, .num_public = 3, .lc_width = 40, .lc_period = 8};
  k.circuit = synthetic::Record(k.params);
  k.pk = GenerateParameters(k.circuit, {.h_form = form});
  k.pvk = PrepareVerifyingKey(k.pk.vk);
  return k;
}

void ExpectSameProof(Backend& gpu, const Keyed& k, uint64_t witness_seed, std::mt19937_64& rng) {
  CpuBackend cpu;
  const ff::Fr r = ff::Fr::Random(rng), s = ff::Fr::Random(rng);
  r1cs::Assignment z = synthetic::Witness(k.params, witness_seed);
  const std::vector<ff::Fr> x = z.PublicInputs();
  const Proof want = ProveWithRandomness(cpu, k.pk, k.circuit, z, r, s);
  const Proof got = ProveWithRandomness(gpu, k.pk, k.circuit, std::move(z), r, s);
  EXPECT_EQ(EncodeProof(got), EncodeProof(want)) << "log_size=" << k.params.log_size;
  EXPECT_TRUE(Verify(k.pvk, got, x)) << "log_size=" << k.params.log_size;
}

TEST(Groth16GpuTest, SameProofAsCpuForTheSameBlinding) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  for (unsigned log_size : {5u, 10u, 14u, 17u}) {
    ExpectSameProof(gpu, MakeKeyed(log_size, HQueryForm::kBellperson), rng(), rng);
  }
  ExpectSameProof(gpu, MakeKeyed(11, HQueryForm::kSnarkjsOddCoset), rng(), rng);
}

// The device's six-NTT H (h_kernels.hpp) against the CPU's bellperson H (the
// m - 1 coefficients a key uses) and the device's seven-NTT order (all m) on
// random a, b, c: the identity it rests on holds for any vectors, not only
// satisfied ones, so random inputs test all of it. One stream here; the
// backend's three-stream order is covered by the proofs of
// SameProofAsCpuForTheSameBlinding.
TEST(Groth16GpuTest, SixNttHMatchesTheCpuOnRandomVectors) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  NttEngine ntt(0);
  Stream stream;
  for (unsigned log_m : {1u, 2u, 5u, 10u, 13u, 17u, 20u}) {
    const size_t m = size_t(1) << log_m;
    std::vector<ff::Fr> abc[3];
    DeviceBuffer<ff::Fr> six[3], seven[3];
    for (int k = 0; k < 3; ++k) {
      abc[k].resize(m);
      for (auto& x : abc[k]) x = ff::Fr::Random(rng);
      six[k] = DeviceBuffer<ff::Fr>(m);
      seven[k] = DeviceBuffer<ff::Fr>(m);
      six[k].CopyFromHost(abc[k], stream);
      seven[k].CopyFromHost(abc[k], stream);
      EnqueueHTransform(ntt, k, six[k].data(), m, stream);
    }
    EnqueueHCombine(ntt, six[0].data(), six[1].data(), six[2].data(), m, stream);
    EnqueueHSevenNtts(ntt, seven[0].data(), seven[1].data(), seven[2].data(), m, stream);
    std::vector<ff::Fr> got(m), reference(m);
    six[0].CopyToHost(got, stream);
    seven[0].CopyToHost(reference, stream);
    stream.Synchronize();
    const std::vector<ff::Fr> want = ComputeHScalars(HQueryForm::kBellperson, abc[0], abc[1], abc[2]);
    ASSERT_EQ(want.size(), m - 1);
    for (size_t i = 0; i < m - 1; ++i) ASSERT_EQ(got[i], want[i]) << "log_m=" << log_m << " i=" << i;
    EXPECT_EQ(got, reference) << "log_m=" << log_m;
  }
}

TEST(Groth16GpuTest, KeysAlternateOnOneBackend) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  const Keyed k1 = MakeKeyed(9, HQueryForm::kBellperson), k2 = MakeKeyed(12, HQueryForm::kBellperson);
  for (int round = 0; round < 2; ++round) {
    ExpectSameProof(gpu, k1, rng(), rng);
    ExpectSameProof(gpu, k2, rng(), rng);
  }
  gpu.ForgetKey(k1.pk);
  ExpectSameProof(gpu, k1, rng(), rng);
}

TEST(Groth16GpuTest, SplitSumsAndBatchMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu;
  CpuBackend cpu;
  const Keyed k = MakeKeyed(13, HQueryForm::kBellperson);
  const uint64_t seed = rng();
  std::vector<ProverInput> in_gpu, in_cpu;
  in_gpu.push_back(PrepareProverInput(k.pk, k.circuit, synthetic::Witness(k.params, seed)));
  in_cpu.push_back(PrepareProverInput(k.pk, k.circuit, synthetic::Witness(k.params, seed)));
  const PendingProof g = std::move(gpu.ProveStart(k.pk, in_gpu)[0]);
  const PendingProof c = std::move(cpu.ProveStart(k.pk, in_cpu)[0]);
  EXPECT_EQ(g.h_sum.ToAffine(), c.h_sum.ToAffine());
  EXPECT_EQ(g.a_sum.ToAffine(), c.a_sum.ToAffine());
  EXPECT_EQ(g.b1_sum.ToAffine(), c.b1_sum.ToAffine());
  EXPECT_EQ(g.l_sum.ToAffine(), c.l_sum.ToAffine());
  // B_g2 on the GPU against the CPU's G2 MSM over the same z (CpuBackend
  // leaves it to ProveFinish, so it is computed here from the kept z).
  ASSERT_TRUE(g.b2_sum.has_value());
  EXPECT_FALSE(c.b2_sum.has_value());
  EXPECT_TRUE(g.assignment.values.empty());  // nothing left for ProveFinish to read
  const ec::G2Jacobian b2_cpu = msm::MsmG2Density(k.pk.b_g2, c.assignment.values, k.pk.b_density, {});
  EXPECT_EQ(g.b2_sum->ToAffine(), b2_cpu.ToAffine());

  std::vector<r1cs::Assignment> witnesses;
  for (int i = 0; i < 3; ++i) witnesses.push_back(synthetic::Witness(k.params, rng()));
  std::vector<std::vector<ff::Fr>> publics;
  for (const auto& z : witnesses) publics.push_back(z.PublicInputs());
  const std::vector<Proof> proofs = ProveBatch(gpu, k.pk, k.circuit, std::move(witnesses));
  ASSERT_EQ(proofs.size(), 3u);
  for (size_t i = 0; i < proofs.size(); ++i) EXPECT_TRUE(Verify(k.pvk, proofs[i], publics[i])) << i;
}

TEST(Groth16GpuTest, G2OnTheCpuGivesTheSameProof) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  CudaBackend gpu({.g2_on_gpu = false});
  ExpectSameProof(gpu, MakeKeyed(12, HQueryForm::kBellperson), rng(), rng);
}

// Bases that do not fit on the device are streamed from host memory: none
// resident, and only H resident, in slices of 1000 bases (several per
// section); the proofs stay identical to the CPU's.
TEST(Groth16GpuTest, StreamedBasesGiveTheSameProof) {
  CUZK_REQUIRE_GPU();
  auto rng = test::SeededRng();
  const Keyed k = MakeKeyed(13, HQueryForm::kBellperson);
  CudaBackend none({.resident_bases_bytes = 0, .stream_slice = 1000});
  ExpectSameProof(none, k, rng(), rng);
  EXPECT_EQ(none.Stats().resident_base_bytes, 0u);
  EXPECT_EQ(none.Stats().streamed_msms, 5u);
  const size_t h_bytes = k.pk.h.size() * 96;
  CudaBackend only_h({.resident_bases_bytes = h_bytes, .stream_slice = 1000});
  ExpectSameProof(only_h, k, rng(), rng);
  ExpectSameProof(only_h, k, rng(), rng);
  EXPECT_EQ(only_h.Stats().resident_base_bytes, h_bytes);
  EXPECT_EQ(only_h.Stats().streamed_msms, 8u);  // A, B_g1, L, B_g2 on each of the two proofs
  CudaBackend all;
  ExpectSameProof(all, k, rng(), rng);
  EXPECT_EQ(all.Stats().streamed_msms, 0u);
  EXPECT_GT(all.Stats().resident_base_bytes, h_bytes);
}

TEST(Groth16GpuTest, MissingDeviceIsAClearError) {
  CUZK_REQUIRE_GPU();
  EXPECT_THROW(CudaBackend({.device = 1000}), std::runtime_error);
}

}  // namespace
}  // namespace cuzk::cuda
