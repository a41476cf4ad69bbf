// CPU MSM (Pippenger) at 2^16, 2^18, 2^20 on G1 with one thread and all hardware threads, and G2
// at 2^16. Points are tiled from 1024 distinct random points (their generation is not timed; the
// MSM does not depend on the points being distinct).
//   build/bin/msm_bench --benchmark_filter=MsmG1
// (cuzk-bench msm gives the checked, JSON-reporting version of the same runs.)
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fr.hpp"
#include "engine/msm/msm.hpp"

namespace {

using cuzk::ff::Fr;

template <class C>
std::vector<cuzk::ec::AffinePoint<C>> TiledPoints(size_t n) {
  using J = cuzk::ec::JacobianPoint<C>;
  std::mt19937_64 rng(7);
  J step = J::Generator() * Fr::Random(rng), cur = J::Generator() * Fr::Random(rng);
  std::vector<cuzk::ec::AffinePoint<C>> distinct;
  for (size_t i = 0; i < 1024; ++i, cur += step) distinct.push_back(cur.ToAffine());
  std::vector<cuzk::ec::AffinePoint<C>> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = distinct[i % distinct.size()];
  return out;
}

std::vector<Fr> RandomScalars(size_t n) {
  std::mt19937_64 rng(42);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::Random(rng);
  return v;
}

template <class C>
void RunMsm(benchmark::State& state, unsigned threads) {
  const size_t n = size_t(1) << state.range(0);
  const auto bases = TiledPoints<C>(n);
  const auto scalars = RandomScalars(n);
  const cuzk::msm::MsmOptions options{.threads = threads};
  for (auto _ : state) {
    if constexpr (std::is_same_v<C, cuzk::ec::G1Curve>) {
      benchmark::DoNotOptimize(cuzk::msm::MsmG1(bases, scalars, options));
    } else {
      benchmark::DoNotOptimize(cuzk::msm::MsmG2(bases, scalars, options));
    }
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));  // points per second
  state.counters["log_n"] = double(state.range(0));
  state.counters["window"] = cuzk::msm::MsmWindowBits(n, options);
}

void BM_MsmG1OneThread(benchmark::State& state) { RunMsm<cuzk::ec::G1Curve>(state, 1); }
void BM_MsmG1(benchmark::State& state) { RunMsm<cuzk::ec::G1Curve>(state, 0); }
void BM_MsmG2OneThread(benchmark::State& state) { RunMsm<cuzk::ec::G2Curve>(state, 1); }
void BM_MsmG2(benchmark::State& state) { RunMsm<cuzk::ec::G2Curve>(state, 0); }

BENCHMARK(BM_MsmG1OneThread)->DenseRange(16, 20, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmG1)->DenseRange(16, 20, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmG2OneThread)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MsmG2)->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
