#pragma once
// bincode 1 (default options: fixed-width little-endian integers, u64 lengths,
// u32 enum variant indices) encoding of a SnapDeals PartitionProof, the bytes
// that Curio sends in SubmitProofRequest.vanilla_proofs (spec section 8).
//
//   std::vector<uint8_t> bytes = WritePartitionProof(proof);
//   PartitionProof back = ReadPartitionProof(bytes, shape);  // throws BincodeError
//
// The reader is for untrusted input: every length and variant is checked against
// the sector shape before anything is allocated, every 32-byte value must be a
// canonical Fr, trailing bytes are refused, and errors name the field
// ("challenge_proofs[3].proof_r_old.base_proof.path[1].hashes: ...").
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof.hpp"

namespace cuzk::filecoin {

class BincodeError : public std::runtime_error {
 public:
  BincodeError(std::string field, size_t offset, const std::string& message);
  const std::string& field() const { return field_; }  // e.g. "challenge_proofs[2].proof_d_new.path[0].index"
  size_t offset() const { return offset_; }            // byte offset where the bad value starts

 private:
  std::string field_;
  size_t offset_;
};

// Exact encoded size of one partition proof of this shape (2 KiB: 15,064 bytes).
size_t PartitionProofSize(const SectorShape& shape);

// Encodes a proof. Throws std::invalid_argument if it cannot be expressed on the
// wire (a kSub/kTop proof with too few levels); it does not check the shape.
std::vector<uint8_t> WritePartitionProof(const PartitionProof& proof);

// Decodes and validates the structure against `shape`. Throws BincodeError.
PartitionProof ReadPartitionProof(std::span<const uint8_t> bytes, const SectorShape& shape);

}  // namespace cuzk::filecoin
