#pragma once
// Machine-readable timing lines, in the formats of the reference so existing
// log analysis keeps working (../shared/specs/cuzk-reference.md):
//   TIMELINE,<ms since start>,<event>,<job_id>,<detail>
//     SYNTH_START partition=N | SYNTH_END partition=N,synth_ms=M | GPU_QUEUE partition=N
//     GPU_PICKUP worker=W,partition=N | GPU_START worker=W,partition=N
//     GPU_END worker=W,partition=N,gpu_ms=M | FIN_END partition=N,fin_ms=M
//   GPU_TIMING,<job>,partition=N,worker=W,status_ms=..,fail_check_ms=..,mark_busy_ms=..,total_overhead_ms=..,
//              spawn_to_enter_ms=..,prove_start_ms=..,total_pre_prove_ms=..[,<step>_ms=.. for each step the
//              work measured inside the GPU start: StageData::TimingDetail; prover: lane_wait, bases,
//              circuit, z_expand, abc_eval, h_ntt, msm_wait, msm_h, witness_wait, msm_a, msm_b_g1, msm_l, msm_b_g2]
//   FIN_TIMING,<job>,partition=N,finish_ms=..,verify_ms=..,drop_res_ms=..,lock_wait_ms=..,process_ms=..,total_ms=..
// Lines go to a sink callback: the pipeline depends on no logging library.
// The sink is called without any pipeline lock held; it must be thread-safe.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::scheduler {

using TimelineSink = std::function<void(std::string_view line)>;

std::string TimelineLine(double ms, std::string_view event, std::string_view job, std::string_view detail);

// One parsed TIMELINE line; other lines are not TIMELINE lines (nullopt).
struct TimelineEvent {
  double ms = 0;
  std::string event;
  std::string job;
  int64_t partition = -1;
  int64_t worker = -1;
};
// A malformed TIMELINE line (wrong field count, bad number) throws
// std::invalid_argument quoting it; a line of any other kind gives nullopt.
// The prefix may follow other text (a log timestamp): everything before
// "TIMELINE," is skipped.
std::optional<TimelineEvent> ParseTimelineLine(std::string_view line);

}  // namespace cuzk::scheduler
