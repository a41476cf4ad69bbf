// cuzk-bench timeline: reads TIMELINE lines from a daemon log (or from
// `cuzk-bench simulate --timeline`) and draws GPU busy/idle per worker and the
// GPU-queue depth over time as an SVG; prints utilization and the time a GPU
// worker sat idle while a synthesized partition waited.
//
//   cuzk-bench timeline --log daemon.log --svg timeline.svg [--json]
//
// Exit codes: 0 ok, 2 unreadable input or a malformed TIMELINE line.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "tools/cuzk-bench/command_registry.hpp"
#include "tools/simulator/timeline_plot.hpp"

namespace cuzk::bench {
namespace {

struct TimelineArgs {
  std::string log, svg;
  bool json = false;
};

int RunTimeline(const TimelineArgs& a) {
  std::ifstream in(a.log);
  if (!in) {
    std::cerr << "timeline: cannot read " << a.log << "\n";
    return 2;
  }
  scheduler::TimelineData d;
  try {
    d = scheduler::ReadTimeline(in);
  } catch (const std::invalid_argument& e) {
    std::cerr << "timeline: " << a.log << ": " << e.what() << "\n";
    return 2;
  }
  if (!a.svg.empty()) {
    std::ofstream out(a.svg);
    if (!out) {
      std::cerr << "timeline: cannot write " << a.svg << "\n";
      return 2;
    }
    out << scheduler::RenderTimelineSvg(d);
  }
  if (a.json) {
    nlohmann::json j = {{"lines", d.lines},
                        {"timeline_lines", d.timeline_lines},
                        {"gpu_partitions", d.gpu.size()},
                        {"gpu_span_s", d.gpu_span_ms / 1e3},
                        {"gpu_utilization", d.gpu_utilization},
                        {"idle_while_pending_s", d.idle_while_pending_ms / 1e3},
                        {"any_worker_busy_s", d.any_busy_ms / 1e3},
                        {"any_worker_busy_fraction", d.any_busy_fraction},
                        {"max_queue_depth", d.max_queue_depth}};
    for (auto& [w, ms] : d.busy_ms_by_worker) j["busy_s_by_worker"][std::to_string(w)] = ms / 1e3;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf(
        "%llu TIMELINE lines, %zu GPU partitions over %.1f s: utilization %.2f%% per worker, some worker "
        "busy %.2f%%, idle while work pending %.3f s, max queue depth %lld\n",
        (unsigned long long)d.timeline_lines, d.gpu.size(), d.gpu_span_ms / 1e3, d.gpu_utilization * 100,
        d.any_busy_fraction * 100, d.idle_while_pending_ms / 1e3, (long long)d.max_queue_depth);
  }
  return 0;
}

CommandRegistrar kTimeline("timeline", [](CLI::App& app) {
  auto args = std::make_shared<TimelineArgs>();
  auto* cmd = app.add_subcommand("timeline", "Plot GPU busy/idle and queue depth from TIMELINE lines (SVG)");
  cmd->add_option("--log", args->log, "log file with TIMELINE lines")->required();
  cmd->add_option("--svg", args->svg, "SVG file to write");
  cmd->add_flag("--json", args->json, "print the figures as JSON");
  cmd->callback([args] { CommandExitCode() = RunTimeline(*args); });
});

}  // namespace
}  // namespace cuzk::bench
