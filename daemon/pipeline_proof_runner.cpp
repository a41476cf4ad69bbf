// PipelineProofRunner: ProofRunner over scheduler::Pipeline (see the header for
// how notifications, cancellation and timings are mapped).
//
// Locking: mu_ guards the runner's records and is never held while calling the
// pipeline or the observer. The pipeline may call `released` (a PartitionWork
// destructor) with its own lock held, so the order is pipeline lock -> mu_,
// never the reverse; OnJobFinished therefore goes out from the runner's
// notifier thread, which also polls the daemon's cancel tokens.
#include "daemon/pipeline_proof_runner.hpp"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "daemon/gpu_info.hpp"
#include "daemon/pipeline_partition_work.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "memory/meminfo.hpp"

#ifdef CUZK_HAVE_CUDA
#include "cuda/groth16/cuda_backend.hpp"
#endif

namespace cuzk::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::optional<PartitionStage> MapStage(scheduler::PartitionStage s) {
  using S = scheduler::PartitionStage;
  switch (s) {
    case S::kPending: return std::nullopt;
    case S::kDispatched:
    case S::kSynthesizing: return PartitionStage::kSynthesizing;
    case S::kGpuQueued: return PartitionStage::kSynthDone;
    case S::kGpu: return PartitionStage::kGpu;
    case S::kFinalizing: return PartitionStage::kVerifying;
    case S::kDone: return PartitionStage::kDone;
    case S::kFailed: return PartitionStage::kFailed;
    case S::kSkipped: return PartitionStage::kCancelled;
  }
  return std::nullopt;
}

bool Terminal(PartitionStage s) {
  return s == PartitionStage::kDone || s == PartitionStage::kFailed || s == PartitionStage::kCancelled;
}

scheduler::Priority ToPriority(const ProofJob& job) {
  if (job.priority < 1 || job.priority > 4)
    throw std::invalid_argument("job " + job.id + ": priority " + std::to_string(job.priority) +
                                " is not 1 (LOW) .. 4 (CRITICAL)");
  return static_cast<scheduler::Priority>(job.priority);
}

std::string Gb(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB", double(bytes) / 1e9);
  return b;
}

class Runner final : public PipelineProofRunner {
 public:
  Runner(const PipelineRunnerOptions& options, JobObserver* observer)
      : options_(options),
        observer_(observer),
        devices_(ResolveDevices(options)),
        cpu_backend_({.threads = options.engine_threads}),
        owned_budget_(options.budget ? nullptr : MakeBudget(options)),
        budget_(options.budget ? options.budget : owned_budget_.get()) {
    if (!observer_) throw std::invalid_argument("PipelineProofRunner: no observer");
    if (options.synthesis_threads == 0) throw std::invalid_argument("PipelineProofRunner: synthesis_threads must be >= 1");
    if (options.workers_per_device == 0) throw std::invalid_argument("PipelineProofRunner: workers_per_device must be >= 1");
    if (options.cpu_backend_workers == 0)
      throw std::invalid_argument("PipelineProofRunner: cpu_backend_workers must be >= 1");
    if (budget_->capacity() == 0) throw std::invalid_argument("PipelineProofRunner: budget is 0 bytes");
#ifdef CUZK_HAVE_CUDA
    for (int d : devices_)
      gpu_backends_.emplace(d, std::make_unique<cuda::CudaBackend>(
                                   cuda::CudaBackendOptions{.device = d, .cpu_threads = options.engine_threads}));
#endif
    scheduler::PipelineConfig pc;
    pc.synthesis_threads = options.synthesis_threads;
    pc.gpu_devices = devices_;  // empty: CPU-backend workers (device -1)
    pc.gpu_workers_per_device = devices_.empty() ? options.cpu_backend_workers : options.workers_per_device;
    pc.finalizer_threads = std::max(1u, options.finalizer_threads);
    if (options.pacer_target > 0) pc.pacer.target = options.pacer_target;
    pc.max_run_ahead = options.max_run_ahead;
    pc.pacer.Validate();
    pc.timeline = options.timeline ? options.timeline : [](std::string_view line) { spdlog::info("{}", line); };
    if (options.pinned_abc && (!devices_.empty() || options.pinned_abc_on_cpu_workers)) {
      // The page-locked ceiling bounds how many ~1 s cudaHostAlloc stalls a
      // burst can cause (PinnedPoolOptions::max_page_locked_bytes); beyond
      // it a/b/c buffers are plain memory, freed after use.
      pinned_.emplace(*budget_, memory::PinnedPoolOptions{.max_idle_bytes = options.pinned_limit,
                                                         .try_page_lock = !devices_.empty(),
                                                         .max_page_locked_bytes = options.pinned_limit});
      if (!devices_.empty() && !memory::PinnedPool::PageLockingAvailable())
        spdlog::warn("pipeline runner: page-locked host memory is not available; a/b/c buffers are pageable");
    }
    pipeline_ = std::make_unique<scheduler::Pipeline>(std::move(pc), *budget_, pinned_ ? &*pinned_ : nullptr);
    notifier_ = std::thread([this] { NotifierLoop(); });
    spdlog::info("pipeline runner: {} synthesis thread(s), {}, budget {}, a/b/c in {}", options.synthesis_threads,
                 devices_.empty() ? std::to_string(options.cpu_backend_workers) + " CPU-backend worker(s)"
                                  : std::to_string(devices_.size()) + " GPU(s) x " +
                                        std::to_string(options.workers_per_device) + " worker(s)",
                 Gb(budget_->capacity()), pinned_ ? "pinned pool buffers" : "pageable vectors");
  }

  ~Runner() override {
    Shutdown(Clock::now());
    // The notifier stops first (it may be calling into the pipeline); what
    // the pipeline releases while it is destroyed is delivered here.
    {
      std::lock_guard lock(mu_);
      notifier_stop_ = true;
    }
    cv_.notify_all();
    notifier_.join();
    pipeline_.reset();  // joins whatever is still running: every work is released after this
    std::unique_lock lock(mu_);
    DeliverReleased(lock);
  }

  void Enqueue(std::shared_ptr<ProofJob> job) override {
    if (!job) throw std::invalid_argument("Enqueue: no job");
    const scheduler::Priority priority = ToPriority(*job);
    const PartitionCircuitShape shape = CircuitShapeOf(*job);
    scheduler::PartitionBytes bytes = EstimatePartitionBytes(shape);
    // snarkjs keys: H on the host transforms vectors in place, so a/b/c stay
    // vectors. Pinned: the buffer also holds a copy of z, released with a/b/c.
    bytes.pinned_abc = pinned_ && !shape.snarkjs_h;
    if (bytes.pinned_abc) bytes.abc += shape.variables * 32, bytes.total += shape.variables * 32;
    const uint64_t params_bytes = options_.parameters_in_budget && job->params ? job->params.ChargeBytes() : 0;
    if (bytes.total + params_bytes > budget_->capacity())
      throw JobExceedsBudgetError(job->id, bytes, budget_->capacity(), params_bytes);
    uint64_t key;
    {
      std::lock_guard lock(mu_);
      if (stopping_) throw std::runtime_error("the daemon is shutting down");
      key = next_key_++;
      Record& r = records_[key];
      r.job = job;
      r.kind = job->kind;
      r.partitions.assign(job->PartitionCount(), std::nullopt);
      ids_[job->id] = key;
    }
    auto work = std::make_shared<PartitionWork>(
        job, bytes, options_.engine_threads, [this](int device) -> groth16::Backend& { return BackendFor(device); },
        [this, id = job->id] { pipeline_->Cancel(id); }, [this, key] { Released(key); });
    scheduler::JobRequest req;
    req.id = job->id;
    req.priority = priority;
    req.partitions = job->PartitionCount();
    req.kind = JobKindName(job->kind);
    // The callbacks hold the work: it is destroyed only when the pipeline has
    // dropped the job and delivered every notification about it.
    req.on_started = [this, key, work] { OnStarted(key); };
    req.on_stage = [this, key, work](uint32_t p, scheduler::PartitionStage s) { OnStage(key, *work, p, s); };
    req.on_done = [this, key, work](scheduler::JobResult r) { OnDone(key, *work, std::move(r)); };
    req.work = std::move(work);
    try {
      pipeline_->Submit(std::move(req));
    } catch (const memory::BudgetExceededError&) {
      Forget(key);
      throw JobExceedsBudgetError(job->id, bytes, budget_->capacity(), params_bytes);
    } catch (...) {
      Forget(key);
      throw;
    }
  }

  std::optional<uint32_t> QueuePosition(const std::string& job_id) const override {
    return pipeline_->QueuePosition(job_id);
  }

  bool RemoveQueued(const std::string& job_id) override {
    if (!pipeline_->RemoveQueued(job_id)) return false;
    std::shared_ptr<ProofJob> dropped;  // vanilla proofs, parameter lease: freed outside the lock
    {
      std::lock_guard lock(mu_);
      auto it = ids_.find(job_id);
      if (it != ids_.end()) {
        auto r = records_.find(it->second);
        if (r != records_.end()) {
          dropped = std::move(r->second.job);
          records_.erase(r);
        }
        ids_.erase(it);
      }
    }
    done_cv_.notify_all();
    return true;
  }

  RunnerCounts Counts() const override {
    RunnerCounts c;
    const scheduler::PipelineStatus s = pipeline_->Status();
    c.workers = s.synthesis_threads;
    c.busy_workers = uint32_t(s.synthesizing);
    std::lock_guard lock(mu_);
    for (const auto& [key, r] : records_) {
      auto& k = c.by_kind[r.kind];
      if (r.started) {
        ++k.in_progress;
      } else {
        ++k.pending;
      }
    }
    return c;
  }

  bool Shutdown(Clock::time_point deadline) override {
    {
      std::lock_guard lock(mu_);
      if (shutdown_result_) return *shutdown_result_;
      stopping_ = true;
    }
    // Not started: cancelled now; started: until the deadline, then cancelled.
    const bool stopped = pipeline_->Shutdown(deadline);
    if (!stopped) spdlog::warn("shutdown: a pipeline thread is still inside an engine call");
    LogGpuTransfers();
    // Every released job's OnJobFinished goes out from the notifier thread.
    // When a stage is stuck in an engine call its job is not released yet:
    // wait only for what is released (the caller answers the rest, e.g.
    // JobTracker::CancelAllActive, within its RPC deadline).
    std::unique_lock lock(mu_);
    const bool delivered = done_cv_.wait_for(lock, std::chrono::seconds(2), [&] {
      return stopped ? records_.empty() : released_.empty() && delivering_ == 0;
    });
    shutdown_result_ = stopped && delivered;
    return *shutdown_result_;
  }

  scheduler::PipelineStatus PipelineStatus() const override { return pipeline_->Status(); }
  const std::vector<int>& devices() const override { return devices_; }
  uint64_t budget_bytes() const override { return budget_->capacity(); }

 private:
  struct Record {
    std::shared_ptr<ProofJob> job;  // dropped before OnJobFinished
    JobKind kind = JobKind::kSnapDeals;
    bool started = false;
    bool done = false;      // on_done arrived (the outcome is known; no more cancel polling)
    bool released = false;  // the pipeline let go of the work
    bool cancel_sent = false;
    std::optional<JobOutcome> outcome;
    std::vector<std::optional<PartitionStage>> partitions;  // last stage passed on
  };

  static std::vector<int> ResolveDevices(const PipelineRunnerOptions& o) {
    std::vector<int> devices;
#ifdef CUZK_HAVE_CUDA
    if (o.cpu_workers) return devices;
    if (!o.gpu_devices.empty()) return o.gpu_devices;  // a missing one: CudaBackend throws naming it
    for (const GpuInfo& g : QueryGpus({})) devices.push_back(int(g.ordinal));
#else
    if (!o.cpu_workers && !o.gpu_devices.empty())
      spdlog::warn("pipeline runner: GPU devices configured, but this build has no CUDA: CPU-backend workers");
#endif
    return devices;
  }

  // Per device: proofs, host-to-device bytes and rates of a/b/c (pinned
  // share) and z, time inside ProveStart: what the H2D figures of the
  // daemon runs in docs/perf/gpu.md come from.
  void LogGpuTransfers() const {
#ifdef CUZK_HAVE_CUDA
    for (const auto& [device, backend] : gpu_backends_) {
      const auto* cuda_backend = dynamic_cast<const cuda::CudaBackend*>(backend.get());
      if (!cuda_backend) continue;
      const cuda::CudaBackendStats t = cuda_backend->Stats();
      if (t.proofs == 0) continue;
      auto rate = [](uint64_t bytes, double ms) { return ms > 0 ? double(bytes) / ms / 1e6 : 0.0; };
      spdlog::info("GPU {}: {} partition(s), ProveStart {:.1f} ms each; a/b/c H2D {:.2f} GB ({:.0f}% from pinned "
                   "memory) at {:.1f} GB/s per copy; z H2D {:.2f} GB ({:.0f}% pinned) at {:.1f} GB/s",
                   device, t.proofs, t.prove_start_ms / double(t.proofs), double(t.abc_bytes) / 1e9,
                   t.abc_bytes ? 100.0 * double(t.abc_pinned_bytes) / double(t.abc_bytes) : 0.0,
                   rate(t.abc_bytes, t.abc_ms), double(t.z_bytes) / 1e9,
                   t.z_bytes ? 100.0 * double(t.z_pinned_bytes) / double(t.z_bytes) : 0.0, rate(t.z_bytes, t.z_ms));
      spdlog::info("GPU {}: key bases resident {:.2f} GB; {} MSM(s) streamed their bases from host memory ({:.2f} GB)",
                   device, double(t.resident_base_bytes) / 1e9, t.streamed_msms, double(t.streamed_base_bytes) / 1e9);
    }
#endif
  }

  static std::unique_ptr<memory::Budget> MakeBudget(const PipelineRunnerOptions& o) {
    return std::make_unique<memory::Budget>(o.budget_bytes ? *o.budget_bytes : memory::AutoBudgetBytes(o.safety_margin));
  }

  groth16::Backend& BackendFor(int device) {
    if (device < 0) return cpu_backend_;
    auto it = gpu_backends_.find(device);
    if (it == gpu_backends_.end()) throw std::logic_error("no backend for device " + std::to_string(device));
    return *it->second;
  }

  void Forget(uint64_t key) {
    std::shared_ptr<ProofJob> dropped;
    std::lock_guard lock(mu_);
    auto it = records_.find(key);
    if (it == records_.end()) return;
    dropped = std::move(it->second.job);
    auto id = ids_.find(dropped->id);
    if (id != ids_.end() && id->second == key) ids_.erase(id);
    records_.erase(it);
  }

  void OnStarted(uint64_t key) {
    std::string id;
    {
      std::lock_guard lock(mu_);
      auto it = records_.find(key);
      if (it == records_.end() || it->second.done || !it->second.job) return;
      it->second.started = true;
      id = it->second.job->id;
    }
    observer_->OnJobStarted(id);
  }

  void OnStage(uint64_t key, const PartitionWork& work, uint32_t p, scheduler::PartitionStage s) {
    const std::optional<PartitionStage> stage = MapStage(s);
    if (!stage) return;
    std::string id;
    {
      std::lock_guard lock(mu_);
      auto it = records_.find(key);
      // After on_done too (partitions skipped later): all of them come before OnJobFinished.
      if (it == records_.end() || !it->second.job) return;
      Record& r = it->second;
      if (p >= r.partitions.size() || r.partitions[p] == stage) return;
      r.partitions[p] = stage;
      id = r.job->id;
    }
    if (Terminal(*stage)) observer_->OnPartitionTimes(id, p, work.Times(p).times);
    observer_->OnPartitionStage(id, p, *stage);
  }

  void OnDone(uint64_t key, const PartitionWork& work, scheduler::JobResult result) {
    std::lock_guard lock(mu_);
    auto it = records_.find(key);
    if (it == records_.end() || !it->second.job) return;
    Record& r = it->second;
    const ProofJob& job = *r.job;
    JobOutcome o;
    o.timings = work.JobTotals();
    o.timings.total_ms = MsSince(job.submitted);
    if (job.cancel->cancelled() || result.outcome == scheduler::JobOutcome::kCancelled) {
      o.kind = JobOutcome::Kind::kCancelled;
      o.error = stopping_ && !job.cancel->cancelled() ? "cancelled: the daemon is shutting down" : "cancelled";
    } else if (result.outcome == scheduler::JobOutcome::kFailed) {
      o.kind = JobOutcome::Kind::kFailed;
      o.error = result.error;
    } else {
      o.kind = JobOutcome::Kind::kCompleted;
      o.proof = std::move(result.proof);
    }
    r.done = true;
    r.outcome = std::move(o);
  }

  // The PartitionWork's destructor: possibly under a pipeline lock. Record only.
  void Released(uint64_t key) {
    {
      std::lock_guard lock(mu_);
      auto it = records_.find(key);
      if (it == records_.end()) return;  // taken back (RemoveQueued) or never queued
      it->second.released = true;
      released_.push_back(key);
    }
    cv_.notify_all();
  }

  // Finished jobs: drop the runner's reference, then tell the observer
  // (without mu_, which `lock` holds on entry and on return).
  void DeliverReleased(std::unique_lock<std::mutex>& lock) {
    while (!released_.empty()) {
      const uint64_t key = released_.front();
      released_.pop_front();
      auto it = records_.find(key);
      if (it == records_.end()) continue;
      std::shared_ptr<ProofJob> job = std::move(it->second.job);
      std::optional<JobOutcome> outcome = std::move(it->second.outcome);
      if (job) {
        auto id = ids_.find(job->id);
        if (id != ids_.end() && id->second == key) ids_.erase(id);
      }
      records_.erase(it);
      ++delivering_;
      lock.unlock();
      const std::string id = job ? job->id : std::string();
      job.reset();  // vanilla proofs, parameter lease: gone before the waiters hear
      if (outcome && !id.empty()) {
        if (outcome->kind == JobOutcome::Kind::kFailed) spdlog::error("job {}: {}", id, outcome->error);
        observer_->OnJobFinished(id, std::move(*outcome));
      }
      lock.lock();
      --delivering_;
      done_cv_.notify_all();
    }
  }

  void NotifierLoop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return notifier_stop_ || !released_.empty(); });
      DeliverReleased(lock);
      if (notifier_stop_) return;
      // Cancel tokens the daemon set on started jobs: end them in the pipeline.
      std::vector<std::string> cancel;
      for (auto& [key, r] : records_) {
        if (r.job && !r.done && !r.cancel_sent && r.job->cancel->cancelled()) {
          r.cancel_sent = true;
          cancel.push_back(r.job->id);
        }
      }
      if (!cancel.empty()) {
        lock.unlock();
        for (const std::string& id : cancel) pipeline_->Cancel(id);
        lock.lock();
      }
    }
  }

  const PipelineRunnerOptions options_;
  JobObserver* const observer_;
  const std::vector<int> devices_;
  groth16::CpuBackend cpu_backend_;  // stateless: shared by the CPU-backend workers
  std::map<int, std::unique_ptr<groth16::Backend>> gpu_backends_;  // one per device, created once
  std::unique_ptr<memory::Budget> owned_budget_;  // when the options bring none
  memory::Budget* budget_;           // outlives the pipeline (declared before it)
  std::optional<memory::PinnedPool> pinned_;  // GPU workers' a/b/c buffers; outlives the pipeline

  mutable std::mutex mu_;
  std::condition_variable cv_;       // released_ or notifier_stop_
  std::condition_variable done_cv_;  // a record went away
  std::map<uint64_t, Record> records_;
  std::map<std::string, uint64_t> ids_;
  std::deque<uint64_t> released_;
  uint64_t next_key_ = 0;
  unsigned delivering_ = 0;  // popped from released_, OnJobFinished not returned yet
  bool stopping_ = false, notifier_stop_ = false;
  std::optional<bool> shutdown_result_;

  std::unique_ptr<scheduler::Pipeline> pipeline_;
  std::thread notifier_;
};

}  // namespace

JobExceedsBudgetError::JobExceedsBudgetError(const std::string& job_id, const scheduler::PartitionBytes& bytes,
                                             uint64_t capacity, uint64_t params_bytes)
    : memory::BudgetExceededError(bytes.total + params_bytes, capacity),
      message_("job " + job_id + ": one partition needs " + std::to_string(bytes.total) + " bytes (" + Gb(bytes.total) +
               ", of which a/b/c " + Gb(bytes.abc) + ")" +
               (params_bytes ? " beside its parameter set's " + Gb(params_bytes) : std::string()) +
               ", more than the whole memory budget of " + std::to_string(capacity) + " bytes (" + Gb(capacity) +
               "): it can never run; raise memory.total_budget") {}

std::unique_ptr<PipelineProofRunner> MakePipelineProofRunner(const PipelineRunnerOptions& options,
                                                             JobObserver* observer) {
  return std::make_unique<Runner>(options, observer);
}

}  // namespace cuzk::daemon
