#include "engine/groth16/proof_encoding.hpp"

#include "engine/ec/encoding.hpp"

namespace cuzk::groth16 {

ProofBytes EncodeProof(const Proof& proof) {
  ProofBytes out;
  std::span<uint8_t> s(out);
  ec::EncodeCompressed(proof.a, s.subspan<0, ec::kG1CompressedBytes>());
  ec::EncodeCompressed(proof.b, s.subspan<ec::kG1CompressedBytes, ec::kG2CompressedBytes>());
  ec::EncodeCompressed(proof.c, s.subspan<ec::kG1CompressedBytes + ec::kG2CompressedBytes, ec::kG1CompressedBytes>());
  return out;
}

std::optional<Proof> DecodeProof(std::span<const uint8_t> bytes, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<Proof> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (bytes.size() != kProofBytes) {
    return fail("proof is " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(kProofBytes));
  }
  const ec::DecodeOptions opts{.check_subgroup = true, .allow_infinity = false};
  auto a = ec::DecodeG1Compressed(bytes.subspan(0, 48), opts);
  if (!a.ok()) return fail("proof point A: " + std::string(ec::DecodeErrorMessage(a.error)));
  auto b = ec::DecodeG2Compressed(bytes.subspan(48, 96), opts);
  if (!b.ok()) return fail("proof point B: " + std::string(ec::DecodeErrorMessage(b.error)));
  auto c = ec::DecodeG1Compressed(bytes.subspan(144, 48), opts);
  if (!c.ok()) return fail("proof point C: " + std::string(ec::DecodeErrorMessage(c.error)));
  return Proof{*a.point, *b.point, *c.point};
}

std::optional<std::vector<Proof>> DecodeProofs(std::span<const uint8_t> bytes, std::string* error) {
  if (bytes.empty() || bytes.size() % kProofBytes) {
    if (error)
      *error = std::to_string(bytes.size()) + " bytes is not a positive multiple of " + std::to_string(kProofBytes);
    return std::nullopt;
  }
  std::vector<Proof> out;
  for (size_t k = 0; k < bytes.size() / kProofBytes; ++k) {
    std::string why;
    auto p = DecodeProof(bytes.subspan(k * kProofBytes, kProofBytes), &why);
    if (!p) {
      if (error) *error = "proof " + std::to_string(k) + ": " + why;
      return std::nullopt;
    }
    out.push_back(*p);
  }
  return out;
}

}  // namespace cuzk::groth16
