// cuzk-bench kernels: the GPU kernels of a proof (NTT, G1 and G2 MSM) timed at
// the given sizes and checked against the CPU backend, plus H2D bandwidth,
// closing with one table beside sppark's figures. The same code as
// `cuzk-gpu-bench kernels` (tools/cuzk-gpu-bench/kernels_bench.cpp), which
// needs no Debian libraries on a GPU host; builds without CUDA say so.
//
//   cuzk-bench kernels --ntt 24,27 --g1 24,26 --g2 22 [--g1-shifted 0,1] [--cpu-check-max-log 26]
//                      [--warmups 2] [--repeats 5] [--seed N]
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "tools/cuzk-bench/command_registry.hpp"

#ifdef CUZK_HAVE_CUDA
#include "tools/cuzk-gpu-bench/runners.hpp"
#endif

namespace cuzk::bench {
namespace {

struct KernelsArgs {
  std::string ntt = "24,27", g1 = "24,26", g2 = "22", g1_shifted = "0,1";
  unsigned cpu_check_max_log = 26, warmups = 2, repeats = 5;
  long seed = -1;
};

int RunKernels(const KernelsArgs& a) {
#ifdef CUZK_HAVE_CUDA
  std::map<std::string, std::string> m = {{"ntt", a.ntt},
                                          {"g1", a.g1},
                                          {"g2", a.g2},
                                          {"g1-shifted", a.g1_shifted},
                                          {"cpu-check-max-log", std::to_string(a.cpu_check_max_log)},
                                          {"warmups", std::to_string(a.warmups)},
                                          {"repeats", std::to_string(a.repeats)}};
  if (a.seed >= 0) m["seed"] = std::to_string(a.seed);
  return gpubench::RunKernels(gpubench::Args(std::move(m)));
#else
  (void)a;
  std::fprintf(stderr, "cuzk-bench kernels: this build has no CUDA backend (configure with -DCUZK_CUDA=ON)\n");
  return 2;
#endif
}

CommandRegistrar kKernels("kernels", [](CLI::App& app) {
  auto args = std::make_shared<KernelsArgs>();
  auto* cmd = app.add_subcommand("kernels", "GPU NTT / G1 / G2 MSM timings and H2D bandwidth, checked against the CPU");
  cmd->add_option("--ntt", args->ntt, "NTT log2 sizes, e.g. 24,27 or 20-24 (empty: none)");
  cmd->add_option("--g1", args->g1, "G1 MSM log2 sizes (empty: none)");
  cmd->add_option("--g2", args->g2, "G2 MSM log2 sizes (empty: none)");
  cmd->add_option("--g1-shifted", args->g1_shifted,
                  "G1 on the plain bases (0) and over precomputed window shifts (1); default 0,1");
  cmd->add_option("--cpu-check-max-log", args->cpu_check_max_log,
                  "compare with the CPU backend up to this log2 size (the CPU side dominates the run time)");
  cmd->add_option("--warmups", args->warmups, "untimed runs first");
  cmd->add_option("--repeats", args->repeats, "timed runs (the median is reported)");
  cmd->add_option("--seed", args->seed, "random seed (default: printed)");
  cmd->callback([args] { CommandExitCode() = RunKernels(*args); });
});

}  // namespace
}  // namespace cuzk::bench
