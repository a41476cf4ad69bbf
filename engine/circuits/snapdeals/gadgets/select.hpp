#pragma once
// rust-fil-proofs storage-proofs-core gadgets/insertion.rs `select`: the
// element of `from` (2^n allocated nums) at the index spelled by `bits`
// (least significant first), as a tree of picks consuming the most
// significant bit first: 2^n - 1 picks.
//
//   Variable apex_leaf = Select(cs, apex_leafs, index_bits);
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/pick.hpp"

namespace cuzk::snapdeals::gadgets {

template <class CS>
Variable Select(CS& cs, std::span<const Variable> from, std::span<const Boolean> bits) {
  if (bits.size() >= 63 || from.size() != (size_t(1) << bits.size())) {
    throw std::invalid_argument("Select: " + std::to_string(from.size()) + " elements for " +
                                std::to_string(bits.size()) + " index bits");
  }
  std::vector<Variable> state(from.begin(), from.end());
  size_t half = from.size() / 2;
  for (size_t k = bits.size(); k-- > 0;) {
    std::vector<Variable> next;
    next.reserve(half);
    for (size_t j = 0; j < half; ++j) next.push_back(Pick(cs, bits[k], state[half + j], state[j]));
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

}  // namespace cuzk::snapdeals::gadgets
