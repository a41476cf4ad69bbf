// The snarkjs file formats against snarkjs itself: circom 2 compiles test
// circuits with --prime bls12381, snarkjs makes the witness, the zkey (with a
// contribution) and a proof (tests/oracle/snarkjs_artifacts.sh, cached), and
// exports its own JSON view of the r1cs, witness and zkey. Our readers must
// see exactly what snarkjs sees; our JSON writers must reproduce snarkjs's
// files byte for byte. Then every reader gets corrupt input: truncated at
// every length, bad magic, wrong prime, inconsistent counts, values out of
// range, points off the curve; each must give a FormatError that says what is
// wrong, never a crash or another exception type.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/circuits/snarkjs/bin_file.hpp"
#include "engine/circuits/snarkjs/field_codec.hpp"
#include "engine/circuits/snarkjs/json_io.hpp"
#include "engine/circuits/snarkjs/r1cs_file.hpp"
#include "engine/circuits/snarkjs/sym_file.hpp"
#include "engine/circuits/snarkjs/wtns_file.hpp"
#include "engine/circuits/snarkjs/zkey_file.hpp"
#include "engine/ec/encoding.hpp"
#include "engine/r1cs/evaluate.hpp"
#include "tests/support/oracle.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::snarkjs {
namespace {

using nlohmann::json;

// ---- artifacts -------------------------------------------------------------------

struct Artifacts {
  std::string dir;
  std::string Path(const std::string& f) const { return dir + "/" + f; }
  std::vector<uint8_t> Bytes(const std::string& f) const {
    util::MappedFile m = MapInputFile(Path(f));
    return {m.bytes().begin(), m.bytes().end()};
  }
  std::string Text(const std::string& f) const { return ReadFileText(Path(f)); }
  json Json(const std::string& f) const { return json::parse(Text(f)); }
};

Artifacts MakeArtifacts(const std::string& circuit, const std::string& input, const std::string& flags) {
  std::string out;
  std::string cmd =
      "'" + test::SourcePath("tests/oracle/snarkjs_artifacts.sh") + "' " + circuit + " '" + input + "' " + flags;
  int rc = test::RunCommand(cmd, &out);
  if (rc != 0) throw std::runtime_error("snarkjs_artifacts.sh failed (" + std::to_string(rc) + "):\n" + out);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return {out.substr(out.rfind('\n') + 1)};
}

// Five public signals (2 outputs, 4 inputs... see the circuit), a contribution.
const Artifacts& MultiPublic() {
  static const Artifacts a =
      MakeArtifacts("multi_public", R"({"a": ["2", "3", "5", "11"], "b": "13"})", "--contribute --export-json");
  return a;
}

// Long linear combinations with near-modulus and negative constants.
const Artifacts& LargeLc() {
  static const Artifacts a = [] {
    std::string x = "[";
    for (int i = 0; i < 120; ++i) x += (i ? ",\"" : "\"") + std::to_string(1000 + 7 * i) + "\"";
    x += "]";
    return MakeArtifacts("large_lc", R"({"in": "12345678901234567", "x": )" + x + "}", "--export-json");
  }();
  return a;
}

std::string Dec(const ff::Fr& f) { return ToDecimal(f); }

json G1Json(const ec::G1Affine& p) {
  if (p.IsInfinity()) return json::array({"0", "1", "0"});
  return json::array({ToDecimal(p.x), ToDecimal(p.y), "1"});
}

json G2Json(const ec::G2Affine& p) {
  if (p.IsInfinity()) return json::array({{"0", "0"}, {"1", "0"}, {"0", "0"}});
  return json::array({{ToDecimal(p.x.c0), ToDecimal(p.x.c1)}, {ToDecimal(p.y.c0), ToDecimal(p.y.c1)}, {"1", "0"}});
}

// Section (type) -> (offset of its data, size) in a binfile.
std::pair<size_t, size_t> SectionAt(const std::vector<uint8_t>& b, uint32_t type) {
  auto u32 = [&](size_t o) {
    return uint32_t(b[o]) | uint32_t(b[o + 1]) << 8 | uint32_t(b[o + 2]) << 16 | uint32_t(b[o + 3]) << 24;
  };
  size_t pos = 12;
  for (uint32_t i = 0, n = u32(8); i < n; ++i) {
    uint32_t t = u32(pos);
    size_t size = size_t(u32(pos + 4)) | size_t(u32(pos + 8)) << 32;
    if (t == type) return {pos + 12, size};
    pos += 12 + size;
  }
  throw std::runtime_error("no section " + std::to_string(type));
}

void PutU32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(at + i) = uint8_t(v >> (8 * i));
}

// Runs f, which must throw a FormatError whose message contains `needle`.
template <class F>
void ExpectFormatError(F&& f, const std::string& needle, ErrorKind kind = ErrorKind::kMalformed) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning \"" << needle << "\"";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
    EXPECT_EQ(e.kind(), kind) << "message: " << e.what();
  }
}

// ---- the readers see what snarkjs sees --------------------------------------------

TEST(SnarkjsR1cs, MatchesSnarkjsExport) {
  for (const Artifacts* a : {&MultiPublic(), &LargeLc()}) {
    R1csFile r = ReadR1cs(a->Path("circuit.r1cs"));
    json j = a->Json("r1cs.json");
    EXPECT_EQ(r.n_wires, j["nVars"].get<uint32_t>());
    EXPECT_EQ(r.n_pub_outputs, j["nOutputs"].get<uint32_t>());
    EXPECT_EQ(r.n_pub_inputs, j["nPubInputs"].get<uint32_t>());
    EXPECT_EQ(r.n_prv_inputs, j["nPrvInputs"].get<uint32_t>());
    EXPECT_EQ(r.n_labels, j["nLabels"].get<uint64_t>());
    const auto& cs = r.circuit;
    EXPECT_EQ(cs.num_inputs, 1u + r.n_pub_outputs + r.n_pub_inputs);
    EXPECT_EQ(cs.num_variables(), r.n_wires);
    ASSERT_EQ(cs.num_constraints(), j["constraints"].size());
    for (size_t row = 0; row < cs.num_constraints(); ++row) {
      const r1cs::CsrMatrix* m[3] = {&cs.a, &cs.b, &cs.c};
      for (int k = 0; k < 3; ++k) {
        json expected = j["constraints"][row][k];
        json got = json::object();
        for (uint64_t e = m[k]->row_offsets[row]; e < m[k]->row_offsets[row + 1]; ++e) {
          got[std::to_string(m[k]->columns[e])] = Dec(m[k]->values[e]);
        }
        ASSERT_EQ(got, expected) << "constraint " << row << " matrix " << k;
      }
    }
    EXPECT_EQ(json(r.wire_to_label), j["map"]);
    EXPECT_NO_THROW(r1cs::ValidateCircuit(cs));
    for (uint64_t v = 0; v < cs.num_inputs; ++v) EXPECT_TRUE(cs.a_density.Test(v));
  }
}

TEST(SnarkjsSym, WireNamesFromCircomSymFile) {
  const Artifacts& a = MultiPublic();
  R1csFile r = ReadR1cs(a.Path("circuit.r1cs"));
  std::vector<std::string> names = ReadSymWireNames(a.Path("circuit.sym"), r.n_wires);
  ASSERT_EQ(names.size(), r.n_wires);
  EXPECT_EQ(names[0], "one");
  EXPECT_EQ(names[1], "main.out");
  EXPECT_EQ(names[2], "main.sq");
  EXPECT_EQ(names[3], "main.a[0]");
  EXPECT_EQ(names[7], "main.b");
  EXPECT_EQ(names[9], "main.prod[1]");

  EXPECT_EQ(ParseSymWireNames("1,-1,0,main.gone\n2,1,0,main.x\r\n", 2, "s")[1], "main.x");
  ExpectFormatError([] { ParseSymWireNames("1,1,0\n", 4, "c.sym"); }, "c.sym:1: too few fields");
  ExpectFormatError([] { ParseSymWireNames("\n1,x,0,main.a\n", 4, "c.sym"); }, "c.sym:2: \"x\" is not a number");
  ExpectFormatError([] { ParseSymWireNames("1,4,0,main.a\n", 4, "c.sym"); },
                    "c.sym:1: wire 4 is outside the circuit's 4 wires");
  ExpectFormatError([] { ParseSymWireNames("1,2,0,\n", 4, "c.sym"); }, "c.sym:1: empty signal name");
}

TEST(SnarkjsR1cs, SerializeReproducesCircomBytes) {
  for (const Artifacts* a : {&MultiPublic(), &LargeLc()}) {
    auto bytes = a->Bytes("circuit.r1cs");
    EXPECT_EQ(SerializeR1cs(ParseR1cs(bytes, "circuit.r1cs")), bytes);
  }
}

// Found by tests/fuzz/fuzz_r1cs (corpus/fuzz_r1cs/regress-oom-nwires-without-map):
// a small file whose header claimed 2^32 - 1 wires and had no wire-to-label
// map allocated 2.3 GB of densities before anything refused it.
TEST(SnarkjsR1cs, WiresMustBeBackedByTheLabelMap) {
  R1csFile r = ParseR1cs(MultiPublic().Bytes("circuit.r1cs"), "circuit.r1cs");
  r.wire_to_label.clear();  // SerializeR1cs then writes no section 3
  ExpectFormatError([&] { ParseR1cs(SerializeR1cs(r), "c.r1cs"); }, "c.r1cs: no wire-to-label map (section 3)");
  r.n_wires = UINT32_MAX;
  ExpectFormatError([&] { ParseR1cs(SerializeR1cs(r), "c.r1cs"); }, "nWires (4294967295) is not backed by the file");
}

TEST(SnarkjsWtns, MatchesSnarkjsExportAndRoundTrips) {
  for (const Artifacts* a : {&MultiPublic(), &LargeLc()}) {
    auto bytes = a->Bytes("witness.wtns");
    std::vector<ff::Fr> w = ParseWtns(bytes, "witness.wtns");
    json j = a->Json("wtns.json");
    ASSERT_EQ(w.size(), j.size());
    for (size_t i = 0; i < w.size(); ++i) EXPECT_EQ(Dec(w[i]), j[i].get<std::string>()) << "value " << i;
    EXPECT_EQ(SerializeWtns(w), bytes);
    // snarkjs's witness satisfies circom's constraints, as our evaluator sees them.
    R1csFile r = ReadR1cs(a->Path("circuit.r1cs"));
    EXPECT_FALSE(r1cs::FirstUnsatisfied(r.circuit, w).has_value());
  }
}

TEST(SnarkjsWtns, ChangedWitnessFailsAtTheConstraintThatUsesIt) {
  const Artifacts& a = MultiPublic();
  R1csFile r = ReadR1cs(a.Path("circuit.r1cs"));
  std::vector<ff::Fr> w = ReadWtns(a.Path("witness.wtns"));
  // The first row whose A, B or C reads wire 7 (the private input b) fails first.
  uint64_t first_use = UINT64_MAX;
  for (const r1cs::CsrMatrix* m : {&r.circuit.a, &r.circuit.b, &r.circuit.c}) {
    for (size_t row = 0; row < m->rows(); ++row) {
      for (uint64_t e = m->row_offsets[row]; e < m->row_offsets[row + 1]; ++e) {
        if (m->columns[e] == 7) first_use = std::min<uint64_t>(first_use, row);
      }
    }
  }
  w[7] += ff::Fr::One();
  auto failure = r1cs::FirstUnsatisfied(r.circuit, w);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->index, first_use);
}

TEST(SnarkjsZkey, MatchesSnarkjsExport) {
  for (const Artifacts* a : {&MultiPublic(), &LargeLc()}) {
    ZkeyFile z = ReadZkey(a->Path("circuit.zkey"), {.check_subgroup = true});
    json j = a->Json("zkey.json");
    EXPECT_EQ(z.n_vars, j["nVars"].get<uint32_t>());
    EXPECT_EQ(z.n_public, j["nPublic"].get<uint32_t>());
    EXPECT_EQ(z.domain_size, j["domainSize"].get<uint32_t>());
    const auto& pk = z.pk;
    EXPECT_EQ(pk.h_form, groth16::HQueryForm::kSnarkjsOddCoset);
    EXPECT_EQ(G1Json(pk.vk.alpha_g1), j["vk_alpha_1"]);
    EXPECT_EQ(G1Json(pk.vk.beta_g1), j["vk_beta_1"]);
    EXPECT_EQ(G2Json(pk.vk.beta_g2), j["vk_beta_2"]);
    EXPECT_EQ(G2Json(pk.vk.gamma_g2), j["vk_gamma_2"]);
    EXPECT_EQ(G1Json(pk.vk.delta_g1), j["vk_delta_1"]);
    EXPECT_EQ(G2Json(pk.vk.delta_g2), j["vk_delta_2"]);
    ASSERT_EQ(pk.vk.ic.size(), j["IC"].size());
    for (size_t i = 0; i < pk.vk.ic.size(); ++i) EXPECT_EQ(G1Json(pk.vk.ic[i]), j["IC"][i]);
    // Coefficients: snarkjs's readZKey divides by R^2 as we do.
    ASSERT_EQ(z.coefficients.size(), j["ccoefs"].size());
    for (size_t i = 0; i < z.coefficients.size(); ++i) {
      const auto& c = z.coefficients[i];
      const json& e = j["ccoefs"][i];
      ASSERT_EQ(
          json({{"matrix", c.matrix}, {"constraint", c.constraint}, {"signal", c.signal}, {"value", Dec(c.value)}}), e);
    }
    // A, B1, B2: dense per variable in snarkjs, compacted by density here.
    ASSERT_EQ(pk.a_density.size(), z.n_vars);
    ASSERT_EQ(pk.b_density.size(), z.n_vars);
    EXPECT_EQ(pk.a.size(), pk.a_density.Count());
    EXPECT_EQ(pk.b_g1.size(), pk.b_density.Count());
    EXPECT_EQ(pk.b_g2.size(), pk.b_density.Count());
    for (uint32_t v = 0; v < z.n_vars; ++v) {
      ec::G1Affine av = pk.a_density.Test(v) ? pk.a[pk.a_density.Rank(v)] : ec::G1Affine::Infinity();
      EXPECT_EQ(G1Json(av), j["A"][v]) << "A " << v;
      bool b = pk.b_density.Test(v);
      EXPECT_EQ(G1Json(b ? pk.b_g1[pk.b_density.Rank(v)] : ec::G1Affine::Infinity()), j["B1"][v]) << "B1 " << v;
      EXPECT_EQ(G2Json(b ? pk.b_g2[pk.b_density.Rank(v)] : ec::G2Affine::Infinity()), j["B2"][v]) << "B2 " << v;
    }
    ASSERT_EQ(pk.l.size(), z.n_vars - z.n_public - 1);
    for (size_t i = 0; i < pk.l.size(); ++i) EXPECT_EQ(G1Json(pk.l[i]), j["C"][z.n_public + 1 + i]) << "C " << i;
    ASSERT_EQ(pk.h.size(), j["hExps"].size());
    for (size_t i = 0; i < pk.h.size(); ++i) EXPECT_EQ(G1Json(pk.h[i]), j["hExps"][i]) << "H " << i;
    EXPECT_EQ(pk.num_inputs(), z.n_public + 1);
    EXPECT_EQ(pk.num_variables(), z.n_vars);
    EXPECT_EQ(pk.domain_size(), z.domain_size);

    EXPECT_NO_THROW(CheckZkeyMatchesR1cs(z, ReadR1cs(a->Path("circuit.r1cs"))));
  }
}

TEST(SnarkjsZkey, RejectsTheZkeyOfAnotherCircuit) {
  ZkeyFile z = ReadZkey(MultiPublic().Path("circuit.zkey"));
  R1csFile other = ReadR1cs(LargeLc().Path("circuit.r1cs"));
  ExpectFormatError([&] { CheckZkeyMatchesR1cs(z, other); }, "zkey does not match the r1cs: nVars");

  // Same shape, one coefficient changed: caught by the coefficient comparison.
  R1csFile r = ReadR1cs(MultiPublic().Path("circuit.r1cs"));
  r.circuit.b.values[0] += ff::Fr::One();
  ExpectFormatError([&] { CheckZkeyMatchesR1cs(z, r); }, "coefficients of constraint 0 differ");
}

// ---- JSON exactly as snarkjs writes it ------------------------------------------------

TEST(SnarkjsJson, VerificationKeyIsByteIdenticalToSnarkjsExport) {
  for (const Artifacts* a : {&MultiPublic(), &LargeLc()}) {
    ZkeyFile z = ReadZkey(a->Path("circuit.zkey"));
    std::string expected = a->Text("verification_key.json");
    EXPECT_EQ(VerifyingKeyToJson(z.pk.vk), expected);
    // And back: the parsed key writes the same bytes again.
    groth16::VerifyingKey vk = ParseVerifyingKeyJson(expected, "verification_key.json");
    EXPECT_EQ(vk.alpha_g1, z.pk.vk.alpha_g1);
    EXPECT_EQ(vk.ic, z.pk.vk.ic);
    EXPECT_EQ(VerifyingKeyToJson(vk), expected);
  }
}

TEST(SnarkjsJson, ProofAndPublicSignalsRoundTripByteForByte) {
  for (const Artifacts* a : {&MultiPublic(), &LargeLc()}) {
    std::string proof_text = a->Text("proof.json");
    groth16::Proof proof = ParseProofJson(proof_text, "proof.json");
    EXPECT_EQ(ProofToJson(proof), proof_text);
    std::string public_text = a->Text("public.json");
    std::vector<ff::Fr> signals = ParsePublicSignalsJson(public_text, "public.json");
    EXPECT_EQ(PublicSignalsToJson(signals), public_text);
    // The public signals are the witness values 1..nPublic.
    std::vector<ff::Fr> w = ReadWtns(a->Path("witness.wtns"));
    ZkeyFile z = ReadZkey(a->Path("circuit.zkey"));
    ASSERT_EQ(signals.size(), z.n_public);
    EXPECT_TRUE(std::equal(signals.begin(), signals.end(), w.begin() + 1));
  }
}

TEST(SnarkjsJson, DecimalConversion) {
  EXPECT_EQ(LimbsToDecimal<4>({0, 0, 0, 0}), "0");
  EXPECT_EQ(LimbsToDecimal<4>({10000000000000000000ull, 0, 0, 0}), "10000000000000000000");
  EXPECT_EQ(LimbsToDecimal<4>({0, 1, 0, 0}), "18446744073709551616");
  EXPECT_EQ(LimbsToDecimal<4>(ff::Fr::kModulus),
            "52435875175126190479447740508185965837690552500527637822603658699938581184513");
  auto rng = test::SeededRng();
  for (int i = 0; i < 200; ++i) {
    ff::Limbs<6> v = ff::Fp::Random(rng).ToCanonical();
    v[i % 6] = i % 3 == 0 ? 0 : v[i % 6];  // some zero limbs inside
    auto back = LimbsFromDecimal<6>(LimbsToDecimal<6>(v));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, v);
  }
  EXPECT_FALSE(LimbsFromDecimal<4>("").has_value());
  EXPECT_FALSE(LimbsFromDecimal<4>("-1").has_value());
  EXPECT_FALSE(LimbsFromDecimal<4>("0x10").has_value());
  EXPECT_FALSE(LimbsFromDecimal<4>(" 1").has_value());
  EXPECT_FALSE(LimbsFromDecimal<1>("18446744073709551616").has_value());  // 2^64
  EXPECT_EQ(LimbsFromDecimal<1>("18446744073709551615").value()[0], ~uint64_t(0));
}

// ---- corrupt input -------------------------------------------------------------

// Every prefix of a valid file must fail with a FormatError (and nothing else).
template <class Parse>
void EveryTruncationFails(const std::vector<uint8_t>& bytes, Parse parse) {
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    try {
      parse(cut);
      ADD_FAILURE() << "a file cut to " << n << " of " << bytes.size() << " bytes was accepted";
      return;
    } catch (const FormatError&) {
    }
  }
}

// Random byte changes: a FormatError or a successful parse, never anything else.
template <class Parse>
void ByteFlipsNeverCrash(const std::vector<uint8_t>& bytes, Parse parse, int trials) {
  auto rng = test::SeededRng();
  for (int t = 0; t < trials; ++t) {
    std::vector<uint8_t> b = bytes;
    int flips = 1 + int(rng() % 3);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= uint8_t(1 + rng() % 255);
    try {
      parse(b);
    } catch (const FormatError&) {
    }
  }
}

TEST(SnarkjsCorrupt, R1csTruncatedAtEveryLength) {
  auto bytes = MultiPublic().Bytes("circuit.r1cs");
  EveryTruncationFails(bytes, [](const std::vector<uint8_t>& b) { ParseR1cs(b, "cut.r1cs"); });
  ByteFlipsNeverCrash(
      bytes, [](const std::vector<uint8_t>& b) { ParseR1cs(b, "flip.r1cs"); }, 2000);
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  ExpectFormatError([&] { ParseR1cs(cut, "cut.r1cs"); }, "cut.r1cs: section #2 (type 3) claims 96 bytes");
}

TEST(SnarkjsCorrupt, R1csHeaderErrors) {
  const auto good = MultiPublic().Bytes("circuit.r1cs");
  auto parse = [](const std::vector<uint8_t>& b) { ParseR1cs(b, "bad.r1cs"); };
  {
    auto b = good;
    b[0] = 'x';
    ExpectFormatError([&] { parse(b); }, "not a r1cs file (magic \"x1cs\"");
  }
  {
    auto b = good;
    PutU32(b, 4, 2);
    ExpectFormatError([&] { parse(b); }, "r1cs version 2 is not supported");
  }
  auto [h, h_size] = SectionAt(good, 1);
  {
    // bn128's scalar field, little-endian, in place of BLS12-381's.
    auto b = good;
    auto bn = LimbsFromDecimal<4>("21888242871839275222246405745257275088548364400416034343698204186575808495617");
    LimbsToLE<4>(*bn, std::span<uint8_t>(b.data() + h + 4, 32));
    ExpectFormatError([&] { parse(b); }, "bn128's scalar field");
    ExpectFormatError([&] { parse(b); }, "compile it with circom --prime bls12381");
  }
  {
    auto b = good;
    PutU32(b, h, 8);  // n8 = 8 (goldilocks-sized): the section no longer parses as declared
    ExpectFormatError([&] { parse(b); }, "not the BLS12-381 scalar field");
  }
  {
    auto b = good;
    PutU32(b, h + 4 + 32 + 4, 1000);  // nPubOut
    ExpectFormatError([&] { parse(b); }, "exceeds nWires");
  }
  {
    auto b = good;
    PutU32(b, h + 4 + 32 + 4 * 4 + 8, 1000000);  // nConstraints
    ExpectFormatError([&] { parse(b); }, "declares 1000000 constraints");
  }
  {
    auto b = good;
    PutU32(b, h + 4 + 32 + 4 * 4 + 8, 5);  // one constraint fewer than the section holds
    ExpectFormatError([&] { parse(b); }, "unexpected trailing bytes");
  }
}

TEST(SnarkjsCorrupt, R1csConstraintErrors) {
  const auto good = MultiPublic().Bytes("circuit.r1cs");
  auto parse = [](const std::vector<uint8_t>& b) { ParseR1cs(b, "bad.r1cs"); };
  auto [c, c_size] = SectionAt(good, 2);
  ASSERT_GT(c_size, 4u + 4 + 32);
  {
    auto b = good;
    PutU32(b, c + 4, 99);  // first A term's wire
    ExpectFormatError([&] { parse(b); }, "constraint 0 A term 0 uses wire 99 but the header declares 12 wires");
  }
  {
    auto b = good;
    std::fill(b.begin() + c + 8, b.begin() + c + 40, 0xff);  // first coefficient >= r
    ExpectFormatError([&] { parse(b); },
                      "constraint 0 A term 0 has a coefficient >= the BLS12-381 scalar field modulus");
  }
  {
    auto b = good;
    PutU32(b, c, 0x10000000);  // term count
    ExpectFormatError([&] { parse(b); }, "constraint 0 A claims 268435456 terms");
  }
  {
    auto b = good;
    auto [m, m_size] = SectionAt(good, 3);
    PutU32(b, m + 8, 500);  // wire 1's label
    ExpectFormatError([&] { parse(b); }, "wire 1 maps to label 500 but nLabels is 12");
  }
  {
    // A custom-gates section (circom --plonk) is refused by name.
    std::vector<uint8_t> b = BeginBinFile("r1cs", 1, 4);
    auto [h, h_size] = SectionAt(good, 1);
    AppendSection(b, 1, std::span<const uint8_t>(good.data() + h, h_size));
    AppendSection(b, 2, std::span<const uint8_t>(good.data() + c, c_size));
    std::vector<uint8_t> zero4(4, 0);
    AppendSection(b, 4, zero4);
    AppendSection(b, 5, zero4);
    ExpectFormatError([&] { parse(b); }, "custom gates");
  }
  {
    std::vector<uint8_t> b = BeginBinFile("r1cs", 1, 3);
    auto [h, h_size] = SectionAt(good, 1);
    AppendSection(b, 1, std::span<const uint8_t>(good.data() + h, h_size));
    AppendSection(b, 2, std::span<const uint8_t>(good.data() + c, c_size));
    AppendSection(b, 2, std::span<const uint8_t>(good.data() + c, c_size));
    ExpectFormatError([&] { parse(b); }, "section 2 (constraints) is duplicated");
  }
  {
    std::vector<uint8_t> b = BeginBinFile("r1cs", 1, 1);
    auto [h, h_size] = SectionAt(good, 1);
    AppendSection(b, 1, std::span<const uint8_t>(good.data() + h, h_size));
    ExpectFormatError([&] { parse(b); }, "missing section 2 (constraints)");
  }
  ExpectFormatError([&] { ReadR1cs("/nonexistent/dir/x.r1cs"); }, "/nonexistent/dir/x.r1cs: cannot open");
}

TEST(SnarkjsCorrupt, WtnsErrors) {
  const auto good = MultiPublic().Bytes("witness.wtns");
  auto parse = [](const std::vector<uint8_t>& b) { ParseWtns(b, "bad.wtns"); };
  EveryTruncationFails(good, parse);
  ByteFlipsNeverCrash(good, parse, 2000);
  auto [h, h_size] = SectionAt(good, 1);
  auto [v, v_size] = SectionAt(good, 2);
  {
    auto b = good;
    std::copy_n("zkey", 4, b.begin());
    ExpectFormatError([&] { parse(b); }, "not a wtns file (magic \"zkey\"");
  }
  {
    auto b = good;
    PutU32(b, h + 4 + 32, 13);  // nWitness one more than the values
    ExpectFormatError([&] { parse(b); }, "expected nWitness (13) x 32 = 416");
  }
  {
    auto b = good;
    b[h + 4] ^= 1;  // prime
    ExpectFormatError([&] { parse(b); }, "not over the BLS12-381 scalar field");
  }
  {
    auto b = good;
    std::fill(b.begin() + v + 3 * 32, b.begin() + v + 4 * 32, 0xff);
    ExpectFormatError([&] { parse(b); }, "value 3 is >= the BLS12-381 scalar field modulus", ErrorKind::kInvalidValue);
  }
}

TEST(SnarkjsCorrupt, ZkeyErrors) {
  const auto good = MultiPublic().Bytes("circuit.zkey");
  auto parse = [](const std::vector<uint8_t>& b) { ParseZkey(b, "bad.zkey", {.threads = 1}); };
  EveryTruncationFails(good, parse);
  ByteFlipsNeverCrash(good, parse, 300);
  auto [p, p_size] = SectionAt(good, 1);
  auto [h, h_size] = SectionAt(good, 2);
  {
    auto b = good;
    PutU32(b, p, 2);
    ExpectFormatError([&] { parse(b); }, "the zkey is for protocol 2 (plonk), not Groth16");
  }
  {
    auto b = good;
    PutU32(b, h, 32);  // n8q of bn128
    ExpectFormatError([&] { parse(b); }, "n8q = 32, expected 48");
  }
  {
    auto b = good;
    b[h + 4 + 10] ^= 4;  // q
    ExpectFormatError([&] { parse(b); }, "base field prime q is not BLS12-381's");
  }
  {
    auto b = good;
    b[h + 4 + 48 + 4 + 7] ^= 4;  // r
    ExpectFormatError([&] { parse(b); }, "scalar field prime r is not BLS12-381's");
  }
  const size_t counts = h + 4 + 48 + 4 + 32;  // nVars, nPublic, domainSize
  {
    auto b = good;
    PutU32(b, counts + 4, 6 + 1);  // nPublic: IC no longer matches
    ExpectFormatError([&] { parse(b); }, "section 3 (IC): 672 bytes, expected (nPublic + 1) x 96 = 768");
  }
  {
    auto b = good;
    PutU32(b, counts + 4, 50);
    ExpectFormatError([&] { parse(b); }, "nPublic (50) + 1 exceeds nVars (12)");
  }
  {
    auto b = good;
    PutU32(b, counts + 8, 24);
    ExpectFormatError([&] { parse(b); }, "domainSize 24 is not a power of two");
  }
  {
    auto b = good;
    PutU32(b, counts, 13);  // nVars: the A section is one point short
    ExpectFormatError([&] { parse(b); }, "section 5 (A points): 1152 bytes, expected 13 points x 96 = 1248");
  }
  const size_t alpha = counts + 12;
  {
    auto b = good;
    b[alpha + 5] ^= 1;  // alpha1.x: off the curve
    ExpectFormatError([&] { parse(b); }, "alpha1: the point is not on the curve", ErrorKind::kInvalidValue);
  }
  {
    auto b = good;
    std::fill(b.begin() + alpha, b.begin() + alpha + 96, 0);
    ExpectFormatError([&] { parse(b); }, "alpha1 is the point at infinity", ErrorKind::kInvalidValue);
  }
  {
    auto b = good;
    std::fill(b.begin() + alpha + 96, b.begin() + alpha + 96 + 48, 0xff);  // beta1.x >= p
    ExpectFormatError([&] { parse(b); }, "beta1: a coordinate is not a reduced field element",
                      ErrorKind::kInvalidValue);
  }
  {
    auto [c, c_size] = SectionAt(good, 4);
    auto b = good;
    PutU32(b, c + 4 + 44 * 2, 7);  // matrix of coefficient 2
    ExpectFormatError([&] { parse(b); }, "coefficient 2 is for matrix 7");
    b = good;
    PutU32(b, c + 4 + 44 * 2 + 4, 16);  // its constraint, outside the domain
    ExpectFormatError([&] { parse(b); }, "coefficient 2 is for constraint 16, outside the domain of 16");
    b = good;
    PutU32(b, c + 4 + 44 * 2 + 8, 12);  // its signal
    ExpectFormatError([&] { parse(b); }, "coefficient 2 is for signal 12 but nVars is 12");
    b = good;
    std::fill(b.begin() + c + 4 + 44 * 2 + 12, b.begin() + c + 4 + 44 * 3, 0xff);
    ExpectFormatError([&] { parse(b); }, "coefficient 2 is >= the scalar field modulus", ErrorKind::kInvalidValue);
    b = good;
    PutU32(b, c, 21);
    ExpectFormatError([&] { parse(b); }, "expected 21 x 44 = 924");
  }
  {
    auto [a, a_size] = SectionAt(good, 5);
    auto b = good;
    b[a + 3 * 96 + 50] ^= 1;  // A point 3, y: off the curve
    ExpectFormatError([&] { parse(b); }, "section 5 (A points): point 3: the point is not on the curve",
                      ErrorKind::kInvalidValue);
  }
  {
    // Variable 0 (ONE) is in no B row: B1 and B2 are infinity. Give it a B1 point only.
    auto [b1, b1_size] = SectionAt(good, 6);
    auto b = good;
    std::copy_n(good.begin() + alpha, 96, b.begin() + b1);  // alpha1, a valid point
    ExpectFormatError([&] { parse(b); }, "variable 0 has a B1 point not at infinity but a B2 point at infinity",
                      ErrorKind::kInvalidValue);
  }
  {
    // A point on the curve outside the subgroup: only found with check_subgroup.
    // (x, y) with x = 0 is on y^2 = x^3 + 4 at y = 2, in G1's curve but the
    // cofactor part is not trivial for it.
    auto [hs, hs_size] = SectionAt(good, 9);
    auto b = good;
    ec::G1Affine q = ec::G1Affine::FromXY(ff::Fp::Zero(), ff::Fp::FromUint64(2));
    ASSERT_TRUE(q.IsOnCurve());
    ASSERT_FALSE(ec::IsInG1Subgroup(q));
    G1ToLem(q, std::span<uint8_t>(b.data() + hs + 96, 96));
    EXPECT_NO_THROW(ParseZkey(b, "b.zkey"));
    ExpectFormatError([&] { ParseZkey(b, "b.zkey", {.check_subgroup = true}); },
                      "section 9 (H points): point 1: the point is not in the prime-order subgroup",
                      ErrorKind::kInvalidValue);
  }
}

TEST(SnarkjsCorrupt, ProofJsonErrors) {
  const std::string good = MultiPublic().Text("proof.json");
  const json j = json::parse(good);
  auto parse = [](const std::string& t) { ParseProofJson(t, "p.json"); };
  auto with = [&](const std::function<void(json&)>& edit) {
    json k = j;
    edit(k);
    return k.dump(1);
  };
  ExpectFormatError([&] { parse("{\"pi_a\": ["); }, "p.json: not valid JSON");
  ExpectFormatError([&] { parse("[]"); }, "p.json: expected a JSON object");
  ExpectFormatError([&] { parse(with([](json& k) { k.erase("pi_b"); })); }, "missing field \"pi_b\"");
  ExpectFormatError([&] { parse(with([](json& k) { k["curve"] = "bn128"; })); },
                    "curve is \"bn128\", only \"bls12381\" is supported");
  ExpectFormatError([&] { parse(with([](json& k) { k["protocol"] = "plonk"; })); }, "protocol is \"plonk\"");
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_a"] = json::array({"1"}); })); },
                    "p.json: pi_a: expected 2 to 3 elements, found 1");
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_a"][0] = 5; })); },
                    "pi_a[0]: expected a decimal string, found number");
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_a"][0] = "12a"; })); },
                    "pi_a[0]: \"12a\" is not a non-negative decimal integer");
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_c"][2] = "2"; })); }, "only affine points are supported");
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_b"][0] = json::array({"1"}); })); },
                    "pi_b[0]: expected 2 elements, found 1");
  // Value problems are kInvalidValue: a verifier says "invalid proof".
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_a"][0] = LimbsToDecimal<6>(ff::Fp::kModulus); })); },
                    "is not less than the BLS12-381 base field modulus", ErrorKind::kInvalidValue);
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_a"][0] = std::string(200, '9'); })); },
                    "is not a field element (too large)", ErrorKind::kInvalidValue);
  ExpectFormatError([&] { parse(with([](json& k) { k["pi_a"][1] = "5"; })); }, "pi_a: the point is not on the curve",
                    ErrorKind::kInvalidValue);
  ExpectFormatError([&] { parse(with([](json& k) {
                            k["pi_c"] = json::array({"0", "1", "0"});
                          })); },
                    "pi_c: the point at infinity is not allowed here", ErrorKind::kInvalidValue);
  ExpectFormatError([&] { parse(with([](json& k) {
                            k["pi_a"] = json::array({"0", "2", "1"});
                          })); },
                    "pi_a: the point is not in the prime-order subgroup", ErrorKind::kInvalidValue);
  ExpectFormatError([&] { ReadFileText("/nonexistent/proof.json"); }, "/nonexistent/proof.json: cannot open");
}

TEST(SnarkjsCorrupt, PublicAndVerificationKeyJsonErrors) {
  ExpectFormatError([&] { ParsePublicSignalsJson("{}", "pub.json"); }, "pub.json: expected a JSON array");
  ExpectFormatError([&] { ParsePublicSignalsJson("[\"1\", 2]", "pub.json"); },
                    "pub.json: [1]: expected a decimal string, found number");
  ExpectFormatError([&] { ParsePublicSignalsJson("[\"-1\"]", "pub.json"); }, "\"-1\" is not a non-negative decimal");
  ExpectFormatError([&] { ParsePublicSignalsJson("[\"" + LimbsToDecimal<4>(ff::Fr::kModulus) + "\"]", "pub.json"); },
                    "is not less than the BLS12-381 scalar field modulus", ErrorKind::kInvalidValue);
  EXPECT_EQ(ParsePublicSignalsJson("[]", "pub.json").size(), 0u);

  const json vk = MultiPublic().Json("verification_key.json");
  auto parse = [](const json& k) { ParseVerifyingKeyJson(k.dump(1), "vk.json"); };
  {
    json k = vk;
    k["nPublic"] = 5;
    ExpectFormatError([&] { parse(k); }, "IC must hold nPublic + 1 = 6 points, found 7");
  }
  {
    json k = vk;
    k.erase("vk_delta_2");
    ExpectFormatError([&] { parse(k); }, "missing field \"vk_delta_2\"");
  }
  {
    json k = vk;
    k["curve"] = "bn128";
    ExpectFormatError([&] { parse(k); }, "curve is \"bn128\"");
  }
  {
    json k = vk;
    k.erase("protocol");
    ExpectFormatError([&] { parse(k); }, "missing field \"protocol\"");
  }
  {
    // A bad key point is unusable input (kMalformed), not an invalid proof.
    json k = vk;
    k["vk_alpha_1"][1] = "7";
    ExpectFormatError([&] { parse(k); }, "vk_alpha_1: the point is not on the curve");
    k = vk;
    k["vk_gamma_2"][0][0] = "3";
    ExpectFormatError([&] { parse(k); }, "vk_gamma_2: the point is not on the curve");
  }
}

}  // namespace
}  // namespace cuzk::snarkjs
