#pragma once
// DaemonCore: the daemon without its transports. Owns the parameter
// registry, the job tracker, the metrics, the ProofRunner and the pruning
// thread; the gRPC service (proving_service.hpp) and the HTTP endpoint
// (http_server.hpp) read and drive it. Proto-free.
//
//   DaemonCore core(config);
//   core.tracker().Submit(...); core.runner().Enqueue(job);
//   std::string text = core.MetricsText();
//   core.Shutdown(deadline);
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/config.hpp"
#include "daemon/gpu_info.hpp"
#include "daemon/job_tracker.hpp"
#include "daemon/metrics.hpp"
#include "daemon/pipeline_proof_runner.hpp"
#include "daemon/proof_runner.hpp"
#include "daemon/srs_registry.hpp"

namespace cuzk::daemon {

struct MemoryInfo {
  uint64_t total_bytes = 0, available_bytes = 0;  // /proc/meminfo
  uint64_t budget_bytes = 0;                      // memory.total_budget ("auto": total - safety_margin)
  uint64_t srs_resident_bytes = 0;
  // The pipeline's pinned pool (GPU workers only): idle + leased buffer
  // bytes; the limit is memory.pinned_limit (idle buffers kept at most).
  uint64_t pinned_bytes = 0, pinned_limit_bytes = 0;
};

class DaemonCore {
 public:
  explicit DaemonCore(const Config& config);
  ~DaemonCore();
  DaemonCore(const DaemonCore&) = delete;
  DaemonCore& operator=(const DaemonCore&) = delete;

  const Config& config() const { return config_; }
  SrsRegistry& srs() { return srs_; }
  JobTracker& tracker() { return tracker_; }
  ProofRunner& runner() { return *runner_; }
  // The scheduler pipeline runner (pipeline.enabled), else nullptr (the CPU runner).
  const PipelineProofRunner* pipeline_runner() const { return pipeline_runner_; }
  Metrics& metrics() { return metrics_; }

  double UptimeSeconds() const;
  uint64_t NextSequence() { return sequence_.fetch_add(1); }
  bool shutting_down() const { return shutting_down_.load(); }

  MemoryInfo Memory() const;
  std::vector<GpuInfo> Gpus() const { return QueryGpus(config_.gpus.devices); }
  uint32_t GpuWorkers() const;
  uint64_t PinnedBytes() const;  // the pipeline pool's idle + leased bytes (0 without one)
  std::string MetricsText() const;
  std::string StatusJson() const;  // GET /status (status_json.cpp)

  // Refuses new jobs, cancels queued ones, gives running ones until deadline.
  // False if a worker is still inside an engine call afterwards.
  bool Shutdown(std::chrono::steady_clock::time_point deadline);

 private:
  void PruneLoop();

  const Config config_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  Metrics metrics_;
  // The pipeline's byte budget (pipeline.enabled), shared by the runner and
  // the parameter sets: declared before both, so it outlives their charges.
  std::unique_ptr<memory::Budget> budget_;
  SrsRegistry srs_;
  JobTracker tracker_;
  PipelineProofRunner* pipeline_runner_ = nullptr;  // set while runner_ is made (declared before it)
  std::unique_ptr<ProofRunner> runner_;
  std::atomic<uint64_t> sequence_{0};
  std::atomic<bool> shutting_down_{false};

  std::mutex prune_mu_;
  std::condition_variable prune_cv_;
  bool prune_stop_ = false;
  std::thread pruner_;
};

}  // namespace cuzk::daemon
