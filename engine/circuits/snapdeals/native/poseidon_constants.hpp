#pragma once
// Poseidon constants exactly as neptune 11 derives them for BLS12-381 Fr with
// Strength::Standard (spec section 7): Grain-LFSR round constants, the Cauchy
// MDS matrix M[i][j] = 1 / (i + t + j), and the "optimized static" form that
// neptune's legacy circuit uses (compressed round constants, pre-sparse matrix,
// one sparse matrix per partial round). The circuit's witness values and LC
// coefficients come from the optimized form, so it is exposed here.
//
//   const PoseidonConstants& c = GetPoseidonConstants(8);   // computed once, thread-safe
//   c.width == 9; c.partial_rounds == 57; c.compressed_round_constants.size() == 8 * 9 + 57
//
// Cost: computed on first use per arity (arity 11: ~10 ms); afterwards shared.
#include <cstddef>
#include <vector>

#include "engine/ff/fr.hpp"

namespace cuzk::snapdeals {

using ff::Fr;

// A t x t matrix, row-major.
struct PoseidonMatrix {
  size_t n = 0;
  std::vector<Fr> m;

  const Fr& at(size_t row, size_t col) const { return m[row * n + col]; }
  Fr& at(size_t row, size_t col) { return m[row * n + col]; }
};

// The sparse matrix S of one partial round, stored as neptune does: w = column 0
// of S (t values: S[0][0], then w_hat), v = row 0 without its first entry
// (t - 1 values). Applied to a row-state s: s'_0 = sum_i s_i * w[i],
// s'_j = s_j + s_0 * v[j - 1] for j >= 1.
struct PoseidonSparseMatrix {
  std::vector<Fr> w;
  std::vector<Fr> v;
};

struct PoseidonConstants {
  unsigned arity = 0;
  unsigned width = 0;           // t = arity + 1
  unsigned full_rounds = 8;     // R_F
  unsigned partial_rounds = 0;  // R_P: 55 (t=3), 56 (t=5), 57 (t=9, t=12)

  // Plain form (spec 7.2): (R_F + R_P) * t constants, round r uses [r*t, (r+1)*t).
  std::vector<Fr> round_constants;
  PoseidonMatrix mds;
  PoseidonMatrix mds_inverse;

  // Optimized-static form (spec 7.3).
  std::vector<Fr> compressed_round_constants;  // 8t + R_P
  PoseidonMatrix pre_sparse_matrix;            // used after full round 3 instead of M
  // In use order: partial round r (r = 0 .. R_P - 1) uses sparse_matrices[r]
  // (the spec's S_{R_P-1-r}).
  std::vector<PoseidonSparseMatrix> sparse_matrices;
};

// Arities 2, 4, 8 and 11 (the ones with upstream test vectors; SnapDeals needs
// 2, 4 and 8). Throws std::invalid_argument for anything else.
const PoseidonConstants& GetPoseidonConstants(unsigned arity);
bool IsSupportedPoseidonArity(unsigned arity);

// Grain LFSR (Poseidon paper, neptune round_constants.rs): `count` field
// elements for (t, R_F, R_P); exposed for tests of the first constant.
std::vector<Fr> GrainRoundConstants(unsigned width, unsigned full_rounds, unsigned partial_rounds, size_t count);

}  // namespace cuzk::snapdeals
