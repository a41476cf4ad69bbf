#include "scheduler/dispatch_decision.hpp"

#include "scheduler/dispatch_pacer.hpp"

namespace cuzk::scheduler {

PacerVerdict AskPacer(DispatchPacer& pacer, double now_s) {
  PacerVerdict v;
  v.may_dispatch = pacer.MayDispatch(now_s);
  if (!v.may_dispatch) v.next_deadline_s = pacer.NextDeadline(now_s);
  return v;
}

DispatchDecision DecideDispatch(const DispatchState& s) {
  DispatchDecision d;
  if (s.queue_empty) {
    d.action = DispatchAction::kWaitForWork;
    return d;
  }
  if (s.free_synthesis == 0 || (s.max_run_ahead > 0 && s.in_synthesis + s.gpu_queue >= s.max_run_ahead)) {
    d.action = DispatchAction::kWaitForCapacity;
    d.pacer_held = true;
    return d;
  }
  if (!s.pacer) {
    d.action = DispatchAction::kAskPacer;
    return d;
  }
  if (!s.pacer->may_dispatch) {
    d.action = DispatchAction::kWaitUntil;
    d.wake_at_s = s.pacer->next_deadline_s;
    return d;
  }
  if (!s.budget_granted) {
    d.action = DispatchAction::kAcquireBudget;
    d.pacer_held = true;  // the budget wait is the caller's hold
    d.take_idle_pinned = s.pinned_pool && s.head.pinned_abc && s.head.abc > 0;
    return d;
  }
  if (!*s.budget_granted) {
    d.action = DispatchAction::kWaitForBudget;
    d.pacer_held = true;
    return d;
  }
  d.action = DispatchAction::kDispatch;
  return d;
}

uint64_t BudgetCharge(const PartitionBytes& head, bool idle_pinned_taken) {
  return idle_pinned_taken ? head.total - head.abc : head.total;
}

const char* DispatchActionName(DispatchAction a) {
  switch (a) {
    case DispatchAction::kWaitForWork: return "wait_for_work";
    case DispatchAction::kWaitForCapacity: return "wait_for_capacity";
    case DispatchAction::kAskPacer: return "ask_pacer";
    case DispatchAction::kWaitUntil: return "wait_until";
    case DispatchAction::kAcquireBudget: return "acquire_budget";
    case DispatchAction::kWaitForBudget: return "wait_for_budget";
    case DispatchAction::kDispatch: return "dispatch";
  }
  return "?";
}

}  // namespace cuzk::scheduler
