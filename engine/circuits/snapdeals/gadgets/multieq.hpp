#pragma once
// bellperson's MultiEq (gadgets/multieq.rs): many equalities lhs_k = rhs_k of
// n_k-bit quantities packed into one row sum 2^{o_k} lhs_k * ONE = sum 2^{o_k} rhs_k
// while the offsets stay below Fr::CAPACITY (254 bits). The SHA-256 gadget
// uses one per compression block for all its 32-bit additions; where the rows
// fall (26 in the first block of a TreeD node, 20 in the second) is part of
// the circuit's shape.
//
//   MultiEq<CS> me(cs);
//   me.EnforceEqual(34, lhs, rhs);   // may emit the pending row first
//   me.Finish();                      // bellperson emits the last row on drop
//
// With kNeedsLcs<CS> false only the bit count is tracked (rows are still emitted).
#include <utility>

#include "engine/circuits/snapdeals/gadgets/cs_traits.hpp"
#include "engine/circuits/snapdeals/gadgets/powers_of_two.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::snapdeals::gadgets {

template <class CS>
class MultiEq {
 public:
  static constexpr unsigned kCapacity = 254;

  explicit MultiEq(CS& cs) : cs_(cs) {}
  MultiEq(const MultiEq&) = delete;
  MultiEq& operator=(const MultiEq&) = delete;

  CS& cs() { return cs_; }

  void EnforceEqual(unsigned num_bits, const r1cs::LinearCombination& lhs, const r1cs::LinearCombination& rhs) {
    if (kCapacity <= bits_used_ + num_bits) Accumulate();
    if constexpr (kNeedsLcs<CS>) {
      const ff::Fr& coeff = PowerOfTwo(bits_used_);
      lhs_.MergeScaled(lhs, coeff);
      rhs_.MergeScaled(rhs, coeff);
    }
    bits_used_ += num_bits;
  }

  // The pending row, if any (bellperson: Drop).
  void Finish() {
    if (bits_used_ > 0) Accumulate();
  }

 private:
  void Accumulate() {
    cs_.Enforce(
        "multieq", [&] { return std::exchange(lhs_, {}); },
        [] { return r1cs::LinearCombination(r1cs::Variable::One()); }, [&] { return std::exchange(rhs_, {}); });
    lhs_ = {};
    rhs_ = {};
    bits_used_ = 0;
  }

  CS& cs_;
  unsigned bits_used_ = 0;
  r1cs::LinearCombination lhs_, rhs_;
};

}  // namespace cuzk::snapdeals::gadgets
