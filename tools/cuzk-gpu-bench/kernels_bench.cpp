// `cuzk-gpu-bench kernels` (and `cuzk-bench kernels`): the GPU kernels of a
// proof at the sizes given, each timed (--warmups untimed runs, then the
// median of --repeats) and checked against the CPU backend, closing with one
// table beside the sppark figures measured on the same H200:
//
//   cuzk-gpu-bench kernels --ntt 24,27 --g1 24,26 --g2 22 [--g1-shifted 0,1] [--g2-shifted 0,1]
//
// G1 and G2 are timed on the plain device bases and over ShiftedBases
// (window shifts precomputed once, as the daemon does for H when the GPU has
// room; the table's build is printed apart, not in the MSM's time):
// --g1-shifted 0 / --g2-shifted 0 time the plain bases only.
// NTT (forward and coset forward, device-resident): equal element by element
// to poly::Ntt / poly::CosetNtt for sizes <= --cpu-check-max-log; inverse
// kinds through GPU round trips (ntt_bench.cpp). MSM: equal to msm::MsmG1 /
// MsmG2 over the same bases and scalars for sizes <= --cpu-check-max-log,
// and to the structured-bases reference at every size (msm_bench.cpp).
// H2D: pinned buffer to device, timed with events (ntt_bench.cpp).
// Cost: the CPU checks dominate at large sizes (a CPU G1 MSM of 2^26 takes
// about a minute on 16 cores); lower --cpu-check-max-log to skip them.
#include <cstdio>
#include <map>
#include <string>

#include "cuda/runtime/device_info.hpp"
#include "tools/cuzk-gpu-bench/runners.hpp"

namespace cuzk::gpubench {

int RunKernels(const Args& args) {
  std::string why;
  const auto devices = cuda::ListDevices(&why);
  if (devices.empty()) {
    std::fprintf(stderr, "kernels: no CUDA device (%s)\n", why.c_str());
    return 1;
  }
  const std::string ntt = args.Get("ntt", "24,27"), g1 = args.Get("g1", "24,26"), g2 = args.Get("g2", "22");
  const std::string check = args.Get("cpu-check-max-log", "26");
  const std::string g1_shifted = args.Get("g1-shifted", "0,1"), g2_shifted = args.Get("g2-shifted", "0,1");
  const std::string warmups = args.Get("warmups", "2"), repeats = args.Get("repeats", "5");
  const std::string seed = args.Get("seed", std::to_string(std::random_device{}() & 0x7fffffff));
  std::printf("cuzk kernels: ntt %s, g1 %s, g2 %s, CPU checks up to 2^%s, warmups %s, repeats %s, seed %s\n",
              ntt.c_str(), g1.c_str(), g2.c_str(), check.c_str(), warmups.c_str(), repeats.c_str(), seed.c_str());
  Summary summary;
  int rc = 0;
  auto common = [&](std::map<std::string, std::string> m) {
    m["warmups"] = warmups;
    m["repeats"] = repeats;
    m["seed"] = seed;
    return Args(std::move(m));
  };
  if (!ntt.empty()) rc |= RunNtt(common({{"log-sizes", ntt}, {"check-max-log", check}}), &summary);
  if (!g1.empty()) {
    rc |= RunMsm(common({{"curve", "g1"}, {"log-sizes", g1}, {"cpu-check-max-log", check}, {"shifted", g1_shifted}}),
                 &summary);
  }
  if (!g2.empty()) {
    rc |= RunMsm(common({{"curve", "g2"}, {"log-sizes", g2}, {"cpu-check-max-log", check}, {"shifted", g2_shifted}}),
                 &summary);
  }

  std::printf("\n| kernel | size | cuzk | sppark (same H200) | cuzk / sppark | check |\n|---|---|---|---|---|---|\n");
  for (const SummaryRow& r : summary) {
    char anchor[32] = "-", ratio[32] = "-";
    if (r.sppark > 0) {
      std::snprintf(anchor, sizeof anchor, "%.2f %s", r.sppark, r.unit.c_str());
      std::snprintf(ratio, sizeof ratio, "%.2f", r.value / r.sppark);
    }
    std::printf("| %s | 2^%u | %.2f %s | %s | %s | %s |\n", r.what.c_str(), r.log_n, r.value, r.unit.c_str(), anchor,
                ratio, r.check.c_str());
  }
  std::printf("kernels: %s\n", rc == 0 ? "PASS" : "FAIL");
  return rc == 0 ? 0 : 1;
}

}  // namespace cuzk::gpubench
