#pragma once
// RecordingCS: records a circuit's R1CS once per shape into a CompiledCircuit
// (CSR matrices A, B, C and the A/B densities). Value providers are never
// called, so a circuit can be recorded without any witness data.
//
// Columns are stored as they are enforced, with aux variables tagged in bit
// 31 (the final number of inputs is not known until synthesis ends: inputs
// may be allocated after aux variables); Finish() rewrites them in place into
// the global numbering (aux j -> num_inputs + j). Constraint names are kept
// only with RecordOptions::record_names (a string per row: costly for
// 10^8-row circuits; off there, on for tests and small circuits).
//
//   r1cs::RecordingCS cs({.record_names = true});
//   MyCircuit(cs, std::nullopt);
//   r1cs::CompiledCircuit compiled = std::move(cs).Finish();
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/r1cs/compiled_circuit.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::r1cs {

struct RecordOptions {
  bool record_names = false;
};

class RecordingCS {
 public:
  static constexpr bool kNeedsValues = false;
  // Aux columns carry this tag until Finish().
  static constexpr uint32_t kAuxTag = uint32_t(1) << 31;

  explicit RecordingCS(const RecordOptions& options = {}) : options_(options) {}

  template <class N, class V>
  Variable Alloc(N&&, V&&) {
    if (num_aux_ >= kAuxTag) throw SynthesisError("RecordingCS: more than 2^31 aux variables");
    return Variable::Aux(num_aux_++);
  }
  template <class N, class V>
  Variable AllocInput(N&&, V&&) {
    if (num_inputs_ >= kAuxTag) throw SynthesisError("RecordingCS: more than 2^31 inputs");
    return Variable::Input(num_inputs_++);
  }
  template <class N, class A, class B, class C>
  void Enforce(N&& name, A&& a, B&& b, C&& c) {
    AppendRow(circuit_.a, internal::ResolveLc(std::forward<A>(a)));
    AppendRow(circuit_.b, internal::ResolveLc(std::forward<B>(b)));
    AppendRow(circuit_.c, internal::ResolveLc(std::forward<C>(c)));
    if (options_.record_names) {
      circuit_.constraint_names.push_back(path_.Full(internal::ResolveName(std::forward<N>(name))));
    }
  }
  template <class N>
  void PushNamespace(N&& name) {
    if (options_.record_names) path_.Push(internal::ResolveName(std::forward<N>(name)));
  }
  void PopNamespace() {
    if (options_.record_names) path_.Pop();
  }

  // Recording has no values; present so that value providers (never called
  // here) type-check. Calling it is a gadget bug: it reads values outside a
  // provider, which would also break witness-only synthesis ordering.
  [[noreturn]] const ff::Fr& Value(Variable v) const {
    throw SynthesisError("RecordingCS: no value for " + v.ToString() + " (values exist only in value providers)");
  }
  [[noreturn]] ff::Fr Value(const LinearCombination&) const {
    throw SynthesisError("RecordingCS: no values (read them only inside value providers)");
  }

  uint64_t num_inputs() const { return num_inputs_; }
  uint64_t num_aux() const { return num_aux_; }
  uint64_t num_constraints() const { return circuit_.a.rows(); }

  // Renumbers the columns, computes the densities (including the appended
  // input rows: every input is A-dense) and returns the circuit.
  CompiledCircuit Finish() &&;

 private:
  void AppendRow(CsrMatrix& m, const LinearCombination& lc);

  RecordOptions options_;
  CompiledCircuit circuit_;
  uint64_t num_inputs_ = 1;  // ONE
  uint64_t num_aux_ = 0;
  NamePath path_;
};

static_assert(ConstraintSystem<RecordingCS>);

}  // namespace cuzk::r1cs
