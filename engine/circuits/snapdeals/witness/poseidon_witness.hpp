#pragma once
// The aux values of one in-circuit Poseidon hash (gadgets/poseidon.hpp)
// computed natively: neptune's optimized-static algorithm (snapdeals spec 7.3)
// with every S-box's intermediate values written in allocation order
// (round 0: x^2, x^4, x^5 + post per input; later S-boxes: x, x^2, x^4,
// x^5 (+ post); then the output).
//
//   Fr h = PoseidonWitness(preimage, MerkleTreeTag(8), out);   // writes gadgets::PoseidonConstraints(8) values
#include <span>

#include "engine/ff/fr.hpp"

namespace cuzk::snapdeals::witness {

ff::Fr PoseidonWitness(std::span<const ff::Fr> preimage, const ff::Fr& domain_tag, ff::Fr* out);

}  // namespace cuzk::snapdeals::witness
