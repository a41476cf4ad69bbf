#include "daemon/proving_service.hpp"

#include <spdlog/spdlog.h>

#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "daemon/config.hpp"
#include "daemon/errors.hpp"
#include "daemon/fallback_forward.hpp"
#include "daemon/request_validation.hpp"

namespace cuzk::daemon {

namespace v1 = cuzk::v1;
using namespace prover;
using Clock = std::chrono::steady_clock;

namespace {

// Longer than any proof; a larger timeout_ms would overflow the deadline
// (steady_clock::now() + ms) and answer TIMEOUT at once.
constexpr uint64_t kMaxAwaitTimeoutMs = 30ull * 24 * 3600 * 1000;

void FillAwait(const JobView& v, uint64_t timeout_ms, v1::AwaitProofResponse* resp) {
  resp->set_job_id(v.id);
  if (v.timed_out) {
    resp->set_status(v1::AwaitProofResponse::TIMEOUT);
    resp->set_error_message("job " + v.id + " has not finished after " + std::to_string(timeout_ms) + " ms");
  } else {
    switch (v.state) {
      case JobState::kCompleted: resp->set_status(v1::AwaitProofResponse::COMPLETED); break;
      case JobState::kFailed: resp->set_status(v1::AwaitProofResponse::FAILED); break;
      default: resp->set_status(v1::AwaitProofResponse::CANCELLED); break;
    }
    if (v.state == JobState::kCompleted) resp->set_proof(std::string(v.proof.begin(), v.proof.end()));
    resp->set_error_message(v.error);
  }
  resp->set_queue_wait_ms(uint64_t(v.timings.queue_wait_ms));
  resp->set_srs_load_ms(uint64_t(v.timings.srs_load_ms));
  resp->set_synthesis_ms(uint64_t(v.timings.synthesis_ms));
  resp->set_gpu_compute_ms(uint64_t(v.timings.gpu_compute_ms));
  resp->set_total_ms(uint64_t(v.timings.total_ms));
}

// One waiting call (AwaitProof, or the await half of Prove). Finish runs
// exactly once: from the tracker's callback (the job ended or the deadline
// passed), from OnCancel / Register when the client went away and Withdraw
// took the waiter back first, or from Refuse before anything was
// registered. OnDone deletes the reactor, so nothing touches `this` after
// its Finish; a callback that comes while Register is still inside
// AwaitAsync (a job that already ended, or one ending on another thread
// right then) leaves its view for Register to answer.
//
// While registered the call holds its job (JobHolds). A Prove whose client
// hangs up releases its hold and, when it was the last and no SubmitProof
// named the job, cancels the job: nobody would receive the proof.
class AwaitReactor final : public grpc::ServerUnaryReactor {
 public:
  enum class Kind { kAwait, kProve };
  AwaitReactor(JobTracker& tracker, JobCanceller& runner, JobHolds& holds, Kind kind, grpc::ByteBuffer* out)
      : tracker_(tracker), runner_(runner), holds_(holds), kind_(kind), out_(out) {}

  // Throws what AwaitAsync throws (JobNotFoundError); nothing is held or registered then.
  void Register(const std::string& job_id, uint64_t timeout_ms) {
    // What the tail below needs, read while this reactor is certainly alive:
    // once the waiter is registered, the job's answer may Finish it (and
    // gRPC delete it in OnDone) on another thread at any moment.
    JobTracker& tracker = tracker_;
    JobCanceller& runner = runner_;
    const bool prove = kind_ == Kind::kProve;
    std::optional<Clock::time_point> deadline;
    if (timeout_ms) deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    {
      absl::MutexLock lock(&mu_);
      registering_ = true;
      job_id_ = job_id;
      timeout_ms_ = timeout_ms;
    }
    holds_.Hold(job_id);
    uint64_t id = 0;
    try {
      id = tracker_.AwaitAsync(job_id, deadline, [this](JobView v) {
        {
          absl::MutexLock lock(&mu_);
          if (registering_) {
            deferred_ = std::move(v);
            return;
          }
        }
        Answer(v);
      });
    } catch (...) {
      holds_.Release(job_id);
      throw;
    }
    std::optional<JobView> deferred;
    bool cancelled;
    {
      absl::MutexLock lock(&mu_);
      registering_ = false;
      waiter_ = id;
      deferred = std::move(deferred_);
      cancelled = cancelled_;
    }
    if (deferred) {
      Answer(*deferred);  // the waiter was consumed: nobody else can finish this reactor
    } else if (cancelled) {
      WithdrawAndFinish(id, tracker, runner, prove);
    }
  }

  void Refuse(const grpc::Status& status) { Finish(status); }

  void OnCancel() override {
    std::optional<uint64_t> id;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      id = waiter_;
    }
    if (id) WithdrawAndFinish(*id, tracker_, runner_, kind_ == Kind::kProve);
  }

  void OnDone() override {
    { absl::MutexLock lock(&mu_); }  // orders every locked access before the delete (also for TSan)
    delete this;
  }

 private:
  void Answer(const JobView& v) {
    holds_.Release(JobId());
    v1::AwaitProofResponse r;
    FillAwait(v, TimeoutMs(), &r);
    if (kind_ == Kind::kProve) {
      v1::ProveResponse p;
      *p.mutable_result() = std::move(r);
      *out_ = Serialize(p);
    } else {
      *out_ = Serialize(r);
    }
    Finish(grpc::Status::OK);
  }

  // The tracker, runner and kind come from the caller, read while the reactor
  // was certainly alive: if Withdraw fails, the answer has finished this
  // reactor and OnDone may already have deleted it; if it succeeds, Finish
  // below may let gRPC delete it before Finish returns. So nothing of `this`
  // is touched after either (ASan found the old version reading kind_ and
  // tracker_ after Finish, when Register called it from an RPC pool thread).
  void WithdrawAndFinish(uint64_t waiter, JobTracker& tracker, JobCanceller& runner, bool prove) {
    if (!tracker.Withdraw(waiter)) return;  // answered meanwhile
    const std::string job_id = JobId();
    const bool last = holds_.Release(job_id);
    Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
    if (!prove || !last) return;
    try {
      const bool was_running = tracker.Cancel(job_id, runner);
      spdlog::info("job {}: its Prove client went away and no other call holds it: cancelled ({})",
                   QuoteForMessage(job_id), was_running ? "running" : "queued");
    } catch (const std::exception& e) {
      spdlog::info("job {}: its Prove client went away; not cancelled: {}", QuoteForMessage(job_id), e.what());
    }
  }

  uint64_t TimeoutMs() {
    absl::MutexLock lock(&mu_);
    return timeout_ms_;
  }
  std::string JobId() {
    absl::MutexLock lock(&mu_);
    return job_id_;
  }

  JobTracker& tracker_;
  JobCanceller& runner_;
  JobHolds& holds_;
  const Kind kind_;
  grpc::ByteBuffer* const out_;
  absl::Mutex mu_;
  std::string job_id_ ABSL_GUARDED_BY(mu_);
  uint64_t timeout_ms_ ABSL_GUARDED_BY(mu_) = 0;
  bool registering_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<JobView> deferred_ ABSL_GUARDED_BY(mu_);
  std::optional<uint64_t> waiter_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

// How long GetStatus/GetMetrics wait for the fallback's queues (an RPC
// pool thread blocks meanwhile; a fallback that is down answers at once).
constexpr std::chrono::milliseconds kFallbackStatusTimeout{1000};

std::string ForwardedWhat(v1::ProofKind kind) { return std::string("proves ") + v1::ProofKind_Name(kind); }

// The fallback's job ids, as our clients know them ("fallback-" + its id).
void PrefixSubmitId(grpc::ByteBuffer& bytes) {
  auto r = ParseMessage<v1::SubmitProofResponse>(bytes);
  r.set_job_id(FallbackEngine::ClientId(r.job_id()));
  bytes = Serialize(r);
}
void PrefixProveId(grpc::ByteBuffer& bytes) {
  auto r = ParseMessage<v1::ProveResponse>(bytes);
  r.mutable_result()->set_job_id(FallbackEngine::ClientId(r.result().job_id()));
  bytes = Serialize(r);
}
void PrefixAwaitId(grpc::ByteBuffer& bytes) {
  auto r = ParseMessage<v1::AwaitProofResponse>(bytes);
  r.set_job_id(FallbackEngine::ClientId(r.job_id()));
  bytes = Serialize(r);
}

// AwaitProof and CancelProof are parsed where they arrive (registering a
// waiter never blocks): their bytes are bounded first, so that no thread of
// gRPC's copies a large message. A real one is a job id (<= 256 bytes) and a number.
constexpr size_t kMaxIdRequestBytes = 64 << 10;

void CheckIdRequestSize(const grpc::ByteBuffer& bytes, const char* type) {
  const size_t size = bytes.Valid() ? bytes.Length() : 0;
  if (size > kMaxIdRequestBytes)
    throw InvalidRequestError(std::string(type) + " of " + std::to_string(size) + " bytes: at most " +
                              std::to_string(kMaxIdRequestBytes) + " (a job id is at most 256 bytes)");
}

// SubmitProofResponse.assigned_gpu. Curio's daemon always answers "" (its
// proto: "empty if not yet assigned"); here a job's partitions go to whichever
// GPU worker is free when each gets there, so a job can run on several GPUs.
// The field names the CUDA ordinals (GPUStatus.ordinal) of the GPUs on which a
// partition's GPU start ran or is running, ascending and comma-separated ("0",
// "0,1"). It is "" while no partition has reached a GPU (a job just queued:
// every new job's answer), on the CPU backend (no GPU), and for a finished job
// restored from the journal after a restart (which GPU ran it is not kept
// there). A submit that joins a running or completed job (its request_id
// retried with the same inputs) therefore names where it ran.
std::string AssignedGpus(const Prover& prover, const std::string& job_id) {
  const scheduler::PipelineStatus pipeline = prover.runner().PipelineStatus();
  std::vector<PartitionStatus> partitions;
  bool active = false;
  for (const scheduler::JobStatus& j : pipeline.jobs) {
    if (j.id != job_id) continue;
    partitions = j.partitions;  // a GPU worker sets a partition's worker when it picks it up
    active = true;
    break;
  }
  if (!active) {  // finished: the tracker kept each partition's last status
    for (const JobView& v : prover.tracker().Snapshot())
      if (v.id == job_id) partitions = v.partitions;
  }
  std::set<int> devices;
  for (const PartitionStatus& p : partitions) {
    if (p.worker < 0) continue;
    for (const scheduler::GpuWorkerStatus& w : pipeline.gpu_workers)
      if (int(w.worker) == p.worker && w.device >= 0) devices.insert(w.device);  // device -1: a CPU-backend worker
  }
  std::string out;
  for (int d : devices) out += (out.empty() ? "" : ",") + std::to_string(d);
  return out;
}

void CheckTimeout(uint64_t timeout_ms) {
  if (timeout_ms > kMaxAwaitTimeoutMs)
    throw InvalidRequestError("timeout_ms " + std::to_string(timeout_ms) + " is more than 30 days (" +
                              std::to_string(kMaxAwaitTimeoutMs) + "); 0 waits until the job ends");
}

}  // namespace

ServiceOptions ServiceOptionsFor(const Config& config) {
  ServiceOptions o;
  o.limits.max_vanilla_proofs = config.requests.max_vanilla_proofs;
  o.limits.max_vanilla_proof_bytes = config.requests.max_vanilla_proof_bytes;
  o.rpc_threads = config.daemon.rpc_threads;
  if (!config.fallback.address.empty()) {
    std::set<v1::ProofKind> kinds;
    for (const std::string& name : config.fallback.kinds) {
      v1::ProofKind kind;
      if (!v1::ProofKind_Parse(name, &kind)) throw ConfigError("config key fallback.kinds: unknown kind " + name);
      kinds.insert(kind);
    }
    o.fallback = std::make_shared<FallbackEngine>(config.fallback.address, kinds,
                                                  int(std::min<uint64_t>(config.daemon.max_message_bytes, INT32_MAX)));
  }
  return o;
}

ProvingService::ProvingService(prover::Prover* prover, ServiceOptions options)
    : prover_(prover), options_(options), pool_(options.rpc_threads) {}

grpc::Status ProvingService::Refused(const char* rpc, std::exception_ptr error) {
  grpc::Status s = ToGrpcStatus(error);
  prover_->metrics().RecordRejected(GrpcCodeName(s.error_code()));
  spdlog::warn("{}: {}: {}", rpc, GrpcCodeName(s.error_code()), s.error_message());
  return s;
}

template <class Resp, class Body>
ProvingService::Reactor* ProvingService::Unary(const char* rpc, Ctx* ctx, Bytes* out, Body body) {
  Reactor* reactor = ctx->DefaultReactor();
  pool_.Post([this, rpc, reactor, out, body = std::move(body)]() mutable {
    grpc::Status status = grpc::Status::OK;
    try {
      Resp resp;
      body(&resp);
      *out = Serialize(resp);
    } catch (...) {
      status = Refused(rpc, std::current_exception());
    }
    reactor->Finish(status);
  });
  return reactor;
}

ProvingService::Reactor* ProvingService::RefuseNow(Ctx* ctx, const char* rpc, std::exception_ptr error) {
  Reactor* reactor = ctx->DefaultReactor();
  reactor->Finish(Refused(rpc, error));
  return reactor;
}

FallbackEngine* ProvingService::ForwardsTo(v1::ProofKind kind) const {
  return options_.fallback && options_.fallback->Forwards(kind) ? options_.fallback.get() : nullptr;
}

Prover::Submitted ProvingService::Submit(const v1::SubmitProofRequest& req, double parse_ms) {
  if (prover_->shutting_down()) throw ShuttingDownError("the daemon is shutting down");
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const auto t0 = Clock::now();
  ValidatedRequest v = ValidateSubmit(req);
  const double validate_ms = ms_since(t0);
  const auto t1 = Clock::now();
  Prover::Submitted s = prover_->Submit(req.request_id(), v.digest, std::move(v.job), v.circuit_id);
  // Where a request's time goes before its job is queued (a 32 GiB
  // SnapDeals request: ~1 s between its arrival and the queue, not yet
  // broken down): parsing, validating (the vanilla proofs decoded and
  // checked), the prover's submit (lease, counts, journal, enqueue).
  spdlog::info("SUBMIT_TIMING,{},parse_ms={:.1f},validate_ms={:.1f},submit_ms={:.1f}", s.job_id, parse_ms, validate_ms,
               ms_since(t1));
  return s;
}

ProvingService::Reactor* ProvingService::SubmitProof(Ctx* ctx, const Bytes* in, Bytes* out) {
  SubmitScan scan;
  try {
    scan = ScanSubmitRequest(*in, options_.limits);
  } catch (...) {
    return RefuseNow(ctx, "SubmitProof", std::current_exception());
  }
  if (FallbackEngine* f = ForwardsTo(scan.proof_kind))
    return Forward(*f, ctx, "SubmitProof", *in, out, ForwardedWhat(scan.proof_kind), PrefixSubmitId);
  return Unary<v1::SubmitProofResponse>("SubmitProof", ctx, out, [this, in, scan](v1::SubmitProofResponse* resp) {
    CheckFieldsForKind(scan);
    const auto t0 = Clock::now();
    const v1::SubmitProofRequest req = ParseMessage<v1::SubmitProofRequest>(*in);
    const Prover::Submitted s = Submit(req, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    holds_.MarkSubmitted(s.job_id);
    resp->set_job_id(s.job_id);
    resp->set_queue_position(s.queue_position);
    // A job with others before it in the queue has no partition on a GPU:
    // no status copy for it (under load nearly every new submit).
    resp->set_assigned_gpu(s.queue_position > 0 ? "" : AssignedGpus(*prover_, s.job_id));
  });
}

ProvingService::Reactor* ProvingService::AwaitProof(Ctx* ctx, const Bytes* in, Bytes* out) {
  v1::AwaitProofRequest req;
  try {
    CheckIdRequestSize(*in, "AwaitProofRequest");
    req = ParseMessage<v1::AwaitProofRequest>(*in);
    CheckId(req.job_id(), "job_id");
    CheckTimeout(req.timeout_ms());
  } catch (...) {
    return RefuseNow(ctx, "AwaitProof", std::current_exception());
  }
  if (const auto theirs = options_.fallback ? FallbackEngine::FallbackId(req.job_id()) : std::nullopt) {
    req.set_job_id(*theirs);
    return Forward(*options_.fallback, ctx, "AwaitProof", Serialize(req), out, "holds job " + *theirs, PrefixAwaitId);
  }
  // Registering never blocks: done here, on gRPC's thread.
  auto* reactor = new AwaitReactor(prover_->tracker(), prover_->runner(), holds_, AwaitReactor::Kind::kAwait, out);
  try {
    reactor->Register(req.job_id(), req.timeout_ms());
  } catch (...) {
    reactor->Refuse(Refused("AwaitProof", std::current_exception()));
  }
  return reactor;
}

ProvingService::Reactor* ProvingService::Prove(Ctx* ctx, const Bytes* in, Bytes* out) {
  SubmitScan scan;
  try {
    scan = ScanProveRequest(*in, options_.limits);
  } catch (...) {
    return RefuseNow(ctx, "Prove", std::current_exception());
  }
  if (FallbackEngine* f = ForwardsTo(scan.proof_kind))
    return Forward(*f, ctx, "Prove", *in, out, ForwardedWhat(scan.proof_kind), PrefixProveId);
  auto* reactor = new AwaitReactor(prover_->tracker(), prover_->runner(), holds_, AwaitReactor::Kind::kProve, out);
  pool_.Post([this, reactor, in, scan] {
    try {
      CheckFieldsForKind(scan);
      const auto t0 = Clock::now();
      const v1::ProveRequest req = ParseMessage<v1::ProveRequest>(*in);
      const std::string job_id =
          Submit(req.submit(), std::chrono::duration<double, std::milli>(Clock::now() - t0).count()).job_id;
      reactor->Register(job_id, 0);
    } catch (...) {
      reactor->Refuse(Refused("Prove", std::current_exception()));
    }
  });
  return reactor;
}

ProvingService::Reactor* ProvingService::CancelProof(Ctx* ctx, const Bytes* in, Bytes* out) {
  v1::CancelProofRequest req;
  try {
    CheckIdRequestSize(*in, "CancelProofRequest");
    req = ParseMessage<v1::CancelProofRequest>(*in);
    CheckId(req.job_id(), "job_id");
  } catch (...) {
    return RefuseNow(ctx, "CancelProof", std::current_exception());
  }
  if (const auto theirs = options_.fallback ? FallbackEngine::FallbackId(req.job_id()) : std::nullopt) {
    req.set_job_id(*theirs);
    return Forward(*options_.fallback, ctx, "CancelProof", Serialize(req), out, "holds job " + *theirs, [](Bytes&) {});
  }
  return Unary<v1::CancelProofResponse>("CancelProof", ctx, out, [this, req](v1::CancelProofResponse* resp) {
    const bool was_running = prover_->tracker().Cancel(req.job_id(), prover_->runner());
    spdlog::info("job {} cancel requested ({})", req.job_id(), was_running ? "running" : "not running");
    resp->set_was_running(was_running);
  });
}

void ProvingService::FillStatus(v1::GetStatusResponse* resp) {
  const scheduler::PipelineStatus pipeline = prover_->runner().PipelineStatus();
  for (const GpuInfo& g : prover_->Gpus()) {
    auto* s = resp->add_gpus();
    s->set_ordinal(g.ordinal);
    s->set_name(g.name);
    s->set_vram_total_bytes(g.vram_total_bytes);
    s->set_vram_free_bytes(g.vram_free_bytes);
    // The job one of its workers is proving now (the first busy worker's), and its kind.
    for (const scheduler::GpuWorkerStatus& w : pipeline.gpu_workers) {
      if (w.device != int(g.ordinal) || !w.busy) continue;
      s->set_current_job_id(w.job_id);
      for (const scheduler::JobStatus& j : pipeline.jobs)
        if (j.id == w.job_id) s->set_current_proof_kind(j.kind);
      break;
    }
  }
  for (const SrsInfo& info : prover_->srs().List()) {
    auto* s = resp->add_loaded_srs();
    s->set_circuit_id(info.circuit_id);
    s->set_tier(v1::SRSStatus::Tier(int(info.tier)));
    s->set_size_bytes(info.size_bytes);
    s->set_ref_count(info.ref_count);
  }
  RunnerCounts rc = prover_->runner().Counts();
  rc.by_kind[JobKind::kSnapDeals];  // always listed
  for (const auto& [kind, c] : rc.by_kind) {
    auto* q = resp->add_queues();
    q->set_proof_kind(JobKindName(kind));
    q->set_pending(c.pending);
    q->set_in_progress(c.in_progress);
  }
  const TrackerCounts tc = prover_->tracker().Counts();
  resp->set_total_proofs_completed(tc.completed);
  resp->set_total_proofs_failed(tc.failed);
  resp->set_uptime_seconds(uint64_t(prover_->UptimeSeconds()));
  const MemoryInfo m = prover_->Memory();
  resp->set_pinned_memory_bytes(m.pinned_bytes);  // the pipeline's pool (GPU workers), idle + leased
  resp->set_pinned_memory_limit_bytes(m.pinned_limit_bytes);
}

bool ProvingService::AddFallbackQueues(v1::GetStatusResponse* resp) {
  if (!options_.fallback) return false;
  v1::GetStatusResponse theirs;
  const grpc::Status s = options_.fallback->Status(&theirs, kFallbackStatusTimeout);
  if (fallback_up_.exchange(s.ok()) != s.ok()) {
    if (s.ok()) {
      spdlog::info("fallback engine at {} answers GetStatus again", options_.fallback->address());
    } else {
      spdlog::warn("fallback engine at {}: GetStatus failed ({}: {}); its queues are left out until it answers",
                   options_.fallback->address(), GrpcCodeName(s.error_code()), s.error_message());
    }
  }
  if (!s.ok()) return false;
  for (const v1::QueueStatus& q : theirs.queues()) {
    const std::optional<v1::ProofKind> kind = QueueKind(q.proof_kind());
    if (!kind || !options_.fallback->Forwards(*kind)) continue;  // a kind we prove: its queue is ours
    const std::string name = v1::ProofKind_Name(*kind);
    v1::QueueStatus* mine = nullptr;
    for (v1::QueueStatus& m : *resp->mutable_queues())
      if (m.proof_kind() == name) mine = &m;
    if (!mine) {
      mine = resp->add_queues();
      mine->set_proof_kind(name);
    }
    mine->set_pending(mine->pending() + q.pending());
    mine->set_in_progress(mine->in_progress() + q.in_progress());
  }
  return true;
}

ProvingService::Reactor* ProvingService::GetStatus(Ctx* ctx, const Bytes* in, Bytes* out) {
  return Unary<v1::GetStatusResponse>("GetStatus", ctx, out, [this, in](v1::GetStatusResponse* resp) {
    ParseMessage<v1::GetStatusRequest>(*in);
    FillStatus(resp);
    AddFallbackQueues(resp);
  });
}

ProvingService::Reactor* ProvingService::GetMetrics(Ctx* ctx, const Bytes* in, Bytes* out) {
  return Unary<v1::GetMetricsResponse>("GetMetrics", ctx, out, [this, in](v1::GetMetricsResponse* resp) {
    ParseMessage<v1::GetMetricsRequest>(*in);
    std::string text = prover_->MetricsText();
    if (options_.fallback) {
      v1::GetStatusResponse fallback;
      const bool up = AddFallbackQueues(&fallback);
      text += "# HELP cuzk_fallback_up 1 when the fallback engine ([fallback] address) answered GetStatus\n";
      text += "# TYPE cuzk_fallback_up gauge\ncuzk_fallback_up " + std::string(up ? "1" : "0") + "\n";
      text += "# HELP cuzk_fallback_queue_pending Jobs waiting at the fallback engine, of the kinds forwarded to it\n";
      text += "# TYPE cuzk_fallback_queue_pending gauge\n";
      for (const auto& q : fallback.queues())
        text +=
            "cuzk_fallback_queue_pending{proof_kind=\"" + q.proof_kind() + "\"} " + std::to_string(q.pending()) + "\n";
      text += "# HELP cuzk_fallback_queue_in_progress Jobs the fallback engine is proving, of the kinds forwarded\n";
      text += "# TYPE cuzk_fallback_queue_in_progress gauge\n";
      for (const auto& q : fallback.queues())
        text += "cuzk_fallback_queue_in_progress{proof_kind=\"" + q.proof_kind() + "\"} " +
                std::to_string(q.in_progress()) + "\n";
    }
    resp->set_prometheus_text(std::move(text));
  });
}

ProvingService::Reactor* ProvingService::PreloadSRS(Ctx* ctx, const Bytes* in, Bytes* out) {
  return Unary<v1::PreloadSrsResponse>("PreloadSRS", ctx, out, [this, in](v1::PreloadSrsResponse* resp) {
    const auto req = ParseMessage<v1::PreloadSrsRequest>(*in);
    const auto r = prover_->srs().Preload(req.circuit_id());
    spdlog::info("PreloadSRS {}: {}", req.circuit_id(),
                 r.already_loaded ? "already loaded" : "loaded in " + std::to_string(r.load_ms) + " ms");
    resp->set_already_loaded(r.already_loaded);
    resp->set_load_time_ms(r.load_ms);
  });
}

ProvingService::Reactor* ProvingService::EvictSRS(Ctx* ctx, const Bytes* in, Bytes* out) {
  return Unary<v1::EvictSrsResponse>("EvictSRS", ctx, out, [this, in](v1::EvictSrsResponse* resp) {
    const auto req = ParseMessage<v1::EvictSrsRequest>(*in);
    const auto r = prover_->srs().Evict(req.circuit_id());
    spdlog::info("EvictSRS {}: {}", req.circuit_id(),
                 r.was_loaded ? "freed " + std::to_string(r.freed_bytes) + " bytes" : "was not loaded");
    resp->set_was_loaded(r.was_loaded);
    resp->set_freed_bytes(r.freed_bytes);
  });
}

}  // namespace cuzk::daemon
