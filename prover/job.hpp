#pragma once
// ProofJob: one validated proof request in engine types (no protobuf), as the
// prover layer queues, tracks and proves it. The pipeline's job types
// (CancelToken, PartitionStage, JobTimings, JobOutcome, JobResult) are
// scheduler/job.hpp's; this adds what only a proof request has.
//
//   auto job = std::make_shared<ProofJob>();      // filled by daemon/request_validation
//   job->params = srs.Acquire("snap-2k");
//   prover.Submit(request_id, digest, job);       // queued; job->cancel is the pipeline's token
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof.hpp"
#include "engine/r1cs/assignment.hpp"
#include "prover/srs_registry.hpp"
#include "scheduler/job.hpp"
#include "scheduler/priority.hpp"

namespace cuzk::prover {

using scheduler::CancelToken;
using scheduler::JobOutcome;
using scheduler::JobResult;
using scheduler::JobTimings;
using scheduler::PartitionStage;
using scheduler::PartitionStatus;
using scheduler::Priority;

// The proof kinds of the wire protocol; names as in the proto ("SNAP_DEALS_UPDATE").
enum class JobKind { kPoRep = 1, kSnapDeals = 2, kWindowPost = 3, kWinningPost = 4, kGenericR1cs = 100 };
const char* JobKindName(JobKind kind);

// A job as its clients see it: queued until a partition is dispatched, then
// running, then one of the three outcomes.
enum class JobState { kQueued, kRunning, kCompleted, kFailed, kCancelled };
const char* JobStateName(JobState state);
JobState StateOf(JobOutcome outcome);
inline bool IsFinal(JobState s) { return s >= JobState::kCompleted; }

struct ProofJob {
  std::string id;
  JobKind kind = JobKind::kSnapDeals;
  Priority priority = Priority::kNormal;
  std::chrono::steady_clock::time_point submitted;
  // SNAP_DEALS_UPDATE
  filecoin::SectorShape shape;
  filecoin::Commitments commitments;
  std::vector<filecoin::PartitionProof> partitions;  // k order
  // GENERIC_R1CS: the full assignment (ONE, public inputs, aux), one "partition"
  r1cs::Assignment witness;
  SrsRegistry::Lease params;  // counted in the set's ref_count while the job lives
  CancelToken cancel;         // the pipeline's token for this job (JobRequest::cancel)

  unsigned PartitionCount() const { return kind == JobKind::kGenericR1cs ? 1u : unsigned(partitions.size()); }
};

}  // namespace cuzk::prover
