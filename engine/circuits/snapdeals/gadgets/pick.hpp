#pragma once
// rust-fil-proofs storage-proofs-core gadgets/insertion.rs `pick`:
// c = cond ? a : b, one aux and the row (b - a) * cond = b - c.
//
//   Variable c = Pick(cs, bit, a, b);
#include "engine/circuits/snapdeals/gadgets/boolean.hpp"

namespace cuzk::snapdeals::gadgets {

template <class CS>
Variable Pick(CS& cs, const Boolean& condition, Variable a, Variable b) {
  Variable c = cs.Alloc("pick result", [&] { return condition.Value() ? cs.Value(a) : cs.Value(b); });
  cs.Enforce(
      "pick", [&] { return LinearCombination(b) - a; }, [&] { return condition.Lc(); },
      [&] { return LinearCombination(b) - c; });
  return c;
}

}  // namespace cuzk::snapdeals::gadgets
