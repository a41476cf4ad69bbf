#pragma once
// SHA-256 (FIPS 180-4), written here to keep the engine free of crypto
// libraries, and the TreeD node hash of Filecoin's Sha256Hasher.
//
//   Sha256Digest d = Sha256(bytes);
//   filecoin::Domain parent = TreeDHash(left, right);  // sha256(left || right), top 2 bits cleared
//
// TreeDHash is the hot path of test-sector generation (2^cbl - 1 calls per
// sector): it compresses the data block and then a second block whose message
// schedule is a precomputed constant (the padding of a 64-byte message).
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/filecoin/commitment.hpp"

namespace cuzk::snapdeals {

using Sha256Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  void Update(std::span<const uint8_t> data);
  Sha256Digest Final();  // the object must not be used afterwards

  // One compression of a 64-byte block into `state` (exposed for tests/benchmarks).
  static void Compress(std::array<uint32_t, 8>& state, const uint8_t* block);

 private:
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

Sha256Digest Sha256Hash(std::span<const uint8_t> data);

// Filecoin TreeD node: sha256(left32 || right32) with digest[31] &= 0x3f, so the
// result is a canonical little-endian Fr (rust-fil-proofs Sha256Function::node).
filecoin::Domain TreeDHash(const filecoin::Domain& left, const filecoin::Domain& right);

}  // namespace cuzk::snapdeals
