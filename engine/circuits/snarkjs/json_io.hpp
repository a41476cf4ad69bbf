#pragma once
// The JSON files of snarkjs's Groth16 commands on BLS12-381, written byte for
// byte as snarkjs 0.7 writes them (bfj with {space: 1}: JSON.stringify(v,
// null, 1), one-space indent, no trailing newline; decimal strings of
// canonical integers; affine points with a third coordinate "1"), and read
// back with full validation.
//
//   proof.json:  {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]],
//                 "pi_c": [x, y, "1"], "protocol": "groth16", "curve": "bls12381"}
//   public.json: ["s1", "s2", ...]            public signals, ONE excluded
//                (none: "[\n]", bfj's empty array, where JSON.stringify writes "[]")
//   verification_key.json: {"protocol", "curve", "nPublic", "vk_alpha_1",
//                 "vk_beta_2", "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"}
//                 vk_alphabeta_12 = e(alpha, beta) as [[[c0.c0.c0, c0.c0.c1], ...], [...]]
//                 (Fp12 = Fp6[w], Fp6 = Fp2[v]; ffjavascript's Gt.toObject)
//
// Readers throw FormatError: kMalformed for anything that is not such a file
// (bad JSON, missing field, wrong protocol or curve, wrong lengths,
// non-decimal text), kInvalidValue for numbers that are not field elements
// and points off the curve or outside the subgroup (snarkjs answers "invalid
// proof" for those). A verifying key's bad points are always kMalformed:
// without a key nothing can be verified.
//
//   WriteFileText("proof.json", ProofToJson(proof));
//   groth16::Proof p = ParseProofJson(ReadFileText("proof.json"), "proof.json");
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/groth16/types.hpp"

namespace cuzk::snarkjs {

std::string ProofToJson(const groth16::Proof& proof);
std::string PublicSignalsToJson(std::span<const ff::Fr> signals);
// Computes vk_alphabeta_12 with one pairing. Uses alpha_g1, beta_g2,
// gamma_g2, delta_g2 and ic; nPublic = ic.size() - 1.
std::string VerifyingKeyToJson(const groth16::VerifyingKey& vk);

groth16::Proof ParseProofJson(std::string_view text, const std::string& name);
std::vector<ff::Fr> ParsePublicSignalsJson(std::string_view text, const std::string& name);
// beta_g1 and delta_g1 are not in the file: they stay the point at infinity.
groth16::VerifyingKey ParseVerifyingKeyJson(std::string_view text, const std::string& name);

}  // namespace cuzk::snarkjs
