#pragma once
// Internals of scheduler::Pipeline, shared by pipeline.cpp (submission,
// cancellation, status, the dispatcher) and pipeline_stages.cpp (synthesis,
// GPU workers, finalizer). Not part of the public API.
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <stop_token>
#include <thread>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/dispatch_decision.hpp"
#include "scheduler/partition_queue.hpp"
#include "scheduler/pipeline.hpp"

namespace cuzk::scheduler {

using SteadyClock = std::chrono::steady_clock;

// absl's waits take absl::Time; the pipeline's deadlines are steady-clock points.
inline absl::Time AbslDeadline(SteadyClock::time_point t) {
  return absl::Now() + absl::FromChrono(t - SteadyClock::now());
}

// A submitted job while the pipeline holds any of it.
struct ActiveJob {
  uint64_t seq = 0;
  std::string id;
  Priority priority = Priority::kNormal;
  uint32_t partitions = 0;
  std::shared_ptr<JobWork> work;
  std::function<void(JobResult)> on_done;
  std::function<void()> on_started;
  std::function<void(uint32_t, const PartitionStatus&)> on_stage;
  std::function<void()> on_released;
  std::string kind;
  bool started = false;  // a partition was dispatched (guarded by Impl::mu)
  CancelToken cancel;
  bool active = true;  // false once completed, failed or cancelled (guarded by Impl::mu)
  // Holds on the job (guarded by Impl::mu): WorkItems on their way, and the
  // dispatcher while it waits for budget for one of its partitions. The job
  // is released (on_released) once it is inactive and this is 0.
  uint32_t in_flight = 0;
  bool released = false;
  std::vector<PartitionBytes> bytes;
  std::vector<PartitionStatus> status;
  std::vector<std::vector<uint8_t>> proofs;
  uint32_t finished = 0;
  SteadyClock::time_point submitted;
  std::optional<SteadyClock::time_point> first_synth_start;
  JobTimings timings;
};

// One dispatched partition on its way through the stages.
struct WorkItem {
  std::shared_ptr<ActiveJob> job;
  uint32_t partition = 0;
  memory::Reservation reservation;
  uint64_t abc_left = 0;           // a/b/c bytes still in `reservation` (not handed to a pinned buffer)
  memory::PinnedBuffer preleased;  // an idle pool buffer taken at dispatch (pinned_abc), until leased
  std::unique_ptr<StageData> data;
};

// Things to do once the lock is released: lines, destruction. (Callbacks go
// through Impl::Notify, which keeps their order.)
struct Deferred {
  std::vector<std::string> lines;
  std::vector<WorkItem> garbage;
  std::vector<std::shared_ptr<ActiveJob>> holds;  // end once the garbage above is freed (RetireLocked)
  std::vector<std::shared_ptr<JobWork>> works;    // released jobs' work (vanilla proofs, parameter leases)
  std::vector<std::function<void()>> released;    // their on_released, queued once the above are gone
};

struct Pipeline::Impl {
  Impl(PipelineConfig c, memory::Budget& b, memory::PinnedPool* p);

  double NowS() const { return std::chrono::duration<double>(SteadyClock::now() - start).count(); }
  double NowMs() const { return NowS() * 1e3; }
  void Line(Deferred& d, const char* event, const ActiveJob& job, const std::string& detail) const {
    if (config.timeline) d.lines.push_back(TimelineLine(NowMs(), event, job.id, detail));
  }
  void Flush(Deferred& d)
      ABSL_LOCKS_EXCLUDED(mu, notify_mu);  // without the lock: lines, garbage, then the notifications
  // Queue a callback; under mu, the queue order is the order of state changes.
  void Notify(std::function<void()> fn) ABSL_LOCKS_EXCLUDED(notify_mu);
  // Without mu: run queued callbacks unless another thread is already doing so.
  void DrainNotifications() ABSL_LOCKS_EXCLUDED(mu, notify_mu);
  void SetStageLocked(ActiveJob& job, uint32_t partition, PartitionStage stage) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void FailJobLocked(ActiveJob& job, JobOutcome outcome, const std::string& why, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void CompleteJobLocked(ActiveJob& job, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // A hold on the job ends: `item` goes to the garbage, and Flush drops the
  // hold only after freeing it, so a job released by another thread's hold
  // cannot report on_released while this item's bytes are still reserved. An
  // inactive job with no hold left is released (Flush frees its work, then
  // queues on_released).
  void RetireLocked(WorkItem&& item, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  // A partition leaves the pipeline early (error, cancellation, or its job
  // ended): it is marked failed or skipped, and an active job ends with it.
  void EndPartitionLocked(ActiveJob& job, uint32_t partition, const char* stage, const std::string& error, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void DropHoldLocked(ActiveJob& job, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void ReleaseIfIdleLocked(ActiveJob& job, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  void InterruptDispatchLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  uint64_t InSynthesisLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return synthesizing + synth_ready.size(); }
  void UpdatePacerQueuesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    pacer.SetQueues(NowS(), gpu_queue.size(), InSynthesisLocked());
  }
  PartitionContext Context(WorkItem& item) const;
  DispatchState DispatchStateLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);  // what DecideDispatch needs

  void DispatchLoop() ABSL_LOCKS_EXCLUDED(mu);
  void SynthesisLoop() ABSL_LOCKS_EXCLUDED(mu);
  void GpuLoop(unsigned worker, int device) ABSL_LOCKS_EXCLUDED(mu);
  void FinalizerLoop() ABSL_LOCKS_EXCLUDED(mu);

  const PipelineConfig config;
  memory::Budget& budget;
  memory::PinnedPool* const pinned;
  const SteadyClock::time_point start = SteadyClock::now();
  const unsigned gpu_worker_count;

  // Guards the queues and job states (ActiveJob's fields marked so, which
  // cannot name it); held briefly, never across a JobWork call, a sink call,
  // a callback or the destruction of stage data.
  mutable absl::Mutex mu;
  absl::CondVar dispatch_cv, synth_cv, gpu_cv, fin_cv;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  uint64_t next_seq ABSL_GUARDED_BY(mu) = 0;
  std::map<uint64_t, std::shared_ptr<ActiveJob>> jobs ABSL_GUARDED_BY(mu);  // active, by seq
  std::unordered_map<std::string, uint64_t> ids ABSL_GUARDED_BY(mu);
  SynthesisQueue<char> synthesis_queue ABSL_GUARDED_BY(mu);  // pending partitions (the job holds their state)
  std::deque<WorkItem> synth_ready ABSL_GUARDED_BY(mu);      // dispatched, waiting for a synthesis thread
  uint64_t synthesizing ABSL_GUARDED_BY(mu) = 0;             // inside Synthesize
  unsigned free_synth ABSL_GUARDED_BY(mu) = 0;               // threads neither busy nor promised to a dispatched item
  GpuQueue<WorkItem> gpu_queue ABSL_GUARDED_BY(mu);
  std::deque<WorkItem> fin_queue ABSL_GUARDED_BY(mu);
  std::vector<GpuWorkerStatus> gpu_workers ABSL_GUARDED_BY(mu);
  DispatchPacer pacer ABSL_GUARDED_BY(mu);
  std::optional<std::stop_source> dispatch_stop ABSL_GUARDED_BY(mu);  // the dispatcher's budget wait, interruptible
  std::optional<PartitionKey> dispatch_key ABSL_GUARDED_BY(mu);
  // The head waits in full for a/b/c an idle buffer could cover.
  bool dispatch_wants_idle_pinned ABSL_GUARDED_BY(mu) = false;
  uint64_t completed ABSL_GUARDED_BY(mu) = 0, failed ABSL_GUARDED_BY(mu) = 0, cancelled ABSL_GUARDED_BY(mu) = 0;
  bool accepting ABSL_GUARDED_BY(mu) = true;
  absl::CondVar jobs_cv;  // jobs changed (completion), threads exited
  unsigned running_threads ABSL_GUARDED_BY(mu) = 0;
  std::optional<bool> shutdown_result ABSL_GUARDED_BY(mu);

  absl::Mutex notify_mu ABSL_ACQUIRED_AFTER(mu);  // never held while calling out
  std::deque<std::function<void()>> notifications ABSL_GUARDED_BY(notify_mu);
  bool draining ABSL_GUARDED_BY(notify_mu) = false;

  // Filled by the constructor, joined by Shutdown (the caller's thread only).
  std::vector<std::thread> threads;
};

}  // namespace cuzk::scheduler
