// Compact circuit images (engine/r1cs/compact_image.hpp): a round trip gives
// back exactly the CompactCircuit written (with and without escapes, empty
// matrices included); every damage (a flipped bit, a cut, another source, a
// foreign file) is a CacheError; an image whose digests are right but whose
// contents could send the kernel out of bounds is refused by the reader; and
// CheckCompactDescribes refuses a compact form of anything but the circuit it
// is used with (one column, one coefficient, one escape value, one row
// offset changed). Random circuits, seed printed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/r1cs/circuit_image.hpp"
#include "engine/r1cs/compact_circuit.hpp"
#include "engine/r1cs/compact_image.hpp"
#include "engine/util/cache_file.hpp"
#include "tests/support/random_circuit.hpp"
#include "tests/support/temp_files.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::r1cs {
namespace {

namespace fs = std::filesystem;
using test::ReadAll;
using test::TempDir;
using test::WriteAll;
using util::CacheError;

void ExpectSame(const CompactCircuit& x, const CompactCircuit& y) {
  EXPECT_EQ(x.num_inputs, y.num_inputs);
  EXPECT_EQ(x.num_aux, y.num_aux);
  EXPECT_EQ(x.coefficients, y.coefficients);
  for (auto [p, q] : {std::pair{&x.a, &y.a}, {&x.b, &y.b}, {&x.c, &y.c}}) {
    EXPECT_EQ(p->row_offsets, q->row_offsets);
    EXPECT_EQ(p->columns, q->columns);
    EXPECT_EQ(p->codes, q->codes);
    EXPECT_EQ(p->escape_positions, q->escape_positions);
    EXPECT_EQ(p->escape_values, q->escape_values);
  }
}

size_t Escapes(const CompactCircuit& cc) {
  return cc.a.escape_positions.size() + cc.b.escape_positions.size() + cc.c.escape_positions.size();
}

TEST(CompactImage, RoundTripWithAndWithoutEscapes) {
  TempDir dir("cuzk-compact-image-test-");
  auto rng = test::SeededRng();
  for (uint64_t constraints : {1ull, 97ull, 3000ull}) {
    for (size_t max_table : {size_t(3), kMaxCoefficientTable}) {
      const test::RandomCircuit rc =
          test::MakeRandomCircuit({.constraints = constraints, .free_aux = 40, .random_coeff_share = 0.2}, rng);
      const CompactCircuit cc = Compact(rc.circuit, {.max_table = max_table});
      if (max_table == kMaxCoefficientTable) {
        EXPECT_EQ(Escapes(cc), 0u);
      }
      const std::string image = dir.File("c" + std::to_string(constraints) + "-" + std::to_string(max_table));
      const uint64_t source = CircuitImageSource("test-" + std::to_string(constraints));
      const uint64_t written = WriteCompactImage(cc, image, source);
      EXPECT_EQ(written, fs::file_size(image));
      const CompactCircuit read = ReadCompactImage(image, source, 2);
      ExpectSame(read, cc);
      EXPECT_NO_THROW(CheckCompactDescribes(read, rc.circuit, 2));
      EXPECT_THROW(ReadCompactImage(image, CircuitImageSource("other")), CacheError);
    }
  }
}

TEST(CompactImage, EveryDamageIsDetected) {
  TempDir dir("cuzk-compact-image-test-");
  auto rng = test::SeededRng();
  const test::RandomCircuit rc =
      test::MakeRandomCircuit({.constraints = 400, .free_aux = 50, .random_coeff_share = 0.2}, rng);
  const CompactCircuit cc = Compact(rc.circuit, {.max_table = 5});
  ASSERT_GT(Escapes(cc), 0u);
  const std::string image = dir.File("c.compact-image");
  const uint64_t source = 99;
  WriteCompactImage(cc, image, source);
  const std::vector<uint8_t> good = ReadAll(image);
  std::vector<util::CacheSection> sections;
  {
    util::CacheReader r(image, "r1cs-compact/1", source);
    for (const std::string m : {"a", "b", "c"}) {
      for (const char* part : {".offsets", ".columns", ".codes", ".esc_pos", ".esc_val"})
        sections.push_back(r.Section(m + part));
    }
    sections.push_back(r.Section("meta"));
    sections.push_back(r.Section("table"));
  }
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<uint8_t> bad = good;
    const size_t at = size_t(rng() % bad.size());
    bool in_data = at < 4096;
    for (const auto& sec : sections) in_data |= at >= sec.offset && at < sec.offset + sec.bytes;
    if (!in_data) continue;  // alignment padding between sections is read by no one
    bad[at] ^= uint8_t(1u << (rng() % 8));
    WriteAll(image, bad);
    EXPECT_THROW(ReadCompactImage(image, source), CacheError) << "byte " << at;
  }
  for (size_t len : {size_t(0), size_t(100), size_t(4096), good.size() / 2, good.size() - 1}) {
    WriteAll(image, std::vector<uint8_t>(good.begin(), good.begin() + long(len)));
    EXPECT_THROW(ReadCompactImage(image, source), CacheError) << "length " << len;
  }
  WriteAll(image, good);
  EXPECT_NO_THROW(ReadCompactImage(image, source));
  EXPECT_THROW(ReadCompactImage(image, source + 1), CacheError);
  EXPECT_THROW(ReadCompactImage(dir.File("missing"), source), CacheError);
  // A circuit image is not a compact image.
  WriteCircuitImage(rc.circuit, image, source);
  EXPECT_THROW(ReadCompactImage(image, source), CacheError);
}

// Written through the writer (so every digest is right) but not a form the
// kernel can read safely: the reader refuses each.
TEST(CompactImage, ConsistentDigestsInconsistentFormRefused) {
  TempDir dir("cuzk-compact-image-test-");
  auto rng = test::SeededRng();
  const test::RandomCircuit rc =
      test::MakeRandomCircuit({.constraints = 200, .free_aux = 20, .random_coeff_share = 0.2}, rng);
  const CompactCircuit cc = Compact(rc.circuit, {.max_table = 4});
  ASSERT_GE(cc.b.escape_positions.size(), 2u);
  const uint64_t source = 7;
  auto refused = [&](const char* what, auto&& spoil) {
    CompactCircuit bad = cc;
    spoil(bad);
    const std::string path = dir.File(what);
    WriteCompactImage(bad, path, source);
    EXPECT_THROW(ReadCompactImage(path, source), CacheError) << what;
  };
  refused("column", [](CompactCircuit& b) { b.a.columns[3] = uint32_t(b.num_variables()); });
  refused("offsets", [](CompactCircuit& b) { std::swap(b.c.row_offsets[10], b.c.row_offsets[20]); });
  refused("code", [](CompactCircuit& b) { b.b.codes[0] = uint16_t(b.coefficients.size()); });
  refused("escape-order", [](CompactCircuit& b) { std::swap(b.b.escape_positions[0], b.b.escape_positions[1]); });
  refused("escape-count", [](CompactCircuit& b) {
    b.b.codes[b.b.escape_positions.back()] = kCoefficientOne;  // escaped code gone, still listed
  });
  refused("table", [](CompactCircuit& b) { std::swap(b.coefficients[0], b.coefficients[1]); });
}

TEST(CompactImage, CheckRefusesAFormOfAnotherCircuit) {
  auto rng = test::SeededRng();
  const test::RandomCircuit rc =
      test::MakeRandomCircuit({.constraints = 300, .free_aux = 30, .random_coeff_share = 0.2}, rng);
  const CompactCircuit cc = Compact(rc.circuit, {.max_table = 4});
  ASSERT_FALSE(cc.a.escape_values.empty());
  EXPECT_NO_THROW(CheckCompactDescribes(cc, rc.circuit));
  auto differs = [&](const char* what, auto&& spoil) {
    CompiledCircuit other = rc.circuit;
    spoil(other);
    EXPECT_THROW(CheckCompactDescribes(cc, other, 2), CacheError) << what;
  };
  differs("column", [](CompiledCircuit& c) { c.b.columns[5] = (c.b.columns[5] + 1) % uint32_t(c.num_variables()); });
  differs("table coefficient", [&](CompiledCircuit& c) {
    for (size_t k = 0; k < c.c.nonzeros(); ++k) {
      if (cc.c.codes[k] >= 2 && cc.c.codes[k] != kEscapeCode) {
        c.c.values[k] += ff::Fr::One();
        return;
      }
    }
    FAIL() << "no table coefficient in C";
  });
  differs("escape value", [&](CompiledCircuit& c) { c.a.values[cc.a.escape_positions[0]] += ff::Fr::One(); });
  differs("+1 code", [&](CompiledCircuit& c) {
    for (size_t k = 0; k < c.a.nonzeros(); ++k) {
      if (cc.a.codes[k] == kCoefficientOne) {
        c.a.values[k] = ff::Fr::FromUint64(2);
        return;
      }
    }
    FAIL() << "no +1 in A";
  });
  differs("row offsets", [](CompiledCircuit& c) {
    // Move one nonzero from row 0 to row 1 (same total).
    for (size_t r = 1; r < c.a.row_offsets.size(); ++r) {
      if (c.a.row_offsets[r] > 0) {
        --c.a.row_offsets[r];
        return;
      }
    }
  });
  differs("sizes", [](CompiledCircuit& c) { ++c.num_aux; });
}

// A circuit read without its matrices (ReadCircuitImageShell) is checked
// against its compact form by counts and end columns: the compact form of
// the same circuit passes, one of another circuit of other counts does not.
TEST(CompactImage, ShapeCheckAgainstACircuitShell) {
  test::TempDir dir("cuzk-compact-shape-");
  auto rng = test::SeededRng();
  const test::RandomCircuit rc = test::MakeRandomCircuit({.constraints = 300, .free_aux = 30}, rng);
  const std::string image = dir.File("c.circuit-image");
  const uint64_t source = CircuitImageSource("shape-test");
  WriteCircuitImage(rc.circuit, image, source);
  const CompiledCircuit shell = ReadCircuitImageShell(image, source);
  EXPECT_NO_THROW(CheckCompactShape(Compact(rc.circuit), shell));
  const test::RandomCircuit other = test::MakeRandomCircuit({.constraints = 301, .free_aux = 30}, rng);
  EXPECT_THROW(CheckCompactShape(Compact(other.circuit), shell), util::CacheError);
  CompactCircuit moved = Compact(rc.circuit);
  moved.num_aux += 1;
  EXPECT_THROW(CheckCompactShape(moved, shell), util::CacheError);
  CompactCircuit end = Compact(rc.circuit);
  end.b.columns.back() ^= 1;
  EXPECT_THROW(CheckCompactShape(end, shell), util::CacheError);
}

}  // namespace
}  // namespace cuzk::r1cs
