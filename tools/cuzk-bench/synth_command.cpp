// cuzk-bench synth: the host capacity of witness-only synthesis (issue 15),
// what the daemon's synthesis threads do for each SnapDeals partition with
// GPU workers: the CircuitWitness from the vanilla proof, z into a buffer
// reused from a WitnessBufferPool (ComputeEmptySectorUpdateWitnessInto),
// the compaction (CompactWitnessOf), the buffer back. No .params and no
// compiled circuit are needed (nor read).
//
//   cuzk-bench synth --sector-size 8MiB --partitions 8 --concurrency 1,2,4 --reuse both
//   cuzk-bench synth --sector-size 32GiB --partitions 32 --concurrency 1,2,3,4,6,8 --json
//   cuzk-bench synth --dir /tmp/s8m --partitions 8          (a `cuzk-cli snap gen-vanilla` output)
//
// Per configuration (reuse mode x concurrency c): c threads take the next of
// P partitions (cycling over the sector's) until P are done, each running
// one synthesis at a time with --threads engine threads (0 = all, the
// daemon's default). Before the timed P, each thread runs one untimed
// synthesis (--warmup, on by default), so that the pool holds c buffers as
// in a daemon that has been busy. One row per configuration:
//   wall_s          the P syntheses, first start to last end
//   host_s_per_partition = wall_s / P: the capacity figure (one synthesis
//                   every that many seconds of host time at this concurrency)
//   latency ms      one synthesis, start to compact witness (median/min/max)
//   witness/compact ms   its two steps (medians)
//   peak_rss_mb     the process's peak resident set during the timed part
//                   (VmHWM, reset per configuration through /proc/self/clear_refs)
// --reuse off computes a fresh vector per partition, as the daemon did
// before (ComputeEmptySectorUpdateWitness), freed after the compaction on
// the same thread (inside wall_s, outside the latency).
// The test sector (--sector-size) is generated in memory like `cuzk-cli snap
// gen-vanilla` (snapdeals::GenerateTestSector: dense up to 32 MiB, sparse
// above; 32 GiB ~0.5 s + ~0.2 s a partition), only the partitions used.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/circuits/snapdeals/witness/witness_buffer_pool.hpp"
#include "engine/filecoin/base64.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"
#include "engine/r1cs/compact_witness.hpp"
#include "tools/common/file_io.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace fs = std::filesystem;
using snapdeals::witness::WitnessBufferPool;

struct SynthArgs {
  std::string sector_size;
  std::string dir;
  uint64_t seed = 1;
  unsigned partitions = 0;  // 0: the sector's partition count
  std::vector<unsigned> concurrency{1};
  unsigned threads = 0;
  std::string reuse = "on";
  bool warmup = true;
  bool json = false;
};

struct Sector {
  filecoin::SectorShape shape;
  filecoin::Commitments commitments;
  std::vector<unsigned> indices;  // partition k of each proof
  std::vector<filecoin::PartitionProof> proofs;
  std::string source;
};

Sector Generate(const std::string& size, uint64_t seed, unsigned wanted) {
  snapdeals::TestSectorOptions o;
  o.sector_bytes = filecoin::ParseSectorSize(size);
  o.seed = seed;
  const filecoin::SectorShape shape = filecoin::SectorShape::FromSectorSize(o.sector_bytes);
  const unsigned used = std::min(std::max(wanted, 1u), shape.partitions);
  for (unsigned k = 0; k < used; ++k) o.partitions.push_back(k);
  snapdeals::TestSector t = snapdeals::GenerateTestSector(o);
  return {t.shape, t.commitments, t.partition_indices, std::move(t.partition_proofs),
          std::string(t.sparse ? "generated (sparse)" : "generated (dense)")};
}

// A `cuzk-cli snap gen-vanilla` directory: sector.json, commitments.json, vanilla_proofs.json.
Sector ReadDir(const fs::path& dir) {
  Sector s;
  try {
    const nlohmann::json sector = tools::ReadJsonFile(dir / "sector.json");
    s.shape = filecoin::SectorShape::FromSectorSize(sector.at("sector_size").get<uint64_t>());
    if (sector.contains("h")) s.shape = s.shape.WithH(sector.at("h").get<unsigned>());
    const nlohmann::json c = tools::ReadJsonFile(dir / "commitments.json");
    s.commitments.comm_r_old = filecoin::DomainFromHex(c.at("comm_r_old").get<std::string>(), "comm_r_old");
    s.commitments.comm_d_new = filecoin::DomainFromHex(c.at("comm_d_new").get<std::string>(), "comm_d_new");
    s.commitments.comm_r_new = filecoin::DomainFromHex(c.at("comm_r_new").get<std::string>(), "comm_r_new");
    const nlohmann::json proofs = tools::ReadJsonFile(dir / "vanilla_proofs.json");
    if (!proofs.is_array() || proofs.size() != s.shape.partitions) {
      throw tools::UnusableInput("vanilla_proofs.json: expected an array of " + std::to_string(s.shape.partitions) +
                                 " base64 strings for a " + s.shape.Name() + " sector");
    }
    for (unsigned k = 0; k < s.shape.partitions; ++k) {
      s.proofs.push_back(filecoin::ReadPartitionProof(filecoin::Base64Decode(proofs[k].get<std::string>()), s.shape));
      s.indices.push_back(k);
    }
  } catch (const tools::UnusableInput&) {
    throw;
  } catch (const std::exception& e) {
    throw tools::UnusableInput(dir.string() + ": " + e.what());
  }
  s.source = dir.string();
  return s;
}

// VmHWM (peak resident set) of this process, in bytes; ResetPeakRss starts it
// again from the current RSS (Linux >= 4.0; false where it cannot).
uint64_t PeakRssBytes() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmHWM:") {
      uint64_t kb = 0;
      f >> kb;
      return kb << 10;
    }
    f.ignore(1 << 12, '\n');
  }
  return 0;
}
bool ResetPeakRss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  return bool(f.flush());
}

struct Sample {
  double witness_ms = 0, compact_ms = 0;
  uint64_t compact_bytes = 0;
};

// One synthesis of partition proof `i`, as the daemon's witness-only synthesis does it.
Sample Synthesize(const Sector& s, size_t i, unsigned threads, WitnessBufferPool* pool) {
  using Clock = std::chrono::steady_clock;
  Sample out;
  const auto t0 = Clock::now();
  const snapdeals::CircuitWitness w = snapdeals::MakeCircuitWitness(s.shape, s.indices[i], s.commitments, s.proofs[i]);
  if (pool) {
    WitnessBufferPool::Lease buffer = pool->Acquire(snapdeals::witness::EmptySectorUpdateVariableCount(s.shape));
    const std::span<const ff::Fr> z =
        snapdeals::witness::ComputeEmptySectorUpdateWitnessInto(s.shape, w, buffer.values(), {.threads = threads});
    const auto t1 = Clock::now();
    const r1cs::CompactWitness c = r1cs::CompactWitnessOf(z, threads);
    buffer.Return();
    out.witness_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    out.compact_ms = tools::MsSince(t1);
    out.compact_bytes = c.Bytes();
    return out;
  }
  r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(s.shape, w, {.threads = threads});
  const auto t1 = Clock::now();
  const r1cs::CompactWitness c = r1cs::CompactWitnessOf(z.values, threads);
  out.witness_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  out.compact_ms = tools::MsSince(t1);
  out.compact_bytes = c.Bytes();
  z = {};  // freed here: counted in the wall time, not in the latency
  return out;
}

struct Row {
  bool reuse = false;
  unsigned concurrency = 0, partitions = 0;
  double wall_s = 0;
  tools::Stats latency_ms, witness_ms, compact_ms;
  uint64_t peak_rss = 0;
  uint64_t compact_bytes = 0;       // median partition's compact witness
  uint64_t buffer_allocations = 0;  // reuse on: buffers made during the timed part (not reused)
};

Row RunConfiguration(const Sector& s, const SynthArgs& a, unsigned c, bool reuse) {
  // A pool per configuration: it starts empty; the warm-up gives it c buffers.
  std::optional<WitnessBufferPool> pool;
  if (reuse) pool.emplace(snapdeals::witness::WitnessBufferPoolOptions{.idle_keep = std::chrono::hours(1)});
  WitnessBufferPool* p = pool ? &*pool : nullptr;
  auto run_threads = [&](unsigned count, auto&& body) {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < count; ++t) threads.emplace_back(body, t);
    for (auto& t : threads) t.join();
  };
  if (a.warmup) run_threads(c, [&](unsigned t) { Synthesize(s, t % s.proofs.size(), a.threads, p); });
  const uint64_t allocations_before = pool ? pool->Stats().acquires - pool->Stats().reuses : 0;

  const unsigned total = a.partitions;
  std::vector<Sample> samples(total);
  std::vector<double> latency(total);
  std::atomic<unsigned> next{0};
  ResetPeakRss();
  const auto t0 = std::chrono::steady_clock::now();
  run_threads(c, [&](unsigned) {
    for (unsigned i; (i = next.fetch_add(1)) < total;) {
      samples[i] = Synthesize(s, i % s.proofs.size(), a.threads, p);
      latency[i] = samples[i].witness_ms + samples[i].compact_ms;
    }
  });
  Row r;
  r.wall_s = tools::SecondsSince(t0);
  r.peak_rss = PeakRssBytes();
  r.reuse = reuse;
  r.concurrency = c;
  r.partitions = total;
  std::vector<double> w, k, bytes;
  for (const Sample& x : samples) {
    w.push_back(x.witness_ms);
    k.push_back(x.compact_ms);
    bytes.push_back(double(x.compact_bytes));
  }
  r.latency_ms = tools::Summarize(latency);
  r.witness_ms = tools::Summarize(w);
  r.compact_ms = tools::Summarize(k);
  r.compact_bytes = uint64_t(tools::Median(bytes));
  if (pool) r.buffer_allocations = pool->Stats().acquires - pool->Stats().reuses - allocations_before;
  return r;
}

int RunSynth(SynthArgs a) {
  if (a.sector_size.empty() == a.dir.empty()) throw std::invalid_argument("synth: give --sector-size or --dir (one)");
  if (a.reuse != "on" && a.reuse != "off" && a.reuse != "both")
    throw std::invalid_argument("synth: --reuse must be on, off or both");
  if (a.concurrency.empty() || std::find(a.concurrency.begin(), a.concurrency.end(), 0u) != a.concurrency.end())
    throw std::invalid_argument("synth: --concurrency needs values >= 1");
  const auto t_sector = std::chrono::steady_clock::now();
  const Sector s = a.dir.empty() ? Generate(a.sector_size, a.seed, a.partitions) : ReadDir(a.dir);
  const double sector_s = tools::SecondsSince(t_sector);
  if (a.partitions == 0) a.partitions = s.shape.partitions;
  const uint64_t n = snapdeals::witness::EmptySectorUpdateVariableCount(s.shape);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const nlohmann::json setup = {{"sector", s.shape.Name()},
                                {"sector_bytes", s.shape.sector_bytes},
                                {"source", s.source},
                                {"seed", a.dir.empty() ? nlohmann::json(a.seed) : nlohmann::json(nullptr)},
                                {"sector_s", sector_s},
                                {"sector_partitions", s.shape.partitions},
                                {"partitions_used", s.proofs.size()},
                                {"variables", n},
                                {"z_bytes", n * sizeof(ff::Fr)},
                                {"engine_threads", a.threads},
                                {"hardware_threads", hw},
                                {"warmup", a.warmup}};
  if (a.json) {
    std::printf("%s\n", nlohmann::json{{"setup", setup}}.dump().c_str());
  } else {
    std::printf(
        "synth: %s sector (%s%s, %.2f s), %u of its %u partitions used, %llu variables (z %.1f MB), "
        "engine threads %u (%u hardware), warm-up %s\n",
        s.shape.Name().c_str(), s.source.c_str(), a.dir.empty() ? (", seed " + std::to_string(a.seed)).c_str() : "",
        sector_s, unsigned(s.proofs.size()), s.shape.partitions, (unsigned long long)n,
        double(n * sizeof(ff::Fr)) / 1e6, a.threads, hw, a.warmup ? "on" : "off");
    std::printf("%-5s %5s %5s %8s %10s %10s %9s %9s %11s %11s %8s %10s %6s\n", "reuse", "conc", "P", "wall_s",
                "host_s/P", "lat_med_ms", "lat_min", "lat_max", "witness_ms", "compact_ms", "rss_MB", "compact_MB",
                "alloc");
  }
  std::vector<bool> modes;
  if (a.reuse != "off") modes.push_back(true);
  if (a.reuse != "on") modes.push_back(false);
  for (bool reuse : modes) {
    for (unsigned c : a.concurrency) {
      const Row r = RunConfiguration(s, a, c, reuse);
      const double per = r.wall_s / r.partitions;
      if (a.json) {
        const nlohmann::json j = {
            {"reuse", r.reuse},
            {"concurrency", r.concurrency},
            {"partitions", r.partitions},
            {"wall_s", r.wall_s},
            {"host_s_per_partition", per},
            {"latency_ms", {{"median", r.latency_ms.median}, {"min", r.latency_ms.min}, {"max", r.latency_ms.max}}},
            {"witness_ms_median", r.witness_ms.median},
            {"compact_ms_median", r.compact_ms.median},
            {"peak_rss_bytes", r.peak_rss},
            {"compact_witness_bytes", r.compact_bytes},
            {"buffer_allocations", r.buffer_allocations}};
        std::printf("%s\n", j.dump().c_str());
      } else {
        std::printf("%-5s %5u %5u %8.2f %10.3f %10.1f %9.1f %9.1f %11.1f %11.1f %8.0f %10.1f %6s\n",
                    r.reuse ? "on" : "off", r.concurrency, r.partitions, r.wall_s, per, r.latency_ms.median,
                    r.latency_ms.min, r.latency_ms.max, r.witness_ms.median, r.compact_ms.median,
                    double(r.peak_rss) / 1e6, double(r.compact_bytes) / 1e6,
                    r.reuse ? std::to_string(r.buffer_allocations).c_str() : "-");
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

CommandRegistrar kSynth("synth", [](CLI::App& app) {
  auto args = std::make_shared<SynthArgs>();
  auto* cmd = app.add_subcommand(
      "synth", "Host capacity of witness-only synthesis (witness into a reused buffer, compaction) by concurrency");
  cmd->add_option("--sector-size", args->sector_size, "generate a test sector: 2KiB, 8MiB, 512MiB, 32GiB, ...");
  cmd->add_option("--dir", args->dir, "a `cuzk-cli snap gen-vanilla` output directory instead");
  cmd->add_option("--seed", args->seed, "test sector seed")->capture_default_str();
  cmd->add_option("--partitions", args->partitions,
                  "partitions synthesized per configuration, cycling over the sector's (0: the sector's count)")
      ->capture_default_str();
  cmd->add_option("--concurrency", args->concurrency, "synthesis threads at once, a list: 1,2,4,8")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "engine threads per synthesis (0: all, the daemon's default)")
      ->capture_default_str();
  cmd->add_option("--reuse", args->reuse, "on (pooled buffers), off (a fresh vector each), both")
      ->capture_default_str();
  cmd->add_flag("--warmup,!--no-warmup", args->warmup, "one untimed synthesis per thread first (default on)");
  cmd->add_flag("--json", args->json, "JSON lines: the setup, then one per configuration");
  cmd->callback([args] { CommandExitCode() = RunSynth(*args); });
});

}  // namespace
}  // namespace cuzk::bench
