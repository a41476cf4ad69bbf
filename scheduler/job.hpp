#pragma once
// The job types every layer above the engine speaks, defined once: the
// pipeline reports in them, the prover's job tracker stores them, the gRPC
// service maps them to the wire.
//
//   CancelToken token;                 // shared by copy: the client's cancel reaches every stage
//   token.Cancel();                    // stages stop at their next boundary (ThrowIfCancelled)
//   JobResult r = ...;                 // outcome, error, proof (partitions in order), timings
//   PartitionStageName(PartitionStage::kGpu) == "gpu"
#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::scheduler {

class CancelledError : public std::runtime_error {
 public:
  CancelledError() : std::runtime_error("cancelled") {}
};

// Set once, when the job is cancelled (by its client, by shutdown) or has
// failed; every copy shares the flag. Checked by the pipeline between stages
// and by long work inside a stage. Costs one atomic load per check.
class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  bool cancelled() const { return flag_->load(std::memory_order_acquire); }
  void ThrowIfCancelled() const {
    if (cancelled()) throw CancelledError();
  }
  void Cancel() const { flag_->store(true, std::memory_order_release); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

// Where one partition is. Names (PartitionStageName) are what /status shows.
enum class PartitionStage {
  kPending,
  kDispatched,
  kSynthesizing,
  kGpuQueued,
  kGpu,
  kFinalizing,
  kDone,
  kFailed,
  kSkipped
};
std::string_view PartitionStageName(PartitionStage s);
inline bool IsTerminal(PartitionStage s) {
  return s == PartitionStage::kDone || s == PartitionStage::kFailed || s == PartitionStage::kSkipped;
}

enum class JobOutcome { kCompleted, kFailed, kCancelled };
std::string_view JobOutcomeName(JobOutcome o);

// Milliseconds, as the pipeline measured them. For a job: sums over its
// partitions, except srs_load_ms (the longest wait of one partition) and
// queue_wait_ms / total_ms (wall time from submission).
struct JobTimings {
  double queue_wait_ms = 0;   // submission -> first synthesis start
  double srs_load_ms = 0;     // synthesis waiting for the parameters to load (PartitionContext::input_wait_ms)
  double synthesis_ms = 0;    // the synthesis stage, without srs_load_ms
  double gpu_compute_ms = 0;  // the GPU start stage (ProveStart)
  double finalize_ms = 0;     // finish + verify
  double verify_ms = 0;       // ... of which verification
  double total_ms = 0;        // submission -> completion
};

// One partition's stage and its own times (PartitionStatus of the pipeline).
struct PartitionStatus {
  PartitionStage stage = PartitionStage::kPending;
  double srs_load_ms = 0, synth_ms = 0, gpu_ms = 0, finalize_ms = 0, verify_ms = 0;
  int worker = -1;  // the GPU worker that ran its GPU start
};

struct JobResult {
  std::string job_id;
  JobOutcome outcome = JobOutcome::kFailed;
  std::string error;                                   // kFailed/kCancelled: why (names the partition and stage)
  std::vector<std::vector<uint8_t>> partition_proofs;  // kCompleted: in partition order
  std::vector<uint8_t> proof;                          // kCompleted: the partition proofs concatenated in order
  JobTimings timings;
};

}  // namespace cuzk::scheduler
