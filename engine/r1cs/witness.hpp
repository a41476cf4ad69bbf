#pragma once
// WitnessCS: witness-only synthesis. Computes the assignment (inputs and aux)
// and nothing else: Enforce, names and namespaces are empty inline functions,
// so the lambdas a gadget passes for them are never called (see
// constraint_system.hpp for why this is a template parameter, not a virtual
// interface). Alloc costs one value computation plus one push_back.
//
// If the number of inputs is known in advance (it is: the compiled circuit
// has it), pass it to the constructor: aux values are then written directly
// after the inputs in the final vector and TakeAssignment() moves it out with
// no copy. Otherwise the inputs are moved in front at the end (one memmove of
// the aux vector).
//
//   r1cs::WitnessCS cs(compiled.num_inputs, compiled.num_aux);
//   MyCircuit(cs, private_data);
//   r1cs::Assignment z = cs.TakeAssignment();
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

class WitnessCS {
 public:
  static constexpr bool kNeedsValues = true;

  // expected_inputs: the number of inputs including ONE (0 = unknown);
  // aux_reserve: capacity hint for the aux values.
  explicit WitnessCS(uint64_t expected_inputs = 0, uint64_t aux_reserve = 0)
      : offset_(expected_inputs ? expected_inputs : 1) {
    values_.reserve(offset_ + aux_reserve);
    values_.resize(offset_);
    inputs_.reserve(offset_);
    inputs_.push_back(ff::Fr::One());
  }

  template <class N, class V>
  Variable Alloc(N&&, V&& value) {
    values_.push_back(internal::ResolveValue(std::forward<V>(value)));
    return Variable::Aux(values_.size() - 1 - offset_);
  }
  template <class N, class V>
  Variable AllocInput(N&&, V&& value) {
    inputs_.push_back(internal::ResolveValue(std::forward<V>(value)));
    return Variable::Input(inputs_.size() - 1);
  }
  template <class N, class A, class B, class C>
  void Enforce(N&&, A&&, B&&, C&&) {
    ++num_constraints_;
  }
  template <class N>
  void PushNamespace(N&&) {}
  void PopNamespace() {}

  const ff::Fr& Value(Variable v) const {
    if (v.is_input()) {
      if (v.index() >= inputs_.size()) throw SynthesisError("WitnessCS: no value for " + v.ToString());
      return inputs_[v.index()];
    }
    if (v.index() >= values_.size() - offset_) throw SynthesisError("WitnessCS: no value for " + v.ToString());
    return values_[offset_ + v.index()];
  }
  ff::Fr Value(const LinearCombination& lc) const {
    ff::Fr acc;
    for (const auto& t : lc.terms()) acc += t.coeff * Value(t.var);
    return acc;
  }

  uint64_t num_inputs() const { return inputs_.size(); }
  uint64_t num_aux() const { return values_.size() - offset_; }
  // Counted (Enforce is otherwise free) so that a mismatch with the compiled
  // circuit is caught before proving.
  uint64_t num_constraints() const { return num_constraints_; }

  // The assignment in global order; the CS is empty afterwards.
  Assignment TakeAssignment() {
    Assignment out;
    out.num_inputs = inputs_.size();
    if (inputs_.size() != offset_) {
      // Wrong guess: shift the aux block to its real offset.
      std::vector<ff::Fr> v;
      v.reserve(inputs_.size() + num_aux());
      v.insert(v.end(), inputs_.begin(), inputs_.end());
      v.insert(v.end(), values_.begin() + offset_, values_.end());
      out.values = std::move(v);
    } else {
      std::copy(inputs_.begin(), inputs_.end(), values_.begin());
      out.values = std::move(values_);
    }
    values_.clear();
    inputs_.clear();
    return out;
  }

 private:
  uint64_t offset_;             // where aux 0 lives in values_
  std::vector<ff::Fr> values_;  // [0, offset_) placeholder for inputs, then aux
  std::vector<ff::Fr> inputs_;  // ONE first
  uint64_t num_constraints_ = 0;
};

static_assert(ConstraintSystem<WitnessCS>);

}  // namespace cuzk::r1cs
