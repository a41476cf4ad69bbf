#include "engine/circuits/snapdeals/native/test_sector.hpp"

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "engine/circuits/snapdeals/native/challenges.hpp"
#include "engine/circuits/snapdeals/native/encoding.hpp"
#include "engine/circuits/snapdeals/native/layered_tree.hpp"
#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/circuits/snapdeals/native/sha256.hpp"
#include "engine/circuits/snapdeals/native/vanilla_verifier.hpp"
#include "engine/util/parallel.hpp"

namespace cuzk::snapdeals {
namespace {

using ff::Fr;
using filecoin::Domain;
using TreeD = LayeredTree<Domain>;
using TreeR = LayeredTree<Fr>;

// SplitMix64's finaliser: a bijective 64-bit mixer.
constexpr uint64_t Mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Values below 2^254 are always canonical, so this never fails.
Fr NodeFr(const Domain& d) { return *Fr::FromBytes(d, ff::Endian::kLittle); }

Domain TreeDNodeHash(std::span<const Domain> c) { return TreeDHash(c[0], c[1]); }
Fr TreeRNodeHash(std::span<const Fr> c) { return PoseidonMerkleHash(c); }

template <class Node, class Convert>
filecoin::MerkleProof MakeProof(const LayeredTree<Node>& tree, uint64_t node, filecoin::MerkleProofKind kind,
                                Convert convert) {
  filecoin::MerkleProof p;
  p.kind = kind;
  p.root = convert(tree.Root());
  p.leaf = convert(tree.At(0, node));
  for (auto& level : tree.Path(node)) {
    filecoin::PathElement e;
    e.index = level.index;
    for (const Node& s : level.siblings) e.hashes.push_back(convert(s));
    p.path.push_back(std::move(e));
  }
  return p;
}

struct Trees {
  std::unique_ptr<TreeD> tree_d;
  std::unique_ptr<TreeR> tree_r_old;
  std::unique_ptr<TreeR> tree_r_new;
};

// Seeded positions of the sparse mode's individually generated nodes.
std::vector<uint64_t> SparsePositions(const TestSectorOptions& o, uint64_t nodes) {
  std::set<uint64_t> positions;
  uint64_t want = std::min(o.sparse_random_nodes, nodes);
  for (uint64_t i = 0; positions.size() < want; ++i) {
    Domain d = TestSectorNode(o.seed, TestSectorStream::kSparsePositions, i);
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= uint64_t(d[b]) << (8 * b);
    positions.insert(v & (nodes - 1));
  }
  return {positions.begin(), positions.end()};
}

}  // namespace

Domain TestSectorNode(uint64_t seed, TestSectorStream stream, uint64_t index) {
  const uint64_t key = Mix64(Mix64(seed) ^ (uint64_t(stream) * 0xd1342543de82ef95ull));
  Domain d;
  for (uint64_t w = 0; w < 4; ++w) {
    uint64_t v = Mix64(key ^ Mix64(index * 4 + w));
    for (int b = 0; b < 8; ++b) d[8 * w + b] = uint8_t(v >> (8 * b));
  }
  d[31] &= 0x3f;
  return d;
}

TestSector GenerateTestSector(const TestSectorOptions& o) {
  TestSector s;
  s.shape = filecoin::SectorShape::FromSectorSize(o.sector_bytes);
  if (o.h) s.shape = s.shape.WithH(o.h);
  const auto& shape = s.shape;
  s.sparse = o.mode == TestSectorOptions::Mode::kSparse ||
             (o.mode == TestSectorOptions::Mode::kAuto && o.sector_bytes > TestSectorOptions::kMaxAutoDenseBytes);
  if (o.partitions.empty()) {
    for (unsigned k = 0; k < shape.partitions; ++k) s.partition_indices.push_back(k);
  } else {
    for (unsigned k : o.partitions) {
      if (k >= shape.partitions) {
        throw std::invalid_argument("partition " + std::to_string(k) + " out of range: a " + shape.Name() +
                                    " sector has " + std::to_string(shape.partitions) + " partitions");
      }
    }
    s.partition_indices = o.partitions;
  }

  const uint64_t n = shape.nodes;
  const auto r_arities = shape.TreeRArities();
  const std::vector<unsigned> d_arities(shape.challenge_bit_len, 2);
  const Fr comm_c = NodeFr(TestSectorNode(o.seed, TestSectorStream::kCommC, 0));
  Trees trees;

  // Old replica and new data, TreeD and TreeR old.
  std::vector<uint64_t> positions;
  Domain data_default{};
  Fr old_default;
  if (!s.sparse) {
    std::vector<Domain> data(n);
    std::vector<Fr> old(n);
    util::ParallelFor(n, o.threads, [&](size_t i) {
      data[i] = TestSectorNode(o.seed, TestSectorStream::kData, i);
      old[i] = NodeFr(TestSectorNode(o.seed, TestSectorStream::kOldReplica, i));
    });
    trees.tree_d = std::make_unique<TreeD>(TreeD::Leaves::Dense(std::move(data)), d_arities, TreeDNodeHash, o.threads);
    trees.tree_r_old =
        std::make_unique<TreeR>(TreeR::Leaves::Dense(std::move(old)), r_arities, TreeRNodeHash, o.threads);
  } else {
    positions = SparsePositions(o, n);
    data_default = TestSectorNode(o.seed, TestSectorStream::kSparseDefaults, 0);
    old_default = NodeFr(TestSectorNode(o.seed, TestSectorStream::kSparseDefaults, 1));
    std::unordered_map<uint64_t, Domain> data_over;
    std::unordered_map<uint64_t, Fr> old_over;
    for (uint64_t p : positions) {
      data_over.emplace(p, TestSectorNode(o.seed, TestSectorStream::kData, p));
      old_over.emplace(p, NodeFr(TestSectorNode(o.seed, TestSectorStream::kOldReplica, p)));
    }
    trees.tree_d = std::make_unique<TreeD>(TreeD::Leaves::Sparse(n, n, {data_default}, std::move(data_over)), d_arities,
                                           TreeDNodeHash, o.threads);
    trees.tree_r_old = std::make_unique<TreeR>(TreeR::Leaves::Sparse(n, n, {old_default}, std::move(old_over)),
                                               r_arities, TreeRNodeHash, o.threads);
  }
  const Domain comm_d_new = trees.tree_d->Root();
  const Fr root_r_old = trees.tree_r_old->Root();
  const Fr comm_r_old = PoseidonHash2(comm_c, root_r_old);

  // Encoding and TreeR new.
  const Fr phi = Phi(NodeFr(comm_d_new), comm_r_old);
  const std::vector<Fr> rho = RhoTable(shape, phi, o.threads);
  const unsigned region_bits = shape.challenge_bit_len - shape.h;
  if (!s.sparse) {
    std::vector<Fr> labels(n);
    util::ParallelFor(n, o.threads, [&](size_t i) {
      labels[i] = EncodeLabel(trees.tree_r_old->At(0, i), NodeFr(trees.tree_d->At(0, i)), rho[i >> region_bits]);
    });
    trees.tree_r_new =
        std::make_unique<TreeR>(TreeR::Leaves::Dense(std::move(labels)), r_arities, TreeRNodeHash, o.threads);
  } else {
    std::vector<Fr> defaults(rho.size());
    for (size_t g = 0; g < rho.size(); ++g) defaults[g] = EncodeLabel(old_default, NodeFr(data_default), rho[g]);
    std::unordered_map<uint64_t, Fr> over;
    for (uint64_t p : positions) {
      over.emplace(p, EncodeLabel(trees.tree_r_old->At(0, p), NodeFr(trees.tree_d->At(0, p)), rho[p >> region_bits]));
    }
    trees.tree_r_new = std::make_unique<TreeR>(
        TreeR::Leaves::Sparse(n, uint64_t(1) << region_bits, std::move(defaults), std::move(over)), r_arities,
        TreeRNodeHash, o.threads);
  }
  const Fr root_r_new = trees.tree_r_new->Root();
  const Fr comm_r_new = PoseidonHash2(comm_c, root_r_new);

  s.comm_c = filecoin::DomainFromFr(comm_c);
  s.root_r_old = filecoin::DomainFromFr(root_r_old);
  s.root_r_new = filecoin::DomainFromFr(root_r_new);
  s.commitments = {filecoin::DomainFromFr(comm_r_old), comm_d_new, filecoin::DomainFromFr(comm_r_new)};

  // Partition proofs.
  auto as_domain = [](const Fr& x) { return filecoin::DomainFromFr(x); };
  auto same = [](const Domain& d) { return d; };
  for (unsigned k : s.partition_indices) {
    filecoin::PartitionProof p;
    p.comm_c = s.comm_c;
    for (unsigned i = 0; i < shape.apex_leaf_count; ++i) {
      p.apex_leafs.push_back(trees.tree_d->At(shape.apex_levels, uint64_t(k) * shape.apex_leaf_count + i));
    }
    for (uint64_t node : PartitionChallenges(shape, comm_r_new, k)) {
      filecoin::ChallengeProof c;
      c.proof_r_old = MakeProof(*trees.tree_r_old, node, shape.TreeRKind(), as_domain);
      c.proof_d_new = MakeProof(*trees.tree_d, node, filecoin::MerkleProofKind::kSingle, same);
      c.proof_r_new = MakeProof(*trees.tree_r_new, node, shape.TreeRKind(), as_domain);
      p.challenge_proofs.push_back(std::move(c));
    }
    s.partition_proofs.push_back(std::move(p));
  }

  if (o.self_check) {
    util::ParallelFor(s.partition_proofs.size(), o.threads, [&](size_t i) {
      try {
        VerifyPartitionProof(shape, s.partition_indices[i], s.commitments, s.partition_proofs[i]);
      } catch (const VanillaProofError& e) {
        throw std::logic_error(std::string("test sector self-check failed: ") + e.what());
      }
    });
  }
  return s;
}

}  // namespace cuzk::snapdeals
