#pragma once
// rust-fil-proofs storage-proofs-core gadgets/insertion.rs `insert`: the
// preimage of a Merkle node with `cur` placed at the position spelled by
// `bits` (least significant first) among `siblings` (left to right, cur's
// slot removed). Arity 2: 2 picks; arity 4: 8 picks; arity 8: nor, and, then
// 20 picks (22 rows). The pick order is upstream's and fixes the aux order.
//
//   std::vector<Variable> preimage = Insert(cs, cur, index_bits, siblings);
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/pick.hpp"

namespace cuzk::snapdeals::gadgets {

// Aux (= rows) of Insert for an arity.
inline uint64_t InsertConstraints(unsigned arity) {
  switch (arity) {
    case 2: return 2;
    case 4: return 8;
    case 8: return 22;
    default: throw std::invalid_argument("Insert: unsupported arity " + std::to_string(arity));
  }
}

template <class CS>
std::vector<Variable> Insert(CS& cs, Variable cur, std::span<const Boolean> bits, std::span<const Variable> siblings) {
  const size_t arity = siblings.size() + 1;
  auto need_bits = [&](size_t n) {
    if (bits.size() != n) {
      throw std::invalid_argument("Insert: arity " + std::to_string(arity) + " needs " + std::to_string(n) +
                                  " index bits, got " + std::to_string(bits.size()));
    }
  };
  if (arity == 2) {
    need_bits(1);
    Variable p0 = Pick(cs, bits[0], siblings[0], cur);
    Variable p1 = Pick(cs, bits[0], cur, siblings[0]);
    return {p0, p1};
  }
  if (arity == 4) {
    need_bits(2);
    const Boolean &b0 = bits[0], &b1 = bits[1];
    const Variable a = cur, b = siblings[0], c = siblings[1], d = siblings[2];
    Variable p0x = Pick(cs, b0, b, a);
    Variable p0 = Pick(cs, b1, b, p0x);
    Variable p1x = Pick(cs, b0, a, b);
    Variable p1 = Pick(cs, b1, c, p1x);
    Variable p2x = Pick(cs, b0, d, a);
    Variable p2 = Pick(cs, b1, p2x, c);
    Variable p3x = Pick(cs, b0, a, d);
    Variable p3 = Pick(cs, b1, p3x, d);
    return {p0, p1, p2, p3};
  }
  if (arity == 8) {
    need_bits(3);
    const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    const Variable a = cur, b = siblings[0], c = siblings[1], d = siblings[2], e = siblings[3], f = siblings[4],
                   g = siblings[5], h = siblings[6];
    Boolean nor = And(cs, b0.Negate(), b1.Negate());
    Boolean and_ = And(cs, b0, b1);
    Variable p0_xx0 = Pick(cs, nor, a, b);
    Variable p0 = Pick(cs, b2, b, p0_xx0);
    Variable p1_x00 = Pick(cs, b0, a, b);
    Variable p1_xx0 = Pick(cs, b1, c, p1_x00);
    Variable p1 = Pick(cs, b2, c, p1_xx0);
    Variable p2_x10 = Pick(cs, b0, d, a);
    Variable p2_xx0 = Pick(cs, b1, p2_x10, c);
    Variable p2 = Pick(cs, b2, d, p2_xx0);
    Variable p3_xx0 = Pick(cs, and_, a, d);
    Variable p3 = Pick(cs, b2, e, p3_xx0);
    Variable p4_xx1 = Pick(cs, nor, a, f);
    Variable p4 = Pick(cs, b2, p4_xx1, e);
    Variable p5_x01 = Pick(cs, b0, a, f);
    Variable p5_xx1 = Pick(cs, b1, g, p5_x01);
    Variable p5 = Pick(cs, b2, p5_xx1, f);
    Variable p6_x11 = Pick(cs, b0, h, a);
    Variable p6_xx1 = Pick(cs, b1, p6_x11, g);
    Variable p6 = Pick(cs, b2, p6_xx1, g);
    Variable p7_xx1 = Pick(cs, and_, a, h);
    Variable p7 = Pick(cs, b2, p7_xx1, h);
    return {p0, p1, p2, p3, p4, p5, p6, p7};
  }
  throw std::invalid_argument("Insert: unsupported arity " + std::to_string(arity));
}

}  // namespace cuzk::snapdeals::gadgets
