#include "engine/r1cs/linear_combination.hpp"

#include <algorithm>

namespace cuzk::r1cs {

std::vector<Term>::iterator LinearCombination::LowerBound(Variable v) {
  return std::lower_bound(terms_.begin(), terms_.end(), v, [](const Term& t, Variable x) { return t.var < x; });
}

LinearCombination& LinearCombination::MergeScaled(const LinearCombination& o, const ff::Fr& s) {
  if (o.terms_.empty() || s.IsZero()) return *this;
  const bool unit = s.IsOne();
  // Fast path: every term of o comes after ours (fresh variables).
  if (terms_.empty() || terms_.back().var < o.terms_.front().var) {
    terms_.reserve(terms_.size() + o.terms_.size());
    for (const auto& t : o.terms_) terms_.push_back({t.var, unit ? t.coeff : t.coeff * s});
    return *this;
  }
  std::vector<Term> merged;
  merged.reserve(terms_.size() + o.terms_.size());
  size_t i = 0, j = 0;
  while (i < terms_.size() || j < o.terms_.size()) {
    if (j == o.terms_.size() || (i < terms_.size() && terms_[i].var < o.terms_[j].var)) {
      merged.push_back(terms_[i++]);
    } else {
      ff::Fr c = unit ? o.terms_[j].coeff : o.terms_[j].coeff * s;
      if (i < terms_.size() && terms_[i].var == o.terms_[j].var) {
        c += terms_[i++].coeff;
        if (c.IsZero()) {
          ++j;
          continue;
        }
      }
      merged.push_back({o.terms_[j++].var, c});
    }
  }
  terms_ = std::move(merged);
  return *this;
}

}  // namespace cuzk::r1cs
