// CPU Groth16 proving of the synthetic circuit (engine/circuits/synthetic) at
// 2^K rows (constraints + inputs), K = 12, 14, 16, 18, by stage:
//   Record        recording the R1CS (RecordingCS -> CompiledCircuit)
//   Check         synthesis that evaluates every constraint (CheckingCS)
//   Witness       witness-only synthesis (WitnessCS): the same gadget code,
//                 Enforce and names compiled away
//   EvaluateAbc   a, b, c = A·z, B·z, C·z, padded to m, plus the satisfaction check
//   ProveStart    H (6 NTTs of size m) and the G1 MSMs (A, B_g1, L, H)
//   ProveFinish   the G2 MSM (B) and the assembly
//   Prove         EvaluateAbc + ProveStart + ProveFinish (from a witness)
// The key comes from a local setup run once per size on first use (not timed;
// 2^18 takes about a minute on 2 cores). Pick sizes with e.g.
//   groth16_bench --benchmark_filter='/14$'
// Threads: all hardware threads (CUZK_BENCH_THREADS overrides).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/r1cs/checking.hpp"

namespace {

using namespace cuzk;
namespace synthetic = circuits::synthetic;

unsigned Threads() {
  const char* t = std::getenv("CUZK_BENCH_THREADS");
  return t ? unsigned(std::atoi(t)) : 0;
}

struct Keyed {
  synthetic::SyntheticParams params;
  r1cs::CompiledCircuit circuit;
  groth16::ProvingKey pk;
  r1cs::Assignment witness;
};

const Keyed& KeysFor(unsigned log_size) {
  static std::map<unsigned, std::unique_ptr<Keyed>> cache;
  auto& slot = cache[log_size];
  if (!slot) {
    slot = std::make_unique<Keyed>();
    slot->params = {.log_size = log_size, .num_public = 4};
    slot->circuit = synthetic::Record(slot->params, /*record_names=*/false);
    slot->pk = groth16::GenerateParameters(slot->circuit, {.threads = Threads()});
    slot->witness = synthetic::Witness(slot->params, 1);
  }
  return *slot;
}

void Counters(benchmark::State& state, const Keyed& k) {
  state.counters["constraints"] = double(k.circuit.num_constraints());
  state.counters["aux"] = double(k.circuit.num_aux);
  state.counters["nnz"] = double(k.circuit.a.nonzeros() + k.circuit.b.nonzeros() + k.circuit.c.nonzeros());
}

void BM_Record(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(synthetic::Record(k.params, /*record_names=*/false));
  Counters(state, k);
}

void BM_Check(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  for (auto _ : state) {
    r1cs::CheckingCS cs;
    synthetic::Synthesize(cs, k.params, 2);
    if (!cs.is_satisfied()) state.SkipWithError("unsatisfied");
  }
}

void BM_Witness(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(synthetic::Witness(k.params, 2));
  Counters(state, k);
}

void BM_EvaluateAbc(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(groth16::PrepareProverInput(k.pk, k.circuit, k.witness, {.threads = Threads()}));
  }
}

void BM_ProveStart(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  groth16::CpuBackend cpu({.threads = Threads()});
  for (auto _ : state) {
    state.PauseTiming();
    groth16::ProverInput in = groth16::PrepareProverInput(k.pk, k.circuit, k.witness, {.threads = Threads()});
    state.ResumeTiming();
    benchmark::DoNotOptimize(cpu.ProveStart(k.pk, std::span(&in, 1)));
  }
}

void BM_ProveFinish(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  groth16::CpuBackend cpu({.threads = Threads()});
  groth16::ProverInput in = groth16::PrepareProverInput(k.pk, k.circuit, k.witness, {.threads = Threads()});
  groth16::PendingProof pending = std::move(cpu.ProveStart(k.pk, std::span(&in, 1))[0]);
  for (auto _ : state) {
    state.PauseTiming();
    groth16::PendingProof copy = pending;
    state.ResumeTiming();
    benchmark::DoNotOptimize(cpu.ProveFinish(k.pk, std::move(copy), ff::Fr::FromUint64(3), ff::Fr::FromUint64(5)));
  }
}

void BM_Prove(benchmark::State& state) {
  const Keyed& k = KeysFor(unsigned(state.range(0)));
  groth16::CpuBackend cpu({.threads = Threads()});
  for (auto _ : state) {
    benchmark::DoNotOptimize(groth16::Prove(cpu, k.pk, k.circuit, k.witness, {.threads = Threads()}));
  }
  Counters(state, k);
}

#define SIZES \
  ->Arg(12)->Arg(14)->Arg(16)->Arg(18)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime()
BENCHMARK(BM_Record) SIZES;
BENCHMARK(BM_Check) SIZES;
BENCHMARK(BM_Witness) SIZES;
BENCHMARK(BM_EvaluateAbc) SIZES;
BENCHMARK(BM_ProveStart) SIZES->Iterations(2);
BENCHMARK(BM_ProveFinish) SIZES->Iterations(2);
BENCHMARK(BM_Prove) SIZES->Iterations(2);

}  // namespace
