// cuzk-bench batch: many SnapDeals proofs of one gen-vanilla directory
// through a daemon, `concurrency` Prove calls in flight at a time.
//
//   cuzk-bench batch --addr unix:///tmp/cuzk.sock --dir /tmp/s2k --count 8 --concurrency 2
//   -> completed 8, failed 0 in 160.2 s: 3.00 proofs/min
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "tools/cuzk-bench/client_common.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace v1 = cuzk::v1;

struct BatchArgs {
  std::string addr = client::kDefaultAddr;
  std::string dir, priority = "0";
  unsigned count = 4, concurrency = 1;
  bool json = false;
};

void Batch(const BatchArgs& a) {
  if (a.count == 0 || a.concurrency == 0) throw std::invalid_argument("--count and --concurrency must be >= 1");
  auto stub = client::Connect(a.addr);
  const v1::SubmitProofRequest base = client::SnapRequestFromDir(a.dir);
  std::atomic<unsigned> next{0}, completed{0}, failed{0};
  std::mutex print_mu;
  const auto t0 = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (unsigned i; (i = next.fetch_add(1)) < a.count;) {
      v1::ProveRequest req;
      *req.mutable_submit() = base;
      req.mutable_submit()->set_priority(client::ParsePriority(a.priority));
      v1::ProveResponse resp;
      grpc::ClientContext ctx;
      const grpc::Status s = stub->Prove(&ctx, req, &resp);
      const bool ok = s.ok() && resp.result().status() == v1::AwaitProofResponse::COMPLETED;
      (ok ? completed : failed).fetch_add(1);
      std::lock_guard lock(print_mu);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!a.json) {
        std::fprintf(stderr, "[%6.1f s] proof %u/%u: %s (total %llu ms)%s%s\n", t, i + 1, a.count,
                     !s.ok() ? "RPC error" : client::StatusName(resp.result().status()).c_str(),
                     (unsigned long long)resp.result().total_ms(), s.ok() ? "" : ": ",
                     s.ok() ? resp.result().error_message().c_str() : s.error_message().c_str());
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < std::min(a.concurrency, a.count); ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double per_min = completed.load() * 60.0 / secs;
  if (a.json) {
    std::printf("%s\n", nlohmann::json({{"completed", completed.load()},
                                        {"failed", failed.load()},
                                        {"seconds", secs},
                                        {"proofs_per_minute", per_min}})
                            .dump()
                            .c_str());
  } else {
    std::printf("completed %u, failed %u in %.1f s: %.2f proofs/min (concurrency %u)\n", completed.load(),
                failed.load(), secs, per_min, a.concurrency);
  }
  CommandExitCode() = failed.load() ? 1 : 0;
}

CommandRegistrar kBatch("batch", [](CLI::App& app) {
  auto args = std::make_shared<BatchArgs>();
  auto* cmd =
      app.add_subcommand("batch", "Prove a gen-vanilla sector COUNT times through a daemon, CONCURRENCY at a time");
  cmd->add_option("--addr", args->addr, "daemon address: unix:///path or host:port")->capture_default_str();
  cmd->add_option("--dir", args->dir, "gen-vanilla directory")->required();
  cmd->add_option("--count", args->count, "proofs")->capture_default_str();
  cmd->add_option("--concurrency", args->concurrency, "Prove calls in flight")->capture_default_str();
  cmd->add_option("--priority", args->priority, "LOW, NORMAL, HIGH, CRITICAL");
  cmd->add_flag("--json", args->json, "one JSON line: completed, failed, seconds, proofs_per_minute");
  cmd->callback([args] { Batch(*args); });
});

}  // namespace
}  // namespace cuzk::bench
