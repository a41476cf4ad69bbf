// bellperson .params / .vk files: write/read round trips through real files,
// and every kind of damage (truncation at many offsets, wrong counts, bad or
// infinite points, points outside the subgroup, trailing bytes) giving a
// ParamsError that names the section and point, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/ec/encoding.hpp"
#include "engine/groth16/cpu_backend.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/prover.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/groth16/verifier.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::groth16 {
namespace {

using ec::G1Affine;
using ec::G2Affine;
using ff::Fp;
using ff::Fp2;
namespace synthetic = circuits::synthetic;

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& tag) : path("/tmp/cuzk-params-test-" + std::to_string(::getpid()) + "-" + tag) {}
  ~TempFile() { std::remove(path.c_str()); }
};

void WriteBytes(const std::string& path, std::span<const uint8_t> b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

struct Keys {
  r1cs::CompiledCircuit circuit;
  ProvingKey pk;
  std::vector<uint8_t> bytes;  // the .params file
};

const Keys& SmallKeys() {
  static const Keys k = [] {
    Keys k;
    k.circuit = synthetic::Record({.log_size = 6, .num_public = 4, .lc_width = 8, .lc_period = 4});
    k.pk = GenerateParameters(k.circuit);
    k.bytes = SerializeParams(k.pk);
    return k;
  }();
  return k;
}

// Byte offset of each section's count in the .params file.
struct Layout {
  size_t vk_end, h, l, a, b_g1, b_g2, end;
};
Layout LayoutOf(const ProvingKey& pk) {
  Layout o;
  o.vk_end = kVerifyingKeyFixedBytes + 4 + 96 * pk.vk.ic.size();
  o.h = o.vk_end;
  o.l = o.h + 4 + 96 * pk.h.size();
  o.a = o.l + 4 + 96 * pk.l.size();
  o.b_g1 = o.a + 4 + 96 * pk.a.size();
  o.b_g2 = o.b_g1 + 4 + 96 * pk.b_g1.size();
  o.end = o.b_g2 + 4 + 192 * pk.b_g2.size();
  return o;
}

void PutU32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  b[at] = uint8_t(v >> 24);
  b[at + 1] = uint8_t(v >> 16);
  b[at + 2] = uint8_t(v >> 8);
  b[at + 3] = uint8_t(v);
}

ParamsError ParseError(std::span<const uint8_t> bytes, const ParamsReadOptions& o = {}) {
  try {
    ParseParams(bytes, "x.params", o);
  } catch (const ParamsError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParamsError";
  return ParamsError("", "", std::nullopt, "none");
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// On the curve, order 3, not in the r-subgroup: (0, 2) solves y^2 = x^3 + 4.
G1Affine G1OutsideSubgroup() { return G1Affine::FromXY(Fp::Zero(), Fp::FromUint64(2)); }
G2Affine G2OutsideSubgroup() {
  for (uint64_t x = 0;; ++x) {
    Fp2 fx{Fp::FromUint64(x), Fp::One()};
    auto y = (fx.Square() * fx + ec::G2Curve::kB()).Sqrt();
    if (!y) continue;
    G2Affine p = G2Affine::FromXY(fx, *y);
    if (p.IsOnCurve() && !ec::IsInG2Subgroup(p)) return p;
  }
}

TEST(ParamsIo, RoundTripThroughFilesAndProve) {
  const Keys& k = SmallKeys();
  TempFile params("rt.params"), vkf("rt.vk");
  WriteParams(k.pk, params.path);
  WriteVerifyingKey(k.pk.vk, vkf.path);
  const ParamsShape shape = ParamsShape::ForCircuit(k.circuit);
  EXPECT_EQ(shape, ParamsShape::Of(k.pk));
  EXPECT_EQ(k.bytes.size(), shape.FileBytes());
  std::ifstream f(params.path, std::ios::binary | std::ios::ate);
  EXPECT_EQ(uint64_t(f.tellg()), shape.FileBytes());

  ProvingKey pk = ReadParamsForCircuit(params.path, k.circuit, {.check_subgroup = true});
  EXPECT_EQ(pk.vk, k.pk.vk);
  EXPECT_EQ(pk.h, k.pk.h);
  EXPECT_EQ(pk.l, k.pk.l);
  EXPECT_EQ(pk.a, k.pk.a);
  EXPECT_EQ(pk.b_g1, k.pk.b_g1);
  EXPECT_EQ(pk.b_g2, k.pk.b_g2);
  EXPECT_EQ(pk.a_density, k.circuit.a_density);
  VerifyingKey vk = ReadVerifyingKey(vkf.path, k.circuit.num_inputs);
  EXPECT_EQ(vk, k.pk.vk);
  // 6 fixed points + count + 5 IC points: the 1,348 bytes of a SnapDeals .vk.
  EXPECT_EQ(SerializeVerifyingKey(vk).size(), 1348u);

  CpuBackend cpu({.threads = 2});
  synthetic::SyntheticParams p{.log_size = 6, .num_public = 4, .lc_width = 8, .lc_period = 4};
  r1cs::Assignment z = synthetic::Witness(p, test::TestSeed());
  auto x = z.PublicInputs();
  Proof proof = Prove(cpu, pk, k.circuit, std::move(z));
  EXPECT_TRUE(Verify(PrepareVerifyingKey(vk), proof, x));
}

TEST(ParamsIo, TruncationAnywhereIsAClearError) {
  const Keys& k = SmallKeys();
  const Layout lay = LayoutOf(k.pk);
  ASSERT_EQ(lay.end, k.bytes.size());
  std::vector<size_t> cuts;
  for (size_t i = 0; i < lay.vk_end + 200; i += 3) cuts.push_back(i);
  for (size_t s : {lay.h, lay.l, lay.a, lay.b_g1, lay.b_g2, lay.end}) {
    for (size_t d = 0; d < 6; ++d) {
      if (s >= d) cuts.push_back(s - d);
      if (s + d < lay.end) cuts.push_back(s + d);
    }
  }
  for (size_t i = lay.vk_end; i < lay.end; i += 97) cuts.push_back(i);
  for (size_t cut : cuts) {
    if (cut >= lay.end) continue;
    ParamsError e = ParseError(std::span(k.bytes).first(cut));
    EXPECT_TRUE(Contains(e.what(), "truncated")) << cut << ": " << e.what();
  }
  // The .vk alone, truncated.
  std::vector<uint8_t> vk = SerializeVerifyingKey(k.pk.vk);
  for (size_t cut = 0; cut < vk.size(); cut += 5) {
    EXPECT_THROW(ParseVerifyingKey(std::span(vk).first(cut), "x.vk"), ParamsError) << cut;
  }
  // Empty files.
  TempFile empty("empty.params");
  WriteBytes(empty.path, {});
  EXPECT_THROW(ReadParams(empty.path), ParamsError);
  EXPECT_THROW(ReadParams("/nonexistent/cuzk.params"), std::system_error);
}

TEST(ParamsIo, WrongCountsAreCaughtBeforeAllocating) {
  const Keys& k = SmallKeys();
  const Layout lay = LayoutOf(k.pk);
  const ParamsReadOptions expect{.expected = ParamsShape::ForCircuit(k.circuit)};
  {  // One more l point than the circuit has.
    auto b = k.bytes;
    PutU32(b, lay.l, uint32_t(k.pk.l.size() + 1));
    ParamsError e = ParseError(b, expect);
    EXPECT_EQ(e.section(), "l");
    EXPECT_TRUE(Contains(e.what(), "the circuit needs " + std::to_string(k.pk.l.size()))) << e.what();
    // Without the circuit: the shifted sections no longer line up.
    EXPECT_THROW(ParseParams(b, "x.params"), ParamsError);
  }
  {  // A 4-billion-point count: refused as truncation, nothing allocated.
    auto b = k.bytes;
    PutU32(b, lay.h, 0xffffffffu);
    ParamsError e = ParseError(b);
    EXPECT_EQ(e.section(), "h");
    EXPECT_TRUE(Contains(e.what(), "truncated")) << e.what();
    PutU32(b, lay.h, uint32_t(k.pk.h.size()));
    PutU32(b, lay.b_g2, 0xfffffff0u);
    EXPECT_EQ(ParseError(b).section(), "b_g2");
    PutU32(b, lay.b_g2, uint32_t(k.pk.b_g2.size()));
    PutU32(b, lay.vk_end - 4 - 96 * k.pk.vk.ic.size(), 0x7fffffffu);  // ic_len
    EXPECT_EQ(ParseError(b).section(), "ic");
  }
  {  // h must be m - 1 for a power of two m.
    auto b = k.bytes;
    b.erase(b.begin() + lay.l - 96, b.begin() + lay.l);
    PutU32(b, lay.h, uint32_t(k.pk.h.size() - 1));
    ParamsError e = ParseError(b);
    EXPECT_EQ(e.section(), "h");
  }
  {  // Fewer a points than inputs.
    auto b = k.bytes;
    PutU32(b, lay.a, 2);
    EXPECT_EQ(ParseError(b).section(), "a");
  }
  {  // b_g2 must match b_g1.
    auto b = k.bytes;
    b.resize(b.size() - 192);
    PutU32(b, lay.b_g2, uint32_t(k.pk.b_g2.size() - 1));
    EXPECT_EQ(ParseError(b).section(), "b_g2");
  }
  {  // Trailing garbage.
    auto b = k.bytes;
    b.push_back(0);
    EXPECT_TRUE(Contains(ParseError(b).what(), "unexpected bytes"));
  }
  {  // Expected IC count for a .vk.
    auto vk = SerializeVerifyingKey(k.pk.vk);
    EXPECT_NO_THROW(ParseVerifyingKey(vk, "x.vk", k.pk.vk.ic.size()));
    EXPECT_THROW(ParseVerifyingKey(vk, "x.vk", k.pk.vk.ic.size() + 1), ParamsError);
  }
  {  // A key bound to another circuit.
    ProvingKey pk = ParseParams(k.bytes, "x.params");
    r1cs::CompiledCircuit other = synthetic::Record({.log_size = 6, .num_public = 3, .lc_width = 8, .lc_period = 4});
    try {
      BindCircuit(pk, other);
      FAIL();
    } catch (const ParamsError& e) {
      EXPECT_EQ(e.section(), "shape");
    }
  }
}

TEST(ParamsIo, BadPointsNameTheirSectionAndIndex) {
  const Keys& k = SmallKeys();
  const Layout lay = LayoutOf(k.pk);
  auto rng = test::SeededRng();
  struct Sec {
    const char* name;
    size_t at, count, size;
  };
  const Sec secs[] = {{"h", lay.h, k.pk.h.size(), 96},
                      {"l", lay.l, k.pk.l.size(), 96},
                      {"a", lay.a, k.pk.a.size(), 96},
                      {"b_g1", lay.b_g1, k.pk.b_g1.size(), 96},
                      {"b_g2", lay.b_g2, k.pk.b_g2.size(), 192}};
  for (const Sec& s : secs) {
    for (int trial = 0; trial < 4; ++trial) {
      const size_t idx = rng() % s.count;
      auto b = k.bytes;
      // A flipped byte inside a coordinate (past the flag bits).
      b[s.at + 4 + idx * s.size + 1 + rng() % (s.size - 1)] ^= uint8_t(1 + rng() % 255);
      ParamsError e = ParseError(b);
      EXPECT_EQ(e.section(), s.name) << e.what();
      EXPECT_EQ(e.index(), idx) << e.what();
    }
    // The point at infinity.
    auto b = k.bytes;
    const size_t idx = s.count / 2;
    std::fill_n(b.begin() + long(s.at + 4 + idx * s.size), s.size, 0);
    b[s.at + 4 + idx * s.size] = ec::kFlagInfinity;
    ParamsError e = ParseError(b);
    EXPECT_EQ(e.section(), s.name);
    EXPECT_EQ(e.index(), idx);
    EXPECT_TRUE(Contains(e.what(), "infinity")) << e.what();
  }
  {  // A flipped byte in the verifying key.
    auto b = k.bytes;
    b[96 + 10] ^= 0x55;  // beta_g1
    ParamsError e = ParseError(b);
    EXPECT_EQ(e.section(), "vk");
    EXPECT_TRUE(Contains(e.what(), "beta_g1")) << e.what();
  }
}

TEST(ParamsIo, SubgroupChecksOptionalForSectionsAlwaysForTheVk) {
  const Keys& k = SmallKeys();
  const Layout lay = LayoutOf(k.pk);
  const auto bad1 = ec::EncodeUncompressed(G1OutsideSubgroup());
  const auto bad2 = ec::EncodeUncompressed(G2OutsideSubgroup());
  {
    auto b = k.bytes;
    std::copy(bad1.begin(), bad1.end(), b.begin() + long(lay.l + 4 + 3 * 96));
    EXPECT_NO_THROW(ParseParams(b, "x.params"));  // bellperson's default: on-curve only
    ParamsError e = ParseError(b, {.check_subgroup = true});
    EXPECT_EQ(e.section(), "l");
    EXPECT_EQ(e.index(), 3u);
    EXPECT_TRUE(Contains(e.what(), "subgroup")) << e.what();
  }
  {
    auto b = k.bytes;
    std::copy(bad2.begin(), bad2.end(), b.begin() + long(lay.b_g2 + 4));
    EXPECT_NO_THROW(ParseParams(b, "x.params"));
    EXPECT_EQ(ParseError(b, {.check_subgroup = true}).section(), "b_g2");
  }
  {
    auto b = k.bytes;
    std::copy(bad2.begin(), bad2.end(), b.begin() + 2 * 96 + 192);  // gamma_g2
    ParamsError e = ParseError(b);
    EXPECT_EQ(e.section(), "vk");
    EXPECT_TRUE(Contains(e.what(), "gamma_g2")) << e.what();
    auto vk = SerializeVerifyingKey(k.pk.vk);
    std::copy(bad1.begin(), bad1.end(), vk.end() - 96);  // last IC point
    try {
      ParseVerifyingKey(vk, "x.vk");
      FAIL();
    } catch (const ParamsError& e2) {
      EXPECT_EQ(e2.section(), "ic");
      EXPECT_EQ(e2.index(), k.pk.vk.ic.size() - 1);
    }
  }
}

TEST(ParamsIo, SnarkjsFormKeysHaveNoParamsLayout) {
  r1cs::CompiledCircuit c = synthetic::Record({.log_size = 5, .num_public = 1, .lc_width = 4, .lc_period = 4});
  ProvingKey pk = GenerateParameters(c, {.h_form = HQueryForm::kSnarkjsOddCoset});
  EXPECT_THROW(SerializeParams(pk), std::invalid_argument);
  TempFile f("snarkjs.params");
  EXPECT_THROW(WriteParams(pk, f.path), std::invalid_argument);
  EXPECT_FALSE(std::ifstream(f.path).good());  // the partial file is removed
}

}  // namespace
}  // namespace cuzk::groth16
