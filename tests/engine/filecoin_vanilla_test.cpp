// The SnapDeals vanilla PartitionProof bincode format (spec section 8): sizes
// per sector shape, write/read round trips, and refusal of malformed input
// (truncation at every offset, oversized lengths, wrong variants, out-of-range
// indices, non-canonical values, trailing bytes) with errors that name the field.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/filecoin/base64.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::filecoin {
namespace {

constexpr uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

Domain RandomDomain(std::mt19937_64& rng) {
  Domain d;
  for (auto& b : d) b = uint8_t(rng());
  d[31] &= 0x3f;
  return d;
}

MerkleProof RandomMerkleProof(std::mt19937_64& rng, MerkleProofKind kind, const std::vector<unsigned>& arities) {
  MerkleProof p;
  p.kind = kind;
  p.root = RandomDomain(rng);
  p.leaf = RandomDomain(rng);
  for (unsigned a : arities) {
    PathElement e;
    for (unsigned i = 0; i + 1 < a; ++i) e.hashes.push_back(RandomDomain(rng));
    e.index = rng() % a;
    p.path.push_back(std::move(e));
  }
  return p;
}

// Structurally valid for the shape, content random (not a verifiable proof).
PartitionProof RandomPartitionProof(std::mt19937_64& rng, const SectorShape& shape) {
  PartitionProof p;
  p.comm_c = RandomDomain(rng);
  for (unsigned i = 0; i < shape.apex_leaf_count; ++i) p.apex_leafs.push_back(RandomDomain(rng));
  for (unsigned i = 0; i < shape.challenge_count; ++i) {
    ChallengeProof c;
    c.proof_r_old = RandomMerkleProof(rng, shape.TreeRKind(), shape.TreeRArities());
    c.proof_d_new = RandomMerkleProof(rng, MerkleProofKind::kSingle, std::vector<unsigned>(shape.challenge_bit_len, 2));
    c.proof_r_new = RandomMerkleProof(rng, shape.TreeRKind(), shape.TreeRArities());
    p.challenge_proofs.push_back(std::move(c));
  }
  return p;
}

void PutU64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// Expects ReadPartitionProof to throw a BincodeError whose field and message contain the given text.
void ExpectBincodeError(const std::vector<uint8_t>& bytes, const SectorShape& shape, const std::string& field,
                        const std::string& message) {
  try {
    ReadPartitionProof(bytes, shape);
    ADD_FAILURE() << "accepted malformed input (expected error in " << field << ")";
  } catch (const BincodeError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(VanillaBincode, PerPartitionSizesMatchSpec) {
  EXPECT_EQ(PartitionProofSize(SectorShape::FromSectorSize(2 * KiB)), 15064u);
  EXPECT_EQ(PartitionProofSize(SectorShape::FromSectorSize(8 * MiB)), 43864u);
  EXPECT_EQ(PartitionProofSize(SectorShape::FromSectorSize(512 * MiB)), 453064u);
  EXPECT_EQ(PartitionProofSize(SectorShape::FromSectorSize(32 * GiB)), 561768u);
  EXPECT_EQ(PartitionProofSize(SectorShape::FromSectorSize(64 * GiB)), 575528u);
}

TEST(VanillaBincode, RoundTripEveryShape) {
  auto rng = test::SeededRng();
  for (uint64_t bytes : SupportedSectorSizes()) {
    auto shape = SectorShape::FromSectorSize(bytes);
    SCOPED_TRACE(shape.Name());
    PartitionProof p = RandomPartitionProof(rng, shape);
    auto enc = WritePartitionProof(p);
    EXPECT_EQ(enc.size(), PartitionProofSize(shape));
    EXPECT_EQ(ReadPartitionProof(enc, shape), p);
    EXPECT_EQ(WritePartitionProof(ReadPartitionProof(enc, shape)), enc);
  }
}

TEST(VanillaBincode, LayoutOfA2KiBProof) {
  auto rng = test::SeededRng();
  auto shape = SectorShape::FromSectorSize(2 * KiB);
  PartitionProof p = RandomPartitionProof(rng, shape);
  auto b = WritePartitionProof(p);
  // comm_c, then u64 8 and the apex leaves, then u64 10 challenges.
  EXPECT_TRUE(std::equal(p.comm_c.begin(), p.comm_c.end(), b.begin()));
  EXPECT_EQ(b[32], 8);
  EXPECT_TRUE(std::all_of(b.begin() + 33, b.begin() + 40, [](uint8_t x) { return x == 0; }));
  EXPECT_EQ(b[40 + 8 * 32], 10);
  // First ProofData: variant 0 (Single) u32, root, leaf, u64 2 levels, u64 7 hashes.
  size_t at = 40 + 8 * 32 + 8;
  EXPECT_EQ(std::vector<uint8_t>(b.begin() + at, b.begin() + at + 4), (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_TRUE(std::equal(p.challenge_proofs[0].proof_r_old.root.begin(), p.challenge_proofs[0].proof_r_old.root.end(),
                         b.begin() + at + 4));
  EXPECT_EQ(b[at + 4 + 64], 2);
  EXPECT_EQ(b[at + 4 + 64 + 8], 7);
  // The index follows the 7 hashes.
  EXPECT_EQ(b[at + 4 + 64 + 16 + 7 * 32], p.challenge_proofs[0].proof_r_old.path[0].index);
}

TEST(VanillaBincode, SubAndTopProofsSplitTheLastLevels) {
  auto rng = test::SeededRng();
  auto shape = SectorShape::FromSectorSize(64 * GiB);  // 8-8-2: Top
  PartitionProof p = RandomPartitionProof(rng, shape);
  auto b = WritePartitionProof(p);
  size_t at = 40 + 128 * 32 + 8;
  EXPECT_EQ(b[at], 2);      // variant Top
  EXPECT_EQ(b[at + 4], 9);  // base_proof: 9 levels
  size_t sub = at + 4 + 8 + 9 * (8 + 7 * 32 + 8);
  EXPECT_EQ(b[sub], 1);      // sub_proof: 1 level
  EXPECT_EQ(b[sub + 8], 7);  // of 7 hashes
  size_t top = sub + 8 + 8 + 7 * 32 + 8;
  EXPECT_EQ(b[top], 1);      // top_proof: 1 level
  EXPECT_EQ(b[top + 8], 1);  // of 1 hash
  // root and leaf come last.
  size_t root = top + 8 + 8 + 32 + 8;
  const auto& pr = p.challenge_proofs[0].proof_r_old;
  EXPECT_TRUE(std::equal(pr.root.begin(), pr.root.end(), b.begin() + root));
  EXPECT_TRUE(std::equal(pr.leaf.begin(), pr.leaf.end(), b.begin() + root + 32));
}

TEST(VanillaBincode, GeneratedProofsRoundTrip) {
  snapdeals::TestSectorOptions o;
  o.sector_bytes = 2 * KiB;
  o.seed = 3;
  auto sector = snapdeals::GenerateTestSector(o);
  auto enc = WritePartitionProof(sector.partition_proofs[0]);
  EXPECT_EQ(enc.size(), 15064u);
  EXPECT_EQ(ReadPartitionProof(enc, sector.shape), sector.partition_proofs[0]);
}

TEST(VanillaBincode, TruncationAtEveryOffsetIsRefused) {
  auto rng = test::SeededRng();
  auto shape = SectorShape::FromSectorSize(2 * KiB);
  auto full = WritePartitionProof(RandomPartitionProof(rng, shape));
  for (size_t len = 0; len < full.size(); ++len) {
    try {
      ReadPartitionProof(std::span<const uint8_t>(full.data(), len), shape);
      ADD_FAILURE() << "accepted a proof truncated to " << len << " bytes";
      break;
    } catch (const BincodeError& e) {
      if (std::string(e.what()).find("truncated input") == std::string::npos || e.field().empty()) {
        ADD_FAILURE() << "length " << len << ": " << e.what();
        break;
      }
    }
  }
}

TEST(VanillaBincode, ErrorsNameTheField) {
  auto rng = test::SeededRng();
  auto shape = SectorShape::FromSectorSize(2 * KiB);
  const auto good = WritePartitionProof(RandomPartitionProof(rng, shape));
  ExpectBincodeError(std::vector<uint8_t>(good.begin(), good.begin() + 100), shape, "apex_leafs[1]", "truncated input");

  auto b = good;
  PutU64(b, 32, uint64_t(1) << 62);  // absurd apex length: refused before any allocation
  ExpectBincodeError(b, shape, "apex_leafs", "length 4611686018427387904, expected 8");

  b = good;
  const size_t challenges_at = 40 + 8 * 32;
  PutU64(b, challenges_at, ~uint64_t(0));
  ExpectBincodeError(b, shape, "challenge_proofs", "expected 10");

  const size_t first_proof = challenges_at + 8;
  b = good;
  b[first_proof] = 1;
  ExpectBincodeError(b, shape, "challenge_proofs[0].proof_r_old.variant", "variant 1 (Sub), expected 0 (Single)");
  b[first_proof] = 7;
  ExpectBincodeError(b, shape, "challenge_proofs[0].proof_r_old.variant", "variant 7 (unknown)");

  b = good;
  PutU64(b, first_proof + 4 + 64, 3);  // levels of TreeR path
  ExpectBincodeError(b, shape, "challenge_proofs[0].proof_r_old.path", "length 3, expected 2");

  b = good;
  PutU64(b, first_proof + 4 + 64 + 8, uint64_t(1) << 40);  // hashes per level
  ExpectBincodeError(b, shape, "challenge_proofs[0].proof_r_old.path[0].hashes", "expected 7");

  b = good;
  PutU64(b, first_proof + 4 + 64 + 16 + 7 * 32, 8);  // index >= arity
  ExpectBincodeError(b, shape, "challenge_proofs[0].proof_r_old.path[0].index", "value 8 out of range for an arity-8");

  b = good;
  for (int i = 0; i < 32; ++i) b[i] = 0xff;  // comm_c >= modulus
  ExpectBincodeError(b, shape, "comm_c", "not a canonical");

  b = good;
  b[first_proof + 4 + 63] = 0x80;  // leaf of the first TreeR proof >= modulus
  ExpectBincodeError(b, shape, "challenge_proofs[0].proof_r_old.leaf", "not a canonical");

  // The second challenge's TreeD proof gets a wrong level count.
  const size_t tree_r = 4 + 64 + 8 + 2 * (8 + 7 * 32 + 8);
  const size_t tree_d = 4 + 64 + 8 + 6 * (8 + 32 + 8);
  b = good;
  PutU64(b, first_proof + (2 * tree_r + tree_d) + tree_r + 4 + 64, 5);
  ExpectBincodeError(b, shape, "challenge_proofs[1].proof_d_new.path", "length 5, expected 6");

  b = good;
  b.push_back(0);
  ExpectBincodeError(b, shape, "(end)", "1 trailing bytes");

  // Right bytes, wrong shape: a 2 KiB proof read as 8 KiB (TreeR 8-4-0: Sub).
  try {
    ReadPartitionProof(good, SectorShape::FromSectorSize(8 * KiB));
    ADD_FAILURE();
  } catch (const BincodeError& e) {
    EXPECT_EQ(e.field(), "challenge_proofs[0].proof_r_old.variant") << e.what();
  }
}

TEST(VanillaBincode, RandomCorruptionNeverCrashes) {
  auto rng = test::SeededRng();
  auto shape = SectorShape::FromSectorSize(32 * KiB);  // Top proofs
  const auto good = WritePartitionProof(RandomPartitionProof(rng, shape));
  for (int trial = 0; trial < 300; ++trial) {
    auto b = good;
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= uint8_t(1u << (rng() % 8));
    if (rng() % 4 == 0) b.resize(rng() % b.size());
    try {
      auto p = ReadPartitionProof(b, shape);
      EXPECT_EQ(WritePartitionProof(p), b);  // accepted only if it re-encodes to the same bytes
    } catch (const BincodeError&) {
    }
  }
}

TEST(VanillaBincode, WriterRefusesUnrepresentableProofs) {
  PartitionProof p;
  ChallengeProof c;
  c.proof_r_old.kind = MerkleProofKind::kTop;
  c.proof_r_old.path.resize(1);
  p.challenge_proofs.push_back(c);
  EXPECT_THROW(WritePartitionProof(p), std::invalid_argument);
}

// RFC 4648 section 10 vectors; Curio/Go encode vanilla proofs this way in JSON.
TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string, std::string> cases[] = {{"", ""},
                                                       {"f", "Zg=="},
                                                       {"fo", "Zm8="},
                                                       {"foo", "Zm9v"},
                                                       {"foob", "Zm9vYg=="},
                                                       {"fooba", "Zm9vYmE="},
                                                       {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : cases) {
    std::vector<uint8_t> bytes(plain.begin(), plain.end());
    EXPECT_EQ(Base64Encode(bytes), encoded);
    EXPECT_EQ(Base64Decode(encoded), bytes);
  }
  auto rng = test::SeededRng();
  std::vector<uint8_t> bytes(1000);
  for (auto& b : bytes) b = uint8_t(rng());
  for (size_t len : {0, 1, 2, 3, 998, 999, 1000}) {
    std::vector<uint8_t> v(bytes.begin(), bytes.begin() + len);
    EXPECT_EQ(Base64Decode(Base64Encode(v)), v);
  }
}

TEST(Base64, MalformedInputIsRefused) {
  for (const char* bad : {"Zg=", "Zg", "Z===", "Zm9v!A==", "Zg==Zg==", "Zh==", "Zm9=", "=Zg="}) {
    EXPECT_THROW(Base64Decode(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace cuzk::filecoin
