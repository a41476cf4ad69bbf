#pragma once
// A key's witness bases (L, A, B_g1, B_g2) still streaming to the device
// after CudaBackend::LoadKeyImage returned (CudaBackendOptions::
// early_proving: issue 17's cold start, docs/perf/cold-start-next.md), and
// the proofs whose witness MSMs wait for them: a gate that opens once (Land:
// the sections are on the device) or fails once (Fail: they could not be
// loaded), with the work queued before it.
//
//   WitnessLanding landing;                      // streaming
//   if (!landing.Defer(task)) RunItNow();        // ProveStart: queued, or run by the caller once landed
//   ...
//   landing.Land();                              // the landing thread: runs the queue in order, here
//
// Host code only, so its rules are unit-tested without a GPU
// (tests/gpu/witness_landing_test.cpp). Its mutex is a leaf: no task or
// callback runs under it, so a task may take any of the backend's locks.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace cuzk::cuda {

class WitnessLanding {
 public:
  struct Task {
    // The deferred work. Reports its own result; should it throw anyway,
    // `fail` gets what it threw (a waiter must never be left hanging).
    std::function<void()> run;
    std::function<void(std::exception_ptr)> fail;  // the load failed (or run threw): tell the waiter
    // Unset, or true once the work is not wanted any more (its job was
    // cancelled): Land then tells `fail` (CancelledBeforeLanding) instead of
    // running it. Called on the landing thread, without the gate's lock.
    std::function<bool()> cancelled;
  };
  // What a task's `fail` gets when Land skipped it for its `cancelled`.
  class CancelledBeforeLanding : public std::runtime_error {
   public:
    CancelledBeforeLanding() : std::runtime_error("cancelled before the key's witness bases landed: not run") {}
  };
  enum class State { kStreaming, kLanded, kFailed };

  // Streaming: queues `task` and returns true. Landed: returns false and
  // keeps nothing (the caller does the work now). Failed: rethrows the
  // load's error, keeping nothing.
  bool Defer(Task task);

  // Once, on the landing thread, when the sections are on the device: from
  // now on Defer returns false; the tasks queued before run here, in the
  // order they were queued (a cancelled one is told instead); then Wait
  // returns. Returns how many were queued (run or told).
  size_t Land();
  // Once, on the landing thread, instead of Land: every queued task's
  // `fail` gets `error`, in order, and later Defer calls rethrow it; then
  // Wait returns. Returns how many were told.
  size_t Fail(std::exception_ptr error);

  // Blocks until Land has run the queued tasks or Fail has told them.
  void Wait() const;
  State state() const;
  std::exception_ptr error() const;  // Fail's, or null
  size_t queued() const;             // tasks waiting now

 private:
  static void RunOrFail(Task& task);
  void Finish();

  mutable std::mutex mu_;
  mutable std::condition_variable done_cv_;
  State state_ = State::kStreaming;
  bool done_ = false;  // Land ran the queue, or Fail told it
  std::exception_ptr error_;
  std::vector<Task> queue_;
};

}  // namespace cuzk::cuda
