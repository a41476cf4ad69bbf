// cuzk-bench snarkjs-compare: our CPU Groth16 prover beside snarkjs's on the
// same circom r1cs, snarkjs zkey and witness.
//
//   cuzk-bench snarkjs-compare --r1cs c.r1cs --zkey c.zkey --wtns w.wtns [--runs 5] [--snarkjs-runs 3]
//
// (tests/oracle/snarkjs_bench.sh builds the inputs for the largest circuits the
// shared 2^12 ptau allows and runs this.) Reported, all wall-clock:
//   cuzk load:      read and check r1cs, wtns and zkey (once);
//   cuzk prove:     groth16::Prove on the CpuBackend (H by NTTs + MSMs + assembly),
//                   median of --runs after one warm-up, with --threads threads and
//                   with one thread;
//   snarkjs CLI:    `snarkjs groth16 prove` as a user runs it (Node.js start,
//                   curve set-up, file reading, proving, JSON writing);
//   snarkjs warm:   groth16.prove in one Node.js process after a first call that
//                   builds the curve (tests/oracle/snarkjs_prove_timing.mjs): the
//                   prover alone, the fair comparison for "cuzk prove".
// Every proof is checked: ours and snarkjs's must pass our verifier with the
// same public signals.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/json_io.hpp"
#include "engine/circuits/snarkjs/r1cs_file.hpp"
#include "engine/circuits/snarkjs/witness_check.hpp"
#include "engine/circuits/snarkjs/wtns_file.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/util/parallel.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct CompareArgs {
  std::string r1cs, zkey, wtns;
  std::string oracle_dir = "tests/oracle";
  unsigned threads = 0;
  unsigned runs = 5;
  unsigned snarkjs_runs = 3;
  bool skip_single_thread = false;
  bool json = false;
};

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// Runs a shell command, returns stdout; throws with the output on failure.
std::string Run(const std::string& cmd) {
  FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + cmd);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = ::pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("failed: " + cmd + "\n" + out);
  return out;
}

struct OurTimes {
  std::vector<double> ms;
  bool verified = true;
};

OurTimes TimeOurProver(const snarkjs::ZkeyFile& zkey, const snarkjs::R1csFile& r1cs, const r1cs::Assignment& z,
                       const groth16::PreparedVerifyingKey& pvk, unsigned threads, unsigned runs) {
  OurTimes t;
  groth16::CpuBackend cpu({.threads = threads});
  const groth16::ProveOptions options{.threads = threads, .check_satisfied = false};
  std::vector<ff::Fr> pub = z.PublicInputs();
  for (unsigned i = 0; i <= runs; ++i) {  // run 0 warms caches and allocator
    r1cs::Assignment copy = z;
    auto t0 = Clock::now();
    groth16::Proof proof = groth16::Prove(cpu, zkey.pk, r1cs.circuit, std::move(copy), options);
    double ms = tools::MsSince(t0);
    if (i > 0) t.ms.push_back(ms);
    if (i == runs) t.verified = groth16::Verify(pvk, proof, pub);
  }
  return t;
}

int RunCompare(const CompareArgs& args) {
  const std::string r1cs_path = fs::absolute(args.r1cs).string();
  const std::string zkey_path = fs::absolute(args.zkey).string();
  const std::string wtns_path = fs::absolute(args.wtns).string();
  const fs::path oracle = fs::absolute(args.oracle_dir);
  const fs::path snarkjs_cli = oracle / "node_modules/.bin/snarkjs";
  if (!fs::exists(snarkjs_cli) || !fs::exists(oracle / "snarkjs_prove_timing.mjs")) {
    throw std::runtime_error("snarkjs not found under " + oracle.string() +
                             " (run from the repository root or pass --oracle-dir; scripts/setup.sh installs it)");
  }

  // ---- ours -------------------------------------------------------------------
  auto t_load = Clock::now();
  snarkjs::R1csFile r1cs = snarkjs::ReadR1cs(r1cs_path);
  r1cs::Assignment z = snarkjs::WitnessToAssignment(r1cs, snarkjs::ReadWtns(wtns_path), wtns_path, args.threads);
  snarkjs::ZkeyFile zkey = snarkjs::ReadZkey(zkey_path, {.threads = args.threads});
  snarkjs::CheckZkeyMatchesR1cs(zkey, r1cs);
  double load_ms = tools::MsSince(t_load);
  groth16::PreparedVerifyingKey pvk = groth16::PrepareVerifyingKey(zkey.pk.vk);
  const unsigned threads = util::ResolveThreads(args.threads);

  OurTimes ours = TimeOurProver(zkey, r1cs, z, pvk, args.threads, args.runs);
  OurTimes ours_1t;
  if (!args.skip_single_thread && threads != 1) ours_1t = TimeOurProver(zkey, r1cs, z, pvk, 1, args.runs);

  // ---- snarkjs ----------------------------------------------------------------
  fs::path tmp = fs::temp_directory_path() / ("cuzk-snarkjs-compare-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const std::string proof_out = (tmp / "proof.json").string(), public_out = (tmp / "public.json").string();
  std::vector<double> cli_ms;
  bool snarkjs_verified = true;
  std::vector<ff::Fr> pub = z.PublicInputs();
  for (unsigned i = 0; i < args.snarkjs_runs; ++i) {
    auto t0 = Clock::now();
    Run(Quote(snarkjs_cli.string()) + " groth16 prove " + Quote(zkey_path) + " " + Quote(wtns_path) + " " +
        Quote(proof_out) + " " + Quote(public_out));
    cli_ms.push_back(tools::MsSince(t0));
    groth16::Proof p = snarkjs::ParseProofJson(snarkjs::ReadFileText(proof_out), proof_out);
    std::vector<ff::Fr> sp = snarkjs::ParsePublicSignalsJson(snarkjs::ReadFileText(public_out), public_out);
    snarkjs_verified = snarkjs_verified && sp == pub && groth16::Verify(pvk, p, pub);
  }
  fs::remove_all(tmp);
  nlohmann::json warm = nlohmann::json::parse(
      Run("cd " + Quote(oracle.string()) + " && node snarkjs_prove_timing.mjs " + Quote(zkey_path) + " " +
          Quote(wtns_path) + " " + std::to_string(args.snarkjs_runs + 1) + " 2>/dev/null"));
  std::vector<double> warm_ms = warm["times_ms"].get<std::vector<double>>();
  double first_ms = warm_ms.front();
  warm_ms.erase(warm_ms.begin());

  // ---- report -----------------------------------------------------------------
  const double ours_med = tools::Median(ours.ms), cli_med = tools::Median(cli_ms), warm_med = tools::Median(warm_ms);
  const bool pass = ours.verified && (ours_1t.ms.empty() || ours_1t.verified) && snarkjs_verified;
  nlohmann::ordered_json out;
  out["bench"] = "snarkjs-compare";
  out["r1cs"] = args.r1cs;
  out["constraints"] = r1cs.circuit.num_constraints();
  out["wires"] = r1cs.n_wires;
  out["public_signals"] = r1cs.n_public();
  out["domain_size"] = zkey.domain_size;
  out["hardware_threads"] = util::ResolveThreads(0);
  out["cuzk_threads"] = threads;
  out["snarkjs_threads"] = warm["threads"];
  out["cuzk_load_ms"] = load_ms;
  out["cuzk_prove_ms"] = ours.ms;
  out["cuzk_prove_median_ms"] = ours_med;
  if (!ours_1t.ms.empty()) {
    out["cuzk_prove_1thread_ms"] = ours_1t.ms;
    out["cuzk_prove_1thread_median_ms"] = tools::Median(ours_1t.ms);
  }
  out["snarkjs_cli_ms"] = cli_ms;
  out["snarkjs_cli_median_ms"] = cli_med;
  out["snarkjs_first_call_ms"] = first_ms;
  out["snarkjs_warm_ms"] = warm_ms;
  out["snarkjs_warm_median_ms"] = warm_med;
  out["ratio_warm_snarkjs_over_cuzk_prove"] = warm_med / ours_med;
  out["ratio_cli_snarkjs_over_cuzk_load_plus_prove"] = cli_med / (load_ms + ours_med);
  out["check"] = pass ? "pass" : "FAIL";

  if (args.json) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("snarkjs-compare %s: %llu constraints, %u wires, %u public signals, domain 2^%d\n", args.r1cs.c_str(),
                (unsigned long long)r1cs.circuit.num_constraints(), r1cs.n_wires, r1cs.n_public(),
                std::countr_zero(zkey.domain_size));
    std::printf("  cuzk load (r1cs + wtns + zkey, checked)      %9.1f ms\n", load_ms);
    std::printf("  cuzk prove, %2u threads (median of %u)        %9.1f ms\n", threads, args.runs, ours_med);
    if (!ours_1t.ms.empty()) {
      std::printf("  cuzk prove,  1 thread  (median of %u)        %9.1f ms\n", args.runs, tools::Median(ours_1t.ms));
    }
    std::printf("  snarkjs groth16.prove warm, %2d threads      %9.1f ms (first call %.1f ms)\n",
                warm["threads"].get<int>(), warm_med, first_ms);
    std::printf("  snarkjs groth16 prove CLI (median of %u)     %9.1f ms\n", args.snarkjs_runs, cli_med);
    std::printf("  ratio snarkjs warm / cuzk prove              %9.1fx\n", warm_med / ours_med);
    std::printf("  ratio snarkjs CLI / cuzk load+prove          %9.1fx\n", cli_med / (load_ms + ours_med));
    std::printf("  check (all proofs pass our verifier)         %s\n", pass ? "pass" : "FAIL");
  }
  return pass ? 0 : 1;
}

CommandRegistrar kSnarkjsCompare("snarkjs-compare", [](CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand("snarkjs-compare",
                                 "Time our CPU Groth16 prover and snarkjs's on the same r1cs, zkey and witness");
  cmd->add_option("--r1cs", args->r1cs, "circom .r1cs (--prime bls12381)")->required();
  cmd->add_option("--zkey", args->zkey, "snarkjs Groth16 .zkey")->required();
  cmd->add_option("--wtns", args->wtns, "witness .wtns")->required();
  cmd->add_option("--oracle-dir", args->oracle_dir, "folder with node_modules/snarkjs and snarkjs_prove_timing.mjs")
      ->capture_default_str();
  cmd->add_option("--threads,-t", args->threads, "our worker threads (0 = all hardware threads)");
  cmd->add_option("--runs", args->runs, "our timed runs (after one warm-up)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--snarkjs-runs", args->snarkjs_runs, "snarkjs timed runs, CLI and warm")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--skip-single-thread", args->skip_single_thread, "do not also time our prover on one thread");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args] { CommandExitCode() = RunCompare(*args); });
});

}  // namespace
}  // namespace cuzk::bench
