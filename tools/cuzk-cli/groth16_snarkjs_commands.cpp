// cuzk-cli groth16 prove / verify on snarkjs files (BLS12-381):
//
//   cuzk-cli groth16 prove --r1cs c.r1cs --zkey c.zkey --wtns w.wtns --proof-out proof.json --public-out public.json
//   cuzk-cli groth16 verify --vkey verification_key.json --proof proof.json --public public.json
//
// prove checks that the zkey belongs to the r1cs and that the witness
// satisfies it (naming the failing constraint) before proving on the CPU,
// and writes proof.json / public.json exactly as `snarkjs groth16 prove` does.
// verify exits 0 for a valid proof, 1 for an invalid one (including points
// off the curve or outside the subgroup and public signals >= r, which
// snarkjs also answers "invalid" for), 2 for input it cannot use (unreadable
// or malformed files, a bad verification key, a public-signal count that
// does not match the key), with the reason on stderr.
#include <bit>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/json_io.hpp"
#include "engine/circuits/snarkjs/r1cs_file.hpp"
#include "engine/circuits/snarkjs/sym_file.hpp"
#include "engine/circuits/snarkjs/witness_check.hpp"
#include "engine/circuits/snarkjs/wtns_file.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/verifier.hpp"
#include "tools/common/command_registry.hpp"
#include "tools/common/timing.hpp"

namespace cuzk::tools {
namespace {

using Clock = std::chrono::steady_clock;

CLI::App* Groth16Group(CLI::App& app) { return CommandGroup(app, "groth16", "Groth16 proving and verification"); }

struct ProveArgs {
  std::string r1cs, zkey, wtns, proof_out, public_out, sym;
  unsigned threads = 0;
  bool check_subgroup = false;
  bool quiet = false;
};

// Errors propagate to the tool's main: message on stderr, exit code 2.
void Prove(const ProveArgs& args) {
  auto t0 = Clock::now();
  snarkjs::R1csFile r1cs = snarkjs::ReadR1cs(args.r1cs);
  std::vector<std::string> wire_names;
  if (!args.sym.empty()) wire_names = snarkjs::ReadSymWireNames(args.sym, r1cs.n_wires);
  r1cs::Assignment z = snarkjs::WitnessToAssignment(r1cs, snarkjs::ReadWtns(args.wtns), args.wtns, args.threads,
                                                    args.sym.empty() ? nullptr : &wire_names);
  snarkjs::ZkeyFile zkey =
      snarkjs::ReadZkey(args.zkey, {.check_subgroup = args.check_subgroup, .threads = args.threads});
  snarkjs::CheckZkeyMatchesR1cs(zkey, r1cs);
  double load_s = SecondsSince(t0);

  auto t1 = Clock::now();
  std::vector<ff::Fr> public_signals = z.PublicInputs();
  groth16::CpuBackend cpu({.threads = args.threads});
  // WitnessToAssignment has checked every constraint already.
  groth16::Proof proof =
      groth16::Prove(cpu, zkey.pk, r1cs.circuit, std::move(z), {.threads = args.threads, .check_satisfied = false});
  double prove_s = SecondsSince(t1);

  snarkjs::WriteFileText(args.proof_out, snarkjs::ProofToJson(proof));
  snarkjs::WriteFileText(args.public_out, snarkjs::PublicSignalsToJson(public_signals));
  if (!args.quiet) {
    std::printf(
        "groth16 prove: %llu constraints, %llu wires, %u public signals, domain 2^%d: loaded in %.3f s, "
        "proved in %.3f s -> %s, %s\n",
        (unsigned long long)r1cs.circuit.num_constraints(), (unsigned long long)r1cs.n_wires, r1cs.n_public(),
        std::countr_zero(zkey.domain_size), load_s, prove_s, args.proof_out.c_str(), args.public_out.c_str());
  }
}

struct VerifyArgs {
  std::string vkey, proof, pub;
};

constexpr int kValid = 0, kInvalid = 1, kUnusable = 2;

int Verify(const VerifyArgs& args) {
  groth16::VerifyingKey vk;
  try {
    vk = snarkjs::ParseVerifyingKeyJson(snarkjs::ReadFileText(args.vkey), args.vkey);
  } catch (const std::exception& e) {
    std::cerr << "groth16 verify: unusable verification key: " << e.what() << "\n";
    return kUnusable;
  }
  // Read both files before judging either, so that an unreadable public.json
  // is reported as unusable even when the proof is also bad.
  std::string proof_text, public_text;
  try {
    proof_text = snarkjs::ReadFileText(args.proof);
    public_text = snarkjs::ReadFileText(args.pub);
  } catch (const std::exception& e) {
    std::cerr << "groth16 verify: " << e.what() << "\n";
    return kUnusable;
  }
  groth16::Proof proof;
  std::vector<ff::Fr> signals;
  try {
    proof = snarkjs::ParseProofJson(proof_text, args.proof);
    signals = snarkjs::ParsePublicSignalsJson(public_text, args.pub);
  } catch (const snarkjs::FormatError& e) {
    bool invalid = e.kind() == snarkjs::ErrorKind::kInvalidValue;
    std::cerr << "groth16 verify: " << (invalid ? "invalid proof: " : "unusable input: ") << e.what() << "\n";
    return invalid ? kInvalid : kUnusable;
  }
  if (signals.size() + 1 != vk.ic.size()) {
    std::cerr << "groth16 verify: unusable input: " << args.pub << " has " << signals.size()
              << " public signals, the verification key expects " << vk.ic.size() - 1 << "\n";
    return kUnusable;
  }
  if (!groth16::Verify(groth16::PrepareVerifyingKey(vk), proof, signals)) {
    std::cerr << "groth16 verify: invalid proof: the pairing check fails\n";
    return kInvalid;
  }
  std::printf("OK\n");
  return kValid;
}

CommandRegistrar kGroth16Prove("groth16 prove", [](CLI::App& app) {
  auto args = std::make_shared<ProveArgs>();
  auto* cmd = Groth16Group(app)->add_subcommand(
      "prove", "Prove a circom circuit with a snarkjs zkey and witness; write snarkjs proof/public JSON");
  cmd->add_option("--r1cs", args->r1cs, "circom .r1cs (compiled with --prime bls12381)")->required();
  cmd->add_option("--zkey", args->zkey, "snarkjs Groth16 .zkey for that circuit")->required();
  cmd->add_option("--wtns", args->wtns, "witness (.wtns, e.g. from snarkjs wtns calculate)")->required();
  cmd->add_option("--proof-out", args->proof_out, "proof.json to write")->required();
  cmd->add_option("--public-out", args->public_out, "public.json to write")->required();
  cmd->add_option("--sym", args->sym, "circom .sym file: signal names in the unsatisfied-constraint message");
  cmd->add_option("--threads", args->threads, "worker threads (0 = all)");
  cmd->add_flag("--check-subgroup", args->check_subgroup, "also check the zkey's A/B/C/H points' subgroup");
  cmd->add_flag("--quiet", args->quiet, "no summary line");
  cmd->callback([args] { Prove(*args); });
});

CommandRegistrar kGroth16Verify("groth16 verify", [](CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = Groth16Group(app)->add_subcommand(
      "verify", "Verify a snarkjs Groth16 proof: exit 0 valid, 1 invalid, 2 unusable input");
  cmd->add_option("--vkey", args->vkey, "verification_key.json (snarkjs zkey export verificationkey)")->required();
  cmd->add_option("--proof", args->proof, "proof.json")->required();
  cmd->add_option("--public", args->pub, "public.json")->required();
  cmd->callback([args] { CommandExitCode() = Verify(*args); });
});

}  // namespace
}  // namespace cuzk::tools
