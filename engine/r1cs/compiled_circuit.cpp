#include "engine/r1cs/compiled_circuit.hpp"

#include <stdexcept>

namespace cuzk::r1cs {

std::string CompiledCircuit::RowName(uint64_t row) const {
  if (row >= num_constraints()) {
    return "input row " + std::to_string(row - num_constraints()) + " (input_i * 0 = 0)";
  }
  if (row < constraint_names.size()) return constraint_names[row];
  return "constraint #" + std::to_string(row) + " (names not recorded)";
}

namespace {

msm::DensityBitmap DensityOf(const CsrMatrix& m, uint64_t num_variables) {
  msm::DensityBitmap d(num_variables);
  for (size_t k = 0; k < m.columns.size(); ++k) {
    if (!m.values[k].IsZero()) d.Set(m.columns[k]);
  }
  return d;
}

void ValidateMatrix(const CsrMatrix& m, const char* name, uint64_t rows, uint64_t num_variables) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string("compiled circuit: matrix ") + name + ": " + what);
  };
  if (m.row_offsets.empty() || m.row_offsets.front() != 0) fail("row_offsets must start with 0");
  if (m.rows() != rows) fail("has " + std::to_string(m.rows()) + " rows, A has " + std::to_string(rows));
  if (m.columns.size() != m.values.size()) fail("columns and values differ in length");
  if (m.row_offsets.back() != m.columns.size()) fail("last row offset is not the number of entries");
  for (size_t r = 0; r < m.rows(); ++r) {
    if (m.row_offsets[r] > m.row_offsets[r + 1]) fail("row offsets decrease at row " + std::to_string(r));
  }
  for (size_t k = 0; k < m.columns.size(); ++k) {
    if (m.columns[k] >= num_variables) {
      fail("entry " + std::to_string(k) + " has column " + std::to_string(m.columns[k]) +
           " >= " + std::to_string(num_variables) + " variables");
    }
    if (m.values[k].IsZero()) fail("entry " + std::to_string(k) + " has a zero coefficient");
  }
}

}  // namespace

void ComputeDensities(CompiledCircuit& circuit) {
  const uint64_t n = circuit.num_variables();
  circuit.a_density = DensityOf(circuit.a, n);
  for (uint64_t i = 0; i < circuit.num_inputs; ++i) circuit.a_density.Set(i);
  circuit.b_density = DensityOf(circuit.b, n);
}

void ValidateCircuit(const CompiledCircuit& circuit) {
  if (circuit.num_inputs == 0) throw std::invalid_argument("compiled circuit: num_inputs must count ONE (>= 1)");
  const uint64_t n = circuit.num_variables();
  if (n > uint64_t(UINT32_MAX)) throw std::invalid_argument("compiled circuit: more than 2^32 variables");
  const uint64_t rows = circuit.a.rows();
  ValidateMatrix(circuit.a, "A", rows, n);
  ValidateMatrix(circuit.b, "B", rows, n);
  ValidateMatrix(circuit.c, "C", rows, n);
  if (!circuit.constraint_names.empty() && circuit.constraint_names.size() != rows) {
    throw std::invalid_argument("compiled circuit: " + std::to_string(circuit.constraint_names.size()) +
                                " constraint names for " + std::to_string(rows) + " rows");
  }
  if (circuit.a_density.size() != n || circuit.b_density.size() != n) {
    throw std::invalid_argument("compiled circuit: density bitmaps must cover all " + std::to_string(n) + " variables");
  }
  msm::DensityBitmap a = DensityOf(circuit.a, n), b = DensityOf(circuit.b, n);
  for (uint64_t i = 0; i < circuit.num_inputs; ++i) a.Set(i);
  if (!(a == circuit.a_density)) throw std::invalid_argument("compiled circuit: a_density disagrees with matrix A");
  if (!(b == circuit.b_density)) throw std::invalid_argument("compiled circuit: b_density disagrees with matrix B");
}

}  // namespace cuzk::r1cs
