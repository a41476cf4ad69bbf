#pragma once
// The SnapDeals encoding (spec section 2):
//   phi = H_gen(comm_d_new, comm_r_old)
//   rho(high) = H_gen(phi, high),  high = node >> (cbl - h)
//   label_r_new = label_r_old + label_d_new * rho(high)
// Every node in the same 2^(cbl - h)-node region shares one rho, so a whole
// sector needs only 2^h (at most 4,096) Poseidon hashes for its rho values.
#include <cstdint>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/filecoin/sector_shape.hpp"

namespace cuzk::snapdeals {

ff::Fr Phi(const ff::Fr& comm_d_new, const ff::Fr& comm_r_old);
ff::Fr Rho(const ff::Fr& phi, uint64_t high);
inline uint64_t RhoHigh(const filecoin::SectorShape& shape, uint64_t node) {
  return node >> (shape.challenge_bit_len - shape.h);
}
// rho for every high in [0, 2^h), computed on `threads` threads (0 = all).
std::vector<ff::Fr> RhoTable(const filecoin::SectorShape& shape, const ff::Fr& phi, unsigned threads = 0);

inline ff::Fr EncodeLabel(const ff::Fr& label_r_old, const ff::Fr& label_d_new, const ff::Fr& rho) {
  return label_r_old + label_d_new * rho;
}
inline ff::Fr DecodeLabel(const ff::Fr& label_r_new, const ff::Fr& label_r_old, const ff::Fr& rho) {
  return (label_r_new - label_r_old) * rho.Inverse();
}

}  // namespace cuzk::snapdeals
