// CpuProofRunner: the ProofRunner of today, a small pool of worker threads
// over one priority-ordered set of partition tasks. Per partition: native
// witness and a/b/c (synthesis), CpuBackend ProveStart and ProveFinish (what
// a GPU worker and the finalizer will do), self-verification against the
// partition's public inputs; partitions are merged in k order. Each engine
// call uses `threads` threads, so one worker on a small machine already uses
// every core; more workers only help with many cores.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/logging.hpp"
#include "daemon/partition_steps.hpp"
#include "daemon/proof_runner.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/proof_encoding.hpp"

namespace cuzk::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Cancelled {};  // thrown at a stage boundary when the job's token is set

struct ActiveJob {
  std::shared_ptr<ProofJob> job;
  std::vector<groth16::ProofBytes> proofs;  // by k
  unsigned queued = 0, running = 0;
  bool started = false;
  bool failed = false;
  std::string error;
  JobTimings timings;
};

struct Task {
  JobPriority priority;
  uint64_t sequence;
  unsigned partition;
  std::shared_ptr<ActiveJob> active;
  bool operator<(const Task& o) const {
    if (priority != o.priority) return priority > o.priority;  // CRITICAL first
    if (sequence != o.sequence) return sequence < o.sequence;
    return partition < o.partition;
  }
};

class CpuProofRunner final : public ProofRunner {
 public:
  CpuProofRunner(const CpuRunnerOptions& options, JobObserver* observer)
      : options_(options), observer_(observer), backend_({.threads = options.threads}) {
    const unsigned n = std::max(1u, options.workers);
    for (unsigned w = 0; w < n; ++w) workers_.emplace_back([this, w] { WorkerLoop(w); });
  }

  ~CpuProofRunner() override {
    Shutdown(Clock::now());
    for (auto& t : workers_) {
      if (t.joinable()) t.join();
    }
  }

  void Enqueue(std::shared_ptr<ProofJob> job) override {
    auto active = std::make_shared<ActiveJob>();
    active->job = job;
    active->proofs.resize(job->PartitionCount());
    active->queued = job->PartitionCount();
    {
      std::lock_guard lock(mu_);
      if (stopping_) throw std::runtime_error("the daemon is shutting down");
      for (unsigned k = 0; k < job->PartitionCount(); ++k) tasks_.insert({job->priority, job->sequence, k, active});
      jobs_[job->id] = active;
    }
    cv_.notify_all();
  }

  std::optional<uint32_t> QueuePosition(const std::string& job_id) const override {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || it->second->started) return std::nullopt;
    // Distinct unstarted jobs whose first task comes earlier in start order.
    std::set<const ActiveJob*> ahead;
    for (const Task& t : tasks_) {
      if (t.active == it->second) break;
      if (!t.active->started) ahead.insert(t.active.get());
    }
    return uint32_t(ahead.size());
  }

  bool RemoveQueued(const std::string& job_id) override {
    std::shared_ptr<ActiveJob> removed;
    {
      std::lock_guard lock(mu_);
      auto it = jobs_.find(job_id);
      if (it == jobs_.end() || it->second->started) return false;
      removed = it->second;
      EraseTasksLocked(*removed);
      jobs_.erase(it);
    }
    return true;  // `removed` (vanilla proofs, parameter lease) goes here, outside the lock
  }

  RunnerCounts Counts() const override {
    std::lock_guard lock(mu_);
    RunnerCounts c;
    c.workers = unsigned(workers_.size());
    c.busy_workers = busy_;
    for (const auto& [id, a] : jobs_) {
      auto& k = c.by_kind[a->job->kind];
      if (a->started) {
        ++k.in_progress;
      } else {
        ++k.pending;
      }
    }
    return c;
  }

  bool Shutdown(Clock::time_point deadline) override {
    std::vector<std::shared_ptr<ActiveJob>> dropped;
    {
      std::lock_guard lock(mu_);
      if (stopping_ && shutdown_done_) return true;
      stopping_ = true;
      for (auto it = jobs_.begin(); it != jobs_.end();) {
        if (!it->second->started) {
          EraseTasksLocked(*it->second);
          dropped.push_back(it->second);
          it = jobs_.erase(it);
        } else {
          ++it;
        }
      }
    }
    cv_.notify_all();
    for (auto& a : dropped) {
      JobOutcome o;
      o.kind = JobOutcome::Kind::kCancelled;
      o.error = "cancelled: the daemon is shutting down";
      observer_->OnJobFinished(a->job->id, std::move(o));
    }
    std::unique_lock lock(mu_);
    if (!done_cv_.wait_until(lock, deadline, [&] { return jobs_.empty(); })) {
      spdlog::warn("shutdown grace period over: cancelling {} running job(s)", jobs_.size());
      for (auto& [id, a] : jobs_) a->job->cancel->Cancel();
    }
    // A worker inside an engine call notices the cancellation only when the call returns.
    const bool stopped = done_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return exited_ == workers_.size(); });
    shutdown_done_ = stopped;
    return stopped;
  }

 private:
  void EraseTasksLocked(ActiveJob& a) {
    for (auto it = tasks_.begin(); it != tasks_.end();) {
      if (it->active.get() == &a) {
        it = tasks_.erase(it);
        --a.queued;
      } else {
        ++it;
      }
    }
  }

  void WorkerLoop(unsigned worker) {
    for (;;) {
      Task task;
      bool first = false;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !tasks_.empty() || (stopping_ && jobs_.empty()); });
        if (tasks_.empty()) {
          ++exited_;
          done_cv_.notify_all();
          return;
        }
        task = *tasks_.begin();
        tasks_.erase(tasks_.begin());
        ActiveJob& a = *task.active;
        --a.queued;
        ++a.running;
        ++busy_;
        if (!a.started) {
          a.started = true;
          first = true;
          a.timings.queue_wait_ms = MsSince(a.job->submitted);
        }
      }
      if (first) observer_->OnJobStarted(task.active->job->id);
      RunTask(std::move(task), worker);
    }
  }

  void RunTask(Task&& task, unsigned worker) {
    ActiveJob& a = *task.active;
    const ProofJob& job = *a.job;
    const unsigned k = task.partition;
    PartitionStage end_stage = PartitionStage::kDone;
    std::string error;
    JobTimings t;
    bool skip;
    {
      std::lock_guard lock(mu_);
      skip = a.failed;
    }
    if (skip || job.cancel->cancelled()) {
      end_stage = skip ? PartitionStage::kFailed : PartitionStage::kCancelled;
    } else {
      try {
        a.proofs[k] = ProvePartition(job, k, worker, t);  // each k is written by one worker only
      } catch (const Cancelled&) {
        end_stage = PartitionStage::kCancelled;
      } catch (const std::exception& e) {
        end_stage = PartitionStage::kFailed;
        error = "partition " + std::to_string(k) + ": " + e.what();
        spdlog::error("job {}: {}", job.id, error);
      }
    }
    observer_->OnPartitionTimes(job.id, k, t);
    observer_->OnPartitionStage(job.id, k, end_stage);
    FinishTask(std::move(task.active), end_stage, error, t);
  }

  // Takes the task's reference: when the job is finished, no reference to it
  // (vanilla proofs, parameter lease) is left by the time waiters hear of it.
  void FinishTask(std::shared_ptr<ActiveJob> active, PartitionStage end_stage, const std::string& error,
                  const JobTimings& t) {
    std::shared_ptr<ActiveJob> finished;
    {
      std::lock_guard lock(mu_);
      ActiveJob& a = *active;
      --a.running;
      --busy_;
      a.timings.srs_load_ms = std::max(a.timings.srs_load_ms, t.srs_load_ms);
      a.timings.synthesis_ms += t.synthesis_ms;
      a.timings.gpu_ms += t.gpu_ms;
      a.timings.verify_ms += t.verify_ms;
      if (end_stage == PartitionStage::kFailed && !a.failed) {
        a.failed = true;
        a.error = error;
      }
      // A failed or cancelled job gives up its partitions that have not started.
      if (a.failed || a.job->cancel->cancelled()) EraseTasksLocked(a);
      if (a.queued == 0 && a.running == 0) {
        finished = std::move(active);
        jobs_.erase(a.job->id);
      }
    }
    active.reset();
    if (!finished) return;
    done_cv_.notify_all();
    cv_.notify_all();  // a stopping worker may now exit
    JobOutcome o;
    o.timings = finished->timings;
    o.timings.total_ms = MsSince(finished->job->submitted);
    if (finished->job->cancel->cancelled()) {
      o.kind = JobOutcome::Kind::kCancelled;
      o.error = "cancelled";
    } else if (finished->failed) {
      o.kind = JobOutcome::Kind::kFailed;
      o.error = finished->error;
    } else {
      o.kind = JobOutcome::Kind::kCompleted;
      o.proof.reserve(finished->proofs.size() * groth16::kProofBytes);
      for (const auto& p : finished->proofs) o.proof.insert(o.proof.end(), p.begin(), p.end());
    }
    const std::string id = finished->job->id;
    finished.reset();  // the job's vanilla proofs and parameter lease go before the waiters hear of it
    observer_->OnJobFinished(id, std::move(o));
  }

  void Boundary(const ProofJob& job) const {
    if (job.cancel->cancelled()) throw Cancelled{};
  }

  groth16::ProofBytes ProvePartition(const ProofJob& job, unsigned k, unsigned worker, JobTimings& t) {
    const std::string part = "partition=" + std::to_string(k);
    std::shared_ptr<const LoadedParams> params = job.params.Get(&t.srs_load_ms);
    Boundary(job);

    observer_->OnPartitionStage(job.id, k, PartitionStage::kSynthesizing);
    Timeline("SYNTH_START", job.id, part);
    auto t0 = Clock::now();
    std::vector<groth16::ProverInput> inputs;
    inputs.push_back(SynthesizePartition(job, k, *params, options_.threads));
    t.synthesis_ms = MsSince(t0);
    Timeline("SYNTH_END", job.id, part + ",synth_ms=" + std::to_string(int64_t(t.synthesis_ms)));
    observer_->OnPartitionStage(job.id, k, PartitionStage::kSynthDone);
    Boundary(job);

    // The CPU runner has no GPU queue: the same worker picks the partition up
    // at once. The events keep cuzk's log format complete for existing tools.
    Timeline("GPU_QUEUE", job.id, part);
    observer_->OnPartitionStage(job.id, k, PartitionStage::kGpu);
    const std::string wp = "worker=" + std::to_string(worker) + "," + part;
    Timeline("GPU_PICKUP", job.id, wp);
    Timeline("GPU_START", job.id, wp);
    t0 = Clock::now();
    std::vector<groth16::PendingProof> pending = backend_.ProveStart(params->pk, inputs);
    inputs.clear();
    Boundary(job);
    groth16::Proof proof = FinishPartitionProof(backend_, params->pk, std::move(pending[0]));
    t.gpu_ms = MsSince(t0);
    Timeline("GPU_END", job.id, wp + ",gpu_ms=" + std::to_string(int64_t(t.gpu_ms)));
    Boundary(job);

    // cuzk returns SnapDeals proofs unverified; we never hand out a proof that fails.
    observer_->OnPartitionStage(job.id, k, PartitionStage::kVerifying);
    t0 = Clock::now();
    if (!VerifyPartitionProof(job, k, *params, proof)) {
      throw std::runtime_error("the proof does not verify against the partition's public inputs");
    }
    t.verify_ms = MsSince(t0);
    return groth16::EncodeProof(proof);
  }

  const CpuRunnerOptions options_;
  JobObserver* const observer_;
  groth16::CpuBackend backend_;  // stateless: shared by the workers

  mutable std::mutex mu_;
  std::condition_variable cv_;       // tasks or stopping
  std::condition_variable done_cv_;  // a job finished or a worker exited
  std::set<Task> tasks_;
  std::map<std::string, std::shared_ptr<ActiveJob>> jobs_;  // queued or running
  unsigned busy_ = 0, exited_ = 0;
  bool stopping_ = false, shutdown_done_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

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

const char* PartitionStageName(PartitionStage stage) {
  switch (stage) {
    case PartitionStage::kPending: return "pending";
    case PartitionStage::kSynthesizing: return "synthesizing";
    case PartitionStage::kSynthDone: return "synth_done";
    case PartitionStage::kGpu: return "gpu";
    case PartitionStage::kVerifying: return "verifying";
    case PartitionStage::kDone: return "done";
    case PartitionStage::kFailed: return "failed";
    case PartitionStage::kCancelled: return "cancelled";
  }
  return "unknown";
}

std::unique_ptr<ProofRunner> MakeCpuProofRunner(const CpuRunnerOptions& options, JobObserver* observer) {
  return std::make_unique<CpuProofRunner>(options, observer);
}

}  // namespace cuzk::daemon
