#include "daemon/pipeline_partition_work.hpp"

#include <bit>
#include <map>
#include <stdexcept>

#include "daemon/partition_steps.hpp"
#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/groth16/proof_encoding.hpp"

namespace cuzk::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

constexpr uint64_t kFr = 32;             // bytes per field element
constexpr uint64_t kFixedBytes = 64 << 10;

uint64_t NextPow2(uint64_t x) { return x <= 1 ? 1 : std::bit_ceil(x); }

// Rows of a SnapDeals partition's circuit, counted once per shape (the count
// synthesizes without values or LCs: fast, O(1) memory, but not free at 32 GiB).
snapdeals::CircuitCounts SnapCounts(const filecoin::SectorShape& shape) {
  static std::mutex mu;
  static std::map<std::pair<uint64_t, unsigned>, snapdeals::CircuitCounts> cache;
  const std::pair<uint64_t, unsigned> key{shape.sector_bytes, shape.h};
  {
    std::lock_guard lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const snapdeals::CircuitCounts c = snapdeals::CountEmptySectorUpdate(shape);
  std::lock_guard lock(mu);
  cache.emplace(key, c);
  return c;
}

// The CircuitWitness of one partition (MakeCircuitWitness): values plus vector headers.
uint64_t VanillaBytes(const filecoin::SectorShape& s) {
  uint64_t tree_r_siblings = 0;
  for (unsigned arity : s.TreeRArities()) tree_r_siblings += arity - 1;
  const uint64_t per_challenge = (2 * tree_r_siblings + s.apex_levels + 2) * kFr +
                                 (2 * uint64_t(s.TreeRLevels()) + 3) * sizeof(std::vector<ff::Fr>);
  return uint64_t(s.challenge_count) * per_challenge + (uint64_t(s.apex_leaf_count) + s.partition_bit_len + 16) * kFr;
}

// a/b/c in one buffer of the pipeline's PinnedPool, charged to this
// partition's a/b/c reservation (PartitionContext::LeaseAbcBuffer); the
// buffer goes back to the pool when the input lets go of a/b/c (inside
// ProveStart, or when the StageData is dropped).
// The buffer also holds a copy of z (n elements after a/b/c), so the GPU
// reads the witness at line rate too (EstimatePartitionBytes' pinned part).
groth16::AbcMemory LeasedAbcMemory(const scheduler::PartitionContext& ctx, size_t m, size_t n) {
  auto buffer = std::make_shared<memory::PinnedBuffer>(ctx.LeaseAbcBuffer((3 * m + n) * kFr));
  ff::Fr* base = buffer->as<ff::Fr>();
  groth16::AbcMemory out;
  out.spans = {.a = {base, m}, .b = {base + m, m}, .c = {base + 2 * m, m}};
  out.z = {base + 3 * m, n};
  out.owner = std::move(buffer);
  return out;
}

struct Synthesized final : scheduler::StageData {
  std::shared_ptr<const LoadedParams> params;
  groth16::ProverInput input;
};

struct Pending final : scheduler::StageData {
  std::shared_ptr<const LoadedParams> params;
  groth16::Backend* backend = nullptr;
  groth16::PendingProof pending;
};

}  // namespace

PartitionCircuitShape CircuitShapeOf(const ProofJob& job) {
  PartitionCircuitShape out;
  switch (job.kind) {
    case JobKind::kSnapDeals: {
      const snapdeals::CircuitCounts c = SnapCounts(job.shape);
      out.domain = NextPow2(c.constraints + c.inputs);
      out.variables = c.inputs + c.aux;
      out.vanilla_bytes = VanillaBytes(job.shape);
      return out;
    }
    case JobKind::kGenericR1cs: {
      if (!job.params) throw std::invalid_argument("GENERIC_R1CS job " + job.id + " has no parameter set");
      // Loaded by the service before queueing (BindGenericWitness); otherwise loads here.
      const std::shared_ptr<const LoadedParams> p = job.params.Get(nullptr);
      out.domain = p->pk.domain_size();
      out.variables = std::max<uint64_t>(job.witness.values.size(), p->pk.num_variables());
      out.snarkjs_h = p->pk.h_form == groth16::HQueryForm::kSnarkjsOddCoset;
      return out;
    }
    default: break;
  }
  throw std::invalid_argument(std::string("the pipeline runner does not prove ") + JobKindName(job.kind) + " jobs");
}

scheduler::PartitionBytes EstimatePartitionBytes(const PartitionCircuitShape& s) {
  scheduler::PartitionBytes b;
  b.abc = 3 * s.domain * kFr + (s.snarkjs_h ? 2 * s.domain * kFr : 0);
  b.total = b.abc + s.variables * kFr + s.vanilla_bytes + kFixedBytes;
  b.pinned_abc = false;  // the runner sets it when it has a PinnedPool (see the header)
  return b;
}

PartitionWork::PartitionWork(std::shared_ptr<ProofJob> job, scheduler::PartitionBytes bytes, unsigned engine_threads,
                             std::function<groth16::Backend&(int device)> backend_for,
                             std::function<void()> cancel_pipeline_job, std::function<void()> released)
    : job_(std::move(job)),
      submitted_(job_->submitted),
      bytes_(bytes),
      engine_threads_(engine_threads),
      backend_for_(std::move(backend_for)),
      cancel_pipeline_job_(std::move(cancel_pipeline_job)),
      released_(std::move(released)),
      times_(job_->PartitionCount()) {}

PartitionWork::~PartitionWork() {
  job_.reset();  // vanilla proofs and the parameter lease go before anyone hears
  if (released_) released_();
}

scheduler::PartitionBytes PartitionWork::EstimateBytes(uint32_t) const { return bytes_; }

void PartitionWork::Boundary(const scheduler::PartitionContext& ctx) {
  if (job_->cancel->cancelled()) {
    bool forward;
    {
      std::lock_guard lock(mu_);
      forward = !cancel_forwarded_;
      cancel_forwarded_ = true;
    }
    // The daemon cancelled the job (its token): end it in the pipeline too,
    // which drops its queued partitions and delivers kCancelled (unless the
    // pipeline already ended it: its id may then belong to a newer job).
    if (forward && cancel_pipeline_job_ && !ctx.cancel.cancelled()) cancel_pipeline_job_();
    throw scheduler::CancelledError();
  }
  ctx.cancel.ThrowIfCancelled();
}

std::unique_ptr<scheduler::StageData> PartitionWork::Synthesize(const scheduler::PartitionContext& ctx) {
  const auto t_enter = Clock::now();
  {
    std::lock_guard lock(mu_);
    if (!first_synthesis_) first_synthesis_ = t_enter;
  }
  Boundary(ctx);
  double load_ms = 0;
  auto out = std::make_unique<Synthesized>();
  out->params = job_->params.Get(&load_ms);
  Boundary(ctx);
  const auto t0 = Clock::now();
  groth16::ProveOptions::AbcMemoryFn abc_memory;
  if (bytes_.pinned_abc) abc_memory = [&ctx](size_t m, size_t n) { return LeasedAbcMemory(ctx, m, n); };
  out->input = SynthesizePartition(*job_, ctx.partition, *out->params, engine_threads_, abc_memory);
  const double synth_ms = MsSince(t0);
  std::lock_guard lock(mu_);
  times_.at(ctx.partition).times.srs_load_ms = load_ms;
  times_.at(ctx.partition).times.synthesis_ms = synth_ms;
  return out;
}

std::unique_ptr<scheduler::StageData> PartitionWork::GpuStart(const scheduler::PartitionContext& ctx,
                                                              std::unique_ptr<scheduler::StageData> synthesized) {
  Boundary(ctx);
  auto& s = dynamic_cast<Synthesized&>(*synthesized);
  auto out = std::make_unique<Pending>();
  out->params = s.params;
  out->backend = &backend_for_(ctx.device);
  const auto t0 = Clock::now();
  std::vector<groth16::PendingProof> pending = out->backend->ProveStart(s.params->pk, std::span(&s.input, 1));
  const double ms = MsSince(t0);
  synthesized.reset();  // a/b/c (consumed by ProveStart; their buffers go now, before the pipeline releases their bytes)
  out->pending = std::move(pending.at(0));
  std::lock_guard lock(mu_);
  times_.at(ctx.partition).times.gpu_ms += ms;
  return out;
}

std::vector<uint8_t> PartitionWork::Finish(const scheduler::PartitionContext& ctx,
                                           std::unique_ptr<scheduler::StageData> pending) {
  Boundary(ctx);
  auto& p = dynamic_cast<Pending&>(*pending);
  const auto t0 = Clock::now();
  const groth16::Proof proof = FinishPartitionProof(*p.backend, p.params->pk, std::move(p.pending));
  const double ms = MsSince(t0);
  pending.reset();  // z
  const groth16::ProofBytes bytes = EncodeProof(proof);
  std::lock_guard lock(mu_);
  times_.at(ctx.partition).times.gpu_ms += ms;
  times_.at(ctx.partition).finish_ms = ms;
  return {bytes.begin(), bytes.end()};
}

bool PartitionWork::Verify(const scheduler::PartitionContext& ctx, std::span<const uint8_t> proof) {
  Boundary(ctx);
  const auto t0 = Clock::now();
  std::string why;
  const std::optional<groth16::Proof> decoded = groth16::DecodeProof(proof, &why);
  if (!decoded) throw std::runtime_error("the encoded proof does not decode: " + why);
  // The parameters are in memory: the partition's synthesis loaded them.
  const std::shared_ptr<const LoadedParams> params = job_->params.Get(nullptr);
  const bool ok = VerifyPartitionProof(*job_, ctx.partition, *params, *decoded);
  const double ms = MsSince(t0);
  std::lock_guard lock(mu_);
  times_.at(ctx.partition).times.verify_ms = ms;
  if (!ok) throw std::runtime_error("the proof does not verify against the partition's public inputs");
  return true;
}

PartitionTimes PartitionWork::Times(uint32_t partition) const {
  std::lock_guard lock(mu_);
  return times_.at(partition);
}

JobTimings PartitionWork::JobTotals() const {
  std::lock_guard lock(mu_);
  JobTimings t;
  for (const PartitionTimes& p : times_) {
    t.srs_load_ms = std::max(t.srs_load_ms, p.times.srs_load_ms);
    t.synthesis_ms += p.times.synthesis_ms;
    t.gpu_ms += p.times.gpu_ms;
    t.verify_ms += p.times.verify_ms;
  }
  if (first_synthesis_)
    t.queue_wait_ms = std::chrono::duration<double, std::milli>(*first_synthesis_ - submitted_).count();
  return t;
}

}  // namespace cuzk::daemon
