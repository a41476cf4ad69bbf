#include "tools/simulator/timeline_plot.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <stdexcept>

#include "scheduler/timeline.hpp"

namespace cuzk::scheduler {

TimelineData ReadTimeline(std::istream& in) {
  TimelineData d;
  std::map<int64_t, GpuInterval> open;  // by worker
  std::string line;
  int64_t depth = 0;
  bool any = false;
  std::set<int64_t> workers;
  while (std::getline(in, line)) {
    ++d.lines;
    auto e = ParseTimelineLine(line);
    if (!e) continue;
    ++d.timeline_lines;
    if (!any) d.first_ms = e->ms;
    any = true;
    d.first_ms = std::min(d.first_ms, e->ms);
    d.last_ms = std::max(d.last_ms, e->ms);
    if (e->event == "GPU_QUEUE" || e->event == "GPU_PICKUP") {
      depth += e->event == "GPU_QUEUE" ? 1 : -1;
      d.queue_depth.push_back({e->ms, std::max<int64_t>(depth, 0)});
      d.max_queue_depth = std::max(d.max_queue_depth, depth);
    } else if (e->event == "GPU_START") {
      if (e->worker < 0) throw std::invalid_argument("GPU_START without worker=: " + line);
      workers.insert(e->worker);
      open[e->worker] = {e->worker, e->ms, e->ms, e->job, e->partition};
    } else if (e->event == "GPU_END") {
      auto it = open.find(e->worker);
      if (it == open.end()) continue;  // the log started mid-partition
      it->second.end_ms = e->ms;
      d.gpu.push_back(it->second);
      open.erase(it);
    }
  }
  // Lines of several threads may interleave slightly out of order.
  std::stable_sort(d.queue_depth.begin(), d.queue_depth.end(), [](auto& a, auto& b) { return a.first < b.first; });
  if (d.gpu.empty()) return d;
  double first = d.gpu.front().start_ms, last = d.gpu.front().end_ms;
  for (auto& g : d.gpu) {
    first = std::min(first, g.start_ms);
    last = std::max(last, g.end_ms);
    d.busy_ms_by_worker[g.worker] += g.end_ms - g.start_ms;
  }
  d.gpu_span_ms = last - first;
  double busy = 0;
  for (auto& [w, b] : d.busy_ms_by_worker) busy += b;
  if (d.gpu_span_ms > 0) d.gpu_utilization = busy / (d.gpu_span_ms * double(workers.size()));
  // Idle while pending: sweep the change points of "busy workers" and "depth".
  std::vector<std::pair<double, int>> busy_steps;
  for (auto& g : d.gpu) {
    busy_steps.push_back({g.start_ms, +1});
    busy_steps.push_back({g.end_ms, -1});
  }
  std::sort(busy_steps.begin(), busy_steps.end());
  std::vector<double> times;
  for (auto& b : busy_steps) times.push_back(b.first);
  for (auto& q : d.queue_depth) times.push_back(q.first);
  std::sort(times.begin(), times.end());
  size_t bi = 0, qi = 0;
  int busy_now = 0;
  int64_t depth_now = 0;
  const int nworkers = int(workers.size());
  for (size_t i = 0; i + 1 < times.size(); ++i) {
    while (bi < busy_steps.size() && busy_steps[bi].first <= times[i]) busy_now += busy_steps[bi++].second;
    while (qi < d.queue_depth.size() && d.queue_depth[qi].first <= times[i]) depth_now = d.queue_depth[qi++].second;
    if (depth_now > 0 && busy_now < nworkers) d.idle_while_pending_ms += times[i + 1] - times[i];
    if (busy_now > 0) d.any_busy_ms += times[i + 1] - times[i];
  }
  if (d.gpu_span_ms > 0) d.any_busy_fraction = d.any_busy_ms / d.gpu_span_ms;
  return d;
}

namespace {

std::string Color(const std::string& job) {
  static const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[std::hash<std::string>{}(job) % 10];
}

}  // namespace

std::string RenderTimelineSvg(const TimelineData& d) {
  const double width = 1200, left = 90, right = 20, lane_h = 28, lane_gap = 6, top = 40, chart_h = 160;
  std::set<int64_t> workers;
  for (auto& g : d.gpu) workers.insert(g.worker);
  const double t0 = d.first_ms, t1 = std::max(d.last_ms, d.first_ms + 1);
  const double plot_w = width - left - right;
  auto x = [&](double ms) { return left + (ms - t0) / (t1 - t0) * plot_w; };
  const double lanes_h = double(workers.size()) * (lane_h + lane_gap);
  const double chart_top = top + lanes_h + 30;
  const double height = chart_top + chart_h + 50;
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                width, height);
  s += buf;
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.0f\" y=\"20\">GPU busy per worker (utilization %.1f%%, idle while work pending %.1f s) "
                "and GPU queue depth (max %lld); %.1f s shown</text>\n",
                left, d.gpu_utilization * 100, d.idle_while_pending_ms / 1e3, (long long)d.max_queue_depth,
                (t1 - t0) / 1e3);
  s += buf;
  size_t lane = 0;
  for (int64_t w : workers) {
    const double y = top + double(lane++) * (lane_h + lane_gap);
    auto it = d.busy_ms_by_worker.find(w);
    std::snprintf(buf, sizeof buf,
                  "<text x=\"4\" y=\"%.1f\">worker %lld</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%.1f\" fill=\"#eeeeee\"/>\n",
                  y + lane_h * 0.65, (long long)w, left, y, plot_w, lane_h);
    s += buf;
    for (auto& g : d.gpu) {
      if (g.worker != w) continue;
      std::snprintf(buf, sizeof buf,
                    "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s p%lld %.0f ms"
                    "</title></rect>\n",
                    x(g.start_ms), y, std::max(0.5, x(g.end_ms) - x(g.start_ms)), lane_h, Color(g.job).c_str(),
                    g.job.c_str(), (long long)g.partition, g.end_ms - g.start_ms);
      s += buf;
    }
    (void)it;
  }
  // Queue depth as a step line.
  const double ymax = double(std::max<int64_t>(d.max_queue_depth, 1));
  auto y = [&](double depth) { return chart_top + chart_h - depth / ymax * chart_h; };
  std::snprintf(buf, sizeof buf,
                "<text x=\"4\" y=\"%.1f\">GPU queue</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"none\" stroke=\"#999\"/>\n<text x=\"%.1f\" y=\"%.1f\">%lld</text>\n",
                chart_top + 12, left, chart_top, plot_w, chart_h, left - 30, chart_top + 10,
                (long long)d.max_queue_depth);
  s += buf;
  std::string path = "M" + std::to_string(x(t0)) + "," + std::to_string(y(0));
  double last_depth = 0;
  for (auto& [ms, depth] : d.queue_depth) {
    path += " L" + std::to_string(x(ms)) + "," + std::to_string(y(last_depth));
    path += " L" + std::to_string(x(ms)) + "," + std::to_string(y(double(depth)));
    last_depth = double(depth);
  }
  path += " L" + std::to_string(x(t1)) + "," + std::to_string(y(last_depth));
  s += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#e15759\" stroke-width=\"1.5\"/>\n";
  for (int i = 0; i <= 10; ++i) {
    const double ms = t0 + (t1 - t0) * i / 10;
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f s</text>\n", x(ms),
                  chart_top + chart_h + 18, (ms - t0) / 1e3);
    s += buf;
  }
  s += "</svg>\n";
  return s;
}

}  // namespace cuzk::scheduler
