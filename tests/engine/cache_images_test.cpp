// Key and circuit images (engine/groth16/key_image.hpp,
// engine/r1cs/circuit_image.hpp) on the cache file layer
// (engine/util/cache_file.hpp): a round trip gives back exactly what was
// written, and every way an image can be wrong (made from other inputs, a
// byte flipped anywhere, cut short, a foreign file, offsets or columns that
// match their digests but not the circuit) is a CacheError, never a key or
// circuit that differs from the source.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/circuits/synthetic/synthetic_circuit.hpp"
#include "engine/groth16/key_image.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/groth16/setup.hpp"
#include "engine/r1cs/circuit_image.hpp"
#include "engine/util/cache_file.hpp"
#include "tests/support/random_circuit.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk {
namespace {

namespace fs = std::filesystem;
using test::ReadAll;
using test::TempDir;
using test::WriteAll;

struct SmallKey {
  r1cs::CompiledCircuit circuit;
  groth16::ProvingKey pk;  // as ReadParams gives it: no densities
};

const SmallKey& Key() {
  static const SmallKey k = [] {
    SmallKey k;
    k.circuit = circuits::synthetic::Record({.log_size = 7, .num_public = 3, .lc_width = 6, .lc_period = 4});
    groth16::ProvingKey pk = groth16::GenerateParameters(k.circuit);
    k.pk = groth16::ParseParams(groth16::SerializeParams(pk), "small.params");
    return k;
  }();
  return k;
}

TEST(KeyImage, RoundTripEqualsTheParams) {
  TempDir dir("cuzk-cache-test-");
  const std::string params = dir.File("k.params"), image = dir.File("k.key-image");
  groth16::WriteParams(Key().pk, params);
  const uint64_t source = groth16::ParamsFileSource(params);
  const uint64_t written = groth16::WriteKeyImage(Key().pk, image, source);
  EXPECT_EQ(written, fs::file_size(image));
  groth16::ProvingKey read = groth16::ReadKeyImage(image, source, 3);
  EXPECT_TRUE(read.vk == Key().pk.vk);
  EXPECT_EQ(read.h, Key().pk.h);
  EXPECT_EQ(read.l, Key().pk.l);
  EXPECT_EQ(read.a, Key().pk.a);
  EXPECT_EQ(read.b_g1, Key().pk.b_g1);
  EXPECT_EQ(read.b_g2, Key().pk.b_g2);
  EXPECT_EQ(read.h_form, groth16::HQueryForm::kBellperson);
  // And it binds to the circuit as a key from ReadParams does.
  groth16::BindCircuit(read, Key().circuit);
}

// The key's vectors are sized without initialising their points
// (util::OverwriteVector): every point must then be written by the read.
// Memory freed just before the read, filled with a byte no image holds, is
// what the allocator hands out again; the read must leave none of it.
TEST(KeyImage, EveryPointIsWrittenIntoReusedMemoryWithAndWithoutTheOldSizing) {
  TempDir dir("cuzk-cache-test-");
  const std::string params = dir.File("k.params"), image = dir.File("k.key-image");
  groth16::WriteParams(Key().pk, params);
  const uint64_t source = groth16::ParamsFileSource(params);
  groth16::WriteKeyImage(Key().pk, image, source);
  for (const bool fault_in : {true, false}) {
    for (int round = 0; round < 3; ++round) {
      {
        std::vector<std::vector<uint8_t>> dirty;
        for (size_t bytes : {Key().pk.h.size() * sizeof(ec::G1Affine), Key().pk.l.size() * sizeof(ec::G1Affine),
                             Key().pk.a.size() * sizeof(ec::G1Affine), Key().pk.b_g1.size() * sizeof(ec::G1Affine),
                             Key().pk.b_g2.size() * sizeof(ec::G2Affine)})
          dirty.emplace_back(bytes, uint8_t(0xA5));
      }
      const groth16::ProvingKey read = groth16::ReadKeyImage(image, source, {.threads = 2, .fault_in = fault_in});
      EXPECT_EQ(read.h, Key().pk.h) << "fault_in " << fault_in;
      EXPECT_EQ(read.l, Key().pk.l);
      EXPECT_EQ(read.a, Key().pk.a);
      EXPECT_EQ(read.b_g1, Key().pk.b_g1);
      EXPECT_EQ(read.b_g2, Key().pk.b_g2);
    }
  }
}

TEST(KeyImage, ChangedParamsFileMakesItStale) {
  TempDir dir("cuzk-cache-test-");
  const std::string params = dir.File("k.params"), image = dir.File("k.key-image");
  groth16::WriteParams(Key().pk, params);
  const uint64_t source = groth16::ParamsFileSource(params);
  groth16::WriteKeyImage(Key().pk, image, source);
  // Same size, one byte of the last MiB changed, modification time restored:
  // the head/tail digest still tells.
  struct stat before {};
  ASSERT_EQ(::stat(params.c_str(), &before), 0);
  std::vector<uint8_t> bytes = ReadAll(params);
  bytes[bytes.size() - 7] ^= 1;
  WriteAll(params, bytes);
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, params.c_str(), times, 0), 0);
  EXPECT_NE(groth16::ParamsFileSource(params), source);
  EXPECT_THROW(groth16::ReadKeyImage(image, groth16::ParamsFileSource(params)), util::CacheError);
  // A newer modification time alone also changes the source.
  WriteAll(params, ReadAll(params));
  struct timespec later[2] = {before.st_atim, before.st_mtim};
  later[1].tv_sec += 10;
  ASSERT_EQ(::utimensat(AT_FDCWD, params.c_str(), later, 0), 0);
  EXPECT_NE(groth16::ParamsFileSource(params), source);
}

TEST(KeyImage, EveryDamageIsDetected) {
  TempDir dir("cuzk-cache-test-");
  const std::string image = dir.File("k.key-image");
  const uint64_t source = 42;
  groth16::WriteKeyImage(Key().pk, image, source);
  const std::vector<uint8_t> good = ReadAll(image);
  std::vector<util::CacheSection> sections;
  {
    util::CacheReader r(image, groth16::kKeyImageKind, source);
    for (const char* s : {"meta", "vk", "h", "l", "a", "b_g1", "b_g2"}) sections.push_back(r.Section(s));
  }
  auto rng = test::SeededRng();
  // A flipped bit anywhere the file holds data: the header (all of its 4096
  // bytes are under its digest) and each section.
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> bad = good;
    const size_t at = size_t(rng() % bad.size());
    bool in_data = at < 4096;
    for (const auto& sec : sections) in_data |= at >= sec.offset && at < sec.offset + sec.bytes;
    if (!in_data) continue;  // alignment padding between sections is read by no one
    bad[at] ^= uint8_t(1u << (rng() % 8));
    WriteAll(image, bad);
    EXPECT_THROW(groth16::ReadKeyImage(image, source), util::CacheError) << "byte " << at;
  }
  // Cut short at several lengths; a foreign file; the wrong source; missing.
  for (size_t len : {size_t(0), size_t(100), size_t(4096), good.size() / 2, good.size() - 1}) {
    WriteAll(image, std::vector<uint8_t>(good.begin(), good.begin() + long(len)));
    EXPECT_THROW(groth16::ReadKeyImage(image, source), util::CacheError) << "length " << len;
  }
  WriteAll(image, std::vector<uint8_t>(8192, 0x5a));
  EXPECT_THROW(groth16::ReadKeyImage(image, source), util::CacheError);
  WriteAll(image, good);
  EXPECT_NO_THROW(groth16::ReadKeyImage(image, source));
  EXPECT_THROW(groth16::ReadKeyImage(image, source + 1), util::CacheError);
  EXPECT_THROW(groth16::ReadKeyImage(dir.File("missing"), source), util::CacheError);
  // A circuit image is not a key image.
  r1cs::WriteCircuitImage(Key().circuit, image, source);
  EXPECT_THROW(groth16::ReadKeyImage(image, source), util::CacheError);
}

TEST(KeyImage, RefusesKeysItCannotHold) {
  TempDir dir("cuzk-cache-test-");
  groth16::ProvingKey pk = Key().pk;
  pk.l[1] = ec::G1Affine::Infinity();
  EXPECT_THROW(groth16::WriteKeyImage(pk, dir.File("x"), 1), std::invalid_argument);
  EXPECT_FALSE(fs::exists(dir.File("x")));
  std::atomic<bool> cancel{true};
  EXPECT_THROW(groth16::WriteKeyImage(Key().pk, dir.File("y"), 1, &cancel), util::CacheError);
  EXPECT_FALSE(fs::exists(dir.File("y")));
  EXPECT_TRUE(fs::is_empty(dir.path)) << "no temporary file left behind";
}

// The shell a daemon reads when its GPUs take the compact image
// (r1cs::ReadCircuitImageShell): counts, densities and each matrix's first
// and last elements; its arrays are sized (they count as the circuit's) but
// never read. And the counts alone (r1cs::ReadCircuitImageCounts).
void ExpectShellOf(const r1cs::CompiledCircuit& circuit, const std::string& image, uint64_t source) {
  const r1cs::CompiledCircuit shell = r1cs::ReadCircuitImageShell(image, source);
  EXPECT_EQ(shell.num_inputs, circuit.num_inputs);
  EXPECT_EQ(shell.num_aux, circuit.num_aux);
  EXPECT_EQ(shell.num_constraints(), circuit.num_constraints());
  for (auto [x, y] : {std::pair{&shell.a, &circuit.a}, {&shell.b, &circuit.b}, {&shell.c, &circuit.c}}) {
    ASSERT_EQ(x->rows(), y->rows());
    ASSERT_EQ(x->nonzeros(), y->nonzeros());
    if (y->nonzeros() == 0) continue;
    EXPECT_EQ(x->columns.front(), y->columns.front());
    EXPECT_EQ(x->columns.back(), y->columns.back());
    EXPECT_EQ(x->values.front(), y->values.front());
    EXPECT_EQ(x->values.back(), y->values.back());
  }
  EXPECT_EQ(shell.a_density, circuit.a_density);
  EXPECT_EQ(shell.b_density, circuit.b_density);
  EXPECT_THROW(r1cs::ReadCircuitImageShell(image, r1cs::CircuitImageSource("other")), util::CacheError);
  const r1cs::CircuitImageCounts counts = r1cs::ReadCircuitImageCounts(image, source);
  EXPECT_EQ(counts.num_inputs, circuit.num_inputs);
  EXPECT_EQ(counts.num_aux, circuit.num_aux);
  EXPECT_EQ(counts.constraints, circuit.num_constraints());
  EXPECT_THROW(r1cs::ReadCircuitImageCounts(image, r1cs::CircuitImageSource("other")), util::CacheError);
}

TEST(CircuitImage, RoundTripOnRandomCircuits) {
  TempDir dir("cuzk-cache-test-");
  auto rng = test::SeededRng();
  for (uint64_t constraints : {1ull, 97ull, 3000ull}) {
    test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = constraints, .free_aux = 40}, rng);
    const std::string image = dir.File("c" + std::to_string(constraints));
    const uint64_t source = r1cs::CircuitImageSource("test-" + std::to_string(constraints));
    r1cs::WriteCircuitImage(rc.circuit, image, source);
    {
      // Memory the read is likely to be handed again, holding a byte no
      // image does: the matrices' arrays are sized without being written
      // (util::OverwriteVector), so the read must write every element.
      std::vector<std::vector<uint8_t>> dirty;
      for (const r1cs::CsrMatrix* m : {&rc.circuit.a, &rc.circuit.b, &rc.circuit.c}) {
        dirty.emplace_back(m->row_offsets.size() * 8, uint8_t(0xA5));
        dirty.emplace_back(m->columns.size() * 4, uint8_t(0xA5));
        dirty.emplace_back(m->values.size() * sizeof(ff::Fr), uint8_t(0xA5));
      }
    }
    r1cs::CompiledCircuit read = r1cs::ReadCircuitImage(image, source, 2);
    EXPECT_EQ(read.num_inputs, rc.circuit.num_inputs);
    EXPECT_EQ(read.num_aux, rc.circuit.num_aux);
    for (auto [x, y] : {std::pair{&read.a, &rc.circuit.a}, {&read.b, &rc.circuit.b}, {&read.c, &rc.circuit.c}}) {
      EXPECT_EQ(x->row_offsets, y->row_offsets);
      EXPECT_EQ(x->columns, y->columns);
      EXPECT_EQ(x->values, y->values);
    }
    EXPECT_EQ(read.a_density, rc.circuit.a_density);
    EXPECT_EQ(read.b_density, rc.circuit.b_density);
    r1cs::ValidateCircuit(read);
    EXPECT_THROW(r1cs::ReadCircuitImage(image, r1cs::CircuitImageSource("other")), util::CacheError);
    ExpectShellOf(rc.circuit, image, source);
  }
}

TEST(CircuitImage, SourceNamesCircuitAndCompiler) {
  EXPECT_EQ(r1cs::CircuitCompilerDigest().size(), 64u);
  EXPECT_NE(r1cs::CircuitImageSource("snap-2k"), r1cs::CircuitImageSource("snap-8m"));
  EXPECT_EQ(r1cs::CircuitImageSource("snap-2k"), r1cs::CircuitImageSource("snap-2k"));
}

// An image whose digests are right but whose contents are not a circuit
// (written through the cache layer directly) is refused by the reader's checks.
TEST(CircuitImage, ConsistentDigestsInconsistentCircuitRefused) {
  TempDir dir("cuzk-cache-test-");
  auto rng = test::SeededRng();
  test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 50, .free_aux = 10}, rng);
  const uint64_t source = 7;
  {
    r1cs::CompiledCircuit bad = rc.circuit;
    bad.b.columns[3] = uint32_t(bad.num_variables());  // past the last variable
    r1cs::WriteCircuitImage(bad, dir.File("cols"), source);
    EXPECT_THROW(r1cs::ReadCircuitImage(dir.File("cols"), source), util::CacheError);
  }
  {
    r1cs::CompiledCircuit bad = rc.circuit;
    std::swap(bad.c.row_offsets[10], bad.c.row_offsets[20]);  // offsets that fall
    r1cs::WriteCircuitImage(bad, dir.File("offsets"), source);
    EXPECT_THROW(r1cs::ReadCircuitImage(dir.File("offsets"), source), util::CacheError);
  }
}

}  // namespace
}  // namespace cuzk
