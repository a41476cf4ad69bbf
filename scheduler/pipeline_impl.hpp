#pragma once
// Internals of scheduler::Pipeline, shared by pipeline.cpp (submission,
// cancellation, status, the dispatcher) and pipeline_stages.cpp (synthesis,
// GPU workers, finalizer). Not part of the public API.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <unordered_map>

#include "scheduler/dispatch_decision.hpp"
#include "scheduler/partition_queue.hpp"
#include "scheduler/pipeline.hpp"

namespace cuzk::scheduler {

using SteadyClock = std::chrono::steady_clock;

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
  uint64_t abc_left = 0;  // a/b/c bytes still in `reservation` (not handed to a pinned buffer)
  memory::PinnedBuffer preleased;  // an idle pool buffer taken at dispatch (pinned_abc), until leased
  std::unique_ptr<StageData> data;
};

// Things to do once the lock is released: lines, destruction. (Callbacks go
// through Impl::Notify, which keeps their order.)
struct Deferred {
  std::vector<std::string> lines;
  std::vector<WorkItem> garbage;
  std::vector<std::shared_ptr<JobWork>> works;     // released jobs' work (vanilla proofs, parameter leases)
  std::vector<std::function<void()>> released;     // their on_released, queued once the above are gone
};

struct Pipeline::Impl {
  Impl(PipelineConfig c, memory::Budget& b, memory::PinnedPool* p);

  double NowS() const { return std::chrono::duration<double>(SteadyClock::now() - start).count(); }
  double NowMs() const { return NowS() * 1e3; }
  void Line(Deferred& d, const char* event, const ActiveJob& job, const std::string& detail) const {
    if (config.timeline) d.lines.push_back(TimelineLine(NowMs(), event, job.id, detail));
  }
  void Flush(Deferred& d);  // without the lock: lines, garbage, then the notifications
  // Under mu: queue a callback; the queue order is the order of state changes.
  void Notify(std::function<void()> fn);
  // Without mu: run queued callbacks unless another thread is already doing so.
  void DrainNotifications();
  void SetStageLocked(ActiveJob& job, uint32_t partition, PartitionStage stage);
  void FailJobLocked(ActiveJob& job, JobOutcome outcome, const std::string& why, Deferred& d);
  void CompleteJobLocked(ActiveJob& job, Deferred& d);
  // A hold on the job ends: `item` (if any) goes to the garbage, and an
  // inactive job with no hold left is released (Flush frees its work, then
  // queues on_released after the garbage is gone).
  void RetireLocked(WorkItem&& item, Deferred& d);
  // A partition leaves the pipeline early (error, cancellation, or its job
  // ended): it is marked failed or skipped, and an active job ends with it.
  void EndPartitionLocked(ActiveJob& job, uint32_t partition, const char* stage, const std::string& error,
                          Deferred& d);
  void DropHoldLocked(ActiveJob& job, Deferred& d);
  void ReleaseIfIdleLocked(ActiveJob& job, Deferred& d);
  void InterruptDispatchLocked();
  uint64_t InSynthesisLocked() const { return synthesizing + synth_ready.size(); }
  void UpdatePacerQueuesLocked() { pacer.SetQueues(NowS(), gpu_queue.size(), InSynthesisLocked()); }
  PartitionContext Context(WorkItem& item) const;

  DispatchState DispatchStateLocked() const;  // what DecideDispatch needs, under mu
  void DispatchLoop();
  void SynthesisLoop();
  void GpuLoop(unsigned worker, int device);
  void FinalizerLoop();

  const PipelineConfig config;
  memory::Budget& budget;
  memory::PinnedPool* const pinned;
  const SteadyClock::time_point start = SteadyClock::now();
  const unsigned gpu_worker_count;

  mutable std::mutex mu;
  std::condition_variable dispatch_cv, synth_cv, gpu_cv, fin_cv;
  bool stopping = false;
  uint64_t next_seq = 0;
  std::map<uint64_t, std::shared_ptr<ActiveJob>> jobs;  // active, by seq
  std::unordered_map<std::string, uint64_t> ids;
  SynthesisQueue<char> synthesis_queue;                // pending partitions (the job holds their state)
  std::deque<WorkItem> synth_ready;                    // dispatched, waiting for a synthesis thread
  uint64_t synthesizing = 0;                           // inside Synthesize
  unsigned free_synth = 0;                             // threads neither busy nor promised to a dispatched item
  GpuQueue<WorkItem> gpu_queue;
  std::deque<WorkItem> fin_queue;
  std::vector<GpuWorkerStatus> gpu_workers;
  DispatchPacer pacer;
  std::optional<std::stop_source> dispatch_stop;       // the dispatcher's budget wait, interruptible
  std::optional<PartitionKey> dispatch_key;
  bool dispatch_wants_idle_pinned = false;             // the head waits in full for a/b/c an idle buffer could cover
  uint64_t completed = 0, failed = 0, cancelled = 0;
  bool accepting = true;
  std::condition_variable jobs_cv;                     // jobs changed (completion), threads exited
  unsigned running_threads = 0;
  std::optional<bool> shutdown_result;

  std::mutex notify_mu;                                // after mu in lock order; never held while calling out
  std::deque<std::function<void()>> notifications;     // guarded by notify_mu
  bool draining = false;                               // guarded by notify_mu

  std::vector<std::thread> threads;
};

}  // namespace cuzk::scheduler
