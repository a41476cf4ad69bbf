#pragma once
// bellperson's UInt32 (gadgets/uint32.rs): 32 Booleans, least significant
// first, with the SHA-256 operations. Constants stay constants (no variables,
// no rows), which is what makes the second block of a TreeD node cheap.
//
//   UInt32 w = UInt32::FromBitsBe(bits);       // 32 Booleans, MSB first
//   UInt32 s = Xor(cs, w.Rotr(7), w.Rotr(18));
//   UInt32 sum = AddMany(cs, multieq, {a, b, c, d});
#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>

#include "engine/circuits/snapdeals/gadgets/boolean.hpp"
#include "engine/circuits/snapdeals/gadgets/multieq.hpp"
#include "engine/circuits/snapdeals/gadgets/powers_of_two.hpp"

namespace cuzk::snapdeals::gadgets {

struct UInt32 {
  std::array<Boolean, 32> bits;  // bit 0 = least significant
  uint32_t value = 0;            // meaningful when the CS has values

  static UInt32 Constant(uint32_t v) {
    UInt32 u;
    for (unsigned i = 0; i < 32; ++i) u.bits[i] = Boolean::Constant((v >> i) & 1);
    u.value = v;
    return u;
  }
  // From 32 Booleans, most significant first.
  static UInt32 FromBitsBe(std::span<const Boolean> be) {
    if (be.size() != 32) throw std::invalid_argument("UInt32::FromBitsBe needs 32 bits");
    UInt32 u;
    for (unsigned i = 0; i < 32; ++i) {
      u.bits[i] = be[31 - i];
      u.value |= uint32_t(be[31 - i].Value()) << i;
    }
    return u;
  }
  // Bit j of the result = bit (j + k) mod 32.
  UInt32 Rotr(unsigned k) const {
    k %= 32;
    UInt32 u;
    for (unsigned j = 0; j < 32; ++j) u.bits[j] = bits[(j + k) % 32];
    u.value = std::rotr(value, int(k));
    return u;
  }
  // Bit j of the result = bit j + k, or Constant(false).
  UInt32 Shr(unsigned k) const {
    k %= 32;
    UInt32 u;
    for (unsigned j = 0; j < 32; ++j) u.bits[j] = j + k < 32 ? bits[j + k] : Boolean::Constant(false);
    u.value = value >> k;
    return u;
  }
  bool IsConstant() const {
    for (const auto& b : bits)
      if (!b.is_constant()) return false;
    return true;
  }
};

template <class CS>
UInt32 Xor(CS& cs, const UInt32& a, const UInt32& b) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits[i] = Xor(cs, a.bits[i], b.bits[i]);
  r.value = a.value ^ b.value;
  return r;
}

template <class CS>
UInt32 Sha256Ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits[i] = Sha256Ch(cs, a.bits[i], b.bits[i], c.bits[i]);
  r.value = (a.value & b.value) ^ (~a.value & c.value);
  return r;
}

template <class CS>
UInt32 Sha256Maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
  UInt32 r;
  for (unsigned i = 0; i < 32; ++i) r.bits[i] = Sha256Maj(cs, a.bits[i], b.bits[i], c.bits[i]);
  r.value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
  return r;
}

// UInt32::addmany: the sum of 2..10 operands modulo 2^32. All-constant
// operands give a constant; otherwise n = bit length of len * (2^32 - 1)
// result bits are allocated (values: the un-reduced sum) and
// MultiEq::EnforceEqual(n, sum of operand bits, sum of result bits) ties them.
template <class CS>
UInt32 AddMany(MultiEq<CS>& me, std::span<const UInt32> ops) {
  if (ops.size() < 2 || ops.size() > 10) throw std::invalid_argument("AddMany needs 2..10 operands");
  CS& cs = me.cs();
  uint64_t sum = 0;
  bool all_constant = true;
  for (const UInt32& op : ops) {
    sum += op.value;
    all_constant = all_constant && op.IsConstant();
  }
  if (all_constant) return UInt32::Constant(uint32_t(sum));

  const unsigned n = unsigned(std::bit_width(uint64_t(ops.size()) * 0xffffffffull));
  r1cs::LinearCombination lhs, rhs;
  if constexpr (kNeedsLcs<CS>) {
    lhs.Reserve(ops.size() * 32);
    for (const UInt32& op : ops)
      for (unsigned j = 0; j < 32; ++j) op.bits[j].AddTo(lhs, PowerOfTwo(j));
    rhs.Reserve(n);
  }
  UInt32 out;
  for (unsigned i = 0; i < n; ++i) {
    AllocatedBit b = AllocBit(cs, (sum >> i) & 1);
    if constexpr (kNeedsLcs<CS>) rhs.Add(b.var, PowerOfTwo(i));
    if (i < 32) out.bits[i] = Boolean::Is(b);
  }
  me.EnforceEqual(n, lhs, rhs);
  out.value = uint32_t(sum);
  return out;
}

template <class CS>
UInt32 AddMany(MultiEq<CS>& me, std::initializer_list<UInt32> ops) {
  return AddMany(me, std::span<const UInt32>(ops.begin(), ops.size()));
}

}  // namespace cuzk::snapdeals::gadgets
