#pragma once
// The 192-byte Groth16 proof of bellperson: A (G1 compressed, 48 bytes) ||
// B (G2 compressed, 96) || C (G1 compressed, 48), ZCash encoding
// (engine/ec/encoding.hpp). Readers reject the point at infinity and points
// outside the prime-order subgroups (bellperson's Proof::read), so a decoded
// proof is safe to hand to the pairing. Filecoin concatenates the proofs of
// a sector's partitions.
//
//   ProofBytes bytes = EncodeProof(proof);
//   std::string why;
//   std::optional<Proof> p = DecodeProof(bytes, &why);
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/groth16/types.hpp"

namespace cuzk::groth16 {

inline constexpr size_t kProofBytes = 192;
using ProofBytes = std::array<uint8_t, kProofBytes>;

ProofBytes EncodeProof(const Proof& proof);

// nullopt with *error (if given) set to e.g. "proof point B: point is not in
// the subgroup" or "proof is 191 bytes, expected 192".
std::optional<Proof> DecodeProof(std::span<const uint8_t> bytes, std::string* error = nullptr);

// Concatenated proofs (a multiple of 192 bytes); the error names the proof index.
std::optional<std::vector<Proof>> DecodeProofs(std::span<const uint8_t> bytes, std::string* error = nullptr);

}  // namespace cuzk::groth16
