// `cuzk-gpu-bench decompress`: G1 records of 48 bytes (cuda/ec/g1_compressed.hpp)
// made affine on the device: the throughput that decides whether a key image
// with a compressed H section loads faster end to end (issue 17,
// docs/perf/cold-start-next.md: a 32 GiB H is 2^27 points; the model there
// assumes ~2.4 s), every point checked against the host's.
//
//   cuzk-gpu-bench decompress [--log-n 24] [--warmups 1] [--repeats 5] [--seed N]
//
// Points P_i = S + i D (random S, D; one mixed addition each, batched to
// affine on the host threads); records by CompressG1ForDevice; the timed
// part is the kernel alone (CUDA events), records and points resident.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "cuda/ec/g1_compressed.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.hpp"
#include "engine/groth16/fixed_base.hpp"
#include "engine/util/parallel.hpp"
#include "tools/cuzk-gpu-bench/runners.hpp"

namespace cuzk::gpubench {

int RunDecompress(const Args& args) {
  const unsigned log_n = unsigned(args.GetInt("log-n", 24));
  const int warmups = int(args.GetInt("warmups", 1)), repeats = int(args.GetInt("repeats", 5));
  const uint64_t seed = uint64_t(args.GetInt("seed", long(std::random_device{}() & 0x7fffffff)));
  if (log_n < 1 || log_n > 27) throw std::invalid_argument("decompress: --log-n in 1..27");
  if (repeats < 1 || warmups < 0) throw std::invalid_argument("decompress: --repeats >= 1, --warmups >= 0");
  const size_t n = size_t(1) << log_n;
  std::printf("decompress: 2^%u G1 records, seed=%llu, warmups %d, repeats %d\n", log_n, (unsigned long long)seed,
              warmups, repeats);

  auto t0 = std::chrono::steady_clock::now();
  std::mt19937_64 rng(seed);
  const ec::G1Jacobian start = ec::G1Jacobian::Generator() * ff::Fr::Random(rng);
  const ec::G1Affine step = (ec::G1Jacobian::Generator() * ff::Fr::Random(rng)).ToAffine();
  std::vector<ec::G1Affine> points(n);
  std::vector<cuda::CompressedG1> records(n);
  constexpr size_t kRow = 4096;
  util::ParallelForChunks((n + kRow - 1) / kRow, 0, [&](size_t lo, size_t hi, size_t) {
    std::vector<ec::G1Jacobian> row(kRow);
    for (size_t t = lo; t < hi; ++t) {
      const size_t begin = t * kRow, count = std::min(kRow, n - begin);
      ec::G1Jacobian acc = start + ec::G1Jacobian::FromAffine(step) * ff::Fr::FromUint64(begin);
      for (size_t j = 0; j < count; ++j) row[j] = acc, acc = acc.AddMixed(step);
      groth16::BatchToAffine<ec::G1Curve>(std::span<const ec::G1Jacobian>(row).first(count),
                                          std::span(points).subspan(begin, count));
      for (size_t j = 0; j < count; ++j) records[begin + j] = cuda::CompressG1ForDevice(points[begin + j]);
    }
  });
  std::printf("points and records made in %.0f ms\n", MsSince(t0));

  cuda::DeviceBuffer<cuda::CompressedG1> in(n);
  cuda::DeviceBuffer<cuda::AffinePoint<cuda::Fp>> out(n);
  cuda::DeviceBuffer<unsigned long long> first_bad(1);
  cuda::Stream stream;
  in.CopyFromHost(records, stream);
  cuda::Event begin, end;
  std::vector<double> ms;
  for (int r = 0; r < warmups + repeats; ++r) {
    const unsigned long long none = n;
    CUZK_CUDA_CHECK(cudaMemcpyAsync(first_bad.data(), &none, sizeof(none), cudaMemcpyHostToDevice, stream));
    begin.Record(stream);
    cuda::LaunchDecompressG1(n, in.data(), out.data(), first_bad.data(), stream);
    end.Record(stream);
    end.Synchronize();
    if (r >= warmups) ms.push_back(end.ElapsedMsSince(begin));
  }
  unsigned long long bad = 0;
  CUZK_CUDA_CHECK(cudaMemcpy(&bad, first_bad.data(), sizeof(bad), cudaMemcpyDeviceToHost));
  std::vector<cuda::AffinePoint<cuda::Fp>> got(n);
  out.CopyToHost(std::span(got), stream);
  stream.Synchronize();
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const cuda::AffinePoint<cuda::Fp> want = cuda::AffineFromHost<cuda::Fp>(points[i]);
    if (std::memcmp(&want, &got[i], sizeof(want)) != 0) ++wrong;
  }
  const Stats st = Summarize(ms);
  const double per_s = double(n) / (st.median / 1e3);
  std::printf(
      "decompress 2^%u: median %.3f ms (min %.3f max %.3f), %.1f M points/s; 2^27 points (a 32 GiB H) "
      "at that rate: %.2f s; refused %s, wrong %zu: %s\n",
      log_n, st.median, st.min, st.max, per_s / 1e6, double(size_t(1) << 27) / per_s,
      bad == n ? "none" : std::to_string(bad).c_str(), wrong, bad == n && wrong == 0 ? "PASS" : "FAIL");
  return bad == n && wrong == 0 ? 0 : 1;
}

}  // namespace cuzk::gpubench
