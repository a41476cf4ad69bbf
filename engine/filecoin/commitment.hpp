#pragma once
// Domain: the 32-byte value of a Filecoin Merkle node or commitment (TreeD
// SHA-256 nodes, TreeR Poseidon nodes, comm_c / comm_r / comm_d), stored as the
// canonical little-endian encoding of a BLS12-381 Fr element.
//
// Commitments coming from outside (files, RPCs) must be canonical: upstream
// converts them with Fr::from_repr(..).expect(..), so a value >= the modulus can
// never be proven; we reject it with an error naming the field.
//
//   Domain d = DomainFromHex(json["comm_r_old"], "comm_r_old");   // throws on bad hex / non-canonical
//   ff::Fr x = DomainToFr(d, "comm_r_old");
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/ff/fr.hpp"

namespace cuzk::filecoin {

using Domain = std::array<uint8_t, 32>;

// Thrown for non-canonical or malformed commitments; what() names the field.
class CommitmentError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

Domain DomainFromFr(const ff::Fr& x);
// Throws CommitmentError("<what>: ... not a canonical ...") if the value is >= the modulus.
ff::Fr DomainToFr(const Domain& d, std::string_view what);
bool IsCanonical(const Domain& d);

// Lower-case hex of the 32 bytes in storage order (no 0x), and back. The parser
// accepts an optional 0x prefix, needs exactly 64 hex digits and a canonical value.
std::string DomainToHex(const Domain& d);
Domain DomainFromHex(std::string_view hex, std::string_view what);

// The three public commitments of a SnapDeals update.
struct Commitments {
  Domain comm_r_old{};
  Domain comm_d_new{};
  Domain comm_r_new{};
};

}  // namespace cuzk::filecoin
