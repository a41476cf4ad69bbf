#include "daemon/partition_steps.hpp"

#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/groth16/os_rng.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/verifier.hpp"

namespace cuzk::daemon {

groth16::ProverInput SynthesizePartition(const ProofJob& job, unsigned k, const LoadedParams& params, unsigned threads,
                                         const groth16::ProveOptions::AbcMemoryFn& abc_memory) {
  r1cs::Assignment z;
  if (job.kind == JobKind::kGenericR1cs) {
    z = job.witness;  // a copy: PrepareProverInput consumes it, the job stays read-only
  } else {
    snapdeals::CircuitWitness w = snapdeals::MakeCircuitWitness(job.shape, k, job.commitments, job.partitions.at(k));
    z = snapdeals::witness::ComputeEmptySectorUpdateWitness(job.shape, w, {.threads = threads});
  }
  return groth16::PrepareProverInput(params.pk, params.circuit, std::move(z),
                                     {.threads = threads, .abc_memory = abc_memory});
}

std::vector<ff::Fr> PartitionVerifierInputs(const ProofJob& job, unsigned k) {
  if (job.kind == JobKind::kGenericR1cs) return job.witness.PublicInputs();
  const auto inputs = snapdeals::PartitionPublicInputs(job.shape, k, job.commitments).AsArray();
  return {inputs.begin(), inputs.end()};
}

groth16::Proof FinishPartitionProof(groth16::Backend& backend, const groth16::ProvingKey& pk,
                                    groth16::PendingProof&& pending) {
  groth16::OsRng rng;
  struct Blinding {
    ff::Fr r, s;
    ~Blinding() {  // also when ProveFinish throws
      groth16::SecureWipe(&r, sizeof r);
      groth16::SecureWipe(&s, sizeof s);
    }
  } b{ff::Fr::Random(rng), ff::Fr::Random(rng)};
  return backend.ProveFinish(pk, std::move(pending), b.r, b.s);
}

bool VerifyPartitionProof(const ProofJob& job, unsigned k, const LoadedParams& params, const groth16::Proof& proof) {
  const std::vector<ff::Fr> inputs = PartitionVerifierInputs(job, k);
  return groth16::Verify(params.pvk, proof, inputs);
}

}  // namespace cuzk::daemon
