#pragma once
// rust-fil-proofs storage-proofs-update gadgets.rs `por_no_challenge_input`:
// a Merkle inclusion proof whose path index is given as allocated bits (the
// challenge bits), for TreeR (Poseidon, base/sub/top arities) and TreeD
// (SHA-256, binary). For each path level, from the leaf up: take the next
// log2(arity) bits, insert the current node among the level's siblings, hash;
// all bits must be consumed; then the row (cur, ONE, root).
//
//   PorNoChallengeInput(cs, bits, leaf, path, arities, root, PoseidonTreeHasher{});
//
// The siblings are allocated by the caller (all levels before any hashing),
// as upstream does.
#include <bit>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/circuits/snapdeals/gadgets/insert.hpp"
#include "engine/circuits/snapdeals/gadgets/poseidon.hpp"
#include "engine/circuits/snapdeals/gadgets/tree_d_hash.hpp"
#include "engine/circuits/snapdeals/native/poseidon.hpp"

namespace cuzk::snapdeals::gadgets {

// TreeR node: Poseidon of the arity's MerkleTree tag (2^arity - 1).
struct PoseidonTreeHasher {
  template <class CS>
  Variable operator()(CS& cs, std::span<const Variable> preimage) const {
    return PoseidonHash(cs, preimage, MerkleTreeTag(unsigned(preimage.size())));
  }
};

// TreeD node: SHA-256 of two children.
struct Sha256TreeHasher {
  template <class CS>
  Variable operator()(CS& cs, std::span<const Variable> preimage) const {
    if (preimage.size() != 2) throw std::invalid_argument("TreeD is binary");
    return TreeDHash2(cs, preimage[0], preimage[1]);
  }
};

template <class CS, class Hasher>
void PorNoChallengeInput(CS& cs, std::span<const AllocatedBit> bits, Variable leaf,
                         const std::vector<std::vector<Variable>>& path, std::span<const unsigned> arities,
                         Variable root, const Hasher& hasher) {
  if (path.size() != arities.size()) {
    throw std::invalid_argument("por: " + std::to_string(path.size()) + " path levels for " +
                                std::to_string(arities.size()) + " tree levels");
  }
  Variable cur = leaf;
  size_t used = 0;
  for (size_t height = 0; height < path.size(); ++height) {
    const unsigned arity = arities[height];
    const unsigned nbits = unsigned(std::countr_zero(arity));
    if (path[height].size() + 1 != arity) {
      throw std::invalid_argument("por: path level " + std::to_string(height) + " has " +
                                  std::to_string(path[height].size()) + " siblings for arity " + std::to_string(arity));
    }
    if (used + nbits > bits.size()) throw std::invalid_argument("por: not enough challenge bits for the path");
    std::vector<Boolean> index;
    for (unsigned b = 0; b < nbits; ++b) index.push_back(Boolean::Is(bits[used + b]));
    used += nbits;
    std::vector<Variable> preimage;
    {
      auto ns = r1cs::Namespace(cs, [height] { return "merkle proof insert (height=" + std::to_string(height) + ")"; });
      preimage = Insert(cs, cur, index, path[height]);
    }
    auto ns = r1cs::Namespace(cs, [height] { return "merkle proof hash (height=" + std::to_string(height) + ")"; });
    cur = hasher(cs, std::span<const Variable>(preimage));
  }
  if (used != bits.size()) throw std::invalid_argument("por: challenge bit length and tree arities disagree");
  cs.Enforce(
      "calculated root == provided root", [&] { return LinearCombination(cur); },
      [] { return LinearCombination(Variable::One()); }, [&] { return LinearCombination(root); });
}

}  // namespace cuzk::snapdeals::gadgets
