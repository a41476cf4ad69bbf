#include "cuda/groth16/cuda_backend.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "cuda/groth16/h_kernels.hpp"
#include "cuda/groth16/key_image_upload.hpp"
#include "cuda/groth16/witness_landing.hpp"
#include "cuda/msm/msm.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/msm/shifted_bases.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/r1cs/abc_evaluator.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "cuda/runtime/device_info.hpp"
#include "engine/groth16/h_polynomial.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/msm/msm.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compact_witness.hpp"
#include "engine/util/exception_message.hpp"
#include "engine/util/thread_priority.hpp"

namespace cuzk::cuda {

using groth16::PendingProof;
using groth16::ProverInput;
using groth16::ProvingKey;

namespace {

// Sizes plus the first and last point of every G1 section: a different key
// that happens to reuse a freed key's address does not match.
struct KeyFingerprint {
  std::vector<ec::G1Affine> points;
  std::vector<ec::G2Affine> g2_points;
  std::vector<size_t> sizes;
  bool operator==(const KeyFingerprint&) const = default;
};

KeyFingerprint FingerprintOf(const ProvingKey& pk) {
  KeyFingerprint f;
  for (const auto* section : {&pk.h, &pk.l, &pk.a, &pk.b_g1}) {
    f.sizes.push_back(section->size());
    if (!section->empty()) f.points.push_back(section->front()), f.points.push_back(section->back());
  }
  f.sizes.push_back(pk.b_g2.size());
  if (!pk.b_g2.empty()) f.g2_points = {pk.b_g2.front(), pk.b_g2.back()};
  return f;
}

// One section of a key's bases: resident in device memory, or left in the
// key's host memory and streamed on every proof.
template <class Gpu>
struct SectionBases {
  using HostPoint = ec::AffinePoint<typename Gpu::HostCurve>;
  std::span<const HostPoint> host;
  std::optional<DeviceBases<Gpu>> device;

  static size_t DeviceBytes(size_t points) { return points * sizeof(typename DeviceBases<Gpu>::Point); }

  // Uploads when the section fits in `budget` (decremented); an allocation
  // that fails anyway (the budget is an estimate) leaves it streamed.
  SectionBases(std::span<const HostPoint> points, size_t& budget) : host(points) {
    const size_t bytes = DeviceBytes(points.size());
    if (bytes > budget) return;
    try {
      device.emplace(points);
      budget -= bytes;
    } catch (const CudaError& e) {
      if (e.code() != cudaErrorMemoryAllocation) throw;
      cudaGetLastError();  // out of memory is not sticky: clear it and stream this section instead
      device.reset();
    }
  }
  // A section already on the device (CudaBackend::LoadKeyImage).
  SectionBases(std::span<const HostPoint> points, DeviceBases<Gpu>&& on_device)
      : host(points), device(std::move(on_device)) {}
  size_t ResidentBytes() const { return device ? DeviceBytes(host.size()) : 0; }

  typename Msm<Gpu>::Result Run(Msm<Gpu>& msm, const ff::Fr* scalars, size_t n, const MsmGpuOptions& o,
                                CudaBackendStats& stats) const {
    if (device) return msm.Run(*device, scalars, n, o);
    stats.streamed_msms++, stats.streamed_base_bytes += DeviceBytes(n);
    return msm.RunStreamed(host, scalars, n, o);
  }
  // resident_density: the same bitmap already on the device (KeyDensity), or null.
  typename Msm<Gpu>::Result RunDensity(Msm<Gpu>& msm, const ff::Fr* scalars, const msm::DensityBitmap& density,
                                       const DeviceDensity* resident_density, const MsmGpuOptions& o,
                                       CudaBackendStats& stats) const {
    if (device && resident_density) return msm.RunDensity(*device, scalars, *resident_density, o);
    if (device) return msm.RunDensity(*device, scalars, density, o);
    stats.streamed_msms++, stats.streamed_base_bytes += DeviceBytes(density.Count());
    return msm.RunDensityStreamed(host, scalars, density, o);
  }
};

// Shape plus the first and last nonzero of each matrix: a different circuit
// that reuses a freed circuit's address does not match.
struct CircuitFingerprint {
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> columns;
  std::vector<ff::Fr> values;
  bool operator==(const CircuitFingerprint&) const = default;
};

CircuitFingerprint FingerprintOf(const r1cs::CompiledCircuit& c) {
  CircuitFingerprint f;
  f.sizes = {c.num_inputs, c.num_aux, c.num_constraints()};
  for (const r1cs::CsrMatrix* m : {&c.a, &c.b, &c.c}) {
    f.sizes.push_back(m->nonzeros());
    if (m->nonzeros() == 0) continue;
    f.columns.insert(f.columns.end(), {m->columns.front(), m->columns.back()});
    f.values.insert(f.values.end(), {m->values.front(), m->values.back()});
  }
  return f;
}

// A circuit's compact form resident on the device for witness-only proofs
// (cc.Bytes(): 6 B a nonzero, 4 B a row and matrix, the coefficient table).
struct ResidentCircuit {
  ResidentCircuit(const r1cs::CompiledCircuit& c, CircuitFingerprint f, DeviceCircuit&& d)
      : host(&c), fingerprint(std::move(f)), device(std::move(d)) {}
  const r1cs::CompiledCircuit* host;
  CircuitFingerprint fingerprint;
  DeviceCircuit device;
};

// A key's density bitmap on the device (DeviceDensity), made by the first
// proof that needs it (a key streamed from its image gets its densities from
// the circuit after the stream, in BindCircuit) and remade if the key's
// bitmap is no longer the one it was made from. 15 MB and ~3 ms once at
// 32 GiB, instead of ranking and copying it on every density MSM.
struct KeyDensity {
  std::shared_ptr<const DeviceDensity> device;  // shared: a lane may still read a replaced one
  const uint64_t* source = nullptr;             // the host words it was made from
  size_t size = 0;

  // Caller holds Impl::mu.
  std::shared_ptr<const DeviceDensity> For(const msm::DensityBitmap& bits) {
    if (!device || source != bits.words().data() || size != bits.size()) {
      device = std::make_shared<const DeviceDensity>(bits);
      source = bits.words().data();
      size = bits.size();
    }
    return device;
  }
  size_t Bytes() const { return device ? device->bytes() : 0; }
};

// A key's witness sections streaming behind LoadKeyImage
// (CudaBackendOptions::early_proving): the gate the deferred proofs wait on,
// and the thread that streams them and then runs those proofs' witness MSMs.
// Joined by whoever drops the key (ForgetKey, LoadKeyImage of the same key,
// the backend's destructor), never while holding device_mu or mu: the
// queued proofs take both.
struct Landing {
  WitnessLanding gate;
  std::thread thread;  // assigned under join_mu
  std::mutex join_mu;  // held while joining (seconds): never taken under mu
  std::atomic<bool> joined{false};
  // Set by whoever drops the key before it joins: the stream stops at its
  // next chunk (a 32 GiB key's witness sections take ~15 s from a disk),
  // failing the proofs still queued (their key is going anyway).
  std::atomic<bool> cancel{false};
  void Join() {
    std::lock_guard lock(join_mu);
    if (thread.joinable()) thread.join();
    joined = true;
  }
  // Without join_mu, so callers may hold mu (a joiner holds join_mu until
  // the thread ends, and the thread takes mu): false while a join is only
  // under way, which callers treat as not yet joined.
  bool Joined() const { return joined.load(); }
  bool Landed() const { return gate.state() == WitnessLanding::State::kLanded; }
  bool Failed() const { return gate.state() == WitnessLanding::State::kFailed; }
};

// The key's bases (G1 96 B a point on the device, G2 192 B; a 32 GiB
// partition's key ~51 GB in all), resident while they fit in `budget`, in
// the order below; B_g2 only when it runs on the GPU.
struct ResidentKey {
  KeyFingerprint fingerprint;
  // The key's domain and witness length when it was made resident, for
  // sizing what its proofs need (the map's ProvingKey pointer may outlive
  // the key it pointed at: only the fingerprint tells).
  size_t domain = 0, witness = 0;
  SectionBases<G1Gpu> h, l, a, b_g1;
  std::optional<SectionBases<G2Gpu>> b_g2;
  // H's window shifts (Prepare, when the device has room): the H MSM runs on them.
  std::optional<G1ShiftedBases> h_shifted;
  std::shared_ptr<const ResidentCircuit> circuit;  // witness-only proofs: the last circuit proved with this key
  // A compact circuit uploaded beside the key's stream (LoadKeyImage), for
  // the Prepare that follows: taken by CircuitOnDevice when it is given that
  // same compact form (`from` keeps its address from being reused meanwhile),
  // dropped by any other.
  struct Staged {
    std::shared_ptr<const r1cs::CompactCircuit> from;
    DeviceCircuit device;
  };
  std::optional<Staged> staged;
  KeyDensity a_density, b_density;
  // Set while (and after) the witness sections stream behind LoadKeyImage:
  // their device memory is allocated from the start, filled by the stream.
  std::shared_ptr<Landing> landing;
  // Not landed: still streaming, or failed (then Defer rethrows its error).
  bool WitnessNotLanded() const { return landing && !landing->Landed(); }
  bool WitnessFailed() const { return landing && landing->Failed(); }
  ResidentKey(const ProvingKey& pk, bool with_g2, size_t budget)
      : fingerprint(FingerprintOf(pk)),
        domain(pk.domain_size()),
        witness(WitnessLength(pk)),
        h(pk.h, budget),
        l(pk.l, budget),
        a(pk.a, budget),
        b_g1(pk.b_g1, budget) {
    if (with_g2) b_g2.emplace(pk.b_g2, budget);
  }
  // Every section already on the device (CudaBackend::LoadKeyImage).
  ResidentKey(const ProvingKey& pk, SectionBases<G1Gpu>&& h_, SectionBases<G1Gpu>&& l_, SectionBases<G1Gpu>&& a_,
              SectionBases<G1Gpu>&& b_g1_, SectionBases<G2Gpu>&& b_g2_)
      : fingerprint(FingerprintOf(pk)),
        domain(pk.domain_size()),
        witness(WitnessLength(pk)),
        h(std::move(h_)),
        l(std::move(l_)),
        a(std::move(a_)),
        b_g1(std::move(b_g1_)),
        b_g2(std::move(b_g2_)) {}
  // The witness's length: the densities' once the key is bound to its
  // circuit, else (an image's shell, LoadKeyImage) inputs + aux from its counts.
  static size_t WitnessLength(const ProvingKey& pk) {
    return std::max<size_t>(pk.a_density.size(), pk.vk.ic.size() + pk.l.size());
  }
  size_t ResidentBytes() const {
    return h.ResidentBytes() + l.ResidentBytes() + a.ResidentBytes() + b_g1.ResidentBytes() +
           (b_g2 ? b_g2->ResidentBytes() : 0) + a_density.Bytes() + b_density.Bytes() + ShiftedBytes();
  }
  size_t ShiftedBytes() const { return h_shifted ? h_shifted->bytes() : 0; }
  // The H MSM: over the shifted bases when there are some.
  G1Msm::Result RunH(G1Msm& msm, const ff::Fr* scalars, size_t n, const MsmGpuOptions& o,
                     CudaBackendStats& stats) const {
    if (h_shifted && n <= h_shifted->size()) {
      ++stats.shifted_h_msms;
      return msm.Run(*h_shifted, scalars, n, o);
    }
    return h.Run(msm, scalars, n, o, stats);
  }
};

template <class T>
void Reserve(DeviceBuffer<T>& buffer, size_t count) {
  if (buffer.size() >= count) return;
  buffer.Reset();
  buffer = DeviceBuffer<T>(count);
}

// LoadKeyImage's circuit upload beside the key's stream: a thread that waits
// for the compact form (CudaBackend::CompactSource) and uploads it to
// `device`; joined by Take() or the destructor. An upload that fails leaves
// nothing staged (Prepare uploads the circuit then, as without a stager).
class CircuitStager {
 public:
  CircuitStager(int device, const CudaBackend::CompactSource& source) {
    if (!source) return;
    thread_ = std::thread([this, device, &source] {
      // Below the stream's reading threads: the key stream is the load's
      // critical path, this upload has seconds to spare beside it.
      util::LowerThisThreadPriority(10);
      try {
        ScopedDevice on(device);
        std::shared_ptr<const r1cs::CompactCircuit> cc = source();
        if (!cc || stop_) return;  // a load that failed meanwhile does not wait for an upload it drops
        const auto t0 = std::chrono::steady_clock::now();
        DeviceCircuit d(*cc);
        ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        staged_.emplace(ResidentKey::Staged{std::move(cc), std::move(d)});
      } catch (const CudaError& e) {
        if (e.code() == cudaErrorMemoryAllocation) cudaGetLastError();  // not sticky: cleared
      } catch (const std::exception&) {
        // the compact form could not be read: LoadToDevices reports that
      }
    });
  }
  ~CircuitStager() {
    stop_ = true;  // unless taken: the load failed
    Join();
  }
  CircuitStager(const CircuitStager&) = delete;
  CircuitStager& operator=(const CircuitStager&) = delete;

  std::optional<ResidentKey::Staged> Take() {
    Join();
    return std::exchange(staged_, std::nullopt);
  }
  double ms() const { return ms_; }  // after Take

 private:
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::optional<ResidentKey::Staged> staged_;
  double ms_ = 0;
};

}  // namespace

size_t ProofWorkingSetBytes(size_t m, size_t n_z, unsigned lanes) {
  constexpr size_t kFr = 32, kXyzzG1 = 4 * 48;
  // Per scalar of an MSM: canonical form, counts, offsets, one-flags, their
  // slots and the ones' base indices (msm.hpp's scratch).
  constexpr size_t kPerScalar = kFr + 5 * sizeof(uint32_t);
  const uint32_t c = pippenger::DefaultWindowBits(m);
  const size_t windows = SignedDigitWindows(c);
  const size_t entries = m * windows;
  // Per lane: a/b/c and z, and one NTT's scratch (the engine's pool; a
  // lane's transforms run one after another, so one is in use at a time).
  const size_t lane = (3 * m + n_z) * kFr + m * kFr;
  const size_t g1_scalars = m * kPerScalar;    // the H MSM's G1 Msm, sized by H (m scalars)
  const size_t g2_scalars = n_z * kPerScalar;  // the G2 Msm has its own (B_g2, <= n_z)
  // The witness MSMs' G1 Msm (A, B_g1, L: <= n_z scalars each, beside the
  // next H MSM): its per-scalar scratch, and the compact digit entries of
  // their tails, for a witness of mostly 0s and 1s (SnapDeals: ~1% of the
  // scalars are neither; counted as 1/32, each with ~20 windows' entries,
  // double-buffered keys and values). A dense witness (a generic circuit)
  // grows that scratch up to what H's sort takes for n_z scalars: such keys
  // are small next to a 32 GiB SnapDeals key, which this estimate must fit.
  const size_t witness_scalars = n_z * kPerScalar + (n_z / 32) * 20 * 4 * sizeof(uint32_t);
  const size_t sort = entries * (4 * sizeof(uint32_t) + 2);  // H's keys and values, double-buffered; CUB's temp
  const size_t buckets = windows * (size_t(1) << (c - 1)) * kXyzzG1;
  // Two device slices per Msm once any section streams (MsmGpuOptions::stream_slice, default 2^22):
  // the H and witness G1 Msms (96 B a point) and the G2 Msm (192 B).
  const size_t staging = 2 * (size_t(1) << 22) * (2 * 96 + 192);
  constexpr size_t kSlack = size_t(1) << 30;  // NTT tables, CUDA context, fragmentation
  return std::max(lanes, 1u) * lane + g1_scalars + g2_scalars + witness_scalars + sort + buckets + staging + kSlack;
}

size_t ShiftedTableRoom(const ShiftedRoomInputs& in) {
  const size_t margin = std::max<size_t>(in.total_bytes / 32, size_t(2) << 30);
  const size_t still_to_come = in.largest_working_set > in.lanes_made ? in.largest_working_set - in.lanes_made : 0;
  const size_t need = still_to_come + in.build_bytes + margin;
  size_t room = in.free_bytes > need ? in.free_bytes - need : 0;
  if (in.cap) room = std::min(room, *in.cap > in.key_held ? *in.cap - in.key_held : 0);
  return room;
}

// Host memory the device is done with, freed after the locks are let go:
// freeing 1.6 GB (munmap, or cudaFreeHost, which also synchronizes the
// device) takes tens of ms that the other worker's ProveStart need not wait.
struct Retired {
  std::vector<r1cs::AbcVectors> abc;
  std::vector<std::shared_ptr<void>> owners;
  std::vector<r1cs::Assignment> assignments;
};

// One partition in flight on the device up to its MSMs: its streams, the
// a/b/c buffers (the NTTs run in place; a[0] ends as the H MSM's scalars)
// and z. CudaBackendOptions::lanes of them, so one partition's evaluation
// and NTTs (memory-bound) run while another's MSMs (integer-bound) hold the
// MSM scratch. 32 GiB: 3 x 4.3 GB + 2.6 GB a lane.
struct Lane {
  Stream streams[3];
  Event transformed[3];
  Event copy_start[3], copy_end[3];  // a/b/c uploads (CudaBackendStats)
  AbcEvaluator abc_eval;             // witness-only proofs
  DeviceBuffer<ff::Fr> abc[3], z;
  CudaBackendStats stats;  // this call's counters, added to the backend's at its end
  Retired retired;         // emptied by ProveStart after its locks are let go
  // Witness-only: the circuit this proof evaluates (kept alive, should
  // another circuit replace it on the key meanwhile).
  std::shared_ptr<const ResidentCircuit> circuit;
};

// The device-side state, created with the backend's device current (streams
// and the NTT tables belong to the device that was current at creation).
struct GpuState {
  GpuState(int device, unsigned lane_count) : ntt(device) {
    for (unsigned i = 0; i < std::max(lane_count, 1u); ++i) lanes.push_back(std::make_unique<Lane>());
  }
  NttEngine ntt;      // thread-safe (its own lock while enqueuing)
  G1Msm msm;          // the H MSM's scratch: guarded by Impl::msm_mu
  G1Msm msm_witness;  // the witness MSMs' (A, B_g1, L): guarded by Impl::witness_mu
  G2Msm msm_g2;       // B_g2's: guarded by Impl::witness_mu
  std::vector<std::unique_ptr<Lane>> lanes;
  std::map<const ProvingKey*, std::unique_ptr<ResidentKey>> keys;  // guarded by Impl::mu
};

// Locks, outermost first:
//   device_mu  shared by ProveStart calls, exclusive for Prepare and ForgetKey
//              (which change what the calls read);
//   a lane     (free_lanes, under mu + lane_free): one per ProveStart call;
//   msm_mu     the H MSM's scratch: one partition's H MSM at a time;
//   witness_mu the witness MSMs' scratch (msm_witness, msm_g2): one
//              partition's witness MSMs at a time. With witness_beside_h
//              (the default) never held with msm_mu: a lane lets go of
//              msm_mu after its H MSM and then takes witness_mu, so the next
//              lane's H MSM runs beside this one's witness MSMs (their
//              kernels fill the SMs the witness MSMs' small steps and
//              read-backs leave idle); without it, taken after msm_mu;
//   mu         the keys, the backend's stats, the free lanes: brief, except
//              when a first proof uploads a key's bases or circuit (Prepare
//              does that ahead of the proofs).
struct CudaBackend::Impl {
  explicit Impl(const CudaBackendOptions& o) : options(o), device(CheckedDevice(o.device)) {
    ScopedDevice on(device);
    gpu = std::make_unique<GpuState>(device, o.lanes);
    for (auto& lane : gpu->lanes) free_lanes.push_back(lane.get());
  }

  static int CheckedDevice(int device) {
    std::string why;
    const auto devices = ListDevices(&why);
    if (device < 0 || size_t(device) >= devices.size()) {
      throw std::runtime_error("CudaBackend: no CUDA device " + std::to_string(device) + " (" +
                               (devices.empty() ? why : std::to_string(devices.size()) + " present") + ")");
    }
    return device;
  }

  // A lane for one ProveStart call, back to the free list when it goes.
  class LaneHold {
   public:
    explicit LaneHold(Impl& impl) : impl_(impl) {
      std::unique_lock lock(impl_.mu);
      impl_.lane_free.wait(lock, [&] { return !impl_.free_lanes.empty(); });
      lane_ = impl_.free_lanes.back();
      impl_.free_lanes.pop_back();
    }
    ~LaneHold() {
      {
        std::lock_guard lock(impl_.mu);
        impl_.free_lanes.push_back(lane_);
      }
      impl_.lane_free.notify_one();
    }
    LaneHold(const LaneHold&) = delete;
    LaneHold& operator=(const LaneHold&) = delete;
    Lane& lane() { return *lane_; }

   private:
    Impl& impl_;
    Lane* lane_ = nullptr;
  };

  // Caller holds mu.
  ResidentKey& Resident(const ProvingKey& pk) {
    auto it = gpu->keys.find(&pk);
    if (it != gpu->keys.end() && it->second->fingerprint == FingerprintOf(pk)) return *it->second;
    if (it != gpu->keys.end()) {  // a different key at a freed key's address
      if (it->second->landing && !it->second->landing->Joined()) {
        // Its stream may still write into its sections or run proofs on
        // them: the key must be forgotten (ForgetKey waits for the stream)
        // before its address is reused.
        throw std::logic_error("CudaBackend: a key at the address of one whose image stream was not waited for");
      }
      gpu->keys.erase(it);
      stats.resident_circuit_bytes = ResidentCircuitBytes();
    }
    auto key = std::make_unique<ResidentKey>(pk, options.g2_on_gpu, BasesBudget(pk));
    stats.resident_base_bytes = ResidentBytes() + key->ResidentBytes();
    stats.shifted_h_bytes = ShiftedBytes() + key->ShiftedBytes();
    return *gpu->keys.emplace(&pk, std::move(key)).first->second;
  }

  size_t BasesBudget(const ProvingKey& pk) const {
    if (options.resident_bases_bytes) return *options.resident_bases_bytes;
    size_t free_bytes = 0, total_bytes = 0;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // What the lanes already hold is no longer free; what they will hold still
    // is. Their sizes are read only by Prepare (lanes_reserved), which excludes
    // every ProveStart; a first proof without Prepare counts them as still to
    // come (another lane may be growing its buffers meanwhile), which can
    // only leave the bases less room.
    const size_t lanes_now = lanes_reserved;
    const size_t n_z = ResidentKey::WitnessLength(pk);  // a shell's (LoadKeyImage) from its counts
    const size_t need = ProofWorkingSetBytes(pk.domain_size(), n_z, unsigned(gpu->lanes.size())) + circuit_to_come;
    const size_t need_now = need > lanes_now ? need - lanes_now : 0;
    return free_bytes > need_now ? free_bytes - need_now : 0;
  }

  size_t ResidentBytes() const {
    size_t bytes = 0;
    for (const auto& [key, resident] : gpu->keys) bytes += resident->ResidentBytes();
    return bytes;
  }
  size_t ResidentCircuitBytes() const {
    size_t bytes = 0;
    for (const auto& [key, resident] : gpu->keys) {
      bytes += resident->circuit ? resident->circuit->device.bytes() : 0;
      bytes += resident->staged ? resident->staged->device.bytes() : 0;
    }
    return bytes;
  }

  size_t ShiftedBytes() const {
    size_t bytes = 0;
    for (const auto& [key, resident] : gpu->keys) bytes += resident->ShiftedBytes();
    return bytes;
  }

  // Other keys' shifted tables go before a key is sized for the device: they
  // are a cache of their bases, and a key's bases and working set come
  // first (a 19.3 GB 8 MiB table must not push a 32 GiB key's sections into
  // host memory). Those keys' H MSMs then run on their plain bases until a
  // Prepare builds their table again. Caller holds device_mu exclusively (no
  // MSM reads a table meanwhile) and mu.
  void DropShiftedTables(const ProvingKey* except) {
    for (auto& [key, resident] : gpu->keys) {
      if (key != except) resident->h_shifted.reset();
    }
    stats.resident_base_bytes = ResidentBytes();
    NoteShifted();
  }

  // The tables' stats (caller holds mu).
  void NoteShifted() {
    stats.shifted_h_bytes = ShiftedBytes();
    if (stats.shifted_h_bytes == 0) stats.shifted_h_window_bits = 0;
  }

  // H's window shifts for `key` (CudaBackendOptions::shifted_h), sized by
  // ShiftedTableRoom: the proofs' working set is the largest over the
  // resident keys (another key's proofs may grow their scratch later; a
  // 32 GiB key's MSM sort buffers alone are ~26 GB), less what the lanes'
  // a/b/c and z already hold (Prepare sizes them first); the margin covers
  // what the estimate leaves out (the evaluator's scratch, a warming
  // uploader's buffers). The MSM over the table needs no more scratch than
  // the plain one (fewer windows, one window's buckets). Caller holds
  // device_mu exclusively and mu.
  void ShiftH(ResidentKey& key) {
    if (!options.shifted_h || key.h_shifted || !key.h.device || key.h.host.empty()) return;
    if (key.landing && !key.landing->Landed()) return;  // its memory is still in flux (early_proving)
    const auto t0 = std::chrono::steady_clock::now();
    ShiftedRoomInputs in;
    CUZK_CUDA_CHECK(cudaMemGetInfo(&in.free_bytes, &in.total_bytes));
    for (const auto& lane : gpu->lanes) {
      for (const auto& side : lane->abc) in.lanes_made += side.bytes();
      in.lanes_made += lane->z.bytes();
    }
    for (const auto& [other, resident] : gpu->keys) {
      in.largest_working_set =
          std::max(in.largest_working_set,
                   ProofWorkingSetBytes(resident->domain, resident->witness, unsigned(gpu->lanes.size())));
    }
    in.build_bytes = std::min<size_t>(key.h.host.size(), size_t(1) << 22) * sizeof(G1Xyzz);  // the build's slices
    in.cap = options.resident_bases_bytes;
    in.key_held = key.ResidentBytes();
    const uint32_t c = pippenger::ShiftedWindowBits(key.h.host.size(), sizeof(G1Affine), ShiftedTableRoom(in));
    if (c == 0) return;
    try {
      key.h_shifted.emplace(*key.h.device, key.h.host.size(), c);
    } catch (const CudaError& e) {
      if (e.code() != cudaErrorMemoryAllocation) throw;
      cudaGetLastError();  // not sticky: the H MSM runs on the plain bases (h_shifted stays empty)
      return;
    }
    stats.shifted_h_window_bits = c;
    stats.prepare_shift_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  // The circuit's compact form on the device, made on the first witness-only
  // proof with this key and circuit (host compaction: a few hash lookups per
  // nonzero, multi-threaded; then one upload). Caller holds mu.
  // `compact`: the circuit's compact form when the caller has it (a
  // parameter set's image, checked against the circuit when it was read:
  // SrsImageCache::ReadCompact); else it is built here (r1cs::Compact: ~4 s
  // at 32 GiB on 16 threads). A circuit staged on the key from that same
  // compact form (LoadKeyImage) is taken instead of uploading it again.
  std::shared_ptr<const ResidentCircuit> CircuitOnDevice(ResidentKey& key, const r1cs::CompiledCircuit& circuit,
                                                         const r1cs::CompactCircuit* compact = nullptr) {
    CircuitFingerprint f = FingerprintOf(circuit);
    std::optional<ResidentKey::Staged> staged = std::exchange(key.staged, std::nullopt);
    if (key.circuit && key.circuit->host == &circuit && key.circuit->fingerprint == f) return key.circuit;
    key.circuit.reset();  // the old one's device memory goes (once no lane uses it) before the new one is uploaded
    if (staged && compact != nullptr && staged->from.get() == compact) {
      key.circuit = std::make_shared<const ResidentCircuit>(circuit, std::move(f), std::move(staged->device));
      ++stats.image_circuits_taken;
    } else {
      staged.reset();  // not this circuit's: its device memory goes first
      std::optional<r1cs::CompactCircuit> built;
      if (compact == nullptr) compact = &built.emplace(r1cs::Compact(circuit, {.threads = options.cpu_threads}));
      key.circuit = std::make_shared<const ResidentCircuit>(circuit, std::move(f), DeviceCircuit(*compact));
    }
    stats.resident_circuit_bytes = ResidentCircuitBytes();
    return key.circuit;
  }

  // Witness-only: z and a/b/c made on the device (z in lane.z, a/b/c in
  // lane.abc, m each), every row checked. The host's part is compacting z.
  // p.steps gets its parts: "circuit" (the compact circuit's upload on the
  // first proof without Prepare; ~0 after), "compact_z" (only when synthesis
  // did not compact z), "z_expand" (the compact witness's upload and
  // expansion), "abc_eval" (a/b/c into the NTT buffers and the row check).
  void EvaluateOnDevice(Lane& lane, ResidentKey& key, const ProvingKey& pk, const ProverInput& input, PendingProof& p) {
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    const r1cs::CompiledCircuit& circuit = *input.circuit;
    const auto t_circuit = Clock::now();
    {
      std::lock_guard lock(mu);
      lane.circuit = CircuitOnDevice(key, circuit);
    }
    const DeviceCircuit& dc = lane.circuit->device;
    const auto t0 = Clock::now();
    p.steps.emplace_back("circuit", ms(t_circuit, t0));
    std::optional<r1cs::CompactWitness> compacted_here;
    if (!input.compact_z) compacted_here = r1cs::CompactWitnessOf(input.assignment.values, options.cpu_threads);
    const r1cs::CompactWitness& w = input.compact_z ? *input.compact_z : *compacted_here;
    const auto t1 = Clock::now();
    if (compacted_here) p.steps.emplace_back("compact_z", ms(t0, t1));
    const size_t m = pk.domain_size();
    Reserve(lane.z, w.num_variables);
    for (auto& side : lane.abc) Reserve(side, m);
    lane.stats.compact_witness_bytes += lane.abc_eval.ExpandWitness(w, lane.z.data(), lane.streams[0]);
    // Synchronized only to time the step apart (the evaluation on the same
    // stream would wait for it anyway; the cost is one idle launch gap).
    lane.streams[0].Synchronize();
    const auto t2 = Clock::now();
    p.steps.emplace_back("z_expand", ms(t1, t2));
    const std::optional<uint64_t> bad =
        lane.abc_eval.EvaluateAbc(dc, lane.z.data(), lane.abc[0].data(), lane.abc[1].data(), lane.abc[2].data(), m,
                                  lane.streams[0], /*z_is_expanded=*/true);  // just above, same stream
    const auto t3 = Clock::now();
    p.steps.emplace_back("abc_eval", ms(t2, t3));
    lane.stats.compact_witness_ms += ms(t0, t1);
    lane.stats.abc_eval_ms += ms(t1, t3);
    if (bad) {
      ff::Fr v[3];
      for (int k = 0; k < 3; ++k) lane.abc[k].CopyToHost(std::span<ff::Fr>(&v[k], 1), lane.streams[0], *bad);
      lane.streams[0].Synchronize();
      throw groth16::UnsatisfiedWitnessError({*bad, circuit.RowName(*bad), v[0], v[1], v[2]});
    }
  }

  static void Retire(Lane& lane, ProverInput& input) {
    lane.retired.abc.push_back(std::move(input.abc));
    lane.retired.owners.push_back(std::move(input.abc_owner));
    input.ReleaseAbc();
  }

  // H scalars on the device in lane.abc[0] (m - 1 of them for bellperson
  // keys, m for snarkjs keys). Consumes input.abc.
  // abc_on_device: a/b/c are in lane.abc already (witness-only), nothing to upload.
  size_t ComputeH(Lane& lane, const ProvingKey& pk, ProverInput& input, bool abc_on_device) {
    const size_t m = abc_on_device ? pk.domain_size() : input.Abc(0).size();
    if (pk.h_form != groth16::HQueryForm::kBellperson) {
      input.OwnAbc();  // the CPU's H path transforms vectors in place
      std::vector<ff::Fr> h =
          groth16::ComputeHScalars(pk.h_form, input.abc.a, input.abc.b, input.abc.c, options.cpu_threads);
      Retire(lane, input);
      Reserve(lane.abc[0], h.size());
      lane.abc[0].CopyFromHost(h, lane.streams[0]);
      lane.streams[0].Synchronize();
      return h.size();
    }
    // One stream per vector: b's and c's uploads overlap a's transforms (fully
    // with pinned host memory, ProverInput::abc_external from the daemon's
    // pool; with pageable memory the host thread stages each copy, but the
    // GPU keeps transforming meanwhile).
    const bool pinned = !abc_on_device && IsPageLocked(input.Abc(0).data());
    // The vectors' transforms run one after another (each alone saturates
    // the memory bus), so the lane needs one NTT scratch from the engine's
    // pool at a time (the pool reuses it across the event dependencies):
    // 4.3 GB at 32 GiB instead of three.
    for (int k = 0; k < 3; ++k) {
      if (!abc_on_device) {
        Reserve(lane.abc[k], m);
        lane.copy_start[k].Record(lane.streams[k]);
        lane.abc[k].CopyFromHost(input.Abc(k), lane.streams[k]);
        lane.copy_end[k].Record(lane.streams[k]);
      }
      if (k > 0) CUZK_CUDA_CHECK(cudaStreamWaitEvent(lane.streams[k], lane.transformed[k - 1].get(), 0));
      EnqueueHTransform(gpu->ntt, k, lane.abc[k].data(), m, lane.streams[k]);
      lane.transformed[k].Record(lane.streams[k]);
    }
    CUZK_CUDA_CHECK(cudaStreamWaitEvent(lane.streams[0], lane.transformed[2].get(), 0));
    EnqueueHCombine(gpu->ntt, lane.abc[0].data(), lane.abc[1].data(), lane.abc[2].data(), m, lane.streams[0]);
    lane.streams[0].Synchronize();  // the G1 MSM runs on its own stream
    if (abc_on_device) return m - 1;
    for (int k = 0; k < 3; ++k) lane.stats.abc_ms += lane.copy_end[k].ElapsedMsSince(lane.copy_start[k]);
    lane.stats.abc_bytes += 3 * m * sizeof(ff::Fr);
    if (pinned) lane.stats.abc_pinned_bytes += 3 * m * sizeof(ff::Fr);
    // a/b/c are retired by StartOne, after z (which may share their buffer)
    // is uploaded. bellperson drops the last coefficient (0 for a satisfied circuit).
    return m - 1;
  }

  // z once to the device: the A, B_g1, L and B_g2 MSMs all read it (32 GiB
  // partition: 2.6 GB, ~47 ms at pinned line rate, paid once instead of 3x).
  // From ProverInput::z_copy when the daemon put one in page-locked memory.
  static const ff::Fr* UploadWitness(Lane& lane, const ProverInput& input) {
    const std::span<const ff::Fr> z =
        input.z_copy.size() == input.assignment.values.size() ? input.z_copy : input.assignment.values;
    Reserve(lane.z, z.size());
    lane.copy_start[1].Record(lane.streams[1]);
    lane.z.CopyFromHost(z, lane.streams[1]);
    lane.copy_end[1].Record(lane.streams[1]);
    return lane.z.data();
  }

  // cudaHostAlloc'd (or registered) memory: copies from it run at line rate.
  static bool IsPageLocked(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeHost;
  }

  // Runs one step of ProveStart and appends its wall time to p.steps. Every
  // step below ends in a device synchronization (an MSM returns its sum to
  // the host; the evaluation reads back its row check; ComputeH and the z
  // upload synchronize), so the time is the step's device time (with
  // another lane's work beside it, when lanes > 1).
  using Steps = std::vector<std::pair<const char*, double>>;
  template <class Fn>
  static auto Timed(Steps& steps, const char* name, Fn&& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto done = [&] {
      steps.emplace_back(name,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    };
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      done();
    } else {
      auto result = fn();
      done();
      return result;
    }
  }

  // The front half (evaluation or upload, NTTs) on the lane alone; the MSMs
  // under msm_mu.
  PendingProof StartOne(Lane& lane, const ProvingKey& pk, ProverInput& input) {
    PendingProof p;
    ResidentKey* resident = nullptr;
    std::shared_ptr<const DeviceDensity> a_density, b_density;
    Timed(p.steps, "bases", [&] {  // ~0 unless this proof uploads them
      std::lock_guard lock(mu);
      resident = &Resident(pk);
      if (resident->WitnessFailed()) {
        throw std::runtime_error("CudaBackend: the key's witness bases did not load onto the device (" +
                                 util::ExceptionMessage(resident->landing->gate.error()) +
                                 "): its proofs fail until the key is forgotten and loaded again");
      }
      if (resident->a.device) a_density = resident->a_density.For(pk.a_density);
      if (resident->b_g1.device || (resident->b_g2 && resident->b_g2->device))
        b_density = resident->b_density.For(pk.b_density);
    });
    ResidentKey& bases = *resident;
    // snarkjs-form keys take their H on the CPU: evaluate there too.
    if (input.WitnessOnly() && pk.h_form != groth16::HQueryForm::kBellperson) {
      Timed(p.steps, "abc_host", [&] { groth16::EvaluateWitnessOnly(pk, input, options.cpu_threads); });
    }
    const ff::Fr* z = nullptr;
    size_t h_count = 0;
    if (input.WitnessOnly()) {
      EvaluateOnDevice(lane, bases, pk, input, p);  // its own steps: circuit, compact_z, z_expand, abc_eval
      h_count = Timed(p.steps, "h_ntt", [&] { return ComputeH(lane, pk, input, /*abc_on_device=*/true); });
      z = lane.z.data();
      ++lane.stats.witness_only_proofs;
    } else {
      h_count = Timed(p.steps, "h_ntt", [&] { return ComputeH(lane, pk, input, /*abc_on_device=*/false); });
      z = Timed(p.steps, "z_upload", [&] {
        const ff::Fr* on_device = UploadWitness(lane, input);
        lane.streams[1].Synchronize();
        return on_device;
      });
      if (IsPageLocked(input.z_copy.data())) lane.stats.z_pinned_bytes += input.z_copy.size_bytes();
      Retire(lane, input);  // a/b/c and the z copy: the device has its own now
      lane.stats.z_ms += lane.copy_end[1].ElapsedMsSince(lane.copy_start[1]);
      lane.stats.z_bytes += input.assignment.values.size() * sizeof(ff::Fr);
    }
    ++lane.stats.proofs;
    std::unique_lock msm_lock(msm_mu, std::defer_lock);
    Timed(p.steps, "msm_wait", [&] { msm_lock.lock(); });  // another lane's H MSM
    const MsmGpuOptions on_device{.scalars_at = ScalarsAt::kDevice, .stream_slice = options.stream_slice};
    G1Msm& msm = gpu->msm;
    CudaBackendStats& st = lane.stats;
    p.h_sum = Timed(p.steps, "msm_h", [&] { return bases.RunH(msm, lane.abc[0].data(), h_count, on_device, st); });
    const WitnessShape shape{input.assignment.num_inputs, groth16::WitnessVariables(input)};  // z may be compact only
    if (bases.WitnessNotLanded()) {
      // The witness bases are still streaming (early_proving): the witness
      // MSMs wait for them without holding any MSM scratch or this lane.
      msm_lock.unlock();
      if (Defer(lane, bases, pk, input, shape, {a_density, b_density}, p)) return p;
      // They landed meanwhile: z is still in the lane.
    }
    // witness_beside_h: the next lane's H MSM may start beside this one's
    // witness MSMs; else they keep the H MSM's scratch and lock.
    if (options.witness_beside_h && msm_lock.owns_lock()) msm_lock.unlock();
    if (!options.witness_beside_h && !msm_lock.owns_lock()) msm_lock.lock();
    std::unique_lock witness_lock(witness_mu, std::defer_lock);
    Timed(p.steps, "witness_wait", [&] { witness_lock.lock(); });  // another lane's witness MSMs
    groth16::WitnessSums w;
    const bool with_b2 = RunWitnessMsms(bases, pk, z, shape, {a_density, b_density}, st, p.steps, w);
    p.a_sum = w.a_sum, p.b1_sum = w.b1_sum, p.l_sum = w.l_sum;
    if (with_b2) {
      p.b2_sum = w.b2_sum;
      lane.retired.assignments.push_back(std::move(input.assignment));  // ProveFinish only assembles
    } else {
      // ProveFinish's host G2 MSM reads z whole: expanded from a compact-only
      // input here, after the device is done (no MSM of another lane waits for it).
      witness_lock.unlock();
      if (msm_lock.owns_lock()) msm_lock.unlock();
      groth16::ExpandCompactWitness(input, options.cpu_threads);
      p.assignment = std::move(input.assignment);
    }
    return p;
  }

  struct WitnessShape {
    size_t num_inputs = 0, num_variables = 0;
  };
  struct Densities {
    std::shared_ptr<const DeviceDensity> a, b;
  };

  // The witness MSMs over z on the device: A, B_g1, L, and B_g2 when it runs
  // on the GPU (then true). Caller holds witness_mu, and msm_mu too without
  // options.witness_beside_h (the G1 ones then run on the H MSM's scratch).
  bool RunWitnessMsms(const ResidentKey& bases, const ProvingKey& pk, const ff::Fr* z, WitnessShape shape,
                      const Densities& d, CudaBackendStats& st, Steps& steps, groth16::WitnessSums& out) {
    const MsmGpuOptions on_device{.scalars_at = ScalarsAt::kDevice, .stream_slice = options.stream_slice};
    G1Msm& msm = options.witness_beside_h ? gpu->msm_witness : gpu->msm;
    out.a_sum =
        Timed(steps, "msm_a", [&] { return bases.a.RunDensity(msm, z, pk.a_density, d.a.get(), on_device, st); });
    out.b1_sum =
        Timed(steps, "msm_b_g1", [&] { return bases.b_g1.RunDensity(msm, z, pk.b_density, d.b.get(), on_device, st); });
    out.l_sum = Timed(steps, "msm_l", [&] {
      return bases.l.Run(msm, z + shape.num_inputs, shape.num_variables - shape.num_inputs, on_device, st);
    });
    if (!bases.b_g2) return false;
    out.b2_sum = Timed(steps, "msm_b_g2",
                       [&] { return bases.b_g2->RunDensity(gpu->msm_g2, z, pk.b_density, d.b.get(), on_device, st); });
    return true;
  }

  // A proof's witness MSMs left for when its key's witness sections land:
  // the host witness it needs (compact when synthesis compacted it: ~75 MB
  // at 32 GiB; else z whole) and the promise ProveFinish waits on.
  struct DeferredWitness {
    const ProvingKey* pk = nullptr;
    ResidentKey* key = nullptr;  // lives until the landing is joined (ForgetKey, the destructor)
    WitnessShape shape;
    Densities densities;
    std::optional<r1cs::CompactWitness> compact_z;
    r1cs::Assignment assignment;
    std::promise<groth16::WitnessSums> promise;
  };

  // Queues the proof's witness MSMs on its key's landing (true: p.deferred
  // set, the witness moved out of `input`), or false when the sections
  // landed meanwhile (nothing changed). Rethrows a failed landing's error.
  bool Defer(Lane& lane, ResidentKey& key, const ProvingKey& pk, ProverInput& input, WitnessShape shape,
             Densities densities, PendingProof& p) {
    auto d = std::make_shared<DeferredWitness>();
    d->pk = &pk, d->key = &key, d->shape = shape, d->densities = std::move(densities);
    d->compact_z = std::move(input.compact_z);
    d->assignment = std::move(input.assignment);
    std::future<groth16::WitnessSums> sums = d->promise.get_future();
    bool queued = false;
    try {
      // A proof whose job is cancelled meanwhile is told so instead of run
      // (its finalizer has stopped waiting: the GPU time would be wasted).
      queued = key.landing->gate.Defer({.run = [this, d] { RunDeferred(*d); },
                                        .fail = [d](std::exception_ptr e) { d->promise.set_exception(e); },
                                        .cancelled = input.cancelled});
    } catch (...) {
      input.compact_z = std::move(d->compact_z), input.assignment = std::move(d->assignment);
      throw;
    }
    if (!queued) {
      input.compact_z = std::move(d->compact_z), input.assignment = std::move(d->assignment);
      return false;
    }
    p.deferred = sums.share();
    p.steps.emplace_back("deferred", 0.0);
    ++lane.stats.deferred_proofs;
    return true;
  }

  // On the landing thread, once the witness sections are on the device: a
  // lane for z (expanded again from the compact witness, ~12 ms at 32 GiB,
  // or uploaded whole), then the witness MSMs under witness_mu, as ProveStart
  // would have run them. Its steps go with the sums.
  void RunDeferred(DeferredWitness& d) {
    groth16::WitnessSums sums;
    const auto t_call = std::chrono::steady_clock::now();
    ScopedDevice on(device);
    std::shared_lock device_lock(device_mu);  // no Prepare or ForgetKey changes the lanes meanwhile
    LaneHold hold(*this);
    Lane& lane = hold.lane();
    struct AddOnExit {
      Impl& impl;
      Lane& lane;
      ~AddOnExit() {
        std::lock_guard lock(impl.mu);
        impl.AddStats(lane.stats);
      }
    } add{*this, lane};
    sums.steps.emplace_back(
        "lane_wait", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_call).count());
    const ff::Fr* z = Timed(sums.steps, d.compact_z ? "z_expand" : "z_upload", [&] {
      if (d.compact_z) {
        Reserve(lane.z, d.compact_z->num_variables);
        lane.stats.compact_witness_bytes += lane.abc_eval.ExpandWitness(*d.compact_z, lane.z.data(), lane.streams[0]);
        lane.streams[0].Synchronize();
      } else {
        Reserve(lane.z, d.assignment.values.size());
        lane.z.CopyFromHost(d.assignment.values, lane.streams[0]);
        lane.streams[0].Synchronize();
        lane.stats.z_bytes += d.assignment.values.size() * sizeof(ff::Fr);
      }
      return lane.z.data();
    });
    std::unique_lock msm_lock(msm_mu, std::defer_lock);  // without witness_beside_h: the G1 scratch is H's
    std::unique_lock witness_lock(witness_mu, std::defer_lock);
    Timed(sums.steps, "witness_wait", [&] {
      if (!options.witness_beside_h) msm_lock.lock();
      witness_lock.lock();
    });
    if (!RunWitnessMsms(*d.key, *d.pk, z, d.shape, d.densities, lane.stats, sums.steps, sums))
      throw std::logic_error(
          "CudaBackend: a deferred proof without B_g2 on the device");  // LoadKeyImage needs it there
    witness_lock.unlock();
    if (msm_lock.owns_lock()) msm_lock.unlock();
    d.promise.set_value(std::move(sums));
  }

  // Adds a lane's counters of one call to the backend's (caller holds mu).
  void AddStats(CudaBackendStats& from) {
    stats.proofs += from.proofs;
    stats.abc_bytes += from.abc_bytes, stats.abc_pinned_bytes += from.abc_pinned_bytes, stats.abc_ms += from.abc_ms;
    stats.z_bytes += from.z_bytes, stats.z_pinned_bytes += from.z_pinned_bytes, stats.z_ms += from.z_ms;
    stats.streamed_msms += from.streamed_msms, stats.streamed_base_bytes += from.streamed_base_bytes;
    stats.shifted_h_msms += from.shifted_h_msms;
    stats.deferred_proofs += from.deferred_proofs;
    stats.witness_only_proofs += from.witness_only_proofs;
    stats.compact_witness_bytes += from.compact_witness_bytes, stats.compact_witness_ms += from.compact_witness_ms;
    stats.abc_eval_ms += from.abc_eval_ms;
    from = {};
  }

  CudaBackendOptions options;
  int device;
  size_t circuit_to_come = 0;  // Prepare: the compact circuit's bytes, uploaded after the bases (guarded by mu)
  size_t lanes_reserved = 0;   // Prepare: the bytes of every lane's buffers it made sure of (guarded by mu)
  std::shared_mutex device_mu;
  std::mutex msm_mu;
  std::mutex witness_mu;
  std::mutex mu;  // guards gpu->keys, stats, free_lanes
  std::condition_variable lane_free;
  std::vector<Lane*> free_lanes;
  std::unique_ptr<GpuState> gpu;
  CudaBackendStats stats;
  // StatsNow's last copy (a leaf lock: taken under mu or alone).
  std::mutex stats_now_mu;
  CudaBackendStats stats_now;
  // LoadKeyImage's buffers made ahead (PrepareKeyImageBuffers; the pointer
  // guarded by mu), by spare_warmer, which shares the uploader: a load that
  // takes it while it is still being warmed makes the rest beside it before
  // streaming (KeyImageUploader::Warm).
  std::shared_ptr<KeyImageUploader> spare_uploader;
  std::thread spare_warmer;

  ~Impl() {
    std::vector<std::shared_ptr<Landing>> landings;
    {
      std::lock_guard lock(mu);
      if (spare_uploader) spare_uploader->StopWarming();
      for (const auto& [key, resident] : gpu->keys)
        if (resident->landing) landings.push_back(resident->landing);
    }
    if (spare_warmer.joinable()) spare_warmer.join();
    for (const auto& landing : landings) landing->cancel = true;  // the backend's end: nothing waits for them
    for (const auto& landing : landings) landing->Join();         // their queued proofs are told first: they take mu
  }

  // Waits for pk's witness sections' stream and the proofs queued on it
  // (early_proving). Called without device_mu and mu, which they take.
  void AwaitLanding(const ProvingKey* pk) {  // the key is being dropped: its stream is cancelled
    std::shared_ptr<Landing> landing;
    {
      std::lock_guard lock(mu);
      const auto it = gpu->keys.find(pk);
      if (it != gpu->keys.end()) landing = it->second->landing;
      if (landing && !landing->cancel.exchange(true) && landing->gate.state() == WitnessLanding::State::kStreaming)
        ++stats.landings_cancelled;
    }
    if (landing) landing->Join();
  }

  // A key at pk whose stream was not waited for (caller holds mu): a load
  // that published one after AwaitLanding returned. Its holder waits again.
  bool HasUnjoinedLanding(const ProvingKey* pk) const {
    const auto it = gpu->keys.find(pk);
    return it != gpu->keys.end() && it->second->landing && !it->second->landing->Joined();
  }

  // device_mu exclusively, with no stream of pk's running: waits for one
  // outside the locks (it takes them) and again if one started meanwhile.
  std::unique_lock<std::shared_mutex> ExclusiveWithoutLanding(const ProvingKey* pk) {
    for (;;) {
      AwaitLanding(pk);
      std::unique_lock device_lock(device_mu);
      {
        std::lock_guard lock(mu);
        if (!HasUnjoinedLanding(pk)) return device_lock;
      }
    }
  }

  // The shifted H table of a key whose witness sections just landed (on
  // the stream's thread, which holds no lock), as Prepare would have built it.
  void ShiftAfterLanding(ResidentKey& key) {
    std::unique_lock device_lock(device_mu);
    std::lock_guard lock(mu);
    ShiftH(key);
    stats.resident_base_bytes = ResidentBytes();
    NoteShifted();
  }

  // After a failed stream (on its thread, which holds no lock): the key's
  // sections go (up to ~51 GB at 32 GiB) once no ProveStart reads them; the
  // key stays, with its failed gate, so its proofs are refused until ForgetKey.
  void FreeFailedSections(ResidentKey& key) {
    std::unique_lock device_lock(device_mu);
    std::lock_guard lock(mu);
    key.h.device.reset(), key.l.device.reset(), key.a.device.reset(), key.b_g1.device.reset();
    if (key.b_g2) key.b_g2->device.reset();
    key.h_shifted.reset();
    stats.resident_base_bytes = ResidentBytes();
    NoteShifted();
  }

  // The spare (taken from spare_uploader under mu) when it has `workers`,
  // else a fresh uploader.
  static std::shared_ptr<KeyImageUploader> UploaderFor(std::shared_ptr<KeyImageUploader> spare, unsigned workers) {
    if (spare && spare->workers() == workers) return spare;
    if (spare) spare->StopWarming();
    return std::make_shared<KeyImageUploader>(workers);
  }
};

CudaBackend::CudaBackend(const CudaBackendOptions& options) : impl_(std::make_unique<Impl>(options)) {}
CudaBackend::~CudaBackend() = default;

std::vector<PendingProof> CudaBackend::ProveStart(const ProvingKey& pk, std::span<ProverInput> inputs) {
  for (const auto& in : inputs) groth16::CheckProverInput(pk, in);
  Retired retired;  // destroyed last: after every lock is let go
  std::vector<PendingProof> out;
  const auto t_call = std::chrono::steady_clock::now();
  std::shared_lock device_lock(impl_->device_mu);
  Impl::LaneHold hold(*impl_);
  Lane& lane = hold.lane();
  // On every way out (a throw included), while the lane is still held: what
  // the device is done with moves to `retired`, and the call's counters to
  // the backend's.
  struct Finally {
    Impl& impl;
    Lane& lane;
    Retired& to;
    ~Finally() {
      std::swap(lane.retired, to);
      lane.circuit.reset();
      std::lock_guard lock(impl.mu);
      impl.AddStats(lane.stats);
    }
  } finally{*impl_, lane, retired};
  const auto t0 = std::chrono::steady_clock::now();
  ScopedDevice on(impl_->device);
  // The wait for a lane (with lanes = 1: the other worker's whole
  // ProveStart; always: a Prepare or ForgetKey): the first step of every
  // proof of the batch.
  const double lane_wait_ms = std::chrono::duration<double, std::milli>(t0 - t_call).count();
  out.reserve(inputs.size());
  for (auto& in : inputs) {
    out.push_back(impl_->StartOne(lane, pk, in));
    auto& steps = out.back().steps;
    steps.insert(steps.begin(), {"lane_wait", lane_wait_ms});
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard lock(impl_->mu);
  impl_->stats.prove_start_ms += ms;
  return out;
}

groth16::Proof CudaBackend::ProveFinish(const ProvingKey& pk, PendingProof&& pending, const ff::Fr& r,
                                        const ff::Fr& s) {
  if (pending.deferred.valid()) {
    // Witness MSMs left for the key's witness sections (early_proving):
    // waits for them; rethrows what failed them (a section that did not load).
    const groth16::WitnessSums& w = pending.deferred.get();
    pending.a_sum = w.a_sum, pending.b1_sum = w.b1_sum, pending.l_sum = w.l_sum;
    pending.b2_sum = w.b2_sum;
  }
  ec::G2Jacobian b2;
  if (pending.b2_sum) {
    b2 = *pending.b2_sum;
  } else {
    const msm::MsmOptions mo{.threads = impl_->options.cpu_threads};
    b2 = msm::MsmG2Density(pk.b_g2, pending.assignment.values, pk.b_density, mo);
  }
  groth16::Proof proof = groth16::AssembleProof(pk.vk, pending, b2, r, s);
  pending.assignment = {};
  return proof;
}

void CudaBackend::Prepare(const ProvingKey& pk, const r1cs::CompiledCircuit* circuit,
                          const r1cs::CompactCircuit* compact) {
  using Clock = std::chrono::steady_clock;
  std::unique_lock device_lock(impl_->device_mu);  // no ProveStart meanwhile
  std::lock_guard lock(impl_->mu);
  const auto t0 = Clock::now();
  ScopedDevice on(impl_->device);
  // Every lane's buffers first: they are the proofs' own memory, the bases
  // get what is left (a section that does not fit streams from the host).
  const size_t m = pk.domain_size();
  impl_->lanes_reserved = 0;
  for (auto& lane : impl_->gpu->lanes) {
    for (auto& side : lane->abc) Reserve(side, m);
    Reserve(lane->z, pk.num_variables());
    impl_->lanes_reserved += (3 * m + pk.num_variables()) * sizeof(ff::Fr);
  }
  // A set prepared from host memory: spare key image buffers are not needed for it.
  if (impl_->spare_uploader) {
    impl_->spare_uploader->StopWarming();
    impl_->spare_uploader.reset();  // freed once the warmer lets go of it
  }
  const bool with_circuit = circuit && pk.h_form == groth16::HQueryForm::kBellperson;
  // The compact circuit (r1cs::CompactCircuit: 6 B a nonzero, 4 B a row and
  // matrix) is uploaded after the bases; they leave room for it.
  impl_->circuit_to_come = 0;
  if (with_circuit) {
    for (const r1cs::CsrMatrix* mat : {&circuit->a, &circuit->b, &circuit->c})
      impl_->circuit_to_come += 6 * mat->nonzeros() + 4 * (mat->rows() + 1);
    impl_->circuit_to_come += size_t(64) << 20;  // the coefficient table and alignment, generously
  }
  impl_->DropShiftedTables(&pk);
  ResidentKey& key = impl_->Resident(pk);
  impl_->circuit_to_come = 0;
  impl_->lanes_reserved = 0;
  const auto t1 = Clock::now();
  if (with_circuit) impl_->CircuitOnDevice(key, *circuit, compact);
  CUZK_CUDA_CHECK(cudaDeviceSynchronize());
  const auto t2 = Clock::now();
  // Last: the table takes only what the proofs, the bases and the circuit leave.
  impl_->ShiftH(key);
  impl_->stats.resident_base_bytes = impl_->ResidentBytes();
  impl_->NoteShifted();
  impl_->stats.prepare_bases_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
  impl_->stats.prepare_circuit_ms += std::chrono::duration<double, std::milli>(t2 - t1).count();
}

namespace {

using G1Point = DeviceBases<G1Gpu>::Point;
using G2Point = DeviceBases<G2Gpu>::Point;

// L, A, B_g1 and B_g2 from the image into the key's device sections
// (allocated, not yet filled). util::CacheError for a damaged section (the
// sections then hold garbage).
void StreamWitnessSections(KeyImageUploader& up, const groth16::KeyImageStream& image, ResidentKey& key,
                           const std::atomic<bool>* cancel = nullptr) {
  const auto g1 = [&](groth16::KeySection s, SectionBases<G1Gpu>& b) {
    if (!b.host.empty()) up.Upload(image, s, b.device->mutable_data(), sizeof(G1Point), cancel);
  };
  g1(groth16::KeySection::kL, key.l);
  g1(groth16::KeySection::kA, key.a);
  g1(groth16::KeySection::kBG1, key.b_g1);
  if (key.b_g2 && !key.b_g2->host.empty())
    up.Upload(image, groth16::KeySection::kBG2, key.b_g2->device->mutable_data(), sizeof(G2Point), cancel);
}

// Whether LoadKeyImage reads H in its compressed form: the form the image
// holds when it holds one (groth16::KeyImageH), else CudaBackendOptions::
// compressed_h: kAuto when less than half of the uncompressed section is
// in the page cache (mincore: ~1 after a recent read, ~0 after a drop).
bool ReadCompressedH(CudaBackendOptions::CompressedH policy, const groth16::KeyImageStream& image) {
  using Policy = CudaBackendOptions::CompressedH;
  if (image.Count(groth16::KeySection::kH) == 0 || !image.Holds(groth16::KeySection::kHCompressed)) return false;
  if (!image.Holds(groth16::KeySection::kH)) return true;
  if (policy == Policy::kNever) return false;
  if (policy == Policy::kAlways) return true;
  return image.ResidentShare(groth16::KeySection::kH) < 0.5;
}

// The image bytes of those sections (records as the image holds them).
uint64_t WitnessImageBytes(const ProvingKey& pk) {
  return (pk.l.size() + pk.a.size() + pk.b_g1.size()) * sizeof(ec::G1Affine) + pk.b_g2.size() * sizeof(ec::G2Affine);
}

}  // namespace

bool CudaBackend::LoadKeyImage(const ProvingKey& pk, std::shared_ptr<const groth16::KeyImageStream> image_ptr,
                               size_t circuit_bytes, unsigned threads, const CompactSource& compact,
                               const OnLanded& on_landed) {
  using Clock = std::chrono::steady_clock;
  if (!image_ptr) throw std::invalid_argument("CudaBackend::LoadKeyImage: no key image");
  const groth16::KeyImageStream& image = *image_ptr;
  if (!impl_->options.g2_on_gpu || pk.h_form != groth16::HQueryForm::kBellperson) return false;
  // device_mu for the whole load (with early_proving: until H is resident):
  // no ProveStart, Prepare or ForgetKey meanwhile. An earlier load of a key
  // at this address: its stream and queued proofs first.
  std::unique_lock device_lock = impl_->ExclusiveWithoutLanding(&pk);
  const auto t0 = Clock::now();
  ScopedDevice on(impl_->device);
  const size_t need =
      (pk.h.size() + pk.l.size() + pk.a.size() + pk.b_g1.size()) * sizeof(G1Point) + pk.b_g2.size() * sizeof(G2Point);
  const bool early = impl_->options.early_proving;
  std::shared_ptr<KeyImageUploader> spare;
  {
    std::lock_guard lock(impl_->mu);
    // As Prepare sizes them: the lanes' buffers (what they already hold of
    // this key's sizes is no longer free, but no longer to come either) and
    // the compact circuit still to come.
    const size_t m = pk.domain_size(), n_z = pk.vk.ic.size() + pk.l.size();
    impl_->lanes_reserved = 0;
    for (const auto& lane : impl_->gpu->lanes) {
      for (const auto& side : lane->abc) impl_->lanes_reserved += std::min(side.size(), m) * sizeof(ff::Fr);
      impl_->lanes_reserved += std::min(lane->z.size(), n_z) * sizeof(ff::Fr);
    }
    // With early_proving the upload's device buffers (2 x 48 MiB a reading
    // thread) outlive this call, beside the first proofs: counted here too.
    impl_->circuit_to_come =
        circuit_bytes + (early ? size_t(std::clamp(threads, 1u, 32u)) * 2 * groth16::KeyImageStream::BufferBytes() : 0);
    impl_->DropShiftedTables(nullptr);
    const size_t budget = impl_->BasesBudget(pk);
    impl_->circuit_to_come = 0;
    impl_->lanes_reserved = 0;
    if (need > budget) return false;
    impl_->gpu->keys.erase(&pk);  // an older key at this address (its stream was awaited above)
    impl_->stats.resident_base_bytes = impl_->ResidentBytes();
    impl_->NoteShifted();
    impl_->stats.resident_circuit_bytes = impl_->ResidentCircuitBytes();
    spare = std::move(impl_->spare_uploader);
  }
  // The compact circuit beside the stream, on a thread of its own (joined
  // on every way out): the stream is bound by the host's reads, the
  // circuit's pageable copy (~6.5 GB/s) by one thread, so its 0.5-0.9 s at
  // 32 GiB no longer wait for the stream's end in Prepare.
  CircuitStager stager(impl_->device, compact);
  // The stream (seconds; tens from a cold disk) without mu: Stats() and the
  // status page do not wait for it.
  std::unique_ptr<ResidentKey> key;
  double buffers_ms = 0;
  size_t staged_bytes = 0;
  std::shared_ptr<KeyImageUploader> up;
  const bool compressed_h = ReadCompressedH(impl_->options.compressed_h, image);
  try {
    up = Impl::UploaderFor(std::move(spare), std::clamp(threads, 1u, 32u));
    // Every buffer made before the stream starts (what the warming thread
    // has not made yet, here, beside it): page-locking blocks the other
    // threads' CUDA calls, so reading threads that made their own buffers
    // while the others streamed slowed the whole stream (H200, 2026-12-03:
    // 4.1 s against 2.9-3.1 s for the 32 GiB key in the same call).
    up->Warm();
    // Every section's device memory first (a key that does not fit fails
    // here, before any byte is read), then H, then the witness sections.
    const auto g1 = [](std::span<const ec::G1Affine> host) {
      return SectionBases<G1Gpu>(host, DeviceBases<G1Gpu>(host.size(), DeviceBases<G1Gpu>::Unfilled{}));
    };
    key = std::make_unique<ResidentKey>(
        pk, g1(pk.h), g1(pk.l), g1(pk.a), g1(pk.b_g1),
        SectionBases<G2Gpu>(pk.b_g2, DeviceBases<G2Gpu>(pk.b_g2.size(), DeviceBases<G2Gpu>::Unfilled{})));
    if (!pk.h.empty()) {
      if (compressed_h) {
        up->UploadCompressedH(image, key->h.device->mutable_data());
      } else {
        up->Upload(image, groth16::KeySection::kH, key->h.device->mutable_data(), sizeof(G1Point));
      }
    }
    if (!early) StreamWitnessSections(*up, image, *key);
    buffers_ms = up->alloc_ms();
    key->staged = stager.Take();
    staged_bytes = key->staged ? key->staged->device.bytes() : 0;
  } catch (const CudaError& e) {
    if (e.code() != cudaErrorMemoryAllocation) throw;
    cudaGetLastError();  // out of memory is not sticky: the caller loads the key into host memory instead
    return false;
  } catch (const std::bad_alloc&) {
    return false;  // no host memory for the staging (RegisteredBuffer's mmap): the usual way, as above
  }
  const uint64_t h_bytes =
                     pk.h.size() * groth16::KeyImageStream::RecordBytes(compressed_h ? groth16::KeySection::kHCompressed
                                                                                     : groth16::KeySection::kH),
                 witness_bytes = WitnessImageBytes(pk);
  std::shared_ptr<Landing> landing;
  if (early) {
    // The witness sections stream on behind this call (the uploader and the
    // image go with them); proofs started meanwhile queue their witness
    // MSMs on the landing, which runs them on this thread once they land.
    landing = std::make_shared<Landing>();
    key->landing = landing;
    {
      std::lock_guard lock(impl_->mu);
      ++impl_->stats.keys_landing;  // before the thread that counts it down
    }
    std::lock_guard join_lock(landing->join_mu);
    try {
      landing->thread =
          std::thread([impl = impl_.get(), k = key.get(), landing, image_ptr, up, on_landed, witness_bytes]() mutable {
            const auto t_start = Clock::now();
            std::exception_ptr error;
            try {
              ScopedDevice on(impl->device);
              if (impl->options.before_witness_stream) impl->options.before_witness_stream();
              StreamWitnessSections(*up, *image_ptr, *k, &landing->cancel);
            } catch (...) {
              error = std::current_exception();
            }
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
            const auto t_release = Clock::now();
            try {
              ScopedDevice on(impl->device);
              up.reset();  // its page-locked and device buffers (freed before the queued proofs run)
            } catch (...) {
              // the device is in error: nothing more to free here
            }
            image_ptr.reset();
            {
              std::lock_guard lock(impl->mu);
              --impl->stats.keys_landing;
              impl->stats.image_landing_ms += ms;
              impl->stats.image_release_ms +=
                  std::chrono::duration<double, std::milli>(Clock::now() - t_release).count();
              if (!error) impl->stats.image_bases_bytes += witness_bytes;
            }
            const size_t deferred = error ? landing->gate.Fail(error) : landing->gate.Land();
            // Reported before the failed sections are freed: that waits for the
            // device lock, which other keys' proofs may hold for a while, and
            // the set must be known broken at once.
            if (on_landed) {
              try {
                on_landed({.ms = ms,
                           .bytes = error ? 0 : witness_bytes,
                           .deferred = deferred,
                           .error = error,
                           .cancelled = error && landing->cancel.load()});
              } catch (...) {
                // the caller's report; the landing itself is done
              }
            }
            if (!error && impl->options.shifted_h && !landing->cancel.load()) {
              // Prepare skipped the key's table while its sections streamed: built now.
              try {
                ScopedDevice on(impl->device);
                impl->ShiftAfterLanding(*k);
              } catch (...) {
                // no table: the H MSM runs on the plain bases
              }
            }
            if (error) {
              try {
                ScopedDevice on(impl->device);
                impl->FreeFailedSections(*k);
              } catch (...) {
                // the device is in error; ForgetKey frees them
              }
            }
          });
    } catch (...) {
      std::lock_guard lock(impl_->mu);
      --impl_->stats.keys_landing;  // no thread: nothing was published, the key's memory goes with it
      throw;
    }
    up.reset();  // the stream's thread holds it now
  } else {
    // Its buffers freed before the device lock goes (timed): their device
    // half (up to 3 GB) must not look taken to a Prepare or load that sizes
    // the device next. Registered huge pages free in ~45 ms for 16 workers
    // (the cudaHostAlloc'd ones took 161-280 ms), and the key's first proof
    // waits for this call to return anyway.
    const auto t_release = Clock::now();
    up.reset();
    std::lock_guard lock(impl_->mu);
    impl_->stats.image_release_ms += std::chrono::duration<double, std::milli>(Clock::now() - t_release).count();
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  {
    std::lock_guard lock(impl_->mu);
    impl_->gpu->keys.emplace(&pk, std::move(key));
    impl_->stats.resident_base_bytes = impl_->ResidentBytes();
    impl_->NoteShifted();
    impl_->stats.resident_circuit_bytes = impl_->ResidentCircuitBytes();  // the staged circuit's
    impl_->stats.image_buffers_ms += buffers_ms;
    impl_->stats.image_bases_bytes += early ? h_bytes : h_bytes + witness_bytes;
    impl_->stats.image_bases_ms += ms;
    impl_->stats.image_circuit_ms += stager.ms();
    impl_->stats.image_circuit_bytes += staged_bytes;
    if (compressed_h) ++impl_->stats.image_h_compressed;
  }
  device_lock.unlock();  // the caller's report runs without the device
  if (!early && on_landed) on_landed({.ms = ms, .bytes = h_bytes + witness_bytes, .deferred = 0, .error = nullptr});
  return true;
}

bool CudaBackend::HoldsKeyImageSpare() const {
  std::lock_guard lock(impl_->mu);
  return impl_->spare_uploader != nullptr;
}

void CudaBackend::PrepareKeyImageBuffers(unsigned threads) {
  std::lock_guard lock(impl_->mu);
  if (impl_->spare_uploader || impl_->spare_warmer.joinable()) return;  // once per backend
  ScopedDevice on(impl_->device);
  impl_->spare_uploader = std::make_shared<KeyImageUploader>(std::clamp(threads, 1u, 32u));
  impl_->spare_warmer = std::thread([device = impl_->device, up = impl_->spare_uploader] {
    ScopedDevice on(device);
    up->Warm();
  });
}

bool CudaBackend::HoldsOnDevice(const ProvingKey& pk, const r1cs::CompiledCircuit* circuit) const {
  std::lock_guard lock(impl_->mu);
  const auto it = impl_->gpu->keys.find(&pk);
  if (it == impl_->gpu->keys.end() || !(it->second->fingerprint == FingerprintOf(pk))) return false;
  const ResidentKey& key = *it->second;
  if (key.WitnessFailed()) return false;  // early_proving: its witness sections never landed
  // Every section resident (a streamed one reads the host's points on every
  // proof; one still streaming from its image counts: proofs never read the
  // host's points for it), B_g2 included (without it ProveFinish runs its
  // MSM from them).
  if (!key.h.device || !key.l.device || !key.a.device || !key.b_g1.device) return false;
  if (!key.b_g2 || !key.b_g2->device) return false;
  if (circuit == nullptr) return true;
  return pk.h_form == groth16::HQueryForm::kBellperson && key.circuit && key.circuit->host == circuit &&
         key.circuit->fingerprint == FingerprintOf(*circuit);
}

CudaBackendStats CudaBackend::Stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

CudaBackendStats CudaBackend::StatsNow() const {
  std::unique_lock lock(impl_->mu, std::try_to_lock);
  std::lock_guard last(impl_->stats_now_mu);
  if (lock.owns_lock()) impl_->stats_now = impl_->stats;
  return impl_->stats_now;
}

void CudaBackend::ForgetKey(const ProvingKey& pk) {
  // Its stream writes into the sections, its queued proofs read them: both
  // done first. No ProveStart reads the key meanwhile.
  std::unique_lock device_lock = impl_->ExclusiveWithoutLanding(&pk);
  std::lock_guard lock(impl_->mu);
  ScopedDevice on(impl_->device);
  impl_->gpu->keys.erase(&pk);
  impl_->stats.resident_base_bytes = impl_->ResidentBytes();
  impl_->NoteShifted();
  impl_->stats.resident_circuit_bytes = impl_->ResidentCircuitBytes();
}

}  // namespace cuzk::cuda
