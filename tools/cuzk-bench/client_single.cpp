// cuzk-bench single: one SnapDeals proof through a cuzk daemon.
//
//   cuzk-bench single --addr unix:///tmp/cuzk.sock --dir /tmp/s2k --out /tmp/s2k.proof
//   cuzk-bench single --addr 127.0.0.1:9820 --dir /tmp/s2k --prove --json
//
// --dir is a `cuzk-cli snap gen-vanilla` directory. Default: SubmitProof, then
// AwaitProof in 1 s slices with a progress line; --prove: one Prove call (what
// Curio does). Prints the daemon's timings; exit 0 COMPLETED, 1 otherwise.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tools/common/file_io.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/client_common.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace v1 = cuzk::v1;

struct SingleArgs {
  std::string addr = client::kDefaultAddr;
  std::string dir, out, request_id, priority = "0";
  bool prove = false, json = false;
  uint64_t timeout_s = 0;
};

void Single(const SingleArgs& a) {
  auto stub = client::Connect(a.addr);
  v1::SubmitProofRequest req = client::SnapRequestFromDir(a.dir);
  req.set_request_id(a.request_id);
  req.set_priority(client::ParsePriority(a.priority));
  const auto t0 = std::chrono::steady_clock::now();
  v1::AwaitProofResponse result;
  std::string job_id;
  if (a.prove) {
    v1::ProveRequest p;
    *p.mutable_submit() = req;
    v1::ProveResponse resp;
    auto ctx = client::Context(std::chrono::seconds(a.timeout_s));
    client::Check(stub->Prove(ctx.get(), p, &resp), "Prove");
    result = resp.result();
    job_id = result.job_id();
  } else {
    v1::SubmitProofResponse s;
    auto ctx = client::Context(std::chrono::seconds(60));
    client::Check(stub->SubmitProof(ctx.get(), req, &s), "SubmitProof");
    job_id = s.job_id();
    if (!a.json) std::fprintf(stderr, "job %s queued at position %u\n", job_id.c_str(), s.queue_position());
    result = client::AwaitWithProgress(*stub, job_id, std::chrono::seconds(a.timeout_s), a.json);
  }
  const double wall_s = tools::SecondsSince(t0);
  const bool ok = result.status() == v1::AwaitProofResponse::COMPLETED;
  if (ok && !a.out.empty()) {
    tools::WriteFileText(a.out, result.proof());
  }
  if (a.json) {
    nlohmann::json j = {{"job_id", job_id},
                        {"status", client::StatusName(result.status())},
                        {"error", result.error_message()},
                        {"proof_bytes", result.proof().size()},
                        {"queue_wait_ms", result.queue_wait_ms()},
                        {"srs_load_ms", result.srs_load_ms()},
                        {"synthesis_ms", result.synthesis_ms()},
                        {"gpu_compute_ms", result.gpu_compute_ms()},
                        {"total_ms", result.total_ms()},
                        {"client_wall_s", wall_s}};
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("job %s: %s%s%s\n", job_id.c_str(), client::StatusName(result.status()).c_str(),
                result.error_message().empty() ? "" : ": ", result.error_message().c_str());
    std::printf(
        "  queue %llu ms, srs load %llu ms, synthesis %llu ms, prove (gpu) %llu ms, total %llu ms; client %.2f s\n",
        (unsigned long long)result.queue_wait_ms(), (unsigned long long)result.srs_load_ms(),
        (unsigned long long)result.synthesis_ms(), (unsigned long long)result.gpu_compute_ms(),
        (unsigned long long)result.total_ms(), wall_s);
    if (ok && !a.out.empty()) std::printf("  proof: %s (%zu bytes)\n", a.out.c_str(), result.proof().size());
  }
  CommandExitCode() = ok ? 0 : 1;
}

CommandRegistrar kSingle("single", [](CLI::App& app) {
  auto args = std::make_shared<SingleArgs>();
  auto* cmd = app.add_subcommand("single", "Prove one SnapDeals sector through a cuzk daemon (gRPC client)");
  cmd->add_option("--addr", args->addr, "daemon address: unix:///path or host:port")->capture_default_str();
  cmd->add_option("--dir", args->dir, "gen-vanilla directory (vanilla_proofs.json, commitments.json, sector.json)")
      ->required();
  cmd->add_option("--out", args->out, "write the proof bytes (192 per partition) here");
  cmd->add_option("--request-id", args->request_id, "idempotency key (default: none)");
  cmd->add_option("--priority", args->priority, "LOW, NORMAL, HIGH, CRITICAL (default: the kind's)");
  cmd->add_flag("--prove", args->prove, "one Prove call instead of SubmitProof + AwaitProof");
  cmd->add_option("--timeout", args->timeout_s, "give up after this many seconds (0 = never)");
  cmd->add_flag("--json", args->json, "one JSON line, no progress");
  cmd->callback([args] { Single(*args); });
});

}  // namespace
}  // namespace cuzk::bench
