#include "scheduler/job.hpp"

namespace cuzk::scheduler {

std::string_view JobOutcomeName(JobOutcome o) {
  switch (o) {
    case JobOutcome::kCompleted: return "COMPLETED";
    case JobOutcome::kFailed: return "FAILED";
    case JobOutcome::kCancelled: return "CANCELLED";
  }
  return "UNKNOWN";
}

std::string_view PartitionStageName(PartitionStage s) {
  switch (s) {
    case PartitionStage::kPending: return "pending";
    case PartitionStage::kDispatched: return "dispatched";
    case PartitionStage::kSynthesizing: return "synthesizing";
    case PartitionStage::kGpuQueued: return "synth_done";
    case PartitionStage::kGpu: return "gpu";
    case PartitionStage::kFinalizing: return "finalizing";
    case PartitionStage::kDone: return "done";
    case PartitionStage::kFailed: return "failed";
    case PartitionStage::kSkipped: return "skipped";
  }
  return "unknown";
}

}  // namespace cuzk::scheduler
