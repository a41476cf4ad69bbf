// DecideDispatch, the one dispatch decision of the pipeline and the simulator:
// the gates in order (work, capacity with max_run_ahead, pacer, budget), the
// pacer asked only when capacity is there, the pacer told of the caller's
// holds, and the idle pinned buffer's share of the charge.
#include "scheduler/dispatch_decision.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "scheduler/dispatch_pacer.hpp"

namespace cuzk::scheduler {
namespace {

DispatchState Ready() {
  DispatchState s;
  s.queue_empty = false;
  s.free_synthesis = 2;
  s.in_synthesis = 1;
  s.gpu_queue = 1;
  s.head = {.total = 9, .abc = 8, .pinned_abc = true};
  return s;
}

TEST(DispatchDecision, EmptyQueueWaitsForWorkWithoutHoldingThePacer) {
  DispatchState s = Ready();
  s.queue_empty = true;
  s.free_synthesis = 0;  // work is looked at first
  const DispatchDecision d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kWaitForWork);
  EXPECT_FALSE(d.pacer_held);
}

TEST(DispatchDecision, NoFreeSynthesisThreadHoldsForCapacity) {
  DispatchState s = Ready();
  s.free_synthesis = 0;
  s.pacer = PacerVerdict{.may_dispatch = true};
  const DispatchDecision d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kWaitForCapacity);
  EXPECT_TRUE(d.pacer_held);
}

TEST(DispatchDecision, MaxRunAheadCountsSynthesisAndGpuQueue) {
  DispatchState s = Ready();
  s.max_run_ahead = 3;
  s.in_synthesis = 1;
  s.gpu_queue = 1;
  EXPECT_EQ(DecideDispatch(s).action, DispatchAction::kAskPacer);  // 2 ahead of 3
  s.gpu_queue = 2;
  EXPECT_EQ(DecideDispatch(s).action, DispatchAction::kWaitForCapacity);  // 3 ahead
  s.max_run_ahead = 0;                                                    // no ceiling
  s.gpu_queue = 1000;
  EXPECT_EQ(DecideDispatch(s).action, DispatchAction::kAskPacer);
}

TEST(DispatchDecision, PacerHoldUntilItsDeadlineIsNotTheCallersHold) {
  DispatchState s = Ready();
  s.pacer = PacerVerdict{.may_dispatch = false, .next_deadline_s = 12.5};
  DispatchDecision d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kWaitUntil);
  EXPECT_EQ(d.wake_at_s, 12.5);
  EXPECT_FALSE(d.pacer_held);
  s.pacer = PacerVerdict{.may_dispatch = false};
  d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kWaitUntil);
  EXPECT_TRUE(std::isinf(d.wake_at_s));
}

TEST(DispatchDecision, BudgetGateAfterThePacer) {
  DispatchState s = Ready();
  s.pacer = PacerVerdict{.may_dispatch = true};
  DispatchDecision d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kAcquireBudget);
  EXPECT_TRUE(d.pacer_held);
  EXPECT_FALSE(d.take_idle_pinned);  // no pool
  s.pinned_pool = true;
  EXPECT_TRUE(DecideDispatch(s).take_idle_pinned);
  s.head.pinned_abc = false;
  EXPECT_FALSE(DecideDispatch(s).take_idle_pinned);
  s.budget_granted = false;
  d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kWaitForBudget);
  EXPECT_TRUE(d.pacer_held);
  s.budget_granted = true;
  d = DecideDispatch(s);
  EXPECT_EQ(d.action, DispatchAction::kDispatch);
  EXPECT_FALSE(d.pacer_held);
}

TEST(DispatchDecision, IdlePinnedBufferCoversTheAbcPartOfTheCharge) {
  const PartitionBytes head{.total = 9, .abc = 8, .pinned_abc = true};
  EXPECT_EQ(BudgetCharge(head, false), 9u);
  EXPECT_EQ(BudgetCharge(head, true), 1u);
}

// AskPacer asks NextDeadline only when MayDispatch says no: in bootstrap the
// first `target` dispatches go at once, then, until a GPU measurement, only
// the starvation fill; once `target` wait, none, and no deadline (an event).
TEST(DispatchDecision, AskPacerFollowsThePacer) {
  PacerConfig c;
  c.target = 1;
  DispatchPacer pacer(c, 1, 0);
  PacerVerdict v = AskPacer(pacer, 0);
  EXPECT_TRUE(v.may_dispatch);
  pacer.OnDispatch(0);
  v = AskPacer(pacer, 0.5);
  EXPECT_TRUE(v.may_dispatch);  // nothing waits for the GPU yet: the fill
  pacer.SetQueues(0.5, 1, 0);
  v = AskPacer(pacer, 0.5);
  EXPECT_FALSE(v.may_dispatch);
  EXPECT_TRUE(std::isinf(v.next_deadline_s));
}

}  // namespace
}  // namespace cuzk::scheduler
