#include "prover/srs_registry.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <future>

#include <spdlog/spdlog.h>

#include "absl/synchronization/mutex.h"
#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snarkjs/r1cs_file.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/util/cache_file.hpp"
#include "prover/host_copy.hpp"

namespace cuzk::prover {

namespace fs = std::filesystem;

struct SrsRegistry::Entry {
  std::string circuit_id;
  bool generic = false;
  filecoin::SectorShape shape;
  std::string params_path, vk_path;  // generic: the .zkey and the .r1cs
  std::atomic<uint32_t> refs{0};
  std::atomic<bool> loading{false};  // set while Load builds the set (for List: the status page)
  // Sets of this entry whose witness bases did not land on a GPU
  // (SrsRegistry::DropBroken); from two on, loads skip the GPUs' direct load.
  std::atomic<uint32_t> device_failures{0};
  absl::Mutex load_mu;  // one load at a time per set; held for the whole load (seconds), never by the registry
  absl::Mutex mu;       // brief
  std::shared_ptr<const LoadedParams> loaded ABSL_GUARDED_BY(mu);
  memory::Reservation charge ABSL_GUARDED_BY(mu);  // its bytes in the budget (AttachBudget), while loaded
  std::chrono::steady_clock::time_point idle_since ABSL_GUARDED_BY(mu) =
      std::chrono::steady_clock::now();                 // refs last fell to 0
  std::optional<CircuitDims> dims ABSL_GUARDED_BY(mu);  // known once counted or loaded
  void Unref() {
    if (refs.fetch_sub(1) == 1) {
      absl::MutexLock lock(&mu);
      idle_since = std::chrono::steady_clock::now();
    }
  }
  std::shared_ptr<const LoadedParams> Loaded() {
    absl::MutexLock lock(&mu);
    return loaded;
  }
  // The loaded set unless its witness bases did not land on a GPU
  // (LoadedParams::DevicesBroken): such a set is loaded again by the next
  // Load (SrsRegistry::DropBroken), so callers that would use it go there.
  std::shared_ptr<const LoadedParams> Sound() {
    std::shared_ptr<const LoadedParams> p = Loaded();
    return p && !p->DevicesBroken() ? p : nullptr;
  }
};

namespace {

// Resident bytes of a set before it is loaded: 1.6x its .params file
// (measured: 2 KiB 1.08 GB for 655 MB, 32 GiB 55.1 GB for 34.5 GB).
uint64_t LoadChargeEstimate(const std::string& params_path) {
  std::error_code ec;
  const uint64_t file = std::filesystem::file_size(params_path, ec);
  return ec ? 0 : file / 5 * 8;
}

uint64_t CsrBytes(const r1cs::CsrMatrix& m) {
  return m.row_offsets.size() * sizeof(uint64_t) + m.columns.size() * sizeof(uint32_t) +
         m.values.size() * sizeof(ff::Fr);
}

uint64_t LoadedBytes(const LoadedParams& p) {
  const auto& k = p.pk;
  return CsrBytes(p.circuit.a) + CsrBytes(p.circuit.b) + CsrBytes(p.circuit.c) + (p.compact ? p.compact->Bytes() : 0) +
         (k.h.size() + k.l.size() + k.a.size() + k.b_g1.size() + k.vk.ic.size()) * sizeof(ec::G1Affine) +
         k.b_g2.size() * sizeof(ec::G2Affine);
}

// What a set loaded straight to the devices really holds in host memory:
// the compact circuit (until the GPUs take it) and the verifying key's IC.
uint64_t LoadedBytesHeldByShells(const LoadedParams& p) {
  return (p.compact ? p.compact->Bytes() : 0) + p.pk.vk.ic.size() * sizeof(ec::G1Affine);
}

CircuitDims DimsOf(const r1cs::CompiledCircuit& c) {
  return {.constraints = c.num_constraints(), .inputs = c.num_inputs, .variables = c.num_variables()};
}

uint64_t FileSize(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : uint64_t(n);
}

}  // namespace

SrsRegistry::SrsRegistry(std::string param_cache, unsigned threads, std::string image_cache_dir)
    : param_cache_(std::move(param_cache)), threads_(threads), images_(std::move(image_cache_dir)) {}
SrsRegistry::~SrsRegistry() {
  images_.Shutdown();  // a write in progress stops between chunks
  SetOnUnloaded(nullptr);
  if (budget_) budget_->RemoveEvictor(evictor_id_);
  for (auto& e : entries_) {  // charges go back before the memory (declared budget-first by the owner)
    absl::MutexLock lock(&e->mu);
    e->loaded.reset();
    e->charge.Reset();
  }
}

void SrsRegistry::AttachBudget(memory::Budget* budget, std::chrono::steady_clock::duration min_idle) {
  if (budget_) throw std::logic_error("SrsRegistry::AttachBudget called twice");
  if (!budget) throw std::invalid_argument("SrsRegistry::AttachBudget: no budget");
  budget_ = budget;
  min_idle_ = min_idle;
  evictor_id_ = budget_->AddEvictor([this](uint64_t needed) { return EvictIdle(needed); });
}

uint64_t SrsRegistry::EvictIdle(uint64_t needed) {
  std::vector<std::shared_ptr<Entry>> candidates;
  {
    absl::MutexLock lock(&mu_);
    candidates = entries_;
  }
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<std::chrono::steady_clock::time_point, std::shared_ptr<Entry>>> idle;
  for (auto& e : candidates) {
    absl::MutexLock lock(&e->mu);
    if (e->loaded && e->refs.load() == 0 && now - e->idle_since >= min_idle_) idle.emplace_back(e->idle_since, e);
  }
  std::sort(idle.begin(), idle.end(), [](auto& a, auto& b) { return a.first < b.first; });
  uint64_t freed = 0;
  for (auto& [since, e] : idle) {
    if (freed >= needed) break;
    // TryLock: a load in progress (possibly the caller of this evictor) is skipped, never waited for.
    if (!e->load_mu.TryLock()) continue;
    memory::Reservation charge;  // destroyed after `dropped`: the budget sees the bytes once they are gone
    std::shared_ptr<const LoadedParams> dropped;
    if (e->refs.load() == 0) {
      absl::MutexLock lock(&e->mu);
      dropped = std::move(e->loaded);
      e->loaded.reset();
      charge = std::move(e->charge);
    }
    e->load_mu.Unlock();
    if (!dropped) continue;
    freed += charge.bytes();
    dropped.reset();
  }
  return freed;
}

std::string SrsRegistry::SnapCircuitId(const filecoin::SectorShape& shape) {
  std::string name = filecoin::FormatSectorSize(shape.sector_bytes);  // "2KiB"
  if (name.size() > 3 && name.ends_with("iB")) name = name.substr(0, name.size() - 2);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return "snap-" + name;  // "snap-2k", "snap-32g"
}

filecoin::SectorShape SrsRegistry::ParseCircuitId(const std::string& circuit_id) {
  for (uint64_t bytes : filecoin::SupportedSectorSizes()) {
    auto shape = filecoin::SectorShape::FromSectorSize(bytes);
    if (SnapCircuitId(shape) == circuit_id) return shape;
  }
  std::string known;
  for (uint64_t bytes : filecoin::SupportedSectorSizes()) {
    known += (known.empty() ? "" : ", ") + SnapCircuitId(filecoin::SectorShape::FromSectorSize(bytes));
  }
  throw UnknownCircuitError("unknown circuit_id \"" + circuit_id + "\" (known: " + known + ")");
}

bool SrsRegistry::IsSnapCircuitId(const std::string& circuit_id) { return circuit_id.starts_with("snap-"); }

void SrsRegistry::CheckGenericCircuitId(const std::string& circuit_id) {
  const bool chars_ok = std::all_of(circuit_id.begin(), circuit_id.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
  if (circuit_id.empty() || circuit_id.size() > 128 || !chars_ok || circuit_id[0] == '.' ||
      IsSnapCircuitId(circuit_id)) {
    throw UnknownCircuitError("circuit_id \"" + circuit_id +
                              "\": a generic circuit id is 1-128 characters of [A-Za-z0-9_.-], not starting with "
                              "'.' or \"snap-\"");
  }
}

std::shared_ptr<SrsRegistry::Entry> SrsRegistry::EntryFor(const std::string& circuit_id) {
  const bool generic = !IsSnapCircuitId(circuit_id);
  filecoin::SectorShape shape;
  if (generic) {
    CheckGenericCircuitId(circuit_id);
  } else {
    shape = ParseCircuitId(circuit_id);
  }
  absl::MutexLock lock(&mu_);
  for (auto& e : entries_) {
    if (e->circuit_id == circuit_id) return e;
  }
  auto e = std::make_shared<Entry>();
  e->circuit_id = circuit_id;
  e->generic = generic;
  e->shape = shape;
  if (generic) {
    e->params_path = (fs::path(param_cache_) / (circuit_id + ".zkey")).string();
    e->vk_path = (fs::path(param_cache_) / (circuit_id + ".r1cs")).string();
  } else {
    const std::string stem = (fs::path(param_cache_) / snapdeals::EmptySectorUpdateParamsStem(shape)).string();
    e->params_path = stem + ".params";
    e->vk_path = stem + ".vk";
  }
  entries_.push_back(e);
  return e;
}

SrsRegistry::Lease SrsRegistry::Acquire(const std::string& circuit_id) {
  auto entry = EntryFor(circuit_id);
  if (!entry->Loaded() && entry->generic && (!fs::exists(entry->params_path) || !fs::exists(entry->vk_path))) {
    throw SrsUnavailableError("generic circuit " + circuit_id + " not found: needs " + entry->vk_path +
                              " (circom) and " + entry->params_path + " (snarkjs Groth16 zkey) in srs.param_cache");
  }
  if (!entry->Loaded() && !fs::exists(entry->params_path)) {
    throw SrsUnavailableError("parameters for " + circuit_id + " not found: " + entry->params_path +
                              " (srs.param_cache; `cuzk-cli snap setup --sector-size " + entry->shape.Name() +
                              " --param-cache DIR` writes local ones)");
  }
  return Lease(this, std::move(entry));
}

std::shared_ptr<const LoadedParams> SrsRegistry::Load(Entry& entry, double* load_ms) {
  // A job that finds its set not loaded (no srs.preload) asks from a
  // synthesis thread, whose lowered priority (PipelineConfig::synthesis_nice)
  // the load's reading threads would inherit, under the first proof's other
  // work. The load is that proof's critical path: it runs at the launcher's.
  if (util::ThisThreadNice() > launcher_.nice()) {
    return launcher_.Run([&] { return LoadHere(entry, load_ms); });
  }
  return LoadHere(entry, load_ms);
}

std::shared_ptr<const LoadedParams> SrsRegistry::LoadHere(Entry& entry, double* load_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  absl::MutexLock load_lock(&entry.load_mu);
  std::shared_ptr<const LoadedParams> p = entry.Loaded();
  if (p && p->DevicesBroken()) p = DropBroken(entry, std::move(p));
  if (!p) {
    struct Loading {  // entry.loading for this block, thrown out of or not
      std::atomic<bool>& flag;
      explicit Loading(std::atomic<bool>& f) : flag(f) { flag = true; }
      ~Loading() { flag = false; }
    } loading(entry.loading);
    // Charged before the memory is allocated (the evictors make room now),
    // then trued up to the resident size; a failed load gives it back.
    memory::Reservation charge;
    if (budget_) {
      charge = budget_->Charge(ChargeEstimate(entry));
    }
    // Deleted through the unload hook: the GPUs drop their copies first.
    std::shared_ptr<LoadedParams> fresh(new LoadedParams, [unloader = unloader_](LoadedParams* gone) {
      {
        absl::MutexLock lock(&unloader->mu);
        if (unloader->on_unloaded) unloader->on_unloaded(*gone);
      }
      delete gone;
    });
    uint64_t params_source = 0;
    bool circuit_hit = false, key_hit = false;
    // A current key image with H compressed only, met by a host load (SrsImageCache::ReadKey).
    bool key_image_kept = false, key_needs_plain_h = false;
    const bool want_compact = compact_circuits_.load() && !entry.generic;
    fresh->circuit_id = entry.circuit_id;
    fresh->generic = entry.generic;
    fresh->shape = entry.shape;
    try {
      if (entry.generic) {
        snarkjs::R1csFile r1cs = snarkjs::ReadR1cs(entry.vk_path);
        snarkjs::ZkeyReadOptions options;
        options.threads = threads_;
        snarkjs::ZkeyFile zkey = snarkjs::ReadZkey(entry.params_path, options);
        snarkjs::CheckZkeyMatchesR1cs(zkey, r1cs);
        fresh->circuit = std::move(r1cs.circuit);
        fresh->pk = std::move(zkey.pk);
      } else {
        // Compiling the circuit (one thread: 63.7 s at 32 GiB on the H200 host)
        // and decoding the .params (every thread) do not depend on each other:
        // they run at the same time, and BindCircuit checks the key's counts
        // against the circuit afterwards. (A file that fails to decode still
        // waits for the compilation before the error is reported.) Current
        // images replace either step with a copy (SrsImageCache).
        params_source = images_.enabled() ? SrsImageCache::ParamsSource(entry.params_path) : 0;
        // A set whose GPU copy broke twice (a failure that is not the
        // image's: a read error, a device fault) loads the usual way from
        // then on, rather than failing its first jobs on every load.
        const bool to_devices = want_compact && entry.device_failures.load() < 2;
        const DevicesLoad devices = to_devices ? LoadToDevices(entry, *fresh, params_source) : DevicesLoad::kNoImages;
        if (devices == DevicesLoad::kHeld) {
          circuit_hit = key_hit = true;
          groth16::BindCircuit(fresh->pk, fresh->circuit);
        } else {
          // Charged for a load to the devices (ChargeEstimate), it loads into
          // host memory after all: the usual charge first, so the evictors
          // make room before the memory is taken.
          if (budget_) {
            const uint64_t usual = LoadChargeEstimate(entry.params_path);
            if (charge.bytes() < usual) charge.Merge(budget_->Charge(usual - charge.bytes()));
          }
          // The compact form is read and checked right after the circuit image,
          // beside the key image's read.
          struct CircuitRead {
            std::optional<r1cs::CompiledCircuit> circuit;
            std::shared_ptr<const r1cs::CompactCircuit> compact;
          };
          std::future<CircuitRead> cached_circuit = std::async(std::launch::async, [&, want_compact] {
            CircuitRead r;
            r.circuit = images_.ReadCircuit(entry.circuit_id, threads_);
            if (r.circuit && want_compact) r.compact = images_.ReadCompact(entry.circuit_id, *r.circuit, threads_);
            return r;
          });
          bool compressed_only = false;
          std::optional<groth16::ProvingKey> pk =
              images_.ReadKey(entry.params_path, params_source, threads_, &compressed_only);
          key_hit = pk.has_value();
          // Such an image serves the GPUs alone: kept when they are tried
          // again on the next load (this one failed), else written again
          // with the plain H too (they refused the set, failed twice, or
          // none streams images here), so the next host load copies it
          // instead of decoding the .params again.
          key_image_kept = compressed_only && devices == DevicesLoad::kFailed;
          key_needs_plain_h = compressed_only && !key_image_kept;
          CircuitRead read = cached_circuit.get();
          std::optional<r1cs::CompiledCircuit>& circuit = read.circuit;
          circuit_hit = circuit.has_value();
          fresh->compact = std::move(read.compact);
          std::future<r1cs::CompiledCircuit> compiled;
          if (!circuit_hit) {
            compiled = std::async(std::launch::async,
                                  [shape = entry.shape] { return snapdeals::CompileEmptySectorUpdate(shape); });
          }
          if (!key_hit) {
            groth16::ParamsReadOptions options;
            options.threads = threads_;
            pk = groth16::ReadParams(entry.params_path, options);
          }
          fresh->circuit = circuit_hit ? std::move(*circuit) : compiled.get();
          groth16::BindCircuit(*pk, fresh->circuit);
          fresh->pk = std::move(*pk);
        }
      }
    } catch (const std::exception& e) {
      throw SrsUnavailableError("cannot load parameters for " + entry.circuit_id + ": " + e.what());
    }
    fresh->pvk = groth16::PrepareVerifyingKey(fresh->pk.vk);
    fresh->resident_bytes = LoadedBytes(*fresh);
    // A set on the devices only holds its compact circuit and small parts:
    // the shells' bytes were never in host memory.
    if (fresh->on_devices_only) fresh->released_bytes = fresh->resident_bytes - LoadedBytesHeldByShells(*fresh);
    if (budget_) {
      const uint64_t held = fresh->HeldBytes();
      if (charge.bytes() > held) charge.Release(charge.bytes() - held);
      if (charge.bytes() < held) charge.Merge(budget_->Charge(held - charge.bytes()));
    }
    p = std::move(fresh);
    {
      absl::MutexLock lock(&entry.mu);
      entry.loaded = p;
      entry.loading = false;  // loaded: a status page never shows both
      entry.charge = std::move(charge);
      entry.dims = DimsOf(p->circuit);
    }
    spdlog::info("SRS_LOAD,{},load_ms={:.0f},circuit={},key={},compact={},resident_bytes={},held_bytes={}",
                 entry.circuit_id,
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                 entry.generic ? "file"
                               : (p->on_devices_only ? "shell"
                                  : circuit_hit      ? "image"
                                                     : "compiled"),
                 entry.generic ? "file"
                               : (p->on_devices_only ? "devices"
                                  : key_hit          ? "image"
                                                     : "decoded"),
                 !want_compact ? "off" : (p->compact ? "image" : "gpu"), p->resident_bytes, p->HeldBytes());
    if (!entry.generic) {
      // The writer reads the host copy: one more reader to count down before it may go.
      p->host_readers.fetch_add(1);
      const SrsImageCache::Missing missing{.circuit = !circuit_hit,
                                           .key = !key_hit && !key_image_kept,
                                           .compact = want_compact && p->compact == nullptr,
                                           .key_with_plain_h = key_needs_plain_h};
      const bool queued = images_.WriteMissing(p, entry.circuit_id, entry.params_path, params_source, missing,
                                               [this, p] { HostCopyUnneeded(p); });
      if (!queued) p->host_readers.fetch_sub(1);
    }
    absl::MutexLock lock(&on_loaded_mu_);
    if (on_loaded_) {
      on_loaded_(entry.circuit_id, p);
    } else {
      p->devices_prepared.Notify();  // no GPUs' preparation follows (a registry without the hook)
    }
  }
  if (load_ms) *load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

std::shared_ptr<const LoadedParams> SrsRegistry::DropBroken(Entry& entry, std::shared_ptr<const LoadedParams> broken) {
  // The entry's charge is given back on return, while jobs that still hold
  // the broken set keep its host part (its compact circuit) until they end.
  memory::Reservation charge;
  {
    absl::MutexLock lock(&entry.mu);
    if (entry.loaded == broken) {
      entry.loaded.reset();
      charge = std::move(entry.charge);
    }
  }
  const bool damaged = broken->devices_health->key_image_damaged.load();
  const uint32_t failures = ++entry.device_failures;
  spdlog::warn("SRS_RELOAD,{},why=its witness bases did not land on a GPU,key_image={},next_load={}", entry.circuit_id,
               damaged ? "damaged (removed: rebuilt from the .params)" : "kept",
               failures >= 2 ? "host (failed twice on the GPUs)" : "gpus");
  if (damaged) images_.RemoveDamagedKey(entry.params_path, "a witness section did not land: the image is damaged");
  // Its GPU copies go when the last job still holding it lets go (on_unloaded).
  return nullptr;
}

SrsRegistry::DevicesLoad SrsRegistry::LoadToDevices(const Entry& entry, LoadedParams& fresh, uint64_t params_source) {
  // Held for the whole call: SetKeyToDevices(nullptr) waits for it (the
  // hook calls into the Prover's runner).
  absl::MutexLock hook_lock(&key_to_devices_mu_);
  const KeyToDevices& to_devices = key_to_devices_;
  if (!to_devices || params_source == 0 || !images_.HasImagesForDevices(entry.circuit_id, entry.params_path)) {
    return DevicesLoad::kNoImages;
  }
  // Shared: with gpus.early_proving the GPUs keep reading it after the hook returns.
  const std::shared_ptr<const groth16::KeyImageStream> image = images_.OpenKey(entry.params_path, params_source);
  if (!image) return DevicesLoad::kNoImages;
  const auto t0 = std::chrono::steady_clock::now();
  // The circuit's shell and compact form (~1.5 s at 32 GiB) beside the key's
  // stream; the compact form also goes to the hook as soon as it is read.
  std::promise<std::shared_ptr<const r1cs::CompactCircuit>> compact_read;
  const std::shared_future<std::shared_ptr<const r1cs::CompactCircuit>> compact_ready =
      compact_read.get_future().share();
  std::future<std::optional<SrsImageCache::CircuitForDevices>> circuit =
      std::async(std::launch::async, [this, &entry, &compact_read] {
        std::optional<SrsImageCache::CircuitForDevices> c;
        try {
          c = images_.ReadCircuitForDevices(entry.circuit_id, threads_);
        } catch (...) {
          compact_read.set_value(nullptr);
          throw;
        }
        compact_read.set_value(c ? c->compact : nullptr);
        return c;
      });
  // Each caller (one per GPU, at once) waits on its own copy of the future.
  const CompactSource compact = [compact_ready] {
    std::shared_future<std::shared_ptr<const r1cs::CompactCircuit>> mine = compact_ready;
    return mine.get();
  };
  bool held = false, failed = false;
  double key_ms = 0;
  try {
    fresh.pk = image->Shell();  // in place: the GPUs know a key by its address
    std::error_code ec;
    const uint64_t compact_bytes = fs::file_size(images_.CompactPath(entry.circuit_id), ec);
    // Marks the set (through its shared health: the report may come after
    // the set is gone).
    const DevicesBroken broken = [health = fresh.devices_health](const std::exception_ptr& error) {
      bool damaged = false;
      try {
        std::rethrow_exception(error);
      } catch (const util::CacheError&) {
        damaged = true;
      } catch (...) {
      }
      if (damaged) health->key_image_damaged = true;
      health->broken = true;
    };
    held = to_devices(fresh.pk, image, ec ? 0 : compact_bytes, compact, broken);
    key_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!held)
      spdlog::info("SRS_TO_DEVICES,{},refused: a GPU cannot hold every base (loads the usual way)", entry.circuit_id);
  } catch (const util::CacheError& e) {
    // The key image is damaged (a digest, a record that is not a point). It
    // goes: a host load may not read it (H compressed only), so nothing
    // else would find the damage, and the usual load writes it again.
    failed = true;
    spdlog::warn("SRS_TO_DEVICES,{},failed: {} (loads the usual way)", entry.circuit_id, e.what());
    images_.RemoveDamagedKey(entry.params_path, e.what());
  } catch (const std::exception& e) {
    failed = true;
    spdlog::warn("SRS_TO_DEVICES,{},failed: {} (loads the usual way)", entry.circuit_id, e.what());
  }
  std::optional<SrsImageCache::CircuitForDevices> c = circuit.get();
  if (held && !c) {
    // The devices took the key but the circuit's images failed: their copy
    // goes (it refers to the shell's host vectors, which go next).
    absl::MutexLock lock(&unloader_->mu);
    if (unloader_->on_unloaded) unloader_->on_unloaded(fresh);
  }
  if (!held || !c) {
    // Every GPU's stream is over (the GPUs forgot the key, which waits for
    // them); what they reported concerned this attempt, not the set that
    // loads the usual way next.
    fresh.devices_health = std::make_shared<LoadedParams::DevicesHealth>();
    fresh.pk = groth16::ProvingKey{};
    return failed || (held && !c) ? DevicesLoad::kFailed : DevicesLoad::kRefused;
  }
  fresh.circuit = std::move(c->shell);
  fresh.compact = std::move(c->compact);
  fresh.on_devices_only = true;
  spdlog::info("SRS_TO_DEVICES,{},key_ms={:.0f},ms={:.0f},key_image={}", entry.circuit_id, key_ms,
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), image->path());
  return DevicesLoad::kHeld;
}

void SrsRegistry::SetKeyToDevices(KeyToDevices key_to_devices) {
  absl::MutexLock lock(&key_to_devices_mu_);  // waits for a call in progress
  has_key_to_devices_ = bool(key_to_devices);
  key_to_devices_ = std::move(key_to_devices);
}

void SrsRegistry::DevicesHold(const std::shared_ptr<const LoadedParams>& params, bool circuit_too) {
  if (!params || params->generic) return;  // generic sets are small, and their circuits are not prepared
  if (circuit_too) params->release_circuit.store(true);
  HostCopyUnneeded(params);
}

void SrsRegistry::HostCopyUnneeded(const std::shared_ptr<const LoadedParams>& params) {
  if (params->host_readers.fetch_sub(1) != 1) return;
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& e : entries_)
      if (e->circuit_id == params->circuit_id) entry = e;
  }
  if (!entry) return;
  {
    absl::MutexLock lock(&entry->mu);
    // Only the set the entry holds (an evicted one is about to go anyway).
    if (entry->loaded != params) return;
  }
  // Outside the entry's lock (seconds at 32 GiB: every synthesis start takes that lock).
  const auto t0 = std::chrono::steady_clock::now();
  const HostRelease r = ReleaseHostCopy(*params, params->release_circuit.load());
  {
    absl::MutexLock lock(&entry->mu);
    if (entry->loaded == params && entry->charge.bytes() > 0)
      entry->charge.Release(std::min(r.bytes, entry->charge.bytes()));
  }
  spdlog::info("SRS_HOST_RELEASE,{},released_bytes={},circuit={},held_bytes={},ms={:.0f}", params->circuit_id, r.bytes,
               r.circuit ? "released" : "kept", params->HeldBytes(),
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

void SrsRegistry::SetOnUnloaded(OnUnloaded on_unloaded) {
  absl::MutexLock lock(&unloader_->mu);
  unloader_->on_unloaded = std::move(on_unloaded);
}

void SrsRegistry::SetOnLoaded(OnLoaded on_loaded) {
  absl::MutexLock lock(&on_loaded_mu_);
  on_loaded_ = std::move(on_loaded);
}

SrsRegistry::PreloadResult SrsRegistry::Preload(const std::string& circuit_id) {
  Lease lease = Acquire(circuit_id);
  if (lease.entry_->Sound()) return {.already_loaded = true, .load_ms = 0};
  double ms = 0;
  lease.Get(&ms);
  return {.already_loaded = false, .load_ms = uint64_t(ms)};
}

SrsRegistry::EvictResult SrsRegistry::Evict(const std::string& circuit_id) {
  auto entry = EntryFor(circuit_id);
  const auto refuse_if_held = [&] {
    const uint32_t refs = entry->refs.load();
    if (refs > 0) {
      throw SrsInUseError("parameters " + circuit_id + " are in use by " + std::to_string(refs) +
                          " queued or running job(s); evict after they finish");
    }
  };
  // Before the load lock: a set being loaded is held by the lease loading it,
  // so the refusal is immediate instead of waiting out the load (minutes at
  // 32 GiB; an EvictSRS call's deadline ran out behind a 2 KiB load on a busy
  // machine).
  refuse_if_held();
  // The load lock: an eviction never races a load of the same set. Checked
  // again under it: a job may have taken a lease meanwhile.
  absl::MutexLock load_lock(&entry->load_mu);
  refuse_if_held();
  memory::Reservation charge;  // given back after `dropped` goes (declared first, destroyed last)
  std::shared_ptr<const LoadedParams> dropped;
  {
    absl::MutexLock lock(&entry->mu);
    dropped = std::move(entry->loaded);
    entry->loaded.reset();
    charge = std::move(entry->charge);
  }
  if (!dropped) return {.was_loaded = false, .freed_bytes = 0};
  return {.was_loaded = true, .freed_bytes = dropped->HeldBytes()};  // freed here, outside every lock
}

std::vector<SrsInfo> SrsRegistry::List() const {
  std::vector<SrsInfo> out;
  std::vector<std::shared_ptr<Entry>> entries;
  {
    absl::MutexLock lock(&mu_);
    entries = entries_;
  }
  for (uint64_t bytes : filecoin::SupportedSectorSizes()) {
    auto shape = filecoin::SectorShape::FromSectorSize(bytes);
    const std::string id = SnapCircuitId(shape);
    auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e->circuit_id == id; });
    SrsInfo info;
    info.circuit_id = id;
    if (it != entries.end()) {
      Entry& e = **it;
      info.params_path = e.params_path;
      info.ref_count = e.refs.load();
      info.loading = e.loading.load();
      if (auto p = e.Loaded()) {
        info.tier = info.ref_count ? SrsTier::kHot : SrsTier::kWarm;
        info.size_bytes = p->HeldBytes();
      } else {
        info.tier = SrsTier::kCold;
        info.size_bytes = FileSize(e.params_path);
      }
    } else {
      info.params_path =
          (fs::path(param_cache_) / (snapdeals::EmptySectorUpdateParamsStem(shape) + ".params")).string();
      info.size_bytes = FileSize(info.params_path);
      if (info.size_bytes == 0) continue;  // no file, never used: not listed
    }
    out.push_back(std::move(info));
  }
  for (const auto& e : entries) {  // generic circuits that were used or preloaded
    if (!e->generic) continue;
    SrsInfo info;
    info.circuit_id = e->circuit_id;
    info.params_path = e->params_path;
    info.ref_count = e->refs.load();
    info.loading = e->loading.load();
    if (auto p = e->Loaded()) {
      info.tier = info.ref_count ? SrsTier::kHot : SrsTier::kWarm;
      info.size_bytes = p->HeldBytes();
    } else {
      info.size_bytes = FileSize(e->params_path);
    }
    out.push_back(std::move(info));
  }
  return out;
}

uint64_t SrsRegistry::ResidentBytes() const {
  absl::MutexLock lock(&mu_);
  uint64_t total = 0;
  for (const auto& e : entries_) {
    if (auto p = e->Loaded()) total += p->HeldBytes();
  }
  return total;
}

// ---- Lease ------------------------------------------------------------------------

SrsRegistry::Lease::Lease(SrsRegistry* registry, std::shared_ptr<Entry> entry)
    : registry_(registry), entry_(std::move(entry)) {
  entry_->refs.fetch_add(1);
}
SrsRegistry::Lease::Lease(Lease&& other) noexcept : registry_(other.registry_), entry_(std::move(other.entry_)) {
  other.registry_ = nullptr;
}
SrsRegistry::Lease& SrsRegistry::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    if (entry_) entry_->Unref();
    registry_ = other.registry_;
    entry_ = std::move(other.entry_);
    other.registry_ = nullptr;
  }
  return *this;
}
SrsRegistry::Lease::~Lease() {
  if (entry_) entry_->Unref();
}
std::shared_ptr<const LoadedParams> SrsRegistry::Lease::Get(double* load_ms) const {
  if (auto p = entry_->Sound()) {
    if (load_ms) *load_ms = 0;
    return p;
  }
  return registry_->Load(*entry_, load_ms);
}
std::shared_ptr<const LoadedParams> SrsRegistry::Lease::Current() const {
  if (auto p = entry_->Loaded()) return p;
  return Get(nullptr);
}
bool SrsRegistry::Lease::IsLoaded() const { return entry_ && entry_->Sound() != nullptr; }
const std::string& SrsRegistry::Lease::circuit_id() const { return entry_->circuit_id; }
CircuitDims SrsRegistry::Lease::Dims() const {
  {
    absl::MutexLock lock(&entry_->mu);
    if (entry_->dims) return *entry_->dims;
  }
  if (entry_->generic) return DimsOf(Get(nullptr)->circuit);  // a file's circuit: known once read
  // From the circuit image when there is a current one (a few KiB), else
  // counted without the parameters (no values, no linear combinations: 2 KiB
  // ~0.1 s, 32 GiB ~1 s, which the first job waited for before it was
  // queued and its set started loading), once per set: the load then
  // replaces it with the same figures.
  CircuitDims d;
  if (auto counts = registry_ ? registry_->images_.ReadCircuitCounts(entry_->circuit_id) : std::nullopt) {
    d = {.constraints = counts->constraints,
         .inputs = counts->num_inputs,
         .variables = counts->num_inputs + counts->num_aux};
  } else {
    const snapdeals::CircuitCounts c = snapdeals::CountEmptySectorUpdate(entry_->shape);
    d = {.constraints = c.constraints, .inputs = c.inputs, .variables = c.inputs + c.aux};
  }
  absl::MutexLock lock(&entry_->mu);
  if (!entry_->dims) entry_->dims = d;
  return *entry_->dims;
}
uint64_t SrsRegistry::Lease::ChargeBytes() const {
  if (auto p = entry_->Loaded()) return p->HeldBytes();
  return registry_ ? registry_->ChargeEstimate(*entry_) : LoadChargeEstimate(entry_->params_path);
}

uint64_t SrsRegistry::ChargeEstimate(const Entry& entry) {
  // A set that will load straight to the GPUs holds only its compact circuit
  // (trued up after the load, should it load the usual way after all).
  if (has_key_to_devices_.load() && compact_circuits_.load() && !entry.generic &&
      images_.HasImagesForDevices(entry.circuit_id, entry.params_path)) {
    std::error_code ec;
    const uint64_t compact = fs::file_size(images_.CompactPath(entry.circuit_id), ec);
    if (!ec) return compact;
  }
  return LoadChargeEstimate(entry.params_path);
}

}  // namespace cuzk::prover
