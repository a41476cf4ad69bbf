// Single-thread costs of the CPU arithmetic that everything else is built on:
// field operations (as dependent chains, so the figure is latency), point
// additions in each form, scalar multiplication, subgroup tests and point
// decoding with and without the subgroup check.
//   build-x/bin/field_bench --benchmark_filter='Fp|Decode'
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/ec/encoding.hpp"
#include "engine/ec/g1.hpp"
#include "engine/ec/g2.hpp"
#include "engine/ff/fp.hpp"
#include "engine/ff/fp2.hpp"
#include "engine/ff/fr.hpp"

namespace {

using cuzk::ec::G1Affine;
using cuzk::ec::G1Jacobian;
using cuzk::ec::G1Xyzz;
using cuzk::ec::G2Affine;
using cuzk::ec::G2Jacobian;
using cuzk::ec::G2Xyzz;
using cuzk::ff::Fp;
using cuzk::ff::Fp2;
using cuzk::ff::Fr;

constexpr size_t kPool = 64;  // distinct inputs cycled through, so no branch learns one value

std::mt19937_64& Rng() {
  static std::mt19937_64 rng(20240601);
  return rng;
}

template <class F>
void FieldMulChain(benchmark::State& state) {
  F x = F::Random(Rng()), y = F::Random(Rng());
  for (auto _ : state) {
    x = x * y;
    benchmark::DoNotOptimize(x);
  }
}
void BM_FpMul(benchmark::State& state) { FieldMulChain<Fp>(state); }
void BM_FrMul(benchmark::State& state) { FieldMulChain<Fr>(state); }
void BM_Fp2Mul(benchmark::State& state) { FieldMulChain<Fp2>(state); }
BENCHMARK(BM_FpMul);
BENCHMARK(BM_FrMul);
BENCHMARK(BM_Fp2Mul);

void BM_FpSquare(benchmark::State& state) {
  Fp x = Fp::Random(Rng());
  for (auto _ : state) {
    x = x.Square();
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_FpSquare);

void BM_FpAdd(benchmark::State& state) {
  Fp x = Fp::Random(Rng()), y = Fp::Random(Rng());
  for (auto _ : state) {
    x = x + y;
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_FpAdd);

void BM_FpInverse(benchmark::State& state) {
  Fp x = Fp::Random(Rng());
  for (auto _ : state) {
    x = x.Inverse();
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_FpInverse);

void BM_FpSqrt(benchmark::State& state) {
  std::vector<Fp> squares;
  for (size_t i = 0; i < kPool; ++i) squares.push_back(Fp::Random(Rng()).Square());
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(squares[i++ % kPool].Sqrt());
}
BENCHMARK(BM_FpSqrt);

// ---- points ---------------------------------------------------------------------------------

template <class Jac>
std::vector<typename Jac::Affine> AffinePool() {
  std::vector<typename Jac::Affine> v;
  for (size_t i = 0; i < kPool; ++i) v.push_back((Jac::Generator() * Fr::Random(Rng())).ToAffine());
  return v;
}

template <class Acc, class Jac>
void AddMixedChain(benchmark::State& state) {
  auto pts = AffinePool<Jac>();
  Acc acc = Acc::FromAffine(pts[0]);
  size_t i = 1;
  for (auto _ : state) {
    acc = acc.AddMixed(pts[i++ % kPool]);
    benchmark::DoNotOptimize(acc);
  }
}
void BM_G1JacobianAddMixed(benchmark::State& state) { AddMixedChain<G1Jacobian, G1Jacobian>(state); }
void BM_G1XyzzAddMixed(benchmark::State& state) { AddMixedChain<G1Xyzz, G1Jacobian>(state); }
void BM_G2JacobianAddMixed(benchmark::State& state) { AddMixedChain<G2Jacobian, G2Jacobian>(state); }
void BM_G2XyzzAddMixed(benchmark::State& state) { AddMixedChain<G2Xyzz, G2Jacobian>(state); }
BENCHMARK(BM_G1JacobianAddMixed);
BENCHMARK(BM_G1XyzzAddMixed);
BENCHMARK(BM_G2JacobianAddMixed);
BENCHMARK(BM_G2XyzzAddMixed);

void BM_G1JacobianDouble(benchmark::State& state) {
  G1Jacobian acc = G1Jacobian::Generator();
  for (auto _ : state) {
    acc = acc.Double();
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_G1JacobianDouble);

template <class Jac>
void ScalarMul(benchmark::State& state) {
  std::vector<Fr> k;
  for (size_t i = 0; i < kPool; ++i) k.push_back(Fr::Random(Rng()));
  Jac g = Jac::Generator();
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(g * k[i++ % kPool]);
}
void BM_G1ScalarMul(benchmark::State& state) { ScalarMul<G1Jacobian>(state); }
void BM_G2ScalarMul(benchmark::State& state) { ScalarMul<G2Jacobian>(state); }
BENCHMARK(BM_G1ScalarMul)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2ScalarMul)->Unit(benchmark::kMicrosecond);

// ---- subgroup tests: endomorphism (used by the decoders) vs generic [r]P == O ------------------

void BM_G1SubgroupEndomorphism(benchmark::State& state) {
  auto pts = AffinePool<G1Jacobian>();
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(cuzk::ec::IsInG1Subgroup(pts[i++ % kPool]));
}
void BM_G1SubgroupGeneric(benchmark::State& state) {
  auto pts = AffinePool<G1Jacobian>();
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(G1Jacobian::FromAffine(pts[i++ % kPool]).IsInSubgroup());
}
void BM_G2SubgroupEndomorphism(benchmark::State& state) {
  auto pts = AffinePool<G2Jacobian>();
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(cuzk::ec::IsInG2Subgroup(pts[i++ % kPool]));
}
void BM_G2SubgroupGeneric(benchmark::State& state) {
  auto pts = AffinePool<G2Jacobian>();
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(G2Jacobian::FromAffine(pts[i++ % kPool]).IsInSubgroup());
}
BENCHMARK(BM_G1SubgroupEndomorphism)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G1SubgroupGeneric)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2SubgroupEndomorphism)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2SubgroupGeneric)->Unit(benchmark::kMicrosecond);

// ---- decoding --------------------------------------------------------------------------------

template <class Jac, bool kCompressed>
std::vector<std::vector<uint8_t>> EncodedPool() {
  std::vector<std::vector<uint8_t>> out;
  for (const auto& p : AffinePool<Jac>()) {
    if constexpr (kCompressed) {
      auto e = cuzk::ec::EncodeCompressed(p);
      out.emplace_back(e.begin(), e.end());
    } else {
      auto e = cuzk::ec::EncodeUncompressed(p);
      out.emplace_back(e.begin(), e.end());
    }
  }
  return out;
}

template <class Jac, bool kCompressed, bool kSubgroup>
void Decode(benchmark::State& state) {
  auto enc = EncodedPool<Jac, kCompressed>();
  const cuzk::ec::DecodeOptions opts{.check_subgroup = kSubgroup};
  size_t i = 0;
  for (auto _ : state) {
    const auto& bytes = enc[i++ % kPool];
    if constexpr (std::is_same_v<Jac, G1Jacobian>) {
      auto r = cuzk::ec::DecodeG1(bytes, opts);
      if (!r.ok()) state.SkipWithError("decode failed");
      benchmark::DoNotOptimize(r);
    } else {
      auto r = cuzk::ec::DecodeG2(bytes, opts);
      if (!r.ok()) state.SkipWithError("decode failed");
      benchmark::DoNotOptimize(r);
    }
  }
}
void BM_G1DecodeCompressed(benchmark::State& s) { Decode<G1Jacobian, true, true>(s); }
void BM_G1DecodeCompressedNoSubgroup(benchmark::State& s) { Decode<G1Jacobian, true, false>(s); }
void BM_G1DecodeUncompressed(benchmark::State& s) { Decode<G1Jacobian, false, true>(s); }
void BM_G1DecodeUncompressedNoSubgroup(benchmark::State& s) { Decode<G1Jacobian, false, false>(s); }
void BM_G2DecodeCompressed(benchmark::State& s) { Decode<G2Jacobian, true, true>(s); }
void BM_G2DecodeCompressedNoSubgroup(benchmark::State& s) { Decode<G2Jacobian, true, false>(s); }
void BM_G2DecodeUncompressed(benchmark::State& s) { Decode<G2Jacobian, false, true>(s); }
void BM_G2DecodeUncompressedNoSubgroup(benchmark::State& s) { Decode<G2Jacobian, false, false>(s); }
BENCHMARK(BM_G1DecodeCompressed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G1DecodeCompressedNoSubgroup)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G1DecodeUncompressed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G1DecodeUncompressedNoSubgroup)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2DecodeCompressed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2DecodeCompressedNoSubgroup)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2DecodeUncompressed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_G2DecodeUncompressedNoSubgroup)->Unit(benchmark::kMicrosecond);

// A parameter-file section: 2^14 uncompressed G1 points, on-curve check only,
// on 1 thread and on all hardware threads (items/s = points/s).
void BM_G1BatchDecodeUncompressed(benchmark::State& state) {
  const size_t n = size_t(1) << 14;
  auto pool = AffinePool<G1Jacobian>();
  std::vector<uint8_t> bytes(n * cuzk::ec::kG1UncompressedBytes);
  for (size_t i = 0; i < n; ++i) {
    cuzk::ec::EncodeUncompressed(pool[i % kPool],
                                 std::span<uint8_t, cuzk::ec::kG1UncompressedBytes>(bytes.data() + i * 96, 96));
  }
  std::vector<G1Affine> out(n);
  for (auto _ : state) {
    auto r = cuzk::ec::DecodeG1Batch(bytes, cuzk::ec::PointFormat::kUncompressed, out,
                                     {.check_subgroup = false, .allow_infinity = false}, unsigned(state.range(0)));
    if (!r.ok()) state.SkipWithError("decode failed");
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(BM_G1BatchDecodeUncompressed)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
