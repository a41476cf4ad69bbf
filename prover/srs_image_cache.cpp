#include "prover/srs_image_cache.hpp"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdlib>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "engine/groth16/key_image.hpp"
#include "engine/r1cs/circuit_image.hpp"
#include "engine/r1cs/compact_image.hpp"
#include "engine/util/cache_file.hpp"
#include "prover/srs_registry.hpp"

namespace cuzk::prover {
namespace {

namespace fs = std::filesystem;

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

SrsImageCache::SrsImageCache(std::string dir) : dir_(std::move(dir)) {}

SrsImageCache::~SrsImageCache() { Shutdown(); }

uint64_t SrsImageCache::ParamsSource(const std::string& params_path) {
  try {
    return groth16::ParamsFileSource(params_path);
  } catch (const std::exception&) {
    return 0;  // the load that follows reports the file's own error
  }
}

std::string SrsImageCache::CircuitPath(const std::string& circuit_id) const {
  return (fs::path(dir_) / (circuit_id + ".circuit-image")).string();
}

std::string SrsImageCache::CompactPath(const std::string& circuit_id) const {
  return (fs::path(dir_) / (circuit_id + ".compact-image")).string();
}

std::string SrsImageCache::KeyPath(const std::string& params_path) const {
  return (fs::path(dir_) / (fs::path(params_path).filename().string() + ".key-image")).string();
}

bool SrsImageCache::EnsureDir() {
  if (!enabled() || disabled_) return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    Disable("cannot create " + dir_ + ": " + ec.message());
    return false;
  }
  if (!swept_.exchange(true)) SweepOrphans();
  return true;
}

// A daemon killed during a write leaves its temporary file
// (<image>.tmp-<pid>-<n>): removed once the process that wrote it is gone.
void SrsImageCache::SweepOrphans() {
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir_, ec)) {
    const std::string name = f.path().filename().string();
    const size_t at = name.rfind(".tmp-");
    if (at == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + at + 5, nullptr, 10);
    if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) {
      fs::remove(f.path(), ec);
      spdlog::info("SRS_CACHE removed {} (left by a process that is gone)", f.path().string());
    }
  }
}

void SrsImageCache::Disable(const std::string& why) {
  if (!disabled_.exchange(true)) spdlog::warn("SRS_CACHE off: {} (parameter sets load from their files)", why);
}

std::optional<r1cs::CompiledCircuit> SrsImageCache::ReadCircuit(const std::string& circuit_id, unsigned threads) {
  if (!enabled() || disabled_) return std::nullopt;
  const std::string path = CircuitPath(circuit_id);
  if (!fs::exists(path)) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r1cs::CompiledCircuit c = r1cs::ReadCircuitImage(path, r1cs::CircuitImageSource(circuit_id), threads);
    spdlog::info("SRS_CACHE,{},circuit=hit,read_ms={:.0f},path={}", circuit_id, MsSince(t0), path);
    absl::MutexLock lock(&stats_mu_);
    ++stats_.circuit_hits;
    return c;
  } catch (const std::exception& e) {
    spdlog::warn("SRS_CACHE,{},circuit=rebuild,reason=\"{}\"", circuit_id, e.what());
    absl::MutexLock lock(&stats_mu_);
    ++stats_.rebuilds;
    return std::nullopt;
  }
}

std::shared_ptr<const r1cs::CompactCircuit> SrsImageCache::ReadCompact(const std::string& circuit_id,
                                                                       const r1cs::CompiledCircuit& circuit,
                                                                       unsigned threads) {
  if (!enabled() || disabled_) return nullptr;
  const std::string path = CompactPath(circuit_id);
  if (!fs::exists(path)) return nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    auto cc = std::make_shared<r1cs::CompactCircuit>(
        r1cs::ReadCompactImage(path, r1cs::CircuitImageSource(circuit_id), threads));
    const double read_ms = MsSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    r1cs::CheckCompactDescribes(*cc, circuit, threads);
    spdlog::info("SRS_CACHE,{},compact=hit,read_ms={:.0f},check_ms={:.0f},bytes={},path={}", circuit_id, read_ms,
                 MsSince(t1), cc->Bytes(), path);
    absl::MutexLock lock(&stats_mu_);
    ++stats_.compact_hits;
    return cc;
  } catch (const std::exception& e) {
    spdlog::warn("SRS_CACHE,{},compact=rebuild,reason=\"{}\"", circuit_id, e.what());
    absl::MutexLock lock(&stats_mu_);
    ++stats_.rebuilds;
    return nullptr;
  }
}

std::optional<SrsImageCache::CircuitForDevices> SrsImageCache::ReadCircuitForDevices(const std::string& circuit_id,
                                                                                     unsigned threads) {
  if (!enabled() || disabled_) return std::nullopt;
  const std::string path = CircuitPath(circuit_id), compact_path = CompactPath(circuit_id);
  if (!fs::exists(path) || !fs::exists(compact_path)) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    CircuitForDevices r;
    r.shell = r1cs::ReadCircuitImageShell(path, r1cs::CircuitImageSource(circuit_id));
    const double shell_ms = MsSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    auto cc = std::make_shared<r1cs::CompactCircuit>(
        r1cs::ReadCompactImage(compact_path, r1cs::CircuitImageSource(circuit_id), threads));
    r1cs::CheckCompactShape(*cc, r.shell);
    r.compact = std::move(cc);
    spdlog::info("SRS_CACHE,{},circuit=shell,compact=hit,shell_ms={:.0f},compact_ms={:.0f},bytes={},path={}",
                 circuit_id, shell_ms, MsSince(t1), r.compact->Bytes(), compact_path);
    absl::MutexLock lock(&stats_mu_);
    ++stats_.circuit_hits;
    ++stats_.compact_hits;
    return r;
  } catch (const std::exception& e) {
    spdlog::warn("SRS_CACHE,{},circuit-for-devices=miss,reason=\"{}\" (loads the usual way)", circuit_id, e.what());
    return std::nullopt;
  }
}

std::optional<r1cs::CircuitImageCounts> SrsImageCache::ReadCircuitCounts(const std::string& circuit_id) {
  if (!enabled() || disabled_) return std::nullopt;
  const std::string path = CircuitPath(circuit_id);
  if (!fs::exists(path)) return std::nullopt;
  try {
    return r1cs::ReadCircuitImageCounts(path, r1cs::CircuitImageSource(circuit_id));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool SrsImageCache::HasImagesForDevices(const std::string& circuit_id, const std::string& params_path) const {
  return enabled() && !disabled_ && fs::exists(CircuitPath(circuit_id)) && fs::exists(CompactPath(circuit_id)) &&
         fs::exists(KeyPath(params_path));
}

std::unique_ptr<groth16::KeyImageStream> SrsImageCache::OpenKey(const std::string& params_path,
                                                                uint64_t params_source) {
  if (!enabled() || disabled_ || params_source == 0) return nullptr;
  const std::string path = KeyPath(params_path);
  if (!fs::exists(path)) return nullptr;
  try {
    return std::make_unique<groth16::KeyImageStream>(path, params_source);
  } catch (const std::exception& e) {
    spdlog::warn("SRS_CACHE,{},key-stream=miss,reason=\"{}\" (loads the usual way)", params_path, e.what());
    return nullptr;
  }
}

std::optional<groth16::ProvingKey> SrsImageCache::ReadKey(const std::string& params_path, uint64_t params_source,
                                                          unsigned threads, bool* compressed_only) {
  if (!enabled() || disabled_ || params_source == 0) return std::nullopt;
  const std::string path = KeyPath(params_path);
  if (!fs::exists(path)) return std::nullopt;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    groth16::KeyImageReadStats st;
    groth16::ProvingKey pk = groth16::ReadKeyImage(path, params_source, {.threads = threads, .stats = &st});
    // Per section: sizing (pages faulted in) / reading, ms; the sections run at the same time.
    spdlog::info(
        "SRS_CACHE,{},key=hit,read_ms={:.0f},h_ms={:.0f}/{:.0f},l_ms={:.0f}/{:.0f},a_ms={:.0f}/{:.0f},"
        "b_g1_ms={:.0f}/{:.0f},b_g2_ms={:.0f}/{:.0f},path={}",
        params_path, MsSince(t0), st.h.size_ms, st.h.read_ms, st.l.size_ms, st.l.read_ms, st.a.size_ms, st.a.read_ms,
        st.b_g1.size_ms, st.b_g1.read_ms, st.b_g2.size_ms, st.b_g2.read_ms, path);
    absl::MutexLock lock(&stats_mu_);
    ++stats_.key_hits;
    return pk;
  } catch (const groth16::KeyImageWithoutPlainH& e) {
    // Current, and what GPUs read: the host decodes the .params this time.
    spdlog::info("SRS_CACHE,{},key=devices_only,reason=\"{}\" (decodes the .params)", params_path, e.what());
    if (compressed_only) *compressed_only = true;
    return std::nullopt;
  } catch (const std::exception& e) {
    spdlog::warn("SRS_CACHE,{},key=rebuild,reason=\"{}\"", params_path, e.what());
    absl::MutexLock lock(&stats_mu_);
    ++stats_.rebuilds;
    return std::nullopt;
  }
}

void SrsImageCache::RemoveDamagedKey(const std::string& params_path, const std::string& why) {
  std::error_code ec;
  fs::remove(KeyPath(params_path), ec);
  spdlog::warn("SRS_CACHE,{},key=rebuild,reason=\"{}\" (removed)", params_path, why);
  absl::MutexLock lock(&stats_mu_);
  ++stats_.rebuilds;
}

bool SrsImageCache::WriteMissing(std::shared_ptr<const LoadedParams> params, const std::string& circuit_id,
                                 const std::string& params_path, uint64_t params_source, Missing missing,
                                 std::function<void()> on_done) {
  if (!(missing.circuit || missing.compact || (missing.key && params_source != 0)) || !EnsureDir()) return false;
  auto write = [this, params = std::move(params), circuit_id, params_path, params_source, missing, order = write_order_,
                on_done = std::move(on_done)] {
    // Whatever happens below (written, refused, cancelled, failed), the
    // writer is done with the host copy when this returns.
    struct Done {
      const std::function<void()>& f;
      ~Done() {
        if (f) f();
      }
    } done{on_done};
    absl::MutexLock one_at_a_time(order.get());
    auto attempt = [&](const char* what, const std::string& path, auto&& body) {
      if (cancel_) return;
      const auto t0 = std::chrono::steady_clock::now();
      // What lies at `path` was found stale or damaged (or is absent): it
      // goes before its replacement is written beside it, so the disk need
      // not hold both (a 32 GiB key image: ~44 GB; an image of an older
      // layout is stale after an upgrade).
      std::error_code gone;
      fs::remove(path, gone);
      try {
        const uint64_t bytes = body(path);
        spdlog::info("SRS_CACHE,{},{}=written,bytes={},write_ms={:.0f},path={}", circuit_id, what, bytes, MsSince(t0),
                     path);
        absl::MutexLock lock(&stats_mu_);
        const std::string_view w = what;
        ++(w == "key" ? stats_.key_writes : w == "compact" ? stats_.compact_writes : stats_.circuit_writes);
        stats_.bytes_written += bytes;
      } catch (const std::logic_error& e) {  // invalid_argument, length_error: this set cannot be cached
        spdlog::info("SRS_CACHE,{},{}=not_cached,reason=\"{}\"", circuit_id, what, e.what());
      } catch (const std::exception& e) {
        if (cancel_) return;
        Disable(std::string("cannot write ") + path + ": " + e.what());
      }
    };
    if (missing.circuit) {
      attempt("circuit", CircuitPath(circuit_id), [&](const std::string& path) {
        return r1cs::WriteCircuitImage(params->circuit, path, r1cs::CircuitImageSource(circuit_id), &cancel_);
      });
    }
    if (missing.compact && !params->generic) {
      attempt("compact", CompactPath(circuit_id), [&](const std::string& path) {
        const r1cs::CompactCircuit cc = r1cs::Compact(params->circuit, {.threads = kCompactThreads});
        return r1cs::WriteCompactImage(cc, path, r1cs::CircuitImageSource(circuit_id), &cancel_);
      });
    }
    if (missing.key && params_source != 0 && !params->generic) {
      attempt("key", KeyPath(params_path), [&](const std::string& path) {
        const groth16::KeyImageH h = key_h_.load();
        return groth16::WriteKeyImage(
            params->pk, path, params_source, &cancel_,
            missing.key_with_plain_h && h == groth16::KeyImageH::kCompressed ? groth16::KeyImageH::kBoth : h);
      });
    }
  };
  absl::MutexLock lock(&mu_);
  if (cancel_) return false;
  writers_.emplace_back(std::move(write));
  return true;
}

SrsImageCache::Stats SrsImageCache::stats() const {
  absl::MutexLock lock(&stats_mu_);
  return stats_;
}

void SrsImageCache::WaitForWrites() {
  std::vector<std::thread> writers;
  {
    absl::MutexLock lock(&mu_);
    writers.swap(writers_);
  }
  for (auto& t : writers) t.join();
}

void SrsImageCache::Shutdown() {
  cancel_ = true;  // a write in progress stops at its next chunk; no new one starts
  WaitForWrites();
}

}  // namespace cuzk::prover
