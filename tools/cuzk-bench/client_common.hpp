#pragma once
// Shared by the cuzk-bench client subcommands (client_*.cpp): the channel to
// a cuzk daemon and a SnapDeals request from a gen-vanilla directory.
//
//   auto stub = client::Connect("unix:///run/curio/cuzk.sock");     // or "127.0.0.1:9820"
//   cuzk::v1::SubmitProofRequest req = client::SnapRequestFromDir("/tmp/s2k");
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::bench::client {

inline constexpr const char* kDefaultAddr = "unix:///run/curio/cuzk.sock";

// "unix:///path" / "unix:path" / "host:port" (-> dns:///host:port), 512 MiB message limits (Curio: 256 MiB).
std::unique_ptr<cuzk::v1::ProvingEngine::Stub> Connect(const std::string& addr);

// vanilla_proofs.json (base64 bincode), commitments.json (hex), sector.json.
cuzk::v1::SubmitProofRequest SnapRequestFromDir(const std::string& dir);

// "LOW" / "normal" / "3" -> Priority; std::invalid_argument otherwise.
cuzk::v1::Priority ParsePriority(const std::string& text);

// Throws std::runtime_error("<rpc>: <CODE>: message") unless ok.
void Check(const grpc::Status& status, const char* rpc);

std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds timeout);

// Submit + AwaitProof in 1 s slices with a progress line on stderr (a TTY:
// rewritten in place; otherwise one line every 10 s). timeout 0 = no limit.
cuzk::v1::AwaitProofResponse AwaitWithProgress(cuzk::v1::ProvingEngine::Stub& stub, const std::string& job_id,
                                               std::chrono::milliseconds timeout, bool quiet);

std::string StatusName(cuzk::v1::AwaitProofResponse::Status status);

}  // namespace cuzk::bench::client
