#pragma once
// Groth16 data: proofs, verifying keys and proving keys, in memory.
// Points are affine. Section layouts follow bellperson's Parameters
// (../shared/specs/snapdeals.md section 9).
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/msm/density_bitmap.hpp"

namespace cuzk::groth16 {

struct Proof {
  ec::G1Affine a;
  ec::G2Affine b;
  ec::G1Affine c;
  bool operator==(const Proof&) const = default;
};

struct VerifyingKey {
  ec::G1Affine alpha_g1, beta_g1;
  ec::G2Affine beta_g2, gamma_g2;
  ec::G1Affine delta_g1;
  ec::G2Affine delta_g2;
  std::vector<ec::G1Affine> ic;  // one per public input, ONE included
};

// How the H query is laid out, which decides how the prover computes h:
//  kBellperson: h section = tau^i Z(tau)/delta, i < m-1. The prover evaluates
//    a, b, c on the coset 7*<w>, divides a*b-c by Z there (Z = 7^m - 1), and
//    interpolates back to coefficients (bellperson).
//  kSnarkjsOddCoset: the section already folds in the Lagrange basis of the
//    odd points of the 2m domain and 1/Z; the prover evaluates on the coset
//    w_2m*<w_m> and uses a*b-c there directly (snarkjs groth16_prove.js).
enum class HQueryForm { kBellperson, kSnarkjsOddCoset };

struct ProvingKey {
  VerifyingKey vk;
  HQueryForm h_form = HQueryForm::kBellperson;
  std::vector<ec::G1Affine> h;     // bellperson: m - 1 points; snarkjs: m points
  std::vector<ec::G1Affine> l;     // one per aux variable
  std::vector<ec::G1Affine> a;     // one per set bit of a_density
  std::vector<ec::G1Affine> b_g1;  // one per set bit of b_density
  std::vector<ec::G2Affine> b_g2;  // one per set bit of b_density
  msm::DensityBitmap a_density, b_density;  // over all variables
};

}  // namespace cuzk::groth16
