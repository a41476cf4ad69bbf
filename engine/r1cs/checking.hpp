#pragma once
// CheckingCS: synthesizes the witness and evaluates every constraint as it is
// enforced (A·z * B·z == C·z), remembering the first one that fails with its
// full namespaced name. Synthesis continues after a failure (gadgets need not
// handle it), so the counts at the end are the circuit's. For debugging and
// for tests: it materializes every LC and every name, about as slow as
// recording.
//
//   r1cs::CheckingCS cs;
//   MyCircuit(cs, data);
//   if (auto f = cs.first_failure()) std::cerr << f->name << "\n";
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/constraint_system.hpp"
#include "engine/r1cs/evaluate.hpp"  // ConstraintFailure

namespace cuzk::r1cs {

class CheckingCS {
 public:
  static constexpr bool kNeedsValues = true;

  CheckingCS() { inputs_.push_back(ff::Fr::One()); }

  template <class N, class V>
  Variable Alloc(N&&, V&& value) {
    aux_.push_back(internal::ResolveValue(std::forward<V>(value)));
    return Variable::Aux(aux_.size() - 1);
  }
  template <class N, class V>
  Variable AllocInput(N&&, V&& value) {
    inputs_.push_back(internal::ResolveValue(std::forward<V>(value)));
    return Variable::Input(inputs_.size() - 1);
  }
  template <class N, class A, class B, class C>
  void Enforce(N&& name, A&& a, B&& b, C&& c) {
    uint64_t index = num_constraints_++;
    ff::Fr va = Eval(internal::ResolveLc(std::forward<A>(a)));
    ff::Fr vb = Eval(internal::ResolveLc(std::forward<B>(b)));
    ff::Fr vc = Eval(internal::ResolveLc(std::forward<C>(c)));
    if (va * vb != vc && !failure_) {
      failure_ = ConstraintFailure{index, path_.Full(internal::ResolveName(std::forward<N>(name))), va, vb, vc};
    }
  }
  template <class N>
  void PushNamespace(N&& name) {
    path_.Push(internal::ResolveName(std::forward<N>(name)));
  }
  void PopNamespace() { path_.Pop(); }

  const ff::Fr& Value(Variable v) const {
    const auto& vals = v.is_input() ? inputs_ : aux_;
    if (v.index() >= vals.size()) throw SynthesisError("CheckingCS: no value for " + v.ToString());
    return vals[v.index()];
  }
  ff::Fr Value(const LinearCombination& lc) const { return Eval(lc); }

  uint64_t num_inputs() const { return inputs_.size(); }
  uint64_t num_aux() const { return aux_.size(); }
  uint64_t num_constraints() const { return num_constraints_; }

  bool is_satisfied() const { return !failure_; }
  const std::optional<ConstraintFailure>& first_failure() const { return failure_; }

  Assignment TakeAssignment() {
    Assignment out;
    out.num_inputs = inputs_.size();
    out.values = std::move(inputs_);
    out.values.insert(out.values.end(), aux_.begin(), aux_.end());
    inputs_.clear();
    aux_.clear();
    return out;
  }

 private:
  ff::Fr Eval(const LinearCombination& lc) const {
    ff::Fr acc;
    for (const auto& t : lc.terms()) acc += t.coeff * Value(t.var);
    return acc;
  }

  std::vector<ff::Fr> inputs_, aux_;
  uint64_t num_constraints_ = 0;
  NamePath path_;
  std::optional<ConstraintFailure> failure_;
};

static_assert(ConstraintSystem<CheckingCS>);

}  // namespace cuzk::r1cs
