#include "engine/groth16/cpu_backend.hpp"

#include "engine/groth16/h_polynomial.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/msm/msm.hpp"

namespace cuzk::groth16 {

using ff::Fr;

std::vector<PendingProof> CpuBackend::ProveStart(const ProvingKey& pk, std::span<ProverInput> inputs) {
  // A compact-only witness (PrepareCompactWitnessInput) is made whole first:
  // the MSMs read z, and so does CheckProverInput.
  std::vector<bool> came_compact(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    came_compact[i] = inputs[i].assignment.values.empty() && inputs[i].compact_z.has_value();
    ExpandCompactWitness(inputs[i], options_.threads);
  }
  for (const auto& in : inputs) CheckProverInput(pk, in);
  std::vector<PendingProof> out;
  out.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) out.push_back(StartOne(pk, inputs[i], came_compact[i]));
  return out;
}

PendingProof CpuBackend::StartOne(const ProvingKey& pk, ProverInput& in, bool came_compact) {
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
  if (came_compact) {
    // z was expanded here only for these MSMs: the G2 one runs now too, so
    // that z goes before ProveStart returns (a compact witness is what the
    // daemon keeps queued; a whole z must not wait for the finalizer).
    p.b2_sum = msm::MsmG2Density(pk.b_g2, z, pk.b_density, mo);
    in.assignment = {};
  } else {
    p.assignment = std::move(in.assignment);
  }
  return p;
}

Proof CpuBackend::ProveFinish(const ProvingKey& pk, PendingProof&& pending, const Fr& r, const Fr& s) {
  const msm::MsmOptions mo{.threads = options_.threads};
  const ec::G2Jacobian b2 =
      pending.b2_sum ? *pending.b2_sum : msm::MsmG2Density(pk.b_g2, pending.assignment.values, pk.b_density, mo);
  Proof proof = AssembleProof(pk.vk, pending, b2, r, s);
  pending.assignment = {};
  return proof;
}

}  // namespace cuzk::groth16
