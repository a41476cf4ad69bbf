#pragma once
// The deterministic pipeline simulator: discrete events on a virtual clock,
// driving the real DispatchPacer, DecideDispatch, memory::Budget and
// PartitionQueue code of scheduler/ (only the work itself,
// synthesis/GPU/finalize, is a sampled duration). A tool, not part of the
// daemon: cuzk-bench simulate and the scheduler tests link it (cuzk_simulator).
//
//   SimScenario s = ParseScenario(nlohmann::json::parse(text));   // ScenarioError on bad input
//   SimResult r = Simulate(s);                                    // same scenario + seed, same result
//   std::cout << ResultToJson(r).dump(2);
//
// Model: jobs arrive at arrival_s with `partitions` partitions. A dispatch
// takes the most urgent partition from the SynthesisQueue when the pipeline's
// own DecideDispatch says so (dispatch_decision.hpp): a synthesis worker is
// free, fewer than synthesis.max_run_ahead (when > 0) partitions are
// synthesizing or waiting for a GPU, the pacer allows, and the budget grants
// bytes_per_partition (TryAcquire: the single dispatcher never skips the
// head, so grants are in strict priority order). Synthesis takes synthesis.time_s, then the
// partition waits in the GpuQueue; a free GPU worker picks it at once, the
// abc_bytes part is released at GPU start, GPU time is gpu.time_s per worker
// (devices x workers_per_device independent workers); a single finalizer takes
// finalize.time_s (default 0), then the rest of the reservation is released.
// Partitions listed in a job's fail_partitions fail at synthesis end: the job
// fails once, its other partitions are skipped, all reservations released.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/dispatch_pacer.hpp"
#include "scheduler/priority.hpp"
#include "scheduler/timeline.hpp"

namespace cuzk::scheduler {

// A scenario that does not parse or makes no sense; the message names the field.
class ScenarioError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct TimeRange {
  double min_s = 0, max_s = 0;  // uniform in [min, max]; equal for a fixed time
};

struct SimJobSpec {
  uint32_t count = 1;
  uint32_t partitions = 1;
  Priority priority = Priority::kNormal;
  double arrival_s = 0;
  double interval_s = 0;  // arrival spacing of the `count` jobs
  std::vector<uint32_t> fail_partitions;
};

struct SimScenario {
  uint64_t seed = 1;
  std::vector<SimJobSpec> jobs;
  uint32_t synthesis_workers = 1;
  // Most partitions synthesizing or waiting for a GPU (PipelineConfig::max_run_ahead,
  // the daemon's pipeline.max_parallel_synthesis); 0: no ceiling, as PipelineConfig's default.
  uint32_t max_run_ahead = 0;
  TimeRange synthesis_time;
  uint32_t gpu_devices = 1;
  uint32_t gpu_workers_per_device = 1;
  TimeRange gpu_time;
  TimeRange finalize_time;
  uint64_t budget_bytes = uint64_t(1) << 62;  // no memory section: effectively unlimited
  uint64_t bytes_per_partition = 0;
  uint64_t abc_bytes = 0;
  PacerConfig pacer;
  double max_time_s = 1e7;  // a scenario still running then is reported as an error
};

SimScenario ParseScenario(const nlohmann::json& j);

struct SimDispatch {
  uint32_t job = 0, partition = 0;
  Priority priority = Priority::kNormal;
  double t_s = 0;
};

struct SimJobResult {
  uint32_t job = 0;
  Priority priority = Priority::kNormal;
  uint32_t partitions = 0;
  double arrival_s = 0;
  double first_dispatch_s = -1;
  double done_s = -1;
  std::string status;  // "completed", "failed: ..."
};

struct SimRebootstrap {
  double t_s = 0;
  uint64_t in_flight = 0;     // the pacer's dispatched - completions
  uint64_t synthesizing = 0;  // partitions in synthesis at that moment
  uint64_t gpu_queue = 0;
  uint64_t on_gpu = 0;
};

struct SimResult {
  double gpu_utilization = 0;         // busy worker-seconds / (workers x [first GPU start, last GPU end])
  double steady_gpu_utilization = 0;  // the same between the 10% and 90% marks of GPU starts/ends
  double steady_from_s = 0, steady_to_s = 0;
  double gpu_busy_s = 0;
  uint32_t gpu_workers = 0;
  double gpu_idle_while_work_pending_s = 0;
  double pacer_throttled_while_starved_s = 0;  // after bootstrap
  double pacer_throttled_during_bootstrap_s = 0;
  double budget_held_s = 0;  // a partition and a worker were ready but the budget did not grant
  uint64_t rebootstraps = 0;
  std::vector<SimRebootstrap> rebootstrap_events;
  uint64_t peak_reserved_bytes = 0;
  uint64_t budget_bytes = 0;
  uint64_t final_reserved_bytes = 0;
  uint32_t jobs_submitted = 0, jobs_completed = 0, jobs_failed = 0;
  uint64_t partitions_dispatched = 0, partitions_proved = 0;
  double makespan_s = 0;
  double first_gpu_start_s = 0, last_gpu_end_s = 0;
  uint64_t max_gpu_queue_depth = 0;
  double mean_gpu_queue_depth = 0;  // over [first GPU start, last GPU end]
  std::vector<SimDispatch> dispatch_order;
  std::vector<SimJobResult> jobs;
  PacerState pacer;
};

// Throws ScenarioError when the scenario stalls or runs past max_time_s.
// With a sink, TIMELINE lines of virtual milliseconds are written to it.
SimResult Simulate(const SimScenario& scenario, const TimelineSink& sink = {});

nlohmann::json ResultToJson(const SimResult& r);

}  // namespace cuzk::scheduler
