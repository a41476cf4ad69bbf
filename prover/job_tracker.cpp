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

}  // namespace

JobTracker::JobTracker(std::chrono::milliseconds retention, Metrics* metrics)
    : retention_(retention), metrics_(metrics), timer_([this] { TimerLoop(); }) {}

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

JobTracker::SubmitResult JobTracker::Submit(const std::string& request_id, const std::string& digest,
                                            const std::shared_ptr<ProofJob>& job) {
  absl::MutexLock lock(&mu_);
  if (!request_id.empty()) {
    auto it = request_ids_.find(request_id);
    if (it != request_ids_.end()) {
      const Record& existing = *jobs_.at(it->second);
      if (existing.digest != digest) {
        throw DuplicateRequestError("request_id \"" + request_id + "\" is already used by job " + existing.id +
                                    " with a different request");
      }
      ++counts_.deduplicated;
      if (metrics_) metrics_->RecordDeduplicated();
      return {existing.id, false};
    }
  }
  std::string id = request_id;
  while (id.empty() || jobs_.count(id)) id = "job-" + std::to_string(next_id_++);
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
    if (IsFinal(r->state)) {
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
      if (!it->second->request_id.empty()) request_ids_.erase(it->second->request_id);
      pruned.push_back(std::move(it->second));
      jobs_.erase(it);
    }
    counts_.pruned += pruned.size();
    mu_.Unlock();
    Run(calls);
    if (!pruned.empty()) spdlog::debug("pruned {} finished job(s)", pruned.size());
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
      FinishLocked(*r, JobState::kCancelled, std::move(o), calls);
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
  Run(calls);
}

void JobTracker::FinishLocked(Record& r, JobState state, JobResult result, Calls& calls) {
  r.state = state;
  r.proof = std::move(result.proof);
  r.error = std::move(result.error);
  r.timings = result.timings;
  r.ended = Clock::now();
  switch (state) {
    case JobState::kCompleted: ++counts_.completed; break;
    case JobState::kFailed: ++counts_.failed; break;
    default: ++counts_.cancelled; break;
  }
  if (metrics_) metrics_->RecordFinished(r.kind, result.outcome, r.timings);
  spdlog::info("job {} {}: total {:.0f} ms (queue {:.0f}, srs {:.0f}, synthesis {:.0f}, gpu {:.0f}){}{}", r.id,
               JobStateName(state), r.timings.total_ms, r.timings.queue_wait_ms, r.timings.srs_load_ms,
               r.timings.synthesis_ms, r.timings.gpu_compute_ms, r.error.empty() ? "" : ": ", r.error);
  for (uint64_t w : std::vector<uint64_t>(r.waiters)) TakeWaiterLocked(w, false, calls);
  const bool earliest = expiries_.empty() || r.ended + retention_ < expiries_.begin()->first;
  expiries_.emplace(r.ended + retention_, r.id);
  if (earliest) timer_cv_.Signal();
}

void JobTracker::OnJobStarted(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && it->second->state == JobState::kQueued) it->second->state = JobState::kRunning;
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
    FinishLocked(r, StateOf(result.outcome), std::move(result), calls);
  }
  Run(calls);
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
