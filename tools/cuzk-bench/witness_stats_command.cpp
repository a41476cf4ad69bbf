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
// With --against-seed / --against-partition, a second witness (another test
// sector or partition) is computed and the aux values compared position by
// position: how many 0s and 1s sit at the same place in both. If most did,
// the witness MSMs could start from a precomputed sum of a typical
// witness's 1-bases and add only the differences.
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
  int64_t against_seed = -1;       // -1: no comparison
  int64_t against_partition = -1;  // -1: the same partition
};

// Position-by-position classes of two witnesses' aux values.
struct Agreement {
  uint64_t both_zero = 0, both_one = 0, zero_one = 0, one_zero = 0, with_other = 0;
  void Add(const ff::Fr& x, const ff::Fr& y) {
    const bool x0 = x.IsZero(), x1 = x.IsOne(), y0 = y.IsZero(), y1 = y.IsOne();
    if (x0 && y0) {
      ++both_zero;
    } else if (x1 && y1) {
      ++both_one;
    } else if (x0 && y1) {
      ++zero_one;
    } else if (x1 && y0) {
      ++one_zero;
    } else {
      ++with_other;
    }
  }
  nlohmann::json ToJson() const {
    const double n = double(both_zero + both_one + zero_one + one_zero + with_other);
    const double d = n ? n : 1.0;
    return {{"count", uint64_t(n)},          {"both_zero", both_zero / d},    {"both_one", both_one / d},
            {"zero_then_one", zero_one / d}, {"one_then_zero", one_zero / d}, {"either_other", with_other / d}};
  }
};

// The native witness of one partition of a generated test sector, and how
// long the sector and the witness took.
struct PartitionWitness {
  snapdeals::TestSector sector;
  r1cs::Assignment z;
  double sector_s = 0, witness_s = 0;
};

PartitionWitness ComputePartitionWitness(uint64_t bytes, uint64_t seed, unsigned partition) {
  PartitionWitness out;
  auto t0 = std::chrono::steady_clock::now();
  snapdeals::TestSectorOptions opt;
  opt.sector_bytes = bytes;
  opt.seed = seed;
  opt.partitions = {partition};
  out.sector = snapdeals::GenerateTestSector(opt);
  out.sector_s = tools::SecondsSince(t0);
  t0 = std::chrono::steady_clock::now();
  const snapdeals::CircuitWitness w = snapdeals::MakeCircuitWitness(out.sector.shape, partition, out.sector.commitments,
                                                                    out.sector.partition_proofs[0]);
  out.z = snapdeals::witness::ComputeEmptySectorUpdateWitness(out.sector.shape, w);
  out.witness_s = tools::SecondsSince(t0);
  return out;
}

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
  const PartitionWitness first = ComputePartitionWitness(bytes, a.seed, a.partition);
  const snapdeals::TestSector& sector = first.sector;
  const r1cs::Assignment& z = first.z;
  const double t_sector = first.sector_s, t_witness = first.witness_s;

  Split aux, sec_a, sec_b;
  for (size_t i = z.num_inputs; i < z.values.size(); ++i) aux.Add(z.values[i]);
  nlohmann::json out = {{"sector_size", bytes},         {"partition", a.partition}, {"sparse_sector", sector.sparse},
                        {"variables", z.values.size()}, {"sector_s", t_sector},     {"witness_s", t_witness},
                        {"aux", aux.ToJson()}};
  if (a.sections) {
    const auto t0 = std::chrono::steady_clock::now();
    const r1cs::CompiledCircuit c = snapdeals::CompileEmptySectorUpdate(sector.shape);
    for (size_t i = 0; i < z.values.size(); ++i) {
      if (c.a_density.Test(i)) sec_a.Add(z.values[i]);
      if (c.b_density.Test(i)) sec_b.Add(z.values[i]);
    }
    out["a"] = sec_a.ToJson();
    out["b"] = sec_b.ToJson();
    out["compile_s"] = tools::SecondsSince(t0);
  }
  if (a.against_seed >= 0 || a.against_partition >= 0) {
    const uint64_t seed2 = a.against_seed >= 0 ? uint64_t(a.against_seed) : a.seed;
    const unsigned part2 = a.against_partition >= 0 ? unsigned(a.against_partition) : a.partition;
    const r1cs::Assignment z2 = ComputePartitionWitness(bytes, seed2, part2).z;
    if (z2.values.size() != z.values.size() || z2.num_inputs != z.num_inputs) {
      std::fprintf(stderr, "witness-stats: the two witnesses differ in shape\n");
      return 1;
    }
    Agreement ag;
    for (size_t i = z.num_inputs; i < z.values.size(); ++i) ag.Add(z.values[i], z2.values[i]);
    out["against"] = {{"seed", seed2}, {"partition", part2}, {"aux", ag.ToJson()}};
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
  cmd->add_option("--against-seed", args->against_seed, "compare with this test sector's witness (same partition)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--against-partition", args->against_partition, "compare with this partition's witness")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args] { CommandExitCode() = RunWitnessStats(*args); });
});

}  // namespace
}  // namespace cuzk::bench
