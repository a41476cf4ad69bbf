// The SnapDeals EmptySectorUpdate circuit and its gadgets.
//
// Counts pin the structure: every upstream-asserted total (spec section 1),
// the model totals for 8/16 MiB, 512 MiB, 64 GiB, aux and A/B densities from
// snapdeals-ref/r1cs_sim.py (spec section 9). Gadgets are checked against the
// native hashes and upstream's per-gadget counts. Check mode runs the circuit
// on GenerateTestSector sectors (satisfied; any changed commitment names the
// first failing row), and the native witness path must equal the gadget path.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/circuits/snapdeals/counting_cs.hpp"
#include "engine/circuits/snapdeals/empty_sector_update_circuit.hpp"
#include "engine/circuits/snapdeals/gadgets/insert.hpp"
#include "engine/circuits/snapdeals/gadgets/num.hpp"
#include "engine/circuits/snapdeals/gadgets/por.hpp"
#include "engine/circuits/snapdeals/gadgets/poseidon.hpp"
#include "engine/circuits/snapdeals/gadgets/select.hpp"
#include "engine/circuits/snapdeals/gadgets/sha256.hpp"
#include "engine/circuits/snapdeals/gadgets/tree_d_hash.hpp"
#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/circuits/snapdeals/native/public_inputs.hpp"
#include "engine/circuits/snapdeals/native/sha256.hpp"
#include "engine/circuits/snapdeals/native/test_sector.hpp"
#include "engine/circuits/snapdeals/witness/native_witness.hpp"
#include "engine/circuits/snapdeals/witness/poseidon_witness.hpp"
#include "engine/circuits/snapdeals/witness/sha256_witness.hpp"
#include "engine/filecoin/sector_shape.hpp"
#include "engine/groth16/params_io.hpp"
#include "engine/r1cs/checking.hpp"
#include "engine/r1cs/record.hpp"
#include "engine/r1cs/witness.hpp"
#include "tests/support/test_seed.hpp"

namespace cuzk::snapdeals {
namespace {

using ff::Fr;
using filecoin::SectorShape;
using gadgets::AllocatedBit;
using gadgets::Boolean;
using r1cs::Variable;

Fr FromLimbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  return Fr::FromCanonical(ff::Limbs<4>{l0, l1, l2, l3});
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct ExpectedCount {
  uint64_t sector_bytes;
  uint64_t constraints;
  uint64_t aux;  // 0: no figure in the spec
  unsigned domain_log2;
};

// Upstream-asserted: 1/2/4/8/16/32 KiB and 32 GiB. Model (count.py and
// r1cs_sim.py agree): 8 MiB, 16 MiB, 512 MiB, 64 GiB. Aux: r1cs_sim.py.
constexpr ExpectedCount kExpected[] = {
    {1ull << 10, 1248389, 0, 21},           {2ull << 10, 1705039, 1703569, 21},
    {4ull << 10, 2165109, 0, 22},           {8ull << 10, 2620359, 0, 22},
    {16ull << 10, 6300021, 0, 23},          {32ull << 10, 6760091, 0, 23},
    {8ull << 20, 10007503, 9998039, 24},    {16ull << 20, 10467573, 0, 24},
    {512ull << 20, 57450479, 57401314, 26}, {32ull << 30, 81049499, 80978488, 27},
    {64ull << 30, 85006101, 84931220, 27},
};

TEST(SnapCircuitCount, EveryShapeMatchesTheUpstreamAndModelTotals) {
  for (const auto& e : kExpected) {
    auto t0 = std::chrono::steady_clock::now();
    SectorShape shape = SectorShape::FromSectorSize(e.sector_bytes);
    CircuitCounts c = CountEmptySectorUpdate(shape);
    std::printf("%-7s constraints %10llu inputs %llu aux %10llu domain 2^%u  (%.2f s)\n", shape.Name().c_str(),
                (unsigned long long)c.constraints, (unsigned long long)c.inputs, (unsigned long long)c.aux,
                c.DomainLog2(), SecondsSince(t0));
    EXPECT_EQ(c.constraints, e.constraints) << shape.Name();
    EXPECT_EQ(c.inputs, 5u) << shape.Name();
    if (e.aux) {
      EXPECT_EQ(c.aux, e.aux) << shape.Name();
    }
    // The native witness path's fixed layout has the circuit's aux count.
    EXPECT_EQ(witness::EmptySectorUpdateAuxCount(shape), c.aux) << shape.Name();
    EXPECT_EQ(c.DomainLog2(), e.domain_log2) << shape.Name();
  }
}

TEST(SnapCircuitCount, TwoKiBDensitiesMatchTheR1csModel) {
  CircuitDensity d = CountEmptySectorUpdateDensity(SectorShape::FromSectorSize(2048));
  EXPECT_EQ(d.counts.constraints, 1705039u);
  EXPECT_EQ(d.counts.aux, 1703569u);
  // .params sections (spec section 9): a = 5 inputs + A-dense aux, b = ONE + B-dense aux.
  EXPECT_EQ(d.counts.inputs + d.a_dense_aux, 1697194u);
  EXPECT_EQ(d.b_dense_inputs, 1u);
  EXPECT_EQ(d.b_dense_inputs + d.b_dense_aux, 444404u);
}

// The recorded circuit (what setup and the prover use) has the densities and
// hence the exact .params layout of spec section 9 for 2 KiB.
TEST(SnapCircuitCount, TwoKiBCompiledCircuitHasTheSpecParamsLayout) {
  auto t0 = std::chrono::steady_clock::now();
  r1cs::CompiledCircuit c = CompileEmptySectorUpdate(SectorShape::FromSectorSize(2048));
  std::printf("2KiB compile: %.2f s, %zu A / %zu B / %zu C nonzeros\n", SecondsSince(t0), c.a.nonzeros(),
              c.b.nonzeros(), c.c.nonzeros());
  EXPECT_EQ(c.num_constraints(), 1705039u);
  EXPECT_EQ(c.num_inputs, 5u);
  EXPECT_EQ(c.num_aux, 1703569u);
  const groth16::ParamsShape shape = groth16::ParamsShape::ForCircuit(c);
  EXPECT_EQ(shape.ic, 5u);
  EXPECT_EQ(shape.h, (1u << 21) - 1);
  EXPECT_EQ(shape.l, 1703569u);
  EXPECT_EQ(shape.a, 1697194u);
  EXPECT_EQ(shape.b, 444404u);
  EXPECT_EQ(shape.FileBytes(), 655789464u);
  for (uint64_t i = 0; i < c.num_inputs; ++i) EXPECT_EQ(c.b_density.Test(i), i == 0) << "input " << i;
}

// Filecoin's parameter file names (spec section 10).
TEST(SnapCircuitCount, ParameterFileNamesMatchFilecoins) {
  struct Case {
    uint64_t bytes;
    const char* stem;
  };
  const Case cases[] = {
      {2ull << 10, "8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194"},
      {8ull << 20, "8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63"},
      {512ull << 20, "8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c"},
      {32ull << 30, "8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"},
      {64ull << 30, "8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(EmptySectorUpdateParamsStem(SectorShape::FromSectorSize(c.bytes)),
              std::string("v28-empty-sector-update-merkletree-poseidon_hasher-") + c.stem);
  }
}

// ---- gadget harness ----------------------------------------------------------------

// Runs `gadget(cs)` in CheckingCS, WitnessCS, RecordingCS and CountingCS and
// checks that they agree on the shape (and the two value modes on the values).
// Returns the CheckingCS (for values and the satisfaction verdict).
template <class Gadget>
r1cs::CheckingCS RunEverywhere(Gadget&& gadget) {
  r1cs::CheckingCS check;
  gadget(check);
  r1cs::WitnessCS witness;
  gadget(witness);
  r1cs::RecordingCS record;
  gadget(record);
  CountingCS count;
  gadget(count);
  EXPECT_EQ(witness.num_aux(), check.num_aux());
  EXPECT_EQ(witness.num_constraints(), check.num_constraints());
  EXPECT_EQ(record.num_aux(), check.num_aux());
  EXPECT_EQ(record.num_constraints(), check.num_constraints());
  EXPECT_EQ(count.num_aux(), check.num_aux());
  EXPECT_EQ(count.num_constraints(), check.num_constraints());
  r1cs::CheckingCS copy = check;
  r1cs::Assignment a = copy.TakeAssignment();
  r1cs::Assignment b = witness.TakeAssignment();
  EXPECT_TRUE(a.values == b.values) << "WitnessCS and CheckingCS assignments differ";
  return check;
}

std::vector<Fr> RandomFrs(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> v;
  for (size_t i = 0; i < n; ++i) v.push_back(Fr::Random(rng));
  return v;
}

template <class CS>
std::vector<Variable> AllocNums(CS& cs, std::span<const Fr> values) {
  std::vector<Variable> out;
  for (const Fr& x : values) out.push_back(cs.Alloc("input", x));
  return out;
}

// ---- booleans ----------------------------------------------------------------------

// Every kind combination of bellpepper's xor/and/ch/maj against the truth table.
TEST(SnapGadgetBoolean, OperationsMatchTruthTablesForEveryKind) {
  for (unsigned kinds = 0; kinds < 64; ++kinds) {      // 4 kinds (C0, C1, Is, Not) for a, b, c
    for (unsigned values = 0; values < 8; ++values) {  // variable values
      r1cs::CheckingCS cs;
      Boolean in[3];
      bool expect[3];
      for (unsigned i = 0; i < 3; ++i) {
        unsigned kind = (kinds >> (2 * i)) & 3;
        bool v = (values >> i) & 1;
        if (kind < 2) {
          in[i] = Boolean::Constant(kind == 1);
          expect[i] = kind == 1;
        } else {
          AllocatedBit b = gadgets::AllocBit(cs, v);
          in[i] = kind == 2 ? Boolean::Is(b) : Boolean::Not(b);
          expect[i] = kind == 2 ? v : !v;
        }
      }
      const bool a = expect[0], b = expect[1], c = expect[2];
      Boolean x = gadgets::Xor(cs, in[0], in[1]);
      Boolean y = gadgets::And(cs, in[0], in[1]);
      Boolean ch = gadgets::Sha256Ch(cs, in[0], in[1], in[2]);
      Boolean maj = gadgets::Sha256Maj(cs, in[0], in[1], in[2]);
      ASSERT_EQ(x.Value(), a != b);
      ASSERT_EQ(y.Value(), a && b);
      ASSERT_EQ(ch.Value(), (a && b) != (!a && c));
      ASSERT_EQ(maj.Value(), int(a) + int(b) + int(c) >= 2);
      ASSERT_TRUE(cs.is_satisfied()) << cs.first_failure()->name;
      // The Booleans' values agree with the variables they stand for.
      for (const Boolean& r : {x, y, ch, maj}) {
        if (!r.is_constant()) {
          ASSERT_EQ(cs.Value(r.var()), r.bit().value ? Fr::One() : Fr::Zero());
        }
      }
    }
  }
}

TEST(SnapGadgetBoolean, ConstantOperandsAllocateNothing) {
  CountingCS cs;
  Boolean t = Boolean::Constant(true), f = Boolean::Constant(false);
  AllocatedBit v = gadgets::AllocBit(cs, false);
  const uint64_t base = cs.num_constraints();
  gadgets::Xor(cs, Boolean::Is(v), t);
  gadgets::And(cs, Boolean::Is(v), t);
  gadgets::And(cs, Boolean::Is(v), f);
  gadgets::Sha256Ch(cs, f, Boolean::Is(v), Boolean::Is(v));
  EXPECT_EQ(cs.num_constraints(), base);
  gadgets::Sha256Maj(cs, Boolean::Is(v), Boolean::Is(v), Boolean::Is(v));  // maj + (b and c)
  EXPECT_EQ(cs.num_constraints(), base + 2);
}

// ---- num helpers -------------------------------------------------------------------

TEST(SnapGadgetNum, BitDecompositionsAndPacking) {
  auto rng = test::SeededRng();
  const Fr x = Fr::Random(rng);
  auto cs = RunEverywhere([&](auto& cs) {
    Variable v = cs.Alloc("x", x);
    auto bits = gadgets::ToBitsLe(cs, v);                      // 255 + 1 rows
    auto bits2 = gadgets::AllocatedNumToAllocatedBits(cs, v);  // 255 + 1 rows
    std::vector<Boolean> le;
    for (const auto& b : bits) le.push_back(Boolean::Is(b));
    gadgets::PackBits(cs, le);  // first 254 bits
    (void)bits2;
  });
  EXPECT_TRUE(cs.is_satisfied());
  EXPECT_EQ(cs.num_constraints(), 256u + 256u + 1u);
  EXPECT_EQ(cs.num_aux(), 1u + 255u + 255u + 1u);
  // bits are x's canonical bits; the packing keeps 254 of them.
  const auto limbs = x.ToCanonical();
  for (unsigned i = 0; i < 255; ++i) {
    ASSERT_EQ(cs.Value(Variable::Aux(1 + i)), Fr::FromUint64((limbs[i / 64] >> (i % 64)) & 1));
  }
  ff::Limbs<4> low = limbs;
  low[3] &= ~(uint64_t(1) << 62);
  EXPECT_EQ(cs.Value(Variable::Aux(cs.num_aux() - 1)), Fr::FromCanonical(low));
}

// ---- Poseidon ----------------------------------------------------------------------

// neptune's circuit test: 3 (t*R_F + R_P - 1) + (t*R_F + R_P - arity) rows.
TEST(SnapGadgetPoseidon, MatchesNativeHashAndNeptuneCounts) {
  auto rng = test::SeededRng();
  struct Case {
    unsigned arity;
    uint64_t rows;
  };
  for (Case c : {Case{2, 311}, Case{4, 377}, Case{8, 505}, Case{11, 598}}) {
    EXPECT_EQ(gadgets::PoseidonConstraints(c.arity), c.rows);
    for (const Fr& tag : {MerkleTreeTag(c.arity), CustomTag(1), Fr::Random(rng)}) {
      std::vector<Fr> pre = RandomFrs(c.arity, rng);
      Variable out;
      auto cs = RunEverywhere([&](auto& cs) {
        auto vars = AllocNums(cs, pre);
        out = gadgets::PoseidonHash(cs, std::span<const Variable>(vars), tag);
      });
      ASSERT_TRUE(cs.is_satisfied()) << cs.first_failure()->name;
      EXPECT_EQ(cs.Value(out), PoseidonHash(pre, tag)) << "arity " << c.arity;
      EXPECT_EQ(cs.num_constraints(), c.rows) << "arity " << c.arity;
      EXPECT_EQ(cs.num_aux(), c.arity + c.rows) << "arity " << c.arity;
    }
  }
}

// Spec section 11: neptune hash_values vectors (MerkleTree tag, preimage 0..arity-1), in circuit.
TEST(SnapGadgetPoseidon, NeptuneVectorsInCircuit) {
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
    r1cs::CheckingCS cs;
    std::vector<Variable> in;
    for (unsigned i = 0; i < c.arity; ++i) in.push_back(cs.Alloc("x", Fr::FromUint64(i)));
    Variable out = gadgets::PoseidonHash(cs, std::span<const Variable>(in), MerkleTreeTag(c.arity));
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_EQ(cs.Value(out), c.expected) << "arity " << c.arity;
  }
}

// A wrong S-box value is caught, and named.
TEST(SnapGadgetPoseidon, TamperedWitnessFailsANamedRow) {
  r1cs::RecordingCS record({.record_names = true});
  const Variable in0 = record.Alloc("a", Fr()), in1 = record.Alloc("b", Fr());
  const Variable pre[2] = {in0, in1};
  {
    auto ns = r1cs::Namespace(record, "poseidon");
    gadgets::PoseidonHash(record, pre, CustomTag(1));
  }
  r1cs::CompiledCircuit circuit = std::move(record).Finish();
  r1cs::WitnessCS w;
  const Variable win[2] = {w.Alloc("a", Fr::FromUint64(5)), w.Alloc("b", Fr::FromUint64(9))};
  gadgets::PoseidonHash(w, win, CustomTag(1));
  r1cs::Assignment z = w.TakeAssignment();
  EXPECT_TRUE(r1cs::IsSatisfied(circuit, z.values));
  z.values[z.num_inputs + 100] += Fr::One();
  r1cs::ConstraintFailure f;
  EXPECT_FALSE(r1cs::IsSatisfied(circuit, z.values, &f));
  EXPECT_NE(f.name.find("poseidon/"), std::string::npos) << f.name;
}

// ---- SHA-256 -----------------------------------------------------------------------

std::vector<Boolean> AllocMessageBits(r1cs::CheckingCS& cs, std::span<const uint8_t> bytes) {
  std::vector<Boolean> bits;
  for (uint8_t byte : bytes)
    for (int j = 7; j >= 0; --j) bits.push_back(Boolean::Is(gadgets::AllocBit(cs, (byte >> j) & 1)));
  return bits;
}

std::vector<uint8_t> DigestBytes(const std::vector<Boolean>& bits) {
  std::vector<uint8_t> out(bits.size() / 8);
  for (size_t i = 0; i < bits.size(); ++i) out[i / 8] |= uint8_t(bits[i].Value()) << (7 - i % 8);
  return out;
}

// bellperson sha256.rs test anchors and the native SHA-256 on many lengths.
TEST(SnapGadgetSha256, MatchesNativeAndBellpersonCounts) {
  auto rng = test::SeededRng();
  for (size_t len : {0, 1, 3, 31, 55, 56, 63, 64, 65, 100, 119, 120, 200}) {
    std::vector<uint8_t> msg(len);
    for (auto& b : msg) b = uint8_t(rng());
    r1cs::CheckingCS cs;
    auto bits = AllocMessageBits(cs, msg);
    auto digest = gadgets::Sha256(cs, bits);
    ASSERT_TRUE(cs.is_satisfied()) << len << ": " << cs.first_failure()->name;
    Sha256Digest expect = Sha256Hash(msg);
    EXPECT_EQ(DigestBytes(digest), std::vector<uint8_t>(expect.begin(), expect.end())) << "length " << len;
  }
  // One compression of 512 allocated bits: 25,840 rows; sha256 of 512 allocated bits: 44,874.
  std::vector<uint8_t> block(64);
  for (auto& b : block) b = uint8_t(rng());
  {
    r1cs::CheckingCS cs;
    auto bits = AllocMessageBits(cs, block);
    gadgets::Sha256Compression(cs, bits, gadgets::Sha256IvWords());
    EXPECT_EQ(cs.num_constraints() - 512, 25840u);
    EXPECT_TRUE(cs.is_satisfied());
  }
  {
    auto cs = RunEverywhere([&](auto& cs) {
      std::vector<Boolean> bits;
      for (uint8_t byte : block)
        for (int j = 7; j >= 0; --j) bits.push_back(Boolean::Is(gadgets::AllocBit(cs, (byte >> j) & 1)));
      gadgets::Sha256(cs, bits);
    });
    EXPECT_EQ(cs.num_constraints() - 512, 44874u);
    EXPECT_TRUE(cs.is_satisfied());
  }
  // bellperson test_blank_hash: an all-constant block makes no rows.
  {
    r1cs::CheckingCS cs;
    std::vector<Boolean> bits(512, Boolean::Constant(false));
    bits[0] = Boolean::Constant(true);
    auto out = gadgets::Sha256Compression(cs, bits, gadgets::Sha256IvWords());
    EXPECT_EQ(cs.num_constraints(), 0u);
    EXPECT_EQ(out[0].value, 0xe3b0c442u);
  }
}

// The TreeD node: native TreeDHash, 45,379 rows, 45,331 aux (spec 6.2), the
// spec-11 vector hash2(0, 0).
TEST(SnapGadgetTreeD, NodeMatchesNativeHashAndSpecCounts) {
  auto rng = test::SeededRng();
  std::vector<std::pair<Fr, Fr>> cases = {
      {Fr::Zero(), Fr::Zero()}, {Fr::Random(rng), Fr::Random(rng)}, {-Fr::One(), Fr::One()}};
  for (const auto& [x, y] : cases) {
    Variable out;
    auto cs = RunEverywhere([&](auto& cs) {
      Variable a = cs.Alloc("x", x), b = cs.Alloc("y", y);
      out = gadgets::TreeDHash2(cs, a, b);
    });
    ASSERT_TRUE(cs.is_satisfied()) << cs.first_failure()->name;
    filecoin::Domain expect = TreeDHash(filecoin::DomainFromFr(x), filecoin::DomainFromFr(y));
    EXPECT_EQ(filecoin::DomainFromFr(cs.Value(out)), expect);
    EXPECT_EQ(cs.num_constraints(), gadgets::kTreeDHashConstraints);
    EXPECT_EQ(cs.num_aux(), 2 + gadgets::kTreeDHashAux);
  }
  r1cs::CheckingCS cs;
  Variable z = cs.Alloc("zero", Fr::Zero());
  EXPECT_EQ(filecoin::DomainToHex(filecoin::DomainFromFr(cs.Value(gadgets::TreeDHash2(cs, z, z)))),
            "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b");
}

// ---- Merkle gadgets ----------------------------------------------------------------

TEST(SnapGadgetMerkle, InsertPlacesTheNodeAtEveryIndex) {
  auto rng = test::SeededRng();
  for (unsigned arity : {2u, 4u, 8u}) {
    const unsigned nbits = unsigned(std::countr_zero(arity));
    for (unsigned index = 0; index < arity; ++index) {
      std::vector<Fr> sibs = RandomFrs(arity - 1, rng);
      const Fr cur = Fr::Random(rng);
      std::vector<Variable> out;
      uint64_t base_rows = 0;
      auto cs = RunEverywhere([&](auto& cs) {
        auto sv = AllocNums(cs, sibs);
        Variable c = cs.Alloc("cur", cur);
        std::vector<Boolean> bits;
        for (unsigned b = 0; b < nbits; ++b) bits.push_back(Boolean::Is(gadgets::AllocBit(cs, (index >> b) & 1)));
        base_rows = cs.num_constraints();
        out = gadgets::Insert(cs, c, bits, sv);
      });
      ASSERT_TRUE(cs.is_satisfied());
      EXPECT_EQ(cs.num_constraints() - base_rows, gadgets::InsertConstraints(arity));
      std::vector<Fr> expect = sibs;
      expect.insert(expect.begin() + index, cur);
      for (unsigned i = 0; i < arity; ++i) EXPECT_EQ(cs.Value(out[i]), expect[i]) << arity << " " << index << " " << i;
    }
  }
}

TEST(SnapGadgetMerkle, SelectPicksEveryIndexWithSizeMinusOneRows) {
  auto rng = test::SeededRng();
  for (unsigned log_size = 1; log_size <= 4; ++log_size) {
    const unsigned size = 1u << log_size;
    std::vector<Fr> from = RandomFrs(size, rng);
    for (unsigned index = 0; index < size; ++index) {
      Variable out;
      uint64_t base_rows = 0;
      auto cs = RunEverywhere([&](auto& cs) {
        auto vars = AllocNums(cs, from);
        std::vector<Boolean> bits;
        for (unsigned b = 0; b < log_size; ++b) bits.push_back(Boolean::Is(gadgets::AllocBit(cs, (index >> b) & 1)));
        base_rows = cs.num_constraints();
        out = gadgets::Select(cs, vars, bits);
      });
      ASSERT_TRUE(cs.is_satisfied());
      EXPECT_EQ(cs.num_constraints() - base_rows, size - 1);
      EXPECT_EQ(cs.Value(out), from[index]);
    }
  }
}

// A TreeR path of a 8-8-2 shape (base 8, sub 8, top 2) against the native hash;
// a wrong root fails the named root row.
TEST(SnapGadgetMerkle, PorAcceptsTheNativePathAndRejectsAWrongRoot) {
  auto rng = test::SeededRng();
  const std::vector<unsigned> arities = {8, 8, 2};
  const uint64_t index = rng() % 128;
  const Fr leaf = Fr::Random(rng);
  std::vector<std::vector<Fr>> path;
  Fr cur = leaf;
  unsigned used = 0;
  for (unsigned a : arities) {
    std::vector<Fr> sibs = RandomFrs(a - 1, rng);
    const unsigned nb = unsigned(std::countr_zero(a));
    const unsigned pos = unsigned(index >> used) & (a - 1);
    used += nb;
    std::vector<Fr> pre = sibs;
    pre.insert(pre.begin() + pos, cur);
    cur = PoseidonMerkleHash(pre);
    path.push_back(sibs);
  }
  for (bool good_root : {true, false}) {
    auto cs = RunEverywhere([&](auto& cs) {
      auto ns = r1cs::Namespace(cs, "por");
      std::vector<AllocatedBit> bits;
      for (unsigned b = 0; b < 7; ++b) bits.push_back(gadgets::AllocBit(cs, (index >> b) & 1));
      Variable l = cs.Alloc("leaf", leaf);
      std::vector<std::vector<Variable>> p;
      for (const auto& level : path) p.push_back(AllocNums(cs, level));
      Variable root = cs.Alloc("root", good_root ? cur : cur + Fr::One());
      gadgets::PorNoChallengeInput(cs, bits, l, p, arities, root, gadgets::PoseidonTreeHasher{});
    });
    EXPECT_EQ(cs.is_satisfied(), good_root);
    if (!good_root) {
      EXPECT_EQ(cs.first_failure()->name, "por/calculated root == provided root");
    }
    EXPECT_EQ(cs.num_constraints(), 7 + 2 * (22 + 505) + (2 + 311) + 1);
  }
}

// ---- the circuit in check mode -------------------------------------------------------

struct CheckedSector {
  TestSector sector;
  std::vector<CircuitWitness> witnesses;
};

CheckedSector MakeSector(uint64_t bytes, uint64_t seed) {
  TestSectorOptions o;
  o.sector_bytes = bytes;
  o.seed = seed;
  CheckedSector out{GenerateTestSector(o), {}};
  for (size_t i = 0; i < out.sector.partition_proofs.size(); ++i) {
    out.witnesses.push_back(MakeCircuitWitness(out.sector.shape, out.sector.partition_indices[i],
                                               out.sector.commitments, out.sector.partition_proofs[i]));
  }
  return out;
}

void ExpectEveryPartitionSatisfied(uint64_t bytes, uint64_t seed) {
  CheckedSector s = MakeSector(bytes, seed);
  const CircuitCounts expect = CountEmptySectorUpdate(s.sector.shape);
  for (const auto& w : s.witnesses) {
    auto t0 = std::chrono::steady_clock::now();
    CircuitCounts got;
    auto failure = CheckEmptySectorUpdate(s.sector.shape, w, &got);
    std::printf("%s partition %u: check mode %.1f s\n", s.sector.shape.Name().c_str(), w.k, SecondsSince(t0));
    EXPECT_FALSE(failure.has_value()) << s.sector.shape.Name() << " k=" << w.k << ": " << failure->name;
    EXPECT_EQ(got.constraints, expect.constraints);
    EXPECT_EQ(got.aux, expect.aux);
    EXPECT_EQ(got.inputs, 5u);
  }
}

TEST(SnapCircuitCheck, TwoKiBSectorSatisfiesEveryConstraint) { ExpectEveryPartitionSatisfied(2048, 1); }

TEST(SnapCircuitCheck, EightKiBSectorSatisfiesEveryConstraint) { ExpectEveryPartitionSatisfied(8192, 2); }

TEST(SnapCircuitCheck, ThirtyTwoKiBSectorBothPartitionsSatisfy) { ExpectEveryPartitionSatisfied(32 << 10, 3); }

// Any changed commitment breaks a named row (and the public inputs change with it).
TEST(SnapCircuitCheck, ChangedCommitmentsFailTheirRows) {
  CheckedSector s = MakeSector(2048, 4);
  const SectorShape& shape = s.sector.shape;
  struct Case {
    Fr CircuitWitness::*field;
    const char* expected_row;
  };
  const Case cases[] = {
      {&CircuitWitness::comm_r_old, "enforce comm_r_old_calc == comm_r_old"},
      {&CircuitWitness::comm_d_new, "apex_gadget/partition-tree por/calculated root == provided root"},
      {&CircuitWitness::comm_r_new, "enforce comm_r_new_calc == comm_r_new"},
  };
  for (const auto& c : cases) {
    CircuitWitness w = s.witnesses[0];
    w.*(c.field) += Fr::One();
    auto failure = CheckEmptySectorUpdate(shape, w, nullptr, /*stop_at_first_failure=*/true);
    ASSERT_TRUE(failure.has_value()) << c.expected_row;
    EXPECT_EQ(failure->name, c.expected_row);
  }
  // Private values: a TreeR sibling, a TreeD leaf.
  CircuitWitness w = s.witnesses[0];
  w.challenges[3].path_r_old[0][2] += Fr::One();
  auto failure = CheckEmptySectorUpdate(shape, w, nullptr, true);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->name, "por tree_r_old (c_index=3)/calculated root == provided root");
  w = s.witnesses[0];
  w.challenges[5].leaf_d_new += Fr::One();
  CircuitCounts partial;
  failure = CheckEmptySectorUpdate(shape, w, &partial, true);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->name, "por tree_r_new (c_index=5)/calculated root == provided root");
  EXPECT_EQ(partial.constraints, failure->index + 1);  // synthesis ended there
  // Without stopping, the same first failure and the full counts.
  CircuitCounts full;
  auto again = CheckEmptySectorUpdate(shape, w, &full);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->index, failure->index);
  EXPECT_EQ(full.constraints, 1705039u);
}

TEST(SnapCircuitCheck, WitnessFromAMismatchedProofIsRefused) {
  CheckedSector s = MakeSector(32 << 10, 5);
  const auto& shape = s.sector.shape;
  auto proof = s.sector.partition_proofs[0];
  EXPECT_THROW(MakeCircuitWitness(shape, 2, s.sector.commitments, proof), std::invalid_argument);
  auto bad = proof;
  bad.apex_leafs.pop_back();
  EXPECT_THROW(MakeCircuitWitness(shape, 0, s.sector.commitments, bad), std::invalid_argument);
  bad = proof;
  bad.challenge_proofs[1].proof_d_new.path.back().hashes[0][0] ^= 1;
  EXPECT_THROW(MakeCircuitWitness(shape, 0, s.sector.commitments, bad), std::invalid_argument);
  bad = proof;
  bad.challenge_proofs[2].proof_r_old.path[0].hashes.pop_back();
  EXPECT_THROW(MakeCircuitWitness(shape, 0, s.sector.commitments, bad), std::invalid_argument);
  filecoin::Commitments comms = s.sector.commitments;
  comms.comm_d_new.fill(0xff);  // not canonical
  EXPECT_THROW(MakeCircuitWitness(shape, 0, comms, proof), filecoin::CommitmentError);
}

// The circuit's public inputs are exactly section 4's (partition 1 of 2: k_and_h_select = 3).
TEST(SnapCircuitCheck, PublicInputsAreSectionFourOrder) {
  CheckedSector s = MakeSector(32 << 10, 6);
  for (const auto& w : {s.witnesses[1]}) {
    r1cs::Assignment z = SynthesizeEmptySectorUpdateWitness(s.sector.shape, w);
    EXPECT_EQ(z.values[1], Fr::FromUint64(3));
    ASSERT_EQ(z.num_inputs, 5u);
    PublicInputs in = PartitionPublicInputs(s.sector.shape, w.k, s.sector.commitments);
    auto expect = in.AsArray();
    EXPECT_EQ(z.PublicInputs(), std::vector<Fr>(expect.begin(), expect.end()));
  }
}

// ---- the native witness path ---------------------------------------------------------

TEST(SnapNativeWitness, PoseidonAndTreeDNodeEqualTheGadgets) {
  auto rng = test::SeededRng();
  for (unsigned arity : {2u, 4u, 8u, 11u}) {
    std::vector<Fr> pre = RandomFrs(arity, rng);
    const Fr tag = Fr::Random(rng);
    r1cs::WitnessCS cs;
    auto vars = AllocNums(cs, pre);
    gadgets::PoseidonHash(cs, std::span<const Variable>(vars), tag);
    r1cs::Assignment z = cs.TakeAssignment();
    std::vector<Fr> native(gadgets::PoseidonConstraints(arity));
    const Fr h = witness::PoseidonWitness(pre, tag, native.data());
    EXPECT_EQ(h, PoseidonHash(pre, tag));
    EXPECT_TRUE(std::equal(native.begin(), native.end(), z.aux().begin() + arity)) << "arity " << arity;
  }
  for (int i = 0; i < 3; ++i) {
    const Fr x = i == 0 ? Fr::Zero() : Fr::Random(rng), y = i == 0 ? -Fr::One() : Fr::Random(rng);
    r1cs::WitnessCS cs;
    Variable a = cs.Alloc("x", x), b = cs.Alloc("y", y);
    gadgets::TreeDHash2(cs, a, b);
    r1cs::Assignment z = cs.TakeAssignment();
    std::vector<Fr> native(gadgets::kTreeDHashAux);
    const Fr node = witness::TreeDHashWitness(x, y, native.data());
    EXPECT_EQ(filecoin::DomainFromFr(node), TreeDHash(filecoin::DomainFromFr(x), filecoin::DomainFromFr(y)));
    ASSERT_EQ(z.aux().size(), native.size() + 2);
    for (size_t j = 0; j < native.size(); ++j) {
      ASSERT_EQ(native[j], z.aux()[2 + j]) << "TreeD node aux " << j;
    }
  }
}

void ExpectNativeEqualsGadgetWitness(uint64_t bytes, uint64_t seed) {
  CheckedSector s = MakeSector(bytes, seed);
  for (const auto& w : s.witnesses) {
    auto t0 = std::chrono::steady_clock::now();
    r1cs::Assignment gadget = SynthesizeEmptySectorUpdateWitness(s.sector.shape, w);
    const double t_gadget = SecondsSince(t0);
    t0 = std::chrono::steady_clock::now();
    r1cs::Assignment native = witness::ComputeEmptySectorUpdateWitness(s.sector.shape, w, {.threads = 2});
    const double t_native = SecondsSince(t0);
    std::printf("%s k=%u: gadget witness %.2f s, native witness %.2f s (%zu values)\n", s.sector.shape.Name().c_str(),
                w.k, t_gadget, t_native, native.values.size());
    ASSERT_EQ(native.num_inputs, gadget.num_inputs);
    ASSERT_EQ(native.values.size(), gadget.values.size());
    size_t first_diff = native.values.size();
    for (size_t i = 0; i < native.values.size() && first_diff == native.values.size(); ++i) {
      if (native.values[i] != gadget.values[i]) first_diff = i;
    }
    EXPECT_EQ(first_diff, native.values.size()) << "first differing variable: " << first_diff;
  }
}

TEST(SnapNativeWitness, EqualsTheGadgetWitnessFor2KiB) { ExpectNativeEqualsGadgetWitness(2048, 11); }

TEST(SnapNativeWitness, EqualsTheGadgetWitnessFor8KiB) { ExpectNativeEqualsGadgetWitness(8192, 12); }

// ---- slow (tests/snap_slow: ctest -L slow) ---------------------------------------------
#ifdef CUZK_SNAP_SLOW_TESTS

// Peak resident memory of this process so far, in MiB (Linux VmHWM).
double PeakRssMiB() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb / 1024;
}

// Spec section 9 (r1cs_sim.py): aux, a = 5 + A-dense aux, b = 1 + B-dense aux.
TEST(SnapSlowCount, DensitiesOfTheProductionSizesMatchTheR1csModel) {
  struct Case {
    uint64_t bytes, aux, a, b;
  };
  const Case cases[] = {
      {8ull << 20, 9998039, 9981020, 2567922},
      {512ull << 20, 57401314, 57212322, 14916880},
      {32ull << 30, 80978488, 80743586, 20983608},
      {64ull << 30, 84931220, 84682730, 22012684},
  };
  for (const auto& c : cases) {
    auto t0 = std::chrono::steady_clock::now();
    SectorShape shape = SectorShape::FromSectorSize(c.bytes);
    CircuitDensity d = CountEmptySectorUpdateDensity(shape);
    std::printf("%s densities: %.1f s, peak RSS %.0f MiB\n", shape.Name().c_str(), SecondsSince(t0), PeakRssMiB());
    EXPECT_EQ(d.counts.aux, c.aux) << shape.Name();
    EXPECT_EQ(d.counts.inputs + d.a_dense_aux, c.a) << shape.Name();
    EXPECT_EQ(d.b_dense_inputs, 1u) << shape.Name();
    EXPECT_EQ(d.b_dense_inputs + d.b_dense_aux, c.b) << shape.Name();
  }
}

// 8 MiB: 4 partitions of 10,007,503 rows each.
TEST(SnapSlowCheck, EightMiBSectorEveryPartitionSatisfies) {
  ExpectEveryPartitionSatisfied(8 << 20, 7);
  std::printf("peak RSS %.0f MiB\n", PeakRssMiB());
}

TEST(SnapSlowNativeWitness, EqualsTheGadgetWitnessFor8MiB) {
  ExpectNativeEqualsGadgetWitness(8 << 20, 8);
  std::printf("peak RSS %.0f MiB\n", PeakRssMiB());
}

#endif  // CUZK_SNAP_SLOW_TESTS

}  // namespace
}  // namespace cuzk::snapdeals
