#pragma once
// Metrics: monotonic counters and histograms of finished jobs, rendered as
// Prometheus text exposition (format 0.0.4) together with the gauges the
// caller samples (queue depth, running jobs, ...).
//
// Names: cuzk's (cuzk_proofs_completed_total, cuzk_proofs_failed_total,
// cuzk_proofs_completed{proof_kind}, cuzk_proofs_failed{proof_kind},
// cuzk_uptime_seconds, cuzk_queue_depth, cuzk_running_jobs, cuzk_gpu_workers,
// cuzk_proof_duration_seconds{proof_kind} _count/_sum) -- now monotonic (cuzk
// counted over a ring buffer) -- plus histograms cuzk_queue_wait_seconds,
// cuzk_synthesis_seconds, cuzk_gpu_seconds, cuzk_total_seconds
// {proof_kind}, and cancelled/deduplicated counters, SRS and pinned bytes.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prover/job.hpp"

namespace cuzk::prover {

// Cumulative buckets over seconds (a 2 KiB CPU proof: ~20 s; a 32 GiB GPU
// partition: ~1-2 s; a CPU 32 GiB sector: hours).
class Histogram {
 public:
  static constexpr std::array<double, 14> kBounds = {0.01, 0.05, 0.1, 0.25, 0.5, 1,    2.5,
                                                     5,    10,   30,  60,   300, 1800, 7200};
  void Observe(double seconds);
  // `name` without suffix; `labels` like proof_kind="X" (may be empty).
  void Render(std::string& out, const std::string& name, const std::string& labels) const;

 private:
  std::array<uint64_t, kBounds.size()> counts_{};  // per bucket (not cumulative)
  uint64_t count_ = 0;
  double sum_ = 0;
};

struct MetricsGauges {
  double uptime_seconds = 0;
  uint64_t queue_depth = 0;
  uint64_t running_jobs = 0;
  uint64_t gpu_workers = 0;
  uint64_t cpu_workers = 0;
  uint64_t busy_workers = 0;
  uint64_t srs_resident_bytes = 0;
  uint64_t pinned_bytes = 0, pinned_limit_bytes = 0;
  uint64_t retained_jobs = 0;
};

class Metrics {
 public:
  void RecordFinished(JobKind kind, JobOutcome outcome, const JobTimings& t);
  void RecordDeduplicated();
  void RecordRejected(const std::string& code);  // requests refused before queueing, by gRPC code name
  std::string Render(const MetricsGauges& g) const;

 private:
  struct PerKind {
    uint64_t completed = 0, failed = 0, cancelled = 0;
    double duration_sum = 0;  // completed proofs, seconds
    Histogram queue_wait, synthesis, gpu, total;
  };
  mutable absl::Mutex mu_;
  std::map<JobKind, PerKind> kinds_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> rejected_ ABSL_GUARDED_BY(mu_);
  uint64_t deduplicated_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cuzk::prover
