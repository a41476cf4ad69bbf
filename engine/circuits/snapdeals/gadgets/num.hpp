#pragma once
// Field-element helpers as bellpepper's AllocatedNum/multipack and
// rust-fil-proofs use them (snapdeals spec 6.2). An "allocated num" is simply
// a Variable; its value lives in the CS (cs.Value, inside value providers or
// under `if constexpr (kNeedsValues<CS>)`).
//
//   Variable x = AllocNum(cs, "comm_c", comm_c);        // 1 aux, no row
//   Inputize(cs, x);                                     // 1 input, row (in, ONE, x)
//   std::vector<AllocatedBit> bits = ToBitsLe(cs, x);    // 255 aux, 256 rows
//   Variable packed = PackBits(cs, booleans);            // 1 aux, 1 row
#include <span>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/boolean.hpp"
#include "engine/circuits/snapdeals/gadgets/powers_of_two.hpp"
#include "engine/ff/fr.hpp"

namespace cuzk::snapdeals::gadgets {

// Fr::NUM_BITS and Fr::CAPACITY of BLS12-381.
inline constexpr unsigned kFrNumBits = 255;
inline constexpr unsigned kFrCapacity = 254;

// The value of an allocated num, or zero when the CS has no values.
template <class CS>
ff::Fr NumValue(const CS& cs, Variable v) {
  if constexpr (kNeedsValues<CS>) {
    return cs.Value(v);
  } else {
    return ff::Fr::Zero();
  }
}

// AllocatedNum::alloc; `value` is an Fr or a callable returning one (lazy).
template <class CS, class N, class V>
Variable AllocNum(CS& cs, N&& name, V&& value) {
  return cs.Alloc(std::forward<N>(name), std::forward<V>(value));
}

// AllocatedNum::inputize: in = alloc_input(value of x); row (in, ONE, x).
template <class CS>
Variable Inputize(CS& cs, Variable x) {
  Variable in = cs.AllocInput("input variable", [&] { return cs.Value(x); });
  cs.Enforce(
      "enforce input is correct", [&] { return LinearCombination(in); },
      [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(x); });
  return in;
}

// AllocatedNum::mul: p = a * b; row (a, b, p).
template <class CS>
Variable Mul(CS& cs, Variable a, Variable b) {
  Variable p = cs.Alloc("product num", [&] { return cs.Value(a) * cs.Value(b); });
  cs.Enforce(
      "multiplication constraint", [&] { return LinearCombination(a); }, [&] { return LinearCombination(b); },
      [&] { return LinearCombination(p); });
  return p;
}

// bellpepper field_into_allocated_bits_le: the 255 canonical bits of `value`,
// bit 0 first, each an AllocatedBit (alloc + boolean row). No packing row.
template <class CS>
std::vector<AllocatedBit> FieldIntoAllocatedBitsLe(CS& cs, const ff::Fr& value) {
  ff::Limbs<4> limbs{};
  if constexpr (kNeedsValues<CS>) limbs = value.ToCanonical();
  std::vector<AllocatedBit> bits;
  bits.reserve(kFrNumBits);
  for (unsigned i = 0; i < kFrNumBits; ++i) bits.push_back(AllocBit(cs, (limbs[i / 64] >> (i % 64)) & 1));
  return bits;
}

// sum_i 2^i bits[i] over allocated bits.
inline LinearCombination PackedBitsLc(std::span<const AllocatedBit> bits) {
  LinearCombination lc;
  lc.Reserve(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) lc.Add(bits[i].var, PowerOfTwo(unsigned(i)));
  return lc;
}

// bellpepper AllocatedNum::to_bits_le (used by the SHA-256 node hash):
// 255 bits, then row (0, 0, sum 2^i b_i - x).
template <class CS>
std::vector<AllocatedBit> ToBitsLe(CS& cs, Variable x) {
  std::vector<AllocatedBit> bits = FieldIntoAllocatedBitsLe(cs, NumValue(cs, x));
  cs.Enforce(
      "unpacking constraint", [] { return LinearCombination(); }, [] { return LinearCombination(); },
      [&] { return PackedBitsLc(bits) - x; });
  return bits;
}

// rust-fil-proofs allocated_num_to_allocated_bits (challenge digests):
// 255 bits, then row (sum 2^i b_i, ONE, x).
template <class CS>
std::vector<AllocatedBit> AllocatedNumToAllocatedBits(CS& cs, Variable x) {
  std::vector<AllocatedBit> bits = FieldIntoAllocatedBitsLe(cs, NumValue(cs, x));
  cs.Enforce(
      "binary decomp", [&] { return PackedBitsLc(bits); }, [] { return LinearCombination(Variable::One()); },
      [&] { return LinearCombination(x); });
  return bits;
}

// bellpepper multipack::pack_bits: v = sum 2^i bits[i] over the first 254
// bits; row (sum 2^i lc(bits[i]), ONE, v).
template <class CS>
Variable PackBits(CS& cs, std::span<const Boolean> bits) {
  const size_t n = bits.size() < kFrCapacity ? bits.size() : kFrCapacity;
  Variable v = cs.Alloc("input", [&] {
    ff::Fr acc;
    for (size_t i = 0; i < n; ++i)
      if (bits[i].Value()) acc += PowerOfTwo(unsigned(i));
    return acc;
  });
  cs.Enforce(
      "packing constraint",
      [&] {
        LinearCombination lc;
        for (size_t i = 0; i < n; ++i) bits[i].AddTo(lc, PowerOfTwo(unsigned(i)));
        return lc;
      },
      [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(v); });
  return v;
}

}  // namespace cuzk::snapdeals::gadgets
