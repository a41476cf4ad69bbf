#pragma once
// CompactCircuit: a CompiledCircuit's A, B, C in the form that lives on the
// GPU (cuda/r1cs/device_circuit.hpp), built once per circuit shape.
//
//   r1cs::CompactCircuit cc = r1cs::Compact(compiled);   // host, once per parameter set
//   r1cs::CsrMatrix a = r1cs::Expand(cc, cc.a);          // the exact inverse (tests)
//
// Per nonzero the host CSR holds 4 B of column and a 32 B coefficient; the
// compact form 4 B of column and a 2 B code into one coefficient table shared
// by the three matrices (6 B instead of 36). SnapDeals coefficients are
// almost all +-1 and small powers of two plus the hash constants, a few
// hundred distinct values, so the table (<= 65,535 entries, 2 MB at most)
// stays in the device's L2. Codes 0 and 1 are always +1 and -1 (present in
// the table or not), so the kernel adds or subtracts z without a
// multiplication for them.
//
// A value that finds no room in the table (a circuit with more distinct
// coefficients than max_table, e.g. the random ones of the tests) is an
// escape: code kEscapeCode, its value in the matrix's escape list, sorted by
// nonzero position, which the kernel binary-searches (log2(escapes) reads per
// escaped nonzero; nothing for the others).
//
// Row offsets are 32-bit: a matrix must have fewer than 2^32 nonzeros
// (std::length_error otherwise; a 32 GiB SnapDeals partition has 81M rows,
// so that is an average of 53 nonzeros per row and matrix).
#include <cstdint>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::r1cs {

inline constexpr uint16_t kCoefficientOne = 0, kCoefficientMinusOne = 1;
inline constexpr uint16_t kEscapeCode = 0xffff;
inline constexpr size_t kMaxCoefficientTable = kEscapeCode;  // codes 0 .. 0xfffe

struct CompactMatrix {
  std::vector<uint32_t> row_offsets{0};    // rows + 1
  std::vector<uint32_t> columns;           // variable indices, as in the host CSR
  std::vector<uint16_t> codes;             // per nonzero: index into CompactCircuit::coefficients, or kEscapeCode
  std::vector<uint32_t> escape_positions;  // nonzero indices k with codes[k] == kEscapeCode, ascending
  std::vector<ff::Fr> escape_values;       // their coefficients, same order

  size_t rows() const { return row_offsets.size() - 1; }
  size_t nonzeros() const { return columns.size(); }
  size_t Bytes() const;
};

struct CompactCircuit {
  uint64_t num_inputs = 1;  // includes ONE
  uint64_t num_aux = 0;
  // Shared by A, B, C: [0] = 1, [1] = -1, then the other values by falling
  // frequency (Montgomery form).
  std::vector<ff::Fr> coefficients;
  CompactMatrix a, b, c;

  uint64_t num_variables() const { return num_inputs + num_aux; }
  uint64_t num_constraints() const { return a.rows(); }
  uint64_t num_prover_rows() const { return num_constraints() + num_inputs; }
  // The device memory the form takes (all arrays, table included).
  size_t Bytes() const;
};

struct CompactOptions {
  // Table entries at most (2 .. kMaxCoefficientTable); values beyond are
  // escapes. Smaller only for tests of the escape path.
  size_t max_table = kMaxCoefficientTable;
  unsigned threads = 0;  // 0 = all hardware threads
};

// std::invalid_argument for a bad max_table or a circuit whose matrices differ
// in rows; std::length_error for a matrix of 2^32 nonzeros or more.
CompactCircuit Compact(const CompiledCircuit& circuit, const CompactOptions& options = {});

// The coefficient of nonzero k of m (table entry or escape).
ff::Fr CoefficientAt(const CompactCircuit& circuit, const CompactMatrix& m, uint64_t k);

// The host CSR back (row offsets widened, coefficients looked up): equals the
// matrix Compact was given.
CsrMatrix Expand(const CompactCircuit& circuit, const CompactMatrix& m);

}  // namespace cuzk::r1cs
