#pragma once
// Public inputs of one SnapDeals partition proof (spec section 4), in circuit
// order (inputs 1..4; input 0 is ONE):
//   [k_and_h_select, comm_r_old, comm_d_new, comm_r_new],  k_and_h_select = k | (h_select << pbl)
//
//   auto in = PartitionPublicInputs(shape, k, commitments);  // throws on non-canonical comms, bad k
//   verifier.Verify(proof, in.AsArray());
#include <array>

#include "engine/ff/fr.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"

namespace cuzk::snapdeals {

struct PublicInputs {
  ff::Fr k_and_h_select;
  ff::Fr comm_r_old;
  ff::Fr comm_d_new;
  ff::Fr comm_r_new;

  std::array<ff::Fr, 4> AsArray() const { return {k_and_h_select, comm_r_old, comm_d_new, comm_r_new}; }
};

PublicInputs PartitionPublicInputs(const filecoin::SectorShape& shape, unsigned k, const filecoin::Commitments& comms);

}  // namespace cuzk::snapdeals
