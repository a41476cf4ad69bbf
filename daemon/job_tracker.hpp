#pragma once
// JobTracker: every job the daemon knows, from SubmitProof until it is pruned
// (daemon.job_retention after it ended): ids, request_id idempotency, state,
// per-partition stages, waiters with deadlines, results and counters. It is
// the ProofRunner's JobObserver. Proto-free: the gRPC service maps to it.
//
//   auto r = tracker.Submit(request_id, digest, job);    // DuplicateRequestError on a conflicting request_id
//   if (r.created) runner.Enqueue(job);
//   JobView v = tracker.Await(id, deadline, is_client_gone);   // JobNotFoundError
//   tracker.Cancel(id, runner);
//
// A request_id seen again with the same request digest returns the existing
// job (created = false); with a different digest it is refused. The job id is
// the request_id when one is given (cuzk's ids, e.g. "snap-<miner>-<sector>",
// stay visible in logs), else "job-<n>".
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "daemon/metrics.hpp"
#include "daemon/proof_runner.hpp"

namespace cuzk::daemon {

class JobNotFoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class DuplicateRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class JobState { kQueued, kRunning, kCompleted, kFailed, kCancelled, kTimeout /* Await only */ };
const char* JobStateName(JobState state);

struct JobView {
  std::string id;
  JobKind kind = JobKind::kSnapDeals;
  JobPriority priority = 2;
  JobState state = JobState::kQueued;
  std::vector<uint8_t> proof;
  std::string error;
  JobTimings timings;
  std::vector<PartitionStage> partitions;
  std::vector<JobTimings> partition_times;  // per partition, once it ended
  double age_ms = 0;
  bool stopping = false;  // cancelled while running: the runner has not yet let go of it
};

struct TrackerCounts {
  uint64_t submitted = 0, completed = 0, failed = 0, cancelled = 0, deduplicated = 0, pruned = 0;
  uint64_t active = 0, retained = 0;
  uint64_t awaiting = 0;  // Await calls waiting now (clients long-polling for a result)
};

class JobTracker final : public JobObserver {
 public:
  JobTracker(std::chrono::milliseconds retention, Metrics* metrics);

  struct SubmitResult {
    std::string job_id;
    bool created = false;
  };
  // Assigns job->id (when created) and records the job as queued.
  SubmitResult Submit(const std::string& request_id, const std::string& digest, const std::shared_ptr<ProofJob>& job);

  // Waits until the job ends, `deadline` passes (state kTimeout) or
  // client_gone() says the caller left (kTimeout as well). JobNotFoundError.
  JobView Await(const std::string& job_id, std::optional<std::chrono::steady_clock::time_point> deadline,
                const std::function<bool()>& client_gone);

  // A queued job is taken back from the runner and ends CANCELLED; a running
  // one has its token cancelled (it stops at its next stage boundary) and its
  // waiters get CANCELLED now. Returns was_running. JobNotFoundError.
  bool Cancel(const std::string& job_id, ProofRunner& runner);

  // Shutdown: every job not yet ended ends CANCELLED with `reason` (its
  // waiters are answered even if a worker is still inside an engine call).
  void CancelAllActive(const std::string& reason);

  // Marks a job that could not be queued (runner refused it) as failed.
  void Abandon(const std::string& job_id, const std::string& error);

  std::vector<JobView> Snapshot() const;
  TrackerCounts Counts() const;
  // Drops jobs that ended more than `retention` ago; returns how many.
  size_t Prune();

  // JobObserver (runner threads).
  void OnJobStarted(const std::string& job_id) override;
  void OnPartitionStage(const std::string& job_id, unsigned partition, PartitionStage stage) override;
  void OnPartitionTimes(const std::string& job_id, unsigned partition, const JobTimings& times) override;
  void OnJobFinished(const std::string& job_id, JobOutcome outcome) override;

 private:
  struct Record;
  JobView ViewLocked(const Record& r) const;
  void FinishLocked(Record& r, JobState state, JobOutcome outcome);
  std::shared_ptr<Record> FindLocked(const std::string& job_id) const;

  const std::chrono::milliseconds retention_;
  Metrics* const metrics_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // any job's state changed (waiters re-check theirs)
  std::map<std::string, std::shared_ptr<Record>> jobs_;
  std::map<std::string, std::string> request_ids_;  // request_id -> job id
  uint64_t next_id_ = 1;
  TrackerCounts counts_;
};

}  // namespace cuzk::daemon
