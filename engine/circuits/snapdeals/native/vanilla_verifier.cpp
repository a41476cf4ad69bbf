#include "engine/circuits/snapdeals/native/vanilla_verifier.hpp"

#include <string>
#include <vector>

#include "engine/circuits/snapdeals/native/challenges.hpp"
#include "engine/circuits/snapdeals/native/encoding.hpp"
#include "engine/circuits/snapdeals/native/poseidon.hpp"
#include "engine/circuits/snapdeals/native/sha256.hpp"

namespace cuzk::snapdeals {
namespace {

using ff::Fr;
using filecoin::Domain;
using filecoin::MerkleProof;
using filecoin::SectorShape;

class Checker {
 public:
  Checker(const SectorShape& shape, unsigned k) : shape_(shape), k_(k) {}

  [[noreturn]] void Fail(const std::string& where, const std::string& what) const {
    throw VanillaProofError("SnapDeals vanilla proof (" + shape_.Name() + ", partition " + std::to_string(k_) +
                            "): " + (where.empty() ? "" : where + ": ") + what);
  }

  Fr ToFr(const Domain& d, const std::string& where) const {
    auto x = Fr::FromBytes(d, ff::Endian::kLittle);
    if (!x) Fail(where, "not a canonical field element");
    return *x;
  }

  // Structure: kind, number of levels, siblings per level.
  void CheckShape(const MerkleProof& p, filecoin::MerkleProofKind kind, const std::vector<unsigned>& arities,
                  const std::string& where) const {
    if (p.kind != kind) Fail(where, "wrong proof kind " + std::to_string(uint32_t(p.kind)));
    if (p.path.size() != arities.size()) {
      Fail(where, std::to_string(p.path.size()) + " path levels, expected " + std::to_string(arities.size()));
    }
    for (size_t l = 0; l < arities.size(); ++l) {
      if (p.path[l].hashes.size() != arities[l] - 1) {
        Fail(where + ".path[" + std::to_string(l) + "]",
             std::to_string(p.path[l].hashes.size()) + " siblings, expected " + std::to_string(arities[l] - 1));
      }
    }
  }

  // The path indices must spell `node` (LSB first, log2(arity) bits per level).
  void CheckIndices(const MerkleProof& p, const std::vector<unsigned>& arities, uint64_t node,
                    const std::string& where) const {
    unsigned shift = 0;
    for (size_t l = 0; l < arities.size(); ++l) {
      uint64_t expected = (node >> shift) & (arities[l] - 1);
      if (p.path[l].index != expected) {
        Fail(where + ".path[" + std::to_string(l) + "].index", "is " + std::to_string(p.path[l].index) +
                                                                   ", but challenge node " + std::to_string(node) +
                                                                   " needs " + std::to_string(expected));
      }
      shift += unsigned(__builtin_ctz(arities[l]));
    }
  }

  // Recomputes a TreeR root (Poseidon MerkleTree hash per level).
  Fr TreeRRoot(const MerkleProof& p, const Fr& leaf, const std::string& where) const {
    Fr cur = leaf;
    std::vector<Fr> group;
    for (size_t l = 0; l < p.path.size(); ++l) {
      const auto& e = p.path[l];
      group.clear();
      for (size_t i = 0; i < e.hashes.size(); ++i) {
        if (i == e.index) group.push_back(cur);
        group.push_back(
            ToFr(e.hashes[i], where + ".path[" + std::to_string(l) + "].hashes[" + std::to_string(i) + "]"));
      }
      if (e.index == e.hashes.size()) group.push_back(cur);
      cur = PoseidonMerkleHash(group);
    }
    return cur;
  }

  // Walks TreeD levels [begin, end) from `cur`; index bits come from the path.
  Domain TreeDWalk(const MerkleProof& p, Domain cur, size_t begin, size_t end) const {
    for (size_t l = begin; l < end; ++l) {
      const auto& e = p.path[l];
      cur = e.index ? TreeDHash(e.hashes[0], cur) : TreeDHash(cur, e.hashes[0]);
    }
    return cur;
  }

 private:
  const SectorShape& shape_;
  unsigned k_;
};

std::string ChallengeWhere(size_t i, uint64_t node, const char* field) {
  return "challenge_proofs[" + std::to_string(i) + "] (node " + std::to_string(node) + ")." + field;
}

}  // namespace

void VerifyPartitionProof(const SectorShape& shape, unsigned k, const filecoin::Commitments& commitments,
                          const filecoin::PartitionProof& proof) {
  Checker ck(shape, k);
  if (k >= shape.partitions)
    ck.Fail("", "partition index out of range (" + std::to_string(shape.partitions) + " partitions)");
  const Fr comm_r_old = ck.ToFr(commitments.comm_r_old, "comm_r_old");
  const Fr comm_d_new = ck.ToFr(commitments.comm_d_new, "comm_d_new");
  const Fr comm_r_new = ck.ToFr(commitments.comm_r_new, "comm_r_new");

  if (proof.apex_leafs.size() != shape.apex_leaf_count) {
    ck.Fail("apex_leafs",
            std::to_string(proof.apex_leafs.size()) + " entries, expected " + std::to_string(shape.apex_leaf_count));
  }
  if (proof.challenge_proofs.size() != shape.challenge_count) {
    ck.Fail("challenge_proofs", std::to_string(proof.challenge_proofs.size()) + " entries, expected " +
                                    std::to_string(shape.challenge_count));
  }
  const std::vector<unsigned> r_arities = shape.TreeRArities();
  const std::vector<unsigned> d_arities(shape.challenge_bit_len, 2);
  for (size_t i = 0; i < proof.challenge_proofs.size(); ++i) {
    const auto& cp = proof.challenge_proofs[i];
    std::string where = "challenge_proofs[" + std::to_string(i) + "]";
    ck.CheckShape(cp.proof_r_old, shape.TreeRKind(), r_arities, where + ".proof_r_old");
    ck.CheckShape(cp.proof_d_new, filecoin::MerkleProofKind::kSingle, d_arities, where + ".proof_d_new");
    ck.CheckShape(cp.proof_r_new, shape.TreeRKind(), r_arities, where + ".proof_r_new");
  }

  // comm_r = H2(comm_c, root_r) for the old and the new replica.
  const Fr comm_c = ck.ToFr(proof.comm_c, "comm_c");
  const Domain root_r_old = proof.challenge_proofs[0].proof_r_old.root;
  const Domain root_r_new = proof.challenge_proofs[0].proof_r_new.root;
  if (PoseidonHash2(comm_c, ck.ToFr(root_r_old, "root_r_old")) != comm_r_old) {
    ck.Fail("", "comm_r_old != H(comm_c, root_r_old)");
  }
  if (PoseidonHash2(comm_c, ck.ToFr(root_r_new, "root_r_new")) != comm_r_new) {
    ck.Fail("", "comm_r_new != H(comm_c, root_r_new)");
  }

  // Apex tree root, then the partition path (challenge 0's top pbl TreeD levels).
  std::vector<Domain> row(proof.apex_leafs);
  for (size_t i = 0; i < row.size(); ++i) ck.ToFr(row[i], "apex_leafs[" + std::to_string(i) + "]");
  while (row.size() > 1) {
    std::vector<Domain> up(row.size() / 2);
    for (size_t i = 0; i < up.size(); ++i) up[i] = TreeDHash(row[2 * i], row[2 * i + 1]);
    row.swap(up);
  }
  const size_t partition_level = shape.apex_levels + shape.apex_bit_len;
  const MerkleProof& d0 = proof.challenge_proofs[0].proof_d_new;
  Domain top = ck.TreeDWalk(d0, row[0], partition_level, shape.challenge_bit_len);
  if (top != commitments.comm_d_new) ck.Fail("apex_leafs", "apex tree and partition path do not reach comm_d_new");

  const Fr phi = Phi(comm_d_new, comm_r_old);
  const std::vector<uint64_t> challenges = PartitionChallenges(shape, comm_r_new, k);
  for (size_t i = 0; i < challenges.size(); ++i) {
    const uint64_t node = challenges[i];
    const auto& cp = proof.challenge_proofs[i];

    // TreeR old.
    std::string w = ChallengeWhere(i, node, "proof_r_old");
    ck.CheckIndices(cp.proof_r_old, r_arities, node, w);
    if (cp.proof_r_old.root != root_r_old) ck.Fail(w + ".root", "differs from challenge 0's root_r_old");
    const Fr leaf_r_old = ck.ToFr(cp.proof_r_old.leaf, w + ".leaf");
    if (ck.TreeRRoot(cp.proof_r_old, leaf_r_old, w) != ck.ToFr(root_r_old, "root_r_old")) {
      ck.Fail(w, "path does not recompute to root_r_old");
    }

    // TreeD: leaf -> apex leaf (the part the circuit uses), then the full path.
    w = ChallengeWhere(i, node, "proof_d_new");
    ck.CheckIndices(cp.proof_d_new, d_arities, node, w);
    const Fr leaf_d_new = ck.ToFr(cp.proof_d_new.leaf, w + ".leaf");
    Domain apex = ck.TreeDWalk(cp.proof_d_new, cp.proof_d_new.leaf, 0, shape.apex_levels);
    if (apex != proof.apex_leafs[(node >> shape.apex_levels) & (shape.apex_leaf_count - 1)]) {
      ck.Fail(w, "path does not reach the challenged apex leaf");
    }
    for (size_t l = partition_level; l < shape.challenge_bit_len; ++l) {
      if (cp.proof_d_new.path[l].hashes[0] != d0.path[l].hashes[0]) {
        ck.Fail(w + ".path[" + std::to_string(l) + "]", "partition path differs from challenge 0's");
      }
    }
    Domain d_root = ck.TreeDWalk(cp.proof_d_new, apex, shape.apex_levels, shape.challenge_bit_len);
    if (d_root != commitments.comm_d_new) ck.Fail(w, "path does not recompute to comm_d_new");
    if (cp.proof_d_new.root != commitments.comm_d_new) ck.Fail(w + ".root", "differs from comm_d_new");

    // Encoding, then TreeR new.
    w = ChallengeWhere(i, node, "proof_r_new");
    const Fr leaf_r_new = ck.ToFr(cp.proof_r_new.leaf, w + ".leaf");
    if (leaf_r_new != EncodeLabel(leaf_r_old, leaf_d_new, Rho(phi, RhoHigh(shape, node)))) {
      ck.Fail(w + ".leaf", "label_r_new != label_r_old + label_d_new * rho");
    }
    ck.CheckIndices(cp.proof_r_new, r_arities, node, w);
    if (cp.proof_r_new.root != root_r_new) ck.Fail(w + ".root", "differs from challenge 0's root_r_new");
    if (ck.TreeRRoot(cp.proof_r_new, leaf_r_new, w) != ck.ToFr(root_r_new, "root_r_new")) {
      ck.Fail(w, "path does not recompute to root_r_new");
    }
  }
}

}  // namespace cuzk::snapdeals
