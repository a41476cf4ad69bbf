#pragma once
// ProvingService: cuzk.v1.ProvingEngine over a prover::Prover. Maps proto <->
// prover types; every error goes through ToGrpcStatus (errors.hpp) and is
// counted by code.
//
// AwaitProof and Prove use gRPC's callback API: a waiting call is a reactor
// registered with the job tracker (JobTracker::AwaitAsync) and holds no
// thread; it is answered by whichever thread ends the job, by the tracker's
// timer at its deadline, or, when the client hangs up, withdrawn at once.
// The other methods are short and synchronous (PreloadSRS blocks its
// thread for the load).
#include "cuzk/v1/proving.grpc.pb.h"
#include "prover/prover.hpp"

namespace cuzk::daemon {

using ProvingEngineBase = cuzk::v1::ProvingEngine::WithCallbackMethod_AwaitProof<
    cuzk::v1::ProvingEngine::WithCallbackMethod_Prove<cuzk::v1::ProvingEngine::Service>>;

class ProvingService final : public ProvingEngineBase {
 public:
  explicit ProvingService(prover::Prover* prover) : prover_(prover) {}

  grpc::Status SubmitProof(grpc::ServerContext* ctx, const cuzk::v1::SubmitProofRequest* req,
                           cuzk::v1::SubmitProofResponse* resp) override;
  grpc::ServerUnaryReactor* AwaitProof(grpc::CallbackServerContext* ctx, const cuzk::v1::AwaitProofRequest* req,
                                       cuzk::v1::AwaitProofResponse* resp) override;
  grpc::ServerUnaryReactor* Prove(grpc::CallbackServerContext* ctx, const cuzk::v1::ProveRequest* req,
                                  cuzk::v1::ProveResponse* resp) override;
  grpc::Status CancelProof(grpc::ServerContext* ctx, const cuzk::v1::CancelProofRequest* req,
                           cuzk::v1::CancelProofResponse* resp) override;
  grpc::Status GetStatus(grpc::ServerContext* ctx, const cuzk::v1::GetStatusRequest* req,
                         cuzk::v1::GetStatusResponse* resp) override;
  grpc::Status GetMetrics(grpc::ServerContext* ctx, const cuzk::v1::GetMetricsRequest* req,
                          cuzk::v1::GetMetricsResponse* resp) override;
  grpc::Status PreloadSRS(grpc::ServerContext* ctx, const cuzk::v1::PreloadSrsRequest* req,
                          cuzk::v1::PreloadSrsResponse* resp) override;
  grpc::Status EvictSRS(grpc::ServerContext* ctx, const cuzk::v1::EvictSrsRequest* req,
                        cuzk::v1::EvictSrsResponse* resp) override;

 private:
  prover::Prover::Submitted Submit(const cuzk::v1::SubmitProofRequest& req);
  // The error of a refused call, logged and counted by code.
  grpc::Status Refused(const char* rpc, std::exception_ptr error);
  template <class F>
  grpc::Status Guard(const char* rpc, F&& body);
  // A reactor for AwaitProof (and the await half of Prove) that answers in `resp`.
  grpc::ServerUnaryReactor* StartAwait(const char* rpc, grpc::CallbackServerContext* ctx, const std::string& job_id,
                                       uint64_t timeout_ms, cuzk::v1::AwaitProofResponse* resp);

  prover::Prover* const prover_;
};

}  // namespace cuzk::daemon
