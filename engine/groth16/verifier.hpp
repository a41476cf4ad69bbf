#pragma once
// Groth16 verification (bellperson's verify_proof and verify_proofs_batch).
//
//   e(A, B) == e(alpha, beta) * e(IC(x), gamma) * e(C, delta),
//   IC(x) = ic_0 + sum_{i >= 1} x_i ic_i,
// checked as one multi-pairing e(A, B) e(IC, -gamma) e(C, -delta) against the
// precomputed e(alpha, beta): 3 Miller loops and one final exponentiation.
//
// Public inputs exclude ONE: their count must be vk.ic.size() - 1
// (std::invalid_argument otherwise). Proof points must be in G1/G2 (on the
// curve and in the subgroup): DecodeProof guarantees it for bytes off the
// wire; the pairing does not check.
//
//   PreparedVerifyingKey pvk = PrepareVerifyingKey(vk);
//   bool ok = Verify(pvk, proof, public_inputs);
//
// Batches: for proofs k with random 128-bit weights r_k (from the OS CSPRNG)
//   prod_k e(r_k A_k, B_k) == e(alpha, beta)^(sum r_k) e(sum r_k IC_k, gamma) e(sum r_k C_k, delta)
// one multi-pairing of n + 2 pairs. A batch with an invalid proof passes
// with probability about 2^-128; on failure, verify one by one to find it.
#include <span>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fp12.hpp"
#include "engine/ff/fr.hpp"
#include "engine/groth16/types.hpp"

namespace cuzk::groth16 {

struct PreparedVerifyingKey {
  ff::Fp12 alpha_beta;  // e(alpha_g1, beta_g2)
  ec::G2Affine neg_gamma_g2, neg_delta_g2;
  std::vector<ec::G1Affine> ic;
};

PreparedVerifyingKey PrepareVerifyingKey(const VerifyingKey& vk);

// IC(x) = ic_0 + sum x_i ic_i; std::invalid_argument on a count mismatch.
ec::G1Jacobian PublicInputCommitment(const PreparedVerifyingKey& pvk, std::span<const ff::Fr> public_inputs);

bool Verify(const PreparedVerifyingKey& pvk, const Proof& proof, std::span<const ff::Fr> public_inputs);

// proofs[k] with public_inputs[k]; sizes must match (std::invalid_argument).
// An empty batch is valid.
bool VerifyBatch(const PreparedVerifyingKey& pvk, std::span<const Proof> proofs,
                 std::span<const std::vector<ff::Fr>> public_inputs);

}  // namespace cuzk::groth16
