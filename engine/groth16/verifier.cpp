#include "engine/groth16/verifier.hpp"

#include <stdexcept>
#include <string>

#include "engine/ec/pairing.hpp"
#include "engine/groth16/os_rng.hpp"

namespace cuzk::groth16 {

using ec::G1Affine;
using ec::G1Jacobian;
using ff::Fr;

PreparedVerifyingKey PrepareVerifyingKey(const VerifyingKey& vk) {
  if (vk.ic.empty()) throw std::invalid_argument("verifying key has no IC points");
  PreparedVerifyingKey p;
  p.alpha_beta = ec::Pairing(vk.alpha_g1, vk.beta_g2);
  p.neg_gamma_g2 = -vk.gamma_g2;
  p.neg_delta_g2 = -vk.delta_g2;
  p.ic = vk.ic;
  return p;
}

G1Jacobian PublicInputCommitment(const PreparedVerifyingKey& pvk, std::span<const Fr> x) {
  if (x.size() + 1 != pvk.ic.size()) {
    throw std::invalid_argument("Groth16 verify: " + std::to_string(x.size()) +
                                " public inputs, the verifying key expects " + std::to_string(pvk.ic.size() - 1) +
                                " (ONE excluded)");
  }
  G1Jacobian acc = G1Jacobian::FromAffine(pvk.ic[0]);
  for (size_t i = 0; i < x.size(); ++i) acc += G1Jacobian::FromAffine(pvk.ic[i + 1]) * x[i];
  return acc;
}

bool Verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const Fr> public_inputs) {
  G1Affine ic = PublicInputCommitment(pvk, public_inputs).ToAffine();
  const ec::PairingInput pairs[] = {{proof.a, proof.b}, {ic, pvk.neg_gamma_g2}, {proof.c, pvk.neg_delta_g2}};
  return ec::MultiPairing(pairs) == pvk.alpha_beta;
}

bool VerifyBatch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                 std::span<const std::vector<Fr>> public_inputs) {
  if (proofs.size() != public_inputs.size()) {
    throw std::invalid_argument("Groth16 batch verify: " + std::to_string(proofs.size()) + " proofs but " +
                                std::to_string(public_inputs.size()) + " public input sets");
  }
  if (proofs.empty()) return true;
  OsRng rng;
  std::vector<ec::PairingInput> pairs;
  pairs.reserve(proofs.size() + 2);
  G1Jacobian ic_sum = G1Jacobian::Infinity(), c_sum = G1Jacobian::Infinity();
  Fr weight_sum;
  for (size_t k = 0; k < proofs.size(); ++k) {
    // 128-bit weights: enough for 2^-128 soundness, half the cost of full scalars.
    Fr r = Fr::FromCanonical(ff::Limbs<4>{rng(), rng(), 0, 0});
    if (r.IsZero()) r = Fr::One();
    weight_sum += r;
    pairs.push_back({(G1Jacobian::FromAffine(proofs[k].a) * r).ToAffine(), proofs[k].b});
    ic_sum += PublicInputCommitment(pvk, public_inputs[k]) * r;
    c_sum += G1Jacobian::FromAffine(proofs[k].c) * r;
  }
  pairs.push_back({ic_sum.ToAffine(), pvk.neg_gamma_g2});
  pairs.push_back({c_sum.ToAffine(), pvk.neg_delta_g2});
  const auto e = weight_sum.ToCanonical();
  return ec::MultiPairing(pairs) == pvk.alpha_beta.Pow(std::span<const uint64_t>(e.data(), e.size()));
}

}  // namespace cuzk::groth16
