#pragma once
// The witness-only GPU steps (abc_steps.hpp) run on the host through the
// emulated device field, over the host vectors of a CompactCircuit and a
// CompactWitness: for tests on machines without a GPU (slow: microseconds
// per emulated multiplication; keep circuits small).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "cuda/r1cs/abc_steps.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compact_witness.hpp"

namespace cuzk::cuda {

// ff::Fr and cuda::Fr share their bytes (cuda/ff/fr.hpp).
inline const Fr* AsDevice(const ff::Fr* p) { return reinterpret_cast<const Fr*>(p); }
inline Fr* AsDevice(ff::Fr* p) { return reinterpret_cast<Fr*>(p); }

inline r1cs_steps::MatrixView HostMatrixView(const r1cs::CompactMatrix& m) {
  return {m.row_offsets.data(),
          m.columns.data(),
          m.codes.data(),
          m.escape_positions.data(),
          AsDevice(m.escape_values.data()),
          uint32_t(m.escape_positions.size())};
}

inline r1cs_steps::CircuitView HostCircuitView(const r1cs::CompactCircuit& cc) {
  return {AsDevice(cc.coefficients.data()),
          HostMatrixView(cc.a),
          HostMatrixView(cc.b),
          HostMatrixView(cc.c),
          cc.num_constraints(),
          cc.num_inputs};
}

inline std::vector<ff::Fr> EmulatedExpandWitness(const r1cs::CompactWitness& w) {
  std::vector<ff::Fr> z(w.num_variables);
  const r1cs_steps::WitnessView view{w.classes.data(), w.chunk_others.data(), AsDevice(w.others.data()),
                                     w.num_variables};
  for (uint64_t v = 0; v < w.num_variables; ++v) r1cs_steps::ExpandWitnessStep(v, view, AsDevice(z.data()));
  return z;
}

struct EmulatedAbc {
  std::vector<ff::Fr> a, b, c;                // m each
  std::optional<uint64_t> first_unsatisfied;  // smallest row with a b != c
};

// m >= cc.num_prover_rows() (std::invalid_argument otherwise). With
// `classes` (the classes of the CompactWitness z expands from), 0 and 1 are
// read from them, as the device does after ExpandWitness.
inline EmulatedAbc EmulatedEvaluateAbc(const r1cs::CompactCircuit& cc, std::span<const ff::Fr> z, size_t m,
                                       const uint32_t* classes = nullptr) {
  if (m < cc.num_prover_rows() || z.size() != cc.num_variables()) {
    throw std::invalid_argument("EmulatedEvaluateAbc: domain or witness of the wrong size");
  }
  EmulatedAbc out;
  // Filled with a non-zero pattern so that a row the steps do not write shows up.
  out.a.assign(m, ff::Fr::FromUint64(0xdead)), out.b = out.a, out.c = out.a;
  const r1cs_steps::CircuitView view = HostCircuitView(cc);
  uint64_t first = UINT64_MAX;
  for (uint64_t row = 0; row < m; ++row) {
    if (!r1cs_steps::EvaluateRowStep(row, view, AsDevice(z.data()), classes, AsDevice(out.a.data()),
                                     AsDevice(out.b.data()), AsDevice(out.c.data()))) {
      first = std::min(first, row);
    }
  }
  if (first != UINT64_MAX) out.first_unsatisfied = first;
  return out;
}

}  // namespace cuzk::cuda
