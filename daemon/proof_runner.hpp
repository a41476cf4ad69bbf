#pragma once
// ProofRunner: the seam between the daemon's job bookkeeping (JobTracker,
// gRPC service) and whatever executes proofs. The daemon hands it validated
// jobs in engine types (no protobuf) and hears back through a JobObserver.
// Today's implementation is CpuProofRunner (a small thread pool: witness,
// CPU Groth16, self-verification, per partition); the scheduler/ pipeline
// (pacer, byte budget, GPU workers) replaces it behind this interface.
//
//   auto runner = MakeCpuProofRunner({.workers = 1, .threads = 0}, &observer);
//   runner->Enqueue(job);                          // job->cancel is its CancelToken
//   runner->QueuePosition(job->id);                // 0 = next to start
//   if (!runner->RemoveQueued(id)) job->cancel->Cancel();   // running: stops at its next stage boundary
//   runner->Shutdown(deadline);                    // queued jobs dropped, started ones get until deadline
//
// Contract:
//  - Ordering: priority (CRITICAL first), then submission sequence, then partition.
//  - Exactly one OnJobFinished per enqueued job, except jobs taken back by a
//    successful RemoveQueued (the caller finishes those itself).
//  - A cancelled token is checked between stages (synthesis, prove-start,
//    prove-finish, verification); the job then finishes as kCancelled and
//    every reference the runner held to it (vanilla proofs, parameter lease)
//    is dropped.
//  - Callbacks run on runner threads; they must be quick and must not call
//    back into the runner.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/srs_registry.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof.hpp"
#include "engine/r1cs/assignment.hpp"

namespace cuzk::daemon {

class CancelToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

// The proof kinds the daemon knows; names as in the proto ("SNAP_DEALS_UPDATE").
enum class JobKind { kPoRep = 1, kSnapDeals = 2, kWindowPost = 3, kWinningPost = 4, kGenericR1cs = 100 };
const char* JobKindName(JobKind kind);

// 1 LOW .. 4 CRITICAL (proto Priority values; 0 is resolved before a job is built).
using JobPriority = int;

struct ProofJob {
  std::string id;
  JobKind kind = JobKind::kSnapDeals;
  JobPriority priority = 2;
  uint64_t sequence = 0;  // submission order
  std::chrono::steady_clock::time_point submitted;
  // SNAP_DEALS_UPDATE
  filecoin::SectorShape shape;
  filecoin::Commitments commitments;
  std::vector<filecoin::PartitionProof> partitions;  // k order
  // GENERIC_R1CS: the full assignment (ONE, public inputs, aux), one "partition"
  r1cs::Assignment witness;
  SrsRegistry::Lease params;  // counted in the set's ref_count while the job lives
  std::shared_ptr<CancelToken> cancel = std::make_shared<CancelToken>();

  unsigned PartitionCount() const {
    return kind == JobKind::kGenericR1cs ? 1u : unsigned(partitions.size());
  }
};

enum class PartitionStage { kPending, kSynthesizing, kSynthDone, kGpu, kVerifying, kDone, kFailed, kCancelled };
const char* PartitionStageName(PartitionStage stage);

struct JobTimings {
  double queue_wait_ms = 0;  // submitted -> first partition started
  double srs_load_ms = 0;    // waiting for the parameters to load (longest partition)
  double synthesis_ms = 0;   // witness + a/b/c, summed over partitions
  double gpu_ms = 0;         // ProveStart + ProveFinish (on the CPU backend today), summed
  double verify_ms = 0;      // self-verification, summed
  double total_ms = 0;       // submitted -> finished
};

struct JobOutcome {
  enum class Kind { kCompleted, kFailed, kCancelled };
  Kind kind = Kind::kFailed;
  std::vector<uint8_t> proof;  // 192 bytes per partition, k order (kCompleted)
  std::string error;           // kFailed / kCancelled
  JobTimings timings;
};

class JobObserver {
 public:
  virtual ~JobObserver() = default;
  virtual void OnJobStarted(const std::string& job_id) = 0;
  virtual void OnPartitionStage(const std::string& job_id, unsigned partition, PartitionStage stage) = 0;
  // A partition's own times (synthesis_ms, gpu_ms, ...) when it ends (for /status).
  virtual void OnPartitionTimes(const std::string& job_id, unsigned partition, const JobTimings& times) {}
  virtual void OnJobFinished(const std::string& job_id, JobOutcome outcome) = 0;
};

struct RunnerCounts {
  struct PerKind {
    uint32_t pending = 0;      // jobs not started
    uint32_t in_progress = 0;  // jobs with a partition started and not finished
  };
  std::map<JobKind, PerKind> by_kind;
  uint32_t workers = 0;
  uint32_t busy_workers = 0;
};

class ProofRunner {
 public:
  virtual ~ProofRunner() = default;
  // Throws std::runtime_error once Shutdown has begun.
  virtual void Enqueue(std::shared_ptr<ProofJob> job) = 0;
  // Jobs ahead of this one in start order (0 = next); nullopt once it started (or is unknown).
  virtual std::optional<uint32_t> QueuePosition(const std::string& job_id) const = 0;
  // Takes back a job that has not started; false if it started (or is unknown).
  virtual bool RemoveQueued(const std::string& job_id) = 0;
  virtual RunnerCounts Counts() const = 0;
  // Stops accepting, drops jobs that have not started (OnJobFinished
  // kCancelled), lets started ones run until `deadline`, then cancels them and
  // waits a little for the workers. False when a worker is still inside an
  // engine call (which cannot be interrupted): the caller exits without
  // destroying the runner.
  virtual bool Shutdown(std::chrono::steady_clock::time_point deadline) = 0;
};

struct CpuRunnerOptions {
  unsigned workers = 1;  // partitions proved at the same time
  unsigned threads = 0;  // threads of each engine call (0 = all hardware threads)
};
std::unique_ptr<ProofRunner> MakeCpuProofRunner(const CpuRunnerOptions& options, JobObserver* observer);

}  // namespace cuzk::daemon
