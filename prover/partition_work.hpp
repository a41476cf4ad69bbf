#pragma once
// PartitionWork: the scheduler::JobWork of one ProofJob (SNAP_DEALS_UPDATE
// partitions, or a GENERIC_R1CS job's single proof), the stages the
// scheduler::Pipeline runs for each partition:
//
//   Synthesize  the parameters (SrsRegistry lease, loaded on first use: the
//               wait is reported as the stage's input_wait_ms), the witness
//               and a/b/c (groth16::PrepareProverInput, which checks every row);
//               witness-only SnapDeals asks for a set not yet loaded first and
//               computes the witness beside the load (the wait is then the
//               part of the load after the witness)
//   GpuStart    ProveStart on the worker's backend (backend_for(ctx.device):
//               a CudaBackend, or the CpuBackend for device -1)
//   Finish      ProveFinish with fresh r, s from the OS CSPRNG, EncodeProof
//   Verify      the encoded bytes decoded and verified against the partition's
//               public inputs (what the client receives is what was checked)
//
// Each synthesis logs SYNTH_TIMING,<job>,partition=N,form=..,witness_ms=..,
// compact_ms|abc_ms=..,compact_witness_bytes=.. (the witness, then the
// compaction of z or the host a/b/c with the row check).
//
// Cancellation: the job's token is the pipeline's (ProofJob::cancel), which
// checks it before every stage; nothing here polls.
//
// Memory (EstimatePartitionBytes; the same for every partition of a job), with
// m the Groth16 domain (smallest power of two >= constraints + inputs) and n
// the variables (ONE, inputs, aux), 32 bytes per field element:
//   abc      = 3 m 32                 a, b, c (EvaluateAbc pads each to m)
//            + 2 m 32 (snarkjs keys)  H scratch on the host (h_polynomial: scratch + h);
//                                     bellperson keys compute H in place in a
//            + n 32 (pinned)          the copy of z beside a/b/c in the pinned buffer
//   witness  = n 32                   z: from synthesis until ProveStart returns
//                                     (CudaBackend: B_g2 on the GPU) or until
//                                     ProveFinish (CPU backend: its G2 MSM)
//   vanilla  = the CircuitWitness     challenges x (TreeR paths old + new + TreeD
//                                     path + 2 leaves) + apex leaves + partition path
//   fixed    = 64 KiB                 pending sums, proof, bookkeeping
//   total = abc + witness + vanilla + fixed; `abc` is released when GpuStart
//   returns, the rest when the partition is finalized.
// 2 KiB SnapDeals: m = 2^21, n = 1.7M: abc 201 MB, total ~256 MB.
// 32 GiB: m = 2^27: abc 12.9 GB, witness 2.6 GB, total ~15.5 GB (+2.6 GB for
// the pinned z copy with GPU workers). Not counted here: MSM/NTT scratch
// inside a backend (Pippenger buckets: MBs on the CPU; the CudaBackend's
// device memory is not host memory). The parameters are charged by the
// SrsRegistry (AttachBudget) to the same budget.
// With witness-only synthesis (GPU workers, bellperson keys: kWitness, the
// default) the host computes only z, into a buffer of the process's
// snapdeals::witness::WitnessBufferPool (reused partition after partition:
// no allocation, no page faults, no copy), compacts it (2-bit classes plus
// the values other than 0 and 1) and gives the buffer back: only the compact
// witness waits for the GPU (groth16::PrepareCompactWitnessInput; 32 GiB:
// ~45 MB instead of 2.6 GB per queued partition). The CudaBackend expands it
// on the device and evaluates a/b/c from the circuit resident there,
// checking every row. kWitness bytes: witness = n 32 (the pooled z buffer,
// released from the reservation when synthesis ends) + a bound on the
// compact witness (held to the finalize); abc = 0 (partition_work.cpp:
// WitnessOnlyBytes says why).
// With a PinnedPool and kAbcPinned Synthesize leases one
// page-locked buffer of (3 m + n) 32 bytes from the partition's a/b/c
// reservation and PrepareProverInput writes a/b/c straight into it and
// copies z after them (ProveOptions::abc_memory), so the copies to the GPU
// run at pinned line rate; the buffer returns to the pool when ProveStart
// lets go of a/b/c. snarkjs keys and CPU-backend workers keep pageable vectors.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "engine/groth16/backend.hpp"
#include "engine/groth16/verifier.hpp"
#include "prover/job.hpp"
#include "scheduler/partition_work.hpp"

namespace cuzk::prover {

// How a partition's synthesis hands its work to the GPU start.
enum class SynthesisForm {
  kAbcVectors,  // a/b/c in pageable vectors (CPU-backend workers; snarkjs keys)
  kAbcPinned,   // a/b/c and a copy of z in one pinned pool buffer
  kWitness,     // the witness only: the backend evaluates a/b/c itself (CudaBackend on the GPU)
};

// Bytes of one partition (see above). kWitness: no a/b/c on the host at all
// (abc = 0); z only while synthesis holds its pooled buffer, then the
// compact witness. snarkjs keys always take
// kAbcVectors (their H is computed in host vectors).
scheduler::PartitionBytes EstimatePartitionBytes(const ProofJob& job, SynthesisForm form);
const char* SynthesisFormName(SynthesisForm form);  // "witness", "abc_pinned", "abc_vectors"
// The form a job gets when the runner would use `preferred`.
SynthesisForm FormFor(const ProofJob& job, SynthesisForm preferred);

class PartitionWork final : public scheduler::JobWork {
 public:
  // backend_for(device): the backend of a device (-1: the CPU backend); it
  // must outlive the work.
  // synthesis_delay, gpu_delay: RunnerOptions' (testing).
  PartitionWork(std::shared_ptr<const ProofJob> job, SynthesisForm form, scheduler::PartitionBytes bytes,
                unsigned engine_threads, std::function<groth16::Backend&(int device)> backend_for,
                std::chrono::milliseconds synthesis_delay = {}, std::chrono::milliseconds gpu_delay = {});

  scheduler::PartitionBytes EstimateBytes(uint32_t partition) const override { return bytes_; }
  std::unique_ptr<scheduler::StageData> Synthesize(const scheduler::PartitionContext& ctx) override;
  std::unique_ptr<scheduler::StageData> GpuStart(const scheduler::PartitionContext& ctx,
                                                 std::unique_ptr<scheduler::StageData> synthesized) override;
  std::vector<uint8_t> Finish(const scheduler::PartitionContext& ctx,
                              std::unique_ptr<scheduler::StageData> pending) override;
  bool Verify(const scheduler::PartitionContext& ctx, std::span<const uint8_t> proof) override;

 private:
  const std::shared_ptr<const ProofJob> job_;
  const SynthesisForm form_;
  const scheduler::PartitionBytes bytes_;
  const unsigned engine_threads_;
  const std::function<groth16::Backend&(int)> backend_for_;
  const std::chrono::milliseconds synthesis_delay_;
  const std::chrono::milliseconds gpu_delay_;
  // The verifying key of the set the job's proofs were made with, kept by
  // Finish for Verify: the set itself may be gone by then (a set whose GPU
  // copy broke is dropped and loaded again), and the finalizer must not
  // wait for that load to verify a proof.
  mutable absl::Mutex pvk_mu_;
  std::shared_ptr<const groth16::PreparedVerifyingKey> pvk_ ABSL_GUARDED_BY(pvk_mu_);
};

}  // namespace cuzk::prover
