// SnapDeals native (non-circuit) pieces against the upstream vectors of
// specs/snapdeals.md section 11: neptune Poseidon, the Filecoin Poseidon and
// SHA-256 hashers, gen randomness, challenges; plus FIPS 180-4 SHA-256 vectors,
// sector shapes, public inputs, and the test-sector generator with its native
// verifier (dense 2 KiB / 8 KiB, sparse 32 GiB).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/circuits/snapdeals/native/challenges.hpp"
#include "engine/circuits/snapdeals/native/encoding.hpp"
#include "engine/circuits/snapdeals/native/layered_tree.hpp"
#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/sha256.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/native/vanilla_verifier.hpp"
#include "engine/filecoin/commitment.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/filecoin/vanilla_proof_bincode.hpp"
#include "tests/support/test_seed.hpp"
#include "tests/support/time_scale.hpp"

namespace cuzk::snapdeals {
namespace {

using ff::Fr;
using filecoin::SectorShape;

Fr FromLimbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  return Fr::FromCanonical(ff::Limbs<4>{l0, l1, l2, l3});
}

std::vector<Fr> Iota(unsigned n) {
  std::vector<Fr> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(Fr::FromUint64(i));
  return v;
}

std::string Hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) s += {kDigits[b >> 4], kDigits[b & 15]};
  return s;
}

// ---- Poseidon ---------------------------------------------------------------------

// First test of the file, so the constants are built here, by racing threads.
TEST(Poseidon, ConstantsAreBuiltOnceUnderConcurrentFirstUse) {
  std::vector<const PoseidonConstants*> seen(4);
  std::vector<Fr> hashes(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      seen[i] = &GetPoseidonConstants(4);
      hashes[i] = PoseidonMerkleHash(Iota(4));
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 1; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], seen[0]);
    EXPECT_EQ(hashes[i], hashes[0]);
  }
}

TEST(Poseidon, FirstGrainConstantOfWidth9MatchesNeptuneParameterFile) {
  EXPECT_EQ(GetPoseidonConstants(8).round_constants[0].ToHex(),
            "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9");
}

TEST(Poseidon, ConstantSizesPerArity) {
  struct Case {
    unsigned arity, partial;
  };
  for (Case c : {Case{2, 55}, Case{4, 56}, Case{8, 57}, Case{11, 57}}) {
    const auto& k = GetPoseidonConstants(c.arity);
    unsigned t = c.arity + 1;
    EXPECT_EQ(k.width, t);
    EXPECT_EQ(k.partial_rounds, c.partial);
    EXPECT_EQ(k.round_constants.size(), (8 + c.partial) * t);
    EXPECT_EQ(k.compressed_round_constants.size(), 8 * t + c.partial);
    EXPECT_EQ(k.sparse_matrices.size(), c.partial);
    EXPECT_EQ(k.pre_sparse_matrix.n, t);
    for (const auto& s : k.sparse_matrices) {
      EXPECT_EQ(s.w.size(), t);
      EXPECT_EQ(s.v.size(), t - 1);
    }
    // Cauchy MDS: M[i][j] * (i + t + j) = 1, and M * M^-1 = I.
    for (unsigned i = 0; i < t; ++i) {
      for (unsigned j = 0; j < t; ++j) {
        EXPECT_TRUE((k.mds.at(i, j) * Fr::FromUint64(i + t + j)).IsOne());
        Fr dot;
        for (unsigned l = 0; l < t; ++l) dot += k.mds.at(i, l) * k.mds_inverse.at(l, j);
        EXPECT_EQ(dot, i == j ? Fr::One() : Fr::Zero());
      }
    }
  }
  EXPECT_THROW(GetPoseidonConstants(3), std::invalid_argument);
  EXPECT_THROW(GetPoseidonConstants(16), std::invalid_argument);
}

// Spec 7.3 "derived checks" for t = 3.
TEST(Poseidon, OptimizedStaticConstantsArity2) {
  const auto& k = GetPoseidonConstants(2);
  ASSERT_EQ(k.compressed_round_constants.size(), 79u);
  EXPECT_EQ(k.compressed_round_constants[3].ToHex(),
            "0x0bfc421d38531805382624c9d2d2d02b1f2f5590316c401b2f5f56ca2f12a0d1");
  EXPECT_EQ(k.compressed_round_constants[15].ToHex(),
            "0x15ea0de59c6ae7c8b21fd309ef84aba77c2d8e8139c9c08f5cca2138d161fdfd");
  EXPECT_EQ(k.sparse_matrices[0].v[0].ToHex(), "0x58967f7ecb83470ce5990816f118fc84a0713c868c352b00eb409bffd891fcd4");
}

TEST(Poseidon, NeptuneHashValuesVectors) {
  struct Case {
    unsigned arity;
    Fr expected;
  };
  const Case cases[] = {
      {2, FromLimbs(0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b)},
      {4, FromLimbs(0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a)},
      {8, FromLimbs(0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55)},
      {11, FromLimbs(0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28)},
  };
  for (const auto& c : cases) {
    auto in = Iota(c.arity);
    EXPECT_EQ(PoseidonMerkleHash(in), c.expected) << "arity " << c.arity;
    EXPECT_EQ(PoseidonHashReference(in, MerkleTreeTag(c.arity)), c.expected) << "arity " << c.arity;
  }
}

TEST(Poseidon, DomainTags) {
  EXPECT_EQ(MerkleTreeTag(2), Fr::FromUint64(3));
  EXPECT_EQ(MerkleTreeTag(4), Fr::FromUint64(15));
  EXPECT_EQ(MerkleTreeTag(8), Fr::FromUint64(255));
  EXPECT_EQ(MerkleTreeTag(11), Fr::FromUint64(2047));
  EXPECT_EQ(CustomTag(1), Fr::FromUint64(uint64_t(1) << 40));
  // The tag is part of the hash: same preimage, different tags, different values.
  auto in = Iota(2);
  EXPECT_NE(PoseidonHash(in, MerkleTreeTag(2)), PoseidonHash(in, CustomTag(1)));
}

TEST(Poseidon, FilecoinHasherVectors) {
  Fr h10 = PoseidonHash2(Fr::One(), Fr::Zero());
  EXPECT_EQ(h10, FromLimbs(0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3));
  // Binary tree over leaves [1, 0, 0, 1].
  Fr root = PoseidonHash2(h10, PoseidonHash2(Fr::Zero(), Fr::One()));
  EXPECT_EQ(root, FromLimbs(0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb));
}

TEST(Poseidon, GenRandomnessDerivedVectors) {
  EXPECT_EQ(GenRandomness(Fr::Zero(), Fr::Zero()).ToHex(),
            "0x2378125c8da03c26753fb1b88e0e51952e811cc365e44bc06c4fc1b9a38df1b3");
  EXPECT_EQ(GenRandomness(Fr::One(), Fr::FromUint64(2)).ToHex(),
            "0x702c879bafdb05ab3018f4fbc1d4c74854af845cdbb6bb53e40d5f9cb5e92f3c");
}

TEST(Poseidon, OptimizedStaticEqualsReferenceOnRandomInputs) {
  auto rng = test::SeededRng();
  for (unsigned arity : {2u, 4u, 8u, 11u}) {
    for (int i = 0; i < 8; ++i) {
      std::vector<Fr> in;
      for (unsigned j = 0; j < arity; ++j) in.push_back(Fr::Random(rng));
      for (Fr tag : {MerkleTreeTag(arity), CustomTag(1), Fr::Random(rng)}) {
        EXPECT_EQ(PoseidonHash(in, tag), PoseidonHashReference(in, tag)) << "arity " << arity;
      }
    }
  }
}

TEST(Poseidon, RejectsUnsupportedArity) {
  auto in = Iota(3);
  EXPECT_THROW(PoseidonMerkleHash(in), std::invalid_argument);
}

// ---- SHA-256 ----------------------------------------------------------------------

TEST(Sha256, Fips180Vectors) {
  auto hash = [](const std::string& s) {
    return Hex(Sha256Hash(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
  };
  EXPECT_EQ(hash(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      hash("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrs"
           "tnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(hash(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesMatchOneShot) {
  auto rng = test::SeededRng();
  std::vector<uint8_t> data(1000);
  for (auto& b : data) b = uint8_t(rng());
  for (size_t len : {0, 1, 55, 56, 63, 64, 65, 127, 128, 1000}) {
    Sha256 h;
    size_t pos = 0, step = 1;
    while (pos < len) {
      size_t n = std::min(step, len - pos);
      h.Update(std::span<const uint8_t>(data.data() + pos, n));
      pos += n;
      step = step * 3 + 1;
    }
    EXPECT_EQ(h.Final(), Sha256Hash(std::span<const uint8_t>(data.data(), len))) << "len " << len;
  }
}

TEST(Sha256, TreeDNodeHash) {
  filecoin::Domain zero{};
  EXPECT_EQ(Hex(TreeDHash(zero, zero)), "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b");
  // Equals the general SHA-256 of the 64 bytes with the top two bits cleared.
  auto rng = test::SeededRng();
  for (int i = 0; i < 20; ++i) {
    filecoin::Domain a, b;
    for (auto& x : a) x = uint8_t(rng());
    for (auto& x : b) x = uint8_t(rng());
    std::vector<uint8_t> cat(a.begin(), a.end());
    cat.insert(cat.end(), b.begin(), b.end());
    auto d = Sha256Hash(cat);
    d[31] &= 0x3f;
    EXPECT_EQ(TreeDHash(a, b), d);
  }
}

// ---- shapes, challenges, public inputs --------------------------------------------

TEST(SectorShape, SpecTable) {
  struct Row {
    uint64_t bytes, nodes;
    unsigned cbl, sub, top, base_levels, p, pbl, cc, a, abl, rb, cpd, dpp, l, h, h_select;
  };
  const Row rows[] = {
      {2 << 10, 1u << 6, 6, 0, 0, 2, 1, 0, 10, 8, 3, 6, 42, 1, 3, 1, 1},
      {8 << 20, 1u << 18, 18, 0, 0, 6, 4, 2, 10, 128, 7, 16, 15, 1, 9, 10, 8},
      {512 << 20, 1u << 24, 24, 0, 0, 8, 16, 4, 86, 128, 7, 20, 12, 8, 13, 10, 8},
      {32ull << 30, 1u << 30, 30, 8, 0, 9, 16, 4, 86, 128, 7, 26, 9, 10, 19, 10, 8},
      {64ull << 30, 1u << 31, 31, 8, 2, 9, 16, 4, 86, 128, 7, 27, 9, 10, 20, 10, 8},
      // test sizes
      {1 << 10, 1u << 5, 5, 4, 0, 1, 1, 0, 10, 8, 3, 5, 50, 1, 2, 1, 1},
      {4 << 10, 1u << 7, 7, 2, 0, 2, 1, 0, 10, 8, 3, 7, 36, 1, 4, 1, 1},
      {8 << 10, 1u << 8, 8, 4, 0, 2, 1, 0, 10, 8, 3, 8, 31, 1, 5, 1, 1},
      {16 << 10, 1u << 9, 9, 8, 0, 2, 2, 1, 10, 128, 7, 8, 31, 1, 1, 1, 1},
      {32 << 10, 1u << 10, 10, 8, 2, 2, 2, 1, 10, 128, 7, 9, 28, 1, 2, 1, 1},
      {16 << 20, 1u << 19, 19, 2, 0, 6, 4, 2, 10, 128, 7, 17, 14, 1, 10, 10, 8},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(filecoin::FormatSectorSize(r.bytes));
    auto s = SectorShape::FromSectorSize(r.bytes);
    EXPECT_EQ(s.nodes, r.nodes);
    EXPECT_EQ(s.challenge_bit_len, r.cbl);
    EXPECT_EQ(s.base_arity, 8u);
    EXPECT_EQ(s.sub_arity, r.sub);
    EXPECT_EQ(s.top_arity, r.top);
    EXPECT_EQ(s.base_levels, r.base_levels);
    EXPECT_EQ(s.partitions, r.p);
    EXPECT_EQ(s.partition_bit_len, r.pbl);
    EXPECT_EQ(s.challenge_count, r.cc);
    EXPECT_EQ(s.apex_leaf_count, r.a);
    EXPECT_EQ(s.apex_bit_len, r.abl);
    EXPECT_EQ(s.challenge_random_bits, r.rb);
    EXPECT_EQ(s.challenges_per_digest, r.cpd);
    EXPECT_EQ(s.digests_per_partition, r.dpp);
    EXPECT_EQ(s.apex_levels, r.l);
    EXPECT_EQ(s.h, r.h);
    EXPECT_EQ(s.h_select, r.h_select);
    // The TreeR levels consume exactly cbl index bits.
    unsigned bits = 0;
    for (unsigned a : s.TreeRArities()) bits += unsigned(__builtin_ctz(a));
    EXPECT_EQ(bits, s.challenge_bit_len);
  }
}

TEST(SectorShape, KAndHSelectPerSpecSection4) {
  EXPECT_EQ(SectorShape::FromSectorSize(2 << 10).KAndHSelect(0), 1u);
  EXPECT_EQ(SectorShape::FromSectorSize(16 << 10).KAndHSelect(1), 3u);        // k + 2
  EXPECT_EQ(SectorShape::FromSectorSize(8 << 20).KAndHSelect(3), 35u);        // k + 32
  EXPECT_EQ(SectorShape::FromSectorSize(32ull << 30).KAndHSelect(15), 143u);  // k + 128
  EXPECT_EQ(SectorShape::FromSectorSize(64ull << 30).KAndHSelect(0), 128u);
  auto s = SectorShape::FromSectorSize(32ull << 30).WithH(7);
  EXPECT_EQ(s.h_select, 1u);
  EXPECT_EQ(s.KAndHSelect(2), 2u + 16u);
  EXPECT_THROW(SectorShape::FromSectorSize(32ull << 30).WithH(6), std::invalid_argument);
}

TEST(SectorShape, UnsupportedSizesGiveAClearError) {
  for (uint64_t bad : {uint64_t(0), uint64_t(3000), uint64_t(64) << 10, uint64_t(1) << 30, uint64_t(128) << 30}) {
    try {
      SectorShape::FromSectorSize(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("supported: 1KiB, 2KiB"), std::string::npos) << e.what();
    }
  }
}

TEST(SectorShape, ParseSectorSize) {
  EXPECT_EQ(filecoin::ParseSectorSize("2KiB"), 2048u);
  EXPECT_EQ(filecoin::ParseSectorSize("2k"), 2048u);
  EXPECT_EQ(filecoin::ParseSectorSize("8MiB"), 8u << 20);
  EXPECT_EQ(filecoin::ParseSectorSize("32GiB"), 32ull << 30);
  EXPECT_EQ(filecoin::ParseSectorSize("64gb"), 64ull << 30);
  EXPECT_EQ(filecoin::ParseSectorSize("2048"), 2048u);
  EXPECT_THROW(filecoin::ParseSectorSize("KiB"), std::invalid_argument);
  EXPECT_THROW(filecoin::ParseSectorSize("2 parsecs"), std::invalid_argument);
  EXPECT_EQ(filecoin::FormatSectorSize(32ull << 30), "32GiB");
}

// rust-fil-proofs storage-proofs-update challenges.rs test: comm_r_new =
// Fr::random(XorShiftRng::from_seed(TEST_SEED)).
TEST(Challenges, UpstreamVectors) {
  const Fr comm_r_new = Fr::FromHex("0x6c0740d6edb22eb13054f4587d6d2dcbc688f796c303c7044f60429c4bbe1c10");
  struct Case {
    uint64_t bytes;
    unsigned k;
    std::vector<uint64_t> first5;
  };
  const Case cases[] = {
      {1 << 10, 0, {21, 7, 3, 31, 0}},
      {2 << 10, 0, {53, 51, 56, 3, 0}},
      {4 << 10, 0, {117, 25, 62, 0, 72}},
      {8 << 20, 0, {36085, 32783, 44060, 10950, 3731}},
      {8 << 20, 1, {78878, 130797, 112892, 93994, 78379}},
      {512 << 20, 0, {1019125, 116736, 706220, 59698, 799498}},
      {512 << 20, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
      {32ull << 30, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
      {32ull << 30, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
      {64ull << 30, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
  };
  for (const auto& c : cases) {
    auto shape = SectorShape::FromSectorSize(c.bytes);
    auto got = PartitionChallenges(shape, comm_r_new, c.k);
    ASSERT_EQ(got.size(), shape.challenge_count);
    EXPECT_EQ(std::vector<uint64_t>(got.begin(), got.begin() + 5), c.first5) << shape.Name() << " k=" << c.k;
    for (uint64_t ch : got) {
      EXPECT_LT(ch, shape.nodes);
      EXPECT_EQ(ch >> shape.challenge_random_bits, c.k);
    }
  }
  EXPECT_THROW(PartitionChallenges(SectorShape::FromSectorSize(2 << 10), comm_r_new, 1), std::out_of_range);
}

TEST(Encoding, RhoRegionsAndRoundTrip) {
  auto shape = SectorShape::FromSectorSize(8 << 20);
  EXPECT_EQ(RhoHigh(shape, 0), 0u);
  EXPECT_EQ(RhoHigh(shape, (1u << 18) - 1), 1023u);
  EXPECT_EQ(RhoHigh(shape, 1u << 8), 1u);
  Fr phi = Phi(Fr::FromUint64(5), Fr::FromUint64(6));
  EXPECT_EQ(phi, GenRandomness(Fr::FromUint64(5), Fr::FromUint64(6)));
  auto table = RhoTable(shape, phi, 2);
  ASSERT_EQ(table.size(), 1024u);
  EXPECT_EQ(table[77], GenRandomness(phi, Fr::FromUint64(77)));
  Fr old = Fr::FromUint64(1234), data = Fr::FromUint64(99);
  Fr enc = EncodeLabel(old, data, table[3]);
  EXPECT_EQ(enc, old + data * table[3]);
  EXPECT_EQ(DecodeLabel(enc, old, table[3]), data);
}

TEST(PublicInputs, OrderAndCommitmentChecks) {
  auto shape = SectorShape::FromSectorSize(8 << 20);
  filecoin::Commitments comms;
  comms.comm_r_old = filecoin::DomainFromFr(Fr::FromUint64(11));
  comms.comm_d_new = filecoin::DomainFromFr(Fr::FromUint64(22));
  comms.comm_r_new = filecoin::DomainFromFr(Fr::FromUint64(33));
  auto in = PartitionPublicInputs(shape, 2, comms).AsArray();
  EXPECT_EQ(in[0], Fr::FromUint64(2 + 32));
  EXPECT_EQ(in[1], Fr::FromUint64(11));
  EXPECT_EQ(in[2], Fr::FromUint64(22));
  EXPECT_EQ(in[3], Fr::FromUint64(33));
  EXPECT_THROW(PartitionPublicInputs(shape, 4, comms), std::out_of_range);
  comms.comm_d_new.fill(0xff);  // >= modulus
  try {
    PartitionPublicInputs(shape, 0, comms);
    ADD_FAILURE();
  } catch (const filecoin::CommitmentError& e) {
    EXPECT_NE(std::string(e.what()).find("comm_d_new"), std::string::npos) << e.what();
  }
}

TEST(Commitment, HexRoundTripAndCanonicalCheck) {
  Fr x = Fr::FromHex("0x6c0740d6edb22eb13054f4587d6d2dcbc688f796c303c7044f60429c4bbe1c10");
  auto d = filecoin::DomainFromFr(x);
  EXPECT_EQ(d[0], 0x10);  // little-endian storage order
  std::string hex = filecoin::DomainToHex(d);
  EXPECT_EQ(hex.substr(0, 4), "101c");
  EXPECT_EQ(filecoin::DomainFromHex(hex, "x"), d);
  EXPECT_EQ(filecoin::DomainFromHex("0x" + hex, "x"), d);
  EXPECT_EQ(filecoin::DomainToFr(d, "x"), x);
  // The modulus itself (little-endian) is the smallest non-canonical value.
  std::string modulus_le = "01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73";
  EXPECT_THROW(filecoin::DomainFromHex(modulus_le, "comm_r_old"), filecoin::CommitmentError);
  EXPECT_THROW(filecoin::DomainFromHex(hex.substr(2), "comm_r_old"), filecoin::CommitmentError);
  EXPECT_THROW(filecoin::DomainFromHex(std::string(63, '0') + "g", "comm_r_old"), filecoin::CommitmentError);
}

// ---- layered trees ----------------------------------------------------------------

// A sparse tree (region defaults + overrides) equals the dense tree over the
// expanded leaves: same root, same node values, same paths.
TEST(LayeredTree, SparseEqualsDense) {
  auto rng = test::SeededRng();
  // A cheap, order-sensitive hash: the tree logic does not depend on the hash.
  auto hash = [](std::span<const Fr> c) {
    Fr acc = Fr::FromUint64(7);
    for (const Fr& x : c) acc = acc * Fr::FromUint64(1000003) + x * x + x;
    return acc;
  };
  const uint64_t n = uint64_t(1) << 16;
  const std::vector<unsigned> arities = {8, 8, 8, 8, 8, 2};  // 2^16 leaves, sparse up to level 2 (128 regions of 512)
  const uint64_t region = 512;
  std::vector<Fr> defaults(n / region);
  for (auto& d : defaults) d = Fr::Random(rng);
  std::unordered_map<uint64_t, Fr> overrides;
  for (int i = 0; i < 40; ++i) overrides[rng() % n] = Fr::Random(rng);
  std::vector<Fr> dense(n);
  for (uint64_t i = 0; i < n; ++i) dense[i] = overrides.count(i) ? overrides[i] : defaults[i / region];
  std::vector<uint64_t> probes = {0, n - 1, overrides.begin()->first, rng() % n, rng() % n};
  LayeredTree<Fr> sparse_tree(LayeredTree<Fr>::Leaves::Sparse(n, region, defaults, overrides), arities, hash, 1);
  LayeredTree<Fr> dense_tree(LayeredTree<Fr>::Leaves::Dense(dense), arities, hash, 2);
  EXPECT_EQ(sparse_tree.Root(), dense_tree.Root());
  for (unsigned level = 0; level <= arities.size(); ++level) {
    for (int i = 0; i < 20; ++i) {
      uint64_t j = rng() % sparse_tree.LevelSize(level);
      ASSERT_EQ(sparse_tree.At(level, j), dense_tree.At(level, j)) << level << " " << j;
    }
  }
  for (uint64_t leaf : probes) {
    auto a = sparse_tree.Path(leaf), b = dense_tree.Path(leaf);
    ASSERT_EQ(a.size(), b.size());
    for (size_t l = 0; l < a.size(); ++l) {
      EXPECT_EQ(a[l].index, b[l].index);
      EXPECT_EQ(a[l].siblings, b[l].siblings);
    }
  }
}

// ---- test sectors and the native verifier -------------------------------------------

TestSector Generate(uint64_t bytes, uint64_t seed, TestSectorOptions::Mode mode = TestSectorOptions::Mode::kAuto,
                    std::vector<unsigned> partitions = {}) {
  TestSectorOptions o;
  o.sector_bytes = bytes;
  o.seed = seed;
  o.mode = mode;
  o.partitions = std::move(partitions);
  return GenerateTestSector(o);
}

void ExpectRejected(const TestSector& s, unsigned k, const filecoin::Commitments& comms,
                    const filecoin::PartitionProof& p, const std::string& message) {
  try {
    VerifyPartitionProof(s.shape, k, comms, p);
    ADD_FAILURE() << "accepted (expected: " << message << ")";
  } catch (const VanillaProofError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(TestSector, DeterministicFromTheSeed) {
  auto a = Generate(2 << 10, 11), b = Generate(2 << 10, 11), c = Generate(2 << 10, 12);
  EXPECT_EQ(a.commitments.comm_r_new, b.commitments.comm_r_new);
  EXPECT_EQ(a.partition_proofs, b.partition_proofs);
  EXPECT_NE(a.commitments.comm_d_new, c.commitments.comm_d_new);
  EXPECT_NE(a.commitments.comm_r_old, c.commitments.comm_r_old);
}

// The generator's commitments follow spec section 2 from its own trees.
TEST(TestSector, CommitmentsAndEncodingFollowTheSpec) {
  auto s = Generate(2 << 10, 5);
  const auto& p = s.partition_proofs[0];
  Fr comm_c = filecoin::DomainToFr(p.comm_c, "comm_c");
  EXPECT_EQ(filecoin::DomainFromFr(PoseidonHash2(comm_c, filecoin::DomainToFr(s.root_r_old, "r"))),
            s.commitments.comm_r_old);
  EXPECT_EQ(filecoin::DomainFromFr(PoseidonHash2(comm_c, filecoin::DomainToFr(s.root_r_new, "r"))),
            s.commitments.comm_r_new);
  // 2 KiB: the data is node i of the seeded data stream; check the TreeD leaf of challenge 0.
  auto challenges = PartitionChallenges(s.shape, filecoin::DomainToFr(s.commitments.comm_r_new, "c"), 0);
  EXPECT_EQ(p.challenge_proofs[0].proof_d_new.leaf, TestSectorNode(5, TestSectorStream::kData, challenges[0]));
  // Decoding recovers the data from the two replicas.
  Fr phi =
      Phi(filecoin::DomainToFr(s.commitments.comm_d_new, "d"), filecoin::DomainToFr(s.commitments.comm_r_old, "r"));
  for (size_t i = 0; i < challenges.size(); ++i) {
    const auto& cp = p.challenge_proofs[i];
    Fr rho = Rho(phi, RhoHigh(s.shape, challenges[i]));
    EXPECT_EQ(DecodeLabel(filecoin::DomainToFr(cp.proof_r_new.leaf, "n"),
                          filecoin::DomainToFr(cp.proof_r_old.leaf, "o"), rho),
              filecoin::DomainToFr(cp.proof_d_new.leaf, "d"));
  }
}

TEST(TestSector, Generated2KiBAnd8KiBVerify) {
  for (uint64_t bytes : {uint64_t(2) << 10, uint64_t(8) << 10}) {
    auto s = Generate(bytes, 42);
    ASSERT_EQ(s.partition_proofs.size(), s.shape.partitions);
    for (size_t i = 0; i < s.partition_proofs.size(); ++i) {
      EXPECT_NO_THROW(VerifyPartitionProof(s.shape, s.partition_indices[i], s.commitments, s.partition_proofs[i]));
      // Through the wire format and back.
      auto bytes_out = filecoin::WritePartitionProof(s.partition_proofs[i]);
      EXPECT_EQ(bytes_out.size(), filecoin::PartitionProofSize(s.shape));
      EXPECT_NO_THROW(VerifyPartitionProof(s.shape, s.partition_indices[i], s.commitments,
                                           filecoin::ReadPartitionProof(bytes_out, s.shape)));
    }
  }
}

TEST(TestSector, MultiPartitionSizesVerify) {
  // 16 KiB: 2 partitions, TreeR 8-8-0 (Sub); 32 KiB: 8-8-2 (Top); 1 KiB/4 KiB: arity-4/2 sub levels.
  for (uint64_t bytes : {uint64_t(1) << 10, uint64_t(4) << 10, uint64_t(16) << 10, uint64_t(32) << 10}) {
    auto s = Generate(bytes, 9);
    EXPECT_EQ(s.partition_proofs.size(), s.shape.partitions) << s.shape.Name();
    // Partition proofs are not interchangeable.
    if (s.shape.partitions > 1) {
      ExpectRejected(s, 1, s.commitments, s.partition_proofs[0], "");
    }
  }
}

TEST(TestSector, EveryFlippedBitIsRejected) {
  auto s = Generate(2 << 10, 42);
  const auto good = filecoin::WritePartitionProof(s.partition_proofs[0]);
  auto rng = test::SeededRng();
  // Flipping all 120,512 bits is too slow for a unit test: take one bit of every
  // byte of the first 600 (comm_c, apex leaves, the start of challenge 0) plus
  // 300 random bits anywhere.
  std::vector<size_t> bits;
  for (size_t b = 0; b < 600 * 8; b += 8) bits.push_back(b + (b / 8) % 8);
  for (int i = 0; i < 300; ++i) bits.push_back(rng() % (good.size() * 8));
  for (size_t bit : bits) {
    auto b = good;
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
    try {
      auto p = filecoin::ReadPartitionProof(b, s.shape);
      VerifyPartitionProof(s.shape, 0, s.commitments, p);
      ADD_FAILURE() << "accepted a proof with bit " << bit << " flipped";
      return;
    } catch (const filecoin::BincodeError&) {
    } catch (const VanillaProofError&) {
    }
  }
}

TEST(TestSector, WrongCommitmentsOrPartitionAreRejected) {
  auto s = Generate(8 << 10, 1);
  const auto& p = s.partition_proofs[0];
  auto comms = s.commitments;
  comms.comm_r_old[0] ^= 1;
  ExpectRejected(s, 0, comms, p, "comm_r_old != H(comm_c, root_r_old)");
  comms = s.commitments;
  comms.comm_d_new[5] ^= 1;
  ExpectRejected(s, 0, comms, p, "do not reach comm_d_new");
  comms = s.commitments;
  comms.comm_r_new[0] ^= 1;
  ExpectRejected(s, 0, comms, p, "comm_r_new != H(comm_c, root_r_new)");
  comms = s.commitments;
  comms.comm_r_new.fill(0xff);
  ExpectRejected(s, 0, comms, p, "comm_r_new: not a canonical field element");
  // Wrong label: encoding relation.
  auto q = p;
  q.challenge_proofs[3].proof_r_new.leaf = q.challenge_proofs[3].proof_r_old.leaf;
  ExpectRejected(s, 0, s.commitments, q, "label_r_new != label_r_old + label_d_new * rho");
  // Swapped challenge proofs: indices no longer spell the challenges.
  q = p;
  std::swap(q.challenge_proofs[1], q.challenge_proofs[2]);
  ExpectRejected(s, 0, s.commitments, q, ".index");
  // Missing challenge.
  q = p;
  q.challenge_proofs.pop_back();
  ExpectRejected(s, 0, s.commitments, q, "challenge_proofs: 9 entries, expected 10");
}

TEST(TestSector, ProofsForAnotherHDoNotVerifyUnderTheDefaultH) {
  TestSectorOptions o;
  o.sector_bytes = 8 << 20;
  o.seed = 3;
  o.h = 7;
  o.mode = TestSectorOptions::Mode::kSparse;
  o.partitions = {2};
  auto s = GenerateTestSector(o);  // self-checked under h = 7
  EXPECT_EQ(s.shape.h, 7u);
  EXPECT_EQ(s.shape.KAndHSelect(2), 2u + 4u);
  auto default_shape = filecoin::SectorShape::FromSectorSize(8 << 20);
  EXPECT_THROW(VerifyPartitionProof(default_shape, 2, s.commitments, s.partition_proofs[0]), VanillaProofError);
}

TEST(TestSector, SparseModeMatchesDenseModeOnTheSameContent) {
  // A sparse 8 KiB sector is a dense sector whose non-override nodes hold the
  // defaults: regenerate it densely from those leaves and compare roots.
  TestSectorOptions o;
  o.sector_bytes = 8 << 10;
  o.seed = 77;
  o.mode = TestSectorOptions::Mode::kSparse;
  o.sparse_random_nodes = 5;
  auto sparse = GenerateTestSector(o);
  EXPECT_TRUE(sparse.sparse);
  // Rebuild TreeD densely from the sparse content.
  const uint64_t n = sparse.shape.nodes;
  std::vector<filecoin::Domain> data(n, TestSectorNode(77, TestSectorStream::kSparseDefaults, 0));
  size_t overridden = 0;
  for (uint64_t i = 0; i < 4 * n && overridden < 5; ++i) {
    filecoin::Domain d = TestSectorNode(77, TestSectorStream::kSparsePositions, i);
    uint64_t pos = d[0] & (n - 1);
    auto real = TestSectorNode(77, TestSectorStream::kData, pos);
    if (data[pos] != real) {
      data[pos] = real;
      ++overridden;
    }
  }
  LayeredTree<filecoin::Domain> tree_d(LayeredTree<filecoin::Domain>::Leaves::Dense(data),
                                       std::vector<unsigned>(sparse.shape.challenge_bit_len, 2),
                                       [](std::span<const filecoin::Domain> c) { return TreeDHash(c[0], c[1]); });
  EXPECT_EQ(tree_d.Root(), sparse.commitments.comm_d_new);
}

TEST(TestSector, Sparse32GiBOnePartition) {
  auto start = std::chrono::steady_clock::now();
  auto s = Generate(32ull << 30, 2024, TestSectorOptions::Mode::kAuto, {5});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("sparse 32GiB, 1 partition (generate + self-check): %.2f s\n", seconds);
  EXPECT_TRUE(s.sparse);
  ASSERT_EQ(s.partition_proofs.size(), 1u);
  EXPECT_EQ(s.partition_indices[0], 5u);
  const auto& p = s.partition_proofs[0];
  EXPECT_EQ(filecoin::WritePartitionProof(p).size(), 561768u);
  EXPECT_NO_THROW(VerifyPartitionProof(s.shape, 5, s.commitments, p));
  ExpectRejected(s, 4, s.commitments, p, "");
  EXPECT_EQ(p.challenge_proofs[0].proof_r_old.kind, filecoin::MerkleProofKind::kSub);
  // Sparse generation takes seconds; a dense 32 GiB sector would take far
  // longer. Scaled for a sanitizer build, which is slower but not dense.
  EXPECT_LT(seconds, 30.0 * test::TimeScale());
}

TEST(TestSector, BadOptionsAreRefused) {
  TestSectorOptions o;
  o.sector_bytes = 3 << 10;
  EXPECT_THROW(GenerateTestSector(o), std::invalid_argument);
  o.sector_bytes = 2 << 10;
  o.partitions = {1};
  EXPECT_THROW(GenerateTestSector(o), std::invalid_argument);
  o.partitions = {};
  o.h = 7;
  EXPECT_THROW(GenerateTestSector(o), std::invalid_argument);
}

}  // namespace
}  // namespace cuzk::snapdeals
