// SnapDeals end to end on the CPU: a generated sector's vanilla proof, the
// compiled EmptySectorUpdate circuit, a local Groth16 setup for it
// (bellperson-form key), the native witness, the proof, and our verifier with
// the section-4 public inputs: accepted as is, rejected with any public input
// changed. Check mode (the gadget code on a CheckingCS) confirms that the
// partition's witness satisfies every constraint, and the native witness that
// is proven satisfies every row of the compiled circuit. The proof also
// survives the 192-byte encoding and the key the .vk/.params file round trip.
// The slow build (tests/snap_slow) adds the 2 KiB sector, in-process and once
// more through the user's commands: cuzk-cli snap gen-vanilla, check, prove
// and verify (exit codes; each commitment of commitments.json changed).
//
// Cost: the circuit is 2^21 rows for 1 and 2 KiB alike, so the setup (2^21 - 1
// h points plus one l/a/b point per variable) dominates; times are printed.
// The 2 KiB tests read the parameters of the daemon tests' fixture
// (tests/daemon/make_fixture.sh: `cuzk-cli snap setup`, ~150 s on one core,
// run when a build tree has none yet, so on every clean build, CI's
// included; later runs in the same tree reuse them, as the daemon tests do)
// instead of two more setups of their own; the in-process setup is the 1 KiB
// test's. Without the daemon in the build they run their own setups.
#include <gtest/gtest.h>

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/proof_encoding.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "engine/r1cs/evaluate.hpp"
#ifdef CUZK_SNAP_SLOW_TESTS
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/oracle.hpp"
#endif

namespace cuzk::snapdeals {
namespace {

using ff::Fr;

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// params_dir: read the key from the .params file there; empty: run the setup.
void RunEndToEnd(uint64_t sector_bytes, uint64_t seed, const std::string& params_dir = "") {
  auto t0 = std::chrono::steady_clock::now();
  TestSectorOptions opt;
  opt.sector_bytes = sector_bytes;
  opt.seed = seed;
  TestSector sector = GenerateTestSector(opt);
  const auto& shape = sector.shape;
  std::printf("%s: gen-vanilla %.2f s\n", shape.Name().c_str(), SecondsSince(t0));

  t0 = std::chrono::steady_clock::now();
  r1cs::CompiledCircuit circuit = CompileEmptySectorUpdate(shape);
  std::printf("  compile %.2f s (%llu rows, %llu aux)\n", SecondsSince(t0),
              (unsigned long long)circuit.num_constraints(), (unsigned long long)circuit.num_aux);
  ASSERT_EQ(circuit.num_inputs, 5u);

  t0 = std::chrono::steady_clock::now();
  groth16::ProvingKey pk =
      params_dir.empty()
          ? groth16::GenerateParameters(circuit)
          : groth16::ReadParamsForCircuit(params_dir + "/" + EmptySectorUpdateParamsStem(shape) + ".params", circuit);
  std::printf("  %s %.2f s (domain %llu)\n", params_dir.empty() ? "setup" : "fixture's .params read", SecondsSince(t0),
              (unsigned long long)pk.domain_size());
  EXPECT_EQ(pk.vk.ic.size(), 5u);
  EXPECT_EQ(groth16::SerializeVerifyingKey(pk.vk).size(), 1348u);  // spec section 9

  groth16::CpuBackend cpu;
  const groth16::PreparedVerifyingKey pvk = groth16::PrepareVerifyingKey(pk.vk);
  for (size_t i = 0; i < sector.partition_proofs.size(); ++i) {
    const unsigned k = sector.partition_indices[i];
    CircuitWitness w = MakeCircuitWitness(shape, k, sector.commitments, sector.partition_proofs[i]);
    // Check mode: the circuit's gadgets evaluate every constraint on this partition's witness.
    t0 = std::chrono::steady_clock::now();
    CircuitCounts checked;
    auto failure = CheckEmptySectorUpdate(shape, w, &checked);
    ASSERT_FALSE(failure.has_value()) << "partition " << k << ": check mode failed at " << failure->name;
    EXPECT_EQ(checked.constraints, circuit.num_constraints());
    EXPECT_EQ(checked.inputs, circuit.num_inputs);
    EXPECT_EQ(checked.aux, circuit.num_aux);
    std::printf("  k=%u check mode %.2f s (%llu constraints)\n", k, SecondsSince(t0),
                (unsigned long long)checked.constraints);
    t0 = std::chrono::steady_clock::now();
    r1cs::Assignment z = witness::ComputeEmptySectorUpdateWitness(shape, w);
    std::printf("  k=%u witness %.2f s\n", k, SecondsSince(t0));
    // The very assignment that is proven satisfies every row of the compiled circuit.
    r1cs::ConstraintFailure row;
    ASSERT_TRUE(r1cs::IsSatisfied(circuit, z.values, &row)) << "row " << row.index << " " << row.name;

    t0 = std::chrono::steady_clock::now();
    groth16::Proof proof = groth16::Prove(cpu, pk, circuit, std::move(z));
    std::printf("  k=%u prove %.2f s\n", k, SecondsSince(t0));

    // The 192-byte encoding round trip.
    groth16::ProofBytes bytes = groth16::EncodeProof(proof);
    auto decoded = groth16::DecodeProof(bytes);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(*decoded, proof);

    const auto inputs = PartitionPublicInputs(shape, k, sector.commitments).AsArray();
    t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(groth16::Verify(pvk, *decoded, inputs)) << "partition " << k;
    std::printf("  k=%u verify %.3f s\n", k, SecondsSince(t0));
    // Any public input changed: k_and_h_select, comm_r_old, comm_d_new, comm_r_new.
    for (size_t j = 0; j < inputs.size(); ++j) {
      auto changed = inputs;
      changed[j] += Fr::One();
      EXPECT_FALSE(groth16::Verify(pvk, *decoded, changed)) << "public input " << j + 1 << " changed";
    }
    // Another sector's commitments (all three at once) are rejected too.
    filecoin::Commitments other = sector.commitments;
    std::swap(other.comm_r_old, other.comm_r_new);
    EXPECT_FALSE(groth16::Verify(pvk, *decoded, PartitionPublicInputs(shape, k, other).AsArray()));
  }

  // The key through the bellperson files: the verifier from the .vk file accepts the same proofs.
  const auto dir = std::filesystem::temp_directory_path() / ("snap_e2e_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  t0 = std::chrono::steady_clock::now();
  groth16::WriteVerifyingKey(pk.vk, (dir / "key.vk").string());
  groth16::WriteParams(pk, (dir / "key.params").string());
  groth16::ProvingKey read = groth16::ReadParamsForCircuit((dir / "key.params").string(), circuit);
  std::printf("  params write+read %.2f s (%llu bytes)\n", SecondsSince(t0),
              (unsigned long long)std::filesystem::file_size(dir / "key.params"));
  EXPECT_EQ(read.vk, pk.vk);
  EXPECT_EQ(groth16::ReadVerifyingKey((dir / "key.vk").string(), 5), pk.vk);
  EXPECT_EQ(groth16::ParamsShape::Of(read), groth16::ParamsShape::ForCircuit(circuit));
  std::filesystem::remove_all(dir);
}

TEST(SnapE2E, OneKiBSectorProvesAndVerifies) { RunEndToEnd(1024, 21); }

// tests/snap_slow (ctest -L slow): the production 2 KiB shape.
#ifdef CUZK_SNAP_SLOW_TESTS
// The fixture's parameter folder: CUZK_DAEMON_FIXTURE_DIR/params when the
// environment names a fixture (as for the daemon tests, which also run from
// a bundle without the build tree), else the build's; empty without one.
std::string ParamsFixture() {
  std::string dir;
  if (const char* env = std::getenv("CUZK_DAEMON_FIXTURE_DIR"); env && *env) {
    dir = std::string(env) + "/params";
  } else {
#ifdef CUZK_SNAP_PARAMS_FIXTURE
    dir = CUZK_SNAP_PARAMS_FIXTURE;
#endif
  }
  if (!dir.empty() && !std::filesystem::is_directory(dir)) {
    throw std::runtime_error("no parameter fixture at " + dir +
                             " (ctest makes it: ctest -R daemon_fixture, or set CUZK_DAEMON_FIXTURE_DIR)");
  }
  return dir;
}

TEST(SnapSlowE2E, TwoKiBSectorProvesAndVerifies) { RunEndToEnd(2048, 22, ParamsFixture()); }

// The same 2 KiB flow as a user runs it, through cuzk-cli (next to this executable in <build>/bin):
// gen-vanilla, check (no proving), setup (bellperson .params/.vk; the fixture's when there is one: the
// same command, run once for every test of the run), prove, verify; then verify and check
// again with each commitment of commitments.json changed in turn: verify must say invalid (exit 1),
// check must refuse the witness (non-zero exit).
std::string Quote(const std::string& s) { return "'" + s + "'"; }

int RunCli(const std::string& args, std::string* out) {
  const auto cli = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "cuzk-cli";
  if (!std::filesystem::exists(cli)) throw std::runtime_error("missing " + cli.string() + " (ninja cuzk-cli)");
  auto t0 = std::chrono::steady_clock::now();
  const int rc = test::RunCommand(Quote(cli.string()) + " " + args, out);
  std::printf("  cuzk-cli %s: exit %d, %.2f s\n", args.substr(0, args.find(' ', 5)).c_str(), rc, SecondsSince(t0));
  std::fflush(stdout);
  return rc;
}

TEST(SnapSlowE2E, TwoKiBSectorThroughCuzkCli) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("snap_cli_e2e_" + std::to_string(::getpid()));
  const fs::path sector = root / "s2k", proof = root / "s2k.proof";
  const std::string fixture = ParamsFixture();
  const fs::path params = fixture.empty() ? root / "params" : fs::path(fixture);
  fs::create_directories(root);
  std::string out;
  ASSERT_EQ(RunCli("snap gen-vanilla --sector-size 2KiB --seed 23 --out " + Quote(sector.string()), &out), 0) << out;
  for (const char* f : {"vanilla_proofs.json", "commitments.json", "sector.json"}) {
    ASSERT_TRUE(fs::exists(sector / f)) << f;
  }
  ASSERT_EQ(RunCli("snap check --dir " + Quote(sector.string()), &out), 0) << out;
  if (fixture.empty()) {
    ASSERT_EQ(RunCli("snap setup --sector-size 2KiB --param-cache " + Quote(params.string()), &out), 0) << out;
  }
  ASSERT_EQ(RunCli("snap prove --dir " + Quote(sector.string()) + " --param-cache " + Quote(params.string()) +
                       " --out " + Quote(proof.string()),
                   &out),
            0)
      << out;
  EXPECT_EQ(fs::file_size(proof), 192u);
  const std::string verify_args = " --param-cache " + Quote(params.string()) + " --proof " + Quote(proof.string());
  EXPECT_EQ(RunCli("snap verify --dir " + Quote(sector.string()) + verify_args, &out), 0) << out;

  // Each commitment changed (one byte of its hex, staying canonical) in a copy of the directory.
  std::ifstream in(sector / "commitments.json");
  const nlohmann::json comms = nlohmann::json::parse(in);
  for (const char* name : {"comm_r_old", "comm_d_new", "comm_r_new"}) {
    SCOPED_TRACE(name);
    const fs::path changed = root / (std::string("changed_") + name);
    fs::create_directories(changed);
    for (const char* f : {"vanilla_proofs.json", "sector.json"}) fs::copy_file(sector / f, changed / f);
    nlohmann::json c = comms;
    std::string hex = c[name].get<std::string>();
    hex[1] = hex[1] == '0' ? '1' : '0';  // the lowest byte (storage order is little-endian)
    c[name] = hex;
    std::ofstream(changed / "commitments.json") << c.dump(2) << "\n";
    EXPECT_EQ(RunCli("snap verify --dir " + Quote(changed.string()) + verify_args, &out), 1) << out;
    EXPECT_NE(out.find("invalid"), std::string::npos) << out;
    EXPECT_NE(RunCli("snap check --dir " + Quote(changed.string()), &out), 0) << out;
  }
  fs::remove_all(root);
}
#endif

}  // namespace
}  // namespace cuzk::snapdeals
