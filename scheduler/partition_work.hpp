#pragma once
// The seam between the pipeline and the proofs it runs: the daemon implements
// JobWork for real SnapDeals partitions (synthesis into pinned a/b/c,
// groth16 ProveStart on a device, ProveFinish + verification), tests
// implement it with fakes. The pipeline only moves the StageData from one
// stage to the next and never looks inside.
//
//   class SnapWork : public scheduler::JobWork {
//     PartitionBytes EstimateBytes(uint32_t) const override { return {9ull << 30, 8ull << 30}; }
//     std::unique_ptr<StageData> Synthesize(const PartitionContext& c) override {
//       memory::PinnedBuffer abc = c.LeaseAbcBuffer(abc_bytes);   // charged to this partition's a/b/c part
//       ...witness + a/b/c into abc...;  return std::make_unique<Synth>(std::move(abc), ...); }
//     std::unique_ptr<StageData> GpuStart(const PartitionContext& c, std::unique_ptr<StageData> s) override {
//       ...backend(c.device).ProveStart...;  return pending (a/b/c freed: s destroyed); }
//     std::vector<uint8_t> Finish(const PartitionContext&, std::unique_ptr<StageData> p) override {
//       ...ProveFinish, EncodeProof... }
//     bool Verify(const PartitionContext&, std::span<const uint8_t> proof) override { ...Verify(vk, inputs, proof)... }
//   };
//
// Thread safety: the stages of different partitions of one job run
// concurrently on different threads; a JobWork must allow that.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memory/budget.hpp"
#include "memory/pinned_pool.hpp"
#include "scheduler/job.hpp"
#include "scheduler/priority.hpp"

namespace cuzk::scheduler {

// Bytes to reserve for one partition before its synthesis starts; `abc` of
// them (a/b/c or the witness) are released when the GPU start returns, the
// rest when the partition is finalized.
struct PartitionBytes {
  uint64_t total = 0;
  uint64_t abc = 0;
  // The a/b/c part lives in a pinned buffer (LeaseAbcBuffer): the dispatcher
  // then hands an idle pool buffer to the partition before asking the budget
  // for the rest, so a full budget reuses page-locked memory instead of
  // freeing it (the evictor) and page-locking it again.
  bool pinned_abc = false;
};

// What one stage hands to the next; the JobWork defines the real type.
class StageData {
 public:
  virtual ~StageData() = default;
  // Appended to the stage's timing line (GPU_TIMING after the GPU start):
  // ",name_ms=value..." of the steps the work measured inside the stage
  // (prover: the backend's PendingProof::steps). Empty: nothing to add.
  virtual std::string TimingDetail() const { return {}; }
};

struct PartitionContext {
  std::string_view job_id;
  uint32_t partition = 0;
  uint32_t partitions = 0;
  Priority priority = Priority::kNormal;
  CancelToken cancel;
  int device = -1;      // GPU stage: the worker's device ordinal (-1: a CPU-backend worker)
  unsigned worker = 0;  // GPU stage: the worker's index over all devices
  // Set by a stage: milliseconds it spent waiting for inputs shared with
  // other jobs (the parameters loading). Reported as srs_load_ms and left
  // out of the stage's own time.
  mutable double input_wait_ms = 0;

  // Synthesis only: a buffer from the pipeline's PinnedPool whose bytes are
  // taken from this partition's a/b/c reservation (not charged twice), or
  // the idle buffer the dispatcher already took for it (pinned_abc). It goes
  // back to the pool when the StageData holding it is destroyed (after the
  // GPU start). Ask for at most the partition's abc bytes, a multiple of the
  // pool's alignment (4 KiB): anything beyond is charged with a blocking
  // budget acquire. Throws std::logic_error outside synthesis or without a pool.
  memory::PinnedBuffer LeaseAbcBuffer(size_t bytes) const;

  // Set by the pipeline.
  memory::PinnedPool* pinned_pool = nullptr;
  memory::Reservation* reservation = nullptr;
  uint64_t* abc_left = nullptr;
  memory::PinnedBuffer* preleased = nullptr;
};

class JobWork {
 public:
  virtual ~JobWork() = default;
  // Called once per partition at submission (cheap; no allocation).
  virtual PartitionBytes EstimateBytes(uint32_t partition) const = 0;
  // CPU: witness and a/b/c. Throw to fail the job.
  virtual std::unique_ptr<StageData> Synthesize(const PartitionContext& ctx) = 0;
  // GPU (ctx.device): everything that needs the device; must free a/b/c
  // (keep only what Finish needs).
  virtual std::unique_ptr<StageData> GpuStart(const PartitionContext& ctx, std::unique_ptr<StageData> synthesized) = 0;
  // CPU epilogue: the encoded partition proof.
  virtual std::vector<uint8_t> Finish(const PartitionContext& ctx, std::unique_ptr<StageData> pending) = 0;
  // Every proof is verified before it is returned; false fails the job.
  virtual bool Verify(const PartitionContext& ctx, std::span<const uint8_t> proof) = 0;
};

}  // namespace cuzk::scheduler
