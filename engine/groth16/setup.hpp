#pragma once
// Local Groth16 setup (bellperson's generate_random_parameters) for circuits
// without a ceremony: tests, benchmarks, our own circuits.
//
// Toxic waste tau, alpha, beta, gamma, delta comes from the OS CSPRNG, lives
// only in this call's stack frame and is wiped before returning; it is never
// logged or written. Sections, with L_i(tau) the Lagrange polynomials of the
// domain (row i at w^i) and A_v(tau) = sum_rows coeff * L_row(tau):
//   a_v = A_v(tau) G1, b_g1_v = B_v(tau) G1, b_g2_v = B_v(tau) G2 for the
//     variables of a_density / b_density (a dense variable whose value is 0
//     would be an identity point, which readers reject: setup fails);
//   l_j = (beta A_j + alpha B_j + C_j)(tau) / delta G1 for aux j (an identity
//     here also makes setup fail, as in bellperson);
//   ic_i = (beta A_i + alpha B_i + C_i)(tau) / gamma G1 for inputs i;
//   h: bellperson tau^i Z(tau) / delta, i < m - 1; snarkjs form
//     L^{2m}_{2j+1}(tau) / delta, j < m (types.hpp has the derivation).
// Lagrange values come from L_i(tau) = (tau^m - 1) w^i / (m (tau - w^i)) with
// one batch inversion (no NTT). Point products use FixedBaseTable on all threads.
//
//   groth16::ProvingKey pk = groth16::GenerateParameters(circuit);
#include "engine/ff/fr.hpp"
#include "engine/groth16/types.hpp"
#include "engine/r1cs/compiled_circuit.hpp"

namespace cuzk::groth16 {

class FixedBaseBatcher;  // engine/groth16/fixed_base.hpp

struct SetupOptions {
  HQueryForm h_form = HQueryForm::kBellperson;
  unsigned threads = 0;  // 0 = all hardware threads
  // The parameter points' fixed-base products: nullptr = CPU; a GPU batcher
  // (cuda::GpuFixedBaseBatcher) gives the same points.
  FixedBaseBatcher* fixed_base = nullptr;
};

// Throws std::invalid_argument for an inconsistent circuit, std::runtime_error
// when the sampled tau makes a section degenerate (a dense variable with a
// zero polynomial value, or an aux whose l point would be the identity).
ProvingKey GenerateParameters(const r1cs::CompiledCircuit& circuit, const SetupOptions& options = {});

// Deterministic toxic waste, for tests that need reproducible keys only.
struct ToxicWaste {
  ff::Fr tau, alpha, beta, gamma, delta;
};
ProvingKey GenerateParametersForTesting(const r1cs::CompiledCircuit& circuit, const ToxicWaste& toxic,
                                        const SetupOptions& options = {});

}  // namespace cuzk::groth16
