#pragma once
// Groth16 proving from a compiled circuit and a witness, on any Backend.
//
//   r1cs::Assignment z = synthetic::Witness(params, seed);       // witness-only synthesis
//   groth16::CpuBackend cpu;
//   groth16::Proof p = groth16::Prove(cpu, pk, circuit, std::move(z));
//
// Prove draws fresh r, s from the OS CSPRNG for every proof (bellperson:
// Fr::random(OsRng)). ProveWithRandomness takes them explicitly: for tests and
// for checking that another backend (CUDA) reproduces a proof bit for bit.
// A witness that does not satisfy the circuit is refused before any MSM with
// UnsatisfiedWitnessError naming the first failing row (its recorded name
// when the circuit was recorded with names).
//
// Witness-only proving (issue 15): with ProveOptions::witness_only the
// witness goes to the backend as it is and the backend evaluates a/b/c from
// the circuit: CudaBackend on the GPU (the compact circuit resident per key,
// the witness uploaded as 2-bit classes plus its values other than 0 and 1),
// CpuBackend on the host (EvaluateWitnessOnly, the reference). Same proofs
// for the same r, s; an unsatisfied witness fails ProveStart with
// UnsatisfiedWitnessError naming the same row.
//
//   groth16::Proof p = groth16::ProveWithRandomness(gpu, pk, circuit, std::move(z), r, s, {.witness_only = true});
//
// Compact-only inputs (PrepareCompactWitnessInput): the daemon's synthesis
// computes z into a reused buffer and hands on only its compact form
// (ProverInput::compact_z: tens of MB at 32 GiB instead of 2.6 GB waiting in
// the queue for a GPU); assignment.values stays empty. The GPU expands it on
// the device; host code that needs z whole gets it back first
// (ExpandCompactWitness: EvaluateWitnessOnly and the CpuBackend do).
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/groth16/backend.hpp"
#include "engine/groth16/types.hpp"
#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/compiled_circuit.hpp"
#include "engine/r1cs/evaluate.hpp"

namespace cuzk::groth16 {

class UnsatisfiedWitnessError : public std::invalid_argument {
 public:
  explicit UnsatisfiedWitnessError(r1cs::ConstraintFailure f);
  const r1cs::ConstraintFailure& failure() const { return failure_; }

 private:
  r1cs::ConstraintFailure failure_;
};

// Caller memory for a/b/c: three spans of `per_side` elements, optionally
// room for a copy of the witness z (`witness` elements, e.g. page-locked so
// the GPU reads it at line rate; empty: no copy), and what keeps them alive
// (ProverInput::abc_owner).
struct AbcMemory {
  r1cs::AbcSpans spans;
  std::span<ff::Fr> z;
  std::shared_ptr<void> owner;
};

struct ProveOptions {
  unsigned threads = 0;         // a/b/c evaluation and the satisfaction check
  bool check_satisfied = true;  // one multiplication per row; off only for benchmarks of known-good witnesses
  // Empty: a/b/c in owned vectors. Otherwise PrepareProverInput asks it once
  // for the memory of the three sides (the key's domain size each) and
  // writes a/b/c there (e.g. a pinned buffer; see ProverInput).
  using AbcMemoryFn = std::function<AbcMemory(size_t per_side, size_t witness)>;
  AbcMemoryFn abc_memory{};
  // PrepareProverInput checks the witness's shape and hands it on without
  // a/b/c (ProverInput::circuit set); abc_memory and check_satisfied are
  // unused (the backend always checks: one multiplication per row).
  bool witness_only = false;
  // Witness-only: also compact z here (ProverInput::compact_z, with `threads`
  // threads), so that the GPU start does not (13-23 ms an 8 MiB partition on
  // the H200 host, ~10x that at 32 GiB).
  bool compact_witness = false;
};

// The key was made for this circuit: same inputs and aux counts, same
// densities, a domain that holds every row (constraints + inputs).
// std::invalid_argument naming the mismatch.
void CheckKeyMatchesCircuit(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit);

// a/b/c = A·z, B·z, C·z (+ input rows) padded to the key's domain, after
// checking the witness's shape and (by default) that every row holds.
ProverInput PrepareProverInput(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, r1cs::Assignment z,
                               const ProveOptions& options = {});

// A witness-only input that carries z only compacted: z (caller memory, e.g.
// a buffer the caller reuses for the next partition) is checked as
// PrepareProverInput checks it (inputs and variables the circuit's, z[0] = 1)
// and compacted on `threads` threads into compact_z; assignment keeps
// num_inputs with its values empty (compact_z->num_variables is the count).
// Nothing refers to z afterwards.
ProverInput PrepareCompactWitnessInput(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, uint64_t num_inputs,
                                       std::span<const ff::Fr> z, unsigned threads = 0);

// The same input from a witness compacted earlier (r1cs::CompactWitnessOf
// needs neither the key nor the circuit, so the daemon's SnapDeals synthesis
// compacts while the set still loads): the same checks, made on the compact
// form (inputs and variables the circuit's, variable 0 of class one;
// r1cs::CheckCompactWitness), std::invalid_argument naming what differs.
ProverInput BindCompactWitness(const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, uint64_t num_inputs,
                               r1cs::CompactWitness compact_z);

// The witness's variable count, whether z is held whole or only compact.
uint64_t WitnessVariables(const ProverInput& input);

// z made whole again on the host (r1cs::ExpandWitnessInto, `threads`) for a
// compact-only input, whose compact_z then goes; no-op when
// assignment.values is there. Host code that reads z calls it first.
void ExpandCompactWitness(ProverInput& input, unsigned threads = 0);

// A witness-only input made ordinary on the host: z expanded if it came
// compact-only, a/b/c evaluated into its vectors (padded to the key's domain)
// and satisfaction checked (UnsatisfiedWitnessError). No-op for an ordinary input.
void EvaluateWitnessOnly(const ProvingKey& pk, ProverInput& input, unsigned threads = 0);

Proof ProveWithRandomness(Backend& backend, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit,
                          r1cs::Assignment z, const ff::Fr& r, const ff::Fr& s, const ProveOptions& options = {});

Proof Prove(Backend& backend, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit, r1cs::Assignment z,
            const ProveOptions& options = {});

// Several witnesses of one circuit: one ProveStart call for all (a GPU
// backend can pipeline them), then ProveFinish each with fresh r, s.
std::vector<Proof> ProveBatch(Backend& backend, const ProvingKey& pk, const r1cs::CompiledCircuit& circuit,
                              std::vector<r1cs::Assignment> witnesses, const ProveOptions& options = {});

}  // namespace cuzk::groth16
