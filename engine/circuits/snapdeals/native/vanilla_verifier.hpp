#pragma once
// Native check of one SnapDeals vanilla PartitionProof: everything the circuit
// enforces, computed directly (and a little more: the TreeD apex-tree levels
// and the proofs' root fields, which the circuit ignores, must be consistent too).
//
//   VerifyPartitionProof(shape, k, commitments, proof);   // throws VanillaProofError
//
// Checks: structure against the shape; comm_r_old = H2(comm_c, root_r_old) and
// comm_r_new = H2(comm_c, root_r_new); the apex tree plus the partition path
// reach comm_d_new; the challenges are the spec-section-3 challenges of
// (comm_r_new, k) and every path's indices spell them; every TreeR/TreeD path
// recomputes to its root; the leaf at level L of the TreeD path is the right apex
// leaf; label_r_new = label_r_old + label_d_new * rho(node >> (cbl - h)).
// Cost (32 GiB, one partition): ~1,900 Poseidon + ~2,700 SHA-256 compressions.
#include <stdexcept>

#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof.hpp"

namespace cuzk::snapdeals {

class VanillaProofError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void VerifyPartitionProof(const filecoin::SectorShape& shape, unsigned k, const filecoin::Commitments& commitments,
                          const filecoin::PartitionProof& proof);

}  // namespace cuzk::snapdeals
