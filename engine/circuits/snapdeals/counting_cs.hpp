#pragma once
// Constraint systems that only count, for circuits too large to record
// (a 32 GiB SnapDeals partition has 81M rows; its CSR would take tens of GB).
//
//   CountingCS          counts inputs, aux and rows. No values, no LCs:
//                       Enforce increments a counter and never calls its
//                       lambdas, and gadgets skip the LCs they would build
//                       between rows (kNeedsLcs = false). Memory: O(1).
//   DensityCountingCS   also resolves every A and B LC and records which
//                       variables are A-dense / B-dense (bellperson's
//                       density trackers, i.e. which bases the .params a,
//                       b_g1, b_g2 sections hold). Memory: two bitmaps,
//                       2 bits per variable (32 GiB: ~20 MB). About as slow as
//                       recording, without the matrices.
//
//   CountingCS cs;
//   SynthesizeCircuit(cs, ...);
//   cs.num_constraints(), cs.num_inputs() (ONE included), cs.num_aux()
//
// Both behave like r1cs::RecordingCS towards gadgets (no values; cs.Value
// throws), so any gadget that records also counts.
// (Generic: proposed for engine/r1cs once its owner wants it there.)
#include <cstdint>
#include <utility>

#include "engine/msm/density_bitmap.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::snapdeals {

class CountingCS {
 public:
  static constexpr bool kNeedsValues = false;
  static constexpr bool kNeedsLcs = false;

  template <class N, class V>
  r1cs::Variable Alloc(N&&, V&&) {
    return r1cs::Variable::Aux(num_aux_++);
  }
  template <class N, class V>
  r1cs::Variable AllocInput(N&&, V&&) {
    return r1cs::Variable::Input(num_inputs_++);
  }
  template <class N, class A, class B, class C>
  void Enforce(N&&, A&&, B&&, C&&) {
    ++num_constraints_;
  }
  template <class N>
  void PushNamespace(N&&) {}
  void PopNamespace() {}

  [[noreturn]] const ff::Fr& Value(r1cs::Variable v) const {
    throw r1cs::SynthesisError("CountingCS: no value for " + v.ToString());
  }
  [[noreturn]] ff::Fr Value(const r1cs::LinearCombination&) const {
    throw r1cs::SynthesisError("CountingCS: no values");
  }

  uint64_t num_inputs() const { return num_inputs_; }
  uint64_t num_aux() const { return num_aux_; }
  uint64_t num_constraints() const { return num_constraints_; }

 private:
  uint64_t num_inputs_ = 1;  // ONE
  uint64_t num_aux_ = 0;
  uint64_t num_constraints_ = 0;
};

static_assert(r1cs::ConstraintSystem<CountingCS>);

class DensityCountingCS {
 public:
  static constexpr bool kNeedsValues = false;
  static constexpr bool kNeedsLcs = true;

  template <class N, class V>
  r1cs::Variable Alloc(N&&, V&&) {
    a_aux_.PushBack(false);
    b_aux_.PushBack(false);
    return r1cs::Variable::Aux(a_aux_.size() - 1);
  }
  template <class N, class V>
  r1cs::Variable AllocInput(N&&, V&&) {
    b_inputs_.PushBack(false);
    return r1cs::Variable::Input(b_inputs_.size() - 1);
  }
  template <class N, class A, class B, class C>
  void Enforce(N&&, A&& a, B&& b, C&&) {
    Mark(r1cs::internal::ResolveLc(std::forward<A>(a)), nullptr, a_aux_);
    Mark(r1cs::internal::ResolveLc(std::forward<B>(b)), &b_inputs_, b_aux_);
    ++num_constraints_;
  }
  template <class N>
  void PushNamespace(N&&) {}
  void PopNamespace() {}

  [[noreturn]] const ff::Fr& Value(r1cs::Variable v) const {
    throw r1cs::SynthesisError("DensityCountingCS: no value for " + v.ToString());
  }
  [[noreturn]] ff::Fr Value(const r1cs::LinearCombination&) const {
    throw r1cs::SynthesisError("DensityCountingCS: no values");
  }

  uint64_t num_inputs() const { return b_inputs_.size(); }
  uint64_t num_aux() const { return a_aux_.size(); }
  uint64_t num_constraints() const { return num_constraints_; }

  // Every input is A-dense (the prover's appended input rows), so only aux are tracked for A.
  const msm::DensityBitmap& a_aux_density() const { return a_aux_; }
  const msm::DensityBitmap& b_aux_density() const { return b_aux_; }
  const msm::DensityBitmap& b_input_density() const { return b_inputs_; }

 private:
  static void Mark(const r1cs::LinearCombination& lc, msm::DensityBitmap* inputs, msm::DensityBitmap& aux) {
    for (const auto& t : lc.terms()) {  // canonical LCs hold no zero coefficient
      if (t.var.is_aux()) {
        aux.Set(t.var.index());
      } else if (inputs) {
        inputs->Set(t.var.index());
      }
    }
  }

  msm::DensityBitmap a_aux_, b_aux_;
  msm::DensityBitmap b_inputs_{1};  // ONE
  uint64_t num_constraints_ = 0;
};

static_assert(r1cs::ConstraintSystem<DensityCountingCS>);

}  // namespace cuzk::snapdeals
