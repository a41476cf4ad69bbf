// cuzk-load: queues many small GENERIC_R1CS jobs on a running daemon at once
// and polls GetStatus and GET /metrics at a fixed rate while they run, then
// awaits every accepted job (issue 19's load bullet). It reports, and exits
// non-zero unless all of these hold:
//   - no accepted job is lost: each one's AwaitProof reports a terminal state
//     (COMPLETED / FAILED / CANCELLED), and every COMPLETED proof verifies
//     against the zkey's verifying key (when --zkey is given);
//   - counters are monotonic: every Prometheus counter and histogram series
//     of /metrics, and GetStatus's total_proofs_completed, total_proofs_failed
//     and uptime_seconds never go down between two polls;
//   - the polls were answered (no poll error).
// Peak daemon RSS (VmHWM of --daemon-pid) is reported; --max-rss-mib bounds it.
//
//   cuzk-load --addr unix:///tmp/d/cuzk.sock --status 127.0.0.1:9821 --jobs 1000
//             --circuit-id multi_public --wtns F/multi_public.wtns --zkey F/multi_public.zkey --daemon-pid 1234
//
// scripts/load.sh starts a daemon on the r1cs fixture and runs this.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/circuits/snarkjs/wtns_file.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/verifier.hpp"

namespace {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string addr;
  std::string status;  // host:port of the HTTP status endpoint ("" = no /metrics polling)
  int jobs = 1000;
  std::string circuit_id = "multi_public";
  std::string wtns, zkey;
  double poll_hz = 100;
  int submit_threads = 8;
  int await_threads = 32;
  int daemon_pid = 0;
  int timeout_s = 1800;
  uint64_t max_rss_mib = 0;  // 0 = report only
  std::string json_out;
  std::string token_file;  // [auth] token_file of the daemon: sent as "authorization: Bearer <token>"
};

// The bearer token, when the daemon wants one ("" = none); set once in main.
std::string g_token;

std::unique_ptr<v1::ProvingEngine::Stub> Connect(const std::string& addr) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  const std::string target = addr.rfind("unix:", 0) == 0 ? addr : "dns:///" + addr;
  return v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
}

std::unique_ptr<grpc::ClientContext> Context(std::chrono::milliseconds timeout) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + timeout);
  if (!g_token.empty()) c->AddMetadata("authorization", "Bearer " + g_token);
  return c;
}

// kB of a /proc/PID/status field (VmRSS, VmHWM); nullopt when unreadable.
std::optional<uint64_t> ProcStatusKb(int pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1));
  }
  return std::nullopt;
}

// One HTTP/1.1 GET on a fresh connection; the body, or nullopt on any failure.
std::optional<std::string> HttpGet(const std::string& host_port, const std::string& path) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(std::stoi(host_port.substr(colon + 1))));
  if (inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &a.sin_addr) != 1) return std::nullopt;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string auth = g_token.empty() ? "" : "Authorization: Bearer " + g_token + "\r\n";
    const std::string req =
        "GET " + path + " HTTP/1.1\r\nHost: " + host_port + "\r\n" + auth + "Connection: close\r\n\r\n";
    if (send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size())) {
      char buf[16384];
      for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, size_t(n));
    }
  }
  close(fd);
  if (response.rfind("HTTP/1.1 200", 0) != 0 && response.rfind("HTTP/1.0 200", 0) != 0) return std::nullopt;
  const size_t body = response.find("\r\n\r\n");
  if (body == std::string::npos) return std::nullopt;
  return response.substr(body + 4);
}

// Tracks series that must never decrease and records violations.
class MonotonicCheck {
 public:
  void See(const std::string& series, double value, double at_s) {
    auto [it, fresh] = last_.try_emplace(series, value);
    if (!fresh) {
      if (value < it->second) {
        ++violations_;
        if (examples_.size() < 10) {
          std::ostringstream s;
          s << series << " went from " << it->second << " to " << value << " at " << at_s << " s";
          examples_.push_back(s.str());
        }
      }
      it->second = value;
    }
  }
  uint64_t violations() const { return violations_; }
  size_t series() const { return last_.size(); }
  const std::vector<std::string>& examples() const { return examples_; }
  double Last(const std::string& series) const {
    auto it = last_.find(series);
    return it == last_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, double> last_;
  uint64_t violations_ = 0;
  std::vector<std::string> examples_;
};

// Feeds every counter and histogram sample of a Prometheus text body to `check`.
void CheckMetrics(const std::string& body, MonotonicCheck& check, double at_s) {
  std::map<std::string, std::string> type_of;  // family -> counter, gauge, histogram, ...
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string family, type;
      t >> family >> type;
      type_of[family] = type;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    const std::string series = line.substr(0, space);
    const std::string name = series.substr(0, series.find('{'));
    std::string family = name;
    for (const char* suffix : {"_bucket", "_count", "_sum"}) {
      const std::string s = suffix;
      if (!type_of.count(family) && name.size() > s.size() && name.ends_with(s)) {
        family = name.substr(0, name.size() - s.size());
      }
    }
    const std::string type = type_of.count(family) ? type_of[family] : "";
    if (type != "counter" && type != "histogram") continue;
    check.See(series, std::stod(line.substr(space + 1)), at_s);
  }
}

struct Poller {
  std::atomic<uint64_t> status_polls{0}, status_errors{0}, metrics_polls{0}, metrics_errors{0};
  std::atomic<uint64_t> max_rss_kb{0}, rss_samples{0};
  std::mutex mu;
  MonotonicCheck status_check, metrics_check;
  std::string first_error;

  void Error(const std::string& what) {
    std::lock_guard lock(mu);
    if (first_error.empty()) first_error = what;
  }
};

// Calls `poll` every 1/hz seconds (on a fixed schedule: a slow answer is not
// made up by a burst) until `stop`.
template <class F>
void EveryPeriod(double hz, const std::atomic<bool>& stop, F poll) {
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / hz));
  auto next = Clock::now();
  while (!stop.load()) {
    poll();
    next += period;
    const auto now = Clock::now();
    if (next < now) next = now;
    std::this_thread::sleep_until(next);
  }
}

std::string WitnessBytes(const std::vector<cuzk::ff::Fr>& w) {
  std::string out;
  for (const auto& x : w) {
    const auto d = cuzk::filecoin::DomainFromFr(x);
    out.append(d.begin(), d.end());
  }
  return out;
}

int Run(const Options& o) {
  const std::vector<cuzk::ff::Fr> witness = cuzk::snarkjs::ReadWtns(o.wtns);
  std::optional<cuzk::groth16::PreparedVerifyingKey> pvk;
  std::vector<cuzk::ff::Fr> publics;
  if (!o.zkey.empty()) {
    const cuzk::snarkjs::ZkeyFile zkey = cuzk::snarkjs::ReadZkey(o.zkey);
    pvk = cuzk::groth16::PrepareVerifyingKey(zkey.pk.vk);
    publics.assign(witness.begin() + 1, witness.begin() + 1 + zkey.n_public);
  }
  v1::SubmitProofRequest base;
  base.set_proof_kind(v1::GENERIC_R1CS);
  base.set_circuit_id(o.circuit_id);
  base.set_witness(WitnessBytes(witness));

  auto stub = Connect(o.addr);
  const auto t0 = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  // ---- pollers ----
  Poller poller;
  std::atomic<bool> stop{false};
  std::vector<std::thread> pollers;
  pollers.emplace_back([&] {
    auto poll_stub = Connect(o.addr);
    EveryPeriod(o.poll_hz, stop, [&] {
      v1::GetStatusResponse r;
      grpc::Status s = poll_stub->GetStatus(Context(std::chrono::seconds(5)).get(), v1::GetStatusRequest(), &r);
      ++poller.status_polls;
      if (!s.ok()) {
        ++poller.status_errors;
        poller.Error("GetStatus: " + s.error_message());
        return;
      }
      std::lock_guard lock(poller.mu);
      poller.status_check.See("total_proofs_completed", double(r.total_proofs_completed()), seconds());
      poller.status_check.See("total_proofs_failed", double(r.total_proofs_failed()), seconds());
      poller.status_check.See("uptime_seconds", double(r.uptime_seconds()), seconds());
    });
  });
  if (!o.status.empty()) {
    pollers.emplace_back([&] {
      EveryPeriod(o.poll_hz, stop, [&] {
        std::optional<std::string> body = HttpGet(o.status, "/metrics");
        ++poller.metrics_polls;
        if (!body) {
          ++poller.metrics_errors;
          poller.Error("GET /metrics failed");
          return;
        }
        std::lock_guard lock(poller.mu);
        CheckMetrics(*body, poller.metrics_check, seconds());
      });
    });
  }
  if (o.daemon_pid > 0) {
    pollers.emplace_back([&] {
      EveryPeriod(20, stop, [&] {
        if (auto kb = ProcStatusKb(o.daemon_pid, "VmRSS")) {
          ++poller.rss_samples;
          uint64_t prev = poller.max_rss_kb.load();
          while (*kb > prev && !poller.max_rss_kb.compare_exchange_weak(prev, *kb)) {
          }
        }
      });
    });
  }
  const std::optional<uint64_t> rss_before_kb = o.daemon_pid > 0 ? ProcStatusKb(o.daemon_pid, "VmRSS") : std::nullopt;

  // ---- submit all at once ----
  const std::string run =
      std::to_string(getpid()) + "-" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  std::vector<std::string> job_ids(size_t(o.jobs));
  std::atomic<int> next{0};
  std::atomic<uint64_t> refused{0};
  std::mutex refusal_mu;
  std::map<std::string, uint64_t> refusals;  // "CODE: message" -> count
  {
    std::vector<std::thread> submitters;
    for (int t = 0; t < o.submit_threads; ++t) {
      submitters.emplace_back([&] {
        for (int i; (i = next++) < o.jobs;) {
          v1::SubmitProofRequest req = base;
          req.set_request_id("load-" + run + "-" + std::to_string(i));
          v1::SubmitProofResponse resp;
          grpc::Status s = stub->SubmitProof(Context(std::chrono::seconds(60)).get(), req, &resp);
          if (s.ok()) {
            job_ids[size_t(i)] = resp.job_id();
          } else {
            ++refused;
            std::lock_guard lock(refusal_mu);
            ++refusals[std::to_string(int(s.error_code())) + ": " + s.error_message().substr(0, 200)];
          }
        }
      });
    }
    for (auto& t : submitters) t.join();
  }
  const double submit_s = seconds();
  const uint64_t accepted = uint64_t(o.jobs) - refused.load();
  std::fprintf(stderr, "cuzk-load: %d submitted in %.2f s: %llu accepted, %llu refused\n", o.jobs, submit_s,
               static_cast<unsigned long long>(accepted), static_cast<unsigned long long>(refused.load()));

  // ---- await every accepted job ----
  std::atomic<uint64_t> completed{0}, failed{0}, cancelled{0}, lost{0}, bad_proofs{0};
  std::mutex lost_mu;
  std::vector<std::string> lost_examples;
  next = 0;
  {
    std::vector<std::thread> awaiters;
    for (int t = 0; t < o.await_threads; ++t) {
      awaiters.emplace_back([&] {
        auto await_stub = Connect(o.addr);
        for (int i; (i = next++) < o.jobs;) {
          const std::string& id = job_ids[size_t(i)];
          if (id.empty()) continue;
          v1::AwaitProofRequest req;
          req.set_job_id(id);
          v1::AwaitProofResponse resp;
          grpc::Status s = await_stub->AwaitProof(Context(std::chrono::seconds(o.timeout_s)).get(), req, &resp);
          std::string why;
          if (s.ok() && resp.status() == v1::AwaitProofResponse::COMPLETED) {
            ++completed;
            auto proof = cuzk::groth16::DecodeProof(
                std::span(reinterpret_cast<const uint8_t*>(resp.proof().data()), resp.proof().size()), &why);
            if (!proof || (pvk && !cuzk::groth16::Verify(*pvk, *proof, publics))) {
              ++bad_proofs;
              why = "job " + id + ": COMPLETED with a proof that " +
                    (proof ? "does not verify" : "does not decode: " + why);
            }
          } else if (s.ok() && resp.status() == v1::AwaitProofResponse::FAILED) {
            ++failed;
          } else if (s.ok() && resp.status() == v1::AwaitProofResponse::CANCELLED) {
            ++cancelled;
          } else {
            ++lost;
            why = "job " + id + ": " +
                  (s.ok() ? "AwaitProof status " + std::to_string(int(resp.status()))
                          : "AwaitProof " + std::to_string(int(s.error_code())) + " " + s.error_message());
          }
          if (!why.empty()) {
            std::lock_guard lock(lost_mu);
            if (lost_examples.size() < 10) lost_examples.push_back(why);
          }
        }
      });
    }
    for (auto& t : awaiters) t.join();
  }
  const double wall_s = seconds();
  // A last poll of each after every job ended, then stop.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop = true;
  for (auto& t : pollers) t.join();
  const uint64_t hwm_kb = o.daemon_pid > 0 ? ProcStatusKb(o.daemon_pid, "VmHWM").value_or(0) : 0;
  const std::optional<uint64_t> rss_after_kb = o.daemon_pid > 0 ? ProcStatusKb(o.daemon_pid, "VmRSS") : std::nullopt;

  const uint64_t violations = poller.status_check.violations() + poller.metrics_check.violations();
  const uint64_t poll_errors = poller.status_errors + poller.metrics_errors;
  const double status_completed = poller.status_check.Last("total_proofs_completed");
  nlohmann::json j = {
      {"jobs", o.jobs},
      {"accepted", accepted},
      {"refused", refused.load()},
      {"refusals", refusals},
      {"completed", completed.load()},
      {"failed", failed.load()},
      {"cancelled", cancelled.load()},
      {"lost", lost.load()},
      {"bad_proofs", bad_proofs.load()},
      {"proofs_verified", pvk.has_value()},
      {"submit_s", submit_s},
      {"wall_s", wall_s},
      {"jobs_per_s", wall_s > 0 ? double(completed) / wall_s : 0},
      {"poll_hz", o.poll_hz},
      {"status_polls", poller.status_polls.load()},
      {"status_polls_per_s", wall_s > 0 ? double(poller.status_polls.load()) / wall_s : 0},
      {"metrics_polls_per_s", wall_s > 0 ? double(poller.metrics_polls.load()) / wall_s : 0},
      {"metrics_polls", poller.metrics_polls.load()},
      {"poll_errors", poll_errors},
      {"first_poll_error", poller.first_error},
      {"monotonic_series", poller.status_check.series() + poller.metrics_check.series()},
      {"monotonicity_violations", violations},
      {"violation_examples", poller.metrics_check.examples()},
      {"status_total_proofs_completed_last", status_completed},
      {"lost_examples", lost_examples},
  };
  for (const auto& e : poller.status_check.examples()) j["violation_examples"].push_back(e);
  if (o.daemon_pid > 0) {
    j["daemon_rss_before_mib"] = rss_before_kb ? double(*rss_before_kb) / 1024 : -1;
    j["daemon_rss_after_mib"] = rss_after_kb ? double(*rss_after_kb) / 1024 : -1;
    j["daemon_rss_sampled_max_mib"] = double(poller.max_rss_kb.load()) / 1024;
    // VmHWM can trail the last VmRSS sample by a few pages (the kernel syncs
    // per-thread RSS counters lazily): the peak is the larger of the two.
    j["daemon_peak_rss_mib"] = double(std::max(hwm_kb, poller.max_rss_kb.load())) / 1024;
  }
  std::printf("%s\n", j.dump(2).c_str());
  if (!o.json_out.empty()) std::ofstream(o.json_out) << j.dump(2) << "\n";

  bool ok = lost == 0 && bad_proofs == 0 && violations == 0 && poll_errors == 0 && accepted > 0 &&
            completed + failed + cancelled == accepted;
  const uint64_t peak_kb = std::max(hwm_kb, poller.max_rss_kb.load());
  if (o.max_rss_mib && peak_kb / 1024 > o.max_rss_mib) {
    std::fprintf(stderr, "cuzk-load: daemon peak RSS %llu MiB is above --max-rss-mib %llu\n",
                 static_cast<unsigned long long>(peak_kb / 1024), static_cast<unsigned long long>(o.max_rss_mib));
    ok = false;
  }
  std::fprintf(stderr,
               "cuzk-load: %s: %llu accepted, %llu completed, %llu failed, %llu cancelled, %llu lost, %llu bad proofs; "
               "%.1f s; %llu GetStatus + %llu /metrics polls, %llu errors; %llu monotonicity violations\n",
               ok ? "PASS" : "FAIL", static_cast<unsigned long long>(accepted),
               static_cast<unsigned long long>(completed.load()), static_cast<unsigned long long>(failed.load()),
               static_cast<unsigned long long>(cancelled.load()), static_cast<unsigned long long>(lost.load()),
               static_cast<unsigned long long>(bad_proofs.load()), wall_s,
               static_cast<unsigned long long>(poller.status_polls.load()),
               static_cast<unsigned long long>(poller.metrics_polls.load()),
               static_cast<unsigned long long>(poll_errors), static_cast<unsigned long long>(violations));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"cuzk-load: many small GENERIC_R1CS jobs at once, with GetStatus and /metrics polled (issue 19)"};
  app.add_option("--addr", o.addr, "daemon gRPC address: unix:///path/cuzk.sock or host:port")->required();
  app.add_option("--status", o.status, "HTTP status endpoint host:port (/metrics polled; empty: not polled)");
  app.add_option("--jobs", o.jobs, "jobs to submit at once")->capture_default_str()->check(CLI::Range(1, 1000000));
  app.add_option("--circuit-id", o.circuit_id, "GENERIC_R1CS circuit id in the daemon's param_cache")
      ->capture_default_str();
  app.add_option("--wtns", o.wtns, "the circuit's .wtns (every job proves this witness)")->required();
  app.add_option("--zkey", o.zkey, "the circuit's .zkey: every proof is verified against its verifying key");
  app.add_option("--poll-hz", o.poll_hz, "GetStatus and /metrics polls per second, each")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 10000.0));
  app.add_option("--submit-threads", o.submit_threads, "")->capture_default_str()->check(CLI::Range(1, 256));
  app.add_option("--await-threads", o.await_threads, "")->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--daemon-pid", o.daemon_pid, "the daemon's pid: its RSS is sampled and its peak (VmHWM) reported");
  app.add_option("--timeout", o.timeout_s, "AwaitProof deadline per job, seconds")->capture_default_str();
  app.add_option("--max-rss-mib", o.max_rss_mib, "fail if the daemon's peak RSS is above this (0: report only)");
  app.add_option("--json", o.json_out, "also write the summary JSON here");
  app.add_option("--token-file", o.token_file, "the daemon's [auth] token_file: RPCs and /metrics carry the token");
  CLI11_PARSE(app, argc, argv);
  try {
    if (!o.token_file.empty()) {
      std::ifstream in(o.token_file);
      if (!std::getline(in, g_token)) throw std::runtime_error("cannot read a token from " + o.token_file);
      while (!g_token.empty() && std::isspace(static_cast<unsigned char>(g_token.back()))) g_token.pop_back();
    }
    return Run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-load: %s\n", e.what());
    return 2;
  }
}
