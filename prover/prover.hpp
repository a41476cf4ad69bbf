#pragma once
// Prover: the proving service without its transports. Owns the byte budget,
// the parameter-set registry, the job tracker, the metrics and the proof
// runner; the daemon's gRPC service and HTTP endpoint drive and read it.
// Proto-free and config-format-free (daemon/config.cpp fills the options).
//
//   Prover prover(options);
//   auto s = prover.Submit(request_id, digest, job, "snap-2k");   // queued, or a typed error
//   prover.tracker().AwaitAsync(s.job_id, deadline, callback);
//   std::string text = prover.MetricsText();
//   prover.Shutdown(deadline);
//
// The life of a job: Submit takes a lease on its parameter set, records it in
// the tracker (request_id idempotency), writes it to the job journal (with
// options.state_dir; fsync'd before Submit returns) and enqueues it in the
// runner; the runner's pipeline reports stages and, once it holds nothing of
// the job, the result to the tracker, which records it in the journal and
// answers the waiters. On construction every unfinished job of the journal is
// queued again (same id, priority and submit time, in acceptance order) and
// every finished one answers AwaitProof until its retention ends.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "memory/budget.hpp"
#include "prover/devices.hpp"
#include "prover/job.hpp"
#include "prover/job_journal.hpp"
#include "prover/job_tracker.hpp"
#include "prover/metrics.hpp"
#include "prover/proof_runner.hpp"
#include "prover/srs_registry.hpp"

namespace cuzk::prover {

// A job that does not fit its circuit (-> INVALID_ARGUMENT).
class InvalidJobError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};
// Submit after Shutdown began (-> UNAVAILABLE: clients retry elsewhere).
class ShuttingDownError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProverOptions {
  std::string param_cache = "/data/zk/params";           // parameter files, under Filecoin's names
  std::string srs_image_cache;                           // circuit and key images (SrsImageCache); "" = none
  bool srs_key_to_devices = true;                        // images straight to witness-only GPUs (SetKeyToDevices)
  std::chrono::milliseconds job_retention{600'000};      // finished jobs kept for late awaits
  std::chrono::milliseconds eviction_min_idle{300'000};  // an idle parameter set stays at least this long
  // Where the job journal lives (<state_dir>/state.db, SQLite); "" = no
  // journal: accepted jobs do not outlive the process.
  std::string state_dir;
  // Another JobJournal instead of state_dir's SQLite store (tests: one whose writes fail).
  std::shared_ptr<JobJournal> journal;
  // The budget is made from runner.budget_bytes / safety_margin and shared
  // by the runner and the registry (runner.budget is set by the Prover).
  RunnerOptions runner;
};

struct MemoryInfo {
  uint64_t total_bytes = 0, available_bytes = 0;  // /proc/meminfo
  uint64_t budget_bytes = 0;
  uint64_t srs_resident_bytes = 0;
  // The pipeline's pinned pool (GPU workers only): idle + leased buffer
  // bytes; the limit is the most kept page-locked.
  uint64_t pinned_bytes = 0, pinned_limit_bytes = 0;
};

class Prover {
 public:
  explicit Prover(const ProverOptions& options);
  ~Prover();
  Prover(const Prover&) = delete;
  Prover& operator=(const Prover&) = delete;

  struct Submitted {
    std::string job_id;
    uint32_t queue_position = 0;  // jobs that start before it (0 once started)
  };
  // job: validated, without id or params. A request_id and digest that name
  // a queued, running or completed job join it (nothing else happens).
  // Otherwise takes a lease on `circuit_id` (SrsUnavailableError,
  // UnknownCircuitError), checks a generic witness against its circuit
  // (InvalidJobError), records the job, writes it to the journal
  // (JournalError: the job is not accepted) and queues it
  // (JobExceedsBudgetError; ShuttingDownError).
  Submitted Submit(const std::string& request_id, const std::string& digest, std::shared_ptr<ProofJob> job,
                   const std::string& circuit_id);

  SrsRegistry& srs() { return srs_; }
  const SrsRegistry& srs() const { return srs_; }
  // srs.preload: takes a lease on each set now (UnknownCircuitError,
  // SrsUnavailableError for a bad id or missing files: the caller refuses to
  // start) and loads them one after another on a thread of their own, so the
  // daemon serves while they load and a job for one of them waits for that
  // load instead of starting another (at 32 GiB the load overlaps the first
  // client's connection and request: 0.3-1.1 s off the first proof on the
  // H200, docs/perf/gpu.md). Each set is held only while it loads. A failed
  // load is logged (SRS_PRELOAD line) and the set loads again on its first
  // job. Once per Prover (std::logic_error after). ~Prover waits for a load
  // in progress.
  void PreloadInBackground(const std::vector<std::string>& circuit_ids);
  JobTracker& tracker() { return tracker_; }
  const JobTracker& tracker() const { return tracker_; }
  ProofRunner& runner() { return runner_; }
  const ProofRunner& runner() const { return runner_; }
  Metrics& metrics() { return metrics_; }

  double UptimeSeconds() const;
  bool shutting_down() const { return shutting_down_.load(); }
  MemoryInfo Memory() const;
  std::vector<GpuInfo> Gpus() const {
    std::vector<GpuInfo> gpus = QueryGpus(runner_.devices());
    for (GpuInfo& g : gpus) runner_.FillHeld(g);
    return gpus;
  }
  uint32_t GpuWorkers() const;
  std::string MetricsText() const;

  // Refuses new jobs, cancels queued ones, gives running ones until deadline,
  // then answers every waiter of a job not yet ended. False if a worker is
  // still inside an engine call afterwards.
  bool Shutdown(std::chrono::steady_clock::time_point deadline);

 private:
  uint64_t PinnedBytes() const;  // the pipeline pool's idle + leased bytes (0 without one)
  void WriteAccepted(const std::string& request_id, const std::string& digest, const ProofJob& job,
                     const std::string& circuit_id);
  void Recover();                         // the journal's jobs, back in the tracker and the runner
  void Requeue(const JournalJob& entry);  // one unfinished job of the journal

  const ProverOptions options_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  Metrics metrics_;
  // Shared by the runner and the parameter sets: declared before both, so it
  // outlives their charges.
  memory::Budget budget_;
  SrsRegistry srs_;
  std::shared_ptr<JobJournal> journal_;  // nullptr without one; outlives the tracker that writes to it
  JobTracker tracker_;
  ProofRunner runner_;
  std::atomic<bool> shutting_down_{false};
  std::thread preloader_;  // PreloadInBackground's; joined first in ~Prover
};

}  // namespace cuzk::prover
