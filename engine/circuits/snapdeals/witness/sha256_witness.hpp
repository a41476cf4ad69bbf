#pragma once
// The aux values of one TreeD node (gadgets/tree_d_hash.hpp) computed natively:
// the same 45,331 values in the same order as the gadget under r1cs::WitnessCS,
// but on 32-bit words instead of 32 Boolean objects per word.
//
//   Fr parent = TreeDHashWitness(left, right, out);   // writes out[0 .. kTreeDHashAux)
//
// How: bellperson's Boolean rules (constant / variable / negated variable) are
// evaluated for all 32 bits of a word at once with three masks per word (the
// value each bit stands for, which bits are constants, which are negated
// views). An operation's allocation mask says which bits allocate a variable;
// those bits' variable values are written in bit order, as the gadget's
// per-bit loop does. Which bits are constant is fixed by the circuit (the
// SHA-256 IV, the padding block and the two constant zero bits of the
// 255-bit inputs), never by the data, so the layout matches the gadget for
// every input; tests compare the two paths value by value.
// Cost: ~45k Fr writes plus ~3k word operations per node (the gadget path
// handles ~100k Boolean objects and value callbacks per node).
#include "engine/ff/fr.hpp"

namespace cuzk::snapdeals::witness {

// out must hold gadgets::kTreeDHashAux (45,331) values.
ff::Fr TreeDHashWitness(const ff::Fr& left, const ff::Fr& right, ff::Fr* out);

}  // namespace cuzk::snapdeals::witness
