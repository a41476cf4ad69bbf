// DispatchPacer on a hand-driven clock: bootstrap, calibration, the
// starvation fill, paced intervals from the feed-forward, absolute deadlines
// (a GPU completion never restarts the timer), the asymmetric integral clamp
// and re-bootstrap only when truly empty (retired partitions count).
#include "scheduler/dispatch_pacer.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace cuzk::scheduler {
namespace {

PacerConfig Plain() {
  PacerConfig c;
  c.target = 4;
  c.predict_synthesis = false;
  c.bootstrap_spacing_s = 0.5;
  return c;
}

TEST(DispatchPacer, BootstrapSpacesTargetDispatchesThenFillsUntilTargetWaits) {
  DispatchPacer p(Plain(), 2, 0);
  double t = 0;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(p.MayDispatch(t)) << i;
    p.OnDispatch(t);
    if (i < 3) {
      EXPECT_FALSE(p.MayDispatch(t + 0.25));
      EXPECT_DOUBLE_EQ(p.NextDeadline(t), t + 0.5);
    }
    t += 0.5;
  }
  // No GPU time yet and nothing waits for a GPU: the starvation fill keeps
  // dispatching (issue 16: the old hold left synthesis idle for a whole
  // synthesis time). The caller's capacity and budget bound it, not the pacer.
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(p.MayDispatch(t + i)) << i;
    p.OnDispatch(t + i);
    p.SetQueues(t + i, 3, 5 + i);  // below target, however many synthesize
  }
  EXPECT_TRUE(p.in_bootstrap());
  // `target` wait for a GPU: held until a measurement gives an interval.
  p.SetQueues(t + 30, 4, 20);
  EXPECT_FALSE(p.MayDispatch(t + 100));
  EXPECT_TRUE(std::isinf(p.NextDeadline(t + 100)));
  p.SetQueues(t + 100, 3, 20);  // a GPU picked one up: starved again
  EXPECT_TRUE(p.MayDispatch(t + 100));
  p.SetQueues(t + 100, 4, 20);
  EXPECT_FALSE(p.MayDispatch(t + 100));
  p.OnGpuComplete(t + 101, 1.0);
  EXPECT_FALSE(p.in_bootstrap());
  EXPECT_TRUE(p.State(t + 101).calibrated);
  EXPECT_DOUBLE_EQ(p.State(t + 101).gpu_eff_s, 0.5);
}

TEST(DispatchPacer, WithoutTheFillBootstrapWaitsForAMeasurement) {
  PacerConfig c = Plain();
  c.fill_when_starved = false;  // cuzk's start: `target` dispatches, then none until measured
  DispatchPacer p(c, 2, 0);
  double t = 0;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(p.MayDispatch(t)) << i;
    p.OnDispatch(t);
    t += 0.5;
  }
  EXPECT_FALSE(p.MayDispatch(t + 100));  // starved (nothing waits), held all the same
  EXPECT_TRUE(std::isinf(p.NextDeadline(t + 100)));
  p.OnGpuComplete(t + 101, 1.0);
  EXPECT_FALSE(p.in_bootstrap());
}

TEST(DispatchPacer, KnownGpuTimeEndsBootstrapWithoutWaiting) {
  PacerConfig c = Plain();
  c.initial_gpu_time_s = 1.2;
  DispatchPacer p(c, 1, 0);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(p.MayDispatch(i * 0.5));
    p.OnDispatch(i * 0.5);
  }
  EXPECT_TRUE(p.MayDispatch(2.0));  // queue empty (< target): the fill, no waiting for a measurement
  EXPECT_FALSE(p.in_bootstrap());
}

// Calibrated, out of bootstrap, the GPU queue held at `waiting` for a while.
DispatchPacer Steady(PacerConfig c, double gpu_s, unsigned workers, uint64_t waiting, double& t) {
  DispatchPacer p(c, workers, 0);
  t = 0;
  for (int i = 0; i < int(c.target); ++i) {
    p.MayDispatch(t);
    p.OnDispatch(t);
    t += c.bootstrap_spacing_s;
  }
  p.OnGpuComplete(t, gpu_s);
  p.SetQueues(t, waiting, 0);
  t += 100;  // the EMA settles
  p.SetQueues(t, waiting, 0);
  return p;
}

TEST(DispatchPacer, StarvedQueueIsNeverThrottled) {
  double t;
  PacerConfig c = Plain();
  DispatchPacer p = Steady(c, 1.0, 2, 0, t);
  // However many dispatches in a row: while the queue is below target, dispatch.
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(p.MayDispatch(t));
    p.OnDispatch(t);
  }
  c.fill_when_starved = false;  // cuzk's behaviour: paced even when starved
  DispatchPacer q = Steady(c, 1.0, 2, 0, t);
  ASSERT_TRUE(q.MayDispatch(t));
  q.OnDispatch(t);
  EXPECT_FALSE(q.MayDispatch(t + 0.01));
}

TEST(DispatchPacer, OnTargetIntervalIsGpuTimePerWorker) {
  double t;
  PacerConfig c = Plain();
  c.ki = 0;
  DispatchPacer p = Steady(c, 1.2, 2, 4, t);  // waiting == target: e = 0
  const PacerState s = p.State(t);
  EXPECT_NEAR(s.ema_waiting, 4, 1e-6);
  EXPECT_NEAR(s.rate_mult, 1, 1e-6);
  EXPECT_NEAR(s.interval_s, 0.6, 1e-6);
  ASSERT_TRUE(p.MayDispatch(t));
  p.OnDispatch(t);
  EXPECT_FALSE(p.MayDispatch(t + 0.59));
  EXPECT_NEAR(p.NextDeadline(t), t + 0.6, 1e-6);
}

TEST(DispatchPacer, GpuCompletionDoesNotRestartTheTimer) {
  double t;
  PacerConfig c = Plain();
  c.ki = 0;
  DispatchPacer p = Steady(c, 1.2, 2, 4, t);
  ASSERT_TRUE(p.MayDispatch(t));
  p.OnDispatch(t);
  const double deadline = p.NextDeadline(t);
  p.OnGpuComplete(t + 0.5, 1.2);  // same GPU time: same interval
  EXPECT_NEAR(p.NextDeadline(t + 0.5), deadline, 1e-9);
  EXPECT_FALSE(p.MayDispatch(deadline - 1e-3));
  EXPECT_TRUE(p.MayDispatch(deadline + 1e-9));
  // Paced dispatches keep the absolute schedule (no drift from a late caller).
  p.OnDispatch(deadline + 0.1);
  EXPECT_NEAR(p.NextDeadline(deadline + 0.1), deadline + 0.6, 1e-6);
}

TEST(DispatchPacer, OverfullQueueSlowsButIntegralWindsDownOnlyALittle) {
  double t;
  PacerConfig c = Plain();
  DispatchPacer p = Steady(c, 1.0, 1, 40, t);  // 10x target for 100 s
  PacerState s = p.State(t);
  EXPECT_DOUBLE_EQ(s.integral, c.integral_min);  // clamped at -0.5, not -900
  EXPECT_DOUBLE_EQ(s.rate_mult, c.rate_mult_min);
  EXPECT_NEAR(s.interval_s, 1.0 / c.rate_mult_min, 1e-9);
  // Starved afterwards: the integral climbs back and is clamped at the top.
  p.SetQueues(t, 0, 0);
  p.SetQueues(t + 1000, 0, 0);
  s = p.State(t + 1000);
  EXPECT_DOUBLE_EQ(s.integral, c.integral_max);
  EXPECT_DOUBLE_EQ(s.rate_mult, std::min(c.rate_mult_max, 1 + c.kp + c.ki * c.integral_max));
}

TEST(DispatchPacer, HeldDispatchFreezesTheIntegral) {
  double t;
  DispatchPacer p = Steady(Plain(), 1.0, 1, 4, t);  // on target: integral 0
  const double before = p.State(t).integral;
  p.SetQueues(t, 0, 0);
  p.SetHeld(t, true);
  p.SetQueues(t + 50, 0, 0);
  EXPECT_DOUBLE_EQ(p.State(t + 50).integral, before);
  p.SetHeld(t + 50, false);
  p.SetQueues(t + 51, 0, 0);
  EXPECT_GT(p.State(t + 51).integral, before);
}

TEST(DispatchPacer, ReBootstrapOnlyWhenTrulyEmptyCountingRetired) {
  double t;
  DispatchPacer p = Steady(Plain(), 1.0, 1, 0, t);
  // Steady() dispatched 4 and completed 1 on the GPU: 3 in flight.
  EXPECT_TRUE(p.MayDispatch(t));
  EXPECT_EQ(p.rebootstraps(), 0u);
  p.OnGpuComplete(t, 1.0);
  p.OnGpuComplete(t, 1.0);
  EXPECT_TRUE(p.MayDispatch(t));  // one still in flight: the fill, not a re-bootstrap
  EXPECT_EQ(p.rebootstraps(), 0u);
  p.OnRetired(t);  // the last one failed: a completion all the same (cuzk never counted it)
  EXPECT_TRUE(p.MayDispatch(t));
  EXPECT_EQ(p.rebootstraps(), 1u);
  EXPECT_TRUE(p.in_bootstrap());
}

TEST(DispatchPacer, BootstrapRestartsWhenAllBootstrapPartitionsRetire) {
  DispatchPacer p(Plain(), 1, 0);
  for (int i = 0; i < 4; ++i) {
    p.MayDispatch(i);
    p.OnDispatch(i);
  }
  p.SetQueues(9, 4, 0);  // all four wait for a GPU: no fill, held until measured
  EXPECT_FALSE(p.MayDispatch(10));
  p.OnRetired(10, 4);  // all failed: no measurement will ever come
  p.SetQueues(10, 0, 0);
  EXPECT_TRUE(p.MayDispatch(10));
  EXPECT_EQ(p.rebootstraps(), 1u);
}

TEST(DispatchPacer, PredictorCountsPartitionsInSynthesis) {
  PacerConfig c = Plain();
  c.predict_synthesis = true;
  DispatchPacer p(c, 2, 0);
  double t = 0;
  for (int i = 0; i < 4; ++i) {
    p.MayDispatch(t);
    p.OnDispatch(t);
    t += 0.5;
  }
  p.OnSynthDone(t, 30);
  p.OnGpuComplete(t, 1.0);  // gpu_eff 0.5 s: 30 s of synthesis needs 60 in flight
  p.SetQueues(t, 10, 30);   // queue above target, but 30 in synthesis is too few
  EXPECT_TRUE(p.MayDispatch(t));
  p.SetQueues(t, 10, 70);  // 10 + 70 - 60 = 20 predicted: pace
  p.SetQueues(t + 100, 10, 70);
  EXPECT_NEAR(p.State(t + 100).predicted, 20, 1e-3);
  ASSERT_TRUE(p.MayDispatch(t + 100));
  p.OnDispatch(t + 100);
  EXPECT_FALSE(p.MayDispatch(t + 100.01));
}

TEST(DispatchPacer, ConfigValidationNamesTheField) {
  PacerConfig c;
  c.target = 0;
  EXPECT_THROW(DispatchPacer(c, 1, 0), std::invalid_argument);
  c = PacerConfig();
  c.integral_min = 1;
  try {
    c.Validate();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("integral_min"), std::string::npos);
  }
}

}  // namespace
}  // namespace cuzk::scheduler
