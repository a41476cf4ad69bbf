// cuzk-bench witness-stats: how a real SnapDeals witness splits into 0, 1 and
// other scalars per Groth16 MSM section. This is what decides how the GPU
// MSMs should treat the witness: a 0 costs nothing, a 1 costs one point
// addition (no window digits), only the rest needs full Pippenger.
//
//   cuzk-bench witness-stats --sector-size 2KiB --sections --json
//   cuzk-bench witness-stats --sector-size 32GiB --json      (sparse test sector; aux only)
//
// The witness is the native witness of one partition of a generated test
// sector (engine/circuits/snapdeals/native/test_sector.hpp; sparse above
// 32 MiB, like `cuzk-cli snap gen-vanilla`). Sections:
//   aux (= L):  every aux value;
//   a, b:       with --sections, the values whose variable is A- (B-) dense in
//               the compiled circuit (CompileEmptySectorUpdate: memory and time
//               grow with the circuit; fine for 2 KiB .. 8 KiB test sizes);
//   h:          dense and uniformly random (not counted).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "tools/common/timing.hpp"
#include "tools/cuzk-bench/command_registry.hpp"

namespace cuzk::bench {
namespace {

struct WitnessStatsArgs {
  std::string sector_size = "2KiB";
  uint64_t seed = 1;
  unsigned partition = 0;
  bool sections = false;
  bool json = false;
};

struct Split {
  uint64_t zeros = 0, ones = 0, other = 0;
  uint64_t total() const { return zeros + ones + other; }
  void Add(const ff::Fr& v) {
    if (v.IsZero()) {
      ++zeros;
    } else if (v.IsOne()) {
      ++ones;
    } else {
      ++other;
    }
  }
  nlohmann::json ToJson() const {
    const double n = total() ? double(total()) : 1.0;
    return {{"count", total()},
            {"zeros", zeros},
            {"ones", ones},
            {"other", other},
            {"zero_fraction", zeros / n},
            {"one_fraction", ones / n},
            {"other_fraction", other / n}};
  }
};

int RunWitnessStats(const WitnessStatsArgs& a) {
  const uint64_t bytes = filecoin::ParseSectorSize(a.sector_size);
  auto t0 = std::chrono::steady_clock::now();
  snapdeals::TestSectorOptions opt;
  opt.sector_bytes = bytes;
  opt.seed = a.seed;
  opt.partitions = {a.partition};
  const snapdeals::TestSector sector = snapdeals::GenerateTestSector(opt);
  const double t_sector = tools::SecondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  const snapdeals::CircuitWitness w =
      snapdeals::MakeCircuitWitness(sector.shape, a.partition, sector.commitments, sector.partition_proofs[0]);
  const r1cs::Assignment z = snapdeals::witness::ComputeEmptySectorUpdateWitness(sector.shape, w);
  const double t_witness = tools::SecondsSince(t0);

  Split aux, sec_a, sec_b;
  for (size_t i = z.num_inputs; i < z.values.size(); ++i) aux.Add(z.values[i]);
  nlohmann::json out = {{"sector_size", bytes},         {"partition", a.partition}, {"sparse_sector", sector.sparse},
                        {"variables", z.values.size()}, {"sector_s", t_sector},     {"witness_s", t_witness},
                        {"aux", aux.ToJson()}};
  if (a.sections) {
    t0 = std::chrono::steady_clock::now();
    const r1cs::CompiledCircuit c = snapdeals::CompileEmptySectorUpdate(sector.shape);
    for (size_t i = 0; i < z.values.size(); ++i) {
      if (c.a_density.Test(i)) sec_a.Add(z.values[i]);
      if (c.b_density.Test(i)) sec_b.Add(z.values[i]);
    }
    out["a"] = sec_a.ToJson();
    out["b"] = sec_b.ToJson();
    out["compile_s"] = tools::SecondsSince(t0);
  }
  if (a.json) {
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("%s\n", out.dump(2).c_str());
  }
  return 0;
}

CommandRegistrar kWitnessStats("witness-stats", [](CLI::App& app) {
  auto args = std::make_shared<WitnessStatsArgs>();
  auto* cmd =
      app.add_subcommand("witness-stats", "Fractions of 0, 1 and other values per MSM section of a SnapDeals witness");
  cmd->add_option("--sector-size", args->sector_size, "2KiB, 8KiB, 8MiB, 512MiB, 32GiB, ...")->capture_default_str();
  cmd->add_option("--seed", args->seed, "test sector seed")->capture_default_str();
  cmd->add_option("--partition", args->partition, "partition index")->capture_default_str();
  cmd->add_flag("--sections", args->sections, "also the A and B sections (compiles the circuit)");
  cmd->add_flag("--json", args->json, "one JSON line");
  cmd->callback([args] { CommandExitCode() = RunWitnessStats(*args); });
});

}  // namespace
}  // namespace cuzk::bench
