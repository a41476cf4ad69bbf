#pragma once
// JobJournal: where accepted jobs are written so that they outlive the
// process. The Prover writes a job when it accepts it (before SubmitProof
// answers); the JobTracker writes its start, its end (state, proof, error,
// times) and, after job_retention, forgets it. On start the Prover reads
// every job back: unfinished ones are queued again under the same id, with
// the same priority and submit time; finished ones answer AwaitProof until
// their retention ends.
//
//   std::unique_ptr<JobJournal> j = OpenSqliteJobJournal("/var/lib/cuzk");  // sqlite_job_journal.hpp
//   j->RecordAccepted(entry);                  // durable when it returns; JournalError otherwise
//   for (const JournalJob& e : j->LoadAll()) ...
//
// A small interface so that the tracker runs without one (tests, no
// daemon.state_dir). Implementations are thread-safe: the RPC threads, the
// runner's threads and the tracker's timer write at the same time.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "prover/job.hpp"

namespace cuzk::prover {

// A write or read of the journal failed (-> the submit is refused: INTERNAL).
class JournalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One job as the journal keeps it. Times are Unix milliseconds (the steady
// clock does not survive a restart).
struct JournalJob {
  std::string id, request_id, digest;
  JobKind kind = JobKind::kSnapDeals;
  Priority priority = Priority::kNormal;
  std::string circuit_id;
  int64_t submitted_unix_ms = 0;
  std::vector<uint8_t> payload;  // EncodeJobInputs (job_codec.hpp); dropped once the job ended
  JobState state = JobState::kQueued;
  // Once ended:
  int64_t ended_unix_ms = 0;
  std::vector<uint8_t> proof;
  std::string error;
  JobTimings timings;
};

class JobJournal {
 public:
  virtual ~JobJournal() = default;
  // Durable (fsync'd) when it returns. A job id written before is replaced.
  virtual void RecordAccepted(const JournalJob& job) = 0;
  virtual void RecordStarted(const std::string& job_id) = 0;
  // state, ended_unix_ms, proof, error and timings of `job`; its payload is dropped.
  virtual void RecordFinished(const JournalJob& job) = 0;
  // The job's retention ended: its row (and proof) go. ended_unix_ms names
  // which job of that id (a new job may already hold the id again).
  virtual void Forget(const std::string& job_id, int64_t ended_unix_ms) = 0;
  // Every job not forgotten, in the order they were accepted.
  virtual std::vector<JournalJob> LoadAll() = 0;
};

// Unix milliseconds now (system clock).
int64_t UnixMillisNow();

}  // namespace cuzk::prover
