#pragma once
// PartitionWork: the scheduler::JobWork of one daemon ProofJob (SNAP_DEALS_UPDATE
// partitions, or a GENERIC_R1CS job's single proof), the stages the
// scheduler::Pipeline runs for each partition:
//
//   Synthesize  parameters (SrsRegistry lease, loaded on first use), witness and
//               a/b/c (partition_steps.hpp: SynthesizePartition)
//   GpuStart    ProveStart on the worker's backend: the CudaBackend of ctx.device,
//               or the CpuBackend for a CPU-backend worker (device -1)
//   Finish      ProveFinish with fresh r, s (FinishPartitionProof), EncodeProof
//   Verify      the encoded bytes decoded and verified against the partition's
//               public inputs (what the client receives is what was checked)
//
// Every stage starts at a boundary: when the daemon's CancelToken of the job
// is set, `cancel_pipeline_job` is called once (Pipeline::Cancel: the job
// ends kCancelled, its queued partitions are dropped) and the stage throws
// scheduler::CancelledError.
//
// Memory (EstimatePartitionBytes; the same for every partition of a job), with
// m the Groth16 domain (smallest power of two >= constraints + inputs) and n
// the variables (ONE, inputs, aux), 32 bytes per field element:
//   abc      = 3 m 32                 a, b, c (EvaluateAbc pads each to m)
//            + 2 m 32 (snarkjs keys)  H scratch on the host (h_polynomial: scratch + h);
//                                     bellperson keys compute H in place in a
//   witness  = n 32                   z: from synthesis until ProveStart returns
//                                     (CudaBackend: B_g2 on the GPU) or until
//                                     ProveFinish (CPU backend: its G2 MSM)
//   vanilla  = the CircuitWitness     challenges x (TreeR paths old + new + TreeD
//                                     path + 2 leaves) + apex leaves + partition path
//   fixed    = 64 KiB                 pending sums, proof, bookkeeping
//   total = abc + witness + vanilla + fixed; `abc` is released when GpuStart
//   returns, the rest when the partition is finalized.
// 2 KiB SnapDeals: m = 2^21, n = 1,7M: abc 201 MB, total ~256 MB.
// 32 GiB: m = 2^27: abc 12.9 GB, witness 2.6 GB, total ~15.5 GB (+2.6 GB for
// the pinned z copy with GPU workers). (cuzk charged 9 GiB with 8 GiB a/b/c;
// ours is what the engine allocates.) Not counted here: MSM/NTT scratch inside
// a backend (Pippenger buckets: MBs on the CPU; the CudaBackend's device
// memory is not host memory). The parameters are charged by the SrsRegistry
// (AttachBudget) to the same budget, and Enqueue refuses a job whose
// partition does not fit beside them.
// With GPU workers the runner gives the pipeline a PinnedPool and sets
// pinned_abc (bellperson keys): Synthesize leases one page-locked buffer of
// (3 m + n) 32 bytes from the partition's a/b/c reservation (the runner adds
// n 32 to abc and total for the z copy) and PrepareProverInput writes a/b/c
// straight into it and copies z after them (ProveOptions::abc_memory), so
// the copies to the GPU run at pinned line rate; the buffer returns to the
// pool when ProveStart lets go of a/b/c. snarkjs keys and CPU-backend workers keep
// pageable vectors.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "daemon/proof_runner.hpp"
#include "engine/groth16/backend.hpp"
#include "scheduler/partition_work.hpp"

namespace cuzk::daemon {

// Shape of one partition's circuit, for the estimate.
struct PartitionCircuitShape {
  uint64_t domain = 0;         // m
  uint64_t variables = 0;      // n (ONE included)
  uint64_t vanilla_bytes = 0;  // the CircuitWitness (SnapDeals), 0 for GENERIC_R1CS
  bool snarkjs_h = false;      // the key's H query is snarkjs's (H computed on the host with 2 m scratch)
};

// SNAP_DEALS_UPDATE: from job.shape alone (the constraint count is counted
// once per shape and process, CountEmptySectorUpdate: 2 KiB ~0.1 s, 32 GiB
// seconds; the parameters are not loaded). GENERIC_R1CS: from the loaded
// circuit (the service loads it before queueing) and the witness.
// std::invalid_argument for a kind this runner does not prove.
PartitionCircuitShape CircuitShapeOf(const ProofJob& job);
scheduler::PartitionBytes EstimatePartitionBytes(const PartitionCircuitShape& shape);

// Per-partition times, as JobObserver::OnPartitionTimes reports them.
struct PartitionTimes {
  JobTimings times;  // srs_load_ms, synthesis_ms, gpu_ms (ProveStart + ProveFinish), verify_ms
  double finish_ms = 0;  // ProveFinish alone (part of gpu_ms)
};

class PartitionWork final : public scheduler::JobWork {
 public:
  // backend_for(device): the backend of a device (-1: the CPU backend); it
  // must outlive the work. released: called once from the destructor, i.e.
  // when the pipeline has dropped its last reference (every stage has
  // returned, every reservation of the job is released); it may run under a
  // pipeline lock: it must only record the fact. The work's reference to the
  // job (vanilla proofs, parameter lease) is gone by then.
  PartitionWork(std::shared_ptr<ProofJob> job, scheduler::PartitionBytes bytes, unsigned engine_threads,
                std::function<groth16::Backend&(int device)> backend_for, std::function<void()> cancel_pipeline_job,
                std::function<void()> released);
  ~PartitionWork() override;

  scheduler::PartitionBytes EstimateBytes(uint32_t partition) const override;
  std::unique_ptr<scheduler::StageData> Synthesize(const scheduler::PartitionContext& ctx) override;
  std::unique_ptr<scheduler::StageData> GpuStart(const scheduler::PartitionContext& ctx,
                                                 std::unique_ptr<scheduler::StageData> synthesized) override;
  std::vector<uint8_t> Finish(const scheduler::PartitionContext& ctx,
                              std::unique_ptr<scheduler::StageData> pending) override;
  bool Verify(const scheduler::PartitionContext& ctx, std::span<const uint8_t> proof) override;

  PartitionTimes Times(uint32_t partition) const;
  // Sums over partitions (srs_load_ms: the longest); queue_wait_ms from the
  // job's submission to the first synthesis start (0 if none started).
  JobTimings JobTotals() const;

 private:
  void Boundary(const scheduler::PartitionContext& ctx);

  std::shared_ptr<ProofJob> job_;  // reset in the destructor before `released_` runs
  const std::chrono::steady_clock::time_point submitted_;
  const scheduler::PartitionBytes bytes_;
  const unsigned engine_threads_;
  const std::function<groth16::Backend&(int)> backend_for_;
  const std::function<void()> cancel_pipeline_job_;
  const std::function<void()> released_;

  mutable std::mutex mu_;
  std::vector<PartitionTimes> times_;  // by partition (guarded by mu_)
  std::optional<std::chrono::steady_clock::time_point> first_synthesis_;
  bool cancel_forwarded_ = false;
};

}  // namespace cuzk::daemon
