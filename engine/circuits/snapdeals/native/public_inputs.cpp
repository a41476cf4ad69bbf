#include "engine/circuits/snapdeals/native/public_inputs.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::snapdeals {

PublicInputs PartitionPublicInputs(const filecoin::SectorShape& shape, unsigned k, const filecoin::Commitments& comms) {
  if (k >= shape.partitions) {
    throw std::out_of_range("partition " + std::to_string(k) + " out of range: a " + shape.Name() + " sector has " +
                            std::to_string(shape.partitions) + " partitions");
  }
  return PublicInputs{ff::Fr::FromUint64(shape.KAndHSelect(k)), filecoin::DomainToFr(comms.comm_r_old, "comm_r_old"),
                      filecoin::DomainToFr(comms.comm_d_new, "comm_d_new"),
                      filecoin::DomainToFr(comms.comm_r_new, "comm_r_new")};
}

}  // namespace cuzk::snapdeals
