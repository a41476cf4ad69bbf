// cuzk-cli synthetic setup / prove / verify: our own compiled circuits through bellperson .params/.vk
// files and the command line, as a user runs them, for several circuits (sizes and public-input
// counts). verify must exit 0 for valid proofs (one, and several concatenated as a batch), 1 for a
// changed public input or a changed proof byte, 2 for unusable input (wrong proof length, wrong
// number of public inputs, a truncated .vk); prove must refuse a truncated or another circuit's
// .params file with a message, never a crash. cuzk-cli is the one next to this executable
// (<build>/bin). Cost: sizes 2^8..2^10, well under a second per command.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/oracle.hpp"

namespace cuzk {
namespace {

namespace fs = std::filesystem;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

int RunCli(const std::string& args, std::string* out) {
  const fs::path cli = fs::read_symlink("/proc/self/exe").parent_path() / "cuzk-cli";
  if (!fs::exists(cli)) throw std::runtime_error("missing " + cli.string() + " (ninja cuzk-cli)");
  return test::RunCommand(Quote(cli.string()) + " " + args, out);
}

std::vector<char> ReadBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteBytes(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// (log_size, num_public)
class SyntheticCli : public ::testing::TestWithParam<std::tuple<unsigned, unsigned>> {
 protected:
  void SetUp() override {
    auto [log_size, num_public] = GetParam();
    dir_ = fs::temp_directory_path() / ("cuzk-groth16-cli-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(log_size) + "-" + std::to_string(num_public));
    fs::create_directories(dir_);
    circuit_ = " --log-size " + std::to_string(log_size) + " --num-public " + std::to_string(num_public);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string P(const std::string& name) const { return Quote((dir_ / name).string()); }
  fs::path Path(const std::string& name) const { return dir_ / name; }

  int Verify(const std::string& proof, const std::string& pub, std::string* out) const {
    return RunCli("synthetic verify --vk " + P("key.vk") + " --proof " + P(proof) + " --public " + P(pub), out);
  }

  fs::path dir_;
  std::string circuit_;
};

TEST_P(SyntheticCli, SetupProveVerifyAndRejections) {
  const unsigned num_public = std::get<1>(GetParam());
  std::string out;
  ASSERT_EQ(RunCli("synthetic setup" + circuit_ + " --params " + P("key.params") + " --vk " + P("key.vk"), &out), 0)
      << out;
  ASSERT_TRUE(fs::exists(Path("key.params")) && fs::exists(Path("key.vk")));
  for (int seed : {7, 8}) {
    const std::string s = std::to_string(seed);
    ASSERT_EQ(RunCli("synthetic prove" + circuit_ + " --params " + P("key.params") + " --proof-out " + P(s + ".proof") +
                         " --seed " + s,
                     &out),
              0)
        << out;
    ASSERT_EQ(fs::file_size(Path(s + ".proof")), 192u);
    EXPECT_EQ(Verify(s + ".proof", s + ".proof.public.json", &out), 0) << out;
  }
  std::ifstream pub_in(Path("7.proof.public.json"));
  const nlohmann::json pub = nlohmann::json::parse(pub_in);
  ASSERT_EQ(pub.size(), num_public);

  // Two proofs concatenated with the same public inputs: the batch holds only if both hold.
  std::vector<char> p7 = ReadBytes(Path("7.proof")), p8 = ReadBytes(Path("8.proof"));
  std::vector<char> both = p7;
  both.insert(both.end(), p8.begin(), p8.end());
  WriteBytes(Path("77.proof"), [&] {
    std::vector<char> v = p7;
    v.insert(v.end(), p7.begin(), p7.end());
    return v;
  }());
  EXPECT_EQ(Verify("77.proof", "7.proof.public.json", &out), 0) << out;
  // Another proof's public inputs (they depend on the witness seed; the circuit's last one may not).
  const bool same_inputs = ReadBytes(Path("7.proof.public.json")) == ReadBytes(Path("8.proof.public.json"));
  EXPECT_FALSE(same_inputs && num_public > 1);
  if (!same_inputs) {
    WriteBytes(Path("78.proof"), both);
    EXPECT_EQ(Verify("78.proof", "7.proof.public.json", &out), 1) << out;  // proof 8 is not for seed 7's inputs
    EXPECT_EQ(Verify("7.proof", "8.proof.public.json", &out), 1) << out;
  }

  // Each public input changed by one in its last decimal digit.
  for (size_t i = 0; i < pub.size(); ++i) {
    nlohmann::json changed = pub;
    std::string d = changed[i].get<std::string>();
    d.back() = d.back() == '0' ? '1' : char(d.back() - 1);
    changed[i] = d;
    std::ofstream(Path("changed.json")) << changed.dump() << "\n";
    EXPECT_EQ(Verify("7.proof", "changed.json", &out), 1) << "input " << i << ": " << out;
  }

  // One byte of each proof point changed (A at 10, B at 48 + 40, C at 144 + 10): invalid, never a crash.
  for (size_t at : {size_t(10), size_t(88), size_t(154)}) {
    std::vector<char> bad = p7;
    bad[at] = char(bad[at] ^ 0x01);
    WriteBytes(Path("bad.proof"), bad);
    EXPECT_EQ(Verify("bad.proof", "7.proof.public.json", &out), 1) << "byte " << at << ": " << out;
  }

  // Unusable input: exit 2 with a message.
  WriteBytes(Path("short.proof"), std::vector<char>(p7.begin(), p7.begin() + 100));
  EXPECT_EQ(Verify("short.proof", "7.proof.public.json", &out), 2) << out;
  EXPECT_NE(out.find("multiple of 192"), std::string::npos) << out;
  nlohmann::json fewer = pub;
  fewer.erase(fewer.size() - 1);
  std::ofstream(Path("fewer.json")) << fewer.dump() << "\n";
  EXPECT_EQ(Verify("7.proof", "fewer.json", &out), 2) << out;
  std::vector<char> vk = ReadBytes(Path("key.vk"));
  WriteBytes(Path("key.vk"), std::vector<char>(vk.begin(), vk.begin() + vk.size() / 2));
  EXPECT_EQ(Verify("7.proof", "7.proof.public.json", &out), 2) << out;
  WriteBytes(Path("key.vk"), vk);

  // prove refuses a truncated .params file and the .params of another circuit, with a message.
  std::vector<char> params = ReadBytes(Path("key.params"));
  WriteBytes(Path("cut.params"), std::vector<char>(params.begin(), params.begin() + params.size() - 7));
  int rc = RunCli("synthetic prove" + circuit_ + " --params " + P("cut.params") + " --proof-out " + P("x.proof"), &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("truncated"), std::string::npos) << out;
  const std::string other =
      " --log-size " + std::to_string(std::get<0>(GetParam())) + " --num-public " + std::to_string(num_public + 1);
  rc = RunCli("synthetic prove" + other + " --params " + P("key.params") + " --proof-out " + P("x.proof"), &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_FALSE(fs::exists(Path("x.proof")));
}

INSTANTIATE_TEST_SUITE_P(Circuits, SyntheticCli,
                         ::testing::Values(std::tuple{8u, 1u}, std::tuple{10u, 4u}, std::tuple{9u, 12u}));

}  // namespace
}  // namespace cuzk
