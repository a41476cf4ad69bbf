// cuzk-bench status / metrics / preload / evict / cancel: the daemon's
// operator RPCs.
//
//   cuzk-bench status  --addr unix:///tmp/cuzk.sock [--json]
//   cuzk-bench metrics --addr 127.0.0.1:9820
//   cuzk-bench preload --addr ... --circuit-id snap-2k
//   cuzk-bench evict   --addr ... --circuit-id snap-2k
//   cuzk-bench cancel  --addr ... --job-id snap-1000-7
#include <google/protobuf/util/json_util.h>

#include <cstdio>

#include "tools/cuzk-bench/client_common.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace v1 = cuzk::v1;
using std::chrono::seconds;

struct AdminArgs {
  std::string addr = client::kDefaultAddr;
  std::string circuit_id, job_id;
  bool json = false;
};

void Status(const AdminArgs& a) {
  auto stub = client::Connect(a.addr);
  v1::GetStatusResponse r;
  auto ctx = client::Context(seconds(5));
  client::Check(stub->GetStatus(ctx.get(), v1::GetStatusRequest(), &r), "GetStatus");
  if (a.json) {
    std::string out;
    google::protobuf::util::JsonPrintOptions o;
    o.always_print_primitive_fields = true;
    (void)google::protobuf::util::MessageToJsonString(r, &out, o);
    std::printf("%s\n", out.c_str());
    return;
  }
  std::printf("uptime %llu s; proofs completed %llu, failed %llu; pinned %llu / %llu bytes\n",
              (unsigned long long)r.uptime_seconds(), (unsigned long long)r.total_proofs_completed(),
              (unsigned long long)r.total_proofs_failed(), (unsigned long long)r.pinned_memory_bytes(),
              (unsigned long long)r.pinned_memory_limit_bytes());
  if (r.gpus().empty()) std::printf("gpus: none\n");
  for (const auto& g : r.gpus()) {
    std::printf("gpu %u: %s, %llu / %llu bytes free%s%s\n", g.ordinal(), g.name().c_str(),
                (unsigned long long)g.vram_free_bytes(), (unsigned long long)g.vram_total_bytes(),
                g.current_job_id().empty() ? "" : ", job ", g.current_job_id().c_str());
  }
  for (const auto& q : r.queues()) {
    std::printf("queue %s: %u pending, %u in progress\n", q.proof_kind().c_str(), q.pending(), q.in_progress());
  }
  for (const auto& s : r.loaded_srs()) {
    std::printf("srs %s: %s, %llu bytes, %u ref(s)\n", s.circuit_id().c_str(),
                v1::SRSStatus::Tier_Name(s.tier()).c_str(), (unsigned long long)s.size_bytes(), s.ref_count());
  }
}

void Metrics(const AdminArgs& a) {
  auto stub = client::Connect(a.addr);
  v1::GetMetricsResponse r;
  auto ctx = client::Context(seconds(5));
  client::Check(stub->GetMetrics(ctx.get(), v1::GetMetricsRequest(), &r), "GetMetrics");
  std::fputs(r.prometheus_text().c_str(), stdout);
}

void Preload(const AdminArgs& a) {
  auto stub = client::Connect(a.addr);
  v1::PreloadSrsRequest req;
  req.set_circuit_id(a.circuit_id);
  v1::PreloadSrsResponse r;
  auto ctx = client::Context(seconds(3600));
  client::Check(stub->PreloadSRS(ctx.get(), req, &r), "PreloadSRS");
  std::printf(
      "%s: %s\n", a.circuit_id.c_str(),
      r.already_loaded() ? "already loaded" : ("loaded in " + std::to_string(r.load_time_ms()) + " ms").c_str());
}

void Evict(const AdminArgs& a) {
  auto stub = client::Connect(a.addr);
  v1::EvictSrsRequest req;
  req.set_circuit_id(a.circuit_id);
  v1::EvictSrsResponse r;
  auto ctx = client::Context(seconds(60));
  client::Check(stub->EvictSRS(ctx.get(), req, &r), "EvictSRS");
  std::printf(
      "%s: %s\n", a.circuit_id.c_str(),
      r.was_loaded() ? ("evicted, " + std::to_string(r.freed_bytes()) + " bytes freed").c_str() : "was not loaded");
}

void Cancel(const AdminArgs& a) {
  auto stub = client::Connect(a.addr);
  v1::CancelProofRequest req;
  req.set_job_id(a.job_id);
  v1::CancelProofResponse r;
  auto ctx = client::Context(seconds(10));
  client::Check(stub->CancelProof(ctx.get(), req, &r), "CancelProof");
  std::printf("%s: cancelled (%s)\n", a.job_id.c_str(), r.was_running() ? "was running" : "was not running");
}

CLI::App* Command(CLI::App& app, const char* name, const char* help, const std::shared_ptr<AdminArgs>& args) {
  auto* cmd = app.add_subcommand(name, help);
  cmd->add_option("--addr", args->addr, "daemon address: unix:///path or host:port")->capture_default_str();
  return cmd;
}

CommandRegistrar kStatus("status", [](CLI::App& app) {
  auto args = std::make_shared<AdminArgs>();
  auto* cmd = Command(app, "status", "GetStatus of a cuzk daemon", args);
  cmd->add_flag("--json", args->json, "the response as JSON");
  cmd->callback([args] { Status(*args); });
});
CommandRegistrar kMetrics("metrics", [](CLI::App& app) {
  auto args = std::make_shared<AdminArgs>();
  Command(app, "metrics", "GetMetrics of a cuzk daemon (Prometheus text)", args)->callback([args] { Metrics(*args); });
});
CommandRegistrar kPreload("preload", [](CLI::App& app) {
  auto args = std::make_shared<AdminArgs>();
  auto* cmd = Command(app, "preload", "PreloadSRS: load a parameter set (snap-2k, snap-32g, ...)", args);
  cmd->add_option("--circuit-id", args->circuit_id, "snap-2k, snap-8m, snap-512m, snap-32g, snap-64g")->required();
  cmd->callback([args] { Preload(*args); });
});
CommandRegistrar kEvict("evict", [](CLI::App& app) {
  auto args = std::make_shared<AdminArgs>();
  auto* cmd = Command(app, "evict", "EvictSRS: unload a parameter set (refused while jobs use it)", args);
  cmd->add_option("--circuit-id", args->circuit_id, "snap-2k, snap-32g, ...")->required();
  cmd->callback([args] { Evict(*args); });
});
CommandRegistrar kCancel("cancel", [](CLI::App& app) {
  auto args = std::make_shared<AdminArgs>();
  auto* cmd = Command(app, "cancel", "CancelProof: drop a queued job or stop a running one", args);
  cmd->add_option("--job-id", args->job_id, "job id from SubmitProof")->required();
  cmd->callback([args] { Cancel(*args); });
});

}  // namespace
}  // namespace cuzk::bench
