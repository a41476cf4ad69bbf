#pragma once
// 2^i in Fr for i < 256: the coefficients of every bit decomposition, packing
// and MultiEq row (computed once, then a table look-up instead of a doubling
// chain per term).
#include <array>
#include <stdexcept>

#include "engine/ff/fr.hpp"

namespace cuzk::snapdeals::gadgets {

inline const ff::Fr& PowerOfTwo(unsigned i) {
  static const std::array<ff::Fr, 256> table = [] {
    std::array<ff::Fr, 256> t;
    t[0] = ff::Fr::One();
    for (size_t k = 1; k < t.size(); ++k) t[k] = t[k - 1].Double();
    return t;
  }();
  if (i >= table.size()) throw std::out_of_range("PowerOfTwo: exponent >= 256");
  return table[i];
}

}  // namespace cuzk::snapdeals::gadgets
