#include "prover/partition_work.hpp"

#include <thread>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>

#include "absl/time/time.h"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/circuits/snapdeals/witness/witness_buffer_pool.hpp"
#include "engine/groth16/os_rng.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/util/thread_priority.hpp"

namespace cuzk::prover {
namespace {

constexpr uint64_t kFr = 32;  // bytes per field element
// Nice levels below the synthesis thread's own (already PipelineConfig::
// synthesis_nice, 10, below the rest): while the set loads, its witnesses
// go to the lowest priority (19), under the load's key stream.
constexpr int kBesideALoad = 10;
constexpr uint64_t kFixedBytes = 64 << 10;

uint64_t NextPow2(uint64_t x) { return x <= 1 ? 1 : std::bit_ceil(x); }

// The CircuitWitness of one partition (MakeCircuitWitness): values plus vector headers.
uint64_t VanillaBytes(const filecoin::SectorShape& s) {
  uint64_t tree_r_siblings = 0;
  for (unsigned arity : s.TreeRArities()) tree_r_siblings += arity - 1;
  const uint64_t per_challenge = (2 * tree_r_siblings + s.apex_levels + 2) * kFr +
                                 (2 * uint64_t(s.TreeRLevels()) + 3) * sizeof(std::vector<ff::Fr>);
  return uint64_t(s.challenge_count) * per_challenge + (uint64_t(s.apex_leaf_count) + s.partition_bit_len + 16) * kFr;
}

// Witness-only synthesis (kWitness) holds two things, charged differently:
//  - z, in a buffer of the process's WitnessBufferPool, from the start of
//    synthesis until the compaction is done. The partition's reservation
//    includes it and Synthesize gives those bytes back right after the
//    buffer returns to the pool (PartitionContext::reservation), so a queued
//    partition is not charged 2.6 GB (32 GiB) that it no longer holds. A
//    buffer idle in the pool is charged to nobody: there are at most as many
//    as syntheses ran at once, and they are freed after the pool's idle_keep
//    (10 s) without use. GENERIC_R1CS jobs compact the job's own witness
//    (charged with the job): no buffer.
//  - the compact witness, from synthesis until the partition is finalized
//    (it goes with the input at the GPU start, but PartitionBytes::abc of a
//    kWitness partition stays 0: its reservation's remainder is one part):
//    2-bit classes and a 32-bit base per 256 variables (n / 4 + n / 64
//    bytes), and the values other than 0 and 1. Those are counted with a
//    bound: n / 32 values for SnapDeals (measured 1.84% at 1 KiB, 1.52% at
//    2 KiB, 0.70% at 8 MiB, ~1% at 32 GiB: cuzk-bench witness-stats), all n
//    for a generic witness (no such structure). 32 GiB: ~100 MB instead of
//    the 2.6 GB z that the estimate charged until the finalize before.
// CPU-backend workers (witness_only_on_cpu_workers, for tests) expand z again
// inside ProveStart; it is gone when ProveStart returns, not charged.
struct WitnessFormBytes {
  uint64_t z_buffer = 0;  // released when synthesis ends
  uint64_t compact = 0;   // held until the partition is finalized
};
WitnessFormBytes WitnessOnlyBytes(const ProofJob& job, uint64_t n) {
  const bool snap = job.kind == JobKind::kSnapDeals;
  const uint64_t others = snap ? (n + 31) / 32 : n;
  return {.z_buffer = snap ? n * kFr : 0, .compact = (n + 15) / 16 * 4 + (n + 255) / 256 * 4 + others * kFr};
}

// a/b/c and a copy of z in one buffer of the pipeline's PinnedPool, charged
// to this partition's a/b/c reservation (PartitionContext::LeaseAbcBuffer);
// it goes back to the pool when the input lets go of a/b/c (inside
// ProveStart, or when the StageData is dropped).
groth16::AbcMemory LeasedAbcMemory(const scheduler::PartitionContext& ctx, size_t m, size_t n) {
  auto buffer = std::make_shared<memory::PinnedBuffer>(ctx.LeaseAbcBuffer((3 * m + n) * kFr));
  ff::Fr* base = buffer->as<ff::Fr>();
  groth16::AbcMemory out;
  out.spans = {.a = {base, m}, .b = {base + m, m}, .c = {base + 2 * m, m}};
  out.z = {base + 3 * m, n};
  out.owner = std::move(buffer);
  return out;
}

// SNAP_DEALS_UPDATE: the native witness of partition k from its vanilla
// proof; GENERIC_R1CS: the job's own assignment (one "partition"). a/b/c come
// from PrepareProverInput, which also checks that every row holds (a corrupt
// vanilla proof fails there, naming the row).
// Testing only (RunnerOptions::synthesis_delay, gpu_delay): a stage waits
// this long first, checking the cancel every 10 ms so that a cancel or a
// shutdown ends the wait at once.
void TestingDelay(std::chrono::milliseconds delay, const scheduler::CancelToken& cancel) {
  for (const auto until = std::chrono::steady_clock::now() + delay; std::chrono::steady_clock::now() < until;) {
    cancel.ThrowIfCancelled();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The two steps of synthesis, timed apart (the SYNTH_TIMING line).
struct SynthesisTimes {
  double witness_ms = 0;  // z
  double prepare_ms = 0;  // witness-only: the compaction of z; else a/b/c and the row check
};

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// SnapDeals witness-only, step 1: partition k's z into a buffer leased from
// the process's pool (no allocation once the pool has one of this size;
// every value overwritten), compacted (r1cs::CompactWitnessOf), the buffer
// back in the pool. It needs only the sector's shape, not the parameter set,
// so PartitionWork::Synthesize runs it before waiting for the set's load: a
// first job's partitions then reach the GPUs as soon as they hold the set,
// instead of computing (~0.1-0.8 s at 32 GiB, slower beside the key's stream)
// and compacting (~0.25 s) their witnesses only then.
r1cs::CompactWitness ComputeSnapCompactWitness(const ProofJob& job, unsigned k, unsigned threads,
                                               SynthesisTimes& times) {
  const auto t0 = std::chrono::steady_clock::now();
  const snapdeals::CircuitWitness w =
      snapdeals::MakeCircuitWitness(job.shape, k, job.commitments, job.partitions.at(k));
  snapdeals::witness::WitnessBufferPool::Lease buffer = snapdeals::witness::WitnessBufferPool::Shared().Acquire(
      snapdeals::witness::EmptySectorUpdateVariableCount(job.shape));
  const std::span<const ff::Fr> z =
      snapdeals::witness::ComputeEmptySectorUpdateWitnessInto(job.shape, w, buffer.values(), {.threads = threads});
  times.witness_ms = MsSince(t0);
  const auto t1 = std::chrono::steady_clock::now();
  r1cs::CompactWitness compact = r1cs::CompactWitnessOf(z, threads);
  buffer.Return();
  times.prepare_ms = MsSince(t1);
  return compact;
}

// Step 2: the compact witness bound to the set's key and circuit (their
// counts checked against it). The input carries only the compact witness.
groth16::ProverInput BindSnapWitness(r1cs::CompactWitness compact, const LoadedParams& params, SynthesisTimes& times) {
  const auto t0 = std::chrono::steady_clock::now();
  groth16::ProverInput in = groth16::BindCompactWitness(
      params.pk, params.circuit, snapdeals::witness::kEmptySectorUpdateNumInputs, std::move(compact));
  times.prepare_ms += MsSince(t0);
  return in;
}

// Witness-only: SnapDeals in the two steps above; GENERIC_R1CS: the job's
// witness compacted where it is (no copy).
groth16::ProverInput SynthesizeWitnessOnly(const ProofJob& job, unsigned k, const LoadedParams& params,
                                           unsigned threads, SynthesisTimes& times) {
  if (job.kind != JobKind::kGenericR1cs) {
    return BindSnapWitness(ComputeSnapCompactWitness(job, k, threads, times), params, times);
  }
  const auto t0 = std::chrono::steady_clock::now();
  groth16::ProverInput in = groth16::PrepareCompactWitnessInput(params.pk, params.circuit, job.witness.num_inputs,
                                                                job.witness.values, threads);
  times.prepare_ms = MsSince(t0);
  return in;
}

groth16::ProverInput SynthesizePartition(const ProofJob& job, unsigned k, const LoadedParams& params, unsigned threads,
                                         const groth16::ProveOptions::AbcMemoryFn& abc_memory, bool witness_only,
                                         SynthesisTimes& times) {
  if (witness_only) return SynthesizeWitnessOnly(job, k, params, threads, times);
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::Assignment z;
  if (job.kind == JobKind::kGenericR1cs) {
    z = job.witness;  // a copy: PrepareProverInput consumes it, the job stays read-only
  } else {
    snapdeals::CircuitWitness w = snapdeals::MakeCircuitWitness(job.shape, k, job.commitments, job.partitions.at(k));
    z = snapdeals::witness::ComputeEmptySectorUpdateWitness(job.shape, w, {.threads = threads});
  }
  times.witness_ms = MsSince(t0);
  const auto t1 = std::chrono::steady_clock::now();
  groth16::ProverInput in = groth16::PrepareProverInput(params.pk, params.circuit, std::move(z),
                                                        {.threads = threads, .abc_memory = abc_memory});
  times.prepare_ms = MsSince(t1);
  return in;
}

// The public inputs (without ONE) partition k's proof is verified against.
std::vector<ff::Fr> PartitionVerifierInputs(const ProofJob& job, unsigned k) {
  if (job.kind == JobKind::kGenericR1cs) return job.witness.PublicInputs();
  const auto inputs = snapdeals::PartitionPublicInputs(job.shape, k, job.commitments).AsArray();
  return {inputs.begin(), inputs.end()};
}

struct Synthesized final : scheduler::StageData {
  std::shared_ptr<const LoadedParams> params;
  groth16::ProverInput input;
};

struct Pending final : scheduler::StageData {
  std::shared_ptr<const LoadedParams> params;
  groth16::Backend* backend = nullptr;
  groth16::PendingProof pending;
  // ",lock_wait_ms=..,abc_eval_ms=..,..." for the GPU_TIMING line.
  std::string TimingDetail() const override {
    std::string out;
    for (const auto& [name, ms] : pending.steps) out += fmt::format(",{}_ms={:.2f}", name, ms);
    return out;
  }
};

}  // namespace

const char* SynthesisFormName(SynthesisForm form) {
  switch (form) {
    case SynthesisForm::kAbcVectors: return "abc_vectors";
    case SynthesisForm::kAbcPinned: return "abc_pinned";
    case SynthesisForm::kWitness: return "witness";
  }
  return "unknown";
}

SynthesisForm FormFor(const ProofJob& job, SynthesisForm preferred) {
  if (preferred == SynthesisForm::kAbcVectors) return preferred;
  // snarkjs keys take their H on the host, from a/b/c vectors.
  if (job.kind == JobKind::kGenericR1cs && job.params.Get(nullptr)->pk.h_form == groth16::HQueryForm::kSnarkjsOddCoset)
    return SynthesisForm::kAbcVectors;
  return preferred;
}

scheduler::PartitionBytes EstimatePartitionBytes(const ProofJob& job, SynthesisForm form) {
  if (job.kind != JobKind::kSnapDeals && job.kind != JobKind::kGenericR1cs)
    throw std::invalid_argument(std::string("the prover does not prove ") + JobKindName(job.kind) + " jobs");
  if (!job.params) throw std::invalid_argument("job " + job.id + " has no parameter set");
  const CircuitDims dims = job.params.Dims();
  const uint64_t m = NextPow2(dims.constraints + dims.inputs);
  uint64_t n = dims.variables;
  bool snarkjs_h = false;
  uint64_t vanilla = 0;
  if (job.kind == JobKind::kGenericR1cs) {
    // Generic sets are loaded before they are queued (Prover::Submit).
    n = std::max<uint64_t>(n, job.witness.values.size());
    snarkjs_h = job.params.Get(nullptr)->pk.h_form == groth16::HQueryForm::kSnarkjsOddCoset;
  } else {
    vanilla = VanillaBytes(job.shape);
  }
  scheduler::PartitionBytes b;
  uint64_t witness = n * kFr;  // z, until the GPU start or the finalize
  switch (form) {
    case SynthesisForm::kWitness: {
      b.abc = 0;
      const WitnessFormBytes w = WitnessOnlyBytes(job, n);
      witness = w.z_buffer + w.compact;  // the z buffer part goes when synthesis ends (Synthesize)
      break;
    }
    case SynthesisForm::kAbcPinned:
      b.pinned_abc = true;
      b.abc = 3 * m * kFr + n * kFr;  // a/b/c and the z copy
      break;
    case SynthesisForm::kAbcVectors: b.abc = 3 * m * kFr + (snarkjs_h ? 2 * m * kFr : 0); break;
  }
  b.total = b.abc + witness + vanilla + kFixedBytes;
  return b;
}

PartitionWork::PartitionWork(std::shared_ptr<const ProofJob> job, SynthesisForm form, scheduler::PartitionBytes bytes,
                             unsigned engine_threads, std::function<groth16::Backend&(int device)> backend_for,
                             std::chrono::milliseconds synthesis_delay, std::chrono::milliseconds gpu_delay)
    : job_(std::move(job)),
      form_(form),
      bytes_(bytes),
      engine_threads_(engine_threads),
      backend_for_(std::move(backend_for)),
      synthesis_delay_(synthesis_delay),
      gpu_delay_(gpu_delay) {}

std::unique_ptr<scheduler::StageData> PartitionWork::Synthesize(const scheduler::PartitionContext& ctx) {
  auto out = std::make_unique<Synthesized>();
  SynthesisTimes t;
  // SnapDeals witness-only: the witness (it needs only the shape) computed
  // and compacted beside the set's load when the set is not loaded yet. The
  // load is the first proof's critical path: this thread asks for it first
  // (SrsRegistry runs it at the daemon's priority), the witness runs on a
  // helper at a lower priority. A job without srs.preload used to compute
  // the witness first and only then start the load: 0.9 s later than with
  // the preload at 32 GiB (session 11 call 5, load_start 1.53-1.55 s after
  // the daemon's start against 0.22-0.25 s).
  std::optional<r1cs::CompactWitness> early;
  bool z_released = false;
  if (form_ == SynthesisForm::kWitness && job_->kind == JobKind::kSnapDeals) {
    const auto compute = [&] { return ComputeSnapCompactWitness(*job_, ctx.partition, engine_threads_, t); };
    // The z buffer is back in the pool once the witness is compacted: its
    // bytes leave this partition's reservation then, not after the set's
    // load (see WitnessOnlyBytes; 2.6 GB a partition at 32 GiB, while the
    // load charges the set's own bytes).
    const auto release_z = [&] {
      if (ctx.reservation) ctx.reservation->Release(WitnessOnlyBytes(*job_, job_->params.Dims().variables).z_buffer);
    };
    if (job_->params.IsLoaded()) {
      early = compute();
      release_z();
    } else {
      // The helper releases z as soon as its witness is done: this thread is
      // in the load then and touches neither the reservation nor `t`.
      std::chrono::steady_clock::time_point witness_done{};
      std::future<r1cs::CompactWitness> witness = std::async(std::launch::async, [&] {
        util::LowerThisThreadPriority(kBesideALoad);
        r1cs::CompactWitness w = compute();
        release_z();
        witness_done = std::chrono::steady_clock::now();
        return w;
      });
      // (A failed load leaves through here: the future's destructor waits
      // for the witness, about a second; a failed witness surfaces after
      // the load, which the set's next job uses.)
      out->params = job_->params.Get(nullptr);
      const auto loaded = std::chrono::steady_clock::now();
      early = witness.get();
      // What synthesis waited for the set: the part of the load after its
      // own work was done.
      ctx.input_wait_ms = std::max(0.0, std::chrono::duration<double, std::milli>(loaded - witness_done).count());
    }
    z_released = true;
  }
  if (!out->params) out->params = job_->params.Get(&ctx.input_wait_ms);
  ctx.cancel.ThrowIfCancelled();  // a load takes minutes at 32 GiB
  TestingDelay(synthesis_delay_, ctx.cancel);
  groth16::ProveOptions::AbcMemoryFn abc_memory;
  if (form_ == SynthesisForm::kAbcPinned)
    abc_memory = [&ctx](size_t m, size_t n) { return LeasedAbcMemory(ctx, m, n); };
  if (early) {
    out->input = BindSnapWitness(std::move(*early), *out->params, t);
  } else {
    out->input = SynthesizePartition(*job_, ctx.partition, *out->params, engine_threads_, abc_memory,
                                     form_ == SynthesisForm::kWitness, t);
  }
  // Witness-only: the z buffer is back in the pool; its bytes leave this
  // partition's reservation now (see WitnessOnlyBytes).
  if (form_ == SynthesisForm::kWitness && ctx.reservation && !z_released) {
    ctx.reservation->Release(WitnessOnlyBytes(*job_, job_->params.Dims().variables).z_buffer);
  }
  // Machine-readable like the pipeline's GPU_TIMING/FIN_TIMING lines: what the synthesis stage's time is made of.
  spdlog::info("SYNTH_TIMING,{},partition={},form={},witness_ms={:.2f},{}_ms={:.2f},compact_witness_bytes={}",
               ctx.job_id, ctx.partition, SynthesisFormName(form_), t.witness_ms,
               form_ == SynthesisForm::kWitness ? "compact" : "abc", t.prepare_ms,
               out->input.compact_z ? out->input.compact_z->Bytes() : 0);
  return out;
}

std::unique_ptr<scheduler::StageData> PartitionWork::GpuStart(const scheduler::PartitionContext& ctx,
                                                              std::unique_ptr<scheduler::StageData> synthesized) {
  TestingDelay(gpu_delay_, ctx.cancel);
  auto& s = dynamic_cast<Synthesized&>(*synthesized);
  auto out = std::make_unique<Pending>();
  out->params = s.params;
  out->backend = &backend_for_(ctx.device);
  // A set whose host copy was given back (prover/host_copy.hpp) is proved
  // only from the GPUs' copies; the CPU backend would read zeros.
  if ((s.params->host_released.load() || s.params->on_devices_only) && ctx.device < 0) {
    throw std::runtime_error("parameter set " + s.params->circuit_id +
                             (s.params->on_devices_only ? ": it was loaded straight into the GPUs' memory"
                                                        : ": its host copy was given back once the GPUs held it") +
                             "; the CPU backend cannot prove with it");
  }
  if (s.params->on_devices_only) {
    // The compact circuit goes up in the GPUs' preparation; a proof before
    // it would build one from the shell's (zero) matrices.
    while (!s.params->devices_prepared.WaitForNotificationWithTimeout(absl::Milliseconds(50)))
      ctx.cancel.ThrowIfCancelled();  // a cancel or a shutdown ends the wait
    if (!out->backend->HoldsOnDevice(s.params->pk, s.input.circuit)) {
      throw std::runtime_error("parameter set " + s.params->circuit_id +
                               " was loaded straight into the GPUs' memory, "
                               "but GPU " +
                               std::to_string(ctx.device) +
                               " does not hold all of it (see its GPU_PREPARE line): evict the set and load it again");
    }
  }
  // Work the backend leaves for later (deferred witness MSMs) is skipped once the job is cancelled.
  s.input.cancelled = [cancel = ctx.cancel] { return cancel.cancelled(); };
  std::vector<groth16::PendingProof> pending = out->backend->ProveStart(s.params->pk, std::span(&s.input, 1));
  synthesized.reset();  // a/b/c: their buffers go now, before the pipeline releases their bytes
  out->pending = std::move(pending.at(0));
  return out;
}

std::vector<uint8_t> PartitionWork::Finish(const scheduler::PartitionContext& ctx,
                                           std::unique_ptr<scheduler::StageData> pending) {
  auto& p = dynamic_cast<Pending&>(*pending);
  if (p.pending.deferred.valid()) {
    // Witness MSMs waiting for the key's witness bases to land on the GPU
    // (gpus.early_proving): a cancel or a shutdown ends the wait.
    const auto t0 = std::chrono::steady_clock::now();
    while (p.pending.deferred.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
      ctx.cancel.ThrowIfCancelled();
    // The GPU_TIMING line was written when ProveStart returned: the witness
    // MSMs' steps come here, with this finalizer's wait for them.
    std::string steps;
    try {
      for (const auto& [name, ms] : p.pending.deferred.get().steps) steps += fmt::format(",{}_ms={:.2f}", name, ms);
    } catch (const std::exception&) {
      steps = ",failed";  // ProveFinish rethrows it
    }
    spdlog::info("DEFERRED_TIMING,{},partition={},finish_wait_ms={:.2f}{}", ctx.job_id, ctx.partition,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), steps);
  }
  // r, s drawn from the OS CSPRNG for this proof (bellperson's Fr::random(OsRng)), wiped on every way out.
  groth16::OsRng rng;
  struct Blinding {
    ff::Fr r, s;
    ~Blinding() {
      groth16::SecureWipe(&r, sizeof r);
      groth16::SecureWipe(&s, sizeof s);
    }
  } b{ff::Fr::Random(rng), ff::Fr::Random(rng)};
  {
    absl::MutexLock lock(&pvk_mu_);
    if (!pvk_) pvk_ = std::make_shared<const groth16::PreparedVerifyingKey>(p.params->pvk);
  }
  const groth16::Proof proof = p.backend->ProveFinish(p.params->pk, std::move(p.pending), b.r, b.s);
  pending.reset();  // z
  const groth16::ProofBytes bytes = EncodeProof(proof);
  return {bytes.begin(), bytes.end()};
}

bool PartitionWork::Verify(const scheduler::PartitionContext& ctx, std::span<const uint8_t> proof) {
  std::string why;
  const std::optional<groth16::Proof> decoded = groth16::DecodeProof(proof, &why);
  if (!decoded) throw std::runtime_error("the encoded proof does not decode: " + why);
  // Finish kept the verifying key of the set the proof was made with.
  std::shared_ptr<const groth16::PreparedVerifyingKey> pvk;
  {
    absl::MutexLock lock(&pvk_mu_);
    pvk = pvk_;
  }
  if (!pvk) pvk = std::make_shared<const groth16::PreparedVerifyingKey>(job_->params.Current()->pvk);
  if (!groth16::Verify(*pvk, *decoded, PartitionVerifierInputs(*job_, ctx.partition)))
    throw std::runtime_error("the proof does not verify against the partition's public inputs");
  return true;
}

}  // namespace cuzk::prover
