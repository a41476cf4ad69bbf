#pragma once
// What a SnapDeals gadget may skip for a given constraint system.
//
// r1cs::ConstraintSystem gives CS::kNeedsValues (values exist). Gadgets also
// build linear combinations *outside* Enforce: bellperson's MultiEq sums the
// operands of many additions into one row, and neptune's Poseidon keeps every
// state element as an LC between S-boxes. Those LCs are only read by modes
// that look at rows (RecordingCS, CheckingCS, a density-tracking count);
// witness-only synthesis and plain counting never do, and building them would
// cost more than the rest of synthesis (a 32 GiB partition has ~10^7 MultiEq
// operands). kNeedsLcs<CS> says whether to build them:
//   - CS::kNeedsLcs if the CS declares it (CountingCS: false);
//   - false for r1cs::WitnessCS (its Enforce is empty);
//   - true otherwise.
// The decision only changes what is computed, never the variables or rows
// (every Enforce call still happens: WitnessCS counts rows).
#include <concepts>
#include <type_traits>

#include "engine/r1cs/witness.hpp"

namespace cuzk::snapdeals::gadgets {

namespace internal {

template <class CS>
concept DeclaresNeedsLcs = requires {
  { CS::kNeedsLcs } -> std::convertible_to<bool>;
};

template <class CS>
consteval bool NeedsLcs() {
  if constexpr (DeclaresNeedsLcs<CS>) {
    return CS::kNeedsLcs;
  } else {
    return !std::is_same_v<CS, r1cs::WitnessCS>;
  }
}

}  // namespace internal

template <class CS>
inline constexpr bool kNeedsLcs = internal::NeedsLcs<CS>();

template <class CS>
inline constexpr bool kNeedsValues = CS::kNeedsValues;

}  // namespace cuzk::snapdeals::gadgets
