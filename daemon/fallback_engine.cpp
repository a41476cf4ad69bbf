#include "daemon/fallback_engine.hpp"

#include <cctype>
#include <string_view>

#include "daemon/request_validation.hpp"

namespace cuzk::daemon {

namespace v1 = cuzk::v1;

namespace {

static_assert(std::string_view(FallbackEngine::kIdPrefix) == kFallbackIdPrefix, "one prefix for forwarded job ids");

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address, int max_message_bytes) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(max_message_bytes);
  args.SetMaxSendMessageSize(max_message_bytes);
  // "unix:///path" is gRPC's own form; host:port as given.
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

}  // namespace

FallbackEngine::FallbackEngine(std::string address, std::set<v1::ProofKind> kinds, int max_message_bytes)
    : address_(std::move(address)),
      kinds_(std::move(kinds)),
      channel_(MakeChannel(address_, max_message_bytes)),
      generic_(channel_),
      stub_(v1::ProvingEngine::NewStub(channel_)) {}

std::optional<std::string> FallbackEngine::FallbackId(const std::string& client_id) {
  const std::string prefix = kIdPrefix;
  if (client_id.size() <= prefix.size() || client_id.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  return client_id.substr(prefix.size());
}

void FallbackEngine::Call(grpc::ClientContext* ctx, const std::string& method, const grpc::ByteBuffer* request,
                          grpc::ByteBuffer* response, std::function<void(grpc::Status)> done) {
  generic_.UnaryCall(ctx, "/cuzk.v1.ProvingEngine/" + method, grpc::StubOptions(), request, response, std::move(done));
}

grpc::Status FallbackEngine::Status(v1::GetStatusResponse* out, std::chrono::milliseconds timeout) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  return stub_->GetStatus(&ctx, v1::GetStatusRequest(), out);
}

grpc::Status FallbackEngine::Explain(const grpc::Status& status, const std::string& what) const {
  const bool transport =
      status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && channel_->GetState(false) != GRPC_CHANNEL_READY);
  if (!transport) return status;
  return {grpc::StatusCode::UNAVAILABLE, "the fallback engine at " + address_ + " ([fallback] address), which " + what +
                                             ", is unavailable: " + status.error_message()};
}

std::optional<v1::ProofKind> QueueKind(const std::string& name) {
  v1::ProofKind kind;
  if (v1::ProofKind_Parse(name, &kind)) return kind;
  std::string key;  // upper case, letters and digits only: "snap_deals" -> "SNAPDEALS"
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c))) key += char(std::toupper(static_cast<unsigned char>(c)));
  if (key.rfind("POREP", 0) == 0 || key == "SEALCOMMIT" || key == "C2") return v1::POREP_SEAL_COMMIT;
  if (key.rfind("SNAP", 0) == 0) return v1::SNAP_DEALS_UPDATE;
  if (key.rfind("WINDOW", 0) == 0) return v1::WINDOW_POST_PARTITION;
  if (key.rfind("WINNING", 0) == 0) return v1::WINNING_POST;
  if (key.rfind("GENERIC", 0) == 0 || key == "R1CS") return v1::GENERIC_R1CS;
  return std::nullopt;
}

}  // namespace cuzk::daemon
