// cuzk-gpu-bench: GPU kernel benchmarks and bit-exact checks against the CPU.
// Self-contained (static CUDA runtime, no Debian libraries) so that it runs
// on a bare GPU host with only the driver installed.
//
//   cuzk-gpu-bench info
//   cuzk-gpu-bench field [--n 1048576]
//   cuzk-gpu-bench ntt --log-sizes 10-27 [--check-max-log 27] [--radix-logs 2,3] [--fuse 1,0] [--skip-unit 1,0]
//                      [--specialize 1,0] [--narrow 1,0]
//                      [--warmups 2] [--repeats 5] [--seed N]
//   cuzk-gpu-bench msm [--curve g1|g2] --log-sizes 16-26 [--windows 0,16,18] [--chunk 0,128] [--cpu-check-max-log 20]
//                      [--chunk-points 1024] [--zeros-permille 0] [--ones-permille 0] [--split-ones 1,0]
//                      [--batch 0,16] [--dfma 0,1] [--window-major -1,0,1] [--segment-len 0,16]
//                      [--shifted 0,1] [--shifted-copies 0,2,3] [--streamed 1]
//                      [--warmups 2] [--repeats 5] [--seed N]
//   cuzk-gpu-bench partition [--sector-size 8MiB] [--partition 0] [--shifted 0,1] [--warmups 1] [--repeats 5]
//   cuzk-gpu-bench decompress [--log-n 24] [--warmups 1] [--repeats 5]
//   cuzk-gpu-bench kernels [--ntt 24,27] [--g1 24,26] [--g2 22] [--g1-shifted 0,1] [--cpu-check-max-log 26]
//                          (also `cuzk-bench kernels` in CUDA builds)
#include <cstdio>
#include <exception>
#include <string>

#include "cuda/runtime/device_info.hpp"
#include "tools/cuzk-gpu-bench/bench_util.hpp"
#include "tools/cuzk-gpu-bench/runners.hpp"

namespace cuzk::gpubench {}  // namespace cuzk::gpubench

namespace {

int Usage() {
  std::fprintf(
      stderr,
      "usage: cuzk-gpu-bench info\n"
      "       cuzk-gpu-bench field [--n N]\n"
      "       cuzk-gpu-bench ntt --log-sizes 10-27 [--check-max-log 27] [--radix-logs 2,3]\n"
      "                          [--fuse 1,0] [--skip-unit 1,0] [--specialize 1,0] [--narrow 1,0]\n"
      "                          [--warmups 2] [--repeats 5] [--seed N]\n"
      "       cuzk-gpu-bench msm [--curve g1|g2] --log-sizes 16-26 [--windows 0,16,18] [--chunk 0,128]\n"
      "                          [--cpu-check-max-log 20] [--chunk-points 1024] [--zeros-permille 0]\n"
      "                          [--ones-permille 0] [--split-ones 1,0] [--batch 0,16] [--dfma 0,1] [--streamed 1] "
      "[--window-major -1,0,1] [--segment-len 0,16] [--shifted 0,1]\n"
      "                          [--shifted-copies 0,2,3]\n"
      "                          [--warmups 2] [--repeats 5] [--seed N]\n"
      "       cuzk-gpu-bench h [--log-sizes 24,27] [--cpu-check-max-log 20] [--warmups 2] [--repeats 5] [--seed N]\n"
      "       cuzk-gpu-bench partition [--sector-size 8MiB] [--partition 0] [--shifted 0,1]\n"
      "                          [--warmups 1] [--repeats 5] [--seed N]\n"
      "       cuzk-gpu-bench decompress [--log-n 24] [--warmups 1] [--repeats 5] [--seed N]\n"
      "       cuzk-gpu-bench kernels [--ntt 24,27] [--g1 24,26] [--g2 22] [--g1-shifted 0,1]\n"
      "                          [--cpu-check-max-log 26]\n"
      "                          [--warmups 2] [--repeats 5] [--seed N]\n");
  return 2;
}

int RunInfo() {
  std::string why;
  auto devices = cuzk::cuda::ListDevices(&why);
  if (devices.empty()) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return 1;
  }
  for (const auto& d : devices) {
    std::printf("device %d: %s, cc %d.%d, %d SMs, %.1f GiB (%.1f GiB free)\n", d.ordinal, d.name.c_str(),
                d.compute_major, d.compute_minor, d.multiprocessors, d.total_memory_bytes / 1073741824.0,
                d.free_memory_bytes / 1073741824.0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string cmd = argv[1];
  try {
    cuzk::gpubench::Args args(argc, argv, 2);
    if (cmd == "info") return RunInfo();
    if (cmd == "field") return cuzk::gpubench::RunField(args);
    if (cmd == "ntt") return cuzk::gpubench::RunNtt(args);
    if (cmd == "msm") return cuzk::gpubench::RunMsm(args);
    if (cmd == "h") return cuzk::gpubench::RunH(args);
    if (cmd == "kernels") return cuzk::gpubench::RunKernels(args);
    if (cmd == "partition") return cuzk::gpubench::RunPartition(args);
    if (cmd == "decompress") return cuzk::gpubench::RunDecompress(args);
    return Usage();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk-gpu-bench %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
}
