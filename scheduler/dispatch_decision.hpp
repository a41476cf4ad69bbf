#pragma once
// scheduler::DecideDispatch: does the dispatcher send the head of the
// SynthesisQueue to synthesis now, and if not, what does it wait for? One pure
// function of the pipeline's state, called by the threaded pipeline's
// dispatcher and by the simulator, so that the two cannot drift apart (the
// simulator's own copy of the loop once lacked max_run_ahead).
//
//   DispatchState s{.queue_empty = queue.empty(), .free_synthesis = free, .in_synthesis = synthesizing,
//                   .gpu_queue = gpu_queue.size(), .max_run_ahead = config.max_run_ahead, .head = bytes};
//   DispatchDecision d = DecideDispatch(s);
//   if (d.action == DispatchAction::kAskPacer) {   // capacity is there: now the pacer's turn
//     s.pacer = AskPacer(pacer, now_s);
//     d = DecideDispatch(s);
//   }
//   pacer.SetHeld(now_s, d.pacer_held);
//   kAcquireBudget: take an idle pinned buffer if d.take_idle_pinned, charge BudgetCharge(head, taken)
//   bytes, set s.budget_granted, decide again: kDispatch or kWaitForBudget.
//
// The gates, in order; each is looked at only when the ones before it pass:
//   1. work: the SynthesisQueue holds a partition;
//   2. capacity: a synthesis thread is free, and fewer than max_run_ahead
//      partitions (when > 0) are synthesizing or waiting for a GPU;
//   3. the pacer: DispatchPacer::MayDispatch, asked only now because it may
//      leave bootstrap or re-bootstrap (asking it while capacity holds the
//      dispatch would move its schedule's anchor);
//   4. the budget grants the head's bytes, less the a/b/c part an idle pinned
//      buffer covers (that buffer is charged already). The head is never
//      skipped: nobody behind it is served first (strict priority order).
// While capacity or the budget holds the dispatch, the pacer is told so
// (SetHeld: its integral is frozen, anti-windup); while the pacer itself or an
// empty queue holds it, it is not.
#include <cstdint>
#include <limits>
#include <optional>

#include "scheduler/partition_work.hpp"

namespace cuzk::scheduler {

class DispatchPacer;

struct PacerVerdict {
  bool may_dispatch = false;
  // When not: when to ask again if nothing else happens (+inf: only an event,
  // e.g. bootstrap waiting for the first GPU measurement).
  double next_deadline_s = std::numeric_limits<double>::infinity();
};

// Asks the pacer in the order both callers need: MayDispatch, then
// NextDeadline only when it says no.
PacerVerdict AskPacer(DispatchPacer& pacer, double now_s);

struct DispatchState {
  bool queue_empty = true;
  uint64_t free_synthesis = 0;              // synthesis threads neither busy nor promised to a dispatched partition
  uint64_t in_synthesis = 0;                // dispatched and not yet synthesized
  uint64_t gpu_queue = 0;                   // synthesized, waiting for a GPU worker
  uint64_t max_run_ahead = 0;               // 0: no ceiling beyond the budget
  PartitionBytes head = {};                 // the head partition's bytes
  bool pinned_pool = false;                 // the pipeline has a PinnedPool whose idle buffers may cover a/b/c
  std::optional<PacerVerdict> pacer = {};   // filled in when a decision says kAskPacer
  std::optional<bool> budget_granted = {};  // filled in when a decision says kAcquireBudget
};

enum class DispatchAction {
  kWaitForWork,      // the SynthesisQueue is empty: wait for a submission
  kWaitForCapacity,  // no free synthesis thread, or max_run_ahead reached: wait for a pickup or a synthesis end
  kAskPacer,         // capacity is there: fill in DispatchState::pacer and decide again
  kWaitUntil,        // the pacer holds the head until wake_at_s (or an event)
  kAcquireBudget,    // charge the head's bytes, fill in DispatchState::budget_granted and decide again
  kWaitForBudget,    // the budget did not grant the head: wait for a release
  kDispatch,         // send the head to synthesis now
};

struct DispatchDecision {
  DispatchAction action = DispatchAction::kWaitForWork;
  // DispatchPacer::SetHeld: the caller (capacity, budget), not the pacer,
  // holds the dispatch. Meaningless for kAskPacer.
  bool pacer_held = false;
  double wake_at_s = std::numeric_limits<double>::infinity();  // kWaitUntil: the pacer's next deadline
  bool take_idle_pinned = false;  // kAcquireBudget: an idle pinned buffer may cover the head's a/b/c
};

DispatchDecision DecideDispatch(const DispatchState& s);

// Bytes to ask the budget for the head: all of them, or all but the a/b/c
// part when an idle pinned buffer (already charged) was taken for it.
uint64_t BudgetCharge(const PartitionBytes& head, bool idle_pinned_taken);

const char* DispatchActionName(DispatchAction a);

}  // namespace cuzk::scheduler
