#include "engine/groth16/prover.hpp"

#include <algorithm>
#include <string>

#include "engine/groth16/os_rng.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::groth16 {

using ff::Fr;

namespace {

std::string N(uint64_t v) { return std::to_string(v); }

std::string FailureMessage(const r1cs::ConstraintFailure& f) {
  return "witness does not satisfy the circuit: row " + N(f.index) + " \"" + f.name + "\" fails (a * b != c)";
}

// PrepareProverInput's checks of a witness against the circuit.
void CheckWitnessShape(const r1cs::CompiledCircuit& circuit, uint64_t num_inputs, std::span<const Fr> z) {
  if (num_inputs != circuit.num_inputs || z.size() != circuit.num_variables()) {
    throw std::invalid_argument("witness has " + N(num_inputs) + " inputs and " + N(z.size()) +
                                " variables, the circuit " + N(circuit.num_inputs) + " and " +
                                N(circuit.num_variables()));
  }
  if (z.empty() || !z[0].IsOne()) throw std::invalid_argument("witness: variable 0 (ONE) must be 1");
}

}  // namespace

UnsatisfiedWitnessError::UnsatisfiedWitnessError(r1cs::ConstraintFailure f)
    : std::invalid_argument(FailureMessage(f)), failure_(std::move(f)) {}

void CheckKeyMatchesCircuit(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit) {
  CheckProvingKeyShape(pk);
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("proving key does not fit the circuit: " + what);
  };
  if (pk.num_inputs() != circuit.num_inputs) {
    fail("key has " + N(pk.num_inputs()) + " inputs, circuit " + N(circuit.num_inputs) + " (ONE included)");
  }
  if (pk.num_aux() != circuit.num_aux) fail("key has " + N(pk.num_aux()) + " aux (l), circuit " + N(circuit.num_aux));
  if (!(pk.a_density == circuit.a_density)) fail("A densities differ");
  if (!(pk.b_density == circuit.b_density)) fail("B densities differ");
  if (pk.domain_size() < circuit.num_prover_rows()) {
    fail("key's domain " + N(pk.domain_size()) + " < " + N(circuit.num_prover_rows()) + " rows");
  }
}

ProverInput PrepareProverInput(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, r1cs::Assignment z,
                               const ProveOptions& options) {
  CheckKeyMatchesCircuit(pk, circuit);
  CheckWitnessShape(circuit, z.num_inputs, z.values);
  ProverInput in;
  if (options.witness_only) {
    in.circuit = &circuit;
    in.assignment = std::move(z);
    if (options.compact_witness) in.compact_z = r1cs::CompactWitnessOf(in.assignment.values, options.threads);
    return in;
  }
  if (options.abc_memory) {
    const size_t m = pk.domain_size();
    AbcMemory memory = options.abc_memory(m, z.values.size());
    r1cs::AbcSpans& s = memory.spans;
    if (s.a.size() != m || s.b.size() != m || s.c.size() != m) {
      throw std::invalid_argument("ProveOptions::abc_memory gave " + N(s.a.size()) + "/" + N(s.b.size()) + "/" +
                                  N(s.c.size()) + " elements for a domain of " + N(m));
    }
    if (!memory.z.empty() && memory.z.size() != z.values.size()) {
      throw std::invalid_argument("ProveOptions::abc_memory gave " + N(memory.z.size()) +
                                  " elements for a witness of " + N(z.values.size()));
    }
    r1cs::EvaluateAbcInto(circuit, z.values, s, {.threads = options.threads});
    if (options.check_satisfied) {
      if (auto f = r1cs::FirstUnsatisfied(circuit, s, options.threads)) throw UnsatisfiedWitnessError(*f);
    }
    in.abc_external = s;
    if (!memory.z.empty()) {
      util::ParallelForChunks(z.values.size(), options.threads, [&](size_t b, size_t e, size_t) {
        std::copy(z.values.begin() + b, z.values.begin() + e, memory.z.begin() + b);
      });
      in.z_copy = memory.z;
    }
    in.abc_owner = std::move(memory.owner);
  } else {
    in.abc = r1cs::EvaluateAbc(circuit, z.values, {.pad_to = pk.domain_size(), .threads = options.threads});
    if (options.check_satisfied) {
      if (auto f = r1cs::FirstUnsatisfied(circuit, in.abc, options.threads)) throw UnsatisfiedWitnessError(*f);
    }
  }
  in.assignment = std::move(z);
  return in;
}

ProverInput PrepareCompactWitnessInput(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, uint64_t num_inputs,
                                       std::span<const Fr> z, unsigned threads) {
  CheckKeyMatchesCircuit(pk, circuit);
  CheckWitnessShape(circuit, num_inputs, z);  // before the compaction's pass over z
  return BindCompactWitness(pk, circuit, num_inputs, r1cs::CompactWitnessOf(z, threads));
}

ProverInput BindCompactWitness(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, uint64_t num_inputs,
                               r1cs::CompactWitness compact_z) {
  CheckKeyMatchesCircuit(pk, circuit);
  if (num_inputs != circuit.num_inputs || compact_z.num_variables != circuit.num_variables()) {
    throw std::invalid_argument("witness has " + N(num_inputs) + " inputs and " + N(compact_z.num_variables) +
                                " variables, the circuit " + N(circuit.num_inputs) + " and " +
                                N(circuit.num_variables()));
  }
  r1cs::CheckCompactWitness(compact_z);
  if (compact_z.num_variables == 0 || r1cs::ClassOf(compact_z, 0) != r1cs::WitnessClass::kOne)
    throw std::invalid_argument("witness: variable 0 (ONE) must be 1");
  ProverInput in;
  in.circuit = &circuit;
  in.assignment.num_inputs = num_inputs;
  in.compact_z = std::move(compact_z);
  return in;
}

uint64_t WitnessVariables(const ProverInput& input) {
  if (input.assignment.values.empty() && input.compact_z) return input.compact_z->num_variables;
  return input.assignment.values.size();
}

void ExpandCompactWitness(ProverInput& input, unsigned threads) {
  if (!input.assignment.values.empty() || !input.compact_z) return;
  std::vector<Fr> z(input.compact_z->num_variables);
  r1cs::ExpandWitnessInto(*input.compact_z, z, threads);
  input.assignment.values = std::move(z);
  input.compact_z.reset();
}

void EvaluateWitnessOnly(const ProvingKey& pk, ProverInput& input, unsigned threads) {
  if (!input.WitnessOnly()) return;
  ExpandCompactWitness(input, threads);
  const r1cs::CompiledCircuit& circuit = *input.circuit;
  input.abc = r1cs::EvaluateAbc(circuit, input.assignment.values, {.pad_to = pk.domain_size(), .threads = threads});
  if (auto f = r1cs::FirstUnsatisfied(circuit, input.abc, threads)) {
    input.abc = {};
    throw UnsatisfiedWitnessError(*f);
  }
  input.circuit = nullptr;
}

Proof ProveWithRandomness(Backend& backend, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit,
                          r1cs::Assignment z, const Fr& r, const Fr& s, const ProveOptions& options) {
  ProverInput in = PrepareProverInput(pk, circuit, std::move(z), options);
  std::vector<PendingProof> pending = backend.ProveStart(pk, std::span<ProverInput>(&in, 1));
  return backend.ProveFinish(pk, std::move(pending.at(0)), r, s);
}

Proof Prove(Backend& backend, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, r1cs::Assignment z,
            const ProveOptions& options) {
  OsRng rng;
  Fr r = Fr::Random(rng), s = Fr::Random(rng);
  Proof p = ProveWithRandomness(backend, pk, circuit, std::move(z), r, s, options);
  SecureWipe(&r, sizeof r);
  SecureWipe(&s, sizeof s);
  return p;
}

std::vector<Proof> ProveBatch(Backend& backend, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit,
                              std::vector<r1cs::Assignment> witnesses, const ProveOptions& options) {
  std::vector<ProverInput> inputs;
  inputs.reserve(witnesses.size());
  for (auto& z : witnesses) inputs.push_back(PrepareProverInput(pk, circuit, std::move(z), options));
  std::vector<PendingProof> pending = backend.ProveStart(pk, inputs);
  OsRng rng;
  std::vector<Proof> proofs;
  proofs.reserve(pending.size());
  for (auto& p : pending) {
    Fr r = Fr::Random(rng), s = Fr::Random(rng);
    proofs.push_back(backend.ProveFinish(pk, std::move(p), r, s));
    SecureWipe(&r, sizeof r);
    SecureWipe(&s, sizeof s);
  }
  return proofs;
}

}  // namespace cuzk::groth16
