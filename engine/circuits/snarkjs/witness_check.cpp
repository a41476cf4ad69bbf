#include "engine/circuits/snarkjs/witness_check.hpp"

#include <sstream>

#include "engine/circuits/snarkjs/field_codec.hpp"
#include "engine/circuits/snarkjs/format_error.hpp"
#include "engine/r1cs/evaluate.hpp"

namespace cuzk::snarkjs {

namespace {

// "3 * w7 + w8" with the wires' values: enough to find the culprit in a
// circom circuit alongside `snarkjs r1cs print` and the .sym file.
std::string DescribeRow(const r1cs::CsrMatrix& m, uint64_t row, const std::vector<ff::Fr>& z,
                        const std::vector<std::string>* wire_names) {
  std::ostringstream out;
  constexpr uint64_t kMaxTerms = 8;
  uint64_t begin = m.row_offsets[row], end = m.row_offsets[row + 1];
  if (begin == end) return "0";
  for (uint64_t k = begin; k < end && k < begin + kMaxTerms; ++k) {
    if (k != begin) out << " + ";
    const ff::Fr& c = m.values[k];
    if (c == -ff::Fr::One()) {
      out << "-";
    } else if (!c.IsOne()) {
      out << ToDecimal(c) << "*";
    }
    uint32_t w = m.columns[k];
    out << "w" << w;
    if (wire_names && w < wire_names->size() && !(*wire_names)[w].empty()) out << " " << (*wire_names)[w];
    out << " (=" << ToDecimal(z[w]) << ")";
  }
  if (end - begin > kMaxTerms) out << " + ... (" << (end - begin) << " terms)";
  return out.str();
}

}  // namespace

r1cs::Assignment WitnessToAssignment(const R1csFile& r1cs, std::vector<ff::Fr> witness, const std::string& name,
                                     unsigned threads, const std::vector<std::string>* wire_names) {
  const r1cs::CompiledCircuit& cs = r1cs.circuit;
  if (witness.size() != cs.num_variables()) {
    throw FormatError(name + ": the witness has " + std::to_string(witness.size()) + " values but the circuit has " +
                      std::to_string(cs.num_variables()) + " wires (a witness of another circuit?)");
  }
  if (!witness[0].IsOne()) {
    throw FormatError(ErrorKind::kInvalidValue,
                      name + ": value 0 (the constant ONE wire) is " + ToDecimal(witness[0]) + ", not 1");
  }
  if (auto f = r1cs::FirstUnsatisfied(cs, witness, threads)) {
    std::ostringstream msg;
    msg << name << ": the witness does not satisfy constraint " << f->index << " of " << cs.num_constraints()
        << " (r1cs file order): A * B != C with\n  A = " << DescribeRow(cs.a, f->index, witness, wire_names) << " = "
        << ToDecimal(f->a) << "\n  B = " << DescribeRow(cs.b, f->index, witness, wire_names) << " = " << ToDecimal(f->b)
        << "\n  C = " << DescribeRow(cs.c, f->index, witness, wire_names) << " = " << ToDecimal(f->c);
    throw FormatError(ErrorKind::kInvalidValue, msg.str());
  }
  r1cs::Assignment z;
  z.num_inputs = cs.num_inputs;
  z.values = std::move(witness);
  return z;
}

}  // namespace cuzk::snarkjs
