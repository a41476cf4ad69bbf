#pragma once
// SubmitProofRequest -> a ProofJob in engine types, validated completely
// before anything is queued: proof kind (PoRep/PoSt: UnimplementedError),
// priority, sector size (sector_size, else registered_proof as Filecoin's
// RegisteredUpdateProof: 0 2KiB, 1 8MiB, 2 512MiB, 3 32GiB, 4 64GiB), one
// bincode PartitionProof per partition (length, structure and canonical
// values via the engine's reader, consistency via MakeCircuitWitness), and
// three 32-byte canonical commitments. Every failure is an
// InvalidRequestError naming the field. GENERIC_R1CS: circuit_id (a
// generic id, see SrsRegistry) and a witness of canonical 32-byte values,
// ONE first; its length is checked by BindGenericWitness.
//
//   ValidatedRequest v = ValidateSubmit(request);   // throws InvalidRequestError / UnimplementedError
//   v.job->params = srs.Acquire(v.circuit_id);
#include <memory>
#include <string>

#include "cuzk/v1/proving.pb.h"
#include "daemon/proof_runner.hpp"

namespace cuzk::daemon {

struct ValidatedRequest {
  std::shared_ptr<ProofJob> job;  // without id and params
  std::string circuit_id;         // the parameter set it needs ("snap-2k")
  std::string digest;             // SHA-256 of the request without request_id (idempotency check)
};

ValidatedRequest ValidateSubmit(const cuzk::v1::SubmitProofRequest& request);

// GENERIC_R1CS, once its circuit is loaded: the witness has one value per
// variable (InvalidRequestError otherwise); sets witness.num_inputs.
void BindGenericWitness(ProofJob& job, const LoadedParams& params);

}  // namespace cuzk::daemon
