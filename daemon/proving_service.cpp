#include "daemon/proving_service.hpp"

#include <spdlog/spdlog.h>

#include "absl/synchronization/mutex.h"
#include "daemon/errors.hpp"
#include "daemon/request_validation.hpp"

namespace cuzk::daemon {

namespace v1 = cuzk::v1;
using namespace prover;
using Clock = std::chrono::steady_clock;

namespace {

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

// One waiting call. Finish runs exactly once: from the tracker's callback
// (the job ended or the deadline passed), or from OnCancel / Register when
// the client went away and Withdraw took the waiter back first. OnDone
// deletes the reactor, so nothing touches `this` after its Finish; a callback
// that comes while Register is still inside AwaitAsync (a job that already
// ended, or one ending on another thread right then) leaves its view for
// Register to answer.
class AwaitReactor final : public grpc::ServerUnaryReactor {
 public:
  AwaitReactor(JobTracker& tracker, uint64_t timeout_ms, v1::AwaitProofResponse* resp)
      : tracker_(tracker), timeout_ms_(timeout_ms), resp_(resp) {}

  // Throws what AwaitAsync throws (JobNotFoundError); nothing is registered then.
  void Register(const std::string& job_id) {
    std::optional<Clock::time_point> deadline;
    if (timeout_ms_) deadline = Clock::now() + std::chrono::milliseconds(timeout_ms_);
    {
      absl::MutexLock lock(&mu_);
      registering_ = true;
    }
    const uint64_t id = tracker_.AwaitAsync(job_id, deadline, [this](JobView v) {
      {
        absl::MutexLock lock(&mu_);
        if (registering_) {
          deferred_ = std::move(v);
          return;
        }
      }
      Answer(v);
    });
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
      Answer(*deferred);
    } else if (cancelled) {
      WithdrawAndFinish(id);
    }
  }

  void OnCancel() override {
    std::optional<uint64_t> id;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      id = waiter_;
    }
    if (id) WithdrawAndFinish(*id);
  }

  void OnDone() override { delete this; }

 private:
  void Answer(const JobView& v) {
    FillAwait(v, timeout_ms_, resp_);
    Finish(grpc::Status::OK);
  }
  void WithdrawAndFinish(uint64_t id) {
    if (tracker_.Withdraw(id)) Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
  }

  JobTracker& tracker_;
  const uint64_t timeout_ms_;
  v1::AwaitProofResponse* const resp_;
  absl::Mutex mu_;
  bool registering_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<JobView> deferred_ ABSL_GUARDED_BY(mu_);
  std::optional<uint64_t> waiter_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

grpc::Status ProvingService::Refused(const char* rpc, std::exception_ptr error) {
  grpc::Status s = ToGrpcStatus(error);
  prover_->metrics().RecordRejected(GrpcCodeName(s.error_code()));
  spdlog::warn("{}: {}: {}", rpc, GrpcCodeName(s.error_code()), s.error_message());
  return s;
}

template <class F>
grpc::Status ProvingService::Guard(const char* rpc, F&& body) {
  try {
    body();
    return grpc::Status::OK;
  } catch (...) {
    return Refused(rpc, std::current_exception());
  }
}

Prover::Submitted ProvingService::Submit(const v1::SubmitProofRequest& req) {
  if (prover_->shutting_down()) throw ShuttingDownError("the daemon is shutting down");
  ValidatedRequest v = ValidateSubmit(req);
  return prover_->Submit(req.request_id(), v.digest, std::move(v.job), v.circuit_id);
}

// Longer than any proof; a larger timeout_ms would overflow the deadline
// (steady_clock::now() + ms) and answer TIMEOUT at once.
constexpr uint64_t kMaxAwaitTimeoutMs = 30ull * 24 * 3600 * 1000;

grpc::ServerUnaryReactor* ProvingService::StartAwait(const char* rpc, grpc::CallbackServerContext* ctx,
                                                     const std::string& job_id, uint64_t timeout_ms,
                                                     v1::AwaitProofResponse* resp) {
  auto* reactor = new AwaitReactor(prover_->tracker(), timeout_ms, resp);
  try {
    CheckId(job_id, "job_id");
    if (timeout_ms > kMaxAwaitTimeoutMs)
      throw InvalidRequestError("timeout_ms " + std::to_string(timeout_ms) + " is more than 30 days (" +
                                std::to_string(kMaxAwaitTimeoutMs) + "); 0 waits until the job ends");
    reactor->Register(job_id);
  } catch (...) {
    reactor->Finish(Refused(rpc, std::current_exception()));
  }
  return reactor;
}

grpc::Status ProvingService::SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest* req,
                                         v1::SubmitProofResponse* resp) {
  return Guard("SubmitProof", [&] {
    const Prover::Submitted s = Submit(*req);
    resp->set_job_id(s.job_id);
    resp->set_queue_position(s.queue_position);
    resp->set_assigned_gpu("");  // partitions go to whichever GPU worker is free, not to one GPU
  });
}

grpc::ServerUnaryReactor* ProvingService::AwaitProof(grpc::CallbackServerContext* ctx, const v1::AwaitProofRequest* req,
                                                     v1::AwaitProofResponse* resp) {
  return StartAwait("AwaitProof", ctx, req->job_id(), req->timeout_ms(), resp);
}

grpc::ServerUnaryReactor* ProvingService::Prove(grpc::CallbackServerContext* ctx, const v1::ProveRequest* req,
                                                v1::ProveResponse* resp) {
  std::string job_id;
  try {
    job_id = Submit(req->submit()).job_id;
  } catch (...) {
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    reactor->Finish(Refused("Prove", std::current_exception()));
    return reactor;
  }
  return StartAwait("Prove", ctx, job_id, 0, resp->mutable_result());
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* req,
                                         v1::CancelProofResponse* resp) {
  return Guard("CancelProof", [&] {
    CheckId(req->job_id(), "job_id");
    const bool was_running = prover_->tracker().Cancel(req->job_id(), prover_->runner());
    spdlog::info("job {} cancel requested ({})", req->job_id(), was_running ? "running" : "not running");
    resp->set_was_running(was_running);
  });
}

grpc::Status ProvingService::GetStatus(grpc::ServerContext*, const v1::GetStatusRequest*, v1::GetStatusResponse* resp) {
  return Guard("GetStatus", [&] {
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
  });
}

grpc::Status ProvingService::GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*,
                                        v1::GetMetricsResponse* resp) {
  return Guard("GetMetrics", [&] { resp->set_prometheus_text(prover_->MetricsText()); });
}

grpc::Status ProvingService::PreloadSRS(grpc::ServerContext*, const v1::PreloadSrsRequest* req,
                                        v1::PreloadSrsResponse* resp) {
  return Guard("PreloadSRS", [&] {
    const auto r = prover_->srs().Preload(req->circuit_id());
    spdlog::info("PreloadSRS {}: {}", req->circuit_id(),
                 r.already_loaded ? "already loaded" : "loaded in " + std::to_string(r.load_ms) + " ms");
    resp->set_already_loaded(r.already_loaded);
    resp->set_load_time_ms(r.load_ms);
  });
}

grpc::Status ProvingService::EvictSRS(grpc::ServerContext*, const v1::EvictSrsRequest* req,
                                      v1::EvictSrsResponse* resp) {
  return Guard("EvictSRS", [&] {
    const auto r = prover_->srs().Evict(req->circuit_id());
    spdlog::info("EvictSRS {}: {}", req->circuit_id(),
                 r.was_loaded ? "freed " + std::to_string(r.freed_bytes) + " bytes" : "was not loaded");
    resp->set_was_loaded(r.was_loaded);
    resp->set_freed_bytes(r.freed_bytes);
  });
}

}  // namespace cuzk::daemon
