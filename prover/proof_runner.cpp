#include "prover/proof_runner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <utility>
#include <vector>

#include "engine/groth16/key_image.hpp"
#include "engine/util/exception_message.hpp"
#include "engine/util/parallel.hpp"
#include "memory/meminfo.hpp"
#include "prover/devices.hpp"
#include "prover/partition_work.hpp"

#ifdef CUZK_HAVE_CUDA
#include "cuda/groth16/cuda_backend.hpp"
#endif

namespace cuzk::prover {
namespace {

#ifdef CUZK_HAVE_CUDA
// The CUDA backends among the GPU backends, with their device ordinals.
std::vector<std::pair<int, cuda::CudaBackend*>> CudaGpus(
    const std::map<int, std::unique_ptr<groth16::Backend>>& backends) {
  std::vector<std::pair<int, cuda::CudaBackend*>> gpus;
  for (const auto& [device, backend] : backends)
    if (auto* gpu = dynamic_cast<cuda::CudaBackend*>(backend.get())) gpus.emplace_back(device, gpu);
  return gpus;
}

// config gpus.compressed_h (checked when the config was read: one of these).
cuda::CudaBackendOptions::CompressedH CompressedHPolicy(const std::string& name) {
  using P = cuda::CudaBackendOptions::CompressedH;
  if (name == "never") return P::kNever;
  if (name == "always") return P::kAlways;
  if (name == "auto") return P::kAuto;
  throw std::invalid_argument("gpus.compressed_h must be auto, never or always, not \"" + name + "\"");
}
#endif

std::string Gb(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GB", double(bytes) / 1e9);
  return b;
}

std::vector<int> ResolveDevices(const RunnerOptions& o) {
  std::vector<int> devices;
#ifdef CUZK_HAVE_CUDA
  if (o.cpu_workers) return devices;
  if (!o.gpu_devices.empty()) return o.gpu_devices;  // a missing one: CudaBackend throws naming it
  for (const GpuInfo& g : QueryGpus({})) devices.push_back(int(g.ordinal));
#else
  if (!o.cpu_workers && !o.gpu_devices.empty())
    spdlog::warn("proof runner: GPU devices configured, but this build has no CUDA: CPU-backend workers");
#endif
  return devices;
}

std::unique_ptr<memory::Budget> MakeBudget(const RunnerOptions& o) {
  if (o.budget) return nullptr;
  return std::make_unique<memory::Budget>(o.budget_bytes ? *o.budget_bytes : memory::AutoBudgetBytes(o.safety_margin));
}

void Validate(const RunnerOptions& o, const JobObserver* observer) {
  if (!observer) throw std::invalid_argument("ProofRunner: no observer");
  if (o.synthesis_threads == 0) throw std::invalid_argument("ProofRunner: synthesis_threads must be >= 1");
  if (o.workers_per_device == 0) throw std::invalid_argument("ProofRunner: workers_per_device must be >= 1");
  if (o.cpu_backend_workers == 0) throw std::invalid_argument("ProofRunner: cpu_backend_workers must be >= 1");
}

}  // namespace

ProofRunner::ProofRunner(const RunnerOptions& options, JobObserver* observer)
    : options_((Validate(options, observer), options)),
      observer_(observer),
      devices_(ResolveDevices(options)),
      cpu_backend_({.threads = options.engine_threads}),
      owned_budget_(MakeBudget(options)),
      budget_(options.budget ? options.budget : owned_budget_.get()) {
  if (budget_->capacity() == 0) throw std::invalid_argument("ProofRunner: budget is 0 bytes");
#ifdef CUZK_HAVE_CUDA
  for (int d : devices_) {
    // One lane per GPU worker: a worker's evaluation and NTTs run beside the other's MSMs.
    gpu_backends_.emplace(d, std::make_unique<cuda::CudaBackend>(
                                 cuda::CudaBackendOptions{.device = d,
                                                          .cpu_threads = options.engine_threads,
                                                          .lanes = options.workers_per_device,
                                                          .witness_beside_h = options.witness_beside_h,
                                                          .shifted_h = options.shifted_h_bases,
                                                          .early_proving = options.early_proving,
                                                          .compressed_h = CompressedHPolicy(options.compressed_h)}));
  }
#endif
  scheduler::PipelineConfig pc;
  pc.synthesis_threads = options.synthesis_threads;
  pc.gpu_devices = devices_;  // empty: CPU-backend workers (device -1)
  pc.gpu_workers_per_device = devices_.empty() ? options.cpu_backend_workers : options.workers_per_device;
  pc.finalizer_threads = std::max(1u, options.finalizer_threads);
  if (options.pacer_target > 0) pc.pacer.target = options.pacer_target;
  pc.max_run_ahead = options.max_run_ahead;
  pc.pacer.Validate();
  pc.timeline = options.timeline ? options.timeline : [](std::string_view line) { spdlog::info("{}", line); };
  if (options.pinned_abc && (!devices_.empty() || options.pinned_abc_on_cpu_workers)) {
    // The page-locked ceiling bounds how many ~1 s cudaHostAlloc stalls a
    // burst can cause (PinnedPoolOptions::max_page_locked_bytes); beyond it
    // a/b/c buffers are plain memory, freed after use.
    pinned_.emplace(*budget_, memory::PinnedPoolOptions{.max_idle_bytes = options.pinned_limit,
                                                        .try_page_lock = !devices_.empty(),
                                                        .max_page_locked_bytes = options.pinned_limit});
    if (!devices_.empty() && !memory::PinnedPool::PageLockingAvailable())
      spdlog::warn("proof runner: page-locked host memory is not available; a/b/c buffers are pageable");
  }
  const bool witness_only = options.witness_only && (!devices_.empty() || options.witness_only_on_cpu_workers);
  preferred_form_ = witness_only ? SynthesisForm::kWitness
                    : pinned_    ? SynthesisForm::kAbcPinned
                                 : SynthesisForm::kAbcVectors;
  pipeline_ = std::make_unique<scheduler::Pipeline>(std::move(pc), *budget_, pinned_ ? &*pinned_ : nullptr);
  spdlog::info("proof runner: {} synthesis thread(s), {}, budget {}, synthesis writes {}", options.synthesis_threads,
               devices_.empty() ? std::to_string(options.cpu_backend_workers) + " CPU-backend worker(s)"
                                : std::to_string(devices_.size()) + " GPU(s) x " +
                                      std::to_string(options.workers_per_device) + " worker(s)",
               Gb(budget_->capacity()),
               preferred_form_ == SynthesisForm::kWitness     ? "the witness only (a/b/c evaluated on the GPU)"
               : preferred_form_ == SynthesisForm::kAbcPinned ? "a/b/c into pinned pool buffers"
                                                              : "a/b/c into pageable vectors");
}

ProofRunner::~ProofRunner() {
  Shutdown(std::chrono::steady_clock::now());
  std::vector<Preparer> preparers;
  {
    absl::MutexLock lock(&prepare_mu_);
    preparers.swap(preparers_);
  }
  for (auto& p : preparers) p.thread.join();
  pipeline_.reset();  // joins whatever is still running; every on_released is delivered by then
  // The GPU backends next (they join their key images' streams, whose
  // callbacks give back budget reservations), while the budget still exists.
  gpu_backends_.clear();
}

bool ProofRunner::PreparesCompactCircuits() const {
#ifdef CUZK_HAVE_CUDA
  return preferred_form_ == SynthesisForm::kWitness && !gpu_backends_.empty();
#else
  return false;
#endif
}

groth16::KeyImageH ProofRunner::KeyImageHForGpus() const {
#ifdef CUZK_HAVE_CUDA
  if (gpu_backends_.empty()) return groth16::KeyImageH::kPlain;
  switch (CompressedHPolicy(options_.compressed_h)) {
    case cuda::CudaBackendOptions::CompressedH::kNever: return groth16::KeyImageH::kPlain;
    case cuda::CudaBackendOptions::CompressedH::kAlways: return groth16::KeyImageH::kCompressed;
    case cuda::CudaBackendOptions::CompressedH::kAuto: return groth16::KeyImageH::kBoth;
  }
#endif
  return groth16::KeyImageH::kPlain;
}

void ProofRunner::PrepareDevices(std::shared_ptr<const LoadedParams> params, AllHold all_hold) {
#ifdef CUZK_HAVE_CUDA
  if (!params) return;
  const r1cs::CompiledCircuit* circuit =
      preferred_form_ == SynthesisForm::kWitness && !params->generic ? &params->circuit : nullptr;
  // What the preparers share: how many are still running, and whether every
  // one so far left its device holding the whole set.
  struct Shared {
    std::atomic<size_t> running{0};
    std::atomic<bool> all_hold{true};
  };
  auto shared = std::make_shared<Shared>();
  const std::vector<std::pair<int, cuda::CudaBackend*>> gpus = CudaGpus(gpu_backends_);
  if (gpus.empty()) {
    params->devices_prepared.Notify();
    return;
  }
  shared->running = gpus.size();
  absl::MutexLock lock(&prepare_mu_);
  // The earlier loads' preparers that are done: joined now (a moment's wait
  // at most: `done` is their last step).
  std::erase_if(preparers_, [](Preparer& p) {
    if (!p.done->load()) return false;
    p.thread.join();
    return true;
  });
  preparers_.reserve(preparers_.size() + gpus.size());  // no throw between a thread's start and its push_back
  for (const auto& [ordinal, backend] : gpus) {
    const int device = ordinal;  // plain variables: clang 14 cannot capture a structured binding
    cuda::CudaBackend* gpu = backend;
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread thread([this, gpu, device, params, circuit, shared, all_hold, done] {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        gpu->Prepare(params->pk, circuit, circuit ? params->compact.get() : nullptr);
        const cuda::CudaBackendStats s = gpu->Stats();
        spdlog::info(
            "GPU_PREPARE,device={},ms={:.0f},bases_ms={:.0f},circuit_ms={:.0f},shift_ms={:.0f},resident_base_bytes={},"
            "resident_circuit_bytes={},shifted_h_bytes={},shifted_h_window_bits={}",
            device, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
            s.prepare_bases_ms, s.prepare_circuit_ms, s.prepare_shift_ms, s.resident_base_bytes,
            s.resident_circuit_bytes, s.shifted_h_bytes, s.shifted_h_window_bits);
        if (!gpu->HoldsOnDevice(params->pk, circuit)) {
          shared->all_hold = false;
          spdlog::info("GPU_PREPARE,device={},holds=partial (some bases stream from host memory): the host copy stays",
                       device);
        }
      } catch (const std::exception& e) {
        // Not fatal: the first proof uploads what is missing, as without Prepare.
        shared->all_hold = false;
        spdlog::warn("GPU_PREPARE,device={},failed: {}", device, e.what());
      }
      // Prepare frees the GPU's spare key image buffers (a set loaded the usual way): so goes their charge.
      SettleKeyImageSpare(device, *gpu, {});
      if (shared->running.fetch_sub(1) == 1) {
        if (shared->all_hold && all_hold) all_hold(circuit != nullptr);
        params->devices_prepared.Notify();
      }
      *done = true;
    });
    preparers_.push_back({std::move(thread), std::move(done)});
  }
#else
  if (params) params->devices_prepared.Notify();
  (void)all_hold;
#endif
}

// Reading threads per device for a key image: the engine's share split
// among the devices (each reads the image from the page cache itself).
// At most 16 a device: 2 x 48 MiB of page-locked (and device) memory each
// while a set loads, 1.5 GB a device (charged to the budget: KeyImageBufferBytes).
unsigned ProofRunner::KeyImageThreads(size_t devices) const {
  const unsigned share = util::ResolveThreads(options_.engine_threads) / unsigned(std::max<size_t>(devices, 1));
  return std::clamp(share, 1u, 16u);
}

uint64_t ProofRunner::KeyImageBufferBytes() const {
  return uint64_t(KeyImageThreads(gpu_backends_.size())) * 2 * groth16::KeyImageStream::BufferBytes();
}

memory::Reservation ProofRunner::TakeKeyImageSpare(int device) {
  absl::MutexLock lock(&key_image_mu_);
  const auto it = key_image_spares_.find(device);
  if (it == key_image_spares_.end()) return {};
  memory::Reservation r = std::move(it->second);
  key_image_spares_.erase(it);
  return r;
}

#ifdef CUZK_HAVE_CUDA
void ProofRunner::SettleKeyImageSpare(int device, const cuda::CudaBackend& gpu, memory::Reservation charge) {
  absl::MutexLock lock(&key_image_mu_);
  const auto it = key_image_spares_.find(device);
  if (gpu.HoldsKeyImageSpare()) {
    if (it == key_image_spares_.end()) key_image_spares_.emplace(device, std::move(charge));
  } else if (it != key_image_spares_.end()) {
    key_image_spares_.erase(it);
  }
}
#endif

void ProofRunner::PrepareKeyImageBuffers() {
#ifdef CUZK_HAVE_CUDA
  const auto gpus = CudaGpus(gpu_backends_);
  {
    absl::MutexLock lock(&key_image_mu_);
    if (key_image_spares_made_) return;  // the backends make their spares once
    key_image_spares_made_ = true;
  }
  for (const auto& [device, gpu] : gpus) {
    // Charged first (Charge never blocks): the buffers exist from the call
    // on; the charge is kept only if the backend holds them after it.
    memory::Reservation charge = budget_->Charge(KeyImageBufferBytes());
    gpu->PrepareKeyImageBuffers(KeyImageThreads(gpus.size()));
    SettleKeyImageSpare(device, *gpu, std::move(charge));
  }
#endif
}

bool ProofRunner::LoadKeyImage(const groth16::ProvingKey& shell, std::shared_ptr<const groth16::KeyImageStream> image,
                               uint64_t circuit_bytes, const SrsRegistry::CompactSource& compact,
                               const SrsRegistry::DevicesBroken& broken) {
#ifdef CUZK_HAVE_CUDA
  const std::vector<std::pair<int, cuda::CudaBackend*>> gpus = CudaGpus(gpu_backends_);
  if (gpus.empty()) return false;
  const unsigned threads = KeyImageThreads(gpus.size());
  const bool early = options_.early_proving;
  std::vector<std::future<bool>> loads;
  // Every launched load is waited for below, whatever happens to the others.
  std::exception_ptr failed;
  try {
    for (const auto& [ordinal, backend] : gpus) {
      const int device = ordinal;
      cuda::CudaBackend* gpu = backend;
      loads.push_back(std::async(std::launch::async, [&, device, gpu] {
        // The upload's page-locked buffers, charged while they exist: the
        // spare's charge (LoadKeyImage takes the spare and frees it), else
        // the buffers this load makes. Released when the load returns, or
        // with early_proving when the witness sections have landed (the
        // buffers go with their stream).
        auto buffers = std::make_shared<memory::Reservation>(TakeKeyImageSpare(device));
        if (buffers->empty()) *buffers = budget_->Charge(KeyImageBufferBytes());
        bool landing = false;  // the stream's thread owns `buffers` now
        // On every way out: a load that returned before streaming (no room
        // on the device, no G2 there) left the spare, and keeps its charge.
        struct Settle {
          ProofRunner& runner;
          int device;
          const cuda::CudaBackend& gpu;
          memory::Reservation& charge;
          const bool& landing;
          ~Settle() { runner.SettleKeyImageSpare(device, gpu, landing ? memory::Reservation{} : std::move(charge)); }
        } settle{*this, device, *gpu, *buffers, landing};
        const auto t0 = std::chrono::steady_clock::now();
        const cuda::CudaBackendStats before = gpu->Stats();
        const cuda::CudaBackend::OnLanded on_landed = [device, buffers, broken,
                                                       early](const cuda::CudaBackend::Landed& l) {
          if (!early) return;  // the GPU_KEY_IMAGE line says it all
          buffers->Reset();
          if (l.cancelled) {  // the key was dropped (the set unloaded, a failed load, shutdown): not the set's fault
            spdlog::info("GPU_KEY_LANDED,device={},cancelled: the key was dropped ({} deferred proof(s) failed)",
                         device, l.deferred);
            return;
          }
          if (l.error) {
            spdlog::error("GPU_KEY_LANDED,device={},failed: {} ({} deferred proof(s) failed; the set loads again)",
                          device, util::ExceptionMessage(l.error), l.deferred);
            if (broken) broken(l.error);
            return;
          }
          spdlog::info("GPU_KEY_LANDED,device={},ms={:.0f},bytes={},gb_per_s={:.2f},deferred={}", device, l.ms, l.bytes,
                       l.ms > 0 ? double(l.bytes) / l.ms / 1e6 : 0.0, l.deferred);
        };
        const bool held = gpu->LoadKeyImage(shell, image, circuit_bytes, threads, compact, on_landed);
        landing = held && early;
        const cuda::CudaBackendStats after = gpu->Stats();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const uint64_t bytes = after.image_bases_bytes - before.image_bases_bytes;
        const bool h_compressed = after.image_h_compressed > before.image_h_compressed;
        if (h_compressed && CompressedHPolicy(options_.compressed_h) == cuda::CudaBackendOptions::CompressedH::kNever) {
          // The image was written by a daemon set to "always" (H compressed
          // only): the GPU reads the one form there is. Said once per load.
          spdlog::warn(
              "GPU_KEY_IMAGE,device={},gpus.compressed_h=never overridden: the key image holds H compressed only "
              "(written with compressed_h=always); it is decompressed on the GPU. Remove the image to have it "
              "written again with H plain",
              device);
        }
        spdlog::info(
            "GPU_KEY_IMAGE,device={},held={},ms={:.0f},buffers_ms={:.0f},release_ms={:.0f},bytes={},gb_per_s={:.2f},"
            "threads={},circuit_ms={:.0f},circuit_bytes={},h={}{}",
            device, held ? 1 : 0, ms, after.image_buffers_ms - before.image_buffers_ms,
            after.image_release_ms - before.image_release_ms, bytes, ms > 0 ? double(bytes) / ms / 1e6 : 0.0, threads,
            after.image_circuit_ms - before.image_circuit_ms, after.image_circuit_bytes - before.image_circuit_bytes,
            h_compressed ? "compressed" : "plain", landing ? ",witness=streaming" : "");
        return held;
      }));
    }
  } catch (...) {
    failed = std::current_exception();  // a thread that could not start
  }
  bool all = !failed;
  for (auto& load : loads) {
    try {
      all = load.get() && all;
    } catch (...) {
      all = false;
      if (!failed) failed = std::current_exception();
    }
  }
  if (!all) {
    for (const auto& [ordinal, gpu] : gpus) gpu->ForgetKey(shell);  // none keeps a part of it (waits for a stream)
  }
  if (failed) std::rethrow_exception(failed);
  return all;
#else
  (void)shell, (void)image, (void)circuit_bytes, (void)compact, (void)broken;
  return false;
#endif
}

void ProofRunner::FillHeld(GpuInfo& gpu) const {
#ifdef CUZK_HAVE_CUDA
  for (const auto& [device, backend] : CudaGpus(gpu_backends_)) {
    if (device != int(gpu.ordinal)) continue;
    const cuda::CudaBackendStats s = backend->StatsNow();  // never waits for an upload
    gpu.bases_bytes = s.resident_base_bytes;
    gpu.circuit_bytes = s.resident_circuit_bytes;
    gpu.shifted_h_bytes = s.shifted_h_bytes;
    gpu.keys_landing = s.keys_landing;
    gpu.deferred_proofs = s.deferred_proofs;
  }
#else
  (void)gpu;
#endif
}

void ProofRunner::ForgetOnDevices(const LoadedParams& params) {
#ifdef CUZK_HAVE_CUDA
  for (const auto& [device, gpu] : CudaGpus(gpu_backends_)) {
    const uint64_t before = gpu->Stats().resident_base_bytes;
    gpu->ForgetKey(params.pk);
    const cuda::CudaBackendStats s = gpu->Stats();
    if (s.resident_base_bytes != before) {
      spdlog::info("GPU_FORGET,device={},circuit={},freed_base_bytes={},resident_base_bytes={}", device,
                   params.circuit_id, before - s.resident_base_bytes, s.resident_base_bytes);
    }
  }
#else
  (void)params;
#endif
}

void ProofRunner::Enqueue(std::shared_ptr<ProofJob> job) {
  if (!job) throw std::invalid_argument("Enqueue: no job");
  const std::string id = job->id;
  const SynthesisForm form = FormFor(*job, preferred_form_);
  const scheduler::PartitionBytes bytes = EstimatePartitionBytes(*job, form);
  const uint64_t params_bytes = options_.parameters_in_budget && job->params ? job->params.ChargeBytes() : 0;
  if (bytes.total + params_bytes > budget_->capacity())
    throw JobExceedsBudgetError(id, bytes, budget_->capacity(), params_bytes);
  uint64_t key;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) throw std::runtime_error("the daemon is shutting down");
    key = next_key_++;
    Record& r = records_[key];
    r.id = id;
    r.kind = job->kind;
    keys_[id] = key;
  }
  scheduler::JobRequest req;
  req.id = job->id;
  req.priority = job->priority;
  req.partitions = job->PartitionCount();
  req.kind = JobKindName(job->kind);
  req.cancel = job->cancel;
  req.on_started = [this, key] { OnStarted(key); };
  req.on_stage = [this, id = job->id](uint32_t p, const PartitionStatus& s) { observer_->OnPartitionStage(id, p, s); };
  req.on_done = [this, key](JobResult r) { OnDone(key, std::move(r)); };
  req.on_released = [this, key] { OnReleased(key); };
  req.work = std::make_shared<PartitionWork>(
      std::move(job), form, bytes, options_.engine_threads,
      [this](int device) -> groth16::Backend& { return BackendFor(device); }, options_.synthesis_delay,
      options_.gpu_delay);
  try {
    pipeline_->Submit(std::move(req));
  } catch (const memory::BudgetExceededError&) {
    Forget(key);
    throw JobExceedsBudgetError(id, bytes, budget_->capacity(), params_bytes);
  } catch (...) {
    Forget(key);
    throw;
  }
}

std::optional<uint32_t> ProofRunner::QueuePosition(const std::string& job_id) const {
  return pipeline_->QueuePosition(job_id);
}

void ProofRunner::Forget(uint64_t key) {
  absl::MutexLock lock(&mu_);
  keys_.erase(records_[key].id);
  records_.erase(key);
}

bool ProofRunner::RemoveQueued(const std::string& job_id) {
  if (!pipeline_->RemoveQueued(job_id)) return false;
  absl::MutexLock lock(&mu_);
  if (auto it = keys_.find(job_id); it != keys_.end()) {
    records_.erase(it->second);
    keys_.erase(it);
  }
  return true;
}

bool ProofRunner::Cancel(const std::string& job_id) { return pipeline_->Cancel(job_id); }

RunnerCounts ProofRunner::Counts() const {
  RunnerCounts c;
  const scheduler::PipelineStatus s = pipeline_->Status();
  c.workers = s.synthesis_threads;
  c.busy_workers = uint32_t(s.synthesizing);
  absl::MutexLock lock(&mu_);
  for (const auto& [key, r] : records_) {
    auto& k = c.by_kind[r.kind];
    (r.started ? k.in_progress : k.pending)++;
  }
  return c;
}

bool ProofRunner::Shutdown(std::chrono::steady_clock::time_point deadline) {
  bool first;
  {
    absl::MutexLock lock(&mu_);
    first = !stopping_;
    stopping_ = true;
  }
  // Not started: cancelled now; started: until the deadline, then cancelled.
  // When it returns true every thread has left, and every on_released was
  // delivered on the way out.
  const bool stopped = pipeline_->Shutdown(deadline);
  if (!stopped) spdlog::warn("shutdown: a pipeline thread is still inside an engine call");
  if (first) LogGpuTransfers();  // once (the destructor shuts down again)
  return stopped;
}

void ProofRunner::LogGpuTransfers() const {
#ifdef CUZK_HAVE_CUDA
  for (const auto& [device, backend] : gpu_backends_) {
    const auto* cuda_backend = dynamic_cast<const cuda::CudaBackend*>(backend.get());
    if (!cuda_backend) continue;
    const cuda::CudaBackendStats t = cuda_backend->Stats();
    if (t.proofs == 0) continue;
    auto rate = [](uint64_t bytes, double ms) { return ms > 0 ? double(bytes) / ms / 1e6 : 0.0; };
    spdlog::info(
        "GPU {}: {} partition(s), ProveStart {:.1f} ms each; a/b/c H2D {:.2f} GB ({:.0f}% from pinned "
        "memory) at {:.1f} GB/s per copy; z H2D {:.2f} GB ({:.0f}% pinned) at {:.1f} GB/s",
        device, t.proofs, t.prove_start_ms / double(t.proofs), double(t.abc_bytes) / 1e9,
        t.abc_bytes ? 100.0 * double(t.abc_pinned_bytes) / double(t.abc_bytes) : 0.0, rate(t.abc_bytes, t.abc_ms),
        double(t.z_bytes) / 1e9, t.z_bytes ? 100.0 * double(t.z_pinned_bytes) / double(t.z_bytes) : 0.0,
        rate(t.z_bytes, t.z_ms));
    spdlog::info("GPU {}: key bases resident {:.2f} GB; {} MSM(s) streamed their bases from host memory ({:.2f} GB)",
                 device, double(t.resident_base_bytes) / 1e9, t.streamed_msms, double(t.streamed_base_bytes) / 1e9);
  }
#endif
}

groth16::Backend& ProofRunner::BackendFor(int device) {
  if (device < 0) return cpu_backend_;
  auto it = gpu_backends_.find(device);
  if (it == gpu_backends_.end()) throw std::logic_error("no backend for device " + std::to_string(device));
  return *it->second;
}

void ProofRunner::OnStarted(uint64_t key) {
  std::string id;
  {
    absl::MutexLock lock(&mu_);
    auto it = records_.find(key);
    if (it == records_.end()) return;
    it->second.started = true;
    id = it->second.id;
    keys_.erase(id);  // no longer RemoveQueued-able
  }
  observer_->OnJobStarted(id);
}

void ProofRunner::OnDone(uint64_t key, JobResult result) {
  absl::MutexLock lock(&mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return;
  if (result.outcome == JobOutcome::kCancelled && stopping_) result.error = "cancelled: the daemon is shutting down";
  it->second.result = std::move(result);
}

void ProofRunner::OnReleased(uint64_t key) {
  Record r;
  {
    absl::MutexLock lock(&mu_);
    auto it = records_.find(key);
    if (it == records_.end()) return;
    r = std::move(it->second);
    records_.erase(it);
    if (auto k = keys_.find(r.id); k != keys_.end() && k->second == key) keys_.erase(k);
  }
  if (!r.result) return;  // (the pipeline calls on_done first: unreachable)
  if (r.result->outcome == JobOutcome::kFailed) spdlog::error("job {}: {}", r.id, r.result->error);
  observer_->OnJobFinished(r.id, std::move(*r.result));
}

JobExceedsBudgetError::JobExceedsBudgetError(const std::string& job_id, const scheduler::PartitionBytes& bytes,
                                             uint64_t capacity, uint64_t params_bytes)
    : memory::BudgetExceededError(bytes.total + params_bytes, capacity),
      message_("job " + job_id + ": one partition needs " + std::to_string(bytes.total) + " bytes (" + Gb(bytes.total) +
               ", of which a/b/c " + Gb(bytes.abc) + ")" +
               (params_bytes ? " beside its parameter set's " + Gb(params_bytes) : std::string()) +
               ", more than the whole memory budget of " + std::to_string(capacity) + " bytes (" + Gb(capacity) +
               "): it can never run; raise memory.total_budget") {}

}  // namespace cuzk::prover
