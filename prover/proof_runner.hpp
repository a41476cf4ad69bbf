#pragma once
// ProofRunner: proves ProofJobs through scheduler::Pipeline: the priority
// synthesis pool, the DispatchPacer, memory::Budget backpressure, k GPU
// workers per device (a CudaBackend per device) or CPU-backend workers, and a
// finalizer that proves, verifies and merges. The work of a partition is
// PartitionWork (partition_work.hpp). It reports to a JobObserver (the
// JobTracker):
//
//   ProofRunner runner({.synthesis_threads = 4, .budget_bytes = 64ull << 30}, &tracker);
//   runner.Enqueue(job);       // JobExceedsBudgetError if a partition can never fit
//   runner.Cancel(job->id);    // at once in the pipeline: queued partitions dropped
//   runner.PipelineStatus();   // queues, workers, reserved bytes, pacer (for /status)
//
//  - on_started -> OnJobStarted; every stage change -> OnPartitionStage with
//    the partition's times so far.
//  - OnJobFinished comes from the pipeline's on_released: once it holds
//    nothing of the job (every stage call returned, every reservation and
//    pinned buffer released, the work with its vanilla proofs and parameter
//    lease destroyed). So after OnJobFinished, PipelineStatus() no longer
//    counts the job's bytes, and every OnPartitionStage of the job came before.
//  - Cancellation: Cancel(id) calls Pipeline::Cancel (the job's token is the
//    pipeline's); the job finishes kCancelled.
//  - Order: priority, then the order of Enqueue calls, then partition.
//
// Locking: mu_ guards the runner's records only; it is never held while
// calling the pipeline or the observer, and the pipeline calls back without
// its own locks held.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/key_image.hpp"
#include "memory/budget.hpp"
#include "memory/pinned_pool.hpp"
#include "prover/devices.hpp"
#include "prover/job.hpp"
#include "prover/job_tracker.hpp"
#include "prover/partition_work.hpp"
#include "scheduler/partition_work.hpp"
#include "scheduler/pipeline.hpp"

namespace cuzk::cuda {
class CudaBackend;  // CUDA builds only; named here for SettleKeyImageSpare
}  // namespace cuzk::cuda

namespace cuzk::prover {

// Options, free of the config format (daemon/config.cpp says which key sets which).
struct RunnerOptions {
  unsigned synthesis_threads = 1;     // partitions synthesized at the same time (>= 1)
  unsigned engine_threads = 0;        // threads of each engine call (witness, a/b/c, CPU NTT/MSM); 0 = all
  std::vector<int> gpu_devices = {};  // CUDA ordinals; empty: every device present (CUDA build)
  bool cpu_workers = false;           // true: CPU-backend workers even with GPUs present
  // Testing and drills ([testing] synthesis_delay_ms): every synthesis first
  // waits this long (a cancel ends the wait), so a job stays "running" for a
  // known time on any machine: on a GPU host a 2 KiB job is over before a
  // test can observe it running. 0 (the default) in production.
  std::chrono::milliseconds synthesis_delay{0};
  // The same for the GPU stage ([testing] gpu_delay): the worker holds the
  // partition this long before ProveStart, so GetStatus can be seen naming it.
  std::chrono::milliseconds gpu_delay{0};
  unsigned workers_per_device = 2;  // GPU workers per device
  // Each GPU's Prepare builds the H bases' window shifts when it has room
  // (cuda::CudaBackendOptions::shifted_h; config gpus.shifted_h_bases).
  bool shifted_h_bases = true;
  // A set loaded straight to the GPUs from its key image starts proving once
  // H is resident; the witness bases stream on behind it and the witness
  // MSMs wait for them (cuda::CudaBackendOptions::early_proving; config
  // gpus.early_proving).
  bool early_proving = true;
  // A partition's witness MSMs (A, B_g1, L, B_g2) on a scratch of their own,
  // so the next GPU worker's H MSM runs beside them
  // (cuda::CudaBackendOptions::witness_beside_h; config gpus.witness_beside_h).
  bool witness_beside_h = true;
  // The form of H key images hold and a key image load reads: "always"
  // (compressed only), "auto" (both; compressed unless the plain one is in
  // the page cache), "never" (plain only) (cuda::CudaBackendOptions::
  // compressed_h, KeyImageHForGpus; config gpus.compressed_h).
  std::string compressed_h = "always";
  unsigned cpu_backend_workers = 1;  // workers when there is no GPU (each engine call already uses engine_threads)
  std::optional<uint64_t> budget_bytes = std::nullopt;  // nullopt: MemTotal - safety_margin
  // The prover's budget (shared with the SrsRegistry, which charges the
  // parameter sets to it); must outlive the runner. nullptr: the runner makes
  // its own from budget_bytes / safety_margin.
  memory::Budget* budget = nullptr;
  // The SrsRegistry charges parameter sets to the budget: a job whose
  // partition plus its parameter set exceed it is refused at once.
  bool parameters_in_budget = false;
  uint64_t safety_margin = 5ull << 30;
  double pacer_target = 0;     // partitions waiting for a GPU worker; 0 = scheduler default (8)
  unsigned max_run_ahead = 0;  // most partitions synthesizing or queued for a GPU; 0 = no ceiling
  unsigned finalizer_threads = 1;
  // GPU workers: a/b/c are written into page-locked buffers of a PinnedPool
  // charged to the budget and reused across partitions. At most
  // pinned_limit bytes are page-locked (past it a buffer is plain memory,
  // freed after use) and kept idle; the budget's evictor frees idle buffers
  // under pressure. false, or CPU-backend workers: pageable vectors.
  bool pinned_abc = true;
  uint64_t pinned_limit = 16ull << 30;
  // GPU workers, bellperson keys: synthesis computes only the witness and the
  // CudaBackend evaluates a/b/c on the device (PartitionWork, SynthesisForm).
  // false: a/b/c on the host (pinned_abc decides where).
  bool witness_only = true;
  // Witness-only with CPU-backend workers too (the CpuBackend then evaluates
  // a/b/c in ProveStart): for tests of that path on machines without a GPU.
  bool witness_only_on_cpu_workers = false;
  // The pinned path with CPU-backend workers too (plain aligned memory
  // without a GPU): for tests of the pool's accounting on machines without a GPU.
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

struct RunnerCounts {
  struct PerKind {
    uint32_t pending = 0;      // jobs not started
    uint32_t in_progress = 0;  // jobs started and not yet let go of
  };
  std::map<JobKind, PerKind> by_kind;
  uint32_t workers = 0;       // synthesis threads
  uint32_t busy_workers = 0;  // ... synthesizing now
};

class ProofRunner final : public JobCanceller {
 public:
  // std::invalid_argument for bad options; std::runtime_error when a
  // configured CUDA device cannot be opened or "auto" cannot read /proc/meminfo.
  // Without CUDA (or with cpu_workers) configured devices are ignored with a warning.
  ProofRunner(const RunnerOptions& options, JobObserver* observer);
  ~ProofRunner() override;
  ProofRunner(const ProofRunner&) = delete;
  ProofRunner& operator=(const ProofRunner&) = delete;

  // Throws JobExceedsBudgetError, std::invalid_argument (a kind this runner
  // does not prove), std::runtime_error once Shutdown has begun.
  void Enqueue(std::shared_ptr<ProofJob> job);
  // Jobs ahead of this one in start order (0 = next); nullopt once it started (or is unknown).
  std::optional<uint32_t> QueuePosition(const std::string& job_id) const;
  bool RemoveQueued(const std::string& job_id) override;
  bool Cancel(const std::string& job_id) override;
  RunnerCounts Counts() const;
  // Stops accepting, drops jobs that have not started (OnJobFinished
  // kCancelled), lets started ones run until `deadline`, then cancels them.
  // False when a worker is still inside an engine call (which cannot be
  // interrupted): the caller exits without destroying the runner.
  bool Shutdown(std::chrono::steady_clock::time_point deadline);

  scheduler::PipelineStatus PipelineStatus() const { return pipeline_->Status(); }
  // The CUDA devices the workers prove on (empty: CPU-backend workers).
  const std::vector<int>& devices() const { return devices_; }
  // GpuInfo's backend fields for its device (nothing without a backend
  // there); never waits for a key's upload (CudaBackend::StatsNow).
  void FillHeld(GpuInfo& gpu) const;
  uint64_t budget_bytes() const { return budget_->capacity(); }
  // Per device: partitions, ProveStart time, host-to-device bytes and rates (log lines).
  void LogGpuTransfers() const;
  // Uploads a parameter set that has just loaded to every GPU, in the
  // background (CudaBackend::Prepare: the bases, and for witness-only
  // proving the compact circuit), so the first partitions start warm
  // instead of paying the upload (32 GiB: 14.8 s for the first partition).
  // A GPU_PREPARE line per device. Nothing to do without GPUs.
  // When every device's preparation is over and every GPU holds the set
  // (Backend::HoldsOnDevice), all_hold(circuit_too) runs on the last
  // preparer's thread (the Prover hands it to SrsRegistry::DevicesHold,
  // which gives the host copy back). circuit_too: the GPUs hold the compact
  // circuit and synthesis computes only witnesses (never the matrices).
  // Either way, params->devices_prepared is notified when it is over.
  using AllHold = std::function<void(bool circuit_too)>;
  void PrepareDevices(std::shared_ptr<const LoadedParams> params, AllHold all_hold = {});
  // Puts a key's bases straight from its image into every GPU at once
  // (CudaBackend::LoadKeyImage; SrsRegistry::SetKeyToDevices): true when
  // every GPU holds all of them; false (no GPU keeps any) when one cannot or
  // there are none; util::CacheError (nothing kept) for a damaged image. A
  // GPU_KEY_IMAGE line per device.
  // `compact`: the set's compact circuit once read (SrsRegistry::CompactSource),
  // uploaded by every GPU beside the key's stream.
  // With early_proving each GPU returns once H is resident and streams the
  // witness sections behind it (a GPU_KEY_LANDED line each when they land;
  // the upload buffers' charge is kept until then); `broken` is called if
  // they fail to land (SrsRegistry::DevicesBroken).
  bool LoadKeyImage(const groth16::ProvingKey& shell, std::shared_ptr<const groth16::KeyImageStream> image,
                    uint64_t circuit_bytes, const SrsRegistry::CompactSource& compact = {},
                    const SrsRegistry::DevicesBroken& broken = {});
  // LoadKeyImage's page-locked buffers made now, in the background
  // (CudaBackend::PrepareKeyImageBuffers), so the first load does not wait
  // for them (0.7 s of a 32 GiB daemon's start-to-first-proof). Once.
  // They are charged to the budget (KeyImageBufferBytes a GPU) until a load
  // or a Prepare on that GPU frees them; a later load charges its own for
  // its duration.
  void PrepareKeyImageBuffers();
  // The page-locked host bytes of one GPU's key image upload: KeyImageThreads
  // workers x 2 buffers of groth16::KeyImageStream::BufferBytes() (1.5 GB
  // with 16 workers).
  uint64_t KeyImageBufferBytes() const;
  // Whether PrepareDevices puts compact circuits on GPUs (witness-only
  // proving on at least one GPU): the registry then reads and writes their
  // images (SrsRegistry::SetCompactCircuits), and a set's LoadedParams::
  // compact, when it has one, spares each GPU building it.
  bool PreparesCompactCircuits() const;
  // The forms of H its GPUs read from a key image (RunnerOptions::
  // compressed_h: never -> plain, always -> compressed, auto -> both), for
  // the image writer (SrsImageCache::SetKeyImageH); plain without GPUs.
  groth16::KeyImageH KeyImageHForGpus() const;
  // Drops every GPU's copy of a set that is about to be destroyed
  // (CudaBackend::ForgetKey: its bases and compact circuit, 38 GB at 32 GiB),
  // so the next set loaded finds the device memory free instead of streaming
  // its bases. Waits for proofs in progress on each device. A GPU_FORGET line
  // per device that held it.
  void ForgetOnDevices(const LoadedParams& params);

 private:
  struct Record {
    std::string id;
    JobKind kind = JobKind::kSnapDeals;
    bool started = false;
    std::optional<JobResult> result;  // on_done arrived
  };

  groth16::Backend& BackendFor(int device);
  unsigned KeyImageThreads(size_t devices) const;
  void Forget(uint64_t key);  // a job the pipeline refused
  void OnStarted(uint64_t key);
  void OnDone(uint64_t key, JobResult result);
  void OnReleased(uint64_t key);

  const RunnerOptions options_;
  JobObserver* const observer_;
  const std::vector<int> devices_;
  groth16::CpuBackend cpu_backend_;                                // stateless: shared by the CPU-backend workers
  std::map<int, std::unique_ptr<groth16::Backend>> gpu_backends_;  // one per device, created once
  std::unique_ptr<memory::Budget> owned_budget_;                   // when the options bring none
  memory::Budget* const budget_;                                   // outlives the pipeline (declared before it)
  std::optional<memory::PinnedPool> pinned_;                       // GPU workers' a/b/c buffers; outlives the pipeline
  SynthesisForm preferred_form_ = SynthesisForm::kAbcVectors;

  mutable absl::Mutex mu_;
  std::map<uint64_t, Record> records_ ABSL_GUARDED_BY(mu_);    // by key: enqueued and not yet released
  std::map<std::string, uint64_t> keys_ ABSL_GUARDED_BY(mu_);  // job id -> key, while queued
  uint64_t next_key_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Mutex prepare_mu_;
  // One thread per device and load. A finished one is joined by the next
  // PrepareDevices (a daemon that loads and evicts sets for months keeps
  // only the running ones), the rest by the destructor.
  struct Preparer {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Preparer> preparers_ ABSL_GUARDED_BY(prepare_mu_);
  // The budget's charge for each GPU's spare key image buffers (made by
  // PrepareKeyImageBuffers, freed by the GPU's first LoadKeyImage or Prepare).
  absl::Mutex key_image_mu_;
  bool key_image_spares_made_ ABSL_GUARDED_BY(key_image_mu_) = false;
  std::map<int, memory::Reservation> key_image_spares_ ABSL_GUARDED_BY(key_image_mu_);
  // The spare's charge of `device` if it still has one, else an empty reservation.
  memory::Reservation TakeKeyImageSpare(int device) ABSL_LOCKS_EXCLUDED(key_image_mu_);
  // After a load or a Prepare on `device`: while `gpu` still holds the spare
  // buffers (CudaBackend::HoldsKeyImageSpare, asked under key_image_mu_, so
  // a concurrent Prepare that frees them cannot be missed), the spare's
  // charge stays (`charge` becomes it when there is none); once they are
  // gone, so is the charge. `charge` is released otherwise.
  void SettleKeyImageSpare(int device, const cuda::CudaBackend& gpu, memory::Reservation charge)
      ABSL_LOCKS_EXCLUDED(key_image_mu_);

  std::unique_ptr<scheduler::Pipeline> pipeline_;  // last: destroyed (threads joined) first
};

}  // namespace cuzk::prover
