#include "prover/metrics.hpp"

#include <cinttypes>
#include <cstdio>

namespace cuzk::prover {
namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void Family(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += " ";
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += " ";
  out += type;
  out += "\n";
}

void Sample(std::string& out, const std::string& name, const std::string& labels, double value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += Num(value);
  out += '\n';
}

std::string Bound(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string KindLabel(JobKind k) { return std::string("proof_kind=\"") + JobKindName(k) + "\""; }

}  // namespace

void Histogram::Observe(double seconds) {
  size_t i = 0;
  while (i < kBounds.size() && seconds > kBounds[i]) ++i;
  if (i < kBounds.size()) ++counts_[i];
  ++count_;
  sum_ += seconds;
}

void Histogram::Render(std::string& out, const std::string& name, const std::string& labels) const {
  const std::string sep = labels.empty() ? "" : ",";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kBounds.size(); ++i) {
    cumulative += counts_[i];
    Sample(out, name + "_bucket", labels + sep + "le=\"" + Bound(kBounds[i]) + "\"", double(cumulative));
  }
  Sample(out, name + "_bucket", labels + sep + "le=\"+Inf\"", double(count_));
  Sample(out, name + "_sum", labels, sum_);
  Sample(out, name + "_count", labels, double(count_));
}

void Metrics::RecordFinished(JobKind kind, JobOutcome outcome, const JobTimings& t) {
  absl::MutexLock lock(&mu_);
  PerKind& k = kinds_[kind];
  switch (outcome) {
    case JobOutcome::kCompleted:
      ++k.completed;
      k.duration_sum += t.total_ms / 1000;
      k.queue_wait.Observe(t.queue_wait_ms / 1000);
      k.synthesis.Observe(t.synthesis_ms / 1000);
      k.gpu.Observe(t.gpu_compute_ms / 1000);
      k.total.Observe(t.total_ms / 1000);
      break;
    case JobOutcome::kFailed: ++k.failed; break;
    case JobOutcome::kCancelled: ++k.cancelled; break;
  }
}

void Metrics::RecordDeduplicated() {
  absl::MutexLock lock(&mu_);
  ++deduplicated_;
}

void Metrics::RecordRejected(const std::string& code) {
  absl::MutexLock lock(&mu_);
  ++rejected_[code];
}

std::string Metrics::Render(const MetricsGauges& g) const {
  absl::MutexLock lock(&mu_);
  std::string out;
  // The SnapDeals kind is always present so that dashboards see zeros, not gaps.
  std::map<JobKind, PerKind> kinds = kinds_;
  kinds[JobKind::kSnapDeals];
  uint64_t completed = 0, failed = 0, cancelled = 0;
  for (const auto& [kind, k] : kinds) {
    completed += k.completed;
    failed += k.failed;
    cancelled += k.cancelled;
  }
  Family(out, "cuzk_proofs_completed_total", "counter", "Proofs completed since start.");
  Sample(out, "cuzk_proofs_completed_total", "", double(completed));
  Family(out, "cuzk_proofs_failed_total", "counter", "Proofs failed since start.");
  Sample(out, "cuzk_proofs_failed_total", "", double(failed));
  Family(out, "cuzk_proofs_cancelled_total", "counter", "Proofs cancelled (CancelProof or shutdown) since start.");
  Sample(out, "cuzk_proofs_cancelled_total", "", double(cancelled));
  // cuzk's per-kind names carry no _total suffix; kept for existing dashboards.
  Family(out, "cuzk_proofs_completed", "counter", "Proofs completed since start, by proof kind.");
  for (const auto& [kind, k] : kinds) Sample(out, "cuzk_proofs_completed", KindLabel(kind), double(k.completed));
  Family(out, "cuzk_proofs_failed", "counter", "Proofs failed since start, by proof kind.");
  for (const auto& [kind, k] : kinds) Sample(out, "cuzk_proofs_failed", KindLabel(kind), double(k.failed));
  Family(out, "cuzk_requests_deduplicated_total", "counter", "SubmitProof calls answered with an existing job.");
  Sample(out, "cuzk_requests_deduplicated_total", "", double(deduplicated_));
  Family(out, "cuzk_requests_rejected_total", "counter", "Requests refused before queueing, by gRPC code.");
  for (const auto& [code, n] : rejected_)
    Sample(out, "cuzk_requests_rejected_total", "code=\"" + code + "\"", double(n));
  Family(out, "cuzk_proof_duration_seconds", "summary", "Submit-to-finish time of completed proofs.");
  for (const auto& [kind, k] : kinds) {
    Sample(out, "cuzk_proof_duration_seconds_sum", KindLabel(kind), k.duration_sum);
    Sample(out, "cuzk_proof_duration_seconds_count", KindLabel(kind), double(k.completed));
  }
  struct H {
    const char* name;
    const char* help;
    Histogram PerKind::*member;
  };
  const H hs[] = {
      {"cuzk_queue_wait_seconds", "Submit to first partition started, completed proofs.", &PerKind::queue_wait},
      {"cuzk_synthesis_seconds", "Witness and a/b/c time per proof (partitions summed).", &PerKind::synthesis},
      {"cuzk_gpu_seconds", "GPU start (NTT, MSM; the CPU backend without a GPU) per proof, partitions summed.",
       &PerKind::gpu},
      {"cuzk_total_seconds", "Submit to result per proof.", &PerKind::total}};
  for (const H& h : hs) {
    Family(out, h.name, "histogram", h.help);
    for (const auto& [kind, k] : kinds) (k.*h.member).Render(out, h.name, KindLabel(kind));
  }
  Family(out, "cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
  Sample(out, "cuzk_uptime_seconds", "", g.uptime_seconds);
  Family(out, "cuzk_queue_depth", "gauge", "Jobs queued and not started.");
  Sample(out, "cuzk_queue_depth", "", double(g.queue_depth));
  Family(out, "cuzk_running_jobs", "gauge", "Jobs with a partition in progress.");
  Sample(out, "cuzk_running_jobs", "", double(g.running_jobs));
  Family(out, "cuzk_gpu_workers", "gauge", "GPU workers (0 without a CUDA build or GPU).");
  Sample(out, "cuzk_gpu_workers", "", double(g.gpu_workers));
  Family(out, "cuzk_cpu_workers", "gauge", "CPU proving workers.");
  Sample(out, "cuzk_cpu_workers", "", double(g.cpu_workers));
  Family(out, "cuzk_busy_workers", "gauge", "Workers proving a partition now.");
  Sample(out, "cuzk_busy_workers", "", double(g.busy_workers));
  Family(out, "cuzk_srs_resident_bytes", "gauge", "Bytes of parameter sets in memory.");
  Sample(out, "cuzk_srs_resident_bytes", "", double(g.srs_resident_bytes));
  Family(out, "cuzk_pinned_memory_bytes", "gauge", "Pinned host memory in use.");
  Sample(out, "cuzk_pinned_memory_bytes", "", double(g.pinned_bytes));
  Family(out, "cuzk_pinned_memory_limit_bytes", "gauge", "Pinned host memory limit (memory.pinned_limit).");
  Sample(out, "cuzk_pinned_memory_limit_bytes", "", double(g.pinned_limit_bytes));
  Family(out, "cuzk_retained_jobs", "gauge", "Finished jobs kept for late AwaitProof calls.");
  Sample(out, "cuzk_retained_jobs", "", double(g.retained_jobs));
  return out;
}

}  // namespace cuzk::prover
