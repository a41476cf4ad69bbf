#pragma once
// CompiledCircuit: an R1CS recorded once per circuit shape, in CSR form.
// Variable numbering follows bellperson: index 0 is the constant ONE, then the
// public inputs (num_inputs counts ONE), then the aux (private) variables:
//   variable v < num_inputs          -> input v
//   variable v >= num_inputs         -> aux (v - num_inputs)
// Rows are constraints in synthesis order, *without* the "input_i * 0 = 0"
// rows that Groth16 appends (the prover and setup add those).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/msm/density_bitmap.hpp"

namespace cuzk::r1cs {

// One sparse matrix in compressed-sparse-row form.
struct CsrMatrix {
  std::vector<uint64_t> row_offsets{0};  // size rows + 1
  std::vector<uint32_t> columns;         // variable indices
  std::vector<ff::Fr> values;            // coefficients (Montgomery form)

  size_t rows() const { return row_offsets.size() - 1; }
  size_t nonzeros() const { return columns.size(); }
};

struct CompiledCircuit {
  uint64_t num_inputs = 1;  // includes ONE
  uint64_t num_aux = 0;
  CsrMatrix a, b, c;
  // Which variables appear in some A (resp. B) row, over all num_inputs +
  // num_aux variables, *including* the appended input rows (every input is in
  // A). These decide which bases the a / b_g1 / b_g2 parameter sections hold.
  msm::DensityBitmap a_density, b_density;
  // Optional: constraint names for error messages (empty when not recorded).
  std::vector<std::string> constraint_names;

  uint64_t num_variables() const { return num_inputs + num_aux; }
  uint64_t num_constraints() const { return a.rows(); }
};

}  // namespace cuzk::r1cs
