#pragma once
// Reads TIMELINE lines (from the pipeline's log or a simulation) and draws
// GPU busy/idle per worker and the GPU-queue depth over time as an SVG, with
// the figures that explain an idle GPU: busy fraction per worker and the time
// a worker was idle while a synthesized partition waited.
//
//   TimelineData d = ReadTimeline(log_stream);   // std::invalid_argument on a malformed TIMELINE line
//   std::string svg = RenderTimelineSvg(d);
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace cuzk::scheduler {

struct GpuInterval {
  int64_t worker = 0;
  double start_ms = 0, end_ms = 0;
  std::string job;
  int64_t partition = -1;
};

struct TimelineData {
  std::vector<GpuInterval> gpu;                         // closed GPU_START..GPU_END intervals
  std::vector<std::pair<double, int64_t>> queue_depth;  // (ms, depth after the event), GPU_QUEUE +1, GPU_PICKUP -1
  double first_ms = 0, last_ms = 0;
  uint64_t lines = 0, timeline_lines = 0;
  // Figures.
  std::map<int64_t, double> busy_ms_by_worker;
  double gpu_span_ms = 0;            // first GPU start .. last GPU end
  double gpu_utilization = 0;        // busy / (span x workers)
  double idle_while_pending_ms = 0;  // some worker idle while depth > 0
  // At least one worker inside GPU_START..GPU_END. With one device this is the
  // device's busy time as the pipeline sees it (CudaBackend serializes its
  // ProveStart calls, so a second worker's interval overlapping the first is
  // mostly waiting for it); any_busy_fraction = any_busy_ms / gpu_span_ms.
  double any_busy_ms = 0;
  double any_busy_fraction = 0;
  int64_t max_queue_depth = 0;
};

TimelineData ReadTimeline(std::istream& in);
std::string RenderTimelineSvg(const TimelineData& d);

}  // namespace cuzk::scheduler
