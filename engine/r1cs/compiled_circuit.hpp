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
#include "engine/util/overwrite_vector.hpp"

namespace cuzk::r1cs {

// One sparse matrix in compressed-sparse-row form.
// The arrays are util::OverwriteVector (gigabytes at 32 GiB): sizing them
// writes nothing, so an image read fills them on many threads without a
// one-thread pass first; whoever resizes one writes every new element.
struct CsrMatrix {
  util::OverwriteVector<uint64_t> row_offsets{0};  // size rows + 1
  util::OverwriteVector<uint32_t> columns;         // variable indices
  util::OverwriteVector<ff::Fr> values;            // coefficients (Montgomery form)

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
  // Rows the Groth16 prover and setup see: the constraints, then one
  // "input_i * 0 = 0" row per input (ONE included).
  uint64_t num_prover_rows() const { return num_constraints() + num_inputs; }
  // Name of a row for messages: the recorded name, else "constraint #i"
  // (rows past the constraints are the appended input rows).
  std::string RowName(uint64_t row) const;
};

// Recomputes a_density and b_density from the matrices: a variable is dense
// when it has a (non-zero) coefficient in some row; every input is A-dense
// (the appended input rows).
void ComputeDensities(CompiledCircuit& circuit);

// Checks internal consistency (three matrices of equal row count, offsets
// monotone and in range, columns < num_variables, no zero coefficient,
// densities of the right size and equal to the recomputed ones, names absent
// or one per row). Throws std::invalid_argument naming the first problem.
// For circuits from outside (files); RecordingCS output is valid by construction.
void ValidateCircuit(const CompiledCircuit& circuit);

}  // namespace cuzk::r1cs
