// The real cuzk-daemon binary with its default runner (pipeline.enabled =
// true: scheduler::Pipeline, byte budget, CPU-backend workers here) seen
// through GET /status: jobs proved side by side all verify, and what they
// reserved is given back, also when one of them is cancelled mid-synthesis.
// The "scheduler" section of /status is the pipeline's own view
// (scheduler/pipeline_status_json.cpp): memory.reserved_bytes, pipelines
// (active jobs only), synthesis.active, counters.
//
// Measured on a 2-vCPU host: a 2 KiB partition synthesizes in ~2 s (three
// side by side) and proves in ~8 s on the one CPU-backend worker, so the
// three jobs take ~23 s and the cancel test ~10 s. Every wait is a /status
// poll with a deadline.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_rpc.hpp"
#include "tests/daemon/snap_request.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::test {
namespace {

namespace v1 = cuzk::v1;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// GET /status, parsed; the "scheduler" section must be there (pipeline runner).
json StatusJson(int port) {
  json j = GetStatusJson(port);
  if (!j.contains("scheduler")) throw std::runtime_error("GET /status has no scheduler section (pipeline runner off?)");
  return j;
}

// Bytes reserved by partitions: the budget's reserved bytes less what stays
// charged between jobs: the loaded parameter sets (memory.srs_resident) and
// the idle pinned a/b/c buffers the pool keeps for the next partition (GPU
// workers only; CPU-backend workers have no pool).
uint64_t ReservedBytes(const json& st) {
  const json& s = st.at("scheduler");
  const uint64_t idle_pinned = s.contains("buffers") ? s.at("buffers").at("pinned_idle_bytes").get<uint64_t>() : 0;
  const uint64_t srs = st.at("memory").at("srs_resident").get<uint64_t>();
  return s.at("memory").at("reserved_bytes").get<uint64_t>() - idle_pinned - srs;
}

// The scheduler's record of an active job, or null once the pipeline let go of it.
const json* SchedulerJob(const json& st, const std::string& id) {
  for (const json& p : st.at("scheduler").at("pipelines"))
    if (p.at("job_id") == id) return &p;
  return nullptr;
}

// The daemon's (tracker's) record of a job, active or retained.
const json* TrackedJob(const json& st, const std::string& id) {
  for (const json& p : st.at("jobs"))
    if (p.at("job_id") == id) return &p;
  return nullptr;
}

// Polls /status until `condition` holds or `timeout` passes; true if it held.
// `each` sees every document (to record peaks).
bool PollStatus(int port, const std::function<bool(const json&)>& condition, seconds timeout,
                const std::function<void(const json&)>& each = nullptr) {
  const auto end = Clock::now() + timeout;
  do {
    const json st = StatusJson(port);
    if (each) each(st);
    if (condition(st)) return true;
    std::this_thread::sleep_for(milliseconds(50));
  } while (Clock::now() < end);
  return false;
}

// Nothing left in the pipeline: no reservation, no active job, nothing queued or synthesizing.
bool PipelineIdle(const json& st) {
  const json& s = st.at("scheduler");
  return ReservedBytes(st) == 0 && s.at("pipelines").empty() && s.at("synthesis").at("active") == 0 &&
         s.at("synthesis").at("queued") == 0 && s.at("gpu_queue") == 0 && s.at("finalizer_queue") == 0;
}

// The most partitions inside synthesis at one time, from the daemon log's
// TIMELINE,<ms>,SYNTH_START|SYNTH_END,<job>,... lines (every one is logged,
// so unlike a /status sample this misses no overlap). At one millisecond an
// end counts before a start.
int MostSynthesizingPerTimeline(const std::string& log) {
  std::vector<std::pair<long, int>> events;  // (ms, -1 end / +1 start)
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("TIMELINE,");
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + 9));
    std::string ms, event;
    if (!std::getline(fields, ms, ',') || !std::getline(fields, event, ',')) continue;
    if (event == "SYNTH_START") events.emplace_back(std::stol(ms), +1);
    if (event == "SYNTH_END") events.emplace_back(std::stol(ms), -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0, most = 0;
  for (const auto& [ms, delta] : events) most = std::max(most, now += delta);
  return most;
}

// For failure messages: whether the daemon still runs (a closed socket is
// usually a crash), then its log.
std::string Report(DaemonProcess& d) { return "daemon " + d.State() + "; its log:\n" + d.Log(); }

void PrintScheduler(const char* when, const json& st) {
  const json& s = st.at("scheduler");
  std::printf(
      "%s: reserved_bytes %llu, peak_reserved_bytes %llu, budget_bytes %llu, active jobs %zu, synthesis "
      "active %d, counters %s\n",
      when, (unsigned long long)ReservedBytes(st),
      (unsigned long long)s.at("memory").at("peak_reserved_bytes").get<uint64_t>(),
      (unsigned long long)s.at("memory").at("budget_bytes").get<uint64_t>(), s.at("pipelines").size(),
      s.at("synthesis").at("active").get<int>(), s.at("counters").dump().c_str());
  std::fflush(stdout);
}

// Polls /status until the scheduler holds nothing (30 s at most), printing
// its section; *after is the last status seen.
::testing::AssertionResult WaitIdle(DaemonProcess& d, json* after) {
  if (!PollStatus(
          d.status_port(),
          [&](const json& st) {
            *after = st;
            return PipelineIdle(st);
          },
          seconds(30)))
    return ::testing::AssertionFailure() << "not idle after 30 s: " << after->at("scheduler").dump(2);
  PrintScheduler("after", *after);
  return ::testing::AssertionSuccess();
}

// The 2 KiB parameters loaded before the jobs: their charge in the budget
// is then exactly memory.srs_resident (ReservedBytes subtracts it), not a
// load in progress.
void PreloadParams(v1::ProvingEngine::Stub& stub) {
  v1::PreloadSrsRequest req;
  req.set_circuit_id("snap-2k");
  v1::PreloadSrsResponse resp;
  const grpc::Status s = stub.PreloadSRS(Ctx(Scaled(seconds(120))).get(), req, &resp);
  ASSERT_TRUE(s.ok()) << s.error_message();
}

// Three jobs at once (synthesis_concurrency 3): they are in the pipeline
// together, each proof verifies, and afterwards nothing is reserved.
TEST(DaemonPipelineStatus, ConcurrentJobsAllVerifyAndTheirReservationsAreReleased) {
  // logging at info: the TIMELINE lines are the synthesis overlap's record.
  // The three jobs must overlap in synthesis on any machine (a GPU host proves 2 KiB in well under a second).
  DaemonProcess d(
      "[pipeline]\nenabled = true\nsynthesis_concurrency = 3\n[logging]\nlevel = \"info\"\n[testing]\n"
      "synthesis_delay = \"2s\"\n");
  ASSERT_GT(d.status_port(), 0);
  auto stub = d.Stub();
  PreloadParams(*stub);
  const json idle = StatusJson(d.status_port());
  ASSERT_EQ(ReservedBytes(idle), 0u);
  ASSERT_EQ(idle.at("scheduler").at("synthesis").at("max_concurrent"), 3);

  // What one partition reserves: c1 alone, dispatched (the whole partition
  // is charged at dispatch; its a/b/c part goes back at the prove start).
  const auto t0 = Clock::now();
  std::vector<std::string> ids = {MustSubmit(*stub, FixtureSnapRequest("c1"))};
  json first;
  ASSERT_TRUE(PollStatus(
      d.status_port(),
      [&](const json& st) {
        first = st;
        return ReservedBytes(st) > 0;
      },
      seconds(30)))
      << first.dump(2) << "\n"
      << Report(d);
  const uint64_t one_partition = ReservedBytes(first);
  ids.push_back(MustSubmit(*stub, FixtureSnapRequest("c2")));
  ids.push_back(MustSubmit(*stub, FixtureSnapRequest("c3")));
  // All three submitted before any completed (a proof takes seconds; here tens).
  const json submitted = StatusJson(d.status_port());
  ASSERT_EQ(submitted.at("counters").at("submitted"), 3);
  ASSERT_EQ(submitted.at("counters").at("completed"), 0) << submitted.at("counters").dump();

  // Awaited side by side; /status sampled until the first completes (the
  // overlap checks below are the timeline and the budget's peak, which miss
  // nothing; a sample may).
  std::vector<std::future<v1::AwaitProofResponse>> waits;
  for (const std::string& id : ids)
    waits.push_back(std::async(std::launch::async, [&, id] { return Await(*stub, id); }));
  size_t most_active_jobs = 0;
  int most_synthesizing = 0;
  uint64_t most_reserved = 0;
  PollStatus(
      d.status_port(),
      [&](const json&) {
        return std::any_of(waits.begin(), waits.end(),
                           [](auto& w) { return w.wait_for(seconds(0)) == std::future_status::ready; });
      },
      Scaled(seconds(600)),
      [&](const json& st) {
        most_active_jobs = std::max(most_active_jobs, st.at("scheduler").at("pipelines").size());
        most_synthesizing = std::max(most_synthesizing, st.at("scheduler").at("synthesis").at("active").get<int>());
        most_reserved = std::max(most_reserved, ReservedBytes(st));
      });
  for (size_t i = 0; i < ids.size(); ++i) {
    const v1::AwaitProofResponse r = waits[i].get();
    ASSERT_EQ(r.status(), v1::AwaitProofResponse::COMPLETED) << ids[i] << ": " << r.error_message() << "\n"
                                                             << Report(d);
    EXPECT_EQ(r.proof().size(), 192u);
    EXPECT_TRUE(VerifyFixtureProof(r.proof())) << ids[i];
    std::printf("%s: completed, proof verifies; total %llu ms (queue %llu, synthesis %llu, prove %llu)\n",
                ids[i].c_str(), (unsigned long long)r.total_ms(), (unsigned long long)r.queue_wait_ms(),
                (unsigned long long)r.synthesis_ms(), (unsigned long long)r.gpu_compute_ms());
  }
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();

  // Everything given back, seen through /status.
  json after;
  ASSERT_TRUE(WaitIdle(d, &after));
  const json& s = after.at("scheduler");
  const uint64_t peak = s.at("memory").at("peak_reserved_bytes").get<uint64_t>();
  const int most_synthesizing_logged = MostSynthesizingPerTimeline(d.Log());
  std::printf(
      "3 jobs: %.1f s wall; one partition reserves %llu bytes, peak %llu (%.2fx); at once: %d partitions "
      "synthesizing (timeline), sampled by /status: %zu jobs active, %d synthesizing, %llu bytes reserved\n",
      wall_s, (unsigned long long)one_partition, (unsigned long long)peak, double(peak) / double(one_partition),
      most_synthesizing_logged, most_active_jobs, most_synthesizing, (unsigned long long)most_reserved);
  EXPECT_EQ(ReservedBytes(after), 0u);
  // The three overlapped: synthesized side by side (1 here with
  // synthesis_concurrency = 1), and all three charged to the budget at one
  // time (also with 1: synthesized partitions wait for the one CPU-backend
  // worker holding their reservations).
  EXPECT_EQ(most_synthesizing_logged, 3);
  EXPECT_GE(peak, 3 * one_partition);
  EXPECT_EQ(most_active_jobs, 3u);
  EXPECT_EQ(s.at("counters").at("jobs_completed"), 3);
  EXPECT_EQ(s.at("counters").at("jobs_failed"), 0);
  EXPECT_EQ(s.at("counters").at("jobs_cancelled"), 0);
  EXPECT_EQ(after.at("counters").at("completed"), 3);
  for (const auto& [kind, q] : after.at("queues").items()) {
    EXPECT_EQ(q.at("pending"), 0) << kind;
    EXPECT_EQ(q.at("in_progress"), 0) << kind;
  }
  EXPECT_EQ(d.Signal(SIGTERM), 0) << Report(d);
}

// A job cancelled while its partition synthesizes ends CANCELLED and its
// reservation is given back, while the job beside it still completes.
TEST(DaemonPipelineStatus, CancelledSynthesizingJobReleasesItsReservationWhileAnotherCompletes) {
  // Both jobs synthesizing at once, long enough to be seen by /status, on any machine.
  DaemonProcess d("[pipeline]\nenabled = true\nsynthesis_concurrency = 2\n[testing]\nsynthesis_delay = \"3s\"\n");
  ASSERT_GT(d.status_port(), 0);
  auto stub = d.Stub();
  PreloadParams(*stub);
  const std::string doomed = MustSubmit(*stub, FixtureSnapRequest("doomed"));
  const std::string survivor = MustSubmit(*stub, FixtureSnapRequest("survivor"));

  // Both partitions inside synthesis (not merely dispatched), each holding its reservation.
  json during;
  const auto synthesizing = [&](const json& st, const std::string& id) {
    const json* j = SchedulerJob(st, id);
    return j && j->at("partitions").at(0).at("state") == "synthesizing";
  };
  ASSERT_TRUE(PollStatus(
      d.status_port(),
      [&](const json& st) {
        during = st;
        return synthesizing(st, doomed) && synthesizing(st, survivor);
      },
      seconds(60)))
      << during.dump(2) << "\n"
      << Report(d);
  PrintScheduler("both synthesizing", during);
  const uint64_t reserved_during = ReservedBytes(during);
  // Two reservations of one size (same circuit), neither partly given back yet.
  EXPECT_GT(reserved_during, 0u);

  v1::CancelProofRequest cancel;
  cancel.set_job_id(doomed);
  v1::CancelProofResponse cancel_resp;
  ASSERT_TRUE(stub->CancelProof(Ctx(seconds(30)).get(), cancel, &cancel_resp).ok());
  EXPECT_TRUE(cancel_resp.was_running());
  const auto t_cancel = Clock::now();
  EXPECT_EQ(Await(*stub, doomed).status(), v1::AwaitProofResponse::CANCELLED);

  // The pipeline lets go of the doomed job at its next stage boundary (here
  // the end of its synthesis): it leaves the scheduler's active jobs, the
  // tracker no longer says "stopping", and at most the survivor's one
  // partition stays reserved. (The job leaves before its reservation is
  // freed, outside the pipeline's lock: hence one poll for all of it.)
  json released;
  ASSERT_TRUE(PollStatus(
      d.status_port(),
      [&](const json& st) {
        released = st;
        const json* tracked = TrackedJob(st, doomed);
        return !SchedulerJob(st, doomed) && tracked && !tracked->at("stopping").get<bool>() &&
               st.at("scheduler").at("counters").at("jobs_cancelled") == 1 && ReservedBytes(st) <= reserved_during / 2;
      },
      Scaled(seconds(120))))  // the rest of a synthesis
      << released.dump(2) << "\n"
      << Report(d);
  const double release_s = std::chrono::duration<double>(Clock::now() - t_cancel).count();
  PrintScheduler("doomed released", released);
  EXPECT_EQ(TrackedJob(released, doomed)->at("state"), "cancelled");
  const bool survivor_still_running = SchedulerJob(released, survivor) != nullptr;
  std::printf("cancel -> released in %.1f s; reserved %llu -> %llu bytes; survivor %s\n", release_s,
              (unsigned long long)reserved_during, (unsigned long long)ReservedBytes(released),
              survivor_still_running ? "still running" : "already done");

  const v1::AwaitProofResponse done = Await(*stub, survivor);
  ASSERT_EQ(done.status(), v1::AwaitProofResponse::COMPLETED) << done.error_message() << "\n" << Report(d);
  EXPECT_TRUE(VerifyFixtureProof(done.proof()));
  std::printf("survivor: completed, proof verifies; total %llu ms\n", (unsigned long long)done.total_ms());

  json after;
  ASSERT_TRUE(WaitIdle(d, &after));
  EXPECT_EQ(ReservedBytes(after), 0u);
  EXPECT_EQ(after.at("scheduler").at("counters").at("jobs_completed"), 1);
  EXPECT_EQ(after.at("scheduler").at("counters").at("jobs_cancelled"), 1);
  EXPECT_EQ(after.at("counters").at("completed"), 1);
  EXPECT_EQ(after.at("counters").at("cancelled"), 1);
  EXPECT_EQ(d.Signal(SIGTERM), 0) << Report(d);
}

// A budget that holds one 2 KiB partition (~256 MB) but not beside the
// parameter set (~1.05 GB charged): the job can never run, so it is refused
// at once with RESOURCE_EXHAUSTED naming the parameter set; nothing is queued.
TEST(DaemonPipelineStatus, JobWhoseParametersDoNotFitBesideItIsRefusedAtOnce) {
  DaemonProcess d("[memory]\ntotal_budget = \"1GiB\"\n[pipeline]\nenabled = true\n");
  ASSERT_GT(d.status_port(), 0);
  auto stub = d.Stub();
  v1::SubmitProofResponse resp;
  const grpc::Status s = stub->SubmitProof(Ctx(seconds(30)).get(), FixtureSnapRequest("too-big"), &resp);
  std::printf("refused: %s\n", s.error_message().c_str());
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_NE(s.error_message().find("parameter set"), std::string::npos) << s.error_message();
  const json st = StatusJson(d.status_port());
  EXPECT_EQ(st.at("scheduler").at("memory").at("reserved_bytes"), 0u);
  EXPECT_TRUE(st.at("scheduler").at("pipelines").empty());
  EXPECT_EQ(d.Signal(SIGTERM), 0) << Report(d);
}

}  // namespace
}  // namespace cuzk::test
