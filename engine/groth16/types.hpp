#pragma once
// Groth16 data: proofs, verifying keys and proving keys, in memory.
// Points are affine. Section layouts follow bellperson's Parameters
// (../shared/specs/snapdeals.md section 9).
#include <cstdint>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/msm/density_bitmap.hpp"
#include "engine/util/overwrite_vector.hpp"

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
  bool operator==(const VerifyingKey&) const = default;
};

// How the H query is laid out, which decides how the prover computes h.
// m is the domain size (a power of two >= constraints + inputs).
//
//  kBellperson: h_i = tau^i Z(tau)/delta, i < m - 1, Z(X) = X^m - 1. Domain
//    roots omega_m = 7^((r-1)/m) (bellperson's ROOT_OF_UNITY powers); row i of
//    the R1CS is the point omega^i. The prover interpolates a, b, c, evaluates
//    on the coset 7<omega>, divides a*b - c by Z there (Z = 7^m - 1) and
//    interpolates back: the m - 1 coefficients of H(X) = (AB - C)/Z.
//
//  kSnarkjsOddCoset: snarkjs's zkey and groth16_prove.js. Domain roots are
//    ffjavascript's, w_m = 5^((r-1)/m) (5 is the smallest non-residue mod r;
//    bellperson's 7-based roots are different, so the whole domain follows
//    snarkjs: row i is the point w_m^i). With g = w_2m, a primitive 2m-th root
//    with g^2 = w_m, the odd points x_j = g w_m^j of the 2m domain satisfy
//    x_j^m = -1, so Z(x_j) = -2 for all j. H has degree <= m - 2 and is fixed by
//    its values on these m points, so
//      H(tau) Z(tau) = sum_j H(x_j) L'_j(tau) Z(tau) = sum_j P(x_j) * (-L'_j(tau) Z(tau) / 2)
//    with P = AB - C and L'_j the Lagrange basis of {x_j}. The 2m-domain
//    Lagrange polynomial of the odd point 2j+1 is exactly
//      L^{2m}_{2j+1}(X) = x_j (X^2m - 1) / (2m (X - x_j)) = -Z(X) L'_j(X) / 2,
//    so the section holds h_j = L^{2m}_{2j+1}(tau) / delta (m points; what
//    snarkjs takes from the ptau's Lagrange section), and the prover's
//    scalars are P(x_j) itself: no division.
enum class HQueryForm { kBellperson, kSnarkjsOddCoset };

using G1Points = util::OverwriteVector<ec::G1Affine>;
using G2Points = util::OverwriteVector<ec::G2Affine>;

struct ProvingKey {
  VerifyingKey vk;
  HQueryForm h_form = HQueryForm::kBellperson;
  // The points: tens of GB at 32 GiB, sized by readers that write every
  // element next on many threads (OverwriteVector: resize writes nothing).
  G1Points h;                               // bellperson: m - 1 points; snarkjs: m points
  G1Points l;                               // one per aux variable
  G1Points a;                               // one per set bit of a_density
  G1Points b_g1;                            // one per set bit of b_density
  G2Points b_g2;                            // one per set bit of b_density
  msm::DensityBitmap a_density, b_density;  // over all variables

  uint64_t num_inputs() const { return vk.ic.size(); }  // ONE included
  uint64_t num_aux() const { return l.size(); }
  uint64_t num_variables() const { return num_inputs() + num_aux(); }
  // The FFT domain size m the key was made for.
  uint64_t domain_size() const { return h_form == HQueryForm::kBellperson ? h.size() + 1 : h.size(); }
};

}  // namespace cuzk::groth16
