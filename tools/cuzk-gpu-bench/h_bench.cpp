// `cuzk-gpu-bench h`: Groth16's H on the device (bellperson keys), the
// product's six-NTT order (cuda/groth16/h_kernels.hpp) against bellperson's
// seven NTTs, alternating in one run on the same random a, b, c:
//   - check: the two give the same m coefficients, and up to
//     --cpu-check-max-log (20) the first m - 1 equal the CPU's
//     groth16::ComputeHScalars (the CPU backend's H);
//   - timing: CUDA events around the H enqueue alone (the inputs restored by
//     device copies before each run, outside the events); --warmups (2), then
//     the median of --repeats (5).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda/groth16/h_kernels.hpp"
#include "cuda/ntt/ntt.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/groth16/h_polynomial.hpp"
#include "tools/cuzk-gpu-bench/bench_util.hpp"
#include "tools/cuzk-gpu-bench/runners.hpp"

namespace cuzk::gpubench {
namespace {

struct Inputs {
  cuda::DeviceBuffer<ff::Fr> original[3], work[3];
};

void Restore(Inputs& in, size_t m, cudaStream_t stream) {
  for (int k = 0; k < 3; ++k) {
    CUZK_CUDA_CHECK(cudaMemcpyAsync(in.work[k].data(), in.original[k].data(), m * sizeof(ff::Fr),
                                    cudaMemcpyDeviceToDevice, stream));
  }
}

void EnqueueSix(cuda::NttEngine& ntt, Inputs& in, size_t m, cudaStream_t stream) {
  for (int k = 0; k < 3; ++k) cuda::EnqueueHTransform(ntt, k, in.work[k].data(), m, stream);
  cuda::EnqueueHCombine(ntt, in.work[0].data(), in.work[1].data(), in.work[2].data(), m, stream);
}

void EnqueueSeven(cuda::NttEngine& ntt, Inputs& in, size_t m, cudaStream_t stream) {
  cuda::EnqueueHSevenNtts(ntt, in.work[0].data(), in.work[1].data(), in.work[2].data(), m, stream);
}

std::vector<ff::Fr> Result(const Inputs& in, size_t m, cuda::Stream& stream) {
  std::vector<ff::Fr> out(m);
  in.work[0].CopyToHost(out, stream);
  stream.Synchronize();
  return out;
}

}  // namespace

int RunH(const Args& args) {
  const std::vector<unsigned> sizes = args.GetList("log-sizes", "24,27");
  const unsigned cpu_max = unsigned(args.GetInt("cpu-check-max-log", 20));
  const int warmups = int(args.GetInt("warmups", 2)), repeats = int(args.GetInt("repeats", 5));
  const uint64_t seed = uint64_t(args.GetInt("seed", 1));
  for (unsigned log_m : sizes) {
    if (log_m < 1 || log_m > 28) throw std::invalid_argument("--log-sizes: 1..28");
  }
  if (repeats < 1 || warmups < 0) throw std::invalid_argument("--repeats >= 1, --warmups >= 0");
  std::printf("h: seed %llu, warmups %d, repeats %d\n", (unsigned long long)seed, warmups, repeats);
  cuda::NttEngine ntt(0);
  cuda::Stream stream;
  bool all_ok = true;
  std::vector<std::string> rows;
  for (unsigned log_m : sizes) {
    const size_t m = size_t(1) << log_m;
    ntt.Prepare(log_m);
    std::vector<ff::Fr> abc[3];
    Inputs in;
    for (int k = 0; k < 3; ++k) {
      abc[k].resize(m);
      FillRandom<ff::Fr>(abc[k], seed * 3 + k + 100 * log_m);
      in.original[k] = cuda::DeviceBuffer<ff::Fr>(m);
      in.work[k] = cuda::DeviceBuffer<ff::Fr>(m);
      in.original[k].CopyFromHost(abc[k], stream);
    }
    Restore(in, m, stream);
    EnqueueSix(ntt, in, m, stream);
    const std::vector<ff::Fr> six = Result(in, m, stream);
    Restore(in, m, stream);
    EnqueueSeven(ntt, in, m, stream);
    const std::vector<ff::Fr> seven = Result(in, m, stream);
    std::string check = six == seven ? "six=seven:PASS" : "six=seven:FAIL";
    bool ok = six == seven;
    if (log_m <= cpu_max) {
      const std::vector<ff::Fr> cpu =
          groth16::ComputeHScalars(groth16::HQueryForm::kBellperson, abc[0], abc[1], abc[2]);
      const bool same = std::equal(cpu.begin(), cpu.end(), six.begin());
      check += same ? " cpu:PASS" : " cpu:FAIL";
      ok &= same;
    }
    all_ok &= ok;
    // Alternate the two orders so drift (clocks, temperature) hits both.
    std::vector<double> ms_six, ms_seven;
    cuda::Event start, stop;
    for (int i = 0; i < warmups + repeats; ++i) {
      for (int order = 0; order < 2; ++order) {
        Restore(in, m, stream);
        start.Record(stream);
        if (order == 0) {
          EnqueueSix(ntt, in, m, stream);
        } else {
          EnqueueSeven(ntt, in, m, stream);
        }
        stop.Record(stream);
        stop.Synchronize();
        if (i >= warmups) (order == 0 ? ms_six : ms_seven).push_back(stop.ElapsedMsSince(start));
      }
    }
    const Stats six_ms = Summarize(ms_six), seven_ms = Summarize(ms_seven);
    char line[256];
    std::snprintf(line, sizeof(line), "| 2^%u | %.3f (%.3f..%.3f) | %.3f (%.3f..%.3f) | %.3f | %s |", log_m,
                  six_ms.median, six_ms.min, six_ms.max, seven_ms.median, seven_ms.min, seven_ms.max,
                  six_ms.median / seven_ms.median, check.c_str());
    std::printf("%s\n", line);
    std::fflush(stdout);
    rows.push_back(line);
  }
  std::printf("\n| m | six NTTs ms | seven NTTs (bellperson) ms | ratio | check |\n|---|---|---|---|---|\n");
  for (const auto& r : rows) std::printf("%s\n", r.c_str());
  std::printf("overall: %s\n", all_ok ? "PASS" : "FAIL");
  return all_ok ? 0 : 1;
}

}  // namespace cuzk::gpubench
