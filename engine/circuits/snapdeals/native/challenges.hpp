#pragma once
// SnapDeals challenges (spec section 3): the node indices that partition k
// must open, derived from comm_r_new alone.
//
//   digest_j = H_gen(comm_r_new, k * dpp + j), j < dpp; challenge q of digest j =
//   (bits [q*rb, (q+1)*rb) of digest_j, little-endian) | (k << rb).
//
//   std::vector<uint64_t> c = PartitionChallenges(shape, comm_r_new, k);  // CC indices
#include <cstdint>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/filecoin/sector_shape.hpp"

namespace cuzk::snapdeals {

// Throws std::out_of_range if k >= shape.partitions.
std::vector<uint64_t> PartitionChallenges(const filecoin::SectorShape& shape, const ff::Fr& comm_r_new, unsigned k);

}  // namespace cuzk::snapdeals
