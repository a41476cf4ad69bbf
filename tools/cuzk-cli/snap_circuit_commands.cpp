// cuzk-cli snap circuit-info / setup / prove / verify / check: the SnapDeals
// EmptySectorUpdate circuit on gen-vanilla directories, with bellperson-format
// parameter files under Filecoin's names.
//
//   cuzk-cli snap circuit-info --sector-size 32GiB --json
//     {"constraints":81049499,"inputs":5,"aux":80978488,"domain_log2":27}
//   cuzk-cli snap setup  --sector-size 2KiB --param-cache /tmp/params
//     -> /tmp/params/v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e09...0194.{params,vk}
//   cuzk-cli snap gen-vanilla --sector-size 2KiB --seed 1 --out /tmp/s2k
//   cuzk-cli snap prove  --dir /tmp/s2k --param-cache /tmp/params --out /tmp/s2k.proof
//   cuzk-cli snap verify --dir /tmp/s2k --param-cache /tmp/params --proof /tmp/s2k.proof
//   cuzk-cli snap check  --dir /tmp/s2k          (no proving: first failing constraint, by name)
//   cuzk-cli snap witness --dir /tmp/s2k --compare  (time the native witness; --compare: also the
//                                                    gadget path, and require equal assignments)
//
// The proof file is the partitions' 192-byte proofs concatenated in k order
// (Filecoin's layout), or one proof with --partition. verify exits 0 when every
// proof is valid for the section-4 public inputs of its partition, 1 when one
// is not, 2 when the input cannot be used (missing files, wrong length, a key
// for another circuit). setup uses OS randomness (a local setup, never
// Filecoin's ceremony parameters) and refuses to overwrite existing files.
// Costs: circuit-info counts without recording (32 GiB: seconds, constant
// memory); setup/prove record the circuit (2 KiB: ~2 GB of CSR and key in
// memory; 32 GiB would need far more than a small machine has).
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#if CUZK_HAVE_CUDA
#include "cuda/msm/fixed_base.hpp"
#endif
#include "engine/filecoin/base64.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"
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

namespace fs = std::filesystem;
using nlohmann::json;
using snapdeals::CircuitWitness;

CLI::App* SnapGroup(CLI::App& app) { return CommandGroup(app, "snap", "SnapDeals (EmptySectorUpdate) tools"); }

// A gen-vanilla directory: sector.json, commitments.json, vanilla_proofs.json.
struct VanillaDir {
  filecoin::SectorShape shape;
  filecoin::Commitments commitments;
  std::vector<filecoin::PartitionProof> proofs;  // k order
};

VanillaDir ReadVanillaDir(const fs::path& dir, bool with_proofs) {
  VanillaDir v;
  try {
    json sector = ReadJsonFile(dir / "sector.json");
    v.shape = filecoin::SectorShape::FromSectorSize(sector.at("sector_size").get<uint64_t>());
    if (sector.contains("h")) v.shape = v.shape.WithH(sector.at("h").get<unsigned>());
    json comms = ReadJsonFile(dir / "commitments.json");
    v.commitments.comm_r_old = filecoin::DomainFromHex(comms.at("comm_r_old").get<std::string>(), "comm_r_old");
    v.commitments.comm_d_new = filecoin::DomainFromHex(comms.at("comm_d_new").get<std::string>(), "comm_d_new");
    v.commitments.comm_r_new = filecoin::DomainFromHex(comms.at("comm_r_new").get<std::string>(), "comm_r_new");
    if (!with_proofs) return v;
    json proofs = ReadJsonFile(dir / "vanilla_proofs.json");
    if (!proofs.is_array() || proofs.size() != v.shape.partitions) {
      throw UnusableInput("vanilla_proofs.json: expected an array of " + std::to_string(v.shape.partitions) +
                          " base64 strings for a " + v.shape.Name() + " sector");
    }
    for (unsigned k = 0; k < v.shape.partitions; ++k) {
      std::vector<uint8_t> bytes = filecoin::Base64Decode(proofs[k].get<std::string>());
      v.proofs.push_back(filecoin::ReadPartitionProof(bytes, v.shape));
    }
  } catch (const UnusableInput&) {
    throw;
  } catch (const std::exception& e) {
    throw UnusableInput(dir.string() + ": " + e.what());
  }
  return v;
}

// The partitions a command works on: all, or --partition.
std::vector<unsigned> Partitions(const filecoin::SectorShape& shape, std::optional<unsigned> only) {
  if (only) {
    if (*only >= shape.partitions) {
      throw UnusableInput("--partition " + std::to_string(*only) + ": a " + shape.Name() + " sector has " +
                          std::to_string(shape.partitions) + " partitions");
    }
    return {*only};
  }
  std::vector<unsigned> all(shape.partitions);
  for (unsigned k = 0; k < shape.partitions; ++k) all[k] = k;
  return all;
}

struct ParamPaths {
  fs::path params, vk;
};
ParamPaths ParamFiles(const fs::path& cache, const filecoin::SectorShape& shape) {
  const std::string stem = snapdeals::EmptySectorUpdateParamsStem(shape);
  return {cache / (stem + ".params"), cache / (stem + ".vk")};
}

r1cs::CompiledCircuit CompileTimed(const filecoin::SectorShape& shape) {
  auto t0 = std::chrono::steady_clock::now();
  r1cs::CompiledCircuit c = snapdeals::CompileEmptySectorUpdate(shape);
  std::fprintf(stderr, "compile %s circuit: %llu constraints, %llu aux (%.2f s)\n", shape.Name().c_str(),
               (unsigned long long)c.num_constraints(), (unsigned long long)c.num_aux, SecondsSince(t0));
  return c;
}

// ---- circuit-info ------------------------------------------------------------------

struct InfoArgs {
  std::string sector_size;
  bool json = false;
  bool densities = false;
};

void CircuitInfo(const InfoArgs& a) {
  auto shape = filecoin::SectorShape::FromSectorSize(filecoin::ParseSectorSize(a.sector_size));
  auto t0 = std::chrono::steady_clock::now();
  snapdeals::CircuitDensity d;
  if (a.densities) {
    d = snapdeals::CountEmptySectorUpdateDensity(shape);
  } else {
    d.counts = snapdeals::CountEmptySectorUpdate(shape);
  }
  const double seconds = SecondsSince(t0);
  const auto& c = d.counts;
  if (a.json) {
    json j = {{"constraints", c.constraints}, {"inputs", c.inputs}, {"aux", c.aux}, {"domain_log2", c.DomainLog2()}};
    if (a.densities) {
      j["a_dense_aux"] = d.a_dense_aux;
      j["b_dense_aux"] = d.b_dense_aux;
    }
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("%s EmptySectorUpdate circuit: %llu constraints, %llu inputs (ONE included), %llu aux, domain 2^%u\n",
              shape.Name().c_str(), (unsigned long long)c.constraints, (unsigned long long)c.inputs,
              (unsigned long long)c.aux, c.DomainLog2());
  if (a.densities) {
    std::printf("  A-dense aux %llu, B-dense aux %llu (params a = %llu, b_g1 = b_g2 = %llu points)\n",
                (unsigned long long)d.a_dense_aux, (unsigned long long)d.b_dense_aux,
                (unsigned long long)(c.inputs + d.a_dense_aux), (unsigned long long)(d.b_dense_inputs + d.b_dense_aux));
  }
  std::printf("  params file: %s.params (counted in %.2f s)\n", snapdeals::EmptySectorUpdateParamsStem(shape).c_str(),
              seconds);
}

// ---- setup -------------------------------------------------------------------------

struct SetupArgs {
  std::string sector_size;
  std::string param_cache;
  unsigned threads = 0;
  bool force = false;
  bool gpu = false;
};

void Setup(const SetupArgs& a) {
  auto shape = filecoin::SectorShape::FromSectorSize(filecoin::ParseSectorSize(a.sector_size));
  const ParamPaths files = ParamFiles(a.param_cache, shape);
  if (!a.force && (fs::exists(files.params) || fs::exists(files.vk))) {
    throw std::runtime_error(files.params.string() +
                             " or its .vk exists (a parameter cache may hold Filecoin's "
                             "ceremony files): pass --force to replace it with a local setup");
  }
  fs::create_directories(a.param_cache);
  r1cs::CompiledCircuit circuit = CompileTimed(shape);
  auto t0 = std::chrono::steady_clock::now();
  groth16::SetupOptions options{.threads = a.threads};
#if CUZK_HAVE_CUDA
  cuda::GpuFixedBaseBatcher gpu;
  if (a.gpu) options.fixed_base = &gpu;
#else
  if (a.gpu) throw std::runtime_error("--gpu: this cuzk-cli was built without CUDA");
#endif
  groth16::ProvingKey pk = groth16::GenerateParameters(circuit, options);
  std::fprintf(stderr, "setup: domain 2^%u, %.2f s\n", unsigned(std::bit_width(pk.domain_size()) - 1),
               SecondsSince(t0));
  t0 = std::chrono::steady_clock::now();
  groth16::WriteParams(pk, files.params.string(), a.threads);
  groth16::WriteVerifyingKey(pk.vk, files.vk.string());
  std::fprintf(stderr, "write: %.2f s\n", SecondsSince(t0));
  std::printf("%s\n%s\n", files.params.string().c_str(), files.vk.string().c_str());
}

// ---- prove -------------------------------------------------------------------------

struct ProveArgs {
  std::string dir;
  std::string param_cache;
  std::string out;
  std::optional<unsigned> partition;
  unsigned threads = 0;
};

void Prove(const ProveArgs& a) {
  VanillaDir v = ReadVanillaDir(a.dir, true);
  const std::vector<unsigned> ks = Partitions(v.shape, a.partition);
  const ParamPaths files = ParamFiles(a.param_cache, v.shape);
  r1cs::CompiledCircuit circuit = CompileTimed(v.shape);
  auto t0 = std::chrono::steady_clock::now();
  groth16::ParamsReadOptions read_options;
  read_options.threads = a.threads;
  groth16::ProvingKey pk = groth16::ReadParamsForCircuit(files.params.string(), circuit, read_options);
  std::fprintf(stderr, "read %s: %.2f s\n", files.params.filename().string().c_str(), SecondsSince(t0));
  groth16::CpuBackend cpu({.threads = a.threads});
  std::vector<uint8_t> out;
  for (unsigned k : ks) {
    t0 = std::chrono::steady_clock::now();
    CircuitWitness w = snapdeals::MakeCircuitWitness(v.shape, k, v.commitments, v.proofs[k]);
    r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(v.shape, w, {.threads = a.threads});
    const double t_witness = SecondsSince(t0);
    t0 = std::chrono::steady_clock::now();
    groth16::Proof proof = groth16::Prove(cpu, pk, circuit, std::move(z), {.threads = a.threads});
    std::fprintf(stderr, "partition %u: witness %.2f s, prove %.2f s\n", k, t_witness, SecondsSince(t0));
    groth16::ProofBytes bytes = groth16::EncodeProof(proof);
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  WriteFileBytes(a.out, out);
  std::printf("%s: %zu proof(s), %zu bytes\n", a.out.c_str(), ks.size(), out.size());
}

// ---- verify ------------------------------------------------------------------------

struct VerifyArgs {
  std::string dir;
  std::string param_cache;
  std::string proof;
  std::optional<unsigned> partition;
};

void Verify(const VerifyArgs& a) {
  try {
    VanillaDir v = ReadVanillaDir(a.dir, false);
    const std::vector<unsigned> ks = Partitions(v.shape, a.partition);
    const ParamPaths files = ParamFiles(a.param_cache, v.shape);
    groth16::VerifyingKey vk;
    try {
      vk = groth16::ReadVerifyingKey(files.vk.string(), 1 + snapdeals::kEmptySectorUpdatePublicInputs);
    } catch (const std::exception& e) {
      throw UnusableInput(e.what());
    }
    std::vector<uint8_t> bytes = ReadFileBytes(a.proof);
    if (bytes.size() != ks.size() * groth16::kProofBytes) {
      throw UnusableInput(a.proof + " is " + std::to_string(bytes.size()) + " bytes, expected " +
                          std::to_string(ks.size()) + " x 192 for " +
                          (a.partition ? "one partition" : "a " + v.shape.Name() + " sector"));
    }
    std::string why;
    auto proofs = groth16::DecodeProofs(bytes, &why);
    if (!proofs) {
      std::cout << "invalid: " << why << "\n";
      CommandExitCode() = 1;
      return;
    }
    const groth16::PreparedVerifyingKey pvk = groth16::PrepareVerifyingKey(vk);
    bool all = true;
    for (size_t i = 0; i < ks.size(); ++i) {
      const auto inputs = snapdeals::PartitionPublicInputs(v.shape, ks[i], v.commitments).AsArray();
      const bool ok = groth16::Verify(pvk, (*proofs)[i], inputs);
      std::cout << "partition " << ks[i] << ": " << (ok ? "valid" : "invalid") << "\n";
      all = all && ok;
    }
    std::cout << (all ? "valid" : "invalid") << "\n";
    CommandExitCode() = all ? 0 : 1;
  } catch (const UnusableInput& e) {
    std::cerr << "unusable input: " << e.what() << "\n";
    CommandExitCode() = 2;
  }
}

// ---- check -------------------------------------------------------------------------

struct CheckArgs {
  std::string dir;
  std::optional<unsigned> partition;
};

void Check(const CheckArgs& a) {
  VanillaDir v = ReadVanillaDir(a.dir, true);
  bool all = true;
  for (unsigned k : Partitions(v.shape, a.partition)) {
    auto t0 = std::chrono::steady_clock::now();
    CircuitWitness w = snapdeals::MakeCircuitWitness(v.shape, k, v.commitments, v.proofs[k]);
    snapdeals::CircuitCounts counts;
    auto failure = snapdeals::CheckEmptySectorUpdate(v.shape, w, &counts, /*stop_at_first_failure=*/true);
    if (failure) {
      std::printf("partition %u: constraint #%llu \"%s\" fails (%.2f s)\n", k, (unsigned long long)failure->index,
                  failure->name.c_str(), SecondsSince(t0));
      all = false;
    } else {
      std::printf("partition %u: all %llu constraints hold (%.2f s)\n", k, (unsigned long long)counts.constraints,
                  SecondsSince(t0));
    }
  }
  CommandExitCode() = all ? 0 : 1;
}

// ---- witness -----------------------------------------------------------------------

struct WitnessArgs {
  std::string dir;
  std::optional<unsigned> partition;
  unsigned threads = 0;
  bool compare = false;
};

void Witness(const WitnessArgs& a) {
  VanillaDir v = ReadVanillaDir(a.dir, true);
  bool all_equal = true;
  for (unsigned k : Partitions(v.shape, a.partition)) {
    CircuitWitness w = snapdeals::MakeCircuitWitness(v.shape, k, v.commitments, v.proofs[k]);
    auto t0 = std::chrono::steady_clock::now();
    double c0 = ProcessCpuMs() * 1e-3;
    r1cs::Assignment native = snapdeals::witness::ComputeEmptySectorUpdateWitness(v.shape, w, {.threads = a.threads});
    std::printf("partition %u: native witness %.3f s wall, %.3f s CPU (%zu values, %u threads)", k, SecondsSince(t0),
                ProcessCpuMs() * 1e-3 - c0, native.values.size(), a.threads);
    if (a.compare) {
      t0 = std::chrono::steady_clock::now();
      c0 = ProcessCpuMs() * 1e-3;
      r1cs::Assignment gadget = snapdeals::SynthesizeEmptySectorUpdateWitness(v.shape, w);
      std::printf(", gadget witness %.3f s wall, %.3f s CPU", SecondsSince(t0), ProcessCpuMs() * 1e-3 - c0);
      size_t diff = 0;
      while (diff < native.values.size() && diff < gadget.values.size() && native.values[diff] == gadget.values[diff])
        ++diff;
      const bool equal = diff == native.values.size() && diff == gadget.values.size();
      std::printf(": %s", equal ? "equal" : ("first difference at variable " + std::to_string(diff)).c_str());
      all_equal = all_equal && equal;
    }
    std::printf("\n");
  }
  CommandExitCode() = all_equal ? 0 : 1;
}

// ---- registration ------------------------------------------------------------------

CommandRegistrar kSnapCircuitInfo("snap circuit-info", [](CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand("circuit-info", "EmptySectorUpdate circuit size (counted, not recorded)");
  cmd->add_option("--sector-size", args->sector_size, "2KiB, 8MiB, 512MiB, 32GiB, 64GiB, or a test size")->required();
  cmd->add_flag("--json", args->json, "print {\"constraints\", \"inputs\", \"aux\", \"domain_log2\"}");
  cmd->add_flag("--densities", args->densities, "also count A/B-dense aux (the .params a/b sections; slower)");
  cmd->callback([args] { CircuitInfo(*args); });
});

CommandRegistrar kSnapSetup("snap setup", [](CLI::App& app) {
  auto args = std::make_shared<SetupArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand(
      "setup", "Local Groth16 setup (OS randomness) for the circuit: bellperson .params/.vk under Filecoin's names");
  cmd->add_option("--sector-size", args->sector_size, "sector size")->required();
  cmd->add_option("--param-cache", args->param_cache, "directory for the .params and .vk files")->required();
  cmd->add_option("--threads", args->threads, "threads (0 = all)");
  cmd->add_flag("--force", args->force, "replace existing files");
  cmd->add_flag("--gpu", args->gpu, "the parameter points' fixed-base products on the GPU (CUDA builds)");
  cmd->callback([args] { Setup(*args); });
});

CommandRegistrar kSnapProve("snap prove", [](CLI::App& app) {
  auto args = std::make_shared<ProveArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand("prove", "Prove the partitions of a gen-vanilla directory (CPU)");
  cmd->add_option("--dir", args->dir, "gen-vanilla directory")->required();
  cmd->add_option("--param-cache", args->param_cache, "directory with the .params file")->required();
  cmd->add_option("--out", args->out, "output: 192-byte proofs, concatenated in partition order")->required();
  cmd->add_option("--partition", args->partition, "prove only this partition");
  cmd->add_option("--threads", args->threads, "threads (0 = all)");
  cmd->callback([args] { Prove(*args); });
});

CommandRegistrar kSnapVerify("snap verify", [](CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand(
      "verify", "Verify a proof file against a gen-vanilla directory: exit 0 valid, 1 invalid, 2 unusable input");
  cmd->add_option("--dir", args->dir, "gen-vanilla directory (sector.json, commitments.json)")->required();
  cmd->add_option("--param-cache", args->param_cache, "directory with the .vk file")->required();
  cmd->add_option("--proof", args->proof, "proof file from 'snap prove'")->required();
  cmd->add_option("--partition", args->partition, "the file holds this partition's proof only");
  cmd->callback([args] { Verify(*args); });
});

CommandRegistrar kSnapCheck("snap check", [](CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand(
      "check", "Evaluate every constraint on the vanilla proofs' witness; name the first failing one (exit 1)");
  cmd->add_option("--dir", args->dir, "gen-vanilla directory")->required();
  cmd->add_option("--partition", args->partition, "check only this partition");
  cmd->callback([args] { Check(*args); });
});

CommandRegistrar kSnapWitness("snap witness", [](CLI::App& app) {
  auto args = std::make_shared<WitnessArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand(
      "witness", "Time the native witness path; --compare: also the gadget path, exit 1 unless equal");
  cmd->add_option("--dir", args->dir, "gen-vanilla directory")->required();
  cmd->add_option("--partition", args->partition, "only this partition");
  cmd->add_option("--threads", args->threads, "native path threads (0 = all)");
  cmd->add_flag("--compare", args->compare, "also synthesize through the gadgets and compare");
  cmd->callback([args] { Witness(*args); });
});

}  // namespace
}  // namespace cuzk::tools
