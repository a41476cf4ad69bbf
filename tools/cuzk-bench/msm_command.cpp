// cuzk-bench msm: times one CPU MSM (Pippenger) of 2^K random scalars over random G1 or G2 points
// and checks the result.
//
//   cuzk-bench msm --curve g1 --log-size 16 --threads 1 --json
//   cuzk-bench msm --curve g2 --log-size 16 --window 12
//
// Points are tiled from at most 2^16 distinct random points (as the performance anchors do), so
// that generating them stays cheap at any K. Checks, all against computations that share no
// timed run:
//   alt_plan: the same MSM with another window width and thread count (other digits, buckets,
//             batches and work split);
//   folded:   for K > 16, the MSM of the 2^16 distinct points with the scalars summed per point
//             (sum_i k_i P_(i mod m) = sum_j (sum_(i = j mod m) k_i) P_j), another input entirely;
//   naive:    for K <= 10, the sum of scalar multiplications.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fp.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/msm.hpp"
#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

using ff::Fr;

struct MsmArgs {
  std::string curve = "g1";
  unsigned log_size = 0;
  unsigned threads = 0;
  unsigned window = 0;
  bool json = false;
  uint64_t seed = 0;
  bool seed_given = false;
  unsigned warmups = 2;
  unsigned runs = 5;
};

constexpr size_t kMaxDistinctPoints = size_t(1) << 16;
constexpr size_t kPointBlock = 4096;  // points per independent random walk

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Nanoseconds per Fp multiplication (4 independent chains) right now: on a shared machine it says
// how fast the core was running around the timed runs.
double FpMulNs() {
  std::mt19937_64 rng(1);
  ff::Fp x[4], y[4];
  for (int k = 0; k < 4; ++k) x[k] = ff::Fp::Random(rng), y[k] = ff::Fp::Random(rng);
  constexpr int kRounds = 250000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) {
    for (int k = 0; k < 4; ++k) x[k] *= y[k];
  }
  auto stop = std::chrono::steady_clock::now();
  if ((x[0] * x[1] * x[2] * x[3]).IsZero()) std::fprintf(stderr, "unexpected zero\n");
  return std::chrono::duration<double, std::nano>(stop - start).count() / (4.0 * kRounds);
}

std::mt19937_64 BlockRng(uint64_t seed, uint64_t stream, size_t block) {
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(stream), uint32_t(block), uint32_t(block >> 32)};
  return std::mt19937_64(seq);
}

// m distinct random points: per block of 4096, a walk Q + i R from two random multiples of the
// generator, converted to affine with one shared inversion. Reproducible for a seed at any
// thread count.
template <class C>
std::vector<ec::AffinePoint<C>> RandomPoints(size_t m, uint64_t seed, unsigned threads) {
  using J = ec::JacobianPoint<C>;
  using Field = typename C::Field;
  std::vector<ec::AffinePoint<C>> out(m);
  const size_t blocks = (m + kPointBlock - 1) / kPointBlock;
  util::ParallelFor(blocks, threads, [&](size_t b) {
    auto rng = BlockRng(seed, 1, b);
    const size_t begin = b * kPointBlock, end = std::min(m, begin + kPointBlock);
    J step = J::Generator() * Fr::Random(rng), cur = J::Generator() * Fr::Random(rng);
    std::vector<J> walk;
    for (size_t i = begin; i < end; ++i, cur += step) walk.push_back(cur);
    // Montgomery's trick over the z coordinates (none is zero: the walk never meets infinity
    // for random Q, R except with negligible probability, checked below).
    std::vector<Field> prefix(walk.size());
    Field acc = Field::One();
    for (size_t i = 0; i < walk.size(); ++i) {
      prefix[i] = acc;
      acc *= walk[i].z;
    }
    Field inv = acc.Inverse();
    for (size_t i = walk.size(); i-- > 0;) {
      Field zi = inv * prefix[i];
      inv *= walk[i].z;
      Field zi2 = zi.Square();
      out[begin + i] = ec::AffinePoint<C>::FromXY(walk[i].x * zi2, walk[i].y * zi2 * zi);
    }
  });
  for (const auto& p : out) {
    if (p.IsInfinity() || !p.IsOnCurve()) throw std::runtime_error("cuzk-bench msm: point generation failed");
  }
  return out;
}

std::vector<Fr> RandomScalars(size_t n, uint64_t seed, unsigned threads) {
  constexpr size_t kBlock = size_t(1) << 16;
  std::vector<Fr> v(n);
  util::ParallelFor((n + kBlock - 1) / kBlock, threads, [&](size_t b) {
    auto rng = BlockRng(seed, 2, b);
    for (size_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) v[i] = Fr::Random(rng);
  });
  return v;
}

template <class C>
struct CurveApi;
template <>
struct CurveApi<ec::G1Curve> {
  static constexpr const char* kName = "g1";
  static ec::G1Jacobian Msm(std::span<const ec::G1Affine> b, std::span<const Fr> s, const msm::MsmOptions& o) {
    return msm::MsmG1(b, s, o);
  }
  static ec::G1Jacobian Naive(std::span<const ec::G1Affine> b, std::span<const Fr> s) { return msm::NaiveMsmG1(b, s); }
};
template <>
struct CurveApi<ec::G2Curve> {
  static constexpr const char* kName = "g2";
  static ec::G2Jacobian Msm(std::span<const ec::G2Affine> b, std::span<const Fr> s, const msm::MsmOptions& o) {
    return msm::MsmG2(b, s, o);
  }
  static ec::G2Jacobian Naive(std::span<const ec::G2Affine> b, std::span<const Fr> s) { return msm::NaiveMsmG2(b, s); }
};

const char* Verdict(bool ok) { return ok ? "pass" : "fail"; }

template <class C>
int RunMsm(const MsmArgs& args) {
  using Api = CurveApi<C>;
  const size_t n = size_t(1) << args.log_size;
  const unsigned threads = util::ResolveThreads(args.threads);
  const uint64_t seed = args.seed_given ? args.seed : (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  const msm::MsmOptions options{.threads = threads, .window_bits = args.window};
  const unsigned window = msm::MsmWindowBits(n, options);
  const std::string load_before = LoadAverage();

  const size_t m = std::min(n, kMaxDistinctPoints);
  const auto distinct = RandomPoints<C>(m, seed, threads);
  std::vector<ec::AffinePoint<C>> bases(n);
  for (size_t i = 0; i < n; ++i) bases[i] = distinct[i % m];
  const std::vector<Fr> scalars = RandomScalars(n, seed, threads);

  const double mul_ns_before = FpMulNs();
  ec::JacobianPoint<C> result;
  std::vector<double> times_ms, cpu_ms;
  for (unsigned run = 0; run < args.warmups + args.runs; ++run) {
    const double cpu_start = tools::ProcessCpuMs();
    auto start = std::chrono::steady_clock::now();
    result = Api::Msm(bases, scalars, options);
    auto stop = std::chrono::steady_clock::now();
    const double cpu_stop = tools::ProcessCpuMs();
    if (run >= args.warmups) {
      times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
      cpu_ms.push_back(cpu_stop - cpu_start);
    }
  }
  const std::string load_after = LoadAverage();
  const double mul_ns_after = FpMulNs();

  // Another plan: window +-2 (staying within 2..22) and a different thread count.
  const unsigned alt_window = window >= 6 ? window - 2 : window + 2;
  const unsigned alt_threads = threads > 1 ? threads - 1 : 2;
  const bool alt_ok = Api::Msm(bases, scalars, {.threads = alt_threads, .window_bits = alt_window}) == result;
  bool folded_ok = true, naive_ok = true;
  const bool folded_checked = n > m, naive_checked = args.log_size <= 10;
  if (folded_checked) {
    std::vector<Fr> folded(m);
    for (size_t i = 0; i < n; ++i) folded[i % m] += scalars[i];
    folded_ok = Api::Msm(distinct, folded, {.threads = threads, .window_bits = alt_window}) == result;
  }
  if (naive_checked) naive_ok = Api::Naive(bases, scalars) == result;
  const bool pass = alt_ok && folded_ok && naive_ok;

  std::vector<double> sorted = times_ms;
  std::sort(sorted.begin(), sorted.end());
  const double median =
      sorted.size() % 2 ? sorted[sorted.size() / 2] : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;

  nlohmann::json out;
  out["command"] = "msm";
  out["curve"] = Api::kName;
  out["log_size"] = args.log_size;
  out["size"] = n;
  out["threads"] = threads;
  out["hardware_threads"] = util::ResolveThreads(0);
  out["window"] = window;
  out["distinct_points"] = m;
  out["seed"] = seed;
  out["warmups"] = args.warmups;
  out["runs"] = args.runs;
  out["times_ms"] = times_ms;
  out["median_ms"] = median;
  out["min_ms"] = sorted.front();
  out["max_ms"] = sorted.back();
  out["ns_per_point"] = median * 1e6 / double(n);
  std::sort(cpu_ms.begin(), cpu_ms.end());
  out["cpu_ms_median"] =
      cpu_ms.size() % 2 ? cpu_ms[cpu_ms.size() / 2] : (cpu_ms[cpu_ms.size() / 2 - 1] + cpu_ms[cpu_ms.size() / 2]) / 2;
  out["fp_mul_ns_before"] = mul_ns_before;
  out["fp_mul_ns_after"] = mul_ns_after;
#if defined(CUZK_FF_X86_64_ASM)
  out["fp_mul_path"] = ff::detail::use_mulx_adx ? "mulx_adx" : "portable";
#else
  out["fp_mul_path"] = "portable";
#endif
  out["loadavg_before"] = load_before;
  out["loadavg_after"] = load_after;
  out["check"] = Verdict(pass);
  out["check_alt_plan"] = std::string(Verdict(alt_ok)) + " (window " + std::to_string(alt_window) + ", " +
                          std::to_string(alt_threads) + " threads)";
  out["check_folded"] = folded_checked ? Verdict(folded_ok) : "skipped (K <= 16)";
  out["check_naive"] = naive_checked ? Verdict(naive_ok) : "skipped (K > 10)";

  if (args.json) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf(
        "msm %s 2^%u, %u threads, window %u: median %.3f ms (min %.3f, max %.3f over %u runs), "
        "%.1f ns/point, cpu %.3f ms, Fp mul %.1f ns, load %s, check %s\n",
        Api::kName, args.log_size, threads, window, median, sorted.front(), sorted.back(), args.runs,
        median * 1e6 / double(n), out["cpu_ms_median"].get<double>(), mul_ns_before, load_before.c_str(),
        pass ? "pass" : "FAIL");
  }
  if (!pass) std::fprintf(stderr, "cuzk-bench msm: check failed (seed %llu)\n", (unsigned long long)seed);
  return pass ? 0 : 1;
}

CommandRegistrar kMsm("msm", [](CLI::App& app) {
  auto args = std::make_shared<MsmArgs>();
  auto* cmd = app.add_subcommand("msm", "Time a CPU MSM of 2^K random points and scalars and check the result");
  cmd->add_option("--curve", args->curve, "g1 or g2")->check(CLI::IsMember({"g1", "g2"}))->capture_default_str();
  cmd->add_option("--log-size,-k", args->log_size, "log2 of the number of points")
      ->required()
      ->check(CLI::Range(0, 28));
  cmd->add_option("--threads,-t", args->threads, "worker threads (0 = all hardware threads)");
  cmd->add_option("--window,-c", args->window, "window width in bits (0 = chosen from the size)")
      ->check(CLI::Range(0, 22));
  cmd->add_flag("--json", args->json, "print one JSON object");
  auto* seed = cmd->add_option("--seed", args->seed, "input seed (default: random, printed)");
  cmd->add_option("--warmups", args->warmups, "untimed runs first")->capture_default_str();
  cmd->add_option("--runs", args->runs, "timed runs")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->callback([args, seed] {
    args->seed_given = seed->count() > 0;
    CommandExitCode() = args->curve == "g2" ? RunMsm<ec::G2Curve>(*args) : RunMsm<ec::G1Curve>(*args);
  });
});

}  // namespace
}  // namespace cuzk::bench
