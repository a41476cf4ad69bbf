#include "tests/daemon/daemon_rpc.hpp"

#include <gtest/gtest.h>

namespace cuzk::test {

std::unique_ptr<grpc::ClientContext> Ctx(std::chrono::seconds timeout) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + timeout);
  return c;
}

grpc::Status Submit(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& req, v1::SubmitProofResponse* resp,
                    std::chrono::seconds rpc_timeout) {
  return stub.SubmitProof(Ctx(rpc_timeout).get(), req, resp);
}

std::string MustSubmit(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& req, uint32_t* position) {
  v1::SubmitProofResponse resp;
  const grpc::Status s = Submit(stub, req, &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  if (position) *position = resp.queue_position();
  return resp.job_id();
}

v1::AwaitProofResponse Await(v1::ProvingEngine::Stub& stub, const std::string& id, uint64_t timeout_ms,
                             grpc::Status* status, std::chrono::seconds rpc_timeout) {
  v1::AwaitProofRequest req;
  req.set_job_id(id);
  req.set_timeout_ms(timeout_ms);
  v1::AwaitProofResponse resp;
  const grpc::Status s = stub.AwaitProof(Ctx(rpc_timeout).get(), req, &resp);
  if (status) {
    *status = s;
  } else {
    EXPECT_TRUE(s.ok()) << s.error_message();
  }
  return resp;
}

v1::GetStatusResponse Status(v1::ProvingEngine::Stub& stub) {
  v1::GetStatusResponse resp;
  const grpc::Status s = stub.GetStatus(Ctx(std::chrono::seconds(10)).get(), v1::GetStatusRequest(), &resp);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return resp;
}

}  // namespace cuzk::test
