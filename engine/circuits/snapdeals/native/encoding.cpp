#include "engine/circuits/snapdeals/native/encoding.hpp"

#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::snapdeals {

ff::Fr Phi(const ff::Fr& comm_d_new, const ff::Fr& comm_r_old) { return GenRandomness(comm_d_new, comm_r_old); }

ff::Fr Rho(const ff::Fr& phi, uint64_t high) { return GenRandomness(phi, ff::Fr::FromUint64(high)); }

std::vector<ff::Fr> RhoTable(const filecoin::SectorShape& shape, const ff::Fr& phi, unsigned threads) {
  std::vector<ff::Fr> table(size_t(1) << shape.h);
  util::ParallelFor(table.size(), threads, [&](size_t i) { table[i] = Rho(phi, i); });
  return table;
}

}  // namespace cuzk::snapdeals
