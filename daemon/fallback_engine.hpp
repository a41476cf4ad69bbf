#pragma once
// FallbackEngine: another cuzk.v1.ProvingEngine (Curio's own cuzk daemon, or
// another of ours) that proves the kinds this daemon does not: a Curio node
// has one cuzk address and sends every kind to it (issue 18). Requests of a
// forwarded kind go to the fallback as the client's bytes, unparsed (the
// fallback applies its own limits), over one channel with the generic stub.
//
// Job ids: a forwarded job is known to the client as "fallback-" + the
// fallback's id. No local job id has that prefix (local request_ids may not
// start with it), so AwaitProof and CancelProof know by the id alone where a
// job lives, with nothing to remember and nothing lost at a restart.
//
//   FallbackEngine f("unix:///run/curio/cuzk-fallback.sock", {v1::POREP_SEAL_COMMIT});
//   if (f.Forwards(kind)) Forward(f, ctx, "Prove", bytes, out, ...);   // fallback_forward.hpp
//
// A fallback that is down answers UNAVAILABLE naming its address; our own
// kinds are unaffected (the channel connects lazily and fails fast).
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::daemon {

class FallbackEngine {
 public:
  static constexpr const char* kIdPrefix = "fallback-";

  // address: "unix:///path" or "host:port"; kinds: the ones forwarded.
  FallbackEngine(std::string address, std::set<cuzk::v1::ProofKind> kinds, int max_message_bytes);
  FallbackEngine(const FallbackEngine&) = delete;
  FallbackEngine& operator=(const FallbackEngine&) = delete;

  bool Forwards(cuzk::v1::ProofKind kind) const { return kinds_.count(kind) != 0; }
  const std::set<cuzk::v1::ProofKind>& kinds() const { return kinds_; }
  const std::string& address() const { return address_; }

  // "fallback-<id>" and back (nullopt: a local id).
  static std::string ClientId(const std::string& fallback_id) { return kIdPrefix + fallback_id; }
  static std::optional<std::string> FallbackId(const std::string& client_id);

  // One unary call of `method` ("SubmitProof") with raw bytes; `done` runs
  // once, on a gRPC thread (it must not block; in the daemon the server's
  // pollers drive the channel, so an 8 MiB request is answered at once:
  // daemon_fallback_test). ctx, request and response must live until then.
  void Call(grpc::ClientContext* ctx, const std::string& method, const grpc::ByteBuffer* request,
            grpc::ByteBuffer* response, std::function<void(grpc::Status)> done);
  // The fallback's GetStatus, waiting at most `timeout` (an RPC pool thread blocks).
  grpc::Status Status(cuzk::v1::GetStatusResponse* out, std::chrono::milliseconds timeout);
  // A transport failure (UNAVAILABLE, DEADLINE_EXCEEDED of a fallback that
  // does not answer) becomes UNAVAILABLE naming the fallback; the fallback's
  // own answers (INVALID_ARGUMENT of its validation, ...) pass unchanged.
  grpc::Status Explain(const grpc::Status& status, const std::string& what) const;

 private:
  const std::string address_;
  const std::set<cuzk::v1::ProofKind> kinds_;
  std::shared_ptr<grpc::Channel> channel_;
  grpc::GenericStub generic_;
  std::unique_ptr<cuzk::v1::ProvingEngine::Stub> stub_;
};

// The proof kind a fallback's queue name stands for: our names
// ("SNAP_DEALS_UPDATE") and Curio's lower-case ones ("snap_deals",
// "porep", "window_post", "winning_post"); nullopt when none.
std::optional<cuzk::v1::ProofKind> QueueKind(const std::string& name);

}  // namespace cuzk::daemon
