#include "prover/prover.hpp"

#include <spdlog/spdlog.h>

#include "memory/meminfo.hpp"

namespace cuzk::prover {
namespace {

RunnerOptions WithBudget(RunnerOptions o, memory::Budget* budget) {
  o.budget = budget;
  o.parameters_in_budget = true;  // the registry charges the sets (AttachBudget)
  return o;
}

// GENERIC_R1CS, once its circuit is loaded: one witness value per variable.
void BindGenericWitness(ProofJob& job, const LoadedParams& params) {
  const uint64_t n = params.circuit.num_variables();
  if (job.witness.values.size() != n) {
    throw InvalidJobError("witness: " + std::to_string(job.witness.values.size()) + " values, circuit " +
                          job.params.circuit_id() + " has " + std::to_string(n) + " variables");
  }
  job.witness.num_inputs = params.circuit.num_inputs;
}

}  // namespace

Prover::Prover(const ProverOptions& options)
    : options_(options),
      budget_(options.runner.budget_bytes ? *options.runner.budget_bytes
                                          : memory::AutoBudgetBytes(options.runner.safety_margin)),
      srs_(options.param_cache, options.runner.engine_threads, options.srs_image_cache),
      tracker_(options.job_retention, &metrics_),
      runner_(WithBudget(options.runner, &budget_), &tracker_) {
  srs_.AttachBudget(&budget_, options.eviction_min_idle);
}

Prover::~Prover() = default;

Prover::Submitted Prover::Submit(const std::string& request_id, const std::string& digest,
                                 std::shared_ptr<ProofJob> job, const std::string& circuit_id) {
  if (shutting_down()) throw ShuttingDownError("the daemon is shutting down");
  job->submitted = std::chrono::steady_clock::now();
  job->params = srs_.Acquire(circuit_id);
  // The witness length depends on the circuit: load it (once) before queueing.
  if (job->kind == JobKind::kGenericR1cs) BindGenericWitness(*job, *job->params.Get(nullptr));
  const JobTracker::SubmitResult s = tracker_.Submit(request_id, digest, job);
  if (s.created) {
    try {
      runner_.Enqueue(job);
    } catch (const memory::BudgetExceededError& e) {
      tracker_.Abandon(s.job_id, e.what());
      throw;  // it can never run, here or after a restart with this budget
    } catch (const std::invalid_argument& e) {
      tracker_.Abandon(s.job_id, e.what());
      throw;
    } catch (const std::exception& e) {
      tracker_.Abandon(s.job_id, e.what());
      throw ShuttingDownError(e.what());
    }
    spdlog::info("job {} queued: {} {} priority {}, {} partition(s)", s.job_id, JobKindName(job->kind), circuit_id,
                 scheduler::PriorityName(job->priority), job->PartitionCount());
  }
  return {s.job_id, runner_.QueuePosition(s.job_id).value_or(0)};
}

double Prover::UptimeSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

MemoryInfo Prover::Memory() const {
  MemoryInfo m;
  const memory::MemInfo sys = memory::ReadMemInfo();
  m.total_bytes = sys.total_bytes;
  m.available_bytes = sys.available_bytes;
  m.budget_bytes = runner_.budget_bytes();
  m.srs_resident_bytes = srs_.ResidentBytes();
  m.pinned_bytes = PinnedBytes();
  m.pinned_limit_bytes = options_.runner.pinned_limit;
  return m;
}

uint64_t Prover::PinnedBytes() const {
  const scheduler::PipelineStatus s = runner_.PipelineStatus();
  return s.has_pinned_pool ? s.pinned.idle_bytes + s.pinned.leased_bytes : 0;
}

uint32_t Prover::GpuWorkers() const { return uint32_t(runner_.devices().size()) * options_.runner.workers_per_device; }

std::string Prover::MetricsText() const {
  MetricsGauges g;
  g.uptime_seconds = UptimeSeconds();
  const RunnerCounts rc = runner_.Counts();
  for (const auto& [kind, c] : rc.by_kind) {
    g.queue_depth += c.pending;
    g.running_jobs += c.in_progress;
  }
  g.cpu_workers = rc.workers;
  g.busy_workers = rc.busy_workers;
  g.gpu_workers = GpuWorkers();
  g.srs_resident_bytes = srs_.ResidentBytes();
  g.pinned_bytes = PinnedBytes();
  g.pinned_limit_bytes = options_.runner.pinned_limit;
  g.retained_jobs = tracker_.Counts().retained;
  return metrics_.Render(g);
}

bool Prover::Shutdown(std::chrono::steady_clock::time_point deadline) {
  shutting_down_.store(true);
  const bool stopped = runner_.Shutdown(deadline);
  tracker_.CancelAllActive("cancelled: the daemon shut down before the job finished");
  return stopped;
}

}  // namespace cuzk::prover
