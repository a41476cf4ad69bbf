#pragma once
// PipelineProofRunner: the daemon's ProofRunner on scheduler::Pipeline (issue
// 7): per-partition priority synthesis pool, DispatchPacer, memory::Budget
// backpressure, k GPU workers per device (CudaBackend, one per device) or
// CPU-backend workers, a finalizer that proves, verifies and merges. Same
// contract as the CPU runner (proof_runner.hpp); the work of a partition is
// PartitionWork (pipeline_partition_work.hpp), the engine calls the same as
// the CPU runner's (partition_steps.hpp).
//
//   auto runner = MakePipelineProofRunner({.synthesis_threads = 4, .budget_bytes = 64ull << 30}, &tracker);
//   runner->Enqueue(job);      // memory::BudgetExceededError (JobExceedsBudgetError) if a partition can never fit
//   runner->PipelineStatus();  // queues, workers, reserved bytes, pacer (for /status)
//
// How the pipeline's notifications become JobObserver calls:
//  - on_started -> OnJobStarted; on_stage -> OnPartitionStage (dispatched and
//    synthesizing -> kSynthesizing, synth_done -> kSynthDone, gpu -> kGpu,
//    finalizing -> kVerifying, done, failed, skipped -> kCancelled); before a
//    partition's last stage, OnPartitionTimes with its times.
//  - on_done only records the outcome. OnJobFinished comes once the pipeline
//    has let go of the job entirely (the PartitionWork is destroyed: every
//    stage call has returned, every reservation is released, every
//    notification delivered), from the runner's own thread; the runner's
//    references (vanilla proofs, parameter lease) are dropped before it. So
//    after OnJobFinished, PipelineStatus() no longer counts the job's bytes,
//    and every OnPartitionStage of the job came before it (also those of
//    partitions skipped after on_done: a running one ends kCancelled).
//  - Cancellation: the daemon sets the job's CancelToken; the runner notices
//    at the next stage boundary of any partition, or within ~100 ms from its
//    own thread, and cancels the job in the pipeline (queued partitions are
//    dropped at once, running ones at their next boundary). A job whose token
//    is set finishes kCancelled, as with the CPU runner.
//  - Timings: srs_load_ms (longest), synthesis_ms, gpu_ms (ProveStart +
//    ProveFinish), verify_ms summed over partitions as the work measured
//    them; queue_wait_ms from ProofJob::submitted to the first synthesis start;
//    total_ms from ProofJob::submitted to the pipeline's completion.
//  - Order: priority, then the order of Enqueue calls (the pipeline's
//    sequence; the service enqueues in ProofJob::sequence order), then partition.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/proof_runner.hpp"
#include "memory/budget.hpp"
#include "scheduler/partition_work.hpp"
#include "scheduler/pipeline.hpp"

namespace cuzk::daemon {

// Options, free of the config format. Where the config keys go:
//   [synthesis] threads          -> engine_threads (threads of one engine call, today's meaning)
//   [pipeline] max_parallel_synthesis (or synthesis_concurrency) -> synthesis_threads
//   [gpus] devices               -> gpu_devices ([] = all present)
//   [gpus] gpu_workers_per_device -> workers_per_device
//   (no key yet)                 -> cpu_backend_workers (1: today's CPU runner proves one partition at a time)
//   [memory] total_budget        -> budget_bytes (nullopt = "auto"), [memory] safety_margin -> safety_margin
//   [pipeline] max_gpu_queue_depth -> pacer_target (cuzk's 0 = "pacer off" has no equivalent: 0 = the default 8)
struct PipelineRunnerOptions {
  unsigned synthesis_threads = 1;      // partitions synthesized at the same time (>= 1)
  unsigned engine_threads = 0;         // threads of each engine call (witness, a/b/c, CPU NTT/MSM); 0 = all
  std::vector<int> gpu_devices = {};   // CUDA ordinals; empty: every device present (CUDA build)
  bool cpu_workers = false;            // true: CPU-backend workers even with GPUs present
  unsigned workers_per_device = 2;     // GPU workers per device
  unsigned cpu_backend_workers = 1;    // workers when there is no GPU (each engine call already uses engine_threads)
  std::optional<uint64_t> budget_bytes = std::nullopt;  // nullopt: MemTotal - safety_margin
  // The daemon's budget (shared with the SrsRegistry, which charges the
  // parameter sets to it); must outlive the runner. nullptr: the runner makes
  // its own from budget_bytes / safety_margin.
  memory::Budget* budget = nullptr;
  // The SrsRegistry charges parameter sets to the budget: a job whose
  // partition plus its parameter set exceed it is refused at once.
  bool parameters_in_budget = false;
  uint64_t safety_margin = 5ull << 30;
  double pacer_target = 0;             // partitions waiting for a GPU worker; 0 = scheduler default (8)
  unsigned max_run_ahead = 0;          // most partitions synthesizing or queued for a GPU; 0 = no ceiling
  unsigned finalizer_threads = 1;
  // GPU workers: a/b/c are written into page-locked buffers of a PinnedPool
  // charged to the budget and reused across partitions. At most
  // pinned_limit bytes are page-locked (past it a buffer is plain memory,
  // freed after use) and kept idle; the budget's evictor frees idle buffers
  // under pressure. false, or CPU-backend workers: pageable vectors.
  bool pinned_abc = true;
  uint64_t pinned_limit = 16ull << 30;
  // The pinned path with CPU-backend workers too (plain aligned memory
  // without a GPU; the CPU backend copies a/b/c into vectors for its NTTs):
  // for tests of the pool's accounting on machines without a GPU.
  bool pinned_abc_on_cpu_workers = false;
  scheduler::TimelineSink timeline = {};  // TIMELINE/GPU_TIMING/FIN_TIMING/PACER lines; empty: spdlog info
};

// A job one of whose partitions needs more bytes than the whole memory
// budget: it can never run (the service maps memory::BudgetExceededError to
// RESOURCE_EXHAUSTED). Thrown by Enqueue; nothing was queued.
class JobExceedsBudgetError : public memory::BudgetExceededError {
 public:
  JobExceedsBudgetError(const std::string& job_id, const scheduler::PartitionBytes& bytes, uint64_t capacity,
                        uint64_t params_bytes = 0);
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

class PipelineProofRunner : public ProofRunner {
 public:
  // Queues, workers, reserved/peak bytes, pacer state, per-job partition stages.
  virtual scheduler::PipelineStatus PipelineStatus() const = 0;
  // The CUDA devices the workers prove on (empty: CPU-backend workers).
  virtual const std::vector<int>& devices() const = 0;
  virtual uint64_t budget_bytes() const = 0;
};

// std::invalid_argument for bad options; std::runtime_error when a
// configured CUDA device cannot be opened or "auto" cannot read /proc/meminfo.
// Without CUDA (or with cpu_workers) configured devices are ignored with a warning.
std::unique_ptr<PipelineProofRunner> MakePipelineProofRunner(const PipelineRunnerOptions& options,
                                                             JobObserver* observer);

}  // namespace cuzk::daemon
