// cuzk-bench host-fill: what filling fresh host memory from a file costs on
// this machine, way by way: the numbers behind a key image read (issue 17),
// where a 32 GiB key's H section (2^27 G1 points, 14 GB) is sized as a
// std::vector on one thread and then read from the page cache on many.
//
//   vector-resize     std::vector<G1Affine>(n) on one thread (value-initialised
//                     points; the kernel zeroes each page on first touch)
//   pread-resident    the file read into that vector on `threads` threads
//   pread-fresh-4k    the file read into fresh anonymous memory (4 KiB pages,
//                     first-touch faults taken by the reading threads)
//   pread-fresh-thp   the same with MADV_HUGEPAGE (2 MiB pages where the
//                     kernel allows them: /sys/kernel/mm/transparent_hugepage)
//   populate-parallel fresh memory faulted in on `threads` threads
//                     (MADV_POPULATE_WRITE, or a write per page where the
//                     kernel lacks it), then
//   construct-1thread the points value-initialised on one thread in memory
//                     already resident (what a vector's resize costs then)
//
//   cuzk-bench host-fill --bytes 13958643712 --dir /dev/shm --threads 16 --repeats 2
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/util/fault_in.hpp"
#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

struct FillArgs {
  uint64_t bytes = uint64_t(104) << 27;  // a 32 GiB key's H section
  std::string dir = "/dev/shm";
  unsigned threads = 0;
  unsigned repeats = 2;
};

constexpr uint64_t kChunk = 3ull << 24;  // util::kCacheChunkBytes

void Row(const char* step, double ms, uint64_t bytes) {
  std::printf("%-18s %9.0f ms %8.2f GB/s\n", step, ms, ms > 0 ? bytes / 1e6 / ms : 0.0);
  std::fflush(stdout);
}

template <class F>
void Timed(const char* step, uint64_t bytes, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  Row(step, tools::MsSince(t0), bytes);
}

// The file read into dest in kChunk pieces on `threads` threads, as
// util::CacheReader::ReadSection does.
void ParallelPread(int fd, uint8_t* dest, uint64_t bytes, unsigned threads) {
  util::ParallelFor((bytes + kChunk - 1) / kChunk, threads, [&](size_t c) {
    const uint64_t at = c * kChunk, n = std::min(kChunk, bytes - at);
    for (uint64_t got = 0; got < n;) {
      const ssize_t r = ::pread(fd, dest + at + got, n - got, off_t(at + got));
      if (r <= 0) throw std::runtime_error("host-fill: read failed");
      got += uint64_t(r);
    }
  });
}

struct Mapping {
  explicit Mapping(uint64_t bytes) : bytes(bytes) {
    p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("host-fill: mmap failed");
  }
  ~Mapping() { ::munmap(p, bytes); }
  uint8_t* data() const { return static_cast<uint8_t*>(p); }
  void* p;
  uint64_t bytes;
};

std::string ThpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s.empty() ? "unknown" : s;
}

int RunFill(const FillArgs& a) {
  const uint64_t n = a.bytes / sizeof(ec::G1Affine), bytes = n * sizeof(ec::G1Affine);
  const unsigned threads = util::ResolveThreads(a.threads);
  const std::string path = a.dir + "/cuzk-host-fill-" + std::to_string(::getpid());
  std::printf("host-fill: %.2f GB (%llu G1 points), %u threads, file %s, THP %s\n", bytes / 1e9,
              static_cast<unsigned long long>(n), threads, path.c_str(), ThpMode().c_str());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(path + ": cannot create");
  ::unlink(path.c_str());  // gone when fd closes
  {
    std::vector<uint8_t> block(kChunk, 0x5a);
    for (uint64_t at = 0; at < bytes; at += kChunk) {
      if (::pwrite(fd, block.data(), std::min(kChunk, bytes - at), off_t(at)) < 0)
        throw std::runtime_error("host-fill: write failed");
    }
  }
  for (unsigned rep = 0; rep < a.repeats; ++rep) {
    std::printf("-- repeat %u\n", rep + 1);
    {
      std::vector<ec::G1Affine> v;
      Timed("vector-resize", bytes, [&] { v.resize(n); });
      Timed("pread-resident", bytes, [&] { ParallelPread(fd, reinterpret_cast<uint8_t*>(v.data()), bytes, threads); });
    }
    {
      Mapping m(bytes);
      ::madvise(m.p, bytes, MADV_NOHUGEPAGE);
      Timed("pread-fresh-4k", bytes, [&] { ParallelPread(fd, m.data(), bytes, threads); });
    }
    {
      Mapping m(bytes);
      ::madvise(m.p, bytes, MADV_HUGEPAGE);
      Timed("pread-fresh-thp", bytes, [&] { ParallelPread(fd, m.data(), bytes, threads); });
    }
    {
      Mapping m(bytes);
      // What util::ResizeFaultedIn does before a plain vector's resize.
      Timed("populate-parallel", bytes, [&] { util::FaultInForWrite(m.data(), bytes, threads); });
      Timed("construct-1thread", bytes, [&] {
        auto* pts = reinterpret_cast<ec::G1Affine*>(m.data());
        for (uint64_t i = 0; i < n; ++i) ::new (static_cast<void*>(pts + i)) ec::G1Affine();
      });
    }
  }
  ::close(fd);
  return 0;
}

CommandRegistrar kHostFill("host-fill", [](CLI::App& app) {
  auto args = std::make_shared<FillArgs>();
  auto* cmd =
      app.add_subcommand("host-fill", "Time the ways of filling fresh host memory from a file (key image reads)");
  cmd->add_option("--bytes", args->bytes, "bytes of G1 points (default: a 32 GiB key's H section)")
      ->capture_default_str();
  cmd->add_option("--dir", args->dir, "where the source file is made (tmpfs: the page cache)")->capture_default_str();
  cmd->add_option("--threads", args->threads, "0 = all hardware threads")->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "rounds of every way")->capture_default_str();
  cmd->callback([args] { CommandExitCode() = RunFill(*args); });
});

}  // namespace
}  // namespace cuzk::bench
