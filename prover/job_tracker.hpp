#pragma once
// JobTracker: every job the prover knows, from Submit until it is pruned
// (retention after it ended): ids, request_id idempotency, state, each
// partition's stage and times, waiters with deadlines, results and counters.
// It is the ProofRunner's JobObserver. Proto-free: the gRPC service maps to it.
//
//   auto r = tracker.Submit(request_id, digest, job);     // joins, or a new job (r.created)
//   tracker.AwaitAsync(id, deadline, [](JobView v) {...});  // JobNotFoundError; called exactly once
//   tracker.Cancel(id, runner);
//
// Waiting holds no thread: AwaitAsync registers a callback that runs when the
// job ends (on the runner's thread that reports it), when its deadline passes
// (on the tracker's timer thread, which sleeps until the next deadline) or
// never, if Withdraw takes it back first. The same timer thread prunes jobs
// whose retention ran out. Nothing polls.
//
// request_id, as Curio uses it: Curio retries a task with the same
// request_id (e.g. "snap-<miner>-<sector>") and Curio's own daemon uses the
// request_id as the job id and queues every submit anew. Here a submit joins
// the newest job under its request_id when the request digest is the same
// and that job is queued, running or completed (a retry after a lost
// connection costs no GPU time: a completed job answers at once). A failed or
// cancelled job, or another digest under the same request_id, starts a NEW
// job: the request_id index then points to the new job, and the old one
// stays readable by its own job id until its retention ends (a client still
// awaiting it gets its result, not the newcomer's).
//
// Job ids: the request_id when one is given and no job holds that id (cuzk's
// ids stay visible in logs; Curio only calls Prove, which awaits the id the
// submit returns, so a retry's new id is invisible to it); otherwise a
// generated "job-<32 hex digits>": 128 random bits, so
// no client can predict, steer or take a generated id (a client's
// request_id that equals an existing job's id gets a generated id instead).
//
// With a JobJournal the tracker writes each job's start, end and pruning to
// it (outside its lock, before the waiters are answered); cancellations by
// a shutdown are not written, so the next start queues those jobs again.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prover/job.hpp"
#include "prover/job_journal.hpp"
#include "prover/metrics.hpp"

namespace cuzk::prover {

class JobNotFoundError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// (No longer thrown by the tracker: another request under a used request_id
// starts a new job. Kept because daemon/errors.cpp maps it to ALREADY_EXISTS.)
class DuplicateRequestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JobView {
  std::string id;
  JobKind kind = JobKind::kSnapDeals;
  Priority priority = Priority::kNormal;
  JobState state = JobState::kQueued;
  bool timed_out = false;  // an await's deadline passed before the job ended
  std::vector<uint8_t> proof;
  std::string error;
  JobTimings timings;
  std::vector<PartitionStatus> partitions;
  double age_ms = 0;
  bool stopping = false;  // cancelled while running: the runner has not yet let go of it
};

struct TrackerCounts {
  uint64_t submitted = 0, completed = 0, failed = 0, cancelled = 0, deduplicated = 0, pruned = 0;
  uint64_t active = 0, retained = 0;
  uint64_t awaiting = 0;  // waiters registered now (clients long-polling for a result)
};

// What the runner tells the tracker (ProofRunner calls these on its threads).
class JobObserver {
 public:
  virtual ~JobObserver() = default;
  virtual void OnJobStarted(const std::string& job_id) = 0;
  virtual void OnPartitionStage(const std::string& job_id, uint32_t partition, const PartitionStatus& status) = 0;
  // Once the runner holds nothing of the job (work, buffers, reservations).
  virtual void OnJobFinished(const std::string& job_id, JobResult result) = 0;
};

// What Cancel needs of whatever runs the jobs (ProofRunner; a fake in tests).
class JobCanceller {
 public:
  virtual ~JobCanceller() = default;
  // Takes back a job none of whose partitions started; false otherwise.
  virtual bool RemoveQueued(const std::string& job_id) = 0;
  // Ends a started job: queued partitions dropped, running ones stop at their next stage boundary.
  virtual bool Cancel(const std::string& job_id) = 0;
};

class JobTracker final : public JobObserver {
 public:
  using Clock = std::chrono::steady_clock;
  using WaitCallback = std::function<void(JobView)>;

  // journal: nullptr = nothing outlives the process (tests, no daemon.state_dir).
  JobTracker(std::chrono::milliseconds retention, Metrics* metrics, JobJournal* journal = nullptr);
  // Stops the timer thread. Waiters still registered are dropped uncalled:
  // answer them first (CancelAllActive).
  ~JobTracker() override;
  JobTracker(const JobTracker&) = delete;
  JobTracker& operator=(const JobTracker&) = delete;

  struct SubmitResult {
    std::string job_id;
    bool created = false;
  };
  // Joins the job a request_id and digest name (see above; created = false),
  // or assigns job->id and records a new job as queued.
  SubmitResult Submit(const std::string& request_id, const std::string& digest, const std::shared_ptr<ProofJob>& job);
  // The job Submit would join (counted as deduplicated), without a ProofJob:
  // lets the Prover answer a retry before leasing parameters.
  std::optional<std::string> Join(const std::string& request_id, const std::string& digest);

  // Puts back a job read from the journal, before any Submit: an unfinished
  // one as queued (the caller enqueues it), a finished one until
  // ended + retention. Its id, request_id, digest, kind, priority and submit
  // time are the journal's.
  void Restore(const JournalJob& job, unsigned partitions);
  // From now on a job cancelled by the shutdown, not by its client, is not
  // written to the journal as ended: the next start queues it again.
  void BeginShutdown();

  // `done` runs exactly once with the job's view: when it ends, or with
  // timed_out when `deadline` passes first -- unless Withdraw(returned id)
  // returns true before. It may run before AwaitAsync returns (a job that
  // already ended), and on any thread; it must not call back into the
  // tracker's waiting functions. JobNotFoundError for an unknown id.
  uint64_t AwaitAsync(const std::string& job_id, std::optional<Clock::time_point> deadline, WaitCallback done);
  // True when the waiter was still registered: its callback will not run.
  bool Withdraw(uint64_t waiter);
  // AwaitAsync, blocking the caller until the callback runs.
  JobView Await(const std::string& job_id, std::optional<Clock::time_point> deadline);

  // A queued job is taken back from the runner and ends CANCELLED; a running
  // one is cancelled in the runner (it stops at its next stage boundary) and
  // its waiters get CANCELLED now. Returns was_running. JobNotFoundError.
  bool Cancel(const std::string& job_id, JobCanceller& runner);

  // Shutdown: every job not yet ended ends CANCELLED with `reason` (its
  // waiters are answered even if a worker is still inside an engine call).
  void CancelAllActive(const std::string& reason);

  // Marks a job that could not be queued (the runner refused it) as failed.
  void Abandon(const std::string& job_id, const std::string& error);

  std::vector<JobView> Snapshot() const;
  TrackerCounts Counts() const;

  // JobObserver (runner threads).
  void OnJobStarted(const std::string& job_id) override;
  void OnPartitionStage(const std::string& job_id, uint32_t partition, const PartitionStatus& status) override;
  void OnJobFinished(const std::string& job_id, JobResult result) override;

 private:
  struct Record;
  struct Waiter {
    std::string job_id;
    std::optional<Clock::time_point> deadline;
    WaitCallback done;
  };
  // Callbacks chosen under the lock, run after it is released.
  using Calls = std::vector<std::pair<WaitCallback, JobView>>;

  JobView ViewLocked(const Record& r) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // durable: written to the journal (false for cancellations by the shutdown).
  void FinishLocked(Record& r, JobState state, JobResult result, Calls& calls, bool durable = true)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  const Record* JoinableLocked(const std::string& request_id, const std::string& digest) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string NewIdLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Writes the ends FinishLocked queued, before the caller answers waiters.
  void FlushJournal() ABSL_LOCKS_EXCLUDED(mu_);
  void ForgetInJournal(const std::string& job_id, int64_t ended_unix_ms) ABSL_LOCKS_EXCLUDED(mu_);
  void TakeWaiterLocked(uint64_t waiter, bool timed_out, Calls& calls) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::shared_ptr<Record> FindLocked(const std::string& job_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TimerLoop();
  static void Run(Calls& calls);

  const std::chrono::milliseconds retention_;
  Metrics* const metrics_;
  JobJournal* const journal_;
  // Held while the queued ends are written, so that a caller whose end
  // another thread took returns only once it is durable. Before mu_.
  absl::Mutex journal_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  absl::CondVar timer_cv_;  // a deadline or expiry earlier than the timer's sleep was added, or stop_
  std::map<std::string, std::shared_ptr<Record>> jobs_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> request_ids_ ABSL_GUARDED_BY(mu_);  // request_id -> its newest job's id
  std::map<uint64_t, Waiter> waiters_ ABSL_GUARDED_BY(mu_);
  std::multimap<Clock::time_point, uint64_t> deadlines_ ABSL_GUARDED_BY(mu_);    // waiters with one
  std::multimap<Clock::time_point, std::string> expiries_ ABSL_GUARDED_BY(mu_);  // ended jobs: prune then
  struct Unjournaled {
    JournalJob job;
    std::string log_line;  // "job <id> completed: total ..." (logged once written)
  };
  std::vector<Unjournaled> unjournaled_ ABSL_GUARDED_BY(mu_);  // ends FinishLocked queued for FlushJournal
  std::random_device random_ ABSL_GUARDED_BY(mu_);             // generated ids (the OS's entropy)
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_waiter_ ABSL_GUARDED_BY(mu_) = 1;
  TrackerCounts counts_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread timer_;  // last: started once everything above exists
};

}  // namespace cuzk::prover
