#include "daemon/job_tracker.hpp"

#include <spdlog/spdlog.h>

namespace cuzk::daemon {

using Clock = std::chrono::steady_clock;

struct JobTracker::Record {
  std::string id, request_id, digest;
  JobKind kind = JobKind::kSnapDeals;
  JobPriority priority = 2;
  JobState state = JobState::kQueued;
  Clock::time_point submitted, ended;
  std::vector<PartitionStage> partitions;
  std::vector<JobTimings> partition_times;
  std::shared_ptr<CancelToken> cancel;
  bool stopping = false;  // cancelled while running; the runner still holds it
  std::vector<uint8_t> proof;
  std::string error;
  JobTimings timings;
  bool Final() const { return state == JobState::kCompleted || state == JobState::kFailed || state == JobState::kCancelled; }
};

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kCompleted: return "completed";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
    case JobState::kTimeout: return "timeout";
  }
  return "unknown";
}

JobTracker::JobTracker(std::chrono::milliseconds retention, Metrics* metrics)
    : retention_(retention), metrics_(metrics) {}

std::shared_ptr<JobTracker::Record> JobTracker::FindLocked(const std::string& job_id) const {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) throw JobNotFoundError("unknown job_id \"" + job_id + "\" (never submitted, or pruned after daemon.job_retention)");
  return it->second;
}

JobTracker::SubmitResult JobTracker::Submit(const std::string& request_id, const std::string& digest,
                                            const std::shared_ptr<ProofJob>& job) {
  std::lock_guard lock(mu_);
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
  r->partitions.assign(job->PartitionCount(), PartitionStage::kPending);
  r->partition_times.assign(job->PartitionCount(), JobTimings{});
  r->cancel = job->cancel;
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
  v.partition_times = r.partition_times;
  v.stopping = r.stopping;
  v.age_ms = std::chrono::duration<double, std::milli>(Clock::now() - r.submitted).count();
  return v;
}

JobView JobTracker::Await(const std::string& job_id, std::optional<Clock::time_point> deadline,
                          const std::function<bool()>& client_gone) {
  std::unique_lock lock(mu_);
  std::shared_ptr<Record> r = FindLocked(job_id);  // kept alive even if pruned while we wait
  ++counts_.awaiting;
  struct Leave {
    uint64_t& n;
    ~Leave() { --n; }  // under mu_: every way out of the loop holds the lock
  } leave{counts_.awaiting};
  // Waits in slices so that a caller who hung up frees its thread within 100 ms.
  while (!r->Final()) {
    const auto now = Clock::now();
    if (deadline && now >= *deadline) break;
    if (client_gone && client_gone()) break;
    auto until = now + std::chrono::milliseconds(100);
    if (deadline && *deadline < until) until = *deadline;
    cv_.wait_until(lock, until);
  }
  JobView v = ViewLocked(*r);
  if (!r->Final()) {
    v.state = JobState::kTimeout;
    v.proof.clear();
  }
  return v;
}

bool JobTracker::Cancel(const std::string& job_id, ProofRunner& runner) {
  std::shared_ptr<CancelToken> token;
  {
    std::lock_guard lock(mu_);
    std::shared_ptr<Record> r = FindLocked(job_id);
    if (r->Final()) return false;
    token = r->cancel;
  }
  // Outside the lock: the runner calls back into the tracker.
  if (runner.RemoveQueued(job_id)) {
    std::lock_guard lock(mu_);
    Record& r = *jobs_.at(job_id);
    JobOutcome o;
    o.kind = JobOutcome::Kind::kCancelled;
    o.error = "cancelled while queued";
    o.timings.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - r.submitted).count();
    for (auto& p : r.partitions) p = PartitionStage::kCancelled;
    FinishLocked(r, JobState::kCancelled, std::move(o));
    return false;
  }
  token->Cancel();
  std::lock_guard lock(mu_);
  Record& r = *jobs_.at(job_id);
  if (r.Final()) return false;  // it ended while we asked
  JobOutcome o;
  o.kind = JobOutcome::Kind::kCancelled;
  o.error = "cancelled while running (the worker stops at its next stage boundary)";
  o.timings = r.timings;
  o.timings.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - r.submitted).count();
  r.stopping = true;
  FinishLocked(r, JobState::kCancelled, std::move(o));
  return true;
}

void JobTracker::CancelAllActive(const std::string& reason) {
  std::lock_guard lock(mu_);
  for (auto& [id, r] : jobs_) {
    if (r->Final()) continue;
    JobOutcome o;
    o.kind = JobOutcome::Kind::kCancelled;
    o.error = reason;
    o.timings = r->timings;
    o.timings.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - r->submitted).count();
    r->stopping = r->state == JobState::kRunning;
    FinishLocked(*r, JobState::kCancelled, std::move(o));
  }
}

void JobTracker::Abandon(const std::string& job_id, const std::string& error) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second->Final()) return;
  JobOutcome o;
  o.kind = JobOutcome::Kind::kFailed;
  o.error = error;
  FinishLocked(*it->second, JobState::kFailed, std::move(o));
}

void JobTracker::FinishLocked(Record& r, JobState state, JobOutcome outcome) {
  r.state = state;
  r.proof = std::move(outcome.proof);
  r.error = std::move(outcome.error);
  r.timings = outcome.timings;
  r.ended = Clock::now();
  switch (state) {
    case JobState::kCompleted: ++counts_.completed; break;
    case JobState::kFailed: ++counts_.failed; break;
    default: ++counts_.cancelled; break;
  }
  if (metrics_) metrics_->RecordFinished(r.kind, outcome.kind, r.timings);
  spdlog::info("job {} {}: total {:.0f} ms (queue {:.0f}, srs {:.0f}, synthesis {:.0f}, gpu {:.0f}){}{}", r.id,
               JobStateName(state), r.timings.total_ms, r.timings.queue_wait_ms, r.timings.srs_load_ms,
               r.timings.synthesis_ms, r.timings.gpu_ms, r.error.empty() ? "" : ": ", r.error);
  cv_.notify_all();
}

void JobTracker::OnJobStarted(const std::string& job_id) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && it->second->state == JobState::kQueued) it->second->state = JobState::kRunning;
}

void JobTracker::OnPartitionStage(const std::string& job_id, unsigned partition, PartitionStage stage) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && partition < it->second->partitions.size()) it->second->partitions[partition] = stage;
}

void JobTracker::OnPartitionTimes(const std::string& job_id, unsigned partition, const JobTimings& times) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it != jobs_.end() && partition < it->second->partition_times.size()) it->second->partition_times[partition] = times;
}

void JobTracker::OnJobFinished(const std::string& job_id, JobOutcome outcome) {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  Record& r = *it->second;
  if (r.Final()) {  // cancelled while running: now the runner has let go
    r.stopping = false;
    cv_.notify_all();
    return;
  }
  const JobState state = outcome.kind == JobOutcome::Kind::kCompleted ? JobState::kCompleted
                         : outcome.kind == JobOutcome::Kind::kFailed  ? JobState::kFailed
                                                                      : JobState::kCancelled;
  FinishLocked(r, state, std::move(outcome));
}

std::vector<JobView> JobTracker::Snapshot() const {
  std::lock_guard lock(mu_);
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
  std::lock_guard lock(mu_);
  TrackerCounts c = counts_;
  for (const auto& [id, r] : jobs_) (r->Final() ? c.retained : c.active)++;
  return c;
}

size_t JobTracker::Prune() {
  std::vector<std::shared_ptr<Record>> dropped;  // freed outside the lock
  std::lock_guard lock(mu_);
  const auto now = Clock::now();
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const Record& r = *it->second;
    if (r.Final() && !r.stopping && now - r.ended >= retention_) {
      if (!r.request_id.empty()) request_ids_.erase(r.request_id);
      dropped.push_back(it->second);
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
  counts_.pruned += dropped.size();
  return dropped.size();
}

}  // namespace cuzk::daemon
