#pragma once
// The proving backend seam: what a CPU or GPU implementation must do for
// Groth16, split where the GPU hands over to the CPU.
//
//   ProveStart  (GPU-shaped): H scalars from a/b/c (NTTs), then the G1 MSMs:
//               A (density-filtered, inputs + A-dense aux), B_g1 (density-
//               filtered), L (aux), H. Releases the a/b/c buffers.
//   ProveFinish (CPU epilogue): the G2 MSM for B (unless ProveStart did it:
//               CudaBackend runs it on the GPU, PendingProof::b2_sum) and the
//               proof assembly with the blinding r, s (AssembleProof, shared
//               by all backends so equal MSM results give bit-identical proofs).
//
// A GPU worker runs ProveStart for a batch and moves on; a finalizer thread
// runs ProveFinish. The CPU backend (cpu_backend.hpp) is the reference.
//
//   std::vector<PendingProof> pending = backend.ProveStart(pk, inputs);
//   Proof p = backend.ProveFinish(pk, std::move(pending[0]), r, s);
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fr.hpp"
#include "engine/groth16/types.hpp"
#include "engine/r1cs/assignment.hpp"
#include "engine/r1cs/compact_witness.hpp"
#include "engine/r1cs/evaluate.hpp"

namespace cuzk::groth16 {

// One witness, ready for a backend: the row evaluations (zero padded to the
// key's domain size m, including bellperson's appended input rows) and the
// full assignment z (inputs, ONE first, then aux). Built by
// PrepareProverInput (prover.hpp), which also checks satisfaction.
//
// a/b/c live either in abc's vectors or, when abc_external is set, in caller
// memory (ProveOptions::abc_memory: the daemon's page-locked buffers, which
// the GPU reads at ~55 GB/s against ~8 GB/s from pageable vectors);
// abc_owner keeps that memory alive until the input lets go of a/b/c.
//
// Witness-only inputs (issue 15; ProveOptions::witness_only): `circuit` set,
// a/b/c empty; the backend evaluates them from the circuit and checks
// satisfaction itself (CudaBackend on the GPU from a compact copy of the
// circuit kept per key, CpuBackend on the host: EvaluateWitnessOnly in
// prover.hpp, the reference). The circuit must outlive ProveStart. A
// witness-only input may carry z only in compact form (the daemon's:
// PrepareCompactWitnessInput, assignment.values empty, compact_z's
// num_variables the count; WitnessVariables gives it either way); host
// paths expand it (ExpandCompactWitness), the GPU uploads it as it is.
struct ProverInput {
  const r1cs::CompiledCircuit* circuit = nullptr;  // set: witness-only
  // Witness-only: z already compacted (by the synthesis thread, off the GPU's
  // critical path: PrepareCompactWitnessInput, or ProveOptions::
  // compact_witness beside the whole z); else the backend does it.
  std::optional<r1cs::CompactWitness> compact_z;
  r1cs::AbcVectors abc;
  std::optional<r1cs::AbcSpans> abc_external;
  std::span<const ff::Fr> z_copy;  // a copy of assignment.values in abc_owner's memory, or empty
  std::shared_ptr<void> abc_owner;
  r1cs::Assignment assignment;
  // The proof's job was cancelled (the daemon: its cancel token), or unset.
  // Work a backend leaves for later (CudaBackend's deferred witness MSMs)
  // asks it first and is skipped once it says true.
  std::function<bool()> cancelled;

  // Side k (0 = a, 1 = b, 2 = c), wherever it lives.
  std::span<const ff::Fr> Abc(int k) const;
  uint64_t AbcRows() const { return abc_external ? abc_external->rows : abc.rows; }
  bool WitnessOnly() const { return circuit != nullptr; }
  // Caller-memory a/b/c copied into abc's vectors (for code that transforms
  // them in place, e.g. the CPU backend's NTTs); the caller memory goes.
  void OwnAbc();
  // a/b/c (and z_copy) freed, wherever they live.
  void ReleaseAbc();
};

// The sums over the witness (A, B_g1, L and B_g2) of a proof whose backend
// finished them after ProveStart returned (PendingProof::deferred), with the
// steps that made them.
struct WitnessSums {
  ec::G1Jacobian a_sum, b1_sum, l_sum;
  ec::G2Jacobian b2_sum;
  std::vector<std::pair<const char*, double>> steps;
};

// The four G1 sums of ProveStart; with z kept for the G2 MSM, or that MSM's result.
struct PendingProof {
  ec::G1Jacobian a_sum;   // sum over inputs and A-dense aux of z_i a_i
  ec::G1Jacobian b1_sum;  // sum over B-dense variables of z_i b_g1_i
  ec::G1Jacobian l_sum;   // sum over aux of z_j l_j
  ec::G1Jacobian h_sum;   // sum_k h_k H_k
  // B_g2 = sum over B-dense variables of z_i b_g2_i when ProveStart computed
  // it (CudaBackend: the GPU's G2 MSM); then `assignment` is empty and
  // ProveFinish only assembles. Unset: ProveFinish runs the G2 MSM from z.
  std::optional<ec::G2Jacobian> b2_sum;
  r1cs::Assignment assignment;
  // Where ProveStart's time went for this proof, step by step, in the order
  // run ("abc_eval", "h_ntt", "msm_h", ...: names are the backend's), in
  // milliseconds. A GPU backend times steps that end in a device
  // synchronization, so each figure is that step's device time plus its
  // launches. Empty from backends that do not measure (the CPU backend).
  std::vector<std::pair<const char*, double>> steps;
  // Valid when ProveStart left the witness sums to be finished later
  // (CudaBackend while the key's witness bases are still streaming to the
  // device: CudaBackendOptions::early_proving); a_sum, b1_sum, l_sum and
  // b2_sum are then unset, and ProveFinish waits for this (rethrowing what
  // failed them).
  std::shared_future<WitnessSums> deferred;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;

  // Consumes the inputs' a/b/c and moves their assignments into the results
  // (one PendingProof per input, same order). Inputs must have passed
  // CheckProverInput (std::invalid_argument otherwise).
  virtual std::vector<PendingProof> ProveStart(const ProvingKey& pk, std::span<ProverInput> inputs) = 0;

  // The G2 MSM B = sum z_i b_g2_i and AssembleProof.
  virtual Proof ProveFinish(const ProvingKey& pk, PendingProof&& pending, const ff::Fr& r, const ff::Fr& s) = 0;

  // True when this backend proves with `pk` (and, for witness-only inputs,
  // `circuit`; nullptr: the key alone) from its own device copies, never
  // reading the host's points or matrices. Then the host copy may be given
  // back (prover/host_copy.hpp). The CPU backend reads them: false.
  virtual bool HoldsOnDevice(const ProvingKey& pk, const r1cs::CompiledCircuit* circuit) const {
    (void)pk, (void)circuit;
    return false;
  }
};

// Key/input shape checks shared by backends: assignment length = key's
// variables, inputs count = vk.ic.size(), densities of the key's length and
// point counts equal to their popcounts, a/b/c exactly domain_size() long
// (witness-only: the circuit's inputs and variables those of the key, its
// rows within the domain). Throws std::invalid_argument naming the mismatch.
void CheckProverInput(const ProvingKey& pk, const ProverInput& input);
void CheckProvingKeyShape(const ProvingKey& pk);

// bellperson's assembly (prover.rs), given the MSM results:
//   A = alpha_g1 + a_sum + r delta_g1
//   B = beta_g2 + b2_sum + s delta_g2
//   C = s a_sum + r b1_sum + r s delta_g1 + s alpha_g1 + r beta_g1 + h_sum + l_sum
Proof AssembleProof(const VerifyingKey& vk, const PendingProof& sums, const ec::G2Jacobian& b2_sum, const ff::Fr& r,
                    const ff::Fr& s);

}  // namespace cuzk::groth16
