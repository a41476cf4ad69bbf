// The plain driver of the fuzz targets, for the regular (gcc, no libFuzzer)
// build: it runs LLVMFuzzerTestOneInput over every file of the given corpus
// directories (or single files), then over deterministic mutations of each
// seed (truncations, bit flips, byte runs, spliced lengths), so CI exercises
// each parser's error paths in well under a second per target without a
// second, clang-built copy of the tree. The libFuzzer runs that look for new
// crashes are scripts/fuzz.sh's.
//
//   fuzz_params_replay tests/fuzz/corpus/fuzz_params [-mutations=200] [-seed=1]
//
// A crash is an abort (a target's oracle or an escaping exception), so the
// test fails; the last input is written to ./crash-replay-<target> first.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

const std::vector<uint8_t>* g_current = nullptr;

void SaveCurrentAndDie() {
  if (g_current) {
    std::ofstream out("crash-replay-input", std::ios::binary);
    out.write(reinterpret_cast<const char*>(g_current->data()), std::streamsize(g_current->size()));
    std::fprintf(stderr, "replay: the failing input (%zu bytes) is in ./crash-replay-input\n", g_current->size());
  }
  std::abort();
}

void Run(const std::vector<uint8_t>& input) {
  g_current = &input;
  // A copy of exactly `size` bytes, so an overread is not hidden by the vector's capacity.
  std::unique_ptr<uint8_t[]> exact(new uint8_t[input.size() ? input.size() : 1]);
  if (!input.empty()) std::memcpy(exact.get(), input.data(), input.size());
  LLVMFuzzerTestOneInput(exact.get(), input.size());
  g_current = nullptr;
}

// Mutations of one seed, each kind a class of damage real inputs get.
std::vector<uint8_t> Mutate(const std::vector<uint8_t>& seed, std::mt19937_64& rng) {
  std::vector<uint8_t> m = seed;
  auto pos = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  switch (rng() % 6) {
    case 0: m.resize(pos(m.size() + 1)); break;  // truncated
    case 1:                                      // a few bit flips
      for (int i = 0, n = 1 + int(rng() % 4); i < n && !m.empty(); ++i) m[pos(m.size())] ^= uint8_t(1u << (rng() % 8));
      break;
    case 2:  // a run of 0x00 or 0xff (huge or zero counts and lengths)
      if (!m.empty()) {
        size_t at = pos(m.size()), len = 1 + rng() % 8;
        uint8_t v = (rng() & 1) ? 0xff : 0x00;
        for (size_t i = at; i < m.size() && i < at + len; ++i) m[i] = v;
      }
      break;
    case 3:  // a random byte
      if (!m.empty()) m[pos(m.size())] = uint8_t(rng());
      break;
    case 4: {  // bytes inserted
      size_t at = pos(m.size() + 1), len = 1 + rng() % 16;
      std::vector<uint8_t> extra(len);
      for (auto& b : extra) b = uint8_t(rng());
      m.insert(m.begin() + std::ptrdiff_t(at), extra.begin(), extra.end());
      break;
    }
    default:  // a chunk removed from the middle
      if (m.size() > 2) {
        size_t at = pos(m.size() - 1), len = 1 + pos(std::min<size_t>(m.size() - at, 64));
        m.erase(m.begin() + std::ptrdiff_t(at), m.begin() + std::ptrdiff_t(at + len));
      }
      break;
  }
  return m;
}

std::vector<uint8_t> ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  std::set_terminate([] {
    std::fprintf(stderr, "replay: uncaught exception\n");
    SaveCurrentAndDie();
  });
  long mutations = 200;
  uint64_t seed = 1;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-mutations=", 0) == 0) {
      mutations = std::atol(a.c_str() + 11);
    } else if (a.rfind("-seed=", 0) == 0) {
      seed = std::strtoull(a.c_str() + 6, nullptr, 10);
    } else if (!a.empty() && a[0] == '-') {
      continue;  // libFuzzer flags: ignored, so one command line serves both drivers
    } else if (std::filesystem::is_directory(a)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(a)) {
        if (e.is_regular_file()) in_dir.push_back(e.path());
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(a)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", a.c_str());
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs (usage: %s CORPUS_DIR|FILE... [-mutations=N] [-seed=S])\n", argv[0]);
    return 2;
  }
  std::mt19937_64 rng(seed);
  long runs = 0;
  for (const auto& f : files) {
    std::vector<uint8_t> input = ReadFile(f);
    Run(input);
    ++runs;
    for (long i = 0; i < mutations; ++i, ++runs) Run(Mutate(input, rng));
  }
  std::printf("replay: %zu inputs, %ld executions (seed %llu, %ld mutations each), no crash\n", files.size(), runs,
              static_cast<unsigned long long>(seed), mutations);
  return 0;
}
