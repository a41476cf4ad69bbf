// cuzk-bench load: where the load of a SnapDeals parameter set spends its
// time, step by step, on this machine: reading the .params bytes alone,
// decoding them (ReadParams), writing and reading a key image, compiling the
// circuit, writing and reading a circuit image. Each image read is checked
// equal to what was written. The figures of issue 17 (cold start) come from
// here and from the daemon's SRS_LOAD / SRS_CACHE lines.
//
//   cuzk-bench load --param-cache /data/zk/params --sector-size 32GiB --image-dir /dev/shm/img --threads 16
//   cuzk-bench load ... --steps raw,decode            (only some steps)
//   cuzk-bench load ... --steps key-read --keep-images --no-fault-in   (a daemon's cache_dir as --image-dir)
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/key_image.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/r1cs/circuit_image.hpp"
#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace fs = std::filesystem;

struct LoadArgs {
  std::string param_cache = ".";
  std::string sector_size = "2KiB";
  std::string image_dir;  // empty: no image steps
  std::string steps = "raw,decode,key-write,key-read,compile,circuit-write,circuit-read";
  unsigned threads = 0;
  bool keep_images = false;
  bool fault_in = true;  // key-read: no sizing pass, the reading threads fault the pages in
};

struct Row {
  std::string step;
  double ms = 0, cpu_ms = 0;
  uint64_t bytes = 0;
};

void Print(const Row& r) {
  std::printf("%-14s %10.0f ms %10.0f cpu-ms %8.2f GB %8.2f GB/s\n", r.step.c_str(), r.ms, r.cpu_ms, r.bytes / 1e9,
              r.ms > 0 ? r.bytes / 1e6 / r.ms : 0.0);
  std::fflush(stdout);
}

template <class F>
Row Time(const std::string& step, uint64_t bytes, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = tools::ProcessCpuMs();
  f();
  Row r{step, tools::MsSince(t0), tools::ProcessCpuMs() - cpu0, bytes};
  Print(r);
  return r;
}

// pread of the whole file on `threads` threads into one reused buffer per
// thread: what the disk or page cache alone costs, with no decoding.
void ReadRaw(const std::string& path, uint64_t size, unsigned threads) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path + ": cannot open");
  constexpr uint64_t kBlock = 8 << 20;
  util::ParallelForChunks((size + kBlock - 1) / kBlock, threads, [&](size_t begin, size_t end, size_t) {
    std::vector<uint8_t> buf(kBlock);
    for (size_t b = begin; b < end; ++b) {
      if (::pread(fd, buf.data(), kBlock, off_t(b * kBlock)) < 0) throw std::runtime_error(path + ": read failed");
    }
  });
  ::close(fd);
}

int RunLoad(const LoadArgs& a) {
  const auto shape = filecoin::SectorShape::FromSectorSize(filecoin::ParseSectorSize(a.sector_size));
  const std::string circuit_id = "snap-" + shape.Name();
  const std::string params =
      (fs::path(a.param_cache) / (snapdeals::EmptySectorUpdateParamsStem(shape) + ".params")).string();
  std::set<std::string> steps;
  std::stringstream ss(a.steps);
  for (std::string s; std::getline(ss, s, ',');) steps.insert(s);
  const uint64_t file_bytes = fs::file_size(params);
  std::printf("load %s: %s (%.2f GB), threads %u, images in %s\n", circuit_id.c_str(), params.c_str(), file_bytes / 1e9,
              util::ResolveThreads(a.threads), a.image_dir.empty() ? "-" : a.image_dir.c_str());
  const std::string key_image = a.image_dir + "/" + fs::path(params).filename().string() + ".key-image";
  const std::string circuit_image = a.image_dir + "/" + circuit_id + ".circuit-image";
  if (!a.image_dir.empty()) fs::create_directories(a.image_dir);

  if (steps.count("raw")) Time("raw-read", file_bytes, [&] { ReadRaw(params, file_bytes, a.threads); });
  uint64_t source = 0;
  Time("source-digest", 0, [&] { source = groth16::ParamsFileSource(params); });
  groth16::ProvingKey pk;
  if (steps.count("decode")) {
    Time("decode", file_bytes, [&] { pk = groth16::ReadParams(params, {.threads = a.threads}); });
  }
  if (steps.count("key-write") && !a.image_dir.empty() && !pk.h.empty()) {
    uint64_t bytes = 0;
    Time("key-write", 0, [&] { bytes = groth16::WriteKeyImage(pk, key_image, source); });
    std::printf("%-14s %.2f GB\n", "key-image", bytes / 1e9);
  }
  if (steps.count("key-read") && !a.image_dir.empty() && fs::exists(key_image)) {
    groth16::ProvingKey read;
    groth16::KeyImageReadStats st;
    Time(a.fault_in ? "key-read" : "key-read-plain", fs::file_size(key_image), [&] {
      read = groth16::ReadKeyImage(key_image, source, {.threads = a.threads, .fault_in = a.fault_in, .stats = &st});
    });
    std::printf("%-14s size/read ms: h %.0f/%.0f, l %.0f/%.0f, a %.0f/%.0f, b_g1 %.0f/%.0f, b_g2 %.0f/%.0f\n",
                "key-sections", st.h.size_ms, st.h.read_ms, st.l.size_ms, st.l.read_ms, st.a.size_ms, st.a.read_ms,
                st.b_g1.size_ms, st.b_g1.read_ms, st.b_g2.size_ms, st.b_g2.read_ms);
    if (!pk.h.empty() && !(read.h == pk.h && read.l == pk.l && read.a == pk.a && read.b_g2 == pk.b_g2)) {
      std::fprintf(stderr, "key image differs from the decoded key\n");
      return 1;
    }
  }
  pk = {};
  r1cs::CompiledCircuit circuit;
  if (steps.count("compile")) {
    Time("compile", 0, [&] { circuit = snapdeals::CompileEmptySectorUpdate(shape); });
  }
  const uint64_t csource = r1cs::CircuitImageSource(circuit_id);
  if (steps.count("circuit-write") && !a.image_dir.empty() && circuit.num_constraints() > 0) {
    uint64_t bytes = 0;
    Time("circuit-write", 0, [&] { bytes = r1cs::WriteCircuitImage(circuit, circuit_image, csource); });
    std::printf("%-14s %.2f GB\n", "circuit-image", bytes / 1e9);
  }
  if (steps.count("circuit-read") && !a.image_dir.empty() && fs::exists(circuit_image)) {
    r1cs::CompiledCircuit read;
    Time("circuit-read", fs::file_size(circuit_image),
         [&] { read = r1cs::ReadCircuitImage(circuit_image, csource, a.threads); });
    if (circuit.num_constraints() > 0 && !(read.a.columns == circuit.a.columns && read.c.values == circuit.c.values)) {
      std::fprintf(stderr, "circuit image differs from the compiled circuit\n");
      return 1;
    }
  }
  if (!a.keep_images && !a.image_dir.empty()) {
    fs::remove(key_image);
    fs::remove(circuit_image);
  }
  return 0;
}

CommandRegistrar kLoad("load", [](CLI::App& app) {
  auto args = std::make_shared<LoadArgs>();
  auto* cmd = app.add_subcommand("load", "Time the steps of loading a SnapDeals parameter set (decode, images)");
  cmd->add_option("--param-cache", args->param_cache, "folder with the .params")->capture_default_str();
  cmd->add_option("--sector-size", args->sector_size, "2KiB, 8MiB, 32GiB, ...")->capture_default_str();
  cmd->add_option("--image-dir", args->image_dir, "where to write and read the images (none: skip those steps)");
  cmd->add_option("--steps", args->steps, "comma-separated subset")->capture_default_str();
  cmd->add_option("--threads", args->threads, "0 = all hardware threads")->capture_default_str();
  cmd->add_flag("--keep-images", args->keep_images, "leave the images in --image-dir");
  cmd->add_flag(
      "--no-fault-in{false}", args->fault_in,
      "key-read: value-initialise every point on one thread before the reads (the old sizing, as an off switch)");
  cmd->callback([args] { CommandExitCode() = RunLoad(*args); });
});

}  // namespace
}  // namespace cuzk::bench
