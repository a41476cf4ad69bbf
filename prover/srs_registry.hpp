#pragma once
// SrsRegistry: the parameter sets (circuit + Groth16 key + prepared verifying
// key) the daemon proves with, found in srs.param_cache under Filecoin's file
// names and loaded on demand (or by PreloadSRS).
//
//   SrsRegistry srs("/data/zk/params", /*threads=*/0);
//   SrsRegistry::Lease lease = srs.Acquire("snap-2k");   // FAILED_PRECONDITION-type error if files are missing
//   std::shared_ptr<const LoadedParams> p = lease.Get(&load_ms);  // loads once; others wait
//
// Tiers (GetStatus): HOT = in memory and referenced by a queued or running
// job, WARM = in memory and idle (evictable), COLD = only on disk. ref_count
// counts the leases (jobs); EvictSRS refuses a set with ref_count > 0
// (SrsInUseError) and otherwise drops the registry's reference: the memory
// goes when the last user lets go. Circuit ids are cuzk's: "snap-32g",
// "snap-2k", "snap-8m", "snap-512m", "snap-64g" (and the test sizes,
// "snap-1k", "snap-8k", ...), bellperson files under Filecoin's names. Any
// other id ([A-Za-z0-9_.-]+) names a generic circuit (GENERIC_R1CS jobs):
// <param_cache>/<id>.r1cs (circom) and <id>.zkey (snarkjs Groth16), checked
// against each other when loaded. Loading a 2 KiB set: record the circuit (~0.6 s,
// at the same time as) decoding the 655 MB .params (~2.4 s on one core); resident 1.08 GB.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/key_image.hpp"
#include "engine/groth16/types.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/r1cs/compiled_circuit.hpp"
#include "engine/util/thread_priority.hpp"
#include "memory/budget.hpp"
#include "prover/srs_image_cache.hpp"

namespace cuzk::prover {

// Parameter files missing or unreadable (-> FAILED_PRECONDITION).
class SrsUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// EvictSRS of a set that jobs hold (-> FAILED_PRECONDITION).
class SrsInUseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Not a circuit id we know (-> INVALID_ARGUMENT).
class UnknownCircuitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct LoadedParams {
  std::string circuit_id;
  bool generic = false;         // a GENERIC_R1CS circuit (r1cs + zkey), else SnapDeals
  filecoin::SectorShape shape;  // SnapDeals only
  r1cs::CompiledCircuit circuit;
  // The circuit's compact form read from its image and checked against
  // `circuit` (SrsImageCache::ReadCompact), for the GPUs' preparation; null
  // when there was none (the GPU builds it: 5-9 s at 32 GiB) or when no GPU
  // proves witness-only (SrsRegistry::SetCompactCircuits).
  std::shared_ptr<const r1cs::CompactCircuit> compact;
  groth16::ProvingKey pk;
  groth16::PreparedVerifyingKey pvk;
  uint64_t resident_bytes = 0;  // circuit matrices (and compact form) + key points, as loaded

  // The host copy given back (prover/host_copy.hpp): once every GPU holds the
  // key's bases (and, for witness-only proving, the compact circuit) and the
  // images are written, the pages of pk's point sections (and of the
  // circuit's matrices, circuit_released) go back to the kernel. The vectors
  // keep their sizes, so everything that counts (CheckProverInput, Dims)
  // works; their points read as zeros. From then on only a backend that
  // HoldsOnDevice may prove with the set (the CPU backend refuses: see
  // PartitionWork::GpuStart), and no image can be written from it.
  mutable std::atomic<bool> host_released{false};
  mutable std::atomic<bool> circuit_released{false};
  mutable std::atomic<uint64_t> released_bytes{0};
  // Who still reads the host copy: the GPUs' preparation (1) and the image
  // writer when it has a write queued (1); SrsRegistry::HostCopyUnneeded
  // counts them down and the last one releases. (mutable: the set is shared
  // as const; these record what happened to its host copy.)
  mutable std::atomic<int> host_readers{1};
  mutable std::atomic<bool> release_circuit{false};  // set by the GPUs' side before it counts down

  // Loaded straight into the GPUs' memory (SrsRegistry::SetKeyToDevices):
  // the key's points went from its image to every device, the circuit's
  // matrices were never read (r1cs::ReadCircuitImageShell), only the
  // compact form is in host memory until the GPUs take it. pk and circuit
  // are shells from the start (sizes, first and last elements; the rest
  // never written, never to be read), as after the host copy's release, and
  // their bytes count as released. Only a backend that HoldsOnDevice may
  // prove with the set.
  bool on_devices_only = false;
  // Notified when the GPUs' preparation of the set (ProofRunner::
  // PrepareDevices) is over, whatever came of it: an on_devices_only set's
  // partitions wait for it before their first GPU step, so no proof ever
  // builds a compact circuit from the shell's matrices.
  mutable absl::Notification devices_prepared;
  // An on_devices_only set whose witness bases did not land on a GPU after
  // its proving started (gpus.early_proving: they stream behind the load):
  // its proofs fail; the next job's Load drops the set and loads it again,
  // without its key image when that was damaged (removed, so it is
  // rebuilt). Shared with the GPUs' report (SrsRegistry::DevicesBroken),
  // which may come after the set itself is gone.
  struct DevicesHealth {
    std::atomic<bool> broken{false};
    std::atomic<bool> key_image_damaged{false};
  };
  std::shared_ptr<DevicesHealth> devices_health = std::make_shared<DevicesHealth>();
  bool DevicesBroken() const { return devices_health->broken.load(); }

  uint64_t HeldBytes() const { return resident_bytes - released_bytes.load(); }
};

// A circuit's size, without its matrices: what the budget estimate of a
// partition needs before the parameters are loaded.
struct CircuitDims {
  uint64_t constraints = 0;  // rows, without the prover's appended input rows
  uint64_t inputs = 0;       // ONE included
  uint64_t variables = 0;    // ONE, inputs, aux
};

enum class SrsTier { kHot = 0, kWarm = 1, kCold = 2 };  // proto SRSStatus.Tier values

struct SrsInfo {
  std::string circuit_id;
  SrsTier tier = SrsTier::kCold;
  uint64_t size_bytes = 0;  // resident bytes when loaded, else the .params file size
  uint32_t ref_count = 0;
  std::string params_path;
  bool loading = false;  // a load of it is in progress (a job's, PreloadSRS or srs.preload)
};

class SrsRegistry {
  struct Entry;

 public:
  // threads: for decoding the .params file (0 = all hardware threads).
  // image_cache_dir: where circuit and key images are kept (SrsImageCache;
  // empty: none). A SnapDeals set whose images are there and current loads
  // by copying them instead of compiling its circuit and decoding its .params.
  SrsRegistry(std::string param_cache, unsigned threads, std::string image_cache_dir = "");
  ~SrsRegistry();

  // "snap-2k" for a 2 KiB shape; ParseCircuitId is its inverse (UnknownCircuitError).
  static std::string SnapCircuitId(const filecoin::SectorShape& shape);
  static filecoin::SectorShape ParseCircuitId(const std::string& circuit_id);
  static bool IsSnapCircuitId(const std::string& circuit_id);
  // UnknownCircuitError unless [A-Za-z0-9_.-]{1,128}, not starting with "." or "snap-".
  static void CheckGenericCircuitId(const std::string& circuit_id);

  // A job's hold on a parameter set: counted in ref_count while alive.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    // Loads the set if it is not in memory (concurrent callers wait for one
    // load). *load_ms: time this call spent loading or waiting for a load.
    std::shared_ptr<const LoadedParams> Get(double* load_ms) const;
    // The set in memory now, even one whose GPUs' copy broke
    // (LoadedParams::DevicesBroken: Get would load it again); else Get's.
    // For what does not depend on the GPUs' copy: the verifying key.
    std::shared_ptr<const LoadedParams> Current() const;
    // Whether the set is in memory now (Get would not load or wait).
    bool IsLoaded() const;
    const std::string& circuit_id() const;
    // The set's circuit size: from the loaded circuit, else counted once per
    // set (SnapDeals, without loading) or read (generic: loads the set).
    CircuitDims Dims() const;
    // What the set takes in the budget: its resident bytes when loaded, else
    // the charge a load starts with (1.6x the .params file, 0 if unreadable;
    // the compact image's size for a load straight to the GPUs).
    uint64_t ChargeBytes() const;
    explicit operator bool() const { return entry_ != nullptr; }

   private:
    friend class SrsRegistry;
    Lease(SrsRegistry* registry, std::shared_ptr<Entry> entry);
    SrsRegistry* registry_ = nullptr;
    std::shared_ptr<Entry> entry_;
  };

  // Checks the files exist (SrsUnavailableError naming them) and takes a lease.
  Lease Acquire(const std::string& circuit_id);

  struct PreloadResult {
    bool already_loaded = false;
    uint64_t load_ms = 0;
  };
  PreloadResult Preload(const std::string& circuit_id);

  struct EvictResult {
    bool was_loaded = false;
    uint64_t freed_bytes = 0;
  };
  EvictResult Evict(const std::string& circuit_id);

  // Every set in memory or with a .params file in param_cache, by circuit id.
  std::vector<SrsInfo> List() const;
  uint64_t ResidentBytes() const;
  // Called after each load, with the set (outside the registry's locks but
  // while the load lock is held: keep it short, e.g. start a thread).
  // ProofRunner::PrepareDevices uploads the set to the GPUs from here.
  // SetOnLoaded(nullptr) waits for a call in progress.
  using OnLoaded = std::function<void(const std::string& circuit_id, const std::shared_ptr<const LoadedParams>&)>;
  void SetOnLoaded(OnLoaded on_loaded);
  // A GPU daemon's way to put a key's bases straight from its image into
  // every GPU (ProofRunner::LoadKeyImage): true when every device now holds
  // all of them, false (nothing kept) when one cannot; util::CacheError for
  // a damaged image. With it, a SnapDeals set whose circuit, compact and key
  // images are all current loads without a host copy of its bases or
  // matrices (LoadedParams::on_devices_only): 32 GiB reads the 37 GB key
  // image once, to the GPUs, and 3.6 GB of compact circuit instead of 18 GB
  // of matrices. Any failure there loads the set the usual way. Needs
  // SetCompactCircuits(true): the GPUs evaluate a/b/c from the compact form.
  // `compact` gives the set's compact circuit, read beside the key's stream:
  // it blocks until it is read and returns null if it cannot be (the GPUs
  // upload it while the key streams; CudaBackend::LoadKeyImage).
  // `broken`: for a hook that returns before every section is on the
  // devices (gpus.early_proving): called, from any thread, if one then fails
  // to land, with its error (a util::CacheError: the image is damaged); it
  // marks the set (LoadedParams::devices_health) and takes no lock.
  using CompactSource = std::function<std::shared_ptr<const r1cs::CompactCircuit>()>;
  using DevicesBroken = std::function<void(const std::exception_ptr& error)>;
  using KeyToDevices =
      std::function<bool(const groth16::ProvingKey& shell, std::shared_ptr<const groth16::KeyImageStream> image,
                         uint64_t circuit_bytes, const CompactSource& compact, const DevicesBroken& broken)>;
  void SetKeyToDevices(KeyToDevices key_to_devices);

  // Called with a set just before its memory goes (the last reference to it
  // dropped: after EvictSRS or an evictor, once no job holds it), on the
  // thread that dropped it; ProofRunner::ForgetOnDevices drops the GPUs'
  // copies from here, so a set loaded next finds their memory free. Keep it
  // short. SetOnUnloaded(nullptr) waits for a call in progress; sets that
  // outlive the registry go without a call.
  using OnUnloaded = std::function<void(const LoadedParams&)>;
  void SetOnUnloaded(OnUnloaded on_unloaded);

  // ProofRunner, once every GPU holds `params` (Backend::HoldsOnDevice; with
  // circuit_too, its compact circuit as well, so synthesis and the GPUs no
  // longer read the matrices). The host copy goes when the image writer is
  // done with it too (LoadedParams::host_readers): SRS_HOST_RELEASE line,
  // and the set's budget charge shrinks by what was given back.
  void DevicesHold(const std::shared_ptr<const LoadedParams>& params, bool circuit_too);
  // Whether the sets loaded from here on carry their compact circuit
  // (LoadedParams::compact: read from its image when current, else built by
  // the image writer for the next start). The Prover turns it on where a GPU
  // proves witness-only; a CPU-only daemon neither reads nor writes it.
  void SetCompactCircuits(bool on) { compact_circuits_ = on; }
  SrsImageCache& images() { return images_; }
  const SrsImageCache& images() const { return images_; }
  const std::string& param_cache() const { return param_cache_; }

  // Charges every parameter set it loads to `budget` (Budget::Charge: never
  // blocks, since the partitions waiting for the load hold reservations
  // themselves; 1.6x the .params file before the load, which makes room
  // through the evictors, then the resident bytes) and registers an evictor
  // that drops sets no job holds and that have been idle for min_idle,
  // longest idle first (memory.eviction_min_idle: a set just used by one job is
  // not dropped under the next one). Call before the first load; the budget
  // must outlive the registry. Measured resident size: 55.1 GB for the
  // 34.5 GB 32 GiB file (docs/deploy.md, Sizing).
  void AttachBudget(memory::Budget* budget, std::chrono::steady_clock::duration min_idle);

 private:
  std::shared_ptr<Entry> EntryFor(const std::string& circuit_id);
  // Loads the set or waits for its load. From a thread at a lowered priority
  // (a job's synthesis thread), on one of launcher_'s threads instead.
  std::shared_ptr<const LoadedParams> Load(Entry& entry, double* load_ms);
  std::shared_ptr<const LoadedParams> LoadHere(Entry& entry, double* load_ms);
  // A set whose witness bases did not land on a GPU (LoadedParams::
  // DevicesBroken) leaves the entry as an eviction would, so the caller
  // loads it again; a damaged key image is removed first (that load then
  // reads the .params and writes a fresh image). Returns null. Caller holds
  // entry.load_mu.
  std::shared_ptr<const LoadedParams> DropBroken(Entry& entry, std::shared_ptr<const LoadedParams> broken);
  // The load straight to the GPUs (SetKeyToDevices) into `fresh`; anything
  // but kHeld (logged where it is not a plain miss) leaves `fresh` for the
  // usual load. kNoImages: no hook, or the images are not all there yet;
  // kRefused: a GPU cannot hold every base; kFailed: an error (a damaged key
  // image, util::CacheError, is removed first: the usual load rewrites it).
  enum class DevicesLoad { kHeld, kNoImages, kRefused, kFailed };
  DevicesLoad LoadToDevices(const Entry& entry, LoadedParams& fresh, uint64_t params_source);
  // What a set not yet loaded is charged: 1.6x its .params file, or its
  // compact image's size when it will load straight to the GPUs.
  uint64_t ChargeEstimate(const Entry& entry);
  uint64_t EvictIdle(uint64_t needed);  // the budget's evictor
  // One reader of the host copy is done (LoadedParams::host_readers); the last releases it.
  void HostCopyUnneeded(const std::shared_ptr<const LoadedParams>& params);

  std::string param_cache_;
  unsigned threads_;
  std::atomic<bool> compact_circuits_{false};
  mutable absl::Mutex mu_;  // guards entries_ (the list), not the loads
  std::vector<std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
  memory::Budget* budget_ = nullptr;  // set once by AttachBudget
  std::chrono::steady_clock::duration min_idle_{};
  memory::Budget::EvictorId evictor_id_ = 0;
  absl::Mutex on_loaded_mu_;
  OnLoaded on_loaded_ ABSL_GUARDED_BY(on_loaded_mu_);
  absl::Mutex key_to_devices_mu_;  // held across a call of the hook (LoadToDevices)
  KeyToDevices key_to_devices_ ABSL_GUARDED_BY(key_to_devices_mu_);
  std::atomic<bool> has_key_to_devices_{false};  // for ChargeEstimate, which must not wait for a load
  // The unload hook, shared with every loaded set's deleter (a set may
  // outlive the registry: then the hook is empty).
  struct Unloader {
    absl::Mutex mu;
    OnUnloaded on_unloaded ABSL_GUARDED_BY(mu);
  };
  std::shared_ptr<Unloader> unloader_ = std::make_shared<Unloader>();
  // Made with the registry, at the daemon's priority: the threads a lowered
  // caller's load runs on (Load).
  util::ThreadLauncher launcher_;
  SrsImageCache images_;  // last: its writers are stopped before anything else goes
};

}  // namespace cuzk::prover
