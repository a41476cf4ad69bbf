#include "prover/job.hpp"

namespace cuzk::prover {

const char* JobKindName(JobKind kind) {
  switch (kind) {
    case JobKind::kPoRep: return "POREP_SEAL_COMMIT";
    case JobKind::kSnapDeals: return "SNAP_DEALS_UPDATE";
    case JobKind::kWindowPost: return "WINDOW_POST_PARTITION";
    case JobKind::kWinningPost: return "WINNING_POST";
    case JobKind::kGenericR1cs: return "GENERIC_R1CS";
  }
  return "UNKNOWN";
}

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kCompleted: return "completed";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
  }
  return "unknown";
}

JobState StateOf(JobOutcome outcome) {
  switch (outcome) {
    case JobOutcome::kCompleted: return JobState::kCompleted;
    case JobOutcome::kFailed: return JobState::kFailed;
    case JobOutcome::kCancelled: return JobState::kCancelled;
  }
  return JobState::kFailed;
}

}  // namespace cuzk::prover
