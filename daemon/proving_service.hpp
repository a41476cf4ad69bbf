#pragma once
// ProvingService: cuzk.v1.ProvingEngine over a prover::Prover. Maps proto <->
// prover types; every error goes through ToGrpcStatus (errors.hpp) and is
// counted by code.
//
// Every method takes its request as raw bytes (gRPC's raw callback API), so
// that the daemon decides what bad bytes get: gRPC's own parser answers
// INTERNAL with no message. A request is scanned before it is parsed
// (request_scan.hpp: element counts and sizes, fields its kind does not use)
// and the work of the call runs on the service's RpcPool, not on gRPC's
// threads (only the bounded scan that routes SubmitProof and Prove, and the
// parse of AwaitProof and CancelProof, at most 64 KiB, run where the call
// arrives: registering a waiter never blocks). AwaitProof and Prove are reactors registered with the job tracker
// (JobTracker::AwaitAsync) and hold no thread while they wait; they are
// answered by whichever thread ends the job, by the tracker's timer at their
// deadline, or, when the client hangs up, withdrawn at once. A Prove whose
// client hangs up cancels its job unless another call still holds it
// (JobHolds).
//
// With a fallback engine ([fallback], fallback_engine.hpp), SubmitProof and
// Prove of the kinds it takes, and AwaitProof and CancelProof of its
// "fallback-" job ids, are forwarded as bytes without being parsed here
// (the scan that finds the kind is bounded and allocates nothing, so it runs
// on gRPC's thread); GetStatus and GetMetrics add the fallback's queues of
// those kinds.
#include <atomic>
#include <memory>

#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon/fallback_engine.hpp"
#include "daemon/job_holds.hpp"
#include "daemon/request_scan.hpp"
#include "daemon/rpc_pool.hpp"
#include "prover/prover.hpp"

namespace cuzk::daemon {

struct Config;

struct ServiceOptions {
  RequestLimits limits;
  uint32_t rpc_threads = 16;                 // the RpcPool's threads
  std::shared_ptr<FallbackEngine> fallback;  // nullptr: none
};
// [requests] limits, [daemon] rpc_threads, [fallback] (the channel connects on first use).
ServiceOptions ServiceOptionsFor(const Config& config);

namespace internal {
namespace v1 = cuzk::v1;
using Service = v1::ProvingEngine::WithRawCallbackMethod_SubmitProof<
    v1::ProvingEngine::WithRawCallbackMethod_AwaitProof<v1::ProvingEngine::WithRawCallbackMethod_Prove<
        v1::ProvingEngine::WithRawCallbackMethod_CancelProof<v1::ProvingEngine::WithRawCallbackMethod_GetStatus<
            v1::ProvingEngine::WithRawCallbackMethod_GetMetrics<v1::ProvingEngine::WithRawCallbackMethod_PreloadSRS<
                v1::ProvingEngine::WithRawCallbackMethod_EvictSRS<v1::ProvingEngine::Service>>>>>>>>;
}  // namespace internal
using ProvingEngineBase = internal::Service;

class ProvingService final : public ProvingEngineBase {
 public:
  explicit ProvingService(prover::Prover* prover, ServiceOptions options = {});
  ProvingService(prover::Prover* prover, const Config& config) : ProvingService(prover, ServiceOptionsFor(config)) {}

  using Reactor = grpc::ServerUnaryReactor;
  using Ctx = grpc::CallbackServerContext;
  using Bytes = grpc::ByteBuffer;
  Reactor* SubmitProof(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* AwaitProof(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* Prove(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* CancelProof(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* GetStatus(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* GetMetrics(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* PreloadSRS(Ctx* ctx, const Bytes* req, Bytes* resp) override;
  Reactor* EvictSRS(Ctx* ctx, const Bytes* req, Bytes* resp) override;

 private:
  // Validates and submits one request (ShuttingDownError once the prover stops).
  // parse_ms: the request's parse, for the SUBMIT_TIMING line.
  prover::Prover::Submitted Submit(const cuzk::v1::SubmitProofRequest& req, double parse_ms);
  // The error of a refused call, logged and counted by code.
  grpc::Status Refused(const char* rpc, std::exception_ptr error);
  // Runs body(Resp*) on the pool; answers its response, or its error.
  template <class Resp, class Body>
  Reactor* Unary(const char* rpc, Ctx* ctx, Bytes* out, Body body);
  void FillStatus(cuzk::v1::GetStatusResponse* resp);
  // The fallback's queues of the kinds it takes, added into resp's; false when it did not answer.
  bool AddFallbackQueues(cuzk::v1::GetStatusResponse* resp);
  // The fallback for this kind, or nullptr.
  FallbackEngine* ForwardsTo(cuzk::v1::ProofKind kind) const;
  // A call refused before any work (the default reactor, finished at once).
  Reactor* RefuseNow(Ctx* ctx, const char* rpc, std::exception_ptr error);

  prover::Prover* const prover_;
  const ServiceOptions options_;
  JobHolds holds_;
  std::atomic<bool> fallback_up_{true};  // its last GetStatus answered (logs only the changes)
  RpcPool pool_;                         // last: destroyed first, so its threads never see the members above gone
};

}  // namespace cuzk::daemon
