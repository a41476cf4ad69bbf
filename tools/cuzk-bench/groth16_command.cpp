// cuzk-bench groth16: CPU Groth16 on the synthetic circuit of 2^K rows
// (engine/circuits/synthetic), stage by stage, for each K given:
//   record (RecordingCS -> CompiledCircuit), setup (local, CSPRNG), witness
//   (WitnessCS), abc (EvaluateAbc padded to m + satisfaction check),
//   start (ProveStart: H NTTs + G1 MSMs A, B_g1, L, H), finish (ProveFinish:
//   G2 MSM + assembly), verify. prove = abc + start + finish, the best of --runs.
// Every proof is verified; a failure exits 1.
//
//   cuzk-bench groth16 --log-size 12 --log-size 14 --runs 3 --json
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/os_rng.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace synthetic = circuits::synthetic;
using Clock = std::chrono::steady_clock;

struct Groth16Args {
  std::vector<unsigned> log_sizes;
  unsigned threads = 0;
  unsigned runs = 2;
  unsigned num_public = 4;
  bool json = false;
};

int RunGroth16(const Groth16Args& a) {
  nlohmann::json results = nlohmann::json::array();
  int rc = 0;
  for (unsigned k : a.log_sizes) {
    synthetic::SyntheticParams p{.log_size = k, .num_public = a.num_public};
    nlohmann::json r;
    r["log_size"] = k;
    r["threads"] = util::ResolveThreads(a.threads);
    auto t0 = Clock::now();
    r1cs::CompiledCircuit c = synthetic::Record(p, /*record_names=*/false);
    r["record_s"] = tools::SecondsSince(t0);
    r["constraints"] = c.num_constraints();
    r["aux"] = c.num_aux;
    r["nonzeros"] = c.a.nonzeros() + c.b.nonzeros() + c.c.nonzeros();
    t0 = Clock::now();
    groth16::ProvingKey pk = groth16::GenerateParameters(c, {.threads = a.threads});
    r["setup_s"] = tools::SecondsSince(t0);
    groth16::CpuBackend cpu({.threads = a.threads});
    auto pvk = groth16::PrepareVerifyingKey(pk.vk);
    double best_witness = 1e300, best_abc = 1e300, best_start = 1e300, best_finish = 1e300, best_prove = 1e300;
    for (unsigned run = 0; run < a.runs; ++run) {
      t0 = Clock::now();
      r1cs::Assignment z = synthetic::Witness(p, run + 1);
      best_witness = std::min(best_witness, tools::SecondsSince(t0));
      std::vector<ff::Fr> x = z.PublicInputs();
      auto tp = Clock::now();
      t0 = tp;
      groth16::ProverInput in = groth16::PrepareProverInput(pk, c, std::move(z), {.threads = a.threads});
      double abc = tools::SecondsSince(t0);
      t0 = Clock::now();
      std::vector<groth16::PendingProof> pending = cpu.ProveStart(pk, std::span(&in, 1));
      double start = tools::SecondsSince(t0);
      t0 = Clock::now();
      groth16::OsRng rng;
      groth16::Proof proof = cpu.ProveFinish(pk, std::move(pending[0]), ff::Fr::Random(rng), ff::Fr::Random(rng));
      double finish = tools::SecondsSince(t0);
      double prove = tools::SecondsSince(tp);
      best_abc = std::min(best_abc, abc);
      best_start = std::min(best_start, start);
      best_finish = std::min(best_finish, finish);
      best_prove = std::min(best_prove, prove);
      t0 = Clock::now();
      bool ok = groth16::Verify(pvk, proof, x);
      r["verify_s"] = tools::SecondsSince(t0);
      if (!ok) {
        std::fprintf(stderr, "groth16: proof at 2^%u did not verify\n", k);
        rc = 1;
      }
    }
    r["witness_s"] = best_witness;
    r["abc_s"] = best_abc;
    r["prove_start_s"] = best_start;
    r["prove_finish_s"] = best_finish;
    r["prove_s"] = best_prove;
    if (!a.json) {
      std::printf(
          "2^%-2u constraints %9llu  record %7.3f s  setup %8.3f s  witness %7.3f s  abc %7.3f s  start %8.3f s  "
          "finish %7.3f s  prove %8.3f s  verify %.3f s\n",
          k, (unsigned long long)c.num_constraints(), r["record_s"].get<double>(), r["setup_s"].get<double>(),
          best_witness, best_abc, best_start, best_finish, best_prove, r["verify_s"].get<double>());
      std::fflush(stdout);
    }
    results.push_back(r);
  }
  if (a.json) std::printf("%s\n", results.dump(1).c_str());
  return rc;
}

CommandRegistrar kGroth16("groth16", [](CLI::App& app) {
  auto args = std::make_shared<Groth16Args>();
  auto* cmd =
      app.add_subcommand("groth16", "Time CPU Groth16 (setup, witness, prove by stage) on the synthetic circuit");
  cmd->add_option("--log-size,-k", args->log_sizes, "log2 of rows (constraints + inputs); repeatable")
      ->required()
      ->check(CLI::Range(4, 26));
  cmd->add_option("--threads,-t", args->threads, "worker threads (0 = all hardware threads)");
  cmd->add_option("--runs", args->runs, "proofs per size (best time reported)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--num-public", args->num_public, "public inputs")->capture_default_str();
  cmd->add_flag("--json", args->json, "print a JSON array");
  cmd->callback([args] { CommandExitCode() = RunGroth16(*args); });
});

}  // namespace
}  // namespace cuzk::bench
