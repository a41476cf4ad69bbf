#include "prover/prover.hpp"

#include <spdlog/spdlog.h>

#include "memory/meminfo.hpp"
#include "prover/job_codec.hpp"
#include "prover/sqlite_job_journal.hpp"

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

std::shared_ptr<JobJournal> OpenJournal(const ProverOptions& o) {
  if (o.journal) return o.journal;
  if (o.state_dir.empty()) return nullptr;
  auto journal = SqliteJobJournal::Open(o.state_dir);
  spdlog::info("job journal: {} (SQLite, WAL, synchronous=FULL)", journal->path());
  return journal;
}

}  // namespace

Prover::Prover(const ProverOptions& options)
    : options_(options),
      budget_(options.runner.budget_bytes ? *options.runner.budget_bytes
                                          : memory::AutoBudgetBytes(options.runner.safety_margin)),
      srs_(options.param_cache, options.runner.engine_threads, options.srs_image_cache),
      journal_(OpenJournal(options)),
      tracker_(options.job_retention, &metrics_, journal_.get()),
      runner_(WithBudget(options.runner, &budget_), &tracker_) {
  srs_.AttachBudget(&budget_, options.eviction_min_idle);
  // GPUs that prove witness-only take the circuit's compact form: kept as an image.
  srs_.SetCompactCircuits(runner_.PreparesCompactCircuits());
  // A set that loads goes to the GPUs at once, beside the synthesis of its
  // first partitions (or at start, for srs.preload).
  // Once every GPU holds it, its host copy goes (SrsRegistry::DevicesHold).
  srs_.SetOnLoaded([this](const std::string&, const std::shared_ptr<const LoadedParams>& params) {
    runner_.PrepareDevices(params, [this, params](bool circuit_too) { srs_.DevicesHold(params, circuit_too); });
  });
  // With GPUs that evaluate a/b/c themselves, a set whose images are made
  // loads straight into their memory (no host copy of its bases or matrices).
  if (runner_.PreparesCompactCircuits() && options.srs_key_to_devices) {
    srs_.SetKeyToDevices([this](const groth16::ProvingKey& shell, std::shared_ptr<const groth16::KeyImageStream> image,
                                uint64_t circuit_bytes, const SrsRegistry::CompactSource& compact,
                                const SrsRegistry::DevicesBroken& broken) {
      return runner_.LoadKeyImage(shell, std::move(image), circuit_bytes, compact, broken);
    });
    if (!options.srs_image_cache.empty()) runner_.PrepareKeyImageBuffers();  // no images, no loads to the GPUs
    // Key images hold the form of H these GPUs read (a compressed-only 32 GiB
    // image: 29.7 GB instead of 37.2; both forms: 43.6).
    srs_.images().SetKeyImageH(runner_.KeyImageHForGpus());
  }
  // A set that goes (evicted, no job holds it) leaves the GPUs too.
  srs_.SetOnUnloaded([this](const LoadedParams& params) { runner_.ForgetOnDevices(params); });
  if (journal_) Recover();
}

// Before runner_ goes. The preload first: its load calls the hooks below.
Prover::~Prover() {
  if (preloader_.joinable()) preloader_.join();
  srs_.SetOnLoaded(nullptr);
  srs_.SetKeyToDevices(nullptr);
  srs_.SetOnUnloaded(nullptr);
}

void Prover::PreloadInBackground(const std::vector<std::string>& circuit_ids) {
  if (preloader_.joinable()) throw std::logic_error("Prover::PreloadInBackground called twice");
  std::vector<SrsRegistry::Lease> leases;
  for (const std::string& id : circuit_ids) leases.push_back(srs_.Acquire(id));  // throws before any load
  if (leases.empty()) return;
  preloader_ = std::thread([leases = std::move(leases)]() mutable {
    for (SrsRegistry::Lease& lease : leases) {
      try {
        double ms = 0;
        lease.Get(&ms);
        spdlog::info("SRS_PRELOAD,{},loaded,ms={:.0f}", lease.circuit_id(), ms);
      } catch (const std::exception& e) {
        spdlog::error("SRS_PRELOAD,{},failed: {} (loads again on its first job)", lease.circuit_id(), e.what());
      }
      lease = SrsRegistry::Lease();  // loaded (or not): idle now, evictable, not held while the next one loads
    }
  });
}

Prover::Submitted Prover::Submit(const std::string& request_id, const std::string& digest,
                                 std::shared_ptr<ProofJob> job, const std::string& circuit_id) {
  if (shutting_down()) throw ShuttingDownError("the daemon is shutting down");
  // A retry of a queued, running or completed job: no lease, no load, no write.
  if (auto joined = tracker_.Join(request_id, digest)) return {*joined, runner_.QueuePosition(*joined).value_or(0)};
  job->submitted = std::chrono::steady_clock::now();
  job->params = srs_.Acquire(circuit_id);
  // The witness length depends on the circuit: load it (once) before queueing.
  if (job->kind == JobKind::kGenericR1cs) BindGenericWitness(*job, *job->params.Get(nullptr));
  const JobTracker::SubmitResult s = tracker_.Submit(request_id, digest, job);
  if (s.created) {
    WriteAccepted(request_id, digest, *job, circuit_id);
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

void Prover::WriteAccepted(const std::string& request_id, const std::string& digest, const ProofJob& job,
                           const std::string& circuit_id) {
  if (!journal_) return;
  JournalJob entry;
  entry.id = job.id;
  entry.request_id = request_id;
  entry.digest = digest;
  entry.kind = job.kind;
  entry.priority = job.priority;
  entry.circuit_id = circuit_id;
  entry.submitted_unix_ms = UnixMillisNow();
  try {
    entry.payload = EncodeJobInputs(job, circuit_id);
    journal_->RecordAccepted(entry);  // one fsync (docs/reliability.md, "Durable jobs")
  } catch (const std::exception& e) {
    // Not accepted: the client hears so and may retry; the request_id starts a new job then.
    const std::string error = std::string("not accepted: the job journal could not record it: ") + e.what();
    tracker_.Abandon(job.id, error);
    throw JournalError("job " + job.id + " " + error);
  }
}

void Prover::Recover() {
  const std::vector<JournalJob> entries = journal_->LoadAll();
  const int64_t now = UnixMillisNow();
  size_t requeued = 0, finished = 0, expired = 0;
  for (const JournalJob& e : entries) {  // acceptance order: the pipeline keeps it (priority first)
    if (!IsFinal(e.state)) {
      Requeue(e);
      ++requeued;
    } else if (e.ended_unix_ms + options_.job_retention.count() > now) {
      tracker_.Restore(e, 0);  // answers AwaitProof until its retention ends
      spdlog::info("job {} kept from the journal: {}", e.id, JobStateName(e.state));
      ++finished;
    } else {
      ++expired;  // retention ended while the daemon was down
      try {
        journal_->Forget(e.id, e.ended_unix_ms);
      } catch (const std::exception& ex) {
        spdlog::error("job {}: retention ended, but its journal row stays: {}", e.id, ex.what());
      }
    }
  }
  if (!entries.empty())
    spdlog::info("job journal: {} unfinished job(s) queued again, {} finished job(s) kept, {} expired", requeued,
                 finished, expired);
}

void Prover::Requeue(const JournalJob& entry) {
  std::shared_ptr<ProofJob> job;
  std::string error;
  try {
    DecodedJobInputs d = DecodeJobInputs(entry.payload);
    job = std::move(d.job);
    job->id = entry.id;
    job->submitted =
        std::chrono::steady_clock::now() - std::chrono::milliseconds(UnixMillisNow() - entry.submitted_unix_ms);
    job->params = srs_.Acquire(d.circuit_id);
    if (job->kind == JobKind::kGenericR1cs) BindGenericWitness(*job, *job->params.Get(nullptr));
  } catch (const std::exception& e) {
    error = e.what();
  }
  tracker_.Restore(entry, job && error.empty() ? job->PartitionCount() : 0);
  if (error.empty()) {
    try {
      runner_.Enqueue(job);
      spdlog::info("job {} queued again after a restart: {} {} priority {}", entry.id, JobKindName(job->kind),
                   entry.circuit_id, scheduler::PriorityName(job->priority));
      return;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  // Ended as failed, naming why; recorded so (never silently dropped).
  spdlog::error("job {} from the journal cannot run again: {}", entry.id, error);
  tracker_.Abandon(entry.id, "not queued again after the daemon restarted: " + error);
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
  tracker_.BeginShutdown();  // jobs it cancels stay unfinished in the journal
  const bool stopped = runner_.Shutdown(deadline);
  tracker_.CancelAllActive("cancelled: the daemon shut down before the job finished");
  return stopped;
}

}  // namespace cuzk::prover
