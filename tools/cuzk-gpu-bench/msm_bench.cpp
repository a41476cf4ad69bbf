// `cuzk-gpu-bench msm [--curve g1|g2]`: times the GPU MSM (cuda::G1Msm or
// cuda::G2Msm) with the bases
// preloaded on the device and the scalars in pinned host memory (the H2D copy
// is inside the timed call), and checks every result exactly.
//
// Bases: for the largest size N, chunks of C = --chunk-points consecutive
// points P_{t C + k} = S_t + k D with random S_t, D (all distinct; built
// with one mixed addition per point and batched inversions). That structure
// gives an exact CPU check at every size at the cost of an MSM over N / C
// points:  sum_i s_i P_i = sum_t (sum_k s_{tC+k}) S_t + (sum_i (i mod C) s_i) D.
// Checks, per size and window width:
//   - "struct": the GPU result equals that CPU value (msm::MsmG1 over the S_t);
//   - "cpu":    for n <= 2^--cpu-check-max-log, also equals msm::MsmG1 over
//               the n bases and scalars directly (msm::MsmG1/MsmG2, all
//               host threads);
//   - "agree":  results of the different window widths of one size are equal.
// --density-permille D < 1000 runs Msm::RunDensity with a random bitmap of n
// bits, D per mille set (the A, B_g1, B_g2 MSMs of a proof): scalar i then
// meets base rank(i), and the checks sum the present scalars against the
// first bases.
// --shifted 0,1 also times Msm::Run over ShiftedBases (G1 only): the window
// shifts precomputed from the device bases (its build time and bytes are
// printed once per size and width), at the variant's width or, for 0,
// pippenger::ShiftedWindowBits within the device's free memory less what
// the MSM's scratch may need.
// Timings: --warmups (2) untimed calls, then the median of --repeats (5);
// "total" is the host wall clock of the whole call (H2D, kernels, D2H, host
// window combination), the stage columns are CUDA event times of the median
// run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/msm/msm.hpp"
#include "cuda/msm/msm_plan.hpp"
#include "cuda/msm/shifted_bases.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/groth16/fixed_base.hpp"
#include "engine/msm/density_bitmap.hpp"
#include "engine/msm/msm.hpp"
#include "engine/util/parallel.hpp"
#include "tools/cuzk-gpu-bench/bench_util.hpp"

namespace cuzk::gpubench {
namespace {

// sppark on the same H200, points preloaded, scalars from pinned host (ms);
// shared/perf/anchors-h200.md, 2026-11-29.
const std::map<unsigned, double> kSpparkG1 = {{20, 21.4}, {22, 55.2}, {24, 158.5}, {26, 580.2}};
const std::map<unsigned, double> kSpparkG2 = {{20, 48.4}, {22, 139.7}};

// The engine's CPU MSM for each curve.
ec::G1Jacobian CpuMsm(std::span<const ec::G1Affine> b, std::span<const ff::Fr> s) { return msm::MsmG1(b, s); }
ec::G2Jacobian CpuMsm(std::span<const ec::G2Affine> b, std::span<const ff::Fr> s) { return msm::MsmG2(b, s); }

template <class C>
struct StructuredBases {
  size_t chunk_points = 0;
  std::vector<ec::AffinePoint<C>> points;  // P_{tC+k} = S_t + k D
  std::vector<ec::AffinePoint<C>> starts;  // S_t
  ec::AffinePoint<C> step;                 // D
};

template <class C>
StructuredBases<C> MakeBases(size_t n, size_t chunk_points, uint64_t seed) {
  using Affine = ec::AffinePoint<C>;
  using Jacobian = ec::JacobianPoint<C>;
  StructuredBases<C> b;
  b.chunk_points = chunk_points;
  const size_t chunks = (n + chunk_points - 1) / chunk_points;
  std::vector<ff::Fr> k(chunks + 1);
  FillRandom<ff::Fr>(k, seed);
  std::vector<Affine> random_points(chunks + 1);
  groth16::FixedBaseTable<C>(Affine(C::Generator()), 10).MulBatch(k, random_points);
  b.step = random_points.back();
  b.starts.assign(random_points.begin(), random_points.end() - 1);
  b.points.resize(n);
  util::ParallelForChunks(chunks, 0, [&](size_t lo, size_t hi, size_t) {
    std::vector<Jacobian> row(chunk_points);
    for (size_t t = lo; t < hi; ++t) {
      const size_t count = std::min(chunk_points, n - t * chunk_points);
      Jacobian acc = Jacobian::FromAffine(b.starts[t]);
      for (size_t j = 0; j < count; ++j) {
        row[j] = acc;
        acc = acc.AddMixed(b.step);
      }
      groth16::BatchToAffine<C>(std::span<const Jacobian>(row).first(count),
                                std::span(b.points).subspan(t * chunk_points, count));
    }
  });
  return b;
}

// sum_i s_i P_i through the structure of the bases (see the file comment).
template <class C>
ec::JacobianPoint<C> StructuredReference(const StructuredBases<C>& b, std::span<const ff::Fr> scalars) {
  const size_t n = scalars.size(), c = b.chunk_points;
  const size_t chunks = (n + c - 1) / c;
  std::vector<ff::Fr> chunk_sums(chunks);
  std::vector<ff::Fr> weighted(chunks);
  util::ParallelForChunks(chunks, 0, [&](size_t lo, size_t hi, size_t) {
    for (size_t t = lo; t < hi; ++t) {
      ff::Fr sum, w;
      for (size_t j = 0; j < c && t * c + j < n; ++j) {
        sum += scalars[t * c + j];
        w += scalars[t * c + j] * ff::Fr::FromUint64(j);
      }
      chunk_sums[t] = sum;
      weighted[t] = w;
    }
  });
  ff::Fr e;
  for (const ff::Fr& w : weighted) e += w;
  return CpuMsm(std::span<const ec::AffinePoint<C>>(b.starts).first(chunks), chunk_sums) +
         ec::JacobianPoint<C>::FromAffine(b.step) * e;
}

// Groth16 witness-like scalars: each one independently 0 with probability
// zero_fraction, 1 with one_fraction, else left random (SnapDeals 2 KiB aux:
// 0.515 / 0.470, `cuzk-bench witness-stats`).
void MakeSparse(std::span<ff::Fr> s, double zero_fraction, double one_fraction, uint64_t seed) {
  if (zero_fraction <= 0 && one_fraction <= 0) return;
  std::mt19937_64 rng(seed ^ 0x5a5a5a5a);
  std::uniform_real_distribution<double> u(0, 1);
  for (ff::Fr& x : s) {
    const double r = u(rng);
    if (r < zero_fraction) {
      x = ff::Fr::Zero();
    } else if (r < zero_fraction + one_fraction) {
      x = ff::Fr::One();
    }
  }
}

struct Row {
  unsigned log_n = 0;
  uint32_t window_bits = 0;
  size_t chunk = 0;
  bool split = true;
  int batch = -1;
  int dfma = 0;  // MsmGpuOptions::mul_pipes as a number
  bool window_major = false;
  bool shifted = false;
  uint32_t copies = 0;  // shifted: the table's copies (its windows: every window into one set)
  uint32_t segment_len = 0;
  Stats total;
  Stats streamed;  // --streamed 1: the same call with the bases streamed from host memory
  float streamed_wait_ms = 0;
  cuda::MsmGpuTimings stages;
  std::string check;
};

template <class Gpu>
int RunMsmOn(const Args& args, const char* curve_name, const std::map<unsigned, double>& sppark, Summary* summary) {
  using C = typename Gpu::HostCurve;
  using Affine = ec::AffinePoint<C>;
  const std::vector<unsigned> sizes = args.GetList("log-sizes", "16-26");
  const std::vector<unsigned> windows = args.GetList("windows", "0");
  // 1: the bit-witness split (default), 0: the compact-digit path; "1,0" times both on the same scalars.
  const std::vector<unsigned> splits = args.GetList("split-ones", "1");
  // Bucket accumulation: -1 = the default (pippenger::DefaultBatch), 0 = XYZZ
  // mixed additions, 8/16/32 = batched affine (MsmGpuOptions::batch);
  // "0,32" times both on the same scalars.
  const std::vector<int> batches = args.GetChoices("batch", "-1");
  // The G1 accumulation's multiplication pipes (MsmGpuOptions::mul_pipes, the
  // MulPipes values): 0 integer (Mul), 1 FP64 (MulDfma), 2 both; "0,1,2" times all.
  const std::vector<unsigned> dfmas = args.GetList("dfma", "0");
  // 1: also time Msm::RunStreamed (bases left in host memory, sliced through pinned staging).
  const bool streamed = args.GetInt("streamed", 0) != 0;
  const unsigned cpu_max = unsigned(args.GetInt("cpu-check-max-log", 20));
  const int warmups = int(args.GetInt("warmups", 2)), repeats = int(args.GetInt("repeats", 5));
  // Sorted entries per accumulation thread (MsmGpuOptions::chunk; 0 = default); "0,128" times both.
  const std::vector<unsigned> chunks = args.GetValues("chunk", "0");
  // Buckets per running-sum thread (MsmGpuOptions::segment_len; 0 = default); "0,16,64" times each.
  const std::vector<unsigned> segment_lens = args.GetValues("segment-len", "0");
  // Digit layout (MsmGpuOptions::window_major): -1 = the default
  // (pippenger::WindowMajorDigits), 0 = compact, 1 = window-major; "0,1" times both.
  const std::vector<int> window_majors = args.GetChoices("window-major", "-1");
  // 1: over ShiftedBases (see the file comment); "0,1" times both.
  const std::vector<unsigned> shifteds = args.GetValues("shifted", "0");
  // Copies of a shifted table (ShiftedBases' copies; 0 = every window, one
  // bucket set); "0,2,3" times each (only with --shifted 1).
  const std::vector<unsigned> copies_list = args.GetValues("shifted-copies", "0");
  // Host scalars over a table copied in batches (MsmGpuOptions::upload_batches;
  // 0 = the default, 1 = one copy first); "1,2,3" times each (only with --shifted 1).
  const std::vector<unsigned> upload_list = args.GetValues("upload-batches", "0");
  for (unsigned v : shifteds) {
    if (v > 1) throw std::invalid_argument("msm: --shifted takes 0 and 1");
  }
  const size_t chunk_points = size_t(args.GetInt("chunk-points", 1024));
  const uint64_t seed = uint64_t(args.GetInt("seed", long(std::random_device{}() & 0x7fffffff)));
  // Per mille, e.g. --zeros-permille 515 --ones-permille 470 for SnapDeals-like witnesses.
  const double zero_fraction = double(args.GetInt("zeros-permille", 0)) / 1000;
  const double one_fraction = double(args.GetInt("ones-permille", 0)) / 1000;
  // Per mille of the scalars that take part (Msm::RunDensity with a random
  // bitmap, as the A, B_g1 and B_g2 MSMs of a proof); 1000 = Msm::Run.
  const long density_permille = args.GetInt("density-permille", 1000);
  if (density_permille < 1 || density_permille > 1000)
    throw std::invalid_argument("msm: --density-permille in 1..1000");
  if (density_permille < 1000 && std::find(shifteds.begin(), shifteds.end(), 1u) != shifteds.end())
    throw std::invalid_argument("msm: --shifted 1 takes no --density-permille (Msm::Run over the table only)");
  if (zero_fraction < 0 || one_fraction < 0 || zero_fraction + one_fraction > 1) {
    throw std::invalid_argument("msm: --zeros-permille + --ones-permille must be within 0..1000");
  }
  if (sizes.empty() || windows.empty() || chunk_points == 0) throw std::invalid_argument("msm: empty size/window list");
  const unsigned max_log = *std::max_element(sizes.begin(), sizes.end());
  if (max_log > 28) throw std::invalid_argument("msm: sizes up to 2^28");
  const size_t max_n = size_t(1) << max_log;
  std::printf("msm: %s, sizes 2^%u..2^%u, seed=%llu, windows", curve_name,
              *std::min_element(sizes.begin(), sizes.end()), max_log, (unsigned long long)seed);
  for (unsigned w : windows) std::printf(" %u", w);
  std::printf(" (0 = default), warmups %d, repeats %d, scalars: %.1f%% zero, %.1f%% one, rest random\n", warmups,
              repeats, 100 * zero_fraction, 100 * one_fraction);

  auto t0 = std::chrono::steady_clock::now();
  const StructuredBases<C> bases = MakeBases<C>(max_n, chunk_points, seed);
  std::printf("bases: %zu points (chunks of %zu) built in %.0f ms\n", max_n, chunk_points, MsSince(t0));
  t0 = std::chrono::steady_clock::now();
  const cuda::DeviceBases<Gpu> device_bases(bases.points);
  std::printf("bases: uploaded in %.0f ms (%.1f GB)\n", MsSince(t0),
              max_n * sizeof(typename cuda::DeviceBases<Gpu>::Point) / 1e9);
  cuda::PinnedBuffer<ff::Fr> scalars(max_n);
  cuda::Msm<Gpu> msm;

  // Every combination of the option lists, timed in this order on the same scalars.
  struct Variant {
    cuda::MsmGpuOptions options;
    bool shifted = false;
    uint32_t copies = 0;
  };
  std::vector<Variant> variants;
  const std::vector<unsigned> all_copies = {0}, one_upload = {0};
  for (unsigned shifted : shifteds)
    for (unsigned copies : shifted ? copies_list : all_copies)
      for (unsigned upload : shifted ? upload_list : one_upload)
        for (unsigned w : windows)
          for (unsigned split : splits)
            for (int batch : batches)
              for (unsigned dfma : dfmas)
                for (int wm : window_majors)
                  for (unsigned chunk : chunks)
                    for (unsigned segment_len : segment_lens) {
                      variants.push_back({{.window_bits = w,
                                           .chunk = chunk,
                                           .split_ones = split != 0,
                                           .window_major = wm,
                                           .batch = batch,
                                           .mul_pipes = cuda::MulPipes(dfma),
                                           .segment_len = segment_len,
                                           .upload_batches = upload},
                                          shifted != 0,
                                          copies});
                    }

  std::vector<Row> rows;
  bool all_ok = true;
  for (unsigned log_n : sizes) {
    const size_t n = size_t(1) << log_n;
    const std::span<ff::Fr> s(scalars.data(), n);
    FillRandom<ff::Fr>(s, seed + log_n);
    MakeSparse(s, zero_fraction, one_fraction, seed + log_n);
    // With a density, scalar i meets base rank(i): the reference sums the
    // present scalars against the first bases in order.
    std::optional<msm::DensityBitmap> density;
    std::vector<ff::Fr> present;
    if (density_permille < 1000) {
      density.emplace(n);
      std::mt19937_64 pick(seed ^ 0xd3a5u ^ log_n);
      for (size_t i = 0; i < n; ++i) {
        if (long(pick() % 1000) < density_permille) density->Set(i), present.push_back(s[i]);
      }
    }
    const std::span<const ff::Fr> summed = density ? std::span<const ff::Fr>(present) : std::span<const ff::Fr>(s);
    t0 = std::chrono::steady_clock::now();
    const Affine want = StructuredReference(bases, summed).ToAffine();
    const double struct_ms = MsSince(t0);
    Affine direct;
    double cpu_ms = -1;
    if (log_n <= cpu_max) {
      t0 = std::chrono::steady_clock::now();
      direct = CpuMsm(std::span<const Affine>(bases.points).first(summed.size()), summed).ToAffine();
      cpu_ms = MsSince(t0);
    }
    std::vector<Affine> results;
    // Shifted bases, one table at a time (they are W times the bases); the
    // default width is chosen once per size, from the room with no table.
    std::unique_ptr<cuda::ShiftedBases<Gpu>> table;
    std::optional<uint32_t> auto_bits;
    // nullptr when the device has no room for one.
    auto table_for = [&](uint32_t asked, uint32_t copies) -> const cuda::ShiftedBases<Gpu>* {
      if (asked == 0 && !auto_bits) {
        table.reset();
        size_t free_bytes = 0, total_bytes = 0;
        CUZK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        // The scratch of a call at the widest width: ~5 words an entry (keys,
        // values, sort), 52 B a scalar, 2^23 XYZZ buckets, slack.
        const size_t scratch = n * 12 * 20 + n * 52 + (size_t(1) << 23) * 192 + (size_t(2) << 30);
        auto_bits = cuda::pippenger::ShiftedWindowBits(n, sizeof(typename cuda::DeviceBases<Gpu>::Point),
                                                       free_bytes > scratch ? free_bytes - scratch : 0);
      }
      const uint32_t c = asked ? asked : *auto_bits;
      if (c == 0) return nullptr;
      if (copies > cuda::SignedDigitWindows(c)) return nullptr;
      const uint32_t want_copies = copies ? copies : cuda::SignedDigitWindows(c);
      if (table && table->window_bits() == c && table->copies() == want_copies) return table.get();
      table.reset();
      try {
        table = std::make_unique<cuda::ShiftedBases<Gpu>>(device_bases, n, c, copies);
      } catch (const cuda::CudaError& e) {
        if (e.code() != cudaErrorMemoryAllocation) throw;
        cudaGetLastError();  // out of memory is not sticky
        return nullptr;
      }
      std::printf(
          "shifted bases 2^%u at c = %u: %u of %u windows' copies (%u bucket sets), %.1f GB, built in %.0f ms\n", log_n,
          c, table->copies(), table->windows(), table->sets(), table->bytes() / 1e9, table->build_ms());
      return table.get();
    };
    for (const Variant& variant : variants) {
      const cuda::MsmGpuOptions& options = variant.options;
      Row row;
      row.log_n = log_n;
      row.shifted = variant.shifted;
      row.copies = variant.copies;
      row.split = options.split_ones;
      row.batch = options.batch;
      row.dfma = int(options.mul_pipes);
      std::vector<double> ms;
      std::vector<cuda::MsmGpuTimings> stages;
      Affine got;
      const cuda::ShiftedBases<Gpu>* shifted =
          variant.shifted ? table_for(options.window_bits, variant.copies) : nullptr;
      if (variant.shifted && shifted == nullptr) {
        std::printf("2^%u shifted c=%u copies=%u: skipped (no room on the device, or more copies than windows)\n",
                    log_n, options.window_bits, variant.copies);
        continue;
      }
      if (shifted) row.copies = shifted->copies();
      for (int r = 0; r < warmups + repeats; ++r) {
        cuda::MsmGpuTimings t;
        const auto start = std::chrono::steady_clock::now();
        const auto res = shifted   ? msm.Run(*shifted, s.data(), n, options, &t)
                         : density ? msm.RunDensity(device_bases, s.data(), *density, options, &t)
                                   : msm.Run(device_bases, s.data(), n, options, &t);
        const double call_ms = MsSince(start);
        if (r == 0) got = res.ToAffine();
        if (r >= warmups) ms.push_back(call_ms), stages.push_back(t);
        if (r > 0 && res.ToAffine() != got) row.check += "REPEAT-DIFFERS ";
      }
      row.total = Summarize(ms);
      // Stage times of the run whose total is the median.
      size_t med = 0;
      for (size_t k = 0; k < ms.size(); ++k) {
        if (std::abs(ms[k] - row.total.median) < std::abs(ms[med] - row.total.median)) med = k;
      }
      row.stages = stages[med];
      row.window_bits = row.stages.window_bits;
      row.batch = int(row.stages.batch);
      row.chunk = row.stages.chunk;
      row.window_major = row.stages.window_major && !row.stages.shifted;
      row.segment_len = row.stages.segment_len;
      if (streamed && !density && !variant.shifted) {
        std::vector<double> sms;
        for (int r = 0; r < warmups + repeats; ++r) {
          cuda::MsmGpuTimings t;
          const auto start = std::chrono::steady_clock::now();
          const auto res = msm.RunStreamed(std::span<const Affine>(bases.points).first(n), s.data(), n, options, &t);
          if (r >= warmups) sms.push_back(MsSince(start)), row.streamed_wait_ms = t.staging_wait_ms;
          if (res.ToAffine() != got) row.check += "STREAMED-DIFFERS ";
        }
        row.streamed = Summarize(sms);
      }
      row.check += got == want ? "struct:PASS " : "struct:FAIL ";
      if (cpu_ms >= 0) row.check += got == direct ? "cpu:PASS " : "cpu:FAIL ";
      if (!results.empty()) row.check += got == results.front() ? "agree:PASS" : "agree:FAIL";
      results.push_back(got);
      if (row.check.find("FAIL") != std::string::npos ||
          row.check.find("DIFFERS") != std::string::npos) {  // incl. streamed
        all_ok = false;
      }
      std::printf(
          "2^%u %s%s%s batch=%d dfma=%d c=%u chunk=%zu segment=%u: median %.3f ms (min %.3f max %.3f) | H2D "
          "%.3f digits "
          "%.3f "
          "ones %.3f (%zu ones, %zu tail) sort %.3f accum %.3f reduce %.3f host %.3f | %s (struct ref %.0f "
          "ms, "
          "cpu msm %.0f ms)\n",
          log_n, row.split ? "split" : "compact-digits", row.window_major ? " window-major" : "",
          row.shifted
              ? (" shifted/" + std::to_string(row.copies) + "/up" + std::to_string(row.stages.upload_batches)).c_str()
              : "",
          row.batch, row.dfma, row.window_bits, row.chunk, row.segment_len, row.total.median, row.total.min,
          row.total.max, row.stages.upload_ms, row.stages.digits_ms, row.stages.ones_ms, row.stages.ones,
          row.stages.tail, row.stages.sort_ms, row.stages.accumulate_ms, row.stages.reduce_ms, row.stages.host_ms,
          row.check.c_str(), struct_ms, cpu_ms);
      if (streamed) {
        const double gb = double(n) * sizeof(typename cuda::DeviceBases<Gpu>::Point) / 1e9;
        std::printf(
            "2^%u %s streamed bases: median %.3f ms (min %.3f max %.3f), %.1f GB of bases at %.1f GB/s, "
            "host staging not hidden %.1f ms\n",
            log_n, row.split ? "split" : "compact-digits", row.streamed.median, row.streamed.min, row.streamed.max, gb,
            gb / (row.streamed.median / 1e3), row.streamed_wait_ms);
      }
      std::fflush(stdout);
      rows.push_back(row);
    }
  }

  std::printf(
      "\n| lg n | ones | digits | batch | dfma | c | chunk | segment | total ms (median) | min..max | H2D | digits | "
      "ones sum | "
      "sort | "
      "accum | reduce | host | sppark ms | check "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
      "\n");
  for (const Row& r : rows) {
    auto it = sppark.find(r.log_n);
    const std::string anchor = it == sppark.end() ? "-" : std::to_string(it->second).substr(0, 5);
    if (summary) {
      const bool pass = r.check.find("FAIL") == std::string::npos && r.check.find("DIFFERS") == std::string::npos;
      summary->push_back({std::string(curve_name) + (r.shifted ? " MSM, shifted bases" : " MSM"), r.log_n,
                          r.total.median, "ms", it == sppark.end() ? -1 : it->second,
                          std::string(pass ? "PASS (" : "FAIL (") + r.check + ")"});
    }
    std::printf(
        "| %u | %s | %s | %d | %d | %u | %zu | %u | %.2f | %.2f..%.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f "
        "| %s "
        "| %s "
        "|\n",
        r.log_n, r.split ? "split" : "digits",
        r.shifted ? ("shifted/" + std::to_string(r.copies) + "/up" + std::to_string(r.stages.upload_batches)).c_str()
        : r.window_major ? "by window"
                         : "compact",
        r.batch, r.dfma, r.window_bits, r.chunk, r.segment_len, r.total.median, r.total.min, r.total.max,
        r.stages.upload_ms, r.stages.digits_ms, r.stages.ones_ms, r.stages.sort_ms, r.stages.accumulate_ms,
        r.stages.reduce_ms, r.stages.host_ms, anchor.c_str(), r.check.c_str());
  }
  std::printf("overall: %s\n", all_ok ? "PASS" : "FAIL");
  return all_ok ? 0 : 1;
}

}  // namespace

int RunMsm(const Args& args, Summary* summary) {
  const std::string curve = args.Get("curve", "g1");
  if (curve == "g1") return RunMsmOn<cuda::G1Gpu>(args, "G1", kSpparkG1, summary);
  if (curve == "g2") return RunMsmOn<cuda::G2Gpu>(args, "G2", kSpparkG2, summary);
  throw std::invalid_argument("msm: --curve must be g1 or g2, got '" + curve + "'");
}

}  // namespace cuzk::gpubench
