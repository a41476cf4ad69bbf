#include "daemon/daemon_core.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

namespace cuzk::daemon {

DaemonCore::DaemonCore(const Config& config)
    : config_(config),
      srs_(config.srs.param_cache, config.synthesis.threads),
      tracker_(config.daemon.job_retention, &metrics_),
      runner_(MakeCpuProofRunner({.workers = config.pipeline.synthesis_concurrency, .threads = config.synthesis.threads},
                                 &tracker_)),
      pruner_([this] { PruneLoop(); }) {}

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
  if (config_.memory.total_budget) {
    m.budget_bytes = *config_.memory.total_budget;
  } else {
    m.budget_bytes = m.total_bytes > config_.memory.safety_margin ? m.total_bytes - config_.memory.safety_margin : 0;
  }
  m.srs_resident_bytes = srs_.ResidentBytes();
  m.pinned_limit_bytes = config_.memory.pinned_limit;
  return m;
}

uint32_t DaemonCore::GpuWorkers() const {
  // No GPU backend yet: the CPU runner proves. In a CUDA build the workers
  // the scheduler will run are devices x gpu_workers_per_device.
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
