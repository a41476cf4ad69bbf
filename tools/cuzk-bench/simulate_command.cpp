// cuzk-bench simulate: runs the proving pipeline's scheduler (the real
// DispatchPacer, memory::Budget and priority queues) on a virtual clock over a
// JSON scenario and reports GPU utilization, idle and throttled time, budget
// peak and the dispatch order. Deterministic: same scenario and seed, same
// result. The scenario format is in tools/simulator/simulator.hpp and issue 7.
//
//   cuzk-bench simulate --scenario s.json --json
//   cuzk-bench simulate --scenario s.json --timeline sim.log && cuzk-bench timeline --log sim.log --svg sim.svg
//
// Exit codes: 0 ok, 2 bad scenario (the message names the field).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/cuzk-bench/command_registry.hpp"
#include "tools/simulator/simulator.hpp"

namespace cuzk::bench {
namespace {

struct SimulateArgs {
  std::string scenario;
  std::string timeline;
  bool json = false;
};

int RunSimulate(const SimulateArgs& a) {
  std::ifstream in(a.scenario);
  if (!in) {
    std::cerr << "simulate: cannot read " << a.scenario << "\n";
    return 2;
  }
  scheduler::SimScenario scenario;
  try {
    scenario = scheduler::ParseScenario(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "simulate: " << a.scenario << " is not valid JSON: " << e.what() << "\n";
    return 2;
  } catch (const scheduler::ScenarioError& e) {
    std::cerr << "simulate: " << a.scenario << ": " << e.what() << "\n";
    return 2;
  }
  std::ofstream timeline;
  scheduler::TimelineSink sink;
  if (!a.timeline.empty()) {
    timeline.open(a.timeline);
    if (!timeline) {
      std::cerr << "simulate: cannot write " << a.timeline << "\n";
      return 2;
    }
    sink = [&](std::string_view line) { timeline << line << '\n'; };
  }
  scheduler::SimResult r;
  try {
    r = scheduler::Simulate(scenario, sink);
  } catch (const scheduler::ScenarioError& e) {
    std::cerr << "simulate: " << e.what() << "\n";
    return 2;
  }
  if (a.json) {
    std::cout << scheduler::ResultToJson(r).dump(2) << "\n";
    return 0;
  }
  std::printf("jobs %u submitted, %u completed, %u failed; %llu partitions dispatched; makespan %.1f s\n",
              r.jobs_submitted, r.jobs_completed, r.jobs_failed, (unsigned long long)r.partitions_dispatched,
              r.makespan_s);
  std::printf("GPU utilization %.2f%% (steady %.2f%% over %.1f..%.1f s), %u workers\n", r.gpu_utilization * 100,
              r.steady_gpu_utilization * 100, r.steady_from_s, r.steady_to_s, r.gpu_workers);
  std::printf(
      "GPU idle while work pending %.3f s; pacer throttled while starved %.3f s (bootstrap %.3f s); "
      "budget held %.1f s\n",
      r.gpu_idle_while_work_pending_s, r.pacer_throttled_while_starved_s, r.pacer_throttled_during_bootstrap_s,
      r.budget_held_s);
  std::printf("re-bootstraps %llu; GPU queue mean %.2f max %llu; peak reserved %llu of %llu bytes\n",
              (unsigned long long)r.rebootstraps, r.mean_gpu_queue_depth, (unsigned long long)r.max_gpu_queue_depth,
              (unsigned long long)r.peak_reserved_bytes, (unsigned long long)r.budget_bytes);
  return 0;
}

CommandRegistrar kSimulate("simulate", [](CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand("simulate", "Run the pipeline scheduler (pacer, budget, queues) on a virtual clock");
  cmd->add_option("--scenario", args->scenario, "scenario JSON file")->required();
  cmd->add_flag("--json", args->json, "print the result as one JSON object");
  cmd->add_option("--timeline", args->timeline, "also write TIMELINE lines (virtual ms) to this file");
  cmd->callback([args] { CommandExitCode() = RunSimulate(*args); });
});

}  // namespace
}  // namespace cuzk::bench
