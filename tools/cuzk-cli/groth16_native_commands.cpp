// cuzk-cli synthetic setup / prove / verify: Groth16 with bellperson files on
// our own compiled circuits, here the synthetic benchmark circuit
// (engine/circuits/synthetic) whose domain is exactly 2^K.
//
//   cuzk-cli synthetic setup  --log-size 12 --params /tmp/s12.params --vk /tmp/s12.vk
//   cuzk-cli synthetic prove  --log-size 12 --params /tmp/s12.params --proof-out /tmp/s12.proof --seed 7
//        (also writes /tmp/s12.proof.public.json unless --public-out says otherwise)
//   cuzk-cli synthetic verify --vk /tmp/s12.vk --proof /tmp/s12.proof --public /tmp/s12.proof.public.json
//
// Files: .params/.vk in bellperson's layout (engine/groth16/params_io.hpp);
// the proof is bellperson's 192 bytes (A || B || C compressed), several
// concatenated proofs are verified as a batch; public inputs are a JSON array
// of decimal strings (snarkjs's public.json style), ONE excluded.
// verify exits 0 when every proof is valid, 1 when one is not (including
// proof points that are off the curve or outside the subgroup), 2 when the
// input cannot be used (missing or malformed files, wrong proof length, a
// public input count that does not match the key), with a message on stderr.
// --num-public (default 4) and --log-size choose the circuit and must be the
// same for setup and prove.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "tools/common/command_registry.hpp"
#include "tools/common/file_io.hpp"
#include "tools/common/timing.hpp"

namespace cuzk::tools {
namespace {

using ff::Fr;
using nlohmann::json;
namespace synthetic = circuits::synthetic;

// Canonical integer -> decimal (repeated division by 10 of the limbs).
std::string FrToDecimal(const Fr& x) {
  auto v = x.ToCanonical();
  std::string digits;
  do {
    unsigned __int128 rem = 0;
    for (size_t i = v.size(); i-- > 0;) {
      unsigned __int128 cur = (rem << 64) | v[i];
      v[i] = uint64_t(cur / 10);
      rem = cur % 10;
    }
    digits.push_back(char('0' + int(rem)));
  } while (!ff::IsZeroLimbs(v));
  return {digits.rbegin(), digits.rend()};
}

// Decimal -> Fr, rejecting anything but digits and values >= r.
Fr FrFromDecimal(const std::string& s, const std::string& where) {
  if (s.empty() || s.size() > 78) throw UnusableInput(where + ": \"" + s + "\" is not a decimal field element");
  ff::Limbs<5> v{};  // 320 bits hold any 78-digit number
  for (char ch : s) {
    if (ch < '0' || ch > '9') throw UnusableInput(where + ": \"" + s + "\" is not a decimal number");
    unsigned __int128 carry = unsigned(ch - '0');
    for (auto& limb : v) {
      unsigned __int128 cur = (unsigned __int128)limb * 10 + carry;
      limb = uint64_t(cur);
      carry = cur >> 64;
    }
  }
  ff::Limbs<4> low{v[0], v[1], v[2], v[3]};
  if (v[4] != 0 || ff::GreaterOrEqual(low, Fr::kModulus)) {
    throw UnusableInput(where + ": " + s + " is not below the scalar field modulus");
  }
  return Fr::FromCanonical(low);
}

std::vector<Fr> ReadPublicInputs(const std::string& path) {
  std::vector<uint8_t> bytes = ReadFileBytes(path);
  json j;
  try {
    j = json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    throw UnusableInput(path + ": not JSON: " + e.what());
  }
  if (!j.is_array()) throw UnusableInput(path + ": expected a JSON array of decimal strings");
  std::vector<Fr> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) throw UnusableInput(path + ": element " + std::to_string(i) + " is not a string");
    out.push_back(FrFromDecimal(j[i].get<std::string>(), path + " element " + std::to_string(i)));
  }
  return out;
}

CLI::App* SyntheticGroup(CLI::App& app) {
  return CommandGroup(app, "synthetic", "Groth16 setup/prove/verify on the synthetic circuit, bellperson files");
}

struct CircuitArgs {
  unsigned log_size = 12;
  unsigned num_public = 4;
  unsigned threads = 0;
  synthetic::SyntheticParams Params() const { return {.log_size = log_size, .num_public = num_public}; }
};

void AddCircuitOptions(CLI::App* cmd, CircuitArgs& a) {
  cmd->add_option("--log-size", a.log_size, "circuit size: constraints + inputs = 2^K")
      ->required()
      ->check(CLI::Range(4, 27));
  cmd->add_option("--num-public", a.num_public, "public inputs (ONE excluded)")->capture_default_str();
  cmd->add_option("--threads", a.threads, "threads (0 = all)")->capture_default_str();
}

r1cs::CompiledCircuit RecordTimed(const CircuitArgs& a) {
  auto t0 = std::chrono::steady_clock::now();
  r1cs::CompiledCircuit c = synthetic::Record(a.Params(), /*record_names=*/true);
  std::fprintf(stderr, "record: %llu constraints, %llu inputs, %llu aux in %.3f s\n",
               (unsigned long long)c.num_constraints(), (unsigned long long)c.num_inputs, (unsigned long long)c.num_aux,
               SecondsSince(t0));
  return c;
}

CommandRegistrar kSyntheticSetup("synthetic setup", [](CLI::App& app) {
  auto args = std::make_shared<CircuitArgs>();
  auto params = std::make_shared<std::string>(), vk = std::make_shared<std::string>();
  auto* cmd = SyntheticGroup(app)->add_subcommand("setup", "local setup (CSPRNG toxic waste): write .params and .vk");
  AddCircuitOptions(cmd, *args);
  cmd->add_option("--params", *params, "output .params file")->required();
  cmd->add_option("--vk", *vk, "output .vk file")->required();
  cmd->callback([=] {
    r1cs::CompiledCircuit c = RecordTimed(*args);
    auto t0 = std::chrono::steady_clock::now();
    groth16::ProvingKey pk = groth16::GenerateParameters(c, {.threads = args->threads});
    std::fprintf(stderr, "setup: %.3f s\n", SecondsSince(t0));
    t0 = std::chrono::steady_clock::now();
    groth16::WriteParams(pk, *params, args->threads);
    groth16::WriteVerifyingKey(pk.vk, *vk);
    std::fprintf(stderr, "write: %.3f s (%llu bytes)\n", SecondsSince(t0),
                 (unsigned long long)groth16::ParamsShape::Of(pk).FileBytes());
  });
});

CommandRegistrar kSyntheticProve("synthetic prove", [](CLI::App& app) {
  auto args = std::make_shared<CircuitArgs>();
  auto params = std::make_shared<std::string>(), proof_out = std::make_shared<std::string>();
  auto public_out = std::make_shared<std::string>();
  auto seed = std::make_shared<uint64_t>(1);
  auto* cmd = SyntheticGroup(app)->add_subcommand("prove", "prove one witness of the synthetic circuit");
  AddCircuitOptions(cmd, *args);
  cmd->add_option("--params", *params, ".params file from 'synthetic setup'")->required();
  cmd->add_option("--proof-out", *proof_out, "output: the 192-byte proof")->required();
  cmd->add_option("--public-out", *public_out, "output: public inputs JSON (default <proof-out>.public.json)");
  cmd->add_option("--seed", *seed, "witness seed")->capture_default_str();
  cmd->callback([=] {
    r1cs::CompiledCircuit c = RecordTimed(*args);
    auto t0 = std::chrono::steady_clock::now();
    groth16::ProvingKey pk = groth16::ReadParamsForCircuit(*params, c, {.threads = args->threads});
    std::fprintf(stderr, "read params: %.3f s\n", SecondsSince(t0));
    t0 = std::chrono::steady_clock::now();
    r1cs::Assignment z = synthetic::Witness(args->Params(), *seed);
    std::vector<Fr> x = z.PublicInputs();
    std::fprintf(stderr, "witness: %.3f s\n", SecondsSince(t0));
    t0 = std::chrono::steady_clock::now();
    groth16::CpuBackend cpu({.threads = args->threads});
    groth16::Proof proof = groth16::Prove(cpu, pk, c, std::move(z), {.threads = args->threads});
    std::fprintf(stderr, "prove: %.3f s\n", SecondsSince(t0));
    groth16::ProofBytes bytes = groth16::EncodeProof(proof);
    WriteFileBytes(*proof_out, bytes);
    json pub = json::array();
    for (const Fr& v : x) pub.push_back(FrToDecimal(v));
    std::string text = pub.dump(1) + "\n";
    WriteFileText(public_out->empty() ? *proof_out + ".public.json" : *public_out, text);
  });
});

CommandRegistrar kSyntheticVerify("synthetic verify", [](CLI::App& app) {
  auto vk_path = std::make_shared<std::string>(), proof_path = std::make_shared<std::string>();
  auto public_path = std::make_shared<std::string>();
  auto* cmd = SyntheticGroup(app)->add_subcommand(
      "verify", "verify proof(s) against a .vk: exit 0 valid, 1 invalid, 2 unusable input");
  cmd->add_option("--vk", *vk_path, ".vk file")->required();
  cmd->add_option("--proof", *proof_path, "192-byte proof (or several concatenated: all must be valid)")->required();
  cmd->add_option("--public", *public_path, "public inputs JSON array (decimal strings, ONE excluded)")->required();
  cmd->callback([=] {
    try {
      groth16::VerifyingKey vk;
      try {
        vk = groth16::ReadVerifyingKey(*vk_path);
      } catch (const std::exception& e) {
        throw UnusableInput(e.what());
      }
      std::vector<Fr> x = ReadPublicInputs(*public_path);
      if (x.size() + 1 != vk.ic.size()) {
        throw UnusableInput(*public_path + " has " + std::to_string(x.size()) + " public inputs, the key expects " +
                            std::to_string(vk.ic.size() - 1));
      }
      std::vector<uint8_t> bytes = ReadFileBytes(*proof_path);
      if (bytes.empty() || bytes.size() % groth16::kProofBytes) {
        throw UnusableInput(*proof_path + " is " + std::to_string(bytes.size()) + " bytes, not a multiple of 192");
      }
      std::string why;
      auto proofs = groth16::DecodeProofs(bytes, &why);
      if (!proofs) {
        std::cerr << "invalid: " << why << "\n";
        CommandExitCode() = 1;
        return;
      }
      auto pvk = groth16::PrepareVerifyingKey(vk);
      std::vector<std::vector<Fr>> xs(proofs->size(), x);
      bool ok = proofs->size() == 1 ? groth16::Verify(pvk, (*proofs)[0], x) : groth16::VerifyBatch(pvk, *proofs, xs);
      std::cout << (ok ? "valid" : "invalid") << "\n";
      CommandExitCode() = ok ? 0 : 1;
    } catch (const UnusableInput& e) {
      std::cerr << "unusable input: " << e.what() << "\n";
      CommandExitCode() = 2;
    }
  });
});

}  // namespace
}  // namespace cuzk::tools
