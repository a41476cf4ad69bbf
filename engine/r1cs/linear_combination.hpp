#pragma once
// Variables and linear combinations of an R1CS, with bellpepper's semantics.
//
// A Variable is an input (index 0 is the constant ONE, then the public inputs
// in allocation order) or an aux (private) variable (numbered in allocation
// order). Its 64-bit encoding sorts all inputs before all aux variables, which
// is the order of the global numbering of CompiledCircuit (input v -> v, aux
// j -> num_inputs + j).
//
// A LinearCombination is kept canonical at all times: terms sorted by
// variable, one term per variable (adding a variable that is already there
// adds the coefficients, as bellpepper's Indexer does) and no zero
// coefficients (a term whose merged coefficient becomes 0 is removed, and a
// zero coefficient is never inserted). The result of evaluating an LC and the
// A/B densities are the same as bellpepper's, which keeps merged zero terms
// but skips them in eval() and in the density trackers.
//
// Cost: appending a variable larger than the last term (the usual case: fresh
// variables, bit decompositions) is a push_back; anything else is a binary
// search plus a vector insert. Adding two LCs is a linear merge.
//
//   LinearCombination lc = LinearCombination(x) + Fr::FromUint64(3) * y - Variable::One();
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"

namespace cuzk::r1cs {

class Variable {
 public:
  static constexpr uint64_t kAuxBit = uint64_t(1) << 63;

  constexpr Variable() : raw_(0) {}  // ONE
  static constexpr Variable One() { return Variable(0); }
  static constexpr Variable Input(uint64_t i) { return Variable(i); }
  static constexpr Variable Aux(uint64_t i) { return Variable(i | kAuxBit); }
  static constexpr Variable FromRaw(uint64_t raw) { return Variable(raw); }

  constexpr bool is_input() const { return !(raw_ & kAuxBit); }
  constexpr bool is_aux() const { return raw_ & kAuxBit; }
  constexpr uint64_t index() const { return raw_ & ~kAuxBit; }
  constexpr uint64_t raw() const { return raw_; }
  // "input 3" / "aux 17", for messages.
  std::string ToString() const { return (is_input() ? "input " : "aux ") + std::to_string(index()); }

  constexpr auto operator<=>(const Variable&) const = default;

 private:
  explicit constexpr Variable(uint64_t raw) : raw_(raw) {}
  uint64_t raw_;
};

struct Term {
  Variable var;
  ff::Fr coeff;
  bool operator==(const Term&) const = default;
};

// coeff * var, for building LCs: lc + Fr::FromUint64(2) * v.
inline Term operator*(const ff::Fr& coeff, Variable v) { return {v, coeff}; }

class LinearCombination {
 public:
  LinearCombination() = default;
  // The LC "1 * v" (implicit so that a Variable can be passed where an LC is expected).
  LinearCombination(Variable v) { terms_.push_back({v, ff::Fr::One()}); }  // NOLINT
  LinearCombination(const Term& t) { Add(t.var, t.coeff); }                // NOLINT

  static LinearCombination Zero() { return {}; }
  // c * ONE.
  static LinearCombination Constant(const ff::Fr& c) { return LinearCombination(c * Variable::One()); }

  std::span<const Term> terms() const { return terms_; }
  size_t size() const { return terms_.size(); }
  bool empty() const { return terms_.empty(); }
  void Reserve(size_t n) { terms_.reserve(n); }

  // this += coeff * var (merged).
  LinearCombination& Add(Variable var, const ff::Fr& coeff) {
    if (coeff.IsZero()) return *this;
    if (terms_.empty() || terms_.back().var < var) {
      terms_.push_back({var, coeff});
      return *this;
    }
    auto it = LowerBound(var);
    if (it != terms_.end() && it->var == var) {
      it->coeff += coeff;
      if (it->coeff.IsZero()) terms_.erase(it);
    } else {
      terms_.insert(it, {var, coeff});
    }
    return *this;
  }

  LinearCombination& operator+=(const Term& t) { return Add(t.var, t.coeff); }
  LinearCombination& operator-=(const Term& t) { return Add(t.var, -t.coeff); }
  LinearCombination& operator+=(Variable v) { return Add(v, ff::Fr::One()); }
  LinearCombination& operator-=(Variable v) { return Add(v, -ff::Fr::One()); }
  LinearCombination& operator+=(const LinearCombination& o) { return MergeScaled(o, ff::Fr::One()); }
  LinearCombination& operator-=(const LinearCombination& o) { return MergeScaled(o, -ff::Fr::One()); }
  // Every coefficient times s (s = 0 empties the LC).
  LinearCombination& operator*=(const ff::Fr& s) {
    if (s.IsZero()) {
      terms_.clear();
      return *this;
    }
    for (auto& t : terms_) t.coeff *= s;
    return *this;
  }

  // this += s * o, as one linear merge of two sorted lists.
  LinearCombination& MergeScaled(const LinearCombination& o, const ff::Fr& s);

  friend LinearCombination operator+(LinearCombination a, const Term& t) { return a += t; }
  friend LinearCombination operator-(LinearCombination a, const Term& t) { return a -= t; }
  friend LinearCombination operator+(LinearCombination a, Variable v) { return a += v; }
  friend LinearCombination operator-(LinearCombination a, Variable v) { return a -= v; }
  friend LinearCombination operator+(LinearCombination a, const LinearCombination& b) { return a += b; }
  friend LinearCombination operator-(LinearCombination a, const LinearCombination& b) { return a -= b; }
  friend LinearCombination operator*(LinearCombination a, const ff::Fr& s) { return a *= s; }
  friend LinearCombination operator*(const ff::Fr& s, LinearCombination a) { return a *= s; }

  bool operator==(const LinearCombination&) const = default;

  // sum coeff * value(var) for an assignment given as inputs and aux values.
  // Throws std::out_of_range if a variable has no value.
  ff::Fr Evaluate(std::span<const ff::Fr> inputs, std::span<const ff::Fr> aux) const {
    ff::Fr acc;
    for (const auto& t : terms_) {
      const auto& vals = t.var.is_input() ? inputs : aux;
      uint64_t i = t.var.index();
      if (i >= vals.size()) throw std::out_of_range("LinearCombination: " + t.var.ToString() + " has no value");
      acc += t.coeff * vals[i];
    }
    return acc;
  }

 private:
  std::vector<Term>::iterator LowerBound(Variable v);
  std::vector<Term> terms_;
};

}  // namespace cuzk::r1cs
