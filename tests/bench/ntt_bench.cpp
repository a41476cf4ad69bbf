// Forward CPU NTT at 2^16..2^22: all hardware threads, and one thread.
//   build/tests/bench/ntt_bench --benchmark_filter=Ntt
// (cuzk-bench ntt gives the checked, JSON-reporting version of the same run.)
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/ff/fr.hpp"
#include "engine/poly/ntt.hpp"

namespace {

using cuzk::ff::Fr;

std::vector<Fr> RandomInput(size_t n) {
  std::mt19937_64 rng(42);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::Random(rng);
  return v;
}

void RunNtt(benchmark::State& state, unsigned threads) {
  const unsigned log_n = unsigned(state.range(0));
  const size_t n = size_t(1) << log_n;
  std::vector<Fr> a = RandomInput(n);
  const cuzk::poly::NttOptions options{.threads = threads};
  for (auto _ : state) {
    cuzk::poly::Ntt(a, options);
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  // Items = butterflies (n/2 log n): items_per_second compares sizes.
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n / 2) * log_n);
  state.counters["log_n"] = log_n;
}

void BM_Ntt(benchmark::State& state) { RunNtt(state, 0); }
void BM_NttOneThread(benchmark::State& state) { RunNtt(state, 1); }

BENCHMARK(BM_Ntt)->DenseRange(16, 22, 2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NttOneThread)->DenseRange(16, 22, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
