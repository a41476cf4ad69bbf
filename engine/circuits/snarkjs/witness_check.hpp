#pragma once
// A snarkjs witness as the Assignment our Groth16 prover takes, checked
// against the circuit first: the length must be the r1cs's wire count,
// value 0 must be 1 (the ONE wire), and every constraint must hold. The
// first failing constraint is named by its index in the .r1cs file (the
// order of `snarkjs r1cs print`), with its wires and their evaluated sides,
// because circom records no constraint names; with the circuit's .sym file
// (sym_file.hpp) the wires carry their signal names ("main.prod[1]").
//
//   R1csFile r1cs = ReadR1cs("c.r1cs");
//   r1cs::Assignment z = WitnessToAssignment(r1cs, ReadWtns("w.wtns"), "w.wtns");
#include <string>
#include <vector>

#include "engine/circuits/snarkjs/r1cs_file.hpp"
#include "engine/ff/fr.hpp"
#include "engine/r1cs/assignment.hpp"

namespace cuzk::snarkjs {

// Throws FormatError: kMalformed for a wrong length, kInvalidValue for a
// witness that does not satisfy the circuit (the message names the constraint).
// wire_names: optional, one per wire (ReadSymWireNames).
r1cs::Assignment WitnessToAssignment(const R1csFile& r1cs, std::vector<ff::Fr> witness, const std::string& name,
                                     unsigned threads = 0, const std::vector<std::string>* wire_names = nullptr);

}  // namespace cuzk::snarkjs
