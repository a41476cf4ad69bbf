// cuzk-cli snap gen-vanilla / snap verify-vanilla: deterministic SnapDeals test
// sectors and their vanilla proofs, in the files Curio's bench tool uses.
//
//   cuzk-cli snap gen-vanilla --sector-size 2KiB --seed 1 --out /tmp/s2k
//     -> /tmp/s2k/vanilla_proofs.json  JSON array (k order) of base64 bincode PartitionProofs
//        /tmp/s2k/commitments.json     {"comm_r_old", "comm_r_new", "comm_d_new"}: hex of the 32 bytes
//        /tmp/s2k/sector.json          {"sector_size", "seed", "h", "sparse"} (what verify/prove need)
//   cuzk-cli snap verify-vanilla --dir /tmp/s2k
//
// The "snap" group is shared with other files' subcommands (circuit-info,
// setup, prove, ...): whoever registers first creates it.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/native/vanilla_verifier.hpp"
#include "engine/filecoin/base64.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"
#include "tools/common/command_registry.hpp"
#include "tools/common/file_io.hpp"
#include "tools/common/timing.hpp"

namespace cuzk::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

CLI::App* SnapGroup(CLI::App& app) { return CommandGroup(app, "snap", "SnapDeals (EmptySectorUpdate) tools"); }

struct GenArgs {
  std::string sector_size;
  uint64_t seed = 0;
  std::string out;
  bool sparse = false;
  bool dense = false;
  unsigned h = 0;
  unsigned threads = 0;
  uint64_t sparse_random_nodes = 64;
  bool no_self_check = false;
};

void GenVanilla(const GenArgs& a) {
  auto start = std::chrono::steady_clock::now();
  if (a.sparse && a.dense) throw std::invalid_argument("--sparse and --dense exclude each other");
  snapdeals::TestSectorOptions o;
  o.sector_bytes = filecoin::ParseSectorSize(a.sector_size);
  o.seed = a.seed;
  o.mode = a.sparse  ? snapdeals::TestSectorOptions::Mode::kSparse
           : a.dense ? snapdeals::TestSectorOptions::Mode::kDense
                     : snapdeals::TestSectorOptions::Mode::kAuto;
  o.h = a.h;
  o.threads = a.threads;
  o.sparse_random_nodes = a.sparse_random_nodes;
  o.self_check = !a.no_self_check;
  filecoin::SectorShape::FromSectorSize(o.sector_bytes);  // size errors before any work
  fs::create_directories(a.out);

  snapdeals::TestSector s = snapdeals::GenerateTestSector(o);
  json proofs = json::array();
  size_t total = 0;
  for (const auto& p : s.partition_proofs) {
    auto bytes = filecoin::WritePartitionProof(p);
    total += bytes.size();
    proofs.push_back(filecoin::Base64Encode(bytes));
  }
  json comms = {{"comm_r_old", filecoin::DomainToHex(s.commitments.comm_r_old)},
                {"comm_r_new", filecoin::DomainToHex(s.commitments.comm_r_new)},
                {"comm_d_new", filecoin::DomainToHex(s.commitments.comm_d_new)}};
  json sector = {{"sector_size", o.sector_bytes}, {"seed", o.seed}, {"h", s.shape.h}, {"sparse", s.sparse}};
  const fs::path dir(a.out);
  WriteFileText(dir / "vanilla_proofs.json", proofs.dump() + "\n");
  WriteFileText(dir / "commitments.json", comms.dump(2) + "\n");
  WriteFileText(dir / "sector.json", sector.dump(2) + "\n");
  std::printf("snap gen-vanilla: %s sector (%s), seed %llu, h %u: %u partition proofs x %zu bytes%s, %.2f s\n",
              s.shape.Name().c_str(), s.sparse ? "sparse" : "dense", (unsigned long long)o.seed, s.shape.h,
              unsigned(s.partition_proofs.size()), total / s.partition_proofs.size(),
              o.self_check ? " (self-checked)" : "", SecondsSince(start));
  std::printf("  comm_r_old %s\n  comm_d_new %s\n  comm_r_new %s\n  -> %s\n",
              comms["comm_r_old"].get<std::string>().c_str(), comms["comm_d_new"].get<std::string>().c_str(),
              comms["comm_r_new"].get<std::string>().c_str(), a.out.c_str());
}

struct VerifyArgs {
  std::string dir;
  std::string sector_size;  // overrides sector.json
  unsigned h = 0;           // overrides sector.json
};

void VerifyVanilla(const VerifyArgs& a) {
  auto start = std::chrono::steady_clock::now();
  const fs::path dir(a.dir);
  uint64_t sector_bytes = 0;
  unsigned h = a.h;
  if (!a.sector_size.empty()) {
    sector_bytes = filecoin::ParseSectorSize(a.sector_size);
  }
  if (fs::exists(dir / "sector.json")) {
    json sector = ReadJsonFile(dir / "sector.json");
    if (!sector_bytes) sector_bytes = sector.at("sector_size").get<uint64_t>();
    if (!h && sector.contains("h")) h = sector.at("h").get<unsigned>();
  }
  if (!sector_bytes) throw std::invalid_argument("no sector.json in " + a.dir + ": pass --sector-size");
  auto shape = filecoin::SectorShape::FromSectorSize(sector_bytes);
  if (h) shape = shape.WithH(h);

  json comms = ReadJsonFile(dir / "commitments.json");
  filecoin::Commitments c;
  c.comm_r_old = filecoin::DomainFromHex(comms.at("comm_r_old").get<std::string>(), "comm_r_old");
  c.comm_d_new = filecoin::DomainFromHex(comms.at("comm_d_new").get<std::string>(), "comm_d_new");
  c.comm_r_new = filecoin::DomainFromHex(comms.at("comm_r_new").get<std::string>(), "comm_r_new");

  json proofs = ReadJsonFile(dir / "vanilla_proofs.json");
  if (!proofs.is_array() || proofs.size() != shape.partitions) {
    throw std::invalid_argument("vanilla_proofs.json: expected an array of " + std::to_string(shape.partitions) +
                                " base64 strings for a " + shape.Name() + " sector");
  }
  for (unsigned k = 0; k < shape.partitions; ++k) {
    std::vector<uint8_t> bytes;
    try {
      bytes = filecoin::Base64Decode(proofs[k].get<std::string>());
    } catch (const std::exception& e) {
      throw std::invalid_argument("vanilla_proofs.json[" + std::to_string(k) + "]: " + e.what());
    }
    auto proof = filecoin::ReadPartitionProof(bytes, shape);
    snapdeals::VerifyPartitionProof(shape, k, c, proof);
  }
  std::printf("snap verify-vanilla: %s, %u partitions OK (%.2f s)\n", shape.Name().c_str(), shape.partitions,
              SecondsSince(start));
}

// Errors are reported by the tool's main (exit code 2) with their message.
CommandRegistrar kSnapGenVanilla("snap gen-vanilla", [](CLI::App& app) {
  auto args = std::make_shared<GenArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand(
      "gen-vanilla", "Build a deterministic test sector and write its SnapDeals vanilla proofs and commitments");
  cmd->add_option("--sector-size", args->sector_size, "2KiB, 8KiB, 8MiB, 512MiB, 32GiB, 64GiB, ...")->required();
  cmd->add_option("--seed", args->seed, "content seed")->required();
  cmd->add_option("--out", args->out, "output directory")->required();
  cmd->add_flag("--sparse", args->sparse, "never materialise the sector (default above 32MiB)");
  cmd->add_flag("--dense", args->dense, "materialise the sector even above 32MiB (memory: ~5x the sector)");
  cmd->add_option("--h", args->h, "h (default: the shape's default; 7..12 for sectors above 32KiB)");
  cmd->add_option("--threads", args->threads, "worker threads (0 = all)");
  cmd->add_option("--sparse-random-nodes", args->sparse_random_nodes, "sparse mode: nodes with individual content");
  cmd->add_flag("--no-self-check", args->no_self_check, "skip verifying the proofs after generation");
  cmd->callback([args] { GenVanilla(*args); });
});

CommandRegistrar kSnapVerifyVanilla("snap verify-vanilla", [](CLI::App& app) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = SnapGroup(app)->add_subcommand(
      "verify-vanilla", "Check the vanilla proofs of a gen-vanilla directory with the native verifier");
  cmd->add_option("--dir", args->dir, "directory with vanilla_proofs.json and commitments.json")->required();
  cmd->add_option("--sector-size", args->sector_size, "sector size (default: from sector.json)");
  cmd->add_option("--h", args->h, "h (default: from sector.json, else the shape's default)");
  cmd->callback([args] { VerifyVanilla(*args); });
});

}  // namespace
}  // namespace cuzk::tools
