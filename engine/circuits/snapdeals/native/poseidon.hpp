#pragma once
// Native Poseidon hashing as neptune 11 (BLS12-381 Fr, x^5, Strength::Standard).
// The state is [domain_tag, x_1 .. x_arity]; the hash is state[1] after the permutation.
//
//   Fr h = PoseidonMerkleHash(children);                 // TreeR nodes, tag 2^arity - 1
//   Fr phi = GenRandomness(comm_d_new, comm_r_old);      // H_gen, tag 2^40
//
// PoseidonHash runs neptune's optimized-static algorithm (spec 7.3: sparse
// partial rounds, ~2t multiplications per partial round instead of t^2);
// PoseidonHashReference runs the textbook permutation (spec 7.2). Both give the
// same value (tested); the reference exists to show that.
#include <cstdint>
#include <span>

#include "engine/circuits/snapdeals/native/poseidon_constants.hpp"

namespace cuzk::snapdeals {

// HashType::MerkleTree domain tag: 2^arity - 1 (255 for arity 8, 3 for arity 2).
Fr MerkleTreeTag(unsigned arity);
// HashType::Custom(CType::Arbitrary(id)) domain tag: id * 2^40.
Fr CustomTag(uint64_t id);

// The arity is preimage.size() (2, 4, 8 or 11).
Fr PoseidonHash(std::span<const Fr> preimage, const Fr& domain_tag);
Fr PoseidonHashReference(std::span<const Fr> preimage, const Fr& domain_tag);

inline Fr PoseidonMerkleHash(std::span<const Fr> preimage) {
  return PoseidonHash(preimage, MerkleTreeTag(unsigned(preimage.size())));
}
// Poseidon arity 2, MerkleTree tag: comm_r = H2(comm_c, root_r).
inline Fr PoseidonHash2(const Fr& a, const Fr& b) {
  const Fr in[2] = {a, b};
  return PoseidonMerkleHash(in);
}
// rust-fil-proofs storage-proofs-update gen randomness: Poseidon arity 2 with
// tag Custom(Arbitrary(1)) = 2^40. phi = H_gen(comm_d_new, comm_r_old), etc.
Fr GenRandomness(const Fr& a, const Fr& b);

}  // namespace cuzk::snapdeals
