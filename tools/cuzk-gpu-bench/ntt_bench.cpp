// `cuzk-gpu-bench ntt`: times the GPU NTT (device-resident forward, coset
// forward, inverse, coset inverse; host pinned round trip incl. H2D + D2H;
// H2D/D2H bandwidth) and checks results bit-exactly:
//   - sizes <= --check-max-log: forward, coset forward and the host round
//     trip against the engine's CPU NTT (poly::Ntt, poly::CosetNtt, all host
//     threads); up to 2^20 that CPU result is also compared with the
//     independent plain reference (cuda/testing/reference_ntt.hpp);
//   - every size: inverse(forward(x)) == x and coset-inverse(coset(x)) == x
//     on the GPU (with forward checked, this pins the inverse down exactly).
// Timings: --warmups (2) untimed runs, then the median of --repeats (5),
// CUDA events around the enqueued work.
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cuda/ntt/ntt.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "cuda/runtime/device_info.hpp"
#include "cuda/testing/reference_ntt.hpp"
#include "engine/poly/ntt.hpp"
#include "tools/cuzk-gpu-bench/bench_util.hpp"

namespace cuzk::gpubench {
namespace {

using cuda::NttKind;

// sppark on the same H200 (shared/perf/anchors-h200.md, 2026-11-29):
// device-resident forward, coset forward, host pinned round trip (ms).
struct Anchor {
  double forward, coset, host;
};
const std::map<unsigned, Anchor> kSppark = {
    {20, {0.280, 0.320, 1.78}}, {22, {1.125, 1.275, 6.37}}, {24, {4.74, 5.36, 25.8}},
    {26, {23.8, 26.2, 108.7}},  {27, {44.4, 49.2, 210.5}},
};

struct Row {
  unsigned log_n = 0, radix_log = 0;
  bool fused = true;
  bool skip_unit = true;
  bool specialized = true;
  bool narrow = true;
  Stats fwd, coset, inv, coset_inv, host;
  double h2d_gbs = 0, d2h_gbs = 0;
  std::string check;
};

// Times `enqueue` (work on `stream`) with events: warmups, then the median of repeats.
template <class F>
Stats TimeOnStream(cudaStream_t stream, int warmups, int repeats, F&& enqueue) {
  cuda::Event start, stop;
  std::vector<double> ms;
  for (int i = 0; i < warmups + repeats; ++i) {
    start.Record(stream);
    enqueue();
    stop.Record(stream);
    stop.Synchronize();
    if (i >= warmups) ms.push_back(stop.ElapsedMsSince(start));
  }
  return Summarize(ms);
}

std::string Verdict(const char* what, std::span<const ff::Fr> got, std::span<const ff::Fr> want, bool* ok) {
  long long bad = FirstMismatch<ff::Fr>(got, want);
  if (bad < 0) return std::string(what) + ":PASS ";
  *ok = false;
  return std::string(what) + ":FAIL@" + std::to_string(bad) + " ";
}

}  // namespace

int RunNtt(const Args& args, Summary* summary) {
  const std::vector<unsigned> sizes = args.GetList("log-sizes", "10-27");
  const unsigned check_max = unsigned(args.GetInt("check-max-log", 27));
  const std::vector<unsigned> radix_logs = args.GetList("radix-logs", "2");
  const std::vector<unsigned> fuse_list = args.GetList("fuse", "1");
  const std::vector<unsigned> skip_unit_list = args.GetList("skip-unit", "1");
  const std::vector<unsigned> specialize_list = args.GetList("specialize", "1");
  const std::vector<unsigned> narrow_list = args.GetList("narrow", "1");
  const int warmups = int(args.GetInt("warmups", 2)), repeats = int(args.GetInt("repeats", 5));
  const uint64_t seed = uint64_t(args.GetInt("seed", long(std::random_device{}() & 0x7fffffff)));
  std::printf(
      "cuzk-gpu-bench ntt: seed=%llu warmups=%d repeats=%d check-max-log=%u (CPU reference up to 2^%u, "
      "GPU round trip for all sizes)\n",
      (unsigned long long)seed, warmups, repeats, check_max, check_max);
  for (const auto& d : cuda::ListDevices()) {
    std::printf("device %d: %s, %d SMs, %.1f GiB\n", d.ordinal, d.name.c_str(), d.multiprocessors,
                d.total_memory_bytes / 1073741824.0);
  }
  unsigned max_log = 1;
  for (unsigned s : sizes) {
    if (s < 1 || s > cuda::kNttMaxLogN) throw std::invalid_argument("--log-sizes out of range 1..28");
    max_log = std::max(max_log, s);
  }

  cuda::NttEngine engine(0);
  auto t0 = std::chrono::steady_clock::now();
  engine.Prepare(max_log);
  std::printf("twiddle table 2^%u built in %.1f ms\n", max_log - 1, 1e3 * SecondsSince(t0));

  cuda::Stream stream;
  bool all_ok = true;
  std::vector<Row> rows;
  for (unsigned log_n : sizes) {
    const size_t n = size_t(1) << log_n;
    std::vector<ff::Fr> input(n);
    FillRandom<ff::Fr>(input, seed + log_n);
    std::vector<ff::Fr> want_fwd, want_coset;
    const bool cpu_check = log_n <= check_max;
    std::string ref_note;
    if (cpu_check) {
      t0 = std::chrono::steady_clock::now();
      want_fwd = input;
      poly::Ntt(want_fwd);
      want_coset = input;
      poly::CosetNtt(want_coset);
      std::printf("2^%u: CPU poly::Ntt + poly::CosetNtt %.2f s\n", log_n, SecondsSince(t0));
      if (log_n <= 20) {
        auto plain_fwd = input, plain_coset = input;
        cuda::testing::ReferenceNtt(plain_fwd, cuda::testing::ReferenceNttKind::kForward);
        cuda::testing::ReferenceNtt(plain_coset, cuda::testing::ReferenceNttKind::kCosetForward);
        const bool agree = plain_fwd == want_fwd && plain_coset == want_coset;
        ref_note = agree ? "cpu-refs-agree " : "CPU-REFS-DISAGREE ";
        all_ok &= agree;
      }
    }
    cuda::PinnedBuffer<ff::Fr> pinned(n);
    cuda::DeviceBuffer<ff::Fr> dbuf(n);
    auto upload = [&] {
      std::copy(input.begin(), input.end(), pinned.data());
      dbuf.CopyFromHost(pinned.span(), stream);
    };
    auto download = [&] {
      dbuf.CopyToHost(pinned.span(), stream);
      stream.Synchronize();
      return std::span<const ff::Fr>(pinned.data(), n);
    };

    for (unsigned radix_log : radix_logs)
      for (unsigned fuse : fuse_list)
        for (unsigned skip_unit : skip_unit_list)
          for (unsigned specialize : specialize_list)
            for (unsigned narrow : narrow_list) {
              Row row;
              row.log_n = log_n;
              row.radix_log = radix_log;
              row.fused = fuse != 0;
              row.skip_unit = skip_unit != 0;
              row.specialized = specialize != 0;
              row.narrow = narrow != 0;
              row.check = ref_note;
              cuda::NttOptions opt;
              opt.kernel.radix_log = radix_log;
              opt.kernel.log_block_elems = radix_log == 3 ? 11 : 10;
              opt.kernel.fuse_bit_reverse = fuse != 0;
              opt.kernel.skip_unit_stage = skip_unit != 0;
              opt.kernel.specialize_direction = specialize != 0;
              opt.kernel.narrow_forward = narrow != 0;
              auto run = [&](NttKind k) { engine.Run(k, dbuf.data(), n, stream, opt); };
              bool ok = true;
              // Correctness first, on fresh copies of the input.
              upload();
              run(NttKind::kForward);
              if (cpu_check) row.check += Verdict("fwd", download(), want_fwd, &ok);
              run(NttKind::kInverse);
              row.check += Verdict("inv(fwd)", download(), input, &ok);
              upload();
              run(NttKind::kCosetForward);
              if (cpu_check) row.check += Verdict("coset", download(), want_coset, &ok);
              run(NttKind::kCosetInverse);
              row.check += Verdict("icoset(coset)", download(), input, &ok);
              // Timings (on whatever the buffer holds: random-looking field elements).
              row.fwd = TimeOnStream(stream, warmups, repeats, [&] { run(NttKind::kForward); });
              row.coset = TimeOnStream(stream, warmups, repeats, [&] { run(NttKind::kCosetForward); });
              row.inv = TimeOnStream(stream, warmups, repeats, [&] { run(NttKind::kInverse); });
              row.coset_inv = TimeOnStream(stream, warmups, repeats, [&] { run(NttKind::kCosetInverse); });
              // Host round trip: first run checked, then timed.
              std::copy(input.begin(), input.end(), pinned.data());
              engine.RunHost(NttKind::kForward, pinned.span(), stream, opt);
              if (cpu_check) row.check += Verdict("host", std::span<const ff::Fr>(pinned.data(), n), want_fwd, &ok);
              row.host = TimeOnStream(stream, warmups, repeats,
                                      [&] { engine.RunHost(NttKind::kForward, pinned.span(), stream, opt); });
              // Copy bandwidth from/to the pinned buffer.
              const double bytes = double(n) * sizeof(ff::Fr);
              Stats h2d = TimeOnStream(stream, 1, repeats, [&] { dbuf.CopyFromHost(pinned.span(), stream); });
              Stats d2h = TimeOnStream(stream, 1, repeats, [&] { dbuf.CopyToHost(pinned.span(), stream); });
              row.h2d_gbs = bytes / (h2d.median * 1e6);
              row.d2h_gbs = bytes / (d2h.median * 1e6);
              all_ok &= ok;
              std::printf(
                  "2^%-2u radix%u %s%s%s%s fwd %.3f ms [%.3f..%.3f]  coset %.3f  inv %.3f  icoset %.3f  host %.2f ms  "
                  "H2D %.1f GB/s D2H %.1f GB/s  %s\n",
                  log_n, 1u << radix_log, row.fused ? "fused" : "bitrev-pass",
                  row.skip_unit ? "" : " unit-stage-multiplied", row.specialized ? "" : " runtime-direction",
                  row.narrow ? "" : " forward-3-blocks", row.fwd.median, row.fwd.min, row.fwd.max, row.coset.median,
                  row.inv.median, row.coset_inv.median, row.host.median, row.h2d_gbs, row.d2h_gbs, row.check.c_str());
              std::fflush(stdout);
              rows.push_back(row);
            }
  }

  std::printf(
      "\n| lg n | variant | fwd ms | coset ms | inv ms | icoset ms | host rt ms | H2D GB/s | D2H GB/s | "
      "sppark fwd / coset / host | check |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    auto it = kSppark.find(r.log_n);
    char sp[64] = "-";
    if (it != kSppark.end()) {
      std::snprintf(sp, sizeof sp, "%.3f / %.3f / %.2f", it->second.forward, it->second.coset, it->second.host);
    }
    const bool pass = r.check.find("FAIL") == std::string::npos;
    if (summary) {
      const bool vs_cpu = r.check.find("fwd:PASS") != std::string::npos;
      const std::string how = vs_cpu ? "(equal to poly::Ntt / CosetNtt on the CPU)" : "(GPU round trips only)";
      summary->push_back({"NTT forward", r.log_n, r.fwd.median, "ms", it != kSppark.end() ? it->second.forward : -1,
                          (pass ? "PASS " : "FAIL ") + how});
      summary->push_back({"NTT coset forward", r.log_n, r.coset.median, "ms",
                          it != kSppark.end() ? it->second.coset : -1, (pass ? "PASS " : "FAIL ") + how});
      summary->push_back({"H2D pinned", r.log_n, r.h2d_gbs, "GB/s", 55.4, "(pinned buffer -> device)"});
    }
    std::printf("| %u | r%u%s%s%s%s | %.3f | %.3f | %.3f | %.3f | %.2f | %.1f | %.1f | %s | %s|\n", r.log_n,
                1u << r.radix_log, r.fused ? "" : "+bitrev", r.skip_unit ? "" : "+unitmul",
                r.specialized ? "" : "+rtdir", r.narrow ? "" : "+fwd3blk", r.fwd.median, r.coset.median, r.inv.median,
                r.coset_inv.median, r.host.median, r.h2d_gbs, r.d2h_gbs, sp,
                r.check.find("FAIL") == std::string::npos ? "PASS " : "FAIL ");
  }
  std::printf("overall: %s\n", all_ok ? "PASS" : "FAIL");
  return all_ok ? 0 : 1;
}

}  // namespace cuzk::gpubench
