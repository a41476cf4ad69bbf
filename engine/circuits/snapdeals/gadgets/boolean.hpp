#pragma once
// Boolean gadgets exactly as bellpepper-core 0.2 (gadgets/boolean.rs) builds
// them: AllocatedBit (a variable constrained to 0/1) and Boolean (a constant,
// an allocated bit, or its negation), with xor/and and SHA-256's ch and maj.
// The case analysis decides which variables and rows exist, so it follows the
// Rust match arms one for one (snapdeals spec 6.2); values never steer it.
//
//   AllocatedBit b = AllocBit(cs, value);                 // 1 aux, 1 row
//   Boolean x = Xor(cs, Boolean::Is(b), Boolean::Constant(true));  // = Not(b): no row
//
// An AllocatedBit carries its value (the variable's 0/1) when the CS has
// values; Boolean::Value() is the value the Boolean stands for (negated for
// kNot). With RecordingCS/CountingCS the values are meaningless.
#include <cstdint>

#include "engine/circuits/snapdeals/gadgets/cs_traits.hpp"
#include "engine/r1cs/constraint_system.hpp"

namespace cuzk::snapdeals::gadgets {

using r1cs::LinearCombination;
using r1cs::Variable;

struct AllocatedBit {
  Variable var;
  bool value = false;
};

class Boolean {
 public:
  enum class Kind : uint8_t { kConstant, kIs, kNot };

  Boolean() = default;  // Constant(false)
  static Boolean Constant(bool b) { return Boolean(Kind::kConstant, b, Variable::One()); }
  static Boolean Is(const AllocatedBit& b) { return Boolean(Kind::kIs, b.value, b.var); }
  static Boolean Not(const AllocatedBit& b) { return Boolean(Kind::kNot, b.value, b.var); }

  Kind kind() const { return kind_; }
  bool is_constant() const { return kind_ == Kind::kConstant; }
  bool IsConstant(bool b) const { return kind_ == Kind::kConstant && bit_ == b; }
  // The underlying bit (kIs / kNot only).
  AllocatedBit bit() const { return {var_, bit_}; }
  Variable var() const { return var_; }
  // The value this Boolean stands for.
  bool Value() const { return kind_ == Kind::kNot ? !bit_ : bit_; }

  Boolean Negate() const {
    switch (kind_) {
      case Kind::kConstant: return Constant(!bit_);
      case Kind::kIs: return Boolean(Kind::kNot, bit_, var_);
      case Kind::kNot: return Boolean(Kind::kIs, bit_, var_);
    }
    return *this;
  }

  // lc += coeff * this (bellpepper Boolean::lc: Constant(true) -> coeff·ONE,
  // Is(v) -> coeff·v, Not(v) -> coeff·ONE - coeff·v).
  void AddTo(LinearCombination& lc, const ff::Fr& coeff) const {
    switch (kind_) {
      case Kind::kConstant:
        if (bit_) lc.Add(Variable::One(), coeff);
        break;
      case Kind::kIs: lc.Add(var_, coeff); break;
      case Kind::kNot:
        lc.Add(Variable::One(), coeff);
        lc.Add(var_, -coeff);
        break;
    }
  }
  LinearCombination Lc() const {
    LinearCombination lc;
    AddTo(lc, ff::Fr::One());
    return lc;
  }

 private:
  Boolean(Kind k, bool b, Variable v) : kind_(k), bit_(b), var_(v) {}
  Kind kind_ = Kind::kConstant;
  bool bit_ = false;  // constant value, or the allocated bit's value
  Variable var_;
};

inline ff::Fr BitToFr(bool b) { return b ? ff::Fr::One() : ff::Fr::Zero(); }

// ---- AllocatedBit -------------------------------------------------------------------

// alloc v; (ONE - v) * v = 0.
template <class CS>
AllocatedBit AllocBit(CS& cs, bool value) {
  Variable v = cs.Alloc("boolean", [&] { return BitToFr(value); });
  cs.Enforce(
      "boolean constraint", [&] { return LinearCombination(Variable::One()) - v; },
      [&] { return LinearCombination(v); }, [] { return LinearCombination(); });
  return {v, value};
}

// r = a ^ b; (a + a) * b = a + b - r.
template <class CS>
AllocatedBit XorBits(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool value = a.value != b.value;
  Variable r = cs.Alloc("xor result", [&] { return BitToFr(value); });
  cs.Enforce(
      "xor constraint", [&] { return LinearCombination(ff::Fr::FromUint64(2) * a.var); },
      [&] { return LinearCombination(b.var); }, [&] { return LinearCombination(a.var) + b.var - r; });
  return {r, value};
}

// r = a & b; a * b = r.
template <class CS>
AllocatedBit AndBits(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool value = a.value && b.value;
  Variable r = cs.Alloc("and result", [&] { return BitToFr(value); });
  cs.Enforce(
      "and constraint", [&] { return LinearCombination(a.var); }, [&] { return LinearCombination(b.var); },
      [&] { return LinearCombination(r); });
  return {r, value};
}

// r = a & !b; a * (ONE - b) = r.
template <class CS>
AllocatedBit AndNotBits(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool value = a.value && !b.value;
  Variable r = cs.Alloc("and not result", [&] { return BitToFr(value); });
  cs.Enforce(
      "and not constraint", [&] { return LinearCombination(a.var); },
      [&] { return LinearCombination(Variable::One()) - b.var; }, [&] { return LinearCombination(r); });
  return {r, value};
}

// r = !a & !b; (ONE - a) * (ONE - b) = r.
template <class CS>
AllocatedBit NorBits(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
  const bool value = !a.value && !b.value;
  Variable r = cs.Alloc("nor result", [&] { return BitToFr(value); });
  cs.Enforce(
      "nor constraint", [&] { return LinearCombination(Variable::One()) - a.var; },
      [&] { return LinearCombination(Variable::One()) - b.var; }, [&] { return LinearCombination(r); });
  return {r, value};
}

// ---- Boolean ------------------------------------------------------------------------

// bellpepper Boolean::xor.
template <class CS>
Boolean Xor(CS& cs, const Boolean& a, const Boolean& b) {
  using K = Boolean::Kind;
  if (a.IsConstant(false)) return b;
  if (b.IsConstant(false)) return a;
  if (a.IsConstant(true)) return b.Negate();
  if (b.IsConstant(true)) return a.Negate();
  if (a.kind() != b.kind()) {
    // a XOR (NOT b) = NOT(a XOR b): the Is operand comes first in the row.
    const Boolean& is = a.kind() == K::kIs ? a : b;
    const Boolean& not_ = a.kind() == K::kIs ? b : a;
    return Boolean::Not(XorBits(cs, is.bit(), not_.bit()));
  }
  return Boolean::Is(XorBits(cs, a.bit(), b.bit()));
}

// bellpepper Boolean::and.
template <class CS>
Boolean And(CS& cs, const Boolean& a, const Boolean& b) {
  using K = Boolean::Kind;
  if (a.IsConstant(false) || b.IsConstant(false)) return Boolean::Constant(false);
  if (a.IsConstant(true)) return b;
  if (b.IsConstant(true)) return a;
  if (a.kind() == K::kIs && b.kind() == K::kNot) return Boolean::Is(AndNotBits(cs, a.bit(), b.bit()));
  if (a.kind() == K::kNot && b.kind() == K::kIs) return Boolean::Is(AndNotBits(cs, b.bit(), a.bit()));
  if (a.kind() == K::kNot) return Boolean::Is(NorBits(cs, a.bit(), b.bit()));
  return Boolean::Is(AndBits(cs, a.bit(), b.bit()));
}

// bellpepper Boolean::sha256_ch: (a and b) xor ((not a) and c); first matching rule wins.
template <class CS>
Boolean Sha256Ch(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  const bool value = (a.Value() && b.Value()) != (!a.Value() && c.Value());
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::Constant(value);
  if (a.IsConstant(false)) return c;
  if (b.IsConstant(false)) return And(cs, a.Negate(), c);
  if (c.IsConstant(false)) return And(cs, a, b);
  if (c.IsConstant(true)) return And(cs, a, b.Negate()).Negate();
  if (b.IsConstant(true)) return And(cs, a.Negate(), c.Negate()).Negate();
  // a may be Constant(true) here: bellpepper continues to the general case.
  Variable ch = cs.Alloc("ch", [&] { return BitToFr(value); });
  // a (b - c) = ch - c
  cs.Enforce(
      "ch computation",
      [&] {
        LinearCombination lc = b.Lc();
        c.AddTo(lc, -ff::Fr::One());
        return lc;
      },
      [&] { return a.Lc(); },
      [&] {
        LinearCombination lc(ch);
        c.AddTo(lc, -ff::Fr::One());
        return lc;
      });
  return Boolean::Is({ch, value});
}

// bellpepper Boolean::sha256_maj: (a and b) xor (a and c) xor (b and c).
template <class CS>
Boolean Sha256Maj(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
  const bool av = a.Value(), bv = b.Value(), cv = c.Value();
  const bool value = ((av && bv) != (av && cv)) != (bv && cv);
  if (a.is_constant() && b.is_constant() && c.is_constant()) return Boolean::Constant(value);
  if (a.IsConstant(false)) return And(cs, b, c);
  if (b.IsConstant(false)) return And(cs, a, c);
  if (c.IsConstant(false)) return And(cs, a, b);
  if (c.IsConstant(true)) return And(cs, a.Negate(), b.Negate()).Negate();
  if (b.IsConstant(true)) return And(cs, a.Negate(), c.Negate()).Negate();
  if (a.IsConstant(true)) return And(cs, b.Negate(), c.Negate()).Negate();
  // maj is allocated before b AND c (aux order matters).
  Variable maj = cs.Alloc("maj", [&] { return BitToFr(value); });
  Boolean bc = And(cs, b, c);
  // (2 bc - b - c) * a = bc - maj
  cs.Enforce(
      "maj computation",
      [&] {
        LinearCombination lc;
        bc.AddTo(lc, ff::Fr::FromUint64(2));
        b.AddTo(lc, -ff::Fr::One());
        c.AddTo(lc, -ff::Fr::One());
        return lc;
      },
      [&] { return a.Lc(); },
      [&] {
        LinearCombination lc = bc.Lc();
        lc -= maj;
        return lc;
      });
  return Boolean::Is({maj, value});
}

}  // namespace cuzk::snapdeals::gadgets
