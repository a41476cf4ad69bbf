#include "scheduler/timeline.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "tools/simulator/timeline_plot.hpp"

namespace cuzk::scheduler {
namespace {

TEST(Timeline, FormatsAndParsesTheReferenceFormat) {
  const std::string line = TimelineLine(1234.4, "GPU_END", "snap-1-2", "worker=1,partition=3,gpu_ms=1100");
  EXPECT_EQ(line, "TIMELINE,1234,GPU_END,snap-1-2,worker=1,partition=3,gpu_ms=1100");
  auto e = ParseTimelineLine("2026-12-01T06:00:00Z INFO " + line);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->ms, 1234);
  EXPECT_EQ(e->event, "GPU_END");
  EXPECT_EQ(e->job, "snap-1-2");
  EXPECT_EQ(e->worker, 1);
  EXPECT_EQ(e->partition, 3);
  EXPECT_FALSE(ParseTimelineLine("GPU_TIMING,job,status_ms=0").has_value());
  EXPECT_THROW(ParseTimelineLine("TIMELINE,12,GPU_END"), std::invalid_argument);
  EXPECT_THROW(ParseTimelineLine("TIMELINE,abc,GPU_END,j,worker=1"), std::invalid_argument);
  EXPECT_THROW(ParseTimelineLine("TIMELINE,5,GPU_START,j,worker=x,partition=1"), std::invalid_argument);
}

TEST(Timeline, ComputesBusyAndIdleWhilePending) {
  // Two workers; partition 2 waits from 100 to 150 ms while worker 1 is idle.
  std::stringstream log(
      "TIMELINE,0,GPU_QUEUE,j,partition=0\n"
      "TIMELINE,0,GPU_PICKUP,j,worker=0,partition=0\n"
      "TIMELINE,0,GPU_START,j,worker=0,partition=0\n"
      "noise line\n"
      "TIMELINE,0,GPU_QUEUE,j,partition=1\n"
      "TIMELINE,0,GPU_PICKUP,j,worker=1,partition=1\n"
      "TIMELINE,0,GPU_START,j,worker=1,partition=1\n"
      "TIMELINE,100,GPU_END,j,worker=1,partition=1,gpu_ms=100\n"
      "TIMELINE,100,GPU_QUEUE,j,partition=2\n"
      "TIMELINE,150,GPU_PICKUP,j,worker=1,partition=2\n"
      "TIMELINE,150,GPU_START,j,worker=1,partition=2\n"
      "TIMELINE,200,GPU_END,j,worker=0,partition=0,gpu_ms=200\n"
      "TIMELINE,200,GPU_END,j,worker=1,partition=2,gpu_ms=50\n");
  const TimelineData d = ReadTimeline(log);
  EXPECT_EQ(d.timeline_lines, 12u);
  ASSERT_EQ(d.gpu.size(), 3u);
  EXPECT_DOUBLE_EQ(d.gpu_span_ms, 200);
  EXPECT_DOUBLE_EQ(d.busy_ms_by_worker.at(0), 200);
  EXPECT_DOUBLE_EQ(d.busy_ms_by_worker.at(1), 150);
  EXPECT_DOUBLE_EQ(d.gpu_utilization, 350.0 / 400.0);
  EXPECT_DOUBLE_EQ(d.idle_while_pending_ms, 50);
  EXPECT_EQ(d.max_queue_depth, 1);
  EXPECT_DOUBLE_EQ(d.any_busy_ms, 200);  // worker 0 is busy throughout
  EXPECT_DOUBLE_EQ(d.any_busy_fraction, 1.0);
  const std::string svg = RenderTimelineSvg(d);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("worker 1"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(Timeline, AnyWorkerBusyCountsOverlapsOnceAndGapsNotAtAll) {
  // Worker 0: 0..100 and 250..300; worker 1: 50..150 (overlaps worker 0).
  // Some worker busy: 0..150 and 250..300 = 200 of the 300 ms span.
  std::stringstream log(
      "TIMELINE,0,GPU_START,j,worker=0,partition=0\n"
      "TIMELINE,50,GPU_START,j,worker=1,partition=1\n"
      "TIMELINE,100,GPU_END,j,worker=0,partition=0,gpu_ms=100\n"
      "TIMELINE,150,GPU_END,j,worker=1,partition=1,gpu_ms=100\n"
      "TIMELINE,250,GPU_START,j,worker=0,partition=2\n"
      "TIMELINE,300,GPU_END,j,worker=0,partition=2,gpu_ms=50\n");
  const TimelineData d = ReadTimeline(log);
  EXPECT_DOUBLE_EQ(d.gpu_span_ms, 300);
  EXPECT_DOUBLE_EQ(d.any_busy_ms, 200);
  EXPECT_DOUBLE_EQ(d.any_busy_fraction, 200.0 / 300.0);
  EXPECT_DOUBLE_EQ(d.gpu_utilization, 250.0 / 600.0);
}

}  // namespace
}  // namespace cuzk::scheduler
