#include "engine/circuits/snapdeals/native/challenges.hpp"

#include <stdexcept>
#include <string>

#include "engine/circuits/snapdeals/native/poseidon.hpp"

namespace cuzk::snapdeals {

std::vector<uint64_t> PartitionChallenges(const filecoin::SectorShape& shape, const ff::Fr& comm_r_new, unsigned k) {
  if (k >= shape.partitions) {
    throw std::out_of_range("partition " + std::to_string(k) + " out of range: a " + shape.Name() + " sector has " +
                            std::to_string(shape.partitions) + " partitions");
  }
  const unsigned rb = shape.challenge_random_bits;
  std::vector<uint64_t> out;
  out.reserve(shape.challenge_count);
  for (unsigned j = 0; j < shape.digests_per_partition; ++j) {
    ff::Fr digest = GenRandomness(comm_r_new, ff::Fr::FromUint64(uint64_t(k) * shape.digests_per_partition + j));
    const ff::Limbs<4> bits = digest.ToCanonical();
    for (unsigned q = 0; q < shape.challenges_per_digest && out.size() < shape.challenge_count; ++q) {
      uint64_t c = 0;
      for (unsigned b = 0; b < rb; ++b) c |= uint64_t(ff::TestBit(bits, q * rb + b)) << b;
      out.push_back(c | (uint64_t(k) << rb));
    }
  }
  return out;
}

}  // namespace cuzk::snapdeals
