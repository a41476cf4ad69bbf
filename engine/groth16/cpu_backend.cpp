#include "engine/groth16/cpu_backend.hpp"

#include "engine/groth16/h_polynomial.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/msm/msm.hpp"

namespace cuzk::groth16 {

using ff::Fr;

std::vector<PendingProof> CpuBackend::ProveStart(const ProvingKey& pk, std::span<ProverInput> inputs) {
  for (const auto& in : inputs) CheckProverInput(pk, in);
  std::vector<PendingProof> out;
  out.reserve(inputs.size());
  for (auto& in : inputs) out.push_back(StartOne(pk, in));
  return out;
}

PendingProof CpuBackend::StartOne(const ProvingKey& pk, ProverInput& in) {
  const msm::MsmOptions mo{.threads = options_.threads};
  EvaluateWitnessOnly(pk, in, options_.threads);  // witness-only: a/b/c on the host (the reference)
  in.OwnAbc();                                    // the NTTs run in place on vectors
  std::vector<Fr> h = ComputeHScalars(pk.h_form, in.abc.a, in.abc.b, in.abc.c, options_.threads);
  in.ReleaseAbc();  // a/b/c are spent; free them before the MSMs
  PendingProof p;
  std::span<const Fr> z = in.assignment.values;
  p.h_sum = msm::MsmG1(pk.h, h, mo);
  h = {};
  p.a_sum = msm::MsmG1Density(pk.a, z, pk.a_density, mo);
  p.b1_sum = msm::MsmG1Density(pk.b_g1, z, pk.b_density, mo);
  p.l_sum = msm::MsmG1(pk.l, z.subspan(in.assignment.num_inputs), mo);
  p.assignment = std::move(in.assignment);
  return p;
}

Proof CpuBackend::ProveFinish(const ProvingKey& pk, PendingProof&& pending, const Fr& r, const Fr& s) {
  const msm::MsmOptions mo{.threads = options_.threads};
  ec::G2Jacobian b2 = msm::MsmG2Density(pk.b_g2, pending.assignment.values, pk.b_density, mo);
  Proof proof = AssembleProof(pk.vk, pending, b2, r, s);
  pending.assignment = {};
  return proof;
}

}  // namespace cuzk::groth16
