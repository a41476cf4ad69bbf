#pragma once
// scheduler::Pipeline: the threaded proving pipeline.
//
//   memory::Budget budget(memory::AutoBudgetBytes());
//   memory::PinnedPool pinned(budget);
//   scheduler::Pipeline pipeline({.synthesis_threads = 32, .gpu_devices = {0, 1}}, budget, &pinned);
//   pipeline.Submit({.id = "snap-1000-7", .priority = Priority::kNormal, .partitions = 16,
//                    .work = std::make_shared<SnapWork>(...),
//                    .on_done = [](JobResult r) { ... }});   // called exactly once
//   pipeline.Cancel("snap-1000-7");
//
// Threads: one dispatcher (DispatchPacer + budget, in strict priority order),
// N synthesis threads, k GPU workers per device, F finalizers (default 1).
// A partition: SynthesisQueue -> [pacer, budget.Acquire(total)] -> Synthesize
// -> GpuQueue -> GpuStart on a worker (a/b/c bytes released when it returns)
// -> finalizer: Finish, Verify, release the rest -> merged in partition order
// when all are done. A failed stage fails its job once (on_done kFailed);
// queued siblings are dropped at once, running ones at their next stage;
// every reservation is released. Cancel does the same with kCancelled.
// Locking: one mutex guards the queues and job states; the work itself,
// timeline sink calls, on_done callbacks and the destruction of stage data
// (large buffers) all happen outside it, so a GPU worker never waits behind
// a finalizer's verification or a free().
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memory/budget.hpp"
#include "memory/pinned_pool.hpp"
#include "scheduler/dispatch_pacer.hpp"
#include "scheduler/job.hpp"
#include "scheduler/partition_work.hpp"
#include "scheduler/priority.hpp"
#include "scheduler/timeline.hpp"

namespace cuzk::scheduler {

struct PipelineConfig {
  unsigned synthesis_threads = 4;
  std::vector<int> gpu_devices = {0};  // device ordinals; empty: CPU-backend workers (device -1)
  unsigned gpu_workers_per_device = 2;
  unsigned finalizer_threads = 1;
  PacerConfig pacer;
  TimelineSink timeline;            // TIMELINE / GPU_TIMING / FIN_TIMING / PACER lines; may be empty
  unsigned pacer_status_every = 5;  // a PACER line every this many dispatches (0: never)
  // Nice increment of the synthesis threads (Linux; inherited by the threads
  // each engine call spawns). Synthesis of several partitions at once uses
  // every core, and the GPU workers' host-side steps (launches, the pageable
  // witness copy, MSM window sums) then wait for a core: on the H200 host 3
  // synthesizing 8 MiB partitions stretched a 275 ms GPU start to 440 ms.
  // 0: same priority as the rest of the process.
  int synthesis_nice = 10;
  // Most partitions dispatched ahead of the GPU workers: synthesizing, or
  // synthesized and waiting in the GPU queue (0: no ceiling beyond the
  // budget). A hard stop beside the pacer's target: the pacer learns of a
  // stalled GPU only through missing completions, and on the H200 it let 31
  // partitions run ahead during one 19.6 s GPU start (docs/perf/gpu.md,
  // daemon run 2).
  unsigned max_run_ahead = 0;
};

// Notifications are delivered in the order the pipeline's state changed (one
// queue for all jobs, drained by one thread at a time), without any pipeline
// lock held: a job's on_started and on_stage calls all come before its
// on_done. They run on pipeline threads (or the caller of Cancel/Shutdown):
// keep them quick; they may call Status/QueuePosition/Submit/Cancel, not
// Shutdown or the destructor.
// Every member has an initializer so that designated initializers may omit any
// (no -Wmissing-field-initializers).
struct JobRequest {
  std::string id = {};
  Priority priority = Priority::kNormal;
  uint32_t partitions = 1;
  std::shared_ptr<JobWork> work = {};
  std::function<void(JobResult)> on_done = {};  // exactly once (unless taken back by RemoveQueued)
  std::function<void()> on_started = {};        // optional: the first partition was dispatched
  // optional: every stage change, with the partition's times so far
  std::function<void(uint32_t partition, const PartitionStatus& status)> on_stage = {};
  std::string kind = {};  // optional label, echoed in JobStatus (e.g. "SNAP_DEALS_UPDATE")
  // The job's token: cancelling it cancels the job in the pipeline at once
  // (as Cancel(id) does; no polling), and the stages see it in their context.
  CancelToken cancel = {};
  // Optional: after on_done, once the pipeline holds nothing of the job:
  // every stage call has returned, every reservation and pinned buffer is
  // released, and the JobWork is destroyed. Not called for a job taken back
  // by RemoveQueued.
  std::function<void()> on_released = {};
};

struct JobStatus {
  std::string id;
  std::string kind;
  Priority priority = Priority::kNormal;
  bool started = false;  // a partition was dispatched
  double age_ms = 0;
  std::vector<PartitionStatus> partitions;
};

struct GpuWorkerStatus {
  unsigned worker = 0;
  int device = -1;
  bool busy = false;
  std::string job_id;
  int partition = -1;
};

struct PipelineStatus {
  std::vector<JobStatus> jobs;  // active jobs, in submission order
  uint64_t synthesis_queue = 0, synthesizing = 0, gpu_queue = 0, finalizer_queue = 0;
  unsigned synthesis_threads = 0;
  std::vector<GpuWorkerStatus> gpu_workers;
  uint64_t budget_bytes = 0, reserved_bytes = 0, peak_reserved_bytes = 0;
  memory::PinnedPoolStats pinned;
  bool has_pinned_pool = false;
  PacerState pacer;
  uint64_t jobs_completed = 0, jobs_failed = 0, jobs_cancelled = 0;
};

class Pipeline {
 public:
  // budget (and pinned, if given) must outlive the pipeline.
  Pipeline(PipelineConfig config, memory::Budget& budget, memory::PinnedPool* pinned = nullptr);
  // Cancels every active job (on_done kCancelled) and joins the threads.
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Nothing is queued when it throws: std::invalid_argument (empty or active
  // duplicate id, no work, 0 partitions, abc > total), memory::BudgetExceededError
  // (a partition larger than the whole budget: RESOURCE_EXHAUSTED), std::runtime_error
  // after Shutdown.
  void Submit(JobRequest request);
  // True when the job was active (its on_done then reports kCancelled).
  bool Cancel(std::string_view job_id);
  // Jobs that will start before this one (0 = next): active jobs none of
  // whose partitions was dispatched, in priority then submission order.
  // nullopt once it started, or for an unknown id.
  std::optional<uint32_t> QueuePosition(std::string_view job_id) const;
  // Takes back a job none of whose partitions was dispatched: it is removed
  // without on_done (the caller finishes it). False if it started or is unknown.
  bool RemoveQueued(std::string_view job_id);
  PipelineStatus Status() const;
  // Stops accepting jobs, cancels those not started, lets started ones run
  // until `drain_until`, cancels what is left, then waits until about a
  // second past it for the threads to leave the work they are in. True when
  // every thread has stopped (and was joined); false when one is still inside
  // a JobWork call that does not return: the pipeline must then not be
  // destroyed (the process exits instead). Later calls return the same.
  bool Shutdown(std::chrono::steady_clock::time_point drain_until);
  // Shutdown(now), then joins whatever is still running (blocks). The
  // destructor calls it.
  void Shutdown();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::scheduler
