#include "prover/job_tracker.hpp"

#include <spdlog/spdlog.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace cuzk::prover {

struct JobTracker::Record {
  std::string id, request_id, digest;
  JobKind kind = JobKind::kSnapDeals;
  Priority priority = Priority::kNormal;
  JobState state = JobState::kQueued;
  Clock::time_point submitted, ended;
  int64_t ended_unix_ms = 0;   // the journal's clock for `ended`
  bool journaled_end = false;  // its end is in the journal (not a shutdown's cancellation): forget it when pruned
  bool end_unwritten = false;  // ended, and FlushJournal has not yet written it: new waiters wait for that
  std::vector<PartitionStatus> partitions;
  bool stopping = false;  // cancelled while running; the runner still holds it
  std::vector<uint8_t> proof;
  std::string error;
  JobTimings timings;
  std::vector<uint64_t> waiters;  // registered in waiters_
};

namespace {

double MsSince(JobTracker::Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(JobTracker::Clock::now() - t0).count();
}

// absl's clock is the system clock; the tracker's deadlines are steady.
absl::Time AbslDeadline(JobTracker::Clock::time_point t) {
  return absl::Now() + absl::FromChrono(t - JobTracker::Clock::now());
}

// The steady time of a journal's Unix-milliseconds time (the steady clock restarts with the process).
JobTracker::Clock::time_point SteadyOf(int64_t unix_ms) {
  return JobTracker::Clock::now() - std::chrono::milliseconds(UnixMillisNow() - unix_ms);
}

}  // namespace

JobTracker::JobTracker(std::chrono::milliseconds retention, Metrics* metrics, JobJournal* journal)
    : retention_(retention), metrics_(metrics), journal_(journal), timer_([this] { TimerLoop(); }) {}

JobTracker::~JobTracker() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  timer_cv_.SignalAll();
  timer_.join();
}

std::shared_ptr<JobTracker::Record> JobTracker::FindLocked(const std::string& job_id) const {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end())
    throw JobNotFoundError("unknown job_id \"" + job_id + "\" (never submitted, or pruned after daemon.job_retention)");
  return it->second;
}

const JobTracker::Record* JobTracker::JoinableLocked(const std::string& request_id, const std::string& digest) const {
  if (request_id.empty()) return nullptr;
  auto it = request_ids_.find(request_id);
  if (it == request_ids_.end()) return nullptr;
  auto job = jobs_.find(it->second);
  if (job == jobs_.end()) return nullptr;
  const Record& r = *job->second;
  if (r.digest != digest || r.state == JobState::kFailed || r.state == JobState::kCancelled) return nullptr;
  return &r;
}

// 128 random bits: unguessable, so a client's request_id cannot take or
// steer the id of a job submitted without one (the old "job-<n>" counter
// could be: a client's "job-94" made the next generated id "job-95").
std::string JobTracker::NewIdLocked() {
  for (;;) {
    std::string id = "job-";
    for (int word = 0; word < 4; ++word) {
      char hex[9];
      std::snprintf(hex, sizeof hex, "%08x", unsigned(random_()));
      id += hex;
    }
    if (!jobs_.count(id)) return id;
  }
}

std::optional<std::string> JobTracker::Join(const std::string& request_id, const std::string& digest) {
  absl::MutexLock lock(&mu_);
  const Record* r = JoinableLocked(request_id, digest);
  if (!r) return std::nullopt;
  ++counts_.deduplicated;
  if (metrics_) metrics_->RecordDeduplicated();
  return r->id;
}

JobTracker::SubmitResult JobTracker::Submit(const std::string& request_id, const std::string& digest,
                                            const std::shared_ptr<ProofJob>& job) {
  absl::MutexLock lock(&mu_);
  if (const Record* existing = JoinableLocked(request_id, digest)) {
    ++counts_.deduplicated;
    if (metrics_) metrics_->RecordDeduplicated();
    return {existing->id, false};
  }
  std::string id = request_id;
  if (id.empty() || jobs_.count(id)) id = NewIdLocked();
  if (auto prev = request_ids_.find(request_id); !request_id.empty() && prev != request_ids_.end()) {
    const auto old = jobs_.find(prev->second);
    spdlog::info("request_id {}: new job {} (job {} is {}{})", request_id, id, prev->second,
                 old == jobs_.end() ? "gone" : JobStateName(old->second->state),
                 old != jobs_.end() && old->second->digest != digest ? ", with another request" : "");
  }
  auto r = std::make_shared<Record>();
  r->id = id;
  r->request_id = request_id;
  r->digest = digest;
  r->kind = job->kind;
  r->priority = job->priority;
  r->submitted = job->submitted;
  r->partitions.assign(job->PartitionCount(), PartitionStatus{});
  jobs_[id] = r;
  if (!request_id.empty()) request_ids_[request_id] = id;
  job->id = id;
  ++counts_.submitted;
  return {id, true};
}

JobView JobTracker::ViewLocked(const Record& r) const {
  JobView v;
  v.id = r.id;
  v.kind = r.kind;
  v.priority = r.priority;
  v.state = r.state;
  v.proof = r.proof;
  v.error = r.error;
  v.timings = r.timings;
  v.partitions = r.partitions;
  v.stopping = r.stopping;
  v.age_ms = MsSince(r.submitted);
  return v;
}

void JobTracker::Run(Calls& calls) {
  for (auto& [done, view] : calls) done(std::move(view));
  calls.clear();
}

uint64_t JobTracker::AwaitAsync(const std::string& job_id, std::optional<Clock::time_point> deadline,
                                WaitCallback done) {
  Calls calls;
  uint64_t id;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<Record> r = FindLocked(job_id);
    id = next_waiter_++;
    if (IsFinal(r->state) && !r->end_unwritten) {
      calls.emplace_back(std::move(done), ViewLocked(*r));
    } else {
      waiters_[id] = {job_id, deadline, std::move(done)};
      r->waiters.push_back(id);
      if (deadline) {
        const bool earliest = deadlines_.empty() || *deadline < deadlines_.begin()->first;
        deadlines_.emplace(*deadline, id);
        if (earliest) timer_cv_.Signal();
      }
    }
  }
  Run(calls);
  return id;
}

void JobTracker::TakeWaiterLocked(uint64_t waiter, bool timed_out, Calls& calls) {
  auto it = waiters_.find(waiter);
  if (it == waiters_.end()) return;
  Waiter w = std::move(it->second);
  waiters_.erase(it);
  if (w.deadline) {
    for (auto [d, end] = deadlines_.equal_range(*w.deadline); d != end; ++d) {
      if (d->second == waiter) {
        deadlines_.erase(d);
        break;
      }
    }
  }
  auto job = jobs_.find(w.job_id);
  if (job == jobs_.end()) return;  // (records outlive their waiters: unreachable)
  std::erase(job->second->waiters, waiter);
  JobView v = ViewLocked(*job->second);
  if (timed_out && !IsFinal(v.state)) {
    v.timed_out = true;
    v.proof.clear();
  }
  calls.emplace_back(std::move(w.done), std::move(v));
}

bool JobTracker::Withdraw(uint64_t waiter) {
  Calls calls;  // stays empty: a withdrawn waiter is not called
  absl::MutexLock lock(&mu_);
  auto it = waiters_.find(waiter);
  if (it == waiters_.end()) return false;
  TakeWaiterLocked(waiter, false, calls);
  return true;
}

JobView JobTracker::Await(const std::string& job_id, std::optional<Clock::time_point> deadline) {
  absl::Notification done;
  JobView out;
  AwaitAsync(job_id, deadline, [&](JobView v) {
    out = std::move(v);
    done.Notify();
  });
  done.WaitForNotification();
  return out;
}

void JobTracker::TimerLoop() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    std::optional<Clock::time_point> next;
    if (!deadlines_.empty()) next = deadlines_.begin()->first;
    if (!expiries_.empty() && (!next || expiries_.begin()->first < *next)) next = expiries_.begin()->first;
    if (!next) {
      timer_cv_.Wait(&mu_);
      continue;
    }
    if (Clock::now() < *next) {
      timer_cv_.WaitWithDeadline(&mu_, AbslDeadline(*next));
      continue;
    }
    const auto now = Clock::now();
    Calls calls;
    while (!deadlines_.empty() && deadlines_.begin()->first <= now)
      TakeWaiterLocked(deadlines_.begin()->second, true, calls);
    std::vector<std::shared_ptr<Record>> pruned;  // freed outside the lock
    while (!expiries_.empty() && expiries_.begin()->first <= now) {
      auto it = jobs_.find(expiries_.begin()->second);
      expiries_.erase(expiries_.begin());
      if (it == jobs_.end() || !IsFinal(it->second->state) || it->second->stopping)
        continue;  // rescheduled when let go
      // The request_id now names this job's successor, if one started: keep that.
      if (auto rid = request_ids_.find(it->second->request_id); rid != request_ids_.end() && rid->second == it->first)
        request_ids_.erase(rid);
      pruned.push_back(std::move(it->second));
      jobs_.erase(it);
    }
    counts_.pruned += pruned.size();
    mu_.Unlock();
    Run(calls);
    if (!pruned.empty()) spdlog::debug("pruned {} finished job(s)", pruned.size());
    for (const auto& r : pruned)
      if (r->journaled_end) ForgetInJournal(r->id, r->ended_unix_ms);
    pruned.clear();
    mu_.Lock();
  }
}

bool JobTracker::Cancel(const std::string& job_id, JobCanceller& runner) {
  {
    absl::MutexLock lock(&mu_);
    if (IsFinal(FindLocked(job_id)->state)) return false;
  }
  // Outside the lock: the runner reports back into the tracker.
  Calls calls;
  bool was_running = false;
  if (runner.RemoveQueued(job_id)) {
    absl::MutexLock lock(&mu_);
    Record& r = *jobs_.at(job_id);
    JobResult o;
    o.outcome = JobOutcome::kCancelled;
    o.error = "cancelled while queued";
    o.timings.total_ms = MsSince(r.submitted);
    for (auto& p : r.partitions) p.stage = PartitionStage::kSkipped;
    FinishLocked(r, JobState::kCancelled, std::move(o), calls);
  } else {
    runner.Cancel(job_id);
    absl::MutexLock lock(&mu_);
    Record& r = *jobs_.at(job_id);
    if (!IsFinal(r.state)) {  // else it ended while we asked
      JobResult o;
      o.outcome = JobOutcome::kCancelled;
      o.error = "cancelled while running (the worker stops at its next stage boundary)";
      o.timings = r.timings;
      o.timings.total_ms = MsSince(r.submitted);
      r.stopping = true;
      FinishLocked(r, JobState::kCancelled, std::move(o), calls);
      was_running = true;
    }
  }
  FlushJournal();
  Run(calls);
  return was_running;
}

void JobTracker::CancelAllActive(const std::string& reason) {
  Calls calls;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, r] : jobs_) {
      if (IsFinal(r->state)) continue;
      JobResult o;
      o.outcome = JobOutcome::kCancelled;
      o.error = reason;
      o.timings = r->timings;
      o.timings.total_ms = MsSince(r->submitted);
      r->stopping = r->state == JobState::kRunning;
      FinishLocked(*r, JobState::kCancelled, std::move(o), calls, /*durable=*/false);  // queued again on restart
    }
  }
  Run(calls);
}

void JobTracker::Abandon(const std::string& job_id, const std::string& error) {
  Calls calls;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || IsFinal(it->second->state)) return;
    JobResult o;
    o.outcome = JobOutcome::kFailed;
    o.error = error;
    FinishLocked(*it->second, JobState::kFailed, std::move(o), calls);
  }
  FlushJournal();
  Run(calls);
}

void JobTracker::FinishLocked(Record& r, JobState state, JobResult result, Calls& calls, bool durable) {
  r.state = state;
  r.proof = std::move(result.proof);
  r.error = std::move(result.error);
  r.timings = result.timings;
  r.ended = Clock::now();
  r.ended_unix_ms = UnixMillisNow();
  std::string line =
      fmt::format("job {} {}: total {:.0f} ms (queue {:.0f}, srs {:.0f}, synthesis {:.0f}, gpu {:.0f}){}{}", r.id,
                  JobStateName(state), r.timings.total_ms, r.timings.queue_wait_ms, r.timings.srs_load_ms,
                  r.timings.synthesis_ms, r.timings.gpu_compute_ms, r.error.empty() ? "" : ": ", r.error);
  r.journaled_end = journal_ && durable;
  r.end_unwritten = r.journaled_end;
  if (r.journaled_end) {
    // Logged once written: the log then never shows an end a restart would undo.
    Unjournaled u;
    u.job.id = r.id;
    u.job.state = state;
    u.job.ended_unix_ms = r.ended_unix_ms;
    u.job.proof = r.proof;
    u.job.error = r.error;
    u.job.timings = r.timings;
    u.log_line = std::move(line);
    unjournaled_.push_back(std::move(u));
  } else {
    spdlog::info("{}", line);
  }
  switch (state) {
    case JobState::kCompleted: ++counts_.completed; break;
    case JobState::kFailed: ++counts_.failed; break;
    default: ++counts_.cancelled; break;
  }
  if (metrics_) metrics_->RecordFinished(r.kind, result.outcome, r.timings);
  for (uint64_t w : std::vector<uint64_t>(r.waiters)) TakeWaiterLocked(w, false, calls);
  const bool earliest = expiries_.empty() || r.ended + retention_ < expiries_.begin()->first;
  expiries_.emplace(r.ended + retention_, r.id);
  if (earliest) timer_cv_.Signal();
}

void JobTracker::OnJobStarted(const std::string& job_id) {
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || it->second->state != JobState::kQueued) return;
    it->second->state = JobState::kRunning;
  }
  if (!journal_) return;
  try {
    journal_->RecordStarted(job_id);  // informational: a restart queues a running job again either way
  } catch (const std::exception& e) {
    spdlog::error("job {}: {}", job_id, e.what());
  }
}

void JobTracker::OnPartitionStage(const std::string& job_id, uint32_t partition, const PartitionStatus& status) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && partition < it->second->partitions.size()) it->second->partitions[partition] = status;
}

void JobTracker::OnJobFinished(const std::string& job_id, JobResult result) {
  Calls calls;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return;
    Record& r = *it->second;
    if (IsFinal(r.state)) {  // cancelled while running: now the runner has let go
      r.stopping = false;
      expiries_.emplace(std::max(Clock::now(), r.ended + retention_), r.id);
      timer_cv_.Signal();
      return;
    }
    // The runner drops unfinished jobs when the daemon shuts down: they stay
    // unfinished in the journal, and the next start queues them again.
    // The pipeline times from its Submit; a job queued again after a restart
    // (or held briefly before Enqueue) was submitted earlier: count from then.
    const double before_pipeline = MsSince(r.submitted) - result.timings.total_ms;
    if (before_pipeline > 0) {
      result.timings.total_ms += before_pipeline;
      result.timings.queue_wait_ms += before_pipeline;
    }
    const bool durable = !(result.outcome == JobOutcome::kCancelled && shutting_down_);
    FinishLocked(r, StateOf(result.outcome), std::move(result), calls, durable);
  }
  FlushJournal();  // before the waiters hear of it: a proof a client has is recorded
  Run(calls);
}

void JobTracker::FlushJournal() {
  if (!journal_) return;
  Calls calls;
  {
    absl::MutexLock write(&journal_mu_);
    std::vector<Unjournaled> ends;
    {
      absl::MutexLock lock(&mu_);
      ends.swap(unjournaled_);
    }
    for (const Unjournaled& u : ends) {
      try {
        journal_->RecordFinished(u.job);
        spdlog::info("{}", u.log_line);
      } catch (const std::exception& e) {
        // The job is done here; only a restart before its retention ends would run it again.
        spdlog::info("{}", u.log_line);
        spdlog::error("job {} {}: not recorded in the journal: {}", u.job.id, JobStateName(u.job.state), e.what());
      }
    }
    // Waiters that came between the end and its write (AwaitAsync holds them
    // back: no client gets a result a restart could undo) are answered now.
    absl::MutexLock lock(&mu_);
    for (const Unjournaled& u : ends) {
      auto it = jobs_.find(u.job.id);
      if (it == jobs_.end()) continue;
      it->second->end_unwritten = false;
      for (uint64_t w : std::vector<uint64_t>(it->second->waiters)) TakeWaiterLocked(w, false, calls);
    }
  }
  Run(calls);  // without the locks, as everywhere
}

void JobTracker::ForgetInJournal(const std::string& job_id, int64_t ended_unix_ms) {
  if (!journal_) return;
  try {
    journal_->Forget(job_id, ended_unix_ms);
  } catch (const std::exception& e) {
    spdlog::error("job {}: retention ended, but its journal row stays: {}", job_id, e.what());
  }
}

void JobTracker::Restore(const JournalJob& j, unsigned partitions) {
  absl::MutexLock lock(&mu_);
  auto r = std::make_shared<Record>();
  r->id = j.id;
  r->request_id = j.request_id;
  r->digest = j.digest;
  r->kind = j.kind;
  r->priority = j.priority;
  r->submitted = SteadyOf(j.submitted_unix_ms);
  r->partitions.assign(partitions, PartitionStatus{});
  if (IsFinal(j.state)) {
    r->state = j.state;
    r->proof = j.proof;
    r->error = j.error;
    r->timings = j.timings;
    r->ended = SteadyOf(j.ended_unix_ms);
    r->ended_unix_ms = j.ended_unix_ms;
    r->journaled_end = journal_ != nullptr;
    expiries_.emplace(r->ended + retention_, r->id);
    timer_cv_.Signal();
  }
  jobs_[r->id] = r;
  // Journal order is acceptance order: the last job under a request_id is its newest.
  if (!j.request_id.empty()) request_ids_[j.request_id] = r->id;
}

void JobTracker::BeginShutdown() {
  absl::MutexLock lock(&mu_);
  shutting_down_ = true;
}

std::vector<JobView> JobTracker::Snapshot() const {
  absl::MutexLock lock(&mu_);
  std::vector<JobView> out;
  out.reserve(jobs_.size());
  for (const auto& [id, r] : jobs_) {
    JobView v = ViewLocked(*r);
    v.proof.clear();  // status pages do not need the bytes
    out.push_back(std::move(v));
  }
  return out;
}

TrackerCounts JobTracker::Counts() const {
  absl::MutexLock lock(&mu_);
  TrackerCounts c = counts_;
  for (const auto& [id, r] : jobs_) (IsFinal(r->state) ? c.retained : c.active)++;
  c.awaiting = waiters_.size();
  return c;
}

}  // namespace cuzk::prover
