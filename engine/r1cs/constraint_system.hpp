#pragma once
// Writing circuits once, running them in three modes.
//
// A gadget is a function template over the constraint system type:
//
//   template <r1cs::ConstraintSystem CS>
//   Variable Mul(CS& cs, Variable x, Variable y) {
//     Variable z = cs.Alloc("product", [&] { return cs.Value(x) * cs.Value(y); });
//     cs.Enforce("product = x * y", [&] { return LinearCombination(x); },
//                [&] { return LinearCombination(y); }, [&] { return LinearCombination(z); });
//     return z;
//   }
//
// and runs unchanged with
//   RecordingCS  (record.hpp)   builds the CompiledCircuit (CSR + densities);
//                               value providers are never called;
//   WitnessCS    (witness.hpp)  computes the assignment only: Enforce, names and
//                               namespaces compile to nothing;
//   CheckingCS   (checking.hpp) computes the assignment and evaluates each
//                               constraint as it is enforced, remembering the
//                               first failing one by its full name "ns/sub/name".
//
// Why templates and not a virtual interface: witness-only synthesis is on the
// hot path of every proof (one pass per partition, ~10^8 allocations for a
// 32 GiB SnapDeals partition). With the CS type known at compile time, a
// WitnessCS::Enforce call with lambda arguments inlines to nothing: the
// lambdas that would build the three LinearCombinations (heap vectors) and the
// name strings are never invoked, and Alloc is a push_back of the value. A
// virtual Enforce would have to receive materialized LCs (or std::function
// wrappers, one allocation each) on every call. The cost of templates is
// compile time and code size: each gadget is instantiated three times.
//
// Arguments accepted (all modes):
//   name:  a string (const char*, std::string, std::string_view) or a callable
//          returning one; callables are only invoked by modes that keep names
//          (RecordingCS with names on, CheckingCS).
//   value: an ff::Fr or a callable returning one (the lazy witness value); only
//          invoked by modes that need values (WitnessCS, CheckingCS). It may read
//          earlier variables through cs.Value(v) and may throw SynthesisError.
//   a/b/c: a LinearCombination (or a Variable / Term), a callable returning one,
//          or a callable taking the empty LinearCombination and returning one
//          (bellperson's `|lc| lc + x` style). Callables are invoked only by
//          modes that need the LC (RecordingCS, CheckingCS).
//
// CS::kNeedsValues tells a gadget whether values exist (so that expensive
// witness-side work can be skipped with `if constexpr` when recording).
#include <concepts>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "engine/ff/fr.hpp"
#include "engine/r1cs/linear_combination.hpp"

namespace cuzk::r1cs {

// A value provider failed, a variable was read before it had a value, or the
// gadget found its inputs inconsistent.
class SynthesisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace internal {

template <class N>
std::string ResolveName(N&& n) {
  if constexpr (std::is_invocable_v<N>) {
    return std::string(std::forward<N>(n)());
  } else {
    return std::string(std::forward<N>(n));
  }
}

template <class V>
ff::Fr ResolveValue(V&& v) {
  if constexpr (std::is_invocable_v<V>) {
    return std::forward<V>(v)();
  } else {
    return ff::Fr(std::forward<V>(v));
  }
}

template <class L>
LinearCombination ResolveLc(L&& l) {
  if constexpr (std::is_invocable_v<L, LinearCombination>) {
    return std::forward<L>(l)(LinearCombination());
  } else if constexpr (std::is_invocable_v<L>) {
    return LinearCombination(std::forward<L>(l)());
  } else {
    return LinearCombination(std::forward<L>(l));
  }
}

}  // namespace internal

// What every constraint system offers (checked with a representative set of
// argument types; the members are templates).
template <class CS>
concept ConstraintSystem = requires(CS& cs, Variable v, const LinearCombination& lc) {
  { CS::kNeedsValues } -> std::convertible_to<bool>;
  { cs.Alloc("x", ff::Fr()) } -> std::same_as<Variable>;
  { cs.AllocInput("x", ff::Fr()) } -> std::same_as<Variable>;
  cs.Enforce("c", lc, lc, lc);
  cs.PushNamespace("ns");
  cs.PopNamespace();
  { cs.Value(v) } -> std::convertible_to<ff::Fr>;
  { cs.Value(lc) } -> std::convertible_to<ff::Fr>;
  { cs.num_inputs() } -> std::convertible_to<uint64_t>;
  { cs.num_aux() } -> std::convertible_to<uint64_t>;
  { cs.num_constraints() } -> std::convertible_to<uint64_t>;
};

// RAII namespace: `auto ns = Namespace(cs, "poseidon");` pushes "poseidon" for
// the rest of the scope. Namespaced names join with '/': "poseidon/round 3/sbox".
template <class CS>
class [[nodiscard]] NamespaceScope {
 public:
  template <class N>
  NamespaceScope(CS& cs, N&& name) : cs_(&cs) {
    cs.PushNamespace(std::forward<N>(name));
  }
  ~NamespaceScope() {
    if (cs_) cs_->PopNamespace();
  }
  NamespaceScope(const NamespaceScope&) = delete;
  NamespaceScope& operator=(const NamespaceScope&) = delete;
  NamespaceScope(NamespaceScope&& o) noexcept : cs_(std::exchange(o.cs_, nullptr)) {}

 private:
  CS* cs_;
};

template <class CS, class N>
NamespaceScope<CS> Namespace(CS& cs, N&& name) {
  return NamespaceScope<CS>(cs, std::forward<N>(name));
}

// Builds "a/b/c" names for the modes that keep them: a path string plus the
// lengths to truncate to on pop (no per-level allocation).
class NamePath {
 public:
  void Push(std::string_view segment) {
    marks_.push_back(path_.size());
    if (!path_.empty()) path_.push_back('/');
    path_.append(segment);
  }
  void Pop() {
    if (marks_.empty()) throw std::logic_error("PopNamespace without PushNamespace");
    path_.resize(marks_.back());
    marks_.pop_back();
  }
  size_t depth() const { return marks_.size(); }
  std::string Full(std::string_view leaf) const {
    if (path_.empty()) return std::string(leaf);
    std::string s;
    s.reserve(path_.size() + 1 + leaf.size());
    s.append(path_).push_back('/');
    s.append(leaf);
    return s;
  }

 private:
  std::string path_;
  std::vector<size_t> marks_;
};

}  // namespace cuzk::r1cs
