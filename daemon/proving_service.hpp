#pragma once
// ProvingService: cuzk.v1.ProvingEngine over a DaemonCore (synchronous gRPC
// API; AwaitProof/Prove block one server thread per waiter, waking every
// 100 ms to notice a caller who hung up). Maps proto <-> daemon types; every
// error goes through ToGrpcStatus (errors.hpp) and is counted by code.
#include "cuzk/v1/proving.grpc.pb.h"
#include "daemon/daemon_core.hpp"

namespace cuzk::daemon {

class ProvingService final : public cuzk::v1::ProvingEngine::Service {
 public:
  explicit ProvingService(DaemonCore* core) : core_(core) {}

  grpc::Status SubmitProof(grpc::ServerContext* ctx, const cuzk::v1::SubmitProofRequest* req,
                           cuzk::v1::SubmitProofResponse* resp) override;
  grpc::Status AwaitProof(grpc::ServerContext* ctx, const cuzk::v1::AwaitProofRequest* req,
                          cuzk::v1::AwaitProofResponse* resp) override;
  grpc::Status Prove(grpc::ServerContext* ctx, const cuzk::v1::ProveRequest* req,
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
  struct Submitted {
    std::string job_id;
    uint32_t queue_position = 0;
  };
  Submitted Submit(const cuzk::v1::SubmitProofRequest& req);
  void Await(grpc::ServerContext* ctx, const std::string& job_id, uint64_t timeout_ms,
             cuzk::v1::AwaitProofResponse* resp);
  template <class F>
  grpc::Status Guard(const char* rpc, F&& body);

  DaemonCore* const core_;
};

}  // namespace cuzk::daemon
