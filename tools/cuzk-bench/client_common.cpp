#include "tools/cuzk-bench/client_common.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/filecoin/base64.hpp"
#include "engine/filecoin/commitment.hpp"
#include "tools/common/file_io.hpp"

namespace cuzk::bench::client {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;

std::unique_ptr<v1::ProvingEngine::Stub> Connect(const std::string& addr) {
  std::string target = addr;
  if (addr.starts_with("unix://")) {
    target = "unix:" + addr.substr(7);
  } else if (!addr.starts_with("unix:") && addr.find("://") == std::string::npos && !addr.starts_with("dns:")) {
    target = "dns:///" + addr;
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(512 << 20);
  args.SetMaxSendMessageSize(512 << 20);
  return v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
}

namespace {
std::string Raw(const filecoin::Domain& d) { return std::string(d.begin(), d.end()); }
}  // namespace

v1::SubmitProofRequest SnapRequestFromDir(const std::string& dir) {
  v1::SubmitProofRequest r;
  r.set_proof_kind(v1::SNAP_DEALS_UPDATE);
  const auto sector = tools::ReadJsonFile(dir + "/sector.json");
  r.set_sector_size(sector.at("sector_size").get<uint64_t>());
  const auto comms = tools::ReadJsonFile(dir + "/commitments.json");
  r.set_comm_r_old(Raw(filecoin::DomainFromHex(comms.at("comm_r_old").get<std::string>(), "comm_r_old")));
  r.set_comm_r_new(Raw(filecoin::DomainFromHex(comms.at("comm_r_new").get<std::string>(), "comm_r_new")));
  r.set_comm_d_new(Raw(filecoin::DomainFromHex(comms.at("comm_d_new").get<std::string>(), "comm_d_new")));
  for (const auto& p : tools::ReadJsonFile(dir + "/vanilla_proofs.json")) {
    const std::vector<uint8_t> bytes = filecoin::Base64Decode(p.get<std::string>());
    r.add_vanilla_proofs(std::string(bytes.begin(), bytes.end()));
  }
  return r;
}

v1::Priority ParsePriority(const std::string& text) {
  std::string upper;
  for (char c : text) upper += char(std::toupper(static_cast<unsigned char>(c)));
  v1::Priority p;
  if (v1::Priority_Parse(upper, &p)) return p;
  if (upper.size() == 1 && upper[0] >= '0' && upper[0] <= '4') return v1::Priority(upper[0] - '0');
  throw std::invalid_argument("--priority " + text + ": LOW, NORMAL, HIGH, CRITICAL or 0..4");
}

void Check(const grpc::Status& status, const char* rpc) {
  if (status.ok()) return;
  static const char* kCodes[] = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  const int code = int(status.error_code());
  throw std::runtime_error(std::string(rpc) + ": " + (code >= 0 && code <= 16 ? kCodes[code] : "?") + ": " +
                           status.error_message());
}

std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds timeout) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (timeout.count() > 0) ctx->set_deadline(std::chrono::system_clock::now() + timeout);
  return ctx;
}

std::string StatusName(v1::AwaitProofResponse::Status status) { return v1::AwaitProofResponse::Status_Name(status); }

v1::AwaitProofResponse AwaitWithProgress(v1::ProvingEngine::Stub& stub, const std::string& job_id,
                                         std::chrono::milliseconds timeout, bool quiet) {
  const auto start = Clock::now();
  const bool tty = isatty(STDERR_FILENO);
  auto last_line = start;
  for (;;) {
    v1::AwaitProofRequest req;
    req.set_job_id(job_id);
    req.set_timeout_ms(1000);
    v1::AwaitProofResponse resp;
    auto ctx = Context(std::chrono::seconds(30));
    Check(stub.AwaitProof(ctx.get(), req, &resp), "AwaitProof");
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (resp.status() != v1::AwaitProofResponse::TIMEOUT) {
      if (!quiet && tty) std::fprintf(stderr, "\r\033[K");
      return resp;
    }
    if (timeout.count() > 0 && Clock::now() - start >= timeout) return resp;
    if (!quiet && (tty || Clock::now() - last_line >= std::chrono::seconds(10))) {
      std::fprintf(stderr, tty ? "\r\033[Kjob %s: waiting %.0f s" : "job %s: waiting %.0f s\n", job_id.c_str(), waited);
      std::fflush(stderr);
      last_line = Clock::now();
    }
  }
}

}  // namespace cuzk::bench::client
