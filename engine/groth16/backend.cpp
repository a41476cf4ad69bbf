#include "engine/groth16/backend.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::groth16 {

using ec::G1Jacobian;
using ec::G2Jacobian;

namespace {

[[noreturn]] void Fail(const std::string& what) { throw std::invalid_argument("Groth16 prover: " + what); }

std::string N(uint64_t v) { return std::to_string(v); }

}  // namespace

std::span<const ff::Fr> ProverInput::Abc(int k) const {
  if (abc_external) return k == 0 ? abc_external->a : k == 1 ? abc_external->b : abc_external->c;
  return k == 0 ? abc.a : k == 1 ? abc.b : abc.c;
}

void ProverInput::OwnAbc() {
  if (!abc_external) return;
  abc.a.assign(abc_external->a.begin(), abc_external->a.end());
  abc.b.assign(abc_external->b.begin(), abc_external->b.end());
  abc.c.assign(abc_external->c.begin(), abc_external->c.end());
  abc.rows = abc_external->rows;
  abc_external.reset();
  z_copy = {};
  abc_owner.reset();
}

void ProverInput::ReleaseAbc() {
  abc = {};
  abc_external.reset();
  z_copy = {};
  abc_owner.reset();
}

void CheckProvingKeyShape(const ProvingKey& pk) {
  const uint64_t n = pk.num_variables();
  if (pk.vk.ic.empty()) Fail("verifying key has no IC points (needs one for ONE)");
  if (pk.a_density.size() != n || pk.b_density.size() != n) {
    Fail("key densities cover " + N(pk.a_density.size()) + "/" + N(pk.b_density.size()) + " variables, the key has " +
         N(n) + " (ic + l); a key read from a file needs its circuit's densities");
  }
  if (pk.a.size() != pk.a_density.Count())
    Fail("a has " + N(pk.a.size()) + " points, a_density " + N(pk.a_density.Count()));
  if (pk.b_g1.size() != pk.b_density.Count() || pk.b_g2.size() != pk.b_density.Count()) {
    Fail("b_g1/b_g2 have " + N(pk.b_g1.size()) + "/" + N(pk.b_g2.size()) + " points, b_density " +
         N(pk.b_density.Count()));
  }
  const uint64_t m = pk.domain_size();
  if (m == 0 || (m & (m - 1))) Fail("h has " + N(pk.h.size()) + " points: not a power-of-two domain");
}

void CheckProverInput(const ProvingKey& pk, const ProverInput& in) {
  CheckProvingKeyShape(pk);
  const auto& z = in.assignment;
  if (z.num_inputs != pk.num_inputs()) {
    Fail("witness has " + N(z.num_inputs) + " inputs (ONE included), the key " + N(pk.num_inputs()));
  }
  // A compact-only witness-only input (PrepareCompactWitnessInput) has no
  // values: its count is the compact witness's.
  const bool compact_only = z.values.empty() && in.compact_z.has_value();
  const uint64_t n = compact_only ? in.compact_z->num_variables : z.values.size();
  if (n != pk.num_variables()) Fail("witness has " + N(n) + " variables, the key " + N(pk.num_variables()));
  if (compact_only && !in.WitnessOnly()) Fail("a witness given only in compact form must be witness-only (no circuit)");
  if (in.compact_z && in.compact_z->num_variables != n) {
    Fail("compact witness has " + N(in.compact_z->num_variables) + " variables, the assignment " + N(n));
  }
  if (in.compact_z) {
    try {
      r1cs::CheckCompactWitness(*in.compact_z);  // the GPU expands it without bounds checks
    } catch (const std::invalid_argument& e) {
      Fail(e.what());
    }
    if (n > 0 && r1cs::ClassOf(*in.compact_z, 0) != r1cs::WitnessClass::kOne)
      Fail("witness: variable 0 (ONE) must be 1");
  }
  const uint64_t m = pk.domain_size();
  if (in.WitnessOnly()) {
    const r1cs::CompiledCircuit& c = *in.circuit;
    if (c.num_inputs != pk.num_inputs() || c.num_variables() != pk.num_variables()) {
      Fail("witness-only circuit has " + N(c.num_inputs) + " inputs and " + N(c.num_variables()) +
           " variables, the key " + N(pk.num_inputs()) + " and " + N(pk.num_variables()));
    }
    if (c.num_prover_rows() > m) Fail(N(c.num_prover_rows()) + " rows do not fit the key's domain of " + N(m));
    return;
  }
  if (in.Abc(0).size() != m || in.Abc(1).size() != m || in.Abc(2).size() != m) {
    Fail("a/b/c must be padded to the key's domain size " + N(m) + " (got " + N(in.Abc(0).size()) + ")");
  }
  if (in.AbcRows() > m) Fail(N(in.AbcRows()) + " rows do not fit the key's domain of " + N(m));
}

Proof AssembleProof(const VerifyingKey& vk, const PendingProof& sums, const G2Jacobian& b2_sum, const ff::Fr& r,
                    const ff::Fr& s) {
  const G1Jacobian alpha = G1Jacobian::FromAffine(vk.alpha_g1);
  const G1Jacobian beta1 = G1Jacobian::FromAffine(vk.beta_g1);
  const G1Jacobian delta1 = G1Jacobian::FromAffine(vk.delta_g1);
  const G2Jacobian beta2 = G2Jacobian::FromAffine(vk.beta_g2);
  const G2Jacobian delta2 = G2Jacobian::FromAffine(vk.delta_g2);

  G1Jacobian a = alpha + sums.a_sum + delta1 * r;
  G2Jacobian b = beta2 + b2_sum + delta2 * s;
  G1Jacobian c = delta1 * (r * s) + alpha * s + beta1 * r;
  c += sums.a_sum * s;
  c += sums.b1_sum * r;
  c += sums.h_sum;
  c += sums.l_sum;
  return Proof{a.ToAffine(), b.ToAffine(), c.ToAffine()};
}

}  // namespace cuzk::groth16
