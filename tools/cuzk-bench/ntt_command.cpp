// cuzk-bench ntt: times one CPU NTT of size 2^K on random input and checks the
// result: the inverse transform gives the input back; for K <= 12 the O(n^2)
// DFT of the definition; for K > 12 the definition at sampled output indices
// (0, 1, n-1 and random ones: O(n) each). The round trip alone would pass a
// wrong transform that its own inverse undoes (e.g. a wrong root of unity).
//
//   cuzk-bench ntt --log-size 20 --threads 2 --json
//   cuzk-bench ntt --log-size 24 --coset --inverse      # InverseCosetNtt
//
// Times are wall clock (steady_clock) around the transform alone; the input
// is copied into the working array before each run, untimed.
// Memory: two arrays of 2^K Fr (the input and the working copy): 8 GiB at K = 27.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ff/fr.hpp"
#include "engine/poly/ntt.hpp"
#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

using ff::Fr;

struct NttArgs {
  unsigned log_size = 0;
  unsigned threads = 0;
  bool inverse = false;
  bool coset = false;
  bool json = false;
  uint64_t seed = 0;
  bool seed_given = false;
  unsigned warmups = 2;
  unsigned runs = 5;
};

// Which transform is timed, and the one that undoes it.
struct Op {
  const char* name;
  void (*apply)(std::span<Fr>, const poly::NttOptions&);
  void (*undo)(std::span<Fr>, const poly::NttOptions&);
};

Op SelectOp(bool inverse, bool coset) {
  auto ntt = [](std::span<Fr> a, const poly::NttOptions& o) { poly::Ntt(a, o); };
  auto intt = [](std::span<Fr> a, const poly::NttOptions& o) { poly::InverseNtt(a, o); };
  auto coset_ntt = [](std::span<Fr> a, const poly::NttOptions& o) { poly::CosetNtt(a, o); };
  auto icoset_ntt = [](std::span<Fr> a, const poly::NttOptions& o) { poly::InverseCosetNtt(a, o); };
  if (coset) return inverse ? Op{"inverse_coset_ntt", icoset_ntt, coset_ntt} : Op{"coset_ntt", coset_ntt, icoset_ntt};
  return inverse ? Op{"inverse_ntt", intt, ntt} : Op{"ntt", ntt, intt};
}

// Reproducible for a seed whatever the thread count: block b of 2^16
// elements draws from its own generator seeded with (seed, b).
std::vector<Fr> RandomInput(size_t n, uint64_t seed, unsigned threads) {
  constexpr size_t kBlock = size_t(1) << 16;
  std::vector<Fr> v(n);
  const size_t blocks = (n + kBlock - 1) / kBlock;
  util::ParallelFor(blocks, threads, [&](size_t b) {
    std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(b), uint32_t(b >> 32)};
    std::mt19937_64 rng(seq);
    for (size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) v[i] = Fr::Random(rng);
  });
  return v;
}

// For K <= 12: the forward direction of the check goes through NaiveDft.
// Forward ops: result == NaiveDft(g^i * input). Inverse ops: the definition
// run forward on the result gives the input back.
bool NaiveCheck(bool inverse, bool coset, const std::vector<Fr>& input, const std::vector<Fr>& result) {
  const Fr g = Fr::FromUint64(ff::kFrMultiplicativeGenerator);
  auto shifted = [&](std::vector<Fr> v) {
    if (coset) {
      Fr f = Fr::One();
      for (auto& x : v) {
        x *= f;
        f *= g;
      }
    }
    return v;
  };
  if (!inverse) {
    std::vector<Fr> expected = shifted(input);
    poly::NaiveDft(expected);
    return expected == result;
  }
  std::vector<Fr> back = shifted(result);
  poly::NaiveDft(back);
  return back == input;
}

// For K > 12: the definition at a few output indices, each an O(n) sum.
// Forward ops: result[i] == sum_j g^j input[j] w^(i j) (g = 1 without coset).
// Inverse ops: the same sum over the result gives input[i].
constexpr unsigned kSampledIndices = 6;
std::vector<uint64_t> SampleIndices(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5eed5eedULL);
  std::vector<uint64_t> idx = {0, 1, n - 1};
  while (idx.size() < kSampledIndices) idx.push_back(rng() % n);
  return idx;
}
bool SampledCheck(unsigned log_n, bool inverse, bool coset, const std::vector<Fr>& input, const std::vector<Fr>& result,
                  uint64_t seed, unsigned threads) {
  const size_t n = input.size();
  const std::vector<Fr>& coeffs = inverse ? result : input;  // the side the definition runs forward on
  const std::vector<Fr>& values = inverse ? input : result;
  const Fr g = coset ? Fr::FromUint64(ff::kFrMultiplicativeGenerator) : Fr::One();
  const Fr w = ff::FrRootOfUnity(log_n);
  const std::vector<uint64_t> idx = SampleIndices(n, seed);
  std::vector<char> ok(idx.size(), 0);
  util::ParallelFor(idx.size(), threads, [&](size_t s) {
    const Fr x = w.Pow(idx[s]) * g;  // sum_j coeffs[j] (g w^i)^j
    Fr acc = Fr::Zero(), xp = Fr::One();
    for (size_t j = 0; j < n; ++j) {
      acc += coeffs[j] * xp;
      xp *= x;
    }
    ok[s] = acc == values[idx[s]];
  });
  return std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
}

int RunNtt(const NttArgs& args) {
  const size_t n = size_t(1) << args.log_size;
  const unsigned threads = util::ResolveThreads(args.threads);
  const poly::NttOptions options{.threads = threads};
  const uint64_t seed = args.seed_given ? args.seed : (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  const Op op = SelectOp(args.inverse, args.coset);

  const std::vector<Fr> input = RandomInput(n, seed, threads);
  std::vector<Fr> work(n);
  std::vector<double> times_ms, cpu_ms;
  for (unsigned run = 0; run < args.warmups + args.runs; ++run) {
    std::copy(input.begin(), input.end(), work.begin());
    const double cpu_start = tools::ProcessCpuMs();
    auto start = std::chrono::steady_clock::now();
    op.apply(work, options);
    auto stop = std::chrono::steady_clock::now();
    const double cpu_stop = tools::ProcessCpuMs();
    if (run >= args.warmups) {
      times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
      cpu_ms.push_back(cpu_stop - cpu_start);
    }
  }

  // work = op(input) now.
  bool naive_ok = true;
  const bool naive_checked = args.log_size <= 12;
  if (naive_checked) naive_ok = NaiveCheck(args.inverse, args.coset, input, work);
  bool sampled_ok = true;
  if (!naive_checked) sampled_ok = SampledCheck(args.log_size, args.inverse, args.coset, input, work, seed, threads);
  op.undo(work, options);
  const bool round_trip_ok = work == input;
  const bool pass = naive_ok && sampled_ok && round_trip_ok;

  std::vector<double> sorted = times_ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = tools::Median(times_ms);
  const double butterflies = double(n / 2) * args.log_size;

  nlohmann::json out;
  out["command"] = "ntt";
  out["op"] = op.name;
  out["log_size"] = args.log_size;
  out["size"] = n;
  out["threads"] = threads;
  out["hardware_threads"] = util::ResolveThreads(0);
  out["seed"] = seed;
  out["warmups"] = args.warmups;
  out["runs"] = args.runs;
  out["times_ms"] = times_ms;
  out["median_ms"] = median;
  out["min_ms"] = sorted.empty() ? 0 : sorted.front();
  out["max_ms"] = sorted.empty() ? 0 : sorted.back();
  // CPU time of all threads during each timed run: on a shared machine, wall
  // time above cpu_ms / threads means the threads were waiting for a core.
  out["cpu_ms"] = cpu_ms;
  out["median_cpu_ms"] = tools::Median(cpu_ms);
  out["ns_per_butterfly"] = butterflies > 0 ? median * 1e6 / butterflies : 0;
  out["check"] = pass ? "pass" : "fail";
  out["check_round_trip"] = round_trip_ok ? "pass" : "fail";
  out["check_naive_dft"] = naive_checked ? (naive_ok ? "pass" : "fail") : "skipped (K > 12)";
  out["check_sampled_definition"] =
      naive_checked ? "skipped (K <= 12: full DFT)"
                    : std::string(sampled_ok ? "pass" : "fail") + " (" + std::to_string(kSampledIndices) + " indices)";
  out["memory_bytes"] = 2 * n * sizeof(Fr);

  if (args.json) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("%s 2^%u, %u threads: median %.3f ms (min %.3f, max %.3f over %u runs), %.2f ns/butterfly, check %s\n",
                op.name, args.log_size, threads, median, out["min_ms"].get<double>(), out["max_ms"].get<double>(),
                args.runs, out["ns_per_butterfly"].get<double>(), pass ? "pass" : "FAIL");
  }
  if (!pass) std::fprintf(stderr, "cuzk-bench ntt: check failed (seed %llu)\n", (unsigned long long)seed);
  return pass ? 0 : 1;
}

CommandRegistrar kNtt("ntt", [](CLI::App& app) {
  auto args = std::make_shared<NttArgs>();
  auto* cmd = app.add_subcommand("ntt", "Time a CPU NTT of size 2^K over Fr and check the result");
  cmd->add_option("--log-size,-k", args->log_size, "log2 of the transform size")->required()->check(CLI::Range(0, 27));
  cmd->add_option("--threads,-t", args->threads, "worker threads (0 = all hardware threads)");
  cmd->add_flag("--inverse", args->inverse, "time the inverse transform");
  cmd->add_flag("--coset", args->coset, "time the coset transform (shift 7)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  auto* seed = cmd->add_option("--seed", args->seed, "input seed (default: random, printed)");
  cmd->add_option("--warmups", args->warmups, "untimed runs first")->capture_default_str();
  cmd->add_option("--runs", args->runs, "timed runs")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->callback([args, seed] {
    args->seed_given = seed->count() > 0;
    CommandExitCode() = RunNtt(*args);
  });
});

}  // namespace
}  // namespace cuzk::bench
