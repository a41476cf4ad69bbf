#pragma once
// The engine calls that prove one partition of a daemon ProofJob, shared by
// both ProofRunners (cpu_proof_runner.cpp runs them back to back on one
// worker; pipeline_proof_runner.cpp runs them as the scheduler's stages), so
// that both produce the same proofs from the same calls:
//
//   groth16::ProverInput in = SynthesizePartition(job, k, *params, threads);   // witness + a/b/c
//   std::vector<groth16::PendingProof> p = backend.ProveStart(params->pk, {&in, 1});
//   groth16::Proof proof = FinishPartitionProof(backend, params->pk, std::move(p[0]));  // fresh r, s
//   bool ok = VerifyPartitionProof(job, k, *params, proof);
//
// SNAP_DEALS_UPDATE: the native witness of partition k from its vanilla proof
// (witness/native_witness.hpp); GENERIC_R1CS: the job's own assignment (one
// "partition"). a/b/c come from groth16::PrepareProverInput, which also checks
// that every row holds (a corrupt vanilla proof fails there, naming the row).
#include <vector>

#include "daemon/proof_runner.hpp"
#include "engine/ff/fr.hpp"
#include "engine/groth16/backend.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/types.hpp"

namespace cuzk::daemon {

// Witness and a/b/c of partition k (threads: of each engine call, 0 = all).
// Throws std::invalid_argument (a vanilla proof that does not fit the shape,
// groth16::UnsatisfiedWitnessError) and filecoin::CommitmentError.
// abc_memory: where a/b/c go (groth16::ProveOptions::abc_memory); empty: vectors.
groth16::ProverInput SynthesizePartition(const ProofJob& job, unsigned k, const LoadedParams& params, unsigned threads,
                                         const groth16::ProveOptions::AbcMemoryFn& abc_memory = {});

// The public inputs (without ONE) partition k's proof is verified against.
std::vector<ff::Fr> PartitionVerifierInputs(const ProofJob& job, unsigned k);

// ProveFinish with r, s drawn from the OS CSPRNG for this proof (bellperson's
// Fr::random(OsRng)); both are wiped before returning.
groth16::Proof FinishPartitionProof(groth16::Backend& backend, const groth16::ProvingKey& pk,
                                    groth16::PendingProof&& pending);

// Groth16 verification against PartitionVerifierInputs(job, k).
bool VerifyPartitionProof(const ProofJob& job, unsigned k, const LoadedParams& params, const groth16::Proof& proof);

}  // namespace cuzk::daemon
