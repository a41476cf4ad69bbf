// Integration tests of the real cuzk-daemon binary through a real gRPC
// client (our C++ stubs) on a unix socket; the fixture's 2 KiB SnapDeals
// sector and local parameters (make_fixture.sh, made once per test run).
// Each test starts its own daemon. Proving a 2 KiB partition takes ~20-30 s
// on one core, so only SubmitThenAwait proves; the other tests cancel
// before any proof finishes.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

uint32_t InProgress(v1::ProvingEngine::Stub& stub) {
  uint32_t n = 0;
  const v1::GetStatusResponse st = Status(stub);  // named: the range below must not outlive it
  for (const auto& q : st.queues()) n += q.in_progress();
  return n;
}

// A number under "counters" in GET /status ("awaiting", "active", ...).
uint64_t StatusCounter(DaemonProcess& d, const std::string& name) {
  return GetStatusJson(d.status_port()).at("counters").at(name).get<uint64_t>();
}

std::string Metrics(v1::ProvingEngine::Stub& stub) {
  v1::GetMetricsResponse resp;
  EXPECT_TRUE(stub.GetMetrics(Ctx(seconds(5)).get(), v1::GetMetricsRequest(), &resp).ok());
  return resp.prometheus_text();
}

// The value of an unlabelled sample, or -1.
double MetricValue(const std::string& text, const std::string& name) {
  const std::string key = "\n" + name + " ";
  const size_t at = text.find(key);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + key.size()));
}

bool WaitFor(const std::function<bool()>& condition, seconds timeout) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return condition();
}

void ExpectInvalid(v1::ProvingEngine::Stub& stub, const v1::SubmitProofRequest& req, const std::string& named) {
  v1::SubmitProofResponse resp;
  const grpc::Status s = Submit(stub, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find(named), std::string::npos)
      << "message does not name " << named << ": " << s.error_message();
}

// The main path and every way a request can be refused, while a valid job
// is being proved: the bad requests must not disturb it.
TEST(DaemonIntegration, SubmitThenAwaitVerifiesWhileBadRequestsAreRefused) {
  DaemonProcess d("");
  auto stub = d.Stub();
  const v1::SubmitProofRequest good = FixtureSnapRequest("snap-1000-1");

  uint32_t position = 99;
  const std::string id = MustSubmit(*stub, good, &position);
  EXPECT_EQ(id, "snap-1000-1");
  EXPECT_EQ(position, 0u);

  // Same request_id and request: the same job (other inputs under the id start a new job: daemon_request_id_test).
  EXPECT_EQ(MustSubmit(*stub, good), id);
  v1::SubmitProofResponse resp;

  // A short AwaitProof timeout is honoured: TIMEOUT after ~100 ms, not the proof time.
  const auto t0 = Clock::now();
  const v1::AwaitProofResponse early = Await(*stub, id, 100);
  const auto waited = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
  EXPECT_EQ(early.status(), v1::AwaitProofResponse::TIMEOUT);
  EXPECT_GE(waited.count(), 100);
  EXPECT_LT(waited.count(), 3000);

  // Refused before queueing, each naming its problem.
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    r.mutable_vanilla_proofs(0)->pop_back();
    ExpectInvalid(*stub, r, "vanilla_proofs[0]");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    std::string& bytes = *r.mutable_vanilla_proofs(0);
    for (int i = 32; i < 40; ++i) bytes[size_t(i)] = char(0xff);  // apex_leafs length (after comm_c): absurd
    ExpectInvalid(*stub, r, "apex_leafs");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    std::string& bytes = *r.mutable_vanilla_proofs(0);
    for (int i = 0; i < 32; ++i) bytes[size_t(i)] = char(0xff);  // comm_c >= the field modulus
    ExpectInvalid(*stub, r, "comm_c");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    r.add_vanilla_proofs(r.vanilla_proofs(0));
    ExpectInvalid(*stub, r, "partition");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    r.set_comm_r_old(r.comm_r_old().substr(1));
    ExpectInvalid(*stub, r, "comm_r_old");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    r.set_comm_d_new(std::string(32, char(0xff)));
    ExpectInvalid(*stub, r, "comm_d_new");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    r.set_sector_size(12345);
    ExpectInvalid(*stub, r, "sector_size");
  }
  {
    v1::SubmitProofRequest r = FixtureSnapRequest();
    r.set_proof_kind(v1::POREP_SEAL_COMMIT);
    const grpc::Status s = Submit(*stub, r, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
    EXPECT_NE(s.error_message().find("POREP_SEAL_COMMIT"), std::string::npos) << s.error_message();
    r.set_proof_kind(v1::WINNING_POST);
    EXPECT_EQ(Submit(*stub, r, &resp).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
  // Well-formed but wrong content (comm_c changed): accepted, then FAILED naming the unsatisfied constraint.
  std::string wrong_id;
  {
    v1::SubmitProofRequest r = FixtureSnapRequest("wrong-content");
    (*r.mutable_vanilla_proofs(0))[0] ^= 1;
    wrong_id = MustSubmit(*stub, r);
  }
  // Unknown jobs.
  grpc::Status s;
  Await(*stub, "no-such-job", 10, &s);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  v1::CancelProofRequest cancel;
  cancel.set_job_id("no-such-job");
  v1::CancelProofResponse cancel_resp;
  EXPECT_EQ(stub->CancelProof(Ctx().get(), cancel, &cancel_resp).error_code(), grpc::StatusCode::NOT_FOUND);

  // The valid job is unaffected and its proof verifies.
  const v1::AwaitProofResponse done = Await(*stub, id, 0);
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message() << "\n" << d.Log();
  EXPECT_EQ(done.proof().size(), 192u);
  EXPECT_TRUE(VerifyFixtureProof(done.proof()));
  EXPECT_GT(done.gpu_compute_ms(), 0u);
  EXPECT_GE(done.total_ms(), done.synthesis_ms() + done.gpu_compute_ms());

  // A late Await within the retention period gets the same result.
  const v1::AwaitProofResponse again = Await(*stub, id, 10);
  EXPECT_EQ(again.status(), v1::AwaitProofResponse::COMPLETED);
  EXPECT_EQ(again.proof(), done.proof());

  const v1::AwaitProofResponse failed = Await(*stub, wrong_id, 0);
  EXPECT_EQ(failed.status(), v1::AwaitProofResponse::FAILED);
  EXPECT_NE(failed.error_message().find("partition 0"), std::string::npos) << failed.error_message();
  EXPECT_TRUE(failed.proof().empty());

  // Read before the status, so a release logged by now shows in it.
  const bool host_copy_released = d.Log().find("SRS_HOST_RELEASE") != std::string::npos;
  const v1::GetStatusResponse st = Status(*stub);
  EXPECT_EQ(st.total_proofs_completed(), 1u);
  EXPECT_EQ(st.total_proofs_failed(), 1u);
  // The GPUs the daemon proves on: none without a CUDA build or a GPU; on a
  // GPU host each has gpu_workers_per_device (2) workers, and /status agrees.
  const nlohmann::json js = GetStatusJson(d.status_port());
  EXPECT_EQ(js.at("gpus").size(), size_t(st.gpus_size()));
  EXPECT_EQ(js.at("gpu_workers").get<int>(), 2 * st.gpus_size());
  for (const auto& g : st.gpus()) EXPECT_GT(g.vram_total_bytes(), 0u);
  bool found = false;
  for (const auto& srs : st.loaded_srs()) {
    if (srs.circuit_id() != "snap-2k") continue;
    found = true;
    EXPECT_EQ(srs.tier(), v1::SRSStatus::WARM);  // loaded, no job holds it
    // What the set holds in host memory: ~1.08 GB on the CPU backend. Where
    // every GPU holds its own copy the host's is given back once the GPUs are
    // prepared (SRS_HOST_RELEASE), and the size says so: some 50 KB left.
    if (st.gpus_size() == 0) {
      EXPECT_GT(srs.size_bytes(), 600u << 20);
    } else if (host_copy_released) {
      EXPECT_LT(srs.size_bytes(), 1u << 20) << "the host copy was given back (SRS_HOST_RELEASE)";
    }
    EXPECT_GT(srs.size_bytes(), 0u);
    EXPECT_EQ(srs.ref_count(), 0u);
  }
  EXPECT_TRUE(found);
  const std::string metrics = Metrics(*stub);
  EXPECT_EQ(MetricValue(metrics, "cuzk_proofs_completed_total"), 1);
  EXPECT_EQ(MetricValue(metrics, "cuzk_requests_deduplicated_total"), 1);

  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

TEST(DaemonIntegration, CancelQueuedAndRunningJobsAndPriorityOrder) {
  // Job a must still run until its cancel on any machine (a GPU proves 2 KiB
  // in well under a second); the delay ends on the cancel.
  DaemonProcess d("job_retention = \"2s\"\n[testing]\nsynthesis_delay = \"60s\"\n");
  auto stub = d.Stub();
  const std::string a = MustSubmit(*stub, FixtureSnapRequest("a"));
  ASSERT_TRUE(WaitFor([&] { return InProgress(*stub) == 1; }, seconds(10)));

  // Queue positions follow priority, then submission order.
  uint32_t pos = 99;
  v1::SubmitProofRequest r = FixtureSnapRequest("b");
  const std::string b = MustSubmit(*stub, r, &pos);
  EXPECT_EQ(pos, 0u);
  r = FixtureSnapRequest("c");
  r.set_priority(v1::LOW);
  const std::string c = MustSubmit(*stub, r, &pos);
  EXPECT_EQ(pos, 1u);
  r = FixtureSnapRequest("d");
  r.set_priority(v1::CRITICAL);
  const std::string dd = MustSubmit(*stub, r, &pos);
  EXPECT_EQ(pos, 0u);

  // Parameters in use (queued and running jobs hold them): EvictSRS refuses.
  v1::EvictSrsRequest evict;
  evict.set_circuit_id("snap-2k");
  v1::EvictSrsResponse evict_resp;
  const grpc::Status refused = stub->EvictSRS(Ctx().get(), evict, &evict_resp);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << refused.error_message();

  // Queued jobs: removed, waiters get CANCELLED.
  for (const std::string& id : {b, c, dd}) {
    v1::CancelProofRequest req;
    req.set_job_id(id);
    v1::CancelProofResponse resp;
    ASSERT_TRUE(stub->CancelProof(Ctx().get(), req, &resp).ok());
    EXPECT_FALSE(resp.was_running());
    EXPECT_EQ(Await(*stub, id, 1000).status(), v1::AwaitProofResponse::CANCELLED);
  }
  // The running job: a waiter blocked on it is answered CANCELLED at once.
  auto waiter = std::async(std::launch::async, [&] { return Await(*stub, a, 0); });
  std::this_thread::sleep_for(milliseconds(200));
  v1::CancelProofRequest req;
  req.set_job_id(a);
  v1::CancelProofResponse resp;
  const auto t0 = Clock::now();
  ASSERT_TRUE(stub->CancelProof(Ctx().get(), req, &resp).ok());
  EXPECT_TRUE(resp.was_running());
  // Cancelling again: nothing to do. Asked at once: once the worker has let
  // go, the record may be pruned job_retention (2 s) after the cancel, and
  // under CI load letting go can take longer than that (NOT_FOUND then).
  ASSERT_TRUE(stub->CancelProof(Ctx().get(), req, &resp).ok());
  EXPECT_FALSE(resp.was_running());
  ASSERT_EQ(waiter.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_EQ(waiter.get().status(), v1::AwaitProofResponse::CANCELLED);
  EXPECT_LT(Clock::now() - t0, seconds(5));
  // ...and its worker lets go at the next stage boundary (parameter load or synthesis: seconds).
  EXPECT_TRUE(WaitFor([&] { return InProgress(*stub) == 0; }, Scaled(seconds(90)))) << d.Log();

  // Nothing completed; four cancellations counted; the parameters are free again.
  const std::string metrics = Metrics(*stub);
  EXPECT_EQ(MetricValue(metrics, "cuzk_proofs_completed_total"), 0);
  EXPECT_EQ(MetricValue(metrics, "cuzk_proofs_cancelled_total"), 4);
  EXPECT_TRUE(stub->EvictSRS(Ctx().get(), evict, &evict_resp).ok());

  // After job_retention the finished jobs are pruned, and their request_ids are free again.
  EXPECT_TRUE(WaitFor(
      [&] {
        grpc::Status s;
        Await(*stub, b, 1, &s);
        return s.error_code() == grpc::StatusCode::NOT_FOUND;
      },
      seconds(10)));
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

TEST(DaemonIntegration, SigtermWithRunningAndQueuedJobsExitsZero) {
  // Job a must still run at the signal on any machine (the delay ends on the cancel).
  DaemonProcess d("shutdown_grace = \"1s\"\n[testing]\nsynthesis_delay = \"60s\"\n");
  auto stub = d.Stub();
  const std::string a = MustSubmit(*stub, FixtureSnapRequest("a"));
  const std::string b = MustSubmit(*stub, FixtureSnapRequest("b"));
  ASSERT_TRUE(WaitFor([&] { return InProgress(*stub) == 1; }, seconds(10)));
  auto wait_a = std::async(std::launch::async, [&] {
    grpc::Status s;
    auto r = Await(*stub, a, 0, &s);
    return std::make_pair(s, r);
  });
  auto wait_b = std::async(std::launch::async, [&] {
    grpc::Status s;
    auto r = Await(*stub, b, 0, &s);
    return std::make_pair(s, r);
  });
  // Both Await calls inside the daemon before the signal (a call that is
  // still on its way when the daemon stops is refused, not answered: on a
  // loaded CI machine a fixed 300 ms wait lost that race and saw "Broken pipe").
  ASSERT_TRUE(WaitFor([&] { return StatusCounter(d, "awaiting") == 2; }, seconds(30)));
  const auto t0 = Clock::now();
  EXPECT_EQ(d.Signal(SIGTERM, seconds(30)), 0) << d.Log();
  EXPECT_LT(Clock::now() - t0, seconds(10));  // grace 1 s, not the proof time
  for (auto* w : {&wait_a, &wait_b}) {
    auto [s, r] = w->get();
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(r.status(), v1::AwaitProofResponse::CANCELLED);
  }
  EXPECT_FALSE(std::filesystem::exists(d.socket_path()));
}

TEST(DaemonIntegration, StaleSocketIsReplacedAndModeIs0660) {
  // A socket file nobody listens on (a daemon that died) at the configured path.
  const std::string dir = std::filesystem::temp_directory_path() / ("cuzk-stale-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/cuzk.sock";
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(fd);
  ASSERT_TRUE(std::filesystem::exists(path));
  {
    DaemonProcess d("[daemon]\nlisten = \"unix://" + path + "\"\n", /*with_defaults=*/false);
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0660u);
    // A second daemon on the same live socket is refused.
    auto [code, log] = RunDaemonExpectingExit("[daemon]\nlisten = \"unix://" + path + "\"\n", seconds(30));
    EXPECT_EQ(code, 1) << log;
    EXPECT_NE(log.find("another process"), std::string::npos) << log;
    EXPECT_EQ(d.Signal(SIGINT), 0) << d.Log();
  }
  std::filesystem::remove_all(dir);
}

TEST(DaemonIntegration, BadConfigIsRefusedAtStartNamingTheKey) {
  auto [code, log] = RunDaemonExpectingExit("[daemon]\nlisten = \"127.0.0.1:0\"\nlisten_backlog = 5\n", seconds(30));
  EXPECT_EQ(code, 2);
  EXPECT_NE(log.find("daemon.listen_backlog"), std::string::npos) << log;

  std::tie(code, log) = RunDaemonExpectingExit("[memory]\nsafety_margin = \"12 GiB\"\n", seconds(30));
  EXPECT_EQ(code, 2);
  EXPECT_NE(log.find("memory.safety_margin"), std::string::npos) << log;
  EXPECT_NE(log.find("12 GiB"), std::string::npos) << log;

  std::tie(code, log) = RunDaemonExpectingExit("[daemon]\nshutdown_grace = \"5 minutes\"\n", seconds(30));
  EXPECT_EQ(code, 2);
  EXPECT_NE(log.find("daemon.shutdown_grace"), std::string::npos) << log;

  std::tie(code, log) = RunDaemonExpectingExit("[gpu]\ndevices = [0]\n", seconds(30));
  EXPECT_EQ(code, 2);
  EXPECT_NE(log.find("[gpu]"), std::string::npos) << log;
}

// srs.preload: an id the daemon cannot load stops the start (exit 1, naming
// srs.preload); a good one loads on a thread of its own while the daemon
// already serves (READY and GetStatus do not wait for the load).
TEST(DaemonIntegration, PreloadRefusesBadIdsAndLoadsInTheBackground) {
  auto [code, log] = RunDaemonExpectingExit("[srs]\npreload = [\"snap-3k\"]\n", seconds(30));
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("srs.preload"), std::string::npos) << log;

  DaemonProcess d("[srs]\npreload = [\"snap-2k\"]\n");
  Status(*d.Stub());  // answers while the set loads
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (d.Log().find("SRS_PRELOAD,snap-2k,") == std::string::npos && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(d.Log().find("SRS_PRELOAD,snap-2k,loaded"), std::string::npos) << d.Log();
  // The status page lists it loaded, no longer loading.
  bool listed = false;
  const nlohmann::json status = GetStatusJson(d.status_port());
  for (const auto& s : status["srs"]) {
    if (s["circuit_id"] != "snap-2k") continue;
    listed = true;
    EXPECT_EQ(s["tier"], "warm") << s.dump();
    EXPECT_EQ(s["loading"], false) << s.dump();
  }
  EXPECT_TRUE(listed) << status["srs"].dump();
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

TEST(DaemonIntegration, StatusEndpointServesJsonAndSurvivesMalformedRequests) {
  DaemonProcess d("");
  ASSERT_GT(d.status_port(), 0);
  const std::vector<std::string> bad_requests = {"garbage\r\n\r\n",
                                                 "GET\r\n\r\n",
                                                 "GET /status HTTP/9\r\n\r\n",
                                                 std::string(20000, 'x'),
                                                 "POST /status HTTP/1.1\r\n\r\n",
                                                 ""};
  for (const std::string& bad : bad_requests) {
    const std::string r = HttpRequest(d.status_port(), bad);
    EXPECT_TRUE(r.empty() || r.rfind("HTTP/1.1 4", 0) == 0) << r.substr(0, 80);
  }
  EXPECT_EQ(HttpRequest(d.status_port(), "GET /nope HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  const std::string ok = HttpRequest(d.status_port(), "GET /status HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(ok.rfind("HTTP/1.1 200", 0), 0u) << ok.substr(0, 200);
  EXPECT_NE(ok.find("application/json"), std::string::npos);
  EXPECT_NE(ok.find("\"pipelines\""), std::string::npos);
  EXPECT_EQ(d.Signal(SIGTERM), 0) << d.Log();
}

}  // namespace
}  // namespace cuzk::test
