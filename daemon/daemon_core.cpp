#include "daemon/daemon_core.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "memory/meminfo.hpp"

namespace cuzk::daemon {
namespace {

// pipeline.enabled: the scheduler pipeline (budget, pacer, GPU workers);
// otherwise the CPU runner of before.
std::unique_ptr<memory::Budget> MakeBudget(const Config& c) {
  if (!c.pipeline.enabled) return nullptr;
  return std::make_unique<memory::Budget>(c.memory.total_budget ? *c.memory.total_budget
                                                                : memory::AutoBudgetBytes(c.memory.safety_margin));
}

std::unique_ptr<ProofRunner> MakeRunner(const Config& c, JobObserver* observer, PipelineProofRunner** pipeline,
                                        memory::Budget* budget) {
  if (!c.pipeline.enabled) {
    return MakeCpuProofRunner({.workers = c.pipeline.synthesis_concurrency, .threads = c.synthesis.threads}, observer);
  }
  PipelineRunnerOptions o;
  o.synthesis_threads = std::max(1u, c.pipeline.synthesis_concurrency);  // partitions synthesized at once
  o.engine_threads = c.synthesis.threads;                                // threads of one engine call
  for (int64_t d : c.gpus.devices) o.gpu_devices.push_back(int(d));     // [] = all present
  o.workers_per_device = c.gpus.gpu_workers_per_device;
  o.budget_bytes = c.memory.total_budget;                                // nullopt = auto
  o.budget = budget;                                                     // the same bytes, shared with srs
  o.parameters_in_budget = true;                                         // SrsRegistry::AttachBudget below
  o.safety_margin = c.memory.safety_margin;
  o.pacer_target = double(c.pipeline.max_gpu_queue_depth);              // 0 = the pacer's default (8)
  o.max_run_ahead = c.pipeline.max_parallel_synthesis;                   // hard ceiling beside the pacer
  o.pinned_limit = c.memory.pinned_limit;                                // page-locked a/b/c bytes at most
  std::unique_ptr<PipelineProofRunner> r = MakePipelineProofRunner(o, observer);
  *pipeline = r.get();
  return r;
}

}  // namespace

DaemonCore::DaemonCore(const Config& config)
    : config_(config),
      budget_(MakeBudget(config)),
      srs_(config.srs.param_cache, config.synthesis.threads),
      tracker_(config.daemon.job_retention, &metrics_),
      runner_(MakeRunner(config, &tracker_, &pipeline_runner_, budget_.get())),
      pruner_([this] { PruneLoop(); }) {
  if (budget_) srs_.AttachBudget(budget_.get(), config.memory.eviction_min_idle);
}

DaemonCore::~DaemonCore() {
  {
    std::lock_guard lock(prune_mu_);
    prune_stop_ = true;
  }
  prune_cv_.notify_all();
  pruner_.join();
}

void DaemonCore::PruneLoop() {
  // Often enough that a job is gone within ~1 s of its retention running out.
  const auto period = std::clamp(config_.daemon.job_retention / 4, std::chrono::milliseconds(50),
                                 std::chrono::milliseconds(1000));
  std::unique_lock lock(prune_mu_);
  while (!prune_cv_.wait_for(lock, period, [&] { return prune_stop_; })) {
    lock.unlock();
    const size_t n = tracker_.Prune();
    if (n) spdlog::debug("pruned {} finished job(s)", n);
    lock.lock();
  }
}

double DaemonCore::UptimeSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

MemoryInfo DaemonCore::Memory() const {
  MemoryInfo m;
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string key;
    uint64_t kib = 0;
    s >> key >> kib;
    if (key == "MemTotal:") m.total_bytes = kib << 10;
    if (key == "MemAvailable:") m.available_bytes = kib << 10;
  }
  if (pipeline_runner_) {
    m.budget_bytes = pipeline_runner_->budget_bytes();  // what the pipeline enforces
  } else if (config_.memory.total_budget) {
    m.budget_bytes = *config_.memory.total_budget;
  } else {
    m.budget_bytes = m.total_bytes > config_.memory.safety_margin ? m.total_bytes - config_.memory.safety_margin : 0;
  }
  m.srs_resident_bytes = srs_.ResidentBytes();
  m.pinned_bytes = PinnedBytes();
  m.pinned_limit_bytes = config_.memory.pinned_limit;
  return m;
}

uint64_t DaemonCore::PinnedBytes() const {
  if (!pipeline_runner_) return 0;
  const scheduler::PipelineStatus s = pipeline_runner_->PipelineStatus();
  return s.has_pinned_pool ? s.pinned.idle_bytes + s.pinned.leased_bytes : 0;
}

uint32_t DaemonCore::GpuWorkers() const {
  if (pipeline_runner_) return uint32_t(pipeline_runner_->devices().size()) * config_.gpus.gpu_workers_per_device;
  // The CPU runner proves; in a CUDA build the workers the scheduler would
  // run are devices x gpu_workers_per_device.
#ifdef CUZK_HAVE_CUDA
  return uint32_t(Gpus().size()) * config_.gpus.gpu_workers_per_device;
#else
  return 0;
#endif
}

std::string DaemonCore::MetricsText() const {
  MetricsGauges g;
  g.uptime_seconds = UptimeSeconds();
  const RunnerCounts rc = runner_->Counts();
  for (const auto& [kind, c] : rc.by_kind) {
    g.queue_depth += c.pending;
    g.running_jobs += c.in_progress;
  }
  g.cpu_workers = rc.workers;
  g.busy_workers = rc.busy_workers;
  g.gpu_workers = GpuWorkers();
  g.srs_resident_bytes = srs_.ResidentBytes();
  g.pinned_bytes = PinnedBytes();
  g.pinned_limit_bytes = config_.memory.pinned_limit;
  g.retained_jobs = tracker_.Counts().retained;
  return metrics_.Render(g);
}

bool DaemonCore::Shutdown(std::chrono::steady_clock::time_point deadline) {
  shutting_down_.store(true);
  const bool stopped = runner_->Shutdown(deadline);
  tracker_.CancelAllActive("cancelled: the daemon shut down before the job finished");
  return stopped;
}

}  // namespace cuzk::daemon
