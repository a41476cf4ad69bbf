#pragma once
// Random satisfiable R1CS circuits with a witness, for tests of the compact
// circuit / witness forms and the a/b/c evaluation (host and device).
//
// Variables: ONE and num_public inputs, then `free_aux` aux values drawn like
// a Groth16 witness (mostly 0 and 1, a few random), then one aux output w_r
// per constraint r. Row r: A and B take a few terms over the inputs, the
// free aux and earlier outputs; C = k w_r + (a few such terms), and w_r is
// solved so that the row holds. Every free aux f also appears in C of row
// f mod constraints: a variable in no row has an identity L point, which the
// setup refuses (as bellperson does), so a circuit that left one out by
// chance made a test fail for one seed in a few hundred. Coefficients are
// drawn as in SnapDeals (mostly +-1 and powers of two) plus a share of
// random ones.
// BreakRow(j) changes w_j, so row j is the first that fails (later rows may
// fail too).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::test {

struct RandomCircuitParams {
  uint64_t constraints = 100;
  uint64_t num_public = 3;  // inputs besides ONE
  uint64_t free_aux = 50;
  uint32_t max_terms = 6;           // per A/B row (C gets up to this many besides w_r)
  double random_coeff_share = 0.1;  // coefficients drawn uniformly from Fr
  bool empty_rows = true;           // some A/B rows empty (a = 0 or b = 0)
};

struct RandomCircuit {
  r1cs::CompiledCircuit circuit;
  r1cs::Assignment z;
  // Changes the output variable of row `row` so that row fails.
  void BreakRow(uint64_t row) { z.values[circuit.num_inputs + free_aux + row] += ff::Fr::One(); }
  uint64_t free_aux = 0;
};

inline ff::Fr RandomCoefficient(std::mt19937_64& rng, double random_share) {
  std::uniform_real_distribution<double> u(0, 1);
  const double x = u(rng);
  if (x < random_share) {
    ff::Fr v = ff::Fr::Random(rng);
    return v.IsZero() ? ff::Fr::One() : v;
  }
  switch (rng() % 5) {
    case 0:
    case 1: return ff::Fr::One();
    case 2: return -ff::Fr::One();
    case 3: return ff::Fr::FromUint64(uint64_t(1) << (rng() % 64));
    default: return -ff::Fr::FromUint64(uint64_t(2) << (rng() % 32));
  }
}

inline ff::Fr RandomWitnessValue(std::mt19937_64& rng) {
  const uint64_t x = rng() % 100;
  if (x < 50) return ff::Fr::Zero();
  if (x < 95) return ff::Fr::One();
  return ff::Fr::Random(rng);
}

inline RandomCircuit MakeRandomCircuit(const RandomCircuitParams& p, std::mt19937_64& rng) {
  RandomCircuit rc;
  rc.free_aux = p.free_aux;
  r1cs::CompiledCircuit& cc = rc.circuit;
  cc.num_inputs = 1 + p.num_public;
  cc.num_aux = p.free_aux + p.constraints;
  const uint64_t n = cc.num_variables();
  std::vector<ff::Fr>& z = rc.z.values;
  rc.z.num_inputs = cc.num_inputs;
  z.resize(n);
  z[0] = ff::Fr::One();
  for (uint64_t v = 1; v < cc.num_inputs + p.free_aux; ++v) z[v] = RandomWitnessValue(rng);
  const uint64_t first_output = cc.num_inputs + p.free_aux;
  auto add_term = [&](r1cs::CsrMatrix& m, uint32_t col, ff::Fr& value) {
    const ff::Fr k = RandomCoefficient(rng, p.random_coeff_share);
    m.columns.push_back(col);
    m.values.push_back(k);
    value += k * z[col];
  };
  // Terms over the variables known before row r: inputs, free aux, outputs < r.
  auto add_terms = [&](r1cs::CsrMatrix& m, uint64_t r, uint32_t terms, ff::Fr& value) {
    const uint64_t known = first_output + r;
    const size_t row_begin = m.row_offsets.empty() ? 0 : size_t(m.row_offsets.back());
    for (uint32_t t = 0; t < terms && m.columns.size() - row_begin < known; ++t) {
      // Distinct columns in a row: a repeated one could cancel (+1 and -1),
      // leaving a dense variable whose A or B polynomial is 0, which the setup refuses.
      uint32_t col = 0;
      do {
        col = uint32_t(rng() % known);
      } while (std::find(m.columns.begin() + row_begin, m.columns.end(), col) != m.columns.end());
      add_term(m, col, value);
    }
  };
  for (uint64_t r = 0; r < p.constraints; ++r) {
    ff::Fr a, b, c_rest;
    const uint32_t lo = p.empty_rows ? 0 : 1;
    add_terms(cc.a, r, lo + uint32_t(rng() % (p.max_terms + 1 - lo)), a);
    add_terms(cc.b, r, lo + uint32_t(rng() % (p.max_terms + 1 - lo)), b);
    // C: k w_r first, then the rest; w_r = (a b - rest) / k.
    const ff::Fr k = RandomCoefficient(rng, p.random_coeff_share);
    const uint64_t w = first_output + r;
    cc.c.columns.push_back(uint32_t(w));
    cc.c.values.push_back(k);
    for (uint64_t f = r; f < p.free_aux; f += p.constraints) add_term(cc.c, uint32_t(cc.num_inputs + f), c_rest);
    add_terms(cc.c, r, uint32_t(rng() % p.max_terms), c_rest);
    z[w] = (a * b - c_rest) * k.Inverse();
    for (r1cs::CsrMatrix* m : {&cc.a, &cc.b, &cc.c}) m->row_offsets.push_back(m->columns.size());
  }
  r1cs::ComputeDensities(cc);
  return rc;
}

}  // namespace cuzk::test
