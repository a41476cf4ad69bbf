#pragma once
// SubmitProofRequest -> a ProofJob in engine types, validated completely
// before anything is queued: proof kind (PoRep/PoSt: UnimplementedError naming
// [fallback], which forwards them before they get here),
// priority, sector size (sector_size, else registered_proof as Filecoin's
// RegisteredUpdateProof: 0 2KiB, 1 8MiB, 2 512MiB, 3 32GiB, 4 64GiB; a
// registered_proof past 4, or one other than 0 that contradicts sector_size,
// is refused: ShapeOf in the .cpp says how this differs from Curio's daemon), one
// bincode PartitionProof per partition (length, structure and canonical
// values via the engine's reader, consistency via MakeCircuitWitness), and
// three canonical commitments, each 32 raw bytes (Curio today) or the CID
// bytes earlier Curio versions sent (CIDv1: comm_r_* fil-commitment-sealed
// 0xf102 + poseidon-bls12_381-a2-fc1 0xb401, comm_d_new fil-commitment-unsealed
// 0xf101 + sha2-256-trunc254-padded 0x1012, 32-byte digest). Every failure is an
// InvalidRequestError naming the field. GENERIC_R1CS: circuit_id (a
// generic id, see SrsRegistry) and a witness of canonical 32-byte values,
// ONE first; its length is checked against the circuit by Prover::Submit.
//
//   ValidatedRequest v = ValidateSubmit(request);   // throws InvalidRequestError / UnimplementedError
//   prover.Submit(request.request_id(), v.digest, v.job, v.circuit_id);
#include <memory>
#include <string>
#include <string_view>

#include "cuzk/v1/proving.pb.h"
#include "prover/job.hpp"

namespace cuzk::daemon {

struct ValidatedRequest {
  std::shared_ptr<prover::ProofJob> job;  // without id and params
  std::string circuit_id;                 // the parameter set it needs ("snap-2k")
  std::string digest;                     // SHA-256 of the request without request_id (idempotency check)
};

ValidatedRequest ValidateSubmit(const cuzk::v1::SubmitProofRequest& request);

// Ids from clients (request_id, job_id): at most kMaxIdBytes of printable
// ASCII (0x20..0x7e, so Curio's "wdpost-<miner>-<partition>-[12 34 ...]"
// passes; a newline, which would forge log lines, does not). An
// InvalidRequestError names the field and quotes at most 64 bytes, escaped.
inline constexpr size_t kMaxIdBytes = 256;
void CheckId(std::string_view id, const char* field);
// The job ids of a fallback engine's jobs start with this (fallback_engine.hpp);
// a local request_id may not.
inline constexpr const char* kFallbackIdPrefix = "fallback-";
// `text` in quotes for an error message: 64 bytes at most, non-printable bytes as \xNN.
std::string QuoteForMessage(std::string_view text);

}  // namespace cuzk::daemon
