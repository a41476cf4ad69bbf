// Groth16 interoperability with snarkjs 0.7 on BLS12-381, both directions:
//   - circuits compiled by circom 2 (--prime bls12381), zkeys from
//     `snarkjs groth16 setup` on the shared 2^12 ptau (one with a `zkey
//     contribute`), witnesses from `snarkjs wtns calculate`
//     (tests/oracle/snarkjs_artifacts.sh, cached by content hash);
//   - our CPU prover's proofs pass `snarkjs groth16 verify`;
//   - snarkjs's proofs (`snarkjs groth16 prove`) pass our verifier;
//   - a tampered proof or public signal is rejected by both;
//   - cuzk-cli groth16 prove / verify do the same from the command line.
// Circuits: several public inputs and outputs (with a contribution), long
// linear combinations with near-modulus constants, no public signal at all,
// and 2000 constraints (domain 2^11).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

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
#include "tests/support/oracle.hpp"

namespace cuzk::snarkjs {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string circuit;
  std::string input;
  std::string flags;
};

// gtest prints parameters of failing tests: the circuit name is enough.
void PrintTo(const Case& c, std::ostream* os) { *os << c.circuit; }

std::string LargeLcInput() {
  std::string x = "[";
  for (int i = 0; i < 120; ++i) x += (i ? ",\"" : "\"") + std::to_string(31 * i * i + 5) + "\"";
  return R"({"in": "98765432123456789", "x": )" + x + "]}";
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"multi_public", R"({"a": ["7", "1", "4", "9"], "b": "21"})", "--contribute"},
      {"large_lc", LargeLcInput(), ""},
      {"private_only", R"({"a": "2", "b": "3"})", ""},
      {"mimc_500", R"({"x": "12345", "k": "678"})", ""},
  };
  return cases;
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::string ArtifactsDir(const Case& c) {
  std::string out;
  std::string cmd = Quote(test::SourcePath("tests/oracle/snarkjs_artifacts.sh")) + " " + c.circuit + " " +
                    Quote(c.input) + " " + c.flags;
  int rc = test::RunCommand(cmd, &out);
  if (rc != 0) throw std::runtime_error("snarkjs_artifacts.sh failed (" + std::to_string(rc) + "):\n" + out);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out.substr(out.rfind('\n') + 1);
}

// `snarkjs groth16 verify`: true for exit 0 with "OK!", false for exit 1;
// anything else fails the test.
bool SnarkjsVerifies(const std::string& vkey, const std::string& pub, const std::string& proof) {
  std::string out;
  int rc = test::RunCommand(Quote(test::SourcePath("tests/oracle/node_modules/.bin/snarkjs")) + " groth16 verify " +
                                Quote(vkey) + " " + Quote(pub) + " " + Quote(proof),
                            &out);
  EXPECT_TRUE(rc == 0 || rc == 1) << "snarkjs groth16 verify exited " << rc << ":\n" << out;
  if (rc == 0) {
    EXPECT_NE(out.find("OK!"), std::string::npos) << out;
  }
  return rc == 0;
}

// snarkjs's groth16.verify on several (vkey, public, proof) triples in one
// Node.js process (tests/oracle/snarkjs_verify.mjs): the CLI above costs a
// process start and a curve set-up per proof, seconds on this machine.
std::vector<bool> SnarkjsVerifyMany(const std::vector<std::array<std::string, 3>>& triples) {
  std::vector<std::string> args;
  for (const auto& t : triples) args.insert(args.end(), t.begin(), t.end());
  nlohmann::json j = test::RunOracle("snarkjs_verify.mjs", args);
  return j.get<std::vector<bool>>();
}

// cuzk-cli next to this test executable (both land in <build>/bin).
std::string CliPath() { return (fs::read_symlink("/proc/self/exe").parent_path() / "cuzk-cli").string(); }

int RunCli(const std::string& args, std::string* out) { return test::RunCommand(Quote(CliPath()) + " " + args, out); }

class SnarkjsInterop : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new fs::path(fs::temp_directory_path() / ("cuzk-snarkjs-interop-" + std::to_string(::getpid())));
    fs::create_directories(*scratch_);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*scratch_);
    delete scratch_;
  }

  void SetUp() override {
    dir_ = ArtifactsDir(GetParam());
    out_ = *scratch_ / GetParam().circuit;
    fs::create_directories(out_);
  }

  std::string In(const std::string& f) const { return dir_ + "/" + f; }
  std::string Out(const std::string& f) const { return (out_ / f).string(); }

  // Our proof of snarkjs's witness, and the public signals.
  std::pair<groth16::Proof, std::vector<ff::Fr>> OurProof() const {
    R1csFile r1cs = ReadR1cs(In("circuit.r1cs"));
    ZkeyFile zkey = ReadZkey(In("circuit.zkey"));
    CheckZkeyMatchesR1cs(zkey, r1cs);
    groth16::CheckKeyMatchesCircuit(zkey.pk, r1cs.circuit);
    r1cs::Assignment z = WitnessToAssignment(r1cs, ReadWtns(In("witness.wtns")), "witness.wtns");
    std::vector<ff::Fr> pub = z.PublicInputs();
    groth16::CpuBackend cpu;
    auto t0 = std::chrono::steady_clock::now();
    groth16::Proof proof = groth16::Prove(cpu, zkey.pk, r1cs.circuit, std::move(z));
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ info     ] %s: %llu constraints, domain %u: our CPU proof in %.3f s\n", GetParam().circuit.c_str(),
                (unsigned long long)r1cs.circuit.num_constraints(), zkey.domain_size, s);
    return {proof, pub};
  }

  static fs::path* scratch_;
  std::string dir_;
  fs::path out_;
};

fs::path* SnarkjsInterop::scratch_ = nullptr;

TEST_P(SnarkjsInterop, OurProofPassesSnarkjsVerify) {
  auto [proof, pub] = OurProof();
  WriteFileText(Out("proof.json"), ProofToJson(proof));
  WriteFileText(Out("public.json"), PublicSignalsToJson(pub));
  // Same witness, same public.json as snarkjs wrote, byte for byte.
  EXPECT_EQ(ReadFileText(Out("public.json")), ReadFileText(In("public.json")));
  EXPECT_TRUE(SnarkjsVerifies(In("verification_key.json"), Out("public.json"), Out("proof.json")));
  // And our own verifier agrees.
  groth16::VerifyingKey vk = ParseVerifyingKeyJson(ReadFileText(In("verification_key.json")), "vk");
  EXPECT_TRUE(groth16::Verify(groth16::PrepareVerifyingKey(vk), proof, pub));
}

TEST_P(SnarkjsInterop, SnarkjsProofPassesOurVerifier) {
  groth16::VerifyingKey vk = ParseVerifyingKeyJson(ReadFileText(In("verification_key.json")), "verification_key.json");
  groth16::Proof proof = ParseProofJson(ReadFileText(In("proof.json")), "proof.json");
  std::vector<ff::Fr> pub = ParsePublicSignalsJson(ReadFileText(In("public.json")), "public.json");
  EXPECT_TRUE(groth16::Verify(groth16::PrepareVerifyingKey(vk), proof, pub));
  // The key inside the zkey is the same key.
  ZkeyFile zkey = ReadZkey(In("circuit.zkey"));
  EXPECT_TRUE(groth16::Verify(groth16::PrepareVerifyingKey(zkey.pk.vk), proof, pub));
}

TEST_P(SnarkjsInterop, TamperedProofOrPublicSignalIsRejectedByBoth) {
  auto [proof, pub] = OurProof();
  groth16::VerifyingKey vk = ParseVerifyingKeyJson(ReadFileText(In("verification_key.json")), "vk");
  groth16::PreparedVerifyingKey pvk = groth16::PrepareVerifyingKey(vk);
  const std::string vkey = In("verification_key.json");
  WriteFileText(Out("proof.json"), ProofToJson(proof));
  WriteFileText(Out("public.json"), PublicSignalsToJson(pub));
  std::vector<std::array<std::string, 3>> for_snarkjs = {{vkey, Out("public.json"), Out("proof.json")}};

  // C moved by the generator: still a valid group element, no longer a proof.
  groth16::Proof bad = proof;
  bad.c = (ec::G1Jacobian::FromAffine(bad.c) + ec::G1Jacobian::Generator()).ToAffine();
  EXPECT_FALSE(groth16::Verify(pvk, bad, pub));
  WriteFileText(Out("bad_c.json"), ProofToJson(bad));
  for_snarkjs.push_back({vkey, Out("public.json"), Out("bad_c.json")});

  // A negated.
  bad = proof;
  bad.a = -bad.a;
  EXPECT_FALSE(groth16::Verify(pvk, bad, pub));
  WriteFileText(Out("bad_a.json"), ProofToJson(bad));
  for_snarkjs.push_back({vkey, Out("public.json"), Out("bad_a.json")});

  // A public signal changed (private_only has none to change).
  if (!pub.empty()) {
    std::vector<ff::Fr> bad_pub = pub;
    bad_pub.back() += ff::Fr::One();
    EXPECT_FALSE(groth16::Verify(pvk, proof, bad_pub));
    WriteFileText(Out("bad_public.json"), PublicSignalsToJson(bad_pub));
    for_snarkjs.push_back({vkey, Out("bad_public.json"), Out("proof.json")});
  }

  std::vector<bool> snarkjs_says = SnarkjsVerifyMany(for_snarkjs);
  ASSERT_EQ(snarkjs_says.size(), for_snarkjs.size());
  EXPECT_TRUE(snarkjs_says[0]) << "the untampered proof must pass, or the rejections below mean nothing";
  for (size_t i = 1; i < snarkjs_says.size(); ++i) EXPECT_FALSE(snarkjs_says[i]) << for_snarkjs[i][2];
}

TEST_P(SnarkjsInterop, CliProveAndVerify) {
  if (!fs::exists(CliPath())) GTEST_SKIP() << "build cuzk-cli to run this test (" << CliPath() << " is missing)";
  std::string out;
  int rc = RunCli("groth16 prove --r1cs " + Quote(In("circuit.r1cs")) + " --zkey " + Quote(In("circuit.zkey")) +
                      " --wtns " + Quote(In("witness.wtns")) + " --proof-out " + Quote(Out("cli_proof.json")) +
                      " --public-out " + Quote(Out("cli_public.json")),
                  &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(ReadFileText(Out("cli_public.json")), ReadFileText(In("public.json")));
  const std::string vkey = In("verification_key.json");

  auto verify = [&](const std::string& proof, const std::string& pub) {
    return RunCli("groth16 verify --vkey " + Quote(vkey) + " --proof " + Quote(proof) + " --public " + Quote(pub),
                  &out);
  };
  EXPECT_EQ(verify(Out("cli_proof.json"), Out("cli_public.json")), 0) << out;
  EXPECT_EQ(verify(In("proof.json"), In("public.json")), 0) << out;  // snarkjs's proof

  // Invalid: a valid point in the wrong place (exit 1).
  groth16::Proof p = ParseProofJson(ReadFileText(In("proof.json")), "proof.json");
  std::swap(p.a, p.c);
  WriteFileText(Out("swapped.json"), ProofToJson(p));
  EXPECT_EQ(verify(Out("swapped.json"), In("public.json")), 1) << out;
  EXPECT_NE(out.find("invalid proof"), std::string::npos) << out;
  // Invalid: a coordinate changed, so the point leaves the curve (snarkjs: invalid too).
  std::string text = ReadFileText(In("proof.json"));
  size_t digit = text.find("\"pi_a\": [\n  \"") + 13;
  text[digit] = text[digit] == '1' ? '2' : '1';
  WriteFileText(Out("off_curve.json"), text);
  EXPECT_EQ(verify(Out("off_curve.json"), In("public.json")), 1) << out;
  EXPECT_NE(out.find("not on the curve"), std::string::npos) << out;
  // snarkjs agrees on all three.
  std::vector<bool> snarkjs_says = SnarkjsVerifyMany({{vkey, Out("cli_public.json"), Out("cli_proof.json")},
                                                      {vkey, In("public.json"), Out("swapped.json")},
                                                      {vkey, In("public.json"), Out("off_curve.json")}});
  EXPECT_EQ(snarkjs_says, (std::vector<bool>{true, false, false}));
  // Unusable (exit 2): missing file, not JSON, wrong number of public signals.
  EXPECT_EQ(verify(Out("missing.json"), In("public.json")), 2) << out;
  WriteFileText(Out("garbage.json"), "{\"pi_a\": [");
  EXPECT_EQ(verify(Out("garbage.json"), In("public.json")), 2) << out;
  EXPECT_NE(out.find("not valid JSON"), std::string::npos) << out;
  std::vector<ff::Fr> pub = ParsePublicSignalsJson(ReadFileText(In("public.json")), "public.json");
  pub.push_back(ff::Fr::One());
  WriteFileText(Out("long_public.json"), PublicSignalsToJson(pub));
  EXPECT_EQ(verify(In("proof.json"), Out("long_public.json")), 2) << out;
  EXPECT_NE(out.find("the verification key expects"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(Circuits, SnarkjsInterop, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.circuit; });

// A witness that breaks a constraint is refused before proving, naming the
// constraint, by the library and by cuzk-cli (exit 2, message on stderr).
TEST(SnarkjsWitness, UnsatisfiedWitnessIsRefusedNamingTheConstraint) {
  const Case& c = Cases()[0];
  std::string dir = ArtifactsDir(c);
  R1csFile r1cs = ReadR1cs(dir + "/circuit.r1cs");
  std::vector<ff::Fr> w = ReadWtns(dir + "/witness.wtns");
  // multi_public: wire 9 is prod[1] = prod[0] * (a[1] + 3), set by constraint 1.
  w[9] += ff::Fr::One();
  try {
    WitnessToAssignment(r1cs, w, "bad.wtns");
    ADD_FAILURE() << "accepted an unsatisfied witness";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.wtns: the witness does not satisfy constraint 1 of 6"), std::string::npos)
        << e.what();
  }
  // With circom's .sym file the wires carry their signal names.
  std::vector<std::string> names = ReadSymWireNames(dir + "/circuit.sym", r1cs.n_wires);
  try {
    WitnessToAssignment(r1cs, w, "bad.wtns", 0, &names);
    ADD_FAILURE() << "accepted an unsatisfied witness";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("w9 main.prod[1] (="), std::string::npos) << e.what();
  }
  std::vector<ff::Fr> short_w(w.begin(), w.end() - 1);
  try {
    WitnessToAssignment(r1cs, short_w, "short.wtns");
    ADD_FAILURE() << "accepted a short witness";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("the witness has 11 values but the circuit has 12 wires"), std::string::npos)
        << e.what();
  }

  if (!fs::exists(CliPath())) GTEST_SKIP() << "build cuzk-cli for the command-line half";
  fs::path tmp = fs::temp_directory_path() / ("cuzk-snarkjs-badwtns-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  WriteWtns((tmp / "bad.wtns").string(), w);
  std::string out;
  int rc =
      RunCli("groth16 prove --r1cs " + Quote(dir + "/circuit.r1cs") + " --zkey " + Quote(dir + "/circuit.zkey") +
                 " --wtns " + Quote((tmp / "bad.wtns").string()) + " --proof-out " + Quote((tmp / "p.json").string()) +
                 " --public-out " + Quote((tmp / "q.json").string()) + " --sym " + Quote(dir + "/circuit.sym"),
             &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("does not satisfy constraint 1 of 6"), std::string::npos) << out;
  EXPECT_NE(out.find("main.prod[1]"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(tmp / "p.json"));
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace cuzk::snarkjs
