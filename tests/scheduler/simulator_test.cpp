// The simulator's Must-show scenarios (issue 7), on the real pacer, budget and
// queues: GPU utilization when synthesis outruns the GPU, a budget hit over and
// over (no idle GPU with work waiting, no throttling of a starved pipeline,
// re-bootstrap only when empty), CRITICAL before pending NORMAL, the budget
// peak; and cuzk's pacing settings, which these checks catch.
#include "tools/simulator/simulator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tools/simulator/timeline_plot.hpp"

namespace cuzk::scheduler {
namespace {

using nlohmann::json;

constexpr uint64_t kGB = 1000000000;

// Issue 7's example: 12 SnapDeals-like jobs of 16 partitions, 64 synthesis
// workers of 20-40 s (2.1 partitions/s) against 2 GPU workers of 1.1 s (1.8/s).
json Base() {
  return json::parse(R"({
    "seed": 7,
    "jobs": [{"count": 12, "partitions": 16, "priority": "NORMAL", "arrival_s": 0}],
    "synthesis": {"workers": 64, "time_s": {"min": 20, "max": 40}},
    "gpu": {"devices": 1, "workers_per_device": 2, "time_s": 1.1},
    "memory": {"budget_bytes": 1000000000000, "bytes_per_partition": 9000000000, "abc_bytes": 8000000000},
    "pacer": {"target": 8}})");
}

SimResult RunScenario(const json& j) { return Simulate(ParseScenario(j)); }

// cuzk's pacing: PI on the queue now, paced even when starved, late-era gains.
json CuzkPacer() {
  return json{{"target", 8}, {"fill_when_starved", false}, {"predict_synthesis", false},
              {"ki", 0.001}, {"integral_min", -20},        {"integral_max", 100}};
}

json BudgetBound() {
  json j = Base();
  j["memory"]["budget_bytes"] = 400 * kGB;  // 44 partitions; ~63 are needed to feed the GPUs
  return j;
}

void ExpectSound(const SimResult& r) {
  EXPECT_EQ(r.gpu_idle_while_work_pending_s, 0.0);
  EXPECT_LE(r.peak_reserved_bytes, r.budget_bytes);
  EXPECT_EQ(r.final_reserved_bytes, 0u);
  EXPECT_EQ(r.jobs_completed + r.jobs_failed, r.jobs_submitted);
  for (auto& e : r.rebootstrap_events) {
    EXPECT_EQ(e.in_flight, 0u) << "re-bootstrap at " << e.t_s << " s with work in flight";
    EXPECT_EQ(e.synthesizing + e.gpu_queue + e.on_gpu, 0u) << "re-bootstrap at " << e.t_s << " s";
  }
}

TEST(Simulator, SynthesisOutrunningTheGpuKeepsItBusy) {
  for (uint64_t seed : {7, 1, 2, 3, 4}) {
    json j = Base();
    j["seed"] = seed;
    const SimResult r = RunScenario(j);
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectSound(r);
    EXPECT_EQ(r.jobs_completed, 12u);
    EXPECT_GE(r.steady_gpu_utilization, 0.95);
    // Whole span, from the first GPU start: the start counts too (issue 16;
    // 0.85-0.86 when bootstrap held every dispatch until the first GPU time,
    // 0.956-0.999 over these seeds with the fill, the tail of the last
    // partitions' 20-40 s synthesis being what is left).
    EXPECT_GE(r.gpu_utilization, 0.95);
    EXPECT_LT(r.pacer_throttled_while_starved_s, 0.01);
    EXPECT_LT(r.pacer_throttled_during_bootstrap_s, 1.0);  // the 0.1 s spacing of the first 8 (was ~22 s)
    EXPECT_EQ(r.rebootstraps, 0u);
    // Sanity of the figure: the steady window is most of the run.
    EXPECT_GT(r.steady_to_s - r.steady_from_s, 0.5 * (r.last_gpu_end_s - r.first_gpu_start_s));
  }
}

// Partitions dispatched before the first GPU start, i.e. with no GPU time
// measured yet (the first start is the first synthesis end: 20-40 s).
size_t DispatchedBeforeFirstGpuStart(const SimResult& r) {
  return size_t(std::count_if(r.dispatch_order.begin(), r.dispatch_order.end(),
                              [&](const SimDispatch& d) { return d.t_s < r.first_gpu_start_s; }));
}

TEST(Simulator, StartKeepsSynthesisFullUntilTheFirstGpuTimeWithinTheBudget) {
  // All 64 synthesis workers start at once, not the bootstrap's 8.
  const SimResult ample = RunScenario(Base());
  EXPECT_EQ(DispatchedBeforeFirstGpuStart(ample), 64u);
  EXPECT_LT(ample.dispatch_order.at(63).t_s, 1.0);
  // The budget still gates the start: 400 GB holds 44 partitions of 9 GB.
  const SimResult tight = RunScenario(BudgetBound());
  ExpectSound(tight);
  EXPECT_EQ(DispatchedBeforeFirstGpuStart(tight), 44u);
  EXPECT_LE(tight.peak_reserved_bytes, 400 * kGB);
  // cuzk's start (no fill) stops at `target` and waits for a measurement.
  json j = Base();
  j["pacer"] = CuzkPacer();
  EXPECT_EQ(DispatchedBeforeFirstGpuStart(RunScenario(j)), 8u);
}

TEST(Simulator, CuzkPacingThrottlesAStarvedPipeline) {
  // The same checks fail with cuzk's controller: what the tests above guard.
  json j = Base();
  j["pacer"] = CuzkPacer();
  const SimResult r = RunScenario(j);
  EXPECT_GT(r.pacer_throttled_while_starved_s, 10.0);
  EXPECT_LT(r.steady_gpu_utilization, 0.95);
}

TEST(Simulator, BudgetHitOverAndOverNeverStarvesTheGpuByPacing) {
  for (uint64_t seed : {7, 11, 12}) {
    json j = BudgetBound();
    j["seed"] = seed;
    const SimResult r = RunScenario(j);
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectSound(r);
    EXPECT_EQ(r.jobs_completed, 12u);
    EXPECT_GT(r.budget_held_s, 30.0);  // the budget really was the limit, again and again
    EXPECT_GT(r.peak_reserved_bytes, 390 * kGB);
    EXPECT_LT(r.pacer_throttled_while_starved_s, 0.01);
    EXPECT_EQ(r.rebootstraps, 0u);  // never empty while jobs were waiting
  }
  json j = BudgetBound();
  j["pacer"] = CuzkPacer();
  EXPECT_GT(RunScenario(j).pacer_throttled_while_starved_s, 5.0);
}

TEST(Simulator, ReBootstrapsOnlyWhenTheDrainedPipelineGetsNewWork) {
  json j = BudgetBound();
  // Wave 1 (one job fails a partition: its skipped siblings must count as
  // completions, or re-bootstrap would be disabled for good, as in cuzk).
  j["jobs"] = json::parse(R"([
      {"count": 3, "partitions": 16, "arrival_s": 0},
      {"count": 1, "partitions": 16, "arrival_s": 0, "fail_partitions": [5]},
      {"count": 3, "partitions": 16, "arrival_s": 1000}])");
  const SimResult r = RunScenario(j);
  ExpectSound(r);
  EXPECT_EQ(r.jobs_failed, 1u);
  EXPECT_EQ(r.jobs_completed, 6u);
  ASSERT_EQ(r.rebootstraps, 1u);
  EXPECT_DOUBLE_EQ(r.rebootstrap_events.at(0).t_s, 1000.0);
  EXPECT_LT(r.pacer_throttled_while_starved_s, 0.01);
}

TEST(Simulator, CriticalJobOvertakesEveryPendingNormalPartition) {
  for (const char* memory : {"ample", "tight"}) {
    json j = Base();
    if (std::string(memory) == "tight") j["memory"]["budget_bytes"] = 200 * kGB;
    j["jobs"] = json::parse(R"([
        {"count": 10, "partitions": 16, "priority": "NORMAL", "arrival_s": 0},
        {"count": 1, "partitions": 16, "priority": "CRITICAL", "arrival_s": 45}])");
    const SimResult r = RunScenario(j);
    SCOPED_TRACE(memory);
    ExpectSound(r);
    EXPECT_EQ(r.jobs_completed, 11u);
    const uint32_t critical = 10;  // jobs are numbered in submission order
    size_t last_critical = 0, critical_count = 0, normal_after = 0;
    for (size_t i = 0; i < r.dispatch_order.size(); ++i) {
      if (r.dispatch_order[i].job == critical) {
        last_critical = i;
        ++critical_count;
        EXPECT_EQ(r.dispatch_order[i].priority, Priority::kCritical);
      }
    }
    ASSERT_EQ(critical_count, 16u);
    for (size_t i = 0; i < r.dispatch_order.size(); ++i) {
      const SimDispatch& d = r.dispatch_order[i];
      if (d.job == critical || d.t_s < 45) continue;
      ++normal_after;
      EXPECT_GT(i, last_critical) << "NORMAL job " << d.job << " partition " << d.partition << " at " << d.t_s
                                  << " s went before a CRITICAL partition";
    }
    EXPECT_GT(normal_after, 16u);  // NORMAL work really was pending when the CRITICAL job came
  }
}

TEST(Simulator, DeterministicForASeed) {
  const std::string a = ResultToJson(RunScenario(Base())).dump();
  EXPECT_EQ(a, ResultToJson(RunScenario(Base())).dump());
  json other = Base();
  other["seed"] = 8;
  EXPECT_NE(a, ResultToJson(RunScenario(other)).dump());
}

TEST(Simulator, OversizePartitionFailsItsJobAtOnce) {
  json j = Base();
  j["memory"]["budget_bytes"] = 8 * kGB;  // smaller than one partition
  j["memory"]["abc_bytes"] = 1 * kGB;
  j["jobs"] = json::parse(R"([{"count": 2, "partitions": 4}])");
  const SimResult r = RunScenario(j);
  EXPECT_EQ(r.jobs_failed, 2u);
  EXPECT_NE(r.jobs[0].status.find("RESOURCE_EXHAUSTED"), std::string::npos) << r.jobs[0].status;
  EXPECT_DOUBLE_EQ(r.jobs[0].done_s, 0.0);
  EXPECT_EQ(r.partitions_dispatched, 0u);
}

TEST(Simulator, FailedPartitionFailsItsJobOnceAndSkipsSiblings) {
  json j = Base();
  j["jobs"] = json::parse(R"([{"count": 1, "partitions": 16, "fail_partitions": [2, 9]},
                             {"count": 2, "partitions": 16}])");
  const SimResult r = RunScenario(j);
  ExpectSound(r);
  EXPECT_EQ(r.jobs_failed, 1u);
  EXPECT_EQ(r.jobs_completed, 2u);
  EXPECT_EQ(r.jobs[0].status.rfind("failed: partition", 0), 0u) << r.jobs[0].status;
  EXPECT_EQ(r.partitions_proved, 32u);
}

TEST(Simulator, TimelineLinesAgreeWithTheResult) {
  std::stringstream log;
  const SimResult r = Simulate(ParseScenario(Base()), [&](std::string_view l) { log << l << '\n'; });
  const TimelineData d = ReadTimeline(log);
  EXPECT_EQ(d.gpu.size(), 192u);
  EXPECT_NEAR(d.gpu_utilization, r.gpu_utilization, 0.01);  // ms rounding of the lines
  EXPECT_EQ(d.idle_while_pending_ms, 0.0);
  EXPECT_EQ(uint64_t(d.max_queue_depth), r.max_gpu_queue_depth);
}

// max_run_ahead, as the threaded pipeline applies it (DecideDispatch): never
// more than N partitions synthesizing or waiting for a GPU. With 20-40 s of
// synthesis and the daemon's default of 18, the ceiling, not the pacer, sets
// the pace: 18 partitions per ~30 s against the GPUs' 1.8/s.
TEST(Simulator, MaxRunAheadCapsPartitionsAheadOfTheGpus) {
  json j = Base();
  j["synthesis"]["max_run_ahead"] = 18;
  std::stringstream log;
  const SimResult r = Simulate(ParseScenario(j), [&](std::string_view l) { log << l << '\n'; });
  ExpectSound(r);
  EXPECT_EQ(r.jobs_completed, 12u);
  int64_t ahead = 0, most = 0;  // SYNTH_START +1, GPU_PICKUP -1
  for (std::string l; std::getline(log, l);) {
    if (l.find(",SYNTH_START,") != std::string::npos) most = std::max(most, ++ahead);
    if (l.find(",GPU_PICKUP,") != std::string::npos) --ahead;
  }
  EXPECT_EQ(most, 18);
  EXPECT_LT(r.steady_gpu_utilization, 0.5);
  EXPECT_GT(r.makespan_s, 2 * RunScenario(Base()).makespan_s);
}

void ExpectScenarioError(const json& j, const std::string& field) {
  try {
    ParseScenario(j);
    ADD_FAILURE() << "accepted: " << j.dump();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(Simulator, ScenarioErrorsNameTheField) {
  json j = Base();
  j["jobz"] = 1;
  ExpectScenarioError(j, "jobz: unknown key");
  j = Base();
  j["jobs"][0].erase("partitions");
  ExpectScenarioError(j, "jobs[0].partitions: is required");
  j = Base();
  j["jobs"][0]["priority"] = "URGENT";
  ExpectScenarioError(j, "jobs[0].priority");
  j = Base();
  j["synthesis"]["time_s"] = {{"min", 5}, {"max", 1}};
  ExpectScenarioError(j, "synthesis.time_s: min is greater than max");
  j = Base();
  j["memory"]["abc_bytes"] = 10 * kGB;
  ExpectScenarioError(j, "memory.abc_bytes");
  j = Base();
  j["gpu"]["time_s"] = 0;
  ExpectScenarioError(j, "gpu.time_s");
  j = Base();
  j["synthesis"]["workers"] = -3;
  ExpectScenarioError(j, "synthesis.workers");
  j = Base();
  j["synthesis"]["max_run_ahead"] = -1;
  ExpectScenarioError(j, "synthesis.max_run_ahead");
  j = Base();
  j["pacer"]["kp"] = "fast";
  ExpectScenarioError(j, "pacer.kp");
  j = Base();
  j["pacer"]["target"] = 0;
  ExpectScenarioError(j, "target");
  j = Base();
  j["jobs"][0]["fail_partitions"] = {16};
  ExpectScenarioError(j, "jobs[0].fail_partitions[0]");
  j = Base();
  j["jobs"] = json::array();
  ExpectScenarioError(j, "jobs: must be a non-empty array");
}

}  // namespace
}  // namespace cuzk::scheduler
