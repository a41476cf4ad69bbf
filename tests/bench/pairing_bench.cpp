// BLS12-381 pairing costs: one pairing, its two halves, a 4-pair product
// (a Groth16 verification is a 3- or 4-pair product), and the Fp12 products
// they are made of.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/ec/pairing.hpp"

namespace cuzk::ec {
namespace {

using ff::Fp12;
using ff::Fr;

std::vector<PairingInput> RandomPairs(size_t n) {
  std::mt19937_64 rng(12345);
  std::vector<PairingInput> pairs;
  for (size_t i = 0; i < n; ++i) {
    pairs.push_back({(G1Jacobian::Generator() * Fr::Random(rng)).ToAffine(),
                     (G2Jacobian::Generator() * Fr::Random(rng)).ToAffine()});
  }
  return pairs;
}

void BM_Pairing(benchmark::State& state) {
  auto pairs = RandomPairs(1);
  for (auto _ : state) benchmark::DoNotOptimize(Pairing(pairs[0].first, pairs[0].second));
}
BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);

void BM_MillerLoop(benchmark::State& state) {
  auto pairs = RandomPairs(1);
  for (auto _ : state) benchmark::DoNotOptimize(MillerLoop(pairs));
}
BENCHMARK(BM_MillerLoop)->Unit(benchmark::kMicrosecond);

void BM_FinalExponentiation(benchmark::State& state) {
  auto pairs = RandomPairs(1);
  Fp12 f = MillerLoop(pairs);
  for (auto _ : state) benchmark::DoNotOptimize(FinalExponentiation(f));
}
BENCHMARK(BM_FinalExponentiation)->Unit(benchmark::kMicrosecond);

void BM_MultiPairing(benchmark::State& state) {
  auto pairs = RandomPairs(size_t(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(MultiPairing(pairs));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MultiPairing)->Arg(4)->Unit(benchmark::kMicrosecond);

void BM_Fp12Mul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  Fp12 a = Fp12::Random(rng), b = Fp12::Random(rng);
  for (auto _ : state) {
    a = a * b;
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fp12Mul);

void BM_Fp12Square(benchmark::State& state) {
  std::mt19937_64 rng(2);
  Fp12 a = Fp12::Random(rng);
  for (auto _ : state) {
    a = a.Square();
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fp12Square);

void BM_Fp12CyclotomicSquare(benchmark::State& state) {
  Fp12 a = Pairing(G1Affine::Generator(), G2Affine::Generator());
  for (auto _ : state) {
    a = a.CyclotomicSquare();
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fp12CyclotomicSquare);

void BM_Fp12Inverse(benchmark::State& state) {
  std::mt19937_64 rng(3);
  Fp12 a = Fp12::Random(rng);
  for (auto _ : state) {
    a = a.Inverse();
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_Fp12Inverse)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cuzk::ec
