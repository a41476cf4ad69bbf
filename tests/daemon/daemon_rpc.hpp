#pragma once
// gRPC calls the daemon integration tests make again and again, with
// deadlines so a hung daemon fails the test instead of hanging it.
//
//   const std::string id = MustSubmit(*stub, FixtureSnapRequest("a"));
//   EXPECT_EQ(Await(*stub, id).status(), v1::AwaitProofResponse::COMPLETED);
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {

// A client context whose deadline is `timeout` from now.
std::unique_ptr<grpc::ClientContext> Ctx(std::chrono::seconds timeout = std::chrono::seconds(30));

grpc::Status Submit(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& req, v1::SubmitProofResponse* resp,
                    std::chrono::seconds rpc_timeout = std::chrono::seconds(30));

// Submits and expects success (a gtest failure otherwise); the job id, and
// its queue position in *position when given.
std::string MustSubmit(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& req, uint32_t* position = nullptr);

// AwaitProof with the server-side timeout_ms (0: until the job ends). The
// RPC's status goes to *status when given; otherwise a non-OK status is a
// gtest failure. The default deadline covers a parameter load and a proof:
// 600 s times CUZK_TEST_TIME_SCALE.
v1::AwaitProofResponse Await(v1::ProvingEngine::Stub& stub, const std::string& id, uint64_t timeout_ms = 0,
                             grpc::Status* status = nullptr,
                             std::chrono::seconds rpc_timeout = Scaled(std::chrono::seconds(600)));

// GetStatus, expecting success (a gtest failure naming the status otherwise).
v1::GetStatusResponse Status(v1::ProvingEngine::Stub& stub);

}  // namespace cuzk::test
