#pragma once
// circom's .r1cs file (format version 1, https://github.com/iden3/r1csfile,
// the reader snarkjs uses) as a CompiledCircuit.
//
// Sections (binfile container, see bin_file.hpp):
//   1 header:      n8:u32  prime[n8]  nWires:u32  nPubOut:u32  nPubIn:u32
//                  nPrvIn:u32  nLabels:u64  nConstraints:u32
//   2 constraints: per constraint, A, B and C as a linear combination:
//                  nTerms:u32, then nTerms x (wire:u32, coefficient[n8] canonical LE)
//   3 wire->label: nWires x label:u64   (required: its size is what bounds nWires
//                  by the file's; circom always writes it. Kept for messages)
//   4, 5 custom gates (PLONK only): rejected.
//
// Wire numbering is already ours: wire 0 is ONE, then the public outputs,
// then the public inputs (snarkjs's "public signals", in that order), then
// the private inputs and internal wires. So variable v = wire v,
// num_inputs = 1 + nPubOut + nPubIn, and every row is one circom constraint
// in file order. Only the BLS12-381 scalar field is accepted (circom
// --prime bls12381). Terms with a zero coefficient (circom writes none) are
// dropped: a CompiledCircuit holds none, and snarkjs's zkey has the point at
// infinity for a variable whose only coefficients are zero, which is what the
// densities then say.
//
//   R1csFile r1cs = ReadR1cs("circuit.r1cs");        // throws FormatError
//   const r1cs::CompiledCircuit& cs = r1cs.circuit;
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::snarkjs {

struct R1csFile {
  r1cs::CompiledCircuit circuit;  // with densities (r1cs::ComputeDensities)
  uint32_t n_wires = 0;
  uint32_t n_pub_outputs = 0;
  uint32_t n_pub_inputs = 0;
  uint32_t n_prv_inputs = 0;
  uint64_t n_labels = 0;
  std::vector<uint64_t> wire_to_label;  // n_wires entries (section 3)

  // snarkjs's nPublic: the public signals after ONE.
  uint32_t n_public() const { return n_pub_outputs + n_pub_inputs; }
};

// Parses an in-memory file; name goes into error messages.
R1csFile ParseR1cs(std::span<const uint8_t> bytes, const std::string& name);
R1csFile ReadR1cs(const std::string& path);

// The file circom would write for this circuit (sections 1, 2 and, when
// wire_to_label is set, 3: ParseR1cs refuses a file without it). Used by tests
// and to hand our circuits to snarkjs.
std::vector<uint8_t> SerializeR1cs(const R1csFile& r1cs);

}  // namespace cuzk::snarkjs
