#include "daemon/proving_service.hpp"

#include <spdlog/spdlog.h>

#include "daemon/errors.hpp"
#include "daemon/request_validation.hpp"
#include "memory/budget.hpp"

namespace cuzk::daemon {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;

template <class F>
grpc::Status ProvingService::Guard(const char* rpc, F&& body) {
  try {
    body();
    return grpc::Status::OK;
  } catch (...) {
    grpc::Status s = ToGrpcStatus(std::current_exception());
    core_->metrics().RecordRejected(GrpcCodeName(s.error_code()));
    spdlog::warn("{}: {}: {}", rpc, GrpcCodeName(s.error_code()), s.error_message());
    return s;
  }
}

ProvingService::Submitted ProvingService::Submit(const v1::SubmitProofRequest& req) {
  if (core_->shutting_down()) throw ShuttingDownError("the daemon is shutting down");
  ValidatedRequest v = ValidateSubmit(req);
  v.job->sequence = core_->NextSequence();
  v.job->submitted = Clock::now();
  v.job->params = core_->srs().Acquire(v.circuit_id);
  if (v.job->kind == JobKind::kGenericR1cs) {
    // The witness length depends on the circuit: load it (once) before queueing.
    BindGenericWitness(*v.job, *v.job->params.Get(nullptr));
  }
  const JobTracker::SubmitResult s = core_->tracker().Submit(req.request_id(), v.digest, v.job);
  if (s.created) {
    try {
      core_->runner().Enqueue(v.job);
    } catch (const memory::BudgetExceededError& e) {
      core_->tracker().Abandon(s.job_id, e.what());
      throw;  // RESOURCE_EXHAUSTED: it can never run, here or after a restart with this budget
    } catch (const std::exception& e) {
      core_->tracker().Abandon(s.job_id, e.what());
      throw ShuttingDownError(e.what());
    }
    spdlog::info("job {} queued: {} {} priority {}, {} partition(s)", s.job_id, JobKindName(v.job->kind),
                 v.circuit_id, v.job->priority, v.job->PartitionCount());
  }
  return {s.job_id, core_->runner().QueuePosition(s.job_id).value_or(0)};
}

void ProvingService::Await(grpc::ServerContext* ctx, const std::string& job_id, uint64_t timeout_ms,
                           v1::AwaitProofResponse* resp) {
  std::optional<Clock::time_point> deadline;
  if (timeout_ms) deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  const JobView v = core_->tracker().Await(job_id, deadline, [ctx] { return ctx->IsCancelled(); });
  resp->set_job_id(v.id);
  switch (v.state) {
    case JobState::kCompleted: resp->set_status(v1::AwaitProofResponse::COMPLETED); break;
    case JobState::kFailed: resp->set_status(v1::AwaitProofResponse::FAILED); break;
    case JobState::kCancelled: resp->set_status(v1::AwaitProofResponse::CANCELLED); break;
    default: resp->set_status(v1::AwaitProofResponse::TIMEOUT); break;
  }
  if (v.state == JobState::kCompleted) resp->set_proof(std::string(v.proof.begin(), v.proof.end()));
  if (v.state == JobState::kTimeout) {
    resp->set_error_message("job " + v.id + " has not finished after " + std::to_string(timeout_ms) + " ms");
  } else {
    resp->set_error_message(v.error);
  }
  resp->set_queue_wait_ms(uint64_t(v.timings.queue_wait_ms));
  resp->set_srs_load_ms(uint64_t(v.timings.srs_load_ms));
  resp->set_synthesis_ms(uint64_t(v.timings.synthesis_ms));
  resp->set_gpu_compute_ms(uint64_t(v.timings.gpu_ms));
  resp->set_total_ms(uint64_t(v.timings.total_ms));
}

grpc::Status ProvingService::SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest* req,
                                         v1::SubmitProofResponse* resp) {
  return Guard("SubmitProof", [&] {
    const Submitted s = Submit(*req);
    resp->set_job_id(s.job_id);
    resp->set_queue_position(s.queue_position);
    resp->set_assigned_gpu("");  // the CPU runner proves; no GPU is assigned
  });
}

grpc::Status ProvingService::AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* req,
                                        v1::AwaitProofResponse* resp) {
  return Guard("AwaitProof", [&] { Await(ctx, req->job_id(), req->timeout_ms(), resp); });
}

grpc::Status ProvingService::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req, v1::ProveResponse* resp) {
  return Guard("Prove", [&] {
    const Submitted s = Submit(req->submit());
    Await(ctx, s.job_id, 0, resp->mutable_result());
  });
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* req,
                                         v1::CancelProofResponse* resp) {
  return Guard("CancelProof", [&] {
    const bool was_running = core_->tracker().Cancel(req->job_id(), core_->runner());
    spdlog::info("job {} cancel requested ({})", req->job_id(), was_running ? "running" : "not running");
    resp->set_was_running(was_running);
  });
}

grpc::Status ProvingService::GetStatus(grpc::ServerContext*, const v1::GetStatusRequest*,
                                       v1::GetStatusResponse* resp) {
  return Guard("GetStatus", [&] {
    for (const GpuInfo& g : core_->Gpus()) {
      auto* s = resp->add_gpus();
      s->set_ordinal(g.ordinal);
      s->set_name(g.name);
      s->set_vram_total_bytes(g.vram_total_bytes);
      s->set_vram_free_bytes(g.vram_free_bytes);
    }
    for (const SrsInfo& info : core_->srs().List()) {
      auto* s = resp->add_loaded_srs();
      s->set_circuit_id(info.circuit_id);
      s->set_tier(v1::SRSStatus::Tier(int(info.tier)));
      s->set_size_bytes(info.size_bytes);
      s->set_ref_count(info.ref_count);
    }
    RunnerCounts rc = core_->runner().Counts();
    rc.by_kind[JobKind::kSnapDeals];  // always listed
    for (const auto& [kind, c] : rc.by_kind) {
      auto* q = resp->add_queues();
      q->set_proof_kind(JobKindName(kind));
      q->set_pending(c.pending);
      q->set_in_progress(c.in_progress);
    }
    const TrackerCounts tc = core_->tracker().Counts();
    resp->set_total_proofs_completed(tc.completed);
    resp->set_total_proofs_failed(tc.failed);
    resp->set_uptime_seconds(uint64_t(core_->UptimeSeconds()));
    const MemoryInfo m = core_->Memory();
    resp->set_pinned_memory_bytes(m.pinned_bytes);  // the pipeline's pool (GPU workers), idle + leased
    resp->set_pinned_memory_limit_bytes(m.pinned_limit_bytes);
  });
}

grpc::Status ProvingService::GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*,
                                        v1::GetMetricsResponse* resp) {
  return Guard("GetMetrics", [&] { resp->set_prometheus_text(core_->MetricsText()); });
}

grpc::Status ProvingService::PreloadSRS(grpc::ServerContext*, const v1::PreloadSrsRequest* req,
                                        v1::PreloadSrsResponse* resp) {
  return Guard("PreloadSRS", [&] {
    const auto r = core_->srs().Preload(req->circuit_id());
    spdlog::info("PreloadSRS {}: {}", req->circuit_id(),
                 r.already_loaded ? "already loaded" : "loaded in " + std::to_string(r.load_ms) + " ms");
    resp->set_already_loaded(r.already_loaded);
    resp->set_load_time_ms(r.load_ms);
  });
}

grpc::Status ProvingService::EvictSRS(grpc::ServerContext*, const v1::EvictSrsRequest* req,
                                      v1::EvictSrsResponse* resp) {
  return Guard("EvictSRS", [&] {
    const auto r = core_->srs().Evict(req->circuit_id());
    spdlog::info("EvictSRS {}: {}", req->circuit_id(),
                 r.was_loaded ? "freed " + std::to_string(r.freed_bytes) + " bytes" : "was not loaded");
    resp->set_was_loaded(r.was_loaded);
    resp->set_freed_bytes(r.freed_bytes);
  });
}

}  // namespace cuzk::daemon
